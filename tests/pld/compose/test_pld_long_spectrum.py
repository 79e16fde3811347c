"""DFT bins from one long-double FFT (pld/compose/long_spectrum.hpp) and the compositions that use them.

The bins are checked against a 50-digit mpmath DFT of the signal folded mod m: every error within the
stated bound (about 8 u_L ceil(log2 m) ||p||_1, u_L = 2^-64).  The compositions are checked against the
Gaussian closed form (delta = theta(sqrt(T)/sigma, eps): upper never below it, lower never above), against
the direct-sum fallback a backend without a long-double transform takes (``long_fft=False``), and for
giving an item the same bits alone or batched.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import platform

import mpmath
import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.compose import fft as pc
from hockeystick.pld.grid.pmf import GridPMF

pytestmark = pytest.mark.skipif(
    np.finfo(np.longdouble).nmant != 63,
    reason="needs x86-64's 80-bit long double (64-bit significand)",
)

U = 2.0**-53
U_LONG = 2.0**-64


def _exact(x: np.longdouble) -> mpmath.mpf:
    """A long double as an mpmath number, exactly: its 64-bit significand splits into two doubles."""
    hi = float(x)
    lo = float(x - np.longdouble(hi))
    return mpmath.mpf(hi) + mpmath.mpf(lo)


def _mpmath_dft(p: np.ndarray, m: int, k: int) -> mpmath.mpc:
    """sum_j p_j e^{-2 pi i j k / m} at 50 digits (the DFT of p folded mod m)."""
    total = mpmath.mpc(0)
    for j, x in enumerate(p):
        if x:
            total += mpmath.mpf(float(x)) * mpmath.expjpi(mpmath.mpf(-2 * ((j * k) % m)) / m)
    return total


def _check_bins(p: np.ndarray, m: int, ks: list[int]) -> tuple[float, float]:
    """Every bin of ks within the long-double bound of the 50-digit DFT, and within the double bound once
    rounded to double; returns both bounds."""
    values, bound, bound_double = _core.pld_compose.long_fft_bins(p, m=m)
    assert values.dtype == np.clongdouble and values.shape == (m // 2 + 1,)
    with mpmath.workdps(50):
        for k in ks:
            exact = _mpmath_dft(p, m, k)
            got = mpmath.mpc(_exact(values[k].real), _exact(values[k].imag))
            assert abs(got - exact) <= bound, (m, len(p), k, float(abs(got - exact)), bound)
            rounded = complex(values[k])
            assert abs(mpmath.mpc(rounded) - exact) <= bound_double, (m, len(p), k)
    return bound, bound_double


@pytest.mark.parametrize(
    "m, n, seed",
    [
        (1, 1, 0),
        (1, 5, 1),
        (2, 2, 2),
        (2, 7, 3),
        (5, 5, 4),
        (15, 40, 5),
        (45, 45, 6),
        (96, 250, 7),
        (1000, 3000, 8),
        (4096, 300, 9),
        (1474560, 400, 10),
    ],
)
def test_long_fft_bins_match_a_50_digit_dft_within_their_bound(m, n, seed):
    """Lengths 1, 2 and small odd 5-smooth ones, folding (n > m) and n < m; uneven masses, some tiny."""
    rng = np.random.default_rng(seed)
    p = rng.random(n) ** 6
    p /= p.sum()
    half = m // 2 + 1
    ks = (
        list(range(half))
        if half <= 49
        else sorted({0, 1, half - 1, m // 3, *rng.integers(0, half, 5).tolist()})
    )
    bound, bound_double = _check_bins(p, m, ks)
    l1 = float(np.sum(p))
    stages = max(1, math.ceil(math.log2(m)))
    gamma = (-(-n // m) - 1) * U_LONG * 1.01
    assert (
        bound <= (8 * U_LONG * stages + gamma) * l1 * 1.01 + 1e-300
    )  # the stated formula, not more
    assert bound_double <= 1.01 * U * l1 + bound * 1.01  # once rounded: about u ||p||_1
    if m > 64:  # far below the blocked direct sums' ~1.1 u ||p||_1
        direct = _core.pld_compose.direct_bins(p, m=m, bins=[0])[1]
        assert bound * 10 <= direct


@pytest.mark.parametrize("scale", [1e-300, 2.0**-1060])
def test_long_fft_bins_hold_for_masses_near_the_bottom_of_double(scale):
    """Masses near 1e-300 and subnormal ones (long double's exponent range holds them exactly): the
    bins still within the bound, which is then dominated by its 2^-1074 underflow term."""
    rng = np.random.default_rng(11)
    p = rng.random(37) * scale
    p[::5] = 5e-324
    m = 24
    bound, bound_double = _check_bins(p, m, list(range(m // 2 + 1)))
    assert 0.0 < bound < 1e-300 and bound_double > 0.0


def test_long_fft_bins_refuse_what_they_cannot_bound():
    with pytest.raises(ValueError, match="masses"):
        _core.pld_compose.long_fft_bins(np.array([0.5, -0.1]), m=8)
    with pytest.raises(ValueError, match="masses"):
        _core.pld_compose.long_fft_bins(np.array([0.5, np.nan]), m=8)
    with pytest.raises(ValueError, match="m must"):
        _core.pld_compose.long_fft_bins(np.array([0.5, 0.5]), m=0)
    with pytest.raises(ValueError, match="5-smooth"):
        _core.pld_compose.long_fft_bins(np.array([0.5, 0.5]), m=7)


def _core_compose(
    items: list[list[tuple[GridPMF, int]]],
    pessimistic: bool,
    long_fft: bool,
    products: float = 0.0,
    band_rows: bool = False,
) -> list[GridPMF]:
    """compose_many with direct bins through the binding, choosing whether the scipy backend offers its
    long-double transform (long_fft=False: a backend without one, so the direct sums) and what it is taken
    to cost (products = 0: wherever its bound is the smaller; the default keeps the direct sums for bands
    whose products cost less than the transform).  No band rows by default (pld/compose/band_spectrum.hpp): their bins
    are direct sums whichever backend, and these tests are of the long-double transform's."""
    pmfs: list[GridPMF] = []
    for item in items:
        for pmf, _ in item:
            if all(pmf is not q for q in pmfs):
                pmfs.append(pmf)
    terms = [
        [(next(i for i, q in enumerate(pmfs) if q is pmf), count) for pmf, count in item]
        for item in items
    ]
    done = _core.pld_compose.compose_many(
        [q.p for q in pmfs],
        k_lo=[q.k_lo for q in pmfs],
        p_inf=[q.p_inf for q in pmfs],
        h=pmfs[0].h,
        items=terms,
        pessimistic=pessimistic,
        tail=pc.DEFAULT_TAIL,
        max_points=pc.DEFAULT_MAX_POINTS,
        workers=1,
        options=_core.pld_compose.ComposeOptions(
            direct_bins=True, long_fft=long_fft, long_fft_products=products, band_rows=band_rows
        ),
    )
    return [pc._grid_pmf(r, pmfs[0].h, pessimistic) for r in done]


@pytest.mark.parametrize("sigma, rounds, h", [(30.0, 10_000, 2e-3), (100.0, 100_000, 1e-3)])
def test_many_gaussian_rounds_bracket_the_closed_form_with_long_fft_bins(sigma, rounds, h):
    """T Gaussian rounds (mu = sqrt(T)/sigma): upper >= theta >= lower with the long-double bins, their
    charges at least 5x below the direct sums' (and those 20x below the FFT's: test_pld_direct_spectrum)."""
    dist = pld.gaussian(sigma, value_discretization_interval=h)
    ((factor, count),) = dist.directions[0].items()
    r = math.sqrt(rounds) / sigma
    eps = np.linspace(0.0, 4 * r + 2, 40)
    exact = hs.theta(r, eps)
    for pessimistic in (True, False):
        side = factor.upper if pessimistic else factor.lower
        (long,) = _core_compose([[(side, count * rounds)]], pessimistic, True)
        (short,) = _core_compose([[(side, count * rounds)]], pessimistic, False)
        if pessimistic:
            assert np.all(long.delta(eps) >= exact)
        else:
            assert np.all(long.delta(eps) <= exact)
        assert (
            long.total_error * 5 <= short.total_error and long.entry_error * 5 <= short.entry_error
        )
        assert (
            np.max(np.abs(long.p - short.p)) <= short.entry_error
        )  # the values differ only by round-off


def test_charge_limited_subsampled_gaussian_point_with_long_fft_bins():
    """sigma 0.5, q 1e-4, 47 149 rounds, h 2e-3 (a charge-limited corner): the pessimistic charge of the
    long-double bins at least 5x below the direct sums', the remove direction's upper delta(10) (all round-off
    charge on this grid: 3.1e-9 with FFT bins, 3.3e-11 with direct sums) below 1e-11, and the larger of the
    two directions still above a finer grid's certified lower side."""
    dist = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=2e-3)
    ups = []
    for direction in dist.directions:
        ((factor, count),) = direction.items()
        (long,) = _core_compose([[(factor.upper, count * 47149)]], True, True)
        (short,) = _core_compose([[(factor.upper, count * 47149)]], True, False)
        assert long.total_error * 5 <= short.total_error < 1e-10
        ups.append(long.delta(np.array([10.0]))[0])
    assert ups[0] < 1e-11
    fine = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=2.5e-4).self_compose(
        47149
    )
    assert fine.delta(10.0, bound="lower") <= max(ups)


