"""A cache hint for the numba kernels: start fetching a row of a 2-D array before it is used.

A FedAvg round reads one random sample row per client step from a data set far larger than the
caches, so the kernel waits on memory. The rows a client will read are known before it starts
(its minibatch uniforms are drawn beforehand), so the kernel hints the next client's rows while
it trains the current one. ``llvm.prefetch`` is only a hint (no load, no fault, no result), so
the numbers are the same with or without it.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CACHE_LINE = 64  # bytes


@intrinsic
def prefetch_row(typingctx, array, row):
    """Hint the caches to fetch ``array[row, :]`` (a C-contiguous 2-D array) for reading."""
    if not (
        isinstance(array, types.Array)
        and array.ndim == 2
        and array.layout == "C"
        and isinstance(row, types.Integer)
    ):
        return None

    def codegen(context, builder, signature, args):
        array_type, row_type = signature.args
        arr = context.make_array(array_type)(context, builder, args[0])
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        byte_ptr = ir.IntType(8).as_pointer()
        row_bytes = builder.mul(builder.extract_value(arr.shape, 1), arr.itemsize)
        start = builder.mul(context.cast(builder, args[1], row_type, types.int64), row_bytes)
        base = builder.bitcast(arr.data, byte_ptr)
        prefetch = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32]),
            "llvm.prefetch.p0i8",
        )
        with cgutils.for_range_slice(
            builder, ir.Constant(i64, 0), row_bytes, ir.Constant(i64, CACHE_LINE)
        ) as (
            offset,
            _,
        ):
            # read (0), high temporal locality (3), data cache (1)
            builder.call(
                prefetch,
                [
                    builder.gep(base, [builder.add(start, offset)]),
                    ir.Constant(i32, 0),
                    ir.Constant(i32, 3),
                    ir.Constant(i32, 1),
                ],
            )
        return context.get_dummy_value()

    return types.void(array, row), codegen
