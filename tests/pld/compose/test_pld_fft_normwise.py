"""The normwise FFT error model (pld/compose/fft_backend.hpp) and the charge it gives the composition's inverse.

The backend promises, besides the entrywise bound, that the error vector of either transform has
Euclidean norm at most 8 u ceil(log2 n) times that of the exact output (Higham, Accuracy and Stability
of Numerical Algorithms, 2nd ed., Thm 24.2).  pld/compose/compose.hpp then charges the inverse transform's own
error over n grid points by inverse_l2 sqrt(n) where that is below inverse_error n: after few rounds
of a small sampling rate by 10-100x (sigma 0.5, q 1e-4, 10 rounds: 1.7e-10 -> 1.1e-12 at a delta of
1e-9).  Checked here against long-double references: scipy's pocketfft at every ``fft_length`` family,
and a composition's masses against a direct convolution in long double.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.fft

import hockeystick.pld as pld
from hockeystick.pld.compose import fft as pc
from hockeystick.pld.grid.pmf import GridPMF

U = 2.0**-53
# a long double with a 64-bit significand (x86-64): its transforms are the reference, ~2000x below u
FULL_LONG_DOUBLE = np.finfo(np.longdouble).nmant >= 63
needs_long = pytest.mark.skipif(
    not FULL_LONG_DOUBLE, reason="numpy's longdouble is not x87's 80-bit format"
)

# one length of each fft_length family (2^a f, f in {1, 9/8, 5/4, 45/32, 3/2, 27/16, 15/8}) and small 5-smooth ones
LENGTHS = [45, 64, 1 << 12, 9 << 10, 5 << 11, 45 << 8, 3 << 12, 27 << 9, 15 << 10, 1 << 16]


def _inputs(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Real signals of length n: a spiky PMF (most mass on a few cells), a spread one, white noise."""
    spiky = np.zeros(n)
    spiky[rng.integers(0, n, 5)] = rng.dirichlet(np.ones(5))
    spiky += 1e-9 * rng.random(n)
    spread = np.exp(-0.5 * ((np.arange(n) - n / 2) / (n / 20)) ** 2)
    return [spiky / spiky.sum(), spread / spread.sum(), rng.standard_normal(n)]


@needs_long
@pytest.mark.parametrize("n", LENGTHS)
def test_pocketfft_holds_the_normwise_bound_forward_and_inverse(n):
    rng = np.random.default_rng(n)
    bound = 8.0 * U * math.ceil(math.log2(n))
    for x in _inputs(n, rng):
        exact = scipy.fft.rfft(x.astype(np.longdouble))
        err = scipy.fft.rfft(x) - exact
        # half spectra: the full one's squared norm is the half's doubled, less bin 0 (and n / 2)
        assert np.sqrt(2.0 * np.sum(np.abs(err) ** 2)) <= bound * np.sqrt(
            np.sum(np.abs(exact) ** 2)
        )
        spectrum = scipy.fft.rfft(
            x
        )  # an inverse's input as the composition hands it: a double spectrum
        exact_back = scipy.fft.irfft(spectrum.astype(np.clongdouble), n=n)
        err_back = scipy.fft.irfft(spectrum, n=n) - exact_back
        assert float(np.linalg.norm(err_back.astype(np.float64))) <= bound * float(
            np.linalg.norm(exact_back)
        )


def _spiky_factor(h: float, rng: np.random.Generator) -> GridPMF:
    """A one-round PMF like a small sampling rate's: 0.98 of the mass on one cell, the rest spread thin."""
    p = rng.random(4001) ** 8
    p *= 0.02 / p.sum()
    p[2000] += 0.98
    return GridPMF(-2000, h, p, 0.0, 0.0, True)


def _long_double_power(p: np.ndarray, rounds: int, window: int) -> tuple[np.ndarray, float]:
    """The ``rounds``-fold convolution of the PMF p by long-double transforms (a power-of-two length, no
    wrap-around), and a bound on the L1 norm of its error over any ``window`` entries, rounding to doubles
    included.  With t = 8 u_L log2 n each transform's normwise bound (Higham, Thm 24.2, as for the doubles
    above), |spectrum| <= 1 and ||y||_2 <= ||p||_2 (Young): the spectrum's error e has ||e||_2 <= t sqrt(n) ||p||_2,
    its power's ||.||_2 <= 1.01 rounds ||e||_2 + 4 rounds u_L sqrt(n) ||y||_2 (binary powering), and the inverse
    (1/n, Parseval) adds t ||y||_2: L2 <= (1.01 rounds t + 4 rounds u_L + t) ||p||_2, L1 <= sqrt(window) L2."""
    size = rounds * (p.size - 1) + 1
    n = 1 << (size - 1).bit_length()
    spectrum = scipy.fft.rfft(p.astype(np.longdouble), n=n)
    power = scipy.fft.irfft(spectrum**rounds, n=n)[:size]
    u_long = float(np.finfo(np.longdouble).eps) / 2.0
    t = 8.0 * u_long * math.log2(n)
    l2 = (1.01 * rounds * t + 4.0 * rounds * u_long + t) * float(np.linalg.norm(p))
    l1 = math.sqrt(window) * l2
    return power, l1 + U * (
        1.0 + l1
    )  # the doubles' rounding of the window: <= u of its mass (<= 1)