def test_the_facade_takes_the_long_fft_bins_where_direct_sums_cost_more():
    """sigma 0.5, q 1e-4, 47149 rounds (the remove direction's factor spans ~10^4 grid points, so its band
    costs far more in direct products than one transform): compose(direct_bins=True) through the facade
    gives the bits of the long-double transform, not the direct sums'.  A many-round Gaussian (narrow
    factor, short band) keeps the cheaper direct sums by default, as a band row (pld/compose/band_spectrum.hpp)."""
    dist = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=2e-3)
    ((factor, count),) = dist.directions[0].items()
    item = [(factor.upper, count * 47149)]
    facade = pc.compose(item, pessimistic=True, direct_bins=True, workers=1)
    (long_fft,) = _core_compose([item], True, True)
    (sums,) = _core_compose([item], True, False)
    np.testing.assert_array_equal(facade.p, long_fft.p)
    assert facade.total_error == long_fft.total_error < sums.total_error / 5
    gauss = pld.gaussian(30.0, value_discretization_interval=2e-3)
    ((factor, count),) = gauss.directions[0].items()
    item = [(factor.upper, count * 10_000)]
    facade = pc.compose(item, pessimistic=True, direct_bins=True, workers=1)
    (band,) = _core_compose(
        [item], True, True, 0.35, band_rows=True
    )  # a band row: its band by direct sums
    (sums,) = _core_compose([item], True, False, 0.35)
    np.testing.assert_array_equal(facade.p, band.p)
    assert facade.total_error == band.total_error <= sums.total_error
    assert np.max(np.abs(facade.p - sums.p)) <= sums.entry_error


