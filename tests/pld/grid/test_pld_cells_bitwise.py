"""The subsampled-Gaussian cells of pld/grid/cells.hpp, bit for bit, against a plain re-statement of their formulas.

The C++ core batches the quadrature nodes of many cells and evaluates each libm function over the
batch in its own loop (NodeBatch); the values must be those of the per-node formulas in their stated
order.  Python's ``math.exp``, ``math.expm1``, ``math.log1p`` and ``math.log`` call the same C library
functions, and Python floats are IEEE doubles with one rounding per operation (the core is built with
``-ffp-contract=off``), so re-stating the formulas here operation by operation gives the same bits:
any change of a formula, of the node layout or of the summation order shows as a mismatch.  A batch's
node exponentials come from the vector kernels where this CPU has them (simd/exp_arrays.hpp; the test
hooks ``_exp_avx2`` and ``_expm1_avx2`` give their values), a cell of more than a batch's 1024 nodes
from libm.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core

INV_SQRT_TWO_PI = 0.398942280401432677939946059934381868
GL5 = (
    (-0.9061798459386640, 0.2369268850561891),
    (-0.5384693101056831, 0.4786286704993665),
    (0.0, 0.5688888888888889),
    (0.5384693101056831, 0.4786286704993665),
    (0.9061798459386640, 0.2369268850561891),
)
GL3 = (
    (-0.7745966692414834, 0.5555555555555556),
    (0.0, 0.8888888888888888),
    (0.7745966692414834, 0.5555555555555556),
)


BATCH_NODES = 1024


def _vector_or_libm(hook, libm):
    """The batch's function: the AVX2 kernel through its test hook, or libm where there is none."""
    if hook(np.zeros(1)) is None:
        return libm
    return lambda x: float(hook(np.array([x]))[0])


BATCH_EXP = _vector_or_libm(_core.hockey_stick._exp_avx2, math.exp)
BATCH_EXPM1 = _vector_or_libm(_core.hockey_stick._expm1_avx2, math.expm1)


def std_max(a: float, b: float) -> float:
    return b if a < b else a


def std_min(a: float, b: float) -> float:
    return b if b < a else a