@needs_long
@pytest.mark.parametrize("rounds", [4, 10, pytest.param(25, marks=pytest.mark.slow)])
def test_composed_masses_stay_within_the_charge_the_normwise_bound_gives(rounds):
    rng = np.random.default_rng(rounds)
    factor = _spiky_factor(1e-3, rng)
    got = pc.compose([(factor, rounds)], pessimistic=True)
    # the exact convolution to within ``slack`` in L1 (long-double transforms, ~2000x below the doubles'
    # bound): a direct long-double convolution, exact to n u_L per entry, costs 100x more at 25 rounds
    exact, slack = _long_double_power(factor.p, rounds, got.p.size)
    window = exact[got.k_lo - rounds * factor.k_lo :][: got.p.size]
    err = np.abs(
        got.p - window.astype(np.float64)
    )  # the window's tail folded in: <= 2 tail, ~1e-15
    n = got.p.size
    normwise = got.charge_of_masses(np.arange(1, n + 1, dtype=np.float64))
    entrywise = np.minimum(
        np.minimum(got.entry_error * np.arange(1, n + 1), got.total_error),
        got.spectral_l2 * np.sqrt(np.arange(1, n + 1)) + got.inverse_error * np.arange(1, n + 1),
    )
    assert normwise[-1] < 0.2 * entrywise[-1]  # the normwise part is the one charged here
    # every suffix of the window (the grid points above an eps) within its charge, the reference's error added
    suffix = np.cumsum(err[::-1])
    assert np.all(suffix + slack <= normwise + 2 * pc.DEFAULT_TAIL)


def test_subsampled_gaussian_after_few_rounds_brackets_delta_within_a_few_percent():
    """sigma 0.5, q 1e-4, 10-20 rounds, delta ~ 1e-9 (near the 1e-9 floor): the inverse transform's charge
    is bounded normwise, so the bracket is a few percent wide, on both sides of the same PLD."""
    dist = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=8e-5).self_compose(10)
    lo, up = dist.delta(np.array([2.0]), bound="both")
    assert 0.0 < lo[0] <= up[0]
    assert (up[0] - lo[0]) / up[0] < 0.08
    for pmf in dist.composed(True):
        n = float(pmf.p.size)
        assert pmf.inverse_l2 * math.sqrt(n) < 0.05 * pmf.inverse_error * n


def test_charge_above_zero_points_is_zero_with_an_infinite_normwise_bound():
    pmf = GridPMF(
        0,
        1e-3,
        np.array([0.5, 0.5]),
        0.0,
        0.0,
        True,
        entry_error=1e-15,
        total_error=1e-14,
        spectral_l2=1e-15,
        inverse_error=1e-16,
    )
    assert pmf.inverse_l2 == math.inf  # not composed by FFT: the entrywise bound alone
    np.testing.assert_array_equal(
        pmf.charge_of_masses(np.array([0.0, 4.0])), [0.0, min(4e-15, 1e-14, 2e-15 + 4e-16)]
    )


def test_charge_with_no_normwise_bounds_is_finite_above_the_grid():
    """A charged PMF with neither normwise bound (spectral_l2 and inverse_l2 infinite, the defaults): no grid
    point above eps is no charge, not inf x 0 = NaN (which eps at or above the top grid point would give on
    both sides)."""
    for pessimistic in (True, False):
        pmf = GridPMF(
            0,
            0.1,
            np.array([0.5, 0.5]),
            0.0,
            0.0,
            pessimistic,
            entry_error=1e-12,
            total_error=1e-10,
        )
        got = pmf.delta(np.array([0.0, 0.05, 0.1, 1.0, 5.0]))
        assert np.all(np.isfinite(got))
        # above the top grid point (loss 0.1) delta is exactly 0 for this PMF, and nothing is charged
        np.testing.assert_array_equal(got[2:], 0.0)
        assert (got[:2] > 0.0).all()


# (entry, total, spectral_l2, inverse, inverse_l2): each of the formula's four branches is the least for some
# sums and norms below (entry x sum for small sums, total for large ones, l2 plus either inverse term between)
CHARGE_SETTINGS = [
    (1e-16, 1e-10, 1e-13, 1e-15, 1e-13),
    (1e-12, 1e-9, 1e-15, 1e-18, 1e-13),
    (1e-12, 1e-9, 1e-15, 1e-13, 1e-16),
    (1e-14, 1e-12, 1e-15, 1e-16, 1e-15),
]