def _composed_in_fresh_thread(sequence: list[tuple[GridPMF, int]]) -> list[GridPMF]:
    """``_core_compose`` of each (factor, count) in ``sequence``, in order, on a new thread (long-double bins
    wherever their bound is the smaller): its band reuse cache (pld/compose/taylor_reuse.hpp, one per thread)
    starts empty."""
    import threading

    out: list[GridPMF] = []
    worker = threading.Thread(
        target=lambda: out.extend(_core_compose([[item]], True, True)[0] for item in sequence)
    )
    worker.start()
    worker.join()
    return out


def test_long_fft_bins_reused_are_the_bits_computed_afresh():
    """A factor's long-double transform at a row's length, asked again on one thread (a narrower band after a
    wider one at the same length, a wider one after that, other masses of the same size in between, another
    length), gives each composition, bit for bit, what it gives computed alone on a thread that never composed
    another; the nudged masses are not served the original's bins."""
    dist = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=2e-3)
    ((factor, count),) = dist.directions[0].items()
    p = factor.upper.p.copy()
    p[np.argmax(p)] *= 1.0 + 1e-9
    nudged = GridPMF(k_lo=factor.upper.k_lo, h=factor.upper.h, p=p, p_inf=factor.upper.p_inf)
    # 47000, 47149 and 43000 rounds share the FFT length (13824), 43000 keeping the widest band; 40000 another
    rounds = [47000, 47149, 43000, 47000, 47149, 40000]
    sequence = [(factor.upper, count * r) for r in rounds]
    sequence.insert(3, (nudged, count * 47000))
    reused = _composed_in_fresh_thread(sequence)
    for item, got in zip(sequence, reused):
        (alone,) = _composed_in_fresh_thread([item])
        np.testing.assert_array_equal(got.p, alone.p)
        assert (got.entry_error, got.total_error) == (alone.entry_error, alone.total_error)
    assert not np.array_equal(reused[0].p, reused[3].p)


