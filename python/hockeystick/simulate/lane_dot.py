"""The simulator's dot product, summed in eight fixed lanes with explicit LLVM vector operations.

    lane_dot(a, offset, b) = ((S_0 + S_4) + (S_2 + S_6)) + ((S_1 + S_5) + (S_3 + S_7)),
    S_l = sum over j = l (mod 8), in increasing j, of a[offset + j] * b[j],   j = 0 .. len(b) - 1,

every product and sum rounded to float64 (``b`` may be float32: its entries are widened exactly).
The order of every addition is fixed by the formula, not by the compiler or the machine: the two
accumulators are ``<4 x double>`` values multiplied and added lane by lane (``fmul`` then ``fadd``,
never contracted to a fused multiply-add), so the result is the same bit for bit on every machine
(AVX2 runs each vector operation as one instruction, SSE2 as two) and with any thread count.
numba's own loops cannot express this: without ``fastmath`` reassociation LLVM keeps a scalar sum
scalar (one dependent addition per feature), and with it the lane count would follow the target's
vector width, and so would the last bits.  Two accumulators (8 lanes, ``QUADS``) keep two
independent chains of additions in flight; another count would change the last bits.

Used by every per-sample dot product w.x of the models (:mod:`.models`).  The caller guarantees
``offset + len(b) <= len(a)`` (the kernels index their own arrays; nothing is checked here).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

QUADS = 2  # <4 x double> accumulators (changing it changes the results' last bits)
LANES = 4 * QUADS  # lane l sums the products j = l (mod LANES)


@intrinsic
def lane_dot(typingctx, a, offset, b):
    """sum_j a[offset + j] b[j] in the eight fixed lanes of the module docstring (a float64, b
    float64 or float32, both 1-D and C-contiguous; offset an integer)."""
    if not (
        isinstance(a, types.Array)
        and a.ndim == 1
        and a.layout == "C"
        and a.dtype == types.float64
        and isinstance(b, types.Array)
        and b.ndim == 1
        and b.layout == "C"
        and b.dtype in (types.float64, types.float32)
        and isinstance(offset, types.Integer)
    ):
        return None

    def codegen(context, builder, signature, args):
        a_type, offset_type, b_type = signature.args
        a_array = context.make_array(a_type)(context, builder, args[0])
        b_array = context.make_array(b_type)(context, builder, args[2])
        i64 = ir.IntType(64)
        f64 = ir.DoubleType()
        b_element = ir.FloatType() if b_type.dtype == types.float32 else f64
        quad = ir.VectorType(f64, 4)
        n = builder.extract_value(b_array.shape, 0)
        a_base = builder.gep(
            a_array.data, [context.cast(builder, args[1], offset_type, types.int64)]
        )
        b_base = b_array.data
        zero = ir.Constant(quad, [0.0] * 4)
        blocks = builder.udiv(n, ir.Constant(i64, LANES))

        entry = builder.block
        loop = builder.append_basic_block("lane_dot.loop")
        tail = builder.append_basic_block("lane_dot.tail")
        builder.cbranch(builder.icmp_unsigned(">", blocks, ir.Constant(i64, 0)), loop, tail)

        builder.position_at_end(loop)
        block = builder.phi(i64)
        sums = [builder.phi(quad) for _ in range(QUADS)]
        start = builder.mul(block, ir.Constant(i64, LANES))
        next_sums = []
        for q, total in enumerate(sums):
            at = builder.add(start, ir.Constant(i64, 4 * q))
            product = builder.fmul(
                _load_quad(builder, a_base, at, f64), _load_quad(builder, b_base, at, b_element)
            )
            next_sums.append(builder.fadd(total, product))
        next_block = builder.add(block, ir.Constant(i64, 1))
        block.add_incoming(ir.Constant(i64, 0), entry)
        block.add_incoming(next_block, loop)
        for total, following in zip(sums, next_sums):
            total.add_incoming(zero, entry)
            total.add_incoming(following, loop)
        builder.cbranch(builder.icmp_unsigned("<", next_block, blocks), loop, tail)

        builder.position_at_end(tail)
        finals = [builder.phi(quad) for _ in next_sums]
        slots = []
        for lanes, following in zip(finals, next_sums):
            lanes.add_incoming(zero, entry)
            lanes.add_incoming(following, loop)
            slots += [
                cgutils.alloca_once_value(
                    builder, builder.extract_element(lanes, ir.Constant(i64, l))
                )
                for l in range(4)
            ]
        # the last len(b) mod LANES products go to lanes 0, 1, ... (j = l mod LANES)
        done = builder.mul(blocks, ir.Constant(i64, LANES))
        for l in range(LANES - 1):
            j = builder.add(done, ir.Constant(i64, l))
            with builder.if_then(builder.icmp_unsigned("<", j, n)):
                product = builder.fmul(
                    builder.load(builder.gep(a_base, [j])),
                    _widen(builder, builder.load(builder.gep(b_base, [j]))),
                )
                builder.store(builder.fadd(builder.load(slots[l]), product), slots[l])
        lanes = [builder.load(slot) for slot in slots]
        while len(lanes) > 1:  # lane l + half onto lane l: the tree of the module docstring
            half = len(lanes) // 2
            lanes = [builder.fadd(lanes[l], lanes[l + half]) for l in range(half)]
        return lanes[0]

    return types.float64(a, offset, b), codegen


def _load_quad(builder, base, index, element):
    """Four consecutive entries of ``base`` from ``index`` as a ``<4 x double>`` (float32 widened exactly)."""
    pointer = builder.bitcast(builder.gep(base, [index]), ir.VectorType(element, 4).as_pointer())
    loaded = builder.load(pointer, align=4 if isinstance(element, ir.FloatType) else 8)
    if isinstance(element, ir.FloatType):
        return builder.fpext(loaded, ir.VectorType(ir.DoubleType(), 4))
    return loaded


def _widen(builder, value):
    """A scalar entry as a double (float32 widened exactly)."""
    return builder.fpext(value, ir.DoubleType()) if isinstance(value.type, ir.FloatType) else value