def test_weighted_charge_is_the_least_of_the_three_bounds():
    """GridPMF.charge_of_weighted_sum against the formula evaluated in exact rationals (fractions): min(entry s,
    total, l2 r + min(inverse s, inverse_l2 r)) for weight sums s and norms r, 0 where either is 0, NaN for a
    NaN one; every branch of the minimum is exercised (a charge of entry x norm, say, fails)."""
    from fractions import Fraction as F

    rng = np.random.default_rng(0)
    sums = np.concatenate([[0.0, 1.0, 3.0, 2.5, np.nan], 10.0 ** rng.uniform(-2, 7, 60)])
    norms = np.sqrt(sums) * np.concatenate([[1.0, 0.0, 1.0], rng.uniform(0.1, 1.0, sums.size - 3)])
    norms[3] = np.nan
    least = set()
    for entry, total, l2, inverse, inverse_l2 in CHARGE_SETTINGS:
        pmf = GridPMF(
            0,
            1e-3,
            np.full(4, 0.25),
            0.0,
            0.0,
            True,
            entry_error=entry,
            total_error=total,
            spectral_l2=l2,
            inverse_error=inverse,
            inverse_l2=inverse_l2,
        )
        got = pmf.charge_of_weighted_sum(sums, norms)
        assert np.isnan(got[3]) and np.isnan(got[4])
        for s, r, g in zip(sums[5:], norms[5:], got[5:]):
            terms = {
                "entry": F(entry) * F(s),
                "total": F(total),
                "inverse": F(l2) * F(r) + F(inverse) * F(s),
                "inverse_l2": F(l2) * F(r) + F(inverse_l2) * F(r),
            }
            exact = min(terms.values())
            least.add(min(terms, key=lambda k: terms[k]))
            assert abs(F(g) - exact) <= 4 * F(U) * exact  # three roundings of the double evaluation
        assert got[0] == 0.0 and got[1] == 0.0  # no weight: no charge, whatever the bounds
        assert got[2] == min(
            3 * entry, total, l2 * math.sqrt(3.0) + min(3 * inverse, inverse_l2 * math.sqrt(3.0))
        )
    assert least == {"entry", "total", "inverse", "inverse_l2"}


def _rr_exact_delta(noise: float, rounds: int, eps: float) -> float:
    """delta(eps) of ``rounds`` compositions of 2-bucket randomized response, exact (mpmath, 50 digits): the
    loss is (2j - T) L0 with j ~ Binomial(T, stay) under P, L0 = log(stay / move)."""
    import mpmath as mp

    with mp.workdps(50):
        stay, move = 1 - mp.mpf(noise) / 2, mp.mpf(noise) / 2
        l0, e = mp.log(stay / move), mp.mpf(eps)
        total = mp.mpf(0)
        for j in range(rounds + 1):
            loss = (2 * j - rounds) * l0
            if loss > e:
                total += (
                    mp.binomial(rounds, j) * stay**j * move ** (rounds - j) * (1 - mp.exp(e - loss))
                )
        return float(total)


@pytest.mark.parametrize("h", [1e-3, 5e-2])
def test_spiky_composition_brackets_the_exact_curve_at_the_edges(h):
    """300 rounds of randomized response (atoms 0.4 apart: a spiky composed PMF, where the normwise charge is the
    smaller), on a fine and a coarse grid: delta at eps = 0, a subnormal, 1e308 and between, and epsilon at
    deltas down to a subnormal, each bracket around the exact value (mpmath), both sides charged with inverse_l2."""
    from hockeystick.pld.mechanisms.randomized_response import randomized_response

    noise, rounds = 0.9, 300
    dist = randomized_response(noise, 2, value_discretization_interval=h).self_compose(rounds)
    pmfs = dist.composed(True) + dist.composed(False)
    assert any(
        math.isfinite(g.inverse_l2)
        and g.inverse_l2 * math.sqrt(g.p.size) < g.inverse_error * g.p.size
        for g in pmfs
    )
    eps = np.array([0.0, 5e-324, 1.0, 10.0, 25.0, 60.0, 1e308])
    lo, up = dist.delta(eps, bound="both")
    for e, l, u in zip(eps, lo, up):
        exact = _rr_exact_delta(noise, rounds, float(e))
        assert 0.0 <= l <= exact <= u <= 1.0, (e, l, exact, u)
    targets = np.array([0.5, 1e-3, 1e-9, 1e-300, 5e-324])
    e_lo, e_up = dist.epsilon(targets, bound="both")
    for t, a, b in zip(targets, e_lo, e_up):
        assert 0.0 <= a <= b
        if math.isfinite(b):
            assert _rr_exact_delta(noise, rounds, float(b)) <= t  # epsilon(t) <= b
        if a > 0.0:
            assert (
                _rr_exact_delta(noise, rounds, float(np.nextafter(a, 0.0))) >= t
            )  # epsilon(t) >= a