@pytest.mark.parametrize("long_fft, products", [(True, 0.0), (True, 0.35), (False, 0.35)])
def test_an_item_keeps_its_bits_alone_or_batched(long_fft, products):
    """Rows per (factor, count), one long-double transform per factor: an item batched with a larger count
    of the same factor and with another factor keeps its own bits and charges, on every path."""
    dist = pld.subsampled_gaussian(0.8, 1e-3, value_discretization_interval=2e-3)
    factors = [next(iter(d)) for d in dist.directions]
    a = [(factors[0].upper, 20_000)]
    b = [(factors[0].upper, 22_000)]
    c = [(factors[1].upper, 20_000), (factors[0].upper, 3)]
    alone = _core_compose([a], True, long_fft, products)[0]
    assert (
        alone.total_error * 5 < pc.compose(a, pessimistic=True).total_error
    )  # the direct bins were taken
    for batched in (
        _core_compose([a, b], True, long_fft, products)[0],
        _core_compose([b, c, a], True, long_fft, products)[2],
    ):
        np.testing.assert_array_equal(alone.p, batched.p)
        assert (alone.k_lo, alone.total_error, alone.entry_error, alone.spectral_l2) == (
            batched.k_lo,
            batched.total_error,
            batched.entry_error,
            batched.spectral_l2,
        )


def _x87_control(
    libm: ctypes.CDLL, lower: bool | None = None, saved: ctypes.Array | None = None
) -> ctypes.Array:
    """This thread's floating-point environment (x86-64 glibc fenv_t: the x87 control word first); with
    lower=True, set the x87 precision control to 53 bits; with saved, restore it."""
    env = ctypes.create_string_buffer(64)
    if saved is not None:
        assert libm.fesetenv(saved) == 0
        return saved
    assert libm.fegetenv(env) == 0
    if lower:
        lowered = ctypes.create_string_buffer(env.raw)
        control = int.from_bytes(env.raw[:2], "little")
        lowered[:2] = ((control & ~0x300) | 0x200).to_bytes(
            2, "little"
        )  # precision control: 53 bits
        assert libm.fesetenv(lowered) == 0
    return env


@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64") or ctypes.util.find_library("m") is None,
    reason="the x87 precision control of x86-64 glibc",
)
def test_a_lowered_x87_precision_turns_the_long_double_bins_off():
    """Other code in the process may set the x87 precision control to 53 bits; then every u_L bound is wrong,
    so the composition keeps the FFT's bins and bound (as with direct_bins=False) and the bins' binding
    refuses."""
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    dist = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=2e-3)
    ((factor, count),) = dist.directions[0].items()
    item = [(factor.upper, count * 47149)]
    fft_only = pc.compose(item, pessimistic=True, workers=1)
    saved = _x87_control(libm, lower=True)
    try:
        lowered = pc.compose(item, pessimistic=True, direct_bins=True, workers=1)
        with pytest.raises(ValueError, match="precision"):
            _core.pld_compose.long_fft_bins(np.array([0.5, 0.5]), m=2)
    finally:
        _x87_control(libm, saved=saved)
    assert lowered.total_error == fft_only.total_error
    np.testing.assert_array_equal(lowered.p, fft_only.p)
    restored = pc.compose(item, pessimistic=True, direct_bins=True, workers=1)
    assert restored.total_error * 500 < fft_only.total_error