def two_prod(a: float, b: float) -> tuple[float, float]:
    """Dekker's exact product (numerics/error_free.hpp)."""
    split = 134217729.0
    p = a * b
    ca = split * a
    ah = ca - (ca - a)
    al = a - ah
    cb = split * b
    bh = cb - (cb - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def two_sum(a: float, b: float) -> tuple[float, float]:
    """Knuth's exact sum (numerics/error_free.hpp)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def minus_half_square(v_hi: float, v_lo: float, s: float, inv_s: float) -> tuple[float, float]:
    """-(v / s)^2 / 2 as hi + correction (pld/grid/cells.hpp's minus_half_square)."""
    z = v_hi * inv_s
    zs_hi, zs_lo = two_prod(z, s)
    dz = (((v_hi - zs_hi) - zs_lo) + v_lo) * inv_s
    sq_hi, sq_lo = two_prod(z, z)
    return -0.5 * sq_hi, -0.5 * sq_lo - z * dz


class Mixture:
    """P = (1-q) N(0, s^2) + q N(1, s^2) against Q = N(0, s^2) (remove direction), L(x) = log(1 - q + q e^t)."""

    def __init__(self, s: float, q: float):
        self.s, self.q, self.log_q = s, q, math.log(q)

    def t(self, x: float) -> float:
        return (x - 0.5) / (self.s * self.s)

    def loss(self, x: float) -> float:
        v, q = self.t(x), self.q
        return (
            math.log1p(q * math.expm1(v)) if v < 0.0 else v + math.log(q + (1.0 - q) * math.exp(-v))
        )

    def x_of_loss(self, l: float) -> float:
        s, q = self.s, self.q
        if l > 0.0:
            return 0.5 + s * s * (l - self.log_q + math.log1p(-(1.0 - q) * math.exp(-l)))
        z = math.expm1(l) / q
        return 0.5 + s * s * math.log1p(z) if z > -1.0 else -math.inf

    def shifted_weight(self, x: float) -> float:
        v, q = self.t(x), self.q
        return (
            q / (q + (1.0 - q) * math.exp(-v))
            if v >= 0.0
            else q * math.exp(v) / (1.0 - q + q * math.exp(v))
        )

    def scale(self, x: float) -> float:
        s = self.s
        z = max(1.0, abs(x / s), abs((x - 1.0) / s))
        return 0.25 * s / z

    def kernel(self, x0: float, l: float, off: float, h: float, exp=math.exp, expm1=math.expm1):
        w, s2, inv_s = self.shifted_weight(x0), self.s * self.s, 1.0 / self.s
        assert w >= 1e-250  # the settings below stay off the tiny-weight form
        grow, base = (1.0, 0.0) if off == 0.0 else (math.exp(off), math.expm1(off))
        top = math.expm1(h)

        def at(dx: float) -> tuple[float, float]:
            x_hi, x_lo = two_sum(x0, dx)
            e_hi, correction = minus_half_square(x_hi, x_lo, self.s, inv_s)
            a_hi, a_lo = two_sum(l, e_hi)
            f = INV_SQRT_TWO_PI * inv_s * exp(a_hi) * (1.0 + (a_lo + correction))
            eu = std_min(std_max(base + grow * (w * expm1(dx / s2)), 0.0), top)
            return f * eu, f * (top - eu)

        return at


class Added:
    """P = N(1, s^2) against Q = (1-q) N(1, s^2) + q N(0, s^2) in y = 1 - x (add direction)."""

    def __init__(self, s: float, q: float):
        self.m = Mixture(s, q)

    def loss(self, y: float) -> float:
        return -self.m.loss(1.0 - y)

    def x_of_loss(self, l: float) -> float:
        return 1.0 - self.m.x_of_loss(-l)

    def scale(self, y: float) -> float:
        return 0.25 * self.m.s / max(1.0, abs((y - 1.0) / self.m.s))

    def kernel(self, y0: float, l: float, off: float, h: float, exp=math.exp, expm1=math.expm1):
        w, s2, inv_s = self.m.shifted_weight(1.0 - y0), self.m.s * self.m.s, 1.0 / self.m.s
        shrink, base = (1.0, 0.0) if off == 0.0 else (math.exp(-off), -math.expm1(-off))
        top, expm1_h, exp_h = -math.expm1(-h), math.expm1(h), math.exp(h)

        def at(dy: float) -> tuple[float, float]:
            y_hi, y_lo = two_sum(y0, dy)
            v_hi, v_lo = two_sum(y_hi, -1.0)
            e_hi, correction = minus_half_square(v_hi, v_lo + y_lo, self.m.s, inv_s)
            f = inv_s * (INV_SQRT_TWO_PI * (exp(e_hi) * (1.0 + correction)))
            cu = std_min(std_max(base - shrink * w * expm1(-dy / s2), 0.0), top)
            return f * cu, f * std_max(expm1_h - exp_h * cu, 0.0)

        return at


def cell_integrals(
    mech, xa: float, xb: float, l: float, off: float, h: float
) -> tuple[float, float]:
    """5-point Gauss-Legendre on pieces of at most min(scale) in x, 3 points below 1/50 of one."""
    step = std_min(mech.scale(xa), mech.scale(xb))
    c = d = 0.0
    if xb - xa <= 0.02 * step:
        half = 0.5 * (xb - xa)
        nodes = [(half + half * node, half * weight) for node, weight in GL3]
    else:
        pieces = max(min(math.ceil((xb - xa) / step), 1 << 16), 1)
        w = (xb - xa) / pieces
        nodes = [
            ((k + 0.5) * w + 0.5 * w * node, 0.5 * w * weight)
            for k in range(pieces)
            for node, weight in GL5
        ]
    batched = len(nodes) <= BATCH_NODES
    kernel = mech.kernel(xa, l, off, h, *((BATCH_EXP, BATCH_EXPM1) if batched else ()))
    cc = dd = 0.0  # the compensated sums' errors (pld/grid/cells.hpp's CompensatedSum)
    for dx, weight in nodes:
        fc, fd = kernel(dx)
        c, e = two_sum(c, weight * fc)
        cc += e
        d, e = two_sum(d, weight * fd)
        dd += e
    return c + cc, d + dd


def restated_cells(
    sigma: float, q: float, remove: bool, h: float, tail: float
) -> dict[str, np.ndarray]:
    z = _core.hockey_stick.gaussian_tail_inverse(0.5 * tail)
    mech = Mixture(sigma, q) if remove else Added(sigma, q)
    x_lo, x_hi = (-z * sigma, 1.0 + z * sigma) if remove else (1.0 - z * sigma, 1.0 + z * sigma)
    l_lo = mech.loss(x_lo)
    k_lo = math.floor(l_lo / h)
    n = max(math.ceil(mech.loss(x_hi) / h) - k_lo, 1)
    edge = (
        [x_lo]
        + [std_min(x_hi, std_max(x_lo, mech.x_of_loss((k_lo + j) * h))) for j in range(1, n)]
        + [x_hi]
    )

    def offset(x: float, l: float) -> float:
        return std_max(l_lo - l, 0.0) if x == x_lo else 0.0

    out = {name: np.zeros(n) for name in ("c", "d")}
    for j in range(n):
        l_j = (k_lo + j) * h
        if edge[j + 1] > edge[j]:
            out["c"][j], out["d"][j] = cell_integrals(
                mech, edge[j], edge[j + 1], l_j, offset(edge[j], l_j), h
            )
    light = 1e-6 * max(out["c"] + out["d"])
    for name in ("c_lo", "d_lo", "c_hi", "d_hi"):
        out[name] = np.full(n, -1.0)
    a = 0.5 * h
    for j in range(n):
        mass = out["c"][j] + out["d"][j]
        if not (mass >= light and mass > 0.0):
            continue
        l_j = (k_lo + j) * h
        xa, xb = edge[j], edge[j + 1]
        xs = std_min(xb, std_max(xa, mech.x_of_loss(l_j + a)))
        lower = cell_integrals(mech, xa, xs, l_j, offset(xa, l_j), a) if xs > xa else (0.0, 0.0)
        upper = (
            cell_integrals(mech, xs, xb, l_j + a, offset(xs, l_j + a), a) if xb > xs else (0.0, 0.0)
        )
        (out["c_lo"][j], out["d_lo"][j]), (out["c_hi"][j], out["d_hi"][j]) = lower, upper
    out["k_lo"] = np.array(k_lo)
    return out


@pytest.mark.parametrize(
    "sigma, q, h", [(0.7, 0.08, 1e-2), (1.3, 0.004, 2e-3), (3.0, 0.03, 5e-3), (0.55, 0.3, 2e-2)]
)
@pytest.mark.parametrize("remove", [True, False])
def test_cells_are_their_formulas_bit_for_bit(sigma, q, h, remove):
    core = _core.pld_grid.subsampled_gaussian_cells(
        sigma, q, remove=remove, h=h, tail=1e-12, max_cells=1 << 22
    )
    ours = restated_cells(sigma, q, remove, h, 1e-12)
    assert int(core.k_lo) == int(ours["k_lo"])
    for name in ("c", "d", "c_lo", "d_lo", "c_hi", "d_hi"):
        got, want = np.asarray(getattr(core, name)), ours[name]
        assert got.shape == want.shape, name
        differ = np.flatnonzero(got.view(np.int64) != want.view(np.int64))
        assert differ.size == 0, (
            f"{name}: {differ.size} of {got.size} cells differ, first {differ[:5]}"
        )
        assert np.count_nonzero(got > 0) > 10  # the comparison covers cells that carry mass


@pytest.mark.parametrize(
    "shift, s", [(0.0, 0.8), (-1.0, 0.8), (0.0, 0.013), (-1.0, 3.7), (0.0, 1.0)]
)
def test_batched_gaussian_exponents_are_the_one_node_values_and_exact_to_first_order(shift, s):
    """numerics/gaussian_exponent.hpp: the batch (four nodes at a time with AVX2 + FMA where the CPU has them) gives
    the one-node path's bits at every position of the array, and e^argument * factor is e^{l - (v/s)^2/2}
    to a few u (mpmath, 40 digits), where fl(v / s)^2 lost up to (v/s)^2 u."""
    rng = np.random.default_rng(19)
    n = 1031  # not a multiple of four: the padded last lanes too
    base = rng.uniform(-10.0, 11.0, n) * s
    dx = rng.uniform(0.0, 0.3, n) * s
    l = rng.uniform(-3.0, 20.0, n)
    arg, fac, arg1, fac1 = _core.pld_grid._gaussian_exponents(base, dx, l, shift=shift, s=s)
    assert np.array_equal(arg, arg1) and np.array_equal(fac, fac1)
    mp = pytest.importorskip("mpmath")
    worst = 0.0
    with mp.workdps(40):
        for i in range(0, n, 37):
            v = (mp.mpf(float(base[i])) + mp.mpf(float(dx[i]))) + shift
            exact = mp.exp(mp.mpf(float(l[i])) - (v / mp.mpf(s)) ** 2 / 2)
            worst = max(
                worst, float(abs(mp.exp(mp.mpf(float(arg[i]))) * mp.mpf(float(fac[i])) / exact - 1))
            )
    assert worst <= 4 * 2.0**-53, worst  # exp itself is exact here: the exponent's own error alone