_POISONED_POOL = """
import ctypes, ctypes.util, numpy as np
import hockeystick.pld as pld
from hockeystick.pld import compose as pc
libm = ctypes.CDLL(ctypes.util.find_library("m"))
env = ctypes.create_string_buffer(64)
assert libm.fegetenv(env) == 0
lowered = ctypes.create_string_buffer(env.raw)
control = int.from_bytes(env.raw[:2], "little")
lowered[:2] = ((control & ~0x300) | 0x200).to_bytes(2, "little")
dist = pld.subsampled_gaussian(0.8, 1e-3, value_discretization_interval=2e-3)
factor = next(iter(dist.directions[0])).upper
assert libm.fesetenv(lowered) == 0
pc.compose_many([[(factor, c)] for c in (200, 201, 202, 203)], pessimistic=True)  # the pool starts at 53 bits
assert libm.fesetenv(env) == 0
items = [[(factor, c)] for c in range(20000, 20016)]  # enough that the pool thread takes some
team = pc.compose_many(items, pessimistic=True, direct_bins=True)
alone = pc.compose_many(items, pessimistic=True, direct_bins=True, workers=1)
fft_only = pc.compose_many(items, pessimistic=True, workers=1)
for a, b, f in zip(team, alone, fft_only):
    assert np.array_equal(a.p, b.p) and a.total_error == b.total_error, (a.total_error, b.total_error)
    assert a.total_error * 100 < f.total_error, (a.total_error, f.total_error)
print("ok")
"""


@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64") or ctypes.util.find_library("m") is None,
    reason="the x87 precision control of x86-64 glibc",
)
def test_an_openmp_pool_created_at_53_bits_does_not_take_the_long_double_powers():
    """OpenMP pool threads keep the x87 control word they were created with: a pool started while it was at
    53 bits must not compute the long-double powers (mod + long_err would round to mod and the charge
    collapse), so the team's result is the one thread's, bit for bit, with the direct bins' small charge.
    In a fresh process with two OpenMP threads (the pool is created once per process)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, OMP_NUM_THREADS="2")
    done = subprocess.run(
        [sys.executable, "-c", _POISONED_POOL], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


class _DoubleRfft:
    """A scipy.fft backend (uarray protocol) computing rfft in double and widening to clongdouble for a
    longdouble input (the dtype is right, the precision is not), as pyfftw or mkl_fft builds might."""

    __ua_domain__ = "numpy.scipy.fft"

    @staticmethod
    def __ua_function__(method, args, kwargs):  # type: ignore[no-untyped-def]
        if method.__name__ != "rfft":
            return NotImplemented
        x = np.asarray(args[0])
        out = np.fft.rfft(x.astype(np.float64), axis=kwargs.get("axis", -1))
        return out.astype(np.clongdouble) if x.dtype == np.longdouble else out


class _Complex128Rfft(_DoubleRfft):
    """A backend returning complex128 whatever the input's dtype."""

    @staticmethod
    def __ua_function__(method, args, kwargs):  # type: ignore[no-untyped-def]
        if method.__name__ != "rfft":
            return NotImplemented
        return np.fft.rfft(np.asarray(args[0], dtype=np.float64), axis=kwargs.get("axis", -1))


def test_a_user_installed_scipy_fft_backend_does_not_replace_the_long_double_transform():
    """scipy.fft.set_backend(..., only=True) by the user: the bins still hold their long-double bound (a
    double transform is ~20x over it at m = 4096) and compositions give the same bits as without it."""
    import scipy.fft

    m = 4096
    p = np.zeros(m)
    p[1], p[2047], p[3001] = 0.5, 0.25, 0.25
    item = [
        [
            (
                next(
                    iter(
                        pld.subsampled_gaussian(
                            0.8, 1e-3, value_discretization_interval=2e-3
                        ).directions[0]
                    )
                ).upper,
                20000,
            )
        ]
    ]
    plain = pc.compose_many(item, pessimistic=True, direct_bins=True, workers=1)[0]
    for backend in (_DoubleRfft, _Complex128Rfft):
        with scipy.fft.set_backend(backend, only=True):
            _check_bins(p, m, [0, 1, 77, 1000, 2048])
            got = pc.compose_many(item, pessimistic=True, direct_bins=True, workers=1)[0]
        np.testing.assert_array_equal(got.p, plain.p)
        assert got.total_error == plain.total_error
