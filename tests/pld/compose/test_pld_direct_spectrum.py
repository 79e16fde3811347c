"""Directly computed DFT bins (pld/compose/direct_spectrum.hpp) and the smaller round-off charges they give.

The bins are checked against a 50-digit mpmath DFT of the folded signal: every error within the
stated bound, the bound a few u times the l1 norm (far below the FFT's 8 u ceil(log2 M)).  The
compositions are checked against closed forms (Gaussian: delta = theta(sqrt(T)/sigma, eps)) and
against the same composition without the direct bins (the charges it replaces).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.compose import fft as pc

# The bounds' sizes below (about 1.1 u ||p||_1, charges 20x below the FFT's, a point below the floor) hold
# where long double is x86-64's 80-bit format; elsewhere the direct bins stay valid but gain less or nothing.
x87_long_double = pytest.mark.skipif(
    np.finfo(np.longdouble).nmant != 63,
    reason="needs x86-64's 80-bit long double (64-bit significand)",
)

U = 2.0**-53


def _mpmath_dft(p: np.ndarray, m: int, k: int) -> mpmath.mpc:
    """sum_j p_j e^{-2 pi i j k / m} at 50 digits (the DFT of p folded mod m)."""
    with mpmath.workdps(50):
        total = mpmath.mpc(0)
        for j, x in enumerate(p):
            if x:
                total += mpmath.mpf(float(x)) * mpmath.expjpi(mpmath.mpf(-2 * ((j * k) % m)) / m)
        return total


@pytest.mark.parametrize(
    "m, n, seed",
    [(1, 5, 0), (7, 3, 1), (64, 64, 2), (96, 250, 3), (1000, 3000, 4), (1474560, 400, 5)],
)
@x87_long_double
def test_direct_bins_match_a_50_digit_dft_within_their_bound(m, n, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(n) ** 6  # uneven masses, some tiny
    p /= p.sum()
    ks = (
        list(range(m))
        if m <= 96
        else sorted({0, 1, m - 1, m // 2, m // 3, *rng.integers(0, m, 6).tolist()})
    )
    values, bound = _core.pld_compose.direct_bins(p, m=m, bins=ks)
    l1 = float(np.sum(p))
    assert 0.0 < bound <= 1.5 * U * l1  # about 1.1 u ||p||_1 (x86-64 long double)
    with mpmath.workdps(50):
        for k, got in zip(ks, values):
            exact = _mpmath_dft(p, m, k)
            assert abs(mpmath.mpc(complex(got)) - exact) <= bound, (m, n, k)


@x87_long_double
def test_direct_bins_beat_plain_summation_on_many_terms():
    """200 000 equal masses: a plain double sum of them errs by far more than u, the blocked long
    double sum stays within its bound (about u) of the exact DFT of the masses."""
    n = 200_000
    p = np.full(n, 1.0 / 3.0 / n)
    values, bound = _core.pld_compose.direct_bins(p, m=4096, bins=[0, 1, 5])
    with mpmath.workdps(50):
        exact0 = sum(mpmath.mpf(float(x)) for x in p[:1]) * n  # all masses equal
        assert abs(mpmath.mpf(values[0].real) - exact0) <= bound
        assert abs(values[0].imag) <= bound
        naive = 0.0
        for x in p:
            naive += float(x)
        assert (
            abs(mpmath.mpf(naive) - exact0) > 10 * bound
        )  # the blocked long double sum is what keeps the bound
    assert bound < 8 * U * 12 * np.sum(p) / 20  # 1/20 of the FFT's bound at M = 4096


def test_direct_bins_refuse_what_they_cannot_bound():
    with pytest.raises(ValueError, match="masses"):
        _core.pld_compose.direct_bins(np.array([0.5, -0.1]), m=8, bins=[0])
    with pytest.raises(ValueError, match="bin"):
        _core.pld_compose.direct_bins(np.array([0.5, 0.5]), m=8, bins=[8])
    with pytest.raises(ValueError, match="m must"):
        _core.pld_compose.direct_bins(np.array([0.5, 0.5]), m=0, bins=[0])


def _composed(dist, rounds: int, pessimistic: bool, direct_bins: bool) -> list:
    """Every direction of ``rounds`` rounds of a one-factor-per-direction PLD, on one side."""
    out = []
    for direction in dist.directions:
        ((factor, count),) = direction.items()
        side = factor.upper if pessimistic else factor.lower
        out.append(
            pc.compose([(side, count * rounds)], pessimistic=pessimistic, direct_bins=direct_bins)
        )
    return out


def _bracket(
    dist, rounds: int, eps: np.ndarray, direct_bins: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) delta(eps): the largest over directions of each side's charged curve."""
    lo = np.max([g.delta(eps) for g in _composed(dist, rounds, False, direct_bins)], axis=0)
    up = np.max([g.delta(eps) for g in _composed(dist, rounds, True, direct_bins)], axis=0)
    return lo, up


@x87_long_double
@pytest.mark.parametrize("sigma, rounds, h", [(30.0, 10_000, 2e-3), (100.0, 100_000, 1e-3)])
def test_many_gaussian_rounds_bracket_the_closed_form_with_smaller_charges(sigma, rounds, h):
    """T Gaussian rounds (mu = sqrt(T)/sigma ~ 3): lower <= theta <= upper with the direct bins, and
    the round-off charges at least 20x below the FFT-only ones on the same PMFs."""
    dist = pld.gaussian(sigma, value_discretization_interval=h)
    r = math.sqrt(rounds) / sigma
    eps = np.linspace(0.0, 4 * r + 2, 40)
    exact = hs.theta(r, eps)
    lo, up = _bracket(dist, rounds, eps, True)
    assert np.all(lo <= exact) and np.all(exact <= up)
    for pessimistic in (True, False):
        for direct, fft_only in zip(
            _composed(dist, rounds, pessimistic, True), _composed(dist, rounds, pessimistic, False)
        ):
            assert np.array_equal(direct.p.shape, fft_only.p.shape)
            assert direct.total_error * 20 <= fft_only.total_error
            assert direct.entry_error * 20 <= fft_only.entry_error
            # the values themselves differ only by round-off, well inside the FFT-only charge
            assert np.max(np.abs(direct.p - fft_only.p)) <= fft_only.entry_error


@x87_long_double
def test_charge_limited_subsampled_gaussian_point_moves_below_the_floor():
    """sigma 0.5, q 1e-4, 47 149 rounds, eps 10 (a charge-limited corner): with FFT bins only the upper delta
    is ~3.1e-9 on every grid, all FFT round-off charge; with the direct bins it is below 1e-10 and
    still above the certified lower sides of this grid and of a finer one, and the pessimistic charge
    is at least 20x smaller."""
    h, rounds, eps = 2e-3, 47149, np.array([10.0])
    dist = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=h)
    lo, up = _bracket(dist, rounds, eps, True)
    fft_lo, fft_up = _bracket(dist, rounds, eps, False)
    assert 0.0 <= lo[0] <= up[0] < 1e-10 < 1e-9 < fft_up[0]
    for direct, fft_only in zip(
        _composed(dist, rounds, True, True), _composed(dist, rounds, True, False)
    ):
        assert direct.total_error * 20 <= fft_only.total_error
        assert fft_only.total_error > 1e-9 > 1e-10 > direct.total_error
    # A finer grid's certified lower side (the accountant's, FFT charges) never exceeds this upper side.
    fine = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=2.5e-4).self_compose(
        rounds
    )
    assert fine.delta(10.0, bound="lower") <= up[0]
    assert fft_lo[0] <= up[0] and lo[0] <= fft_up[0]


def test_the_default_keeps_the_fft_charges():
    """direct_bins defaults to False: the accountants' compositions are unchanged."""
    dist = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=2e-3)
    factor = next(iter(dist.directions[0]))
    default = pc.compose([(factor.upper, 47149)], pessimistic=True)
    fft_only = pc.compose([(factor.upper, 47149)], pessimistic=True, direct_bins=False)
    assert (default.total_error, default.entry_error) == (
        fft_only.total_error,
        fft_only.entry_error,
    )
    np.testing.assert_array_equal(default.p, fft_only.p)


@x87_long_double
def test_the_refinement_recomposes_with_direct_bins_where_the_round_off_charge_held_the_bracket():
    """sigma 0.5, q 1e-4, 47149 rounds, eps 10: every FFT-only grid leaves the upper delta near 1e-9 (its
    round-off charge; the lower side is 0); the accountant's refinement recomposes with direct bins, so the
    bracket certifies delta well below G1's floor 1e-9 there (and stays ordered)."""
    acc = pld.SubsampledGaussianPLD(
        sigma=0.5,
        sampling_rate=1e-4,
        rounds=47149,
        accuracy=1e-2,
        delta_accuracy="epsilon",
        workers=1,
    )
    lo, up = acc.delta(np.array([10.0]), bound="both")
    assert 0.0 <= lo[0] <= up[0] < 0.1 * pld.SubsampledGaussianPLD.DELTA_FLOOR
    for h in (2e-3, 1e-3, 1e-4):  # what a fixed grid's composition, FFT bins only, certifies
        one_round = pld.subsampled_gaussian(0.5, 1e-4, value_discretization_interval=h)
        fft_only = one_round.self_compose(47149).delta(10.0, composition_only=True)
        assert fft_only > 0.5 * pld.SubsampledGaussianPLD.DELTA_FLOOR


def test_direct_bins_give_an_item_the_same_result_alone_or_batched():
    """The band recomputed depends on the count, so rows are kept per (factor, count) with direct bins:
    an item batched with a larger count of the same factor keeps its own bits and charges."""
    dist = pld.gaussian(30.0, value_discretization_interval=2e-3)
    ((f, c),) = dist.directions[0].items()
    a, b = [(f.upper, c * 10_000)], [(f.upper, c * 11_000)]
    alone = pc.compose(a, pessimistic=True, direct_bins=True)
    batched = pc.compose_many([a, b], pessimistic=True, direct_bins=True)[0]
    np.testing.assert_array_equal(alone.p, batched.p)
    assert (alone.k_lo, alone.total_error, alone.entry_error) == (
        batched.k_lo,
        batched.total_error,
        batched.entry_error,
    )


G1_SIGMA = float(np.logspace(np.log10(0.5), np.log10(5), 50)[4])  # 0.603
G1_Q = float(np.logspace(-4, -1, 20)[13])  # 0.0113


@x87_long_double
def test_a_row_below_the_default_charge_takes_direct_bins_from_a_lower_threshold():
    """G1's sigma 0.603, q 0.0113, 168 rounds, eps 8.5 (delta ~1e-9): its rows' estimated charge is below
    kDirectMinCharge (1e-11), so direct_bins=True alone keeps the FFT's charges (the same PMF bit for bit),
    which leave 1.5 % of delta; from direct_min_charge=0 they fall >= 20x and the bracket holds the default's
    (both certified: they overlap) within 0.3 %."""
    dist = pld.subsampled_gaussian(G1_SIGMA, G1_Q, value_discretization_interval=1e-3)
    eps = np.array([8.5])
    factor = next(iter(dist.directions[0]))
    fft = pc.compose([(factor.upper, 168)], pessimistic=True)
    default = pc.compose([(factor.upper, 168)], pessimistic=True, direct_bins=True)
    forced = pc.compose_many(
        [[(factor.upper, 168)]], pessimistic=True, direct_bins=True, direct_min_charge=0.0
    )[0]
    np.testing.assert_array_equal(fft.p, default.p)
    assert default.total_error == fft.total_error
    assert forced.total_error * 20 <= fft.total_error
    sides = {}
    for key, charge in (("fft", None), ("forced", 0.0)):
        ups, lows = [], []
        for direction in dist.directions:
            ((f, count),) = direction.items()
            ups.append(
                pc.compose_many(
                    [[(f.upper, count * 168)]],
                    pessimistic=True,
                    direct_bins=True,
                    direct_min_charge=charge,
                )[0].delta(eps)
            )
            lows.append(
                pc.compose_many(
                    [[(f.lower, count * 168)]],
                    pessimistic=False,
                    direct_bins=True,
                    direct_min_charge=charge,
                )[0].delta(eps)
            )
        sides[key] = (np.max(lows, axis=0), np.max(ups, axis=0))
    (lo, up), (f_lo, f_up) = sides["fft"], sides["forced"]
    assert (up - lo)[0] > 0.015 * up[0] and (f_up - f_lo)[0] < 3e-3 * f_up[0]
    assert f_lo[0] <= up[0] and lo[0] <= f_up[0]


def test_a_negative_direct_min_charge_is_refused():
    dist = pld.gaussian(30.0, value_discretization_interval=2e-3)
    ((f, c),) = dist.directions[0].items()
    with pytest.raises(ValueError, match="direct_min_charge"):
        pc.compose_many(
            [[(f.upper, 100)]], pessimistic=True, direct_bins=True, direct_min_charge=-1.0
        )


@x87_long_double
def test_the_refinement_takes_every_direct_bin_when_it_steps_to_the_same_grid():
    """The accountant's same-grid step (its charges, not its grid, left the point wide) uses
    SAME_GRID_DIRECT_CHARGE (1e-13): G1's sigma 0.603, q 0.0113, 168 rounds, eps 8.5 goes from 2.5 % of delta wide
    (direct bins from the default charge only) to within 1 %, overlapping a fixed fine grid's bracket."""
    eps = np.array([8.5])
    kw = dict(sigma=G1_SIGMA, sampling_rate=G1_Q, rounds=168)
    lo, up = pld.SubsampledGaussianPLD(
        **kw, accuracy=1e-2, delta_accuracy="epsilon", workers=1
    ).delta(eps, bound="both")
    assert (up - lo)[0] < 1e-2 * up[0]
    f_lo, f_up = pld.SubsampledGaussianPLD(**kw, value_discretization_interval=5e-4).delta(
        eps, bound="both"
    )
    assert lo[0] <= f_up[0] and f_lo[0] <= up[0]


def _two_point_delta(a: float, b: float, count: int, eps: float) -> mpmath.mpf:
    """delta(eps) of ``count`` rounds of P = (1 - a, a) against Q = (1 - b, b), the four masses the doubles
    ``from_distributions`` is given (1 - b rounded), by the binomial sum at 50 digits."""
    with mpmath.workdps(50):
        g, total = mpmath.exp(mpmath.mpf(eps)), mpmath.mpf(0)
        pa, pb, qa, qb = (mpmath.mpf(v) for v in (a, b, 1.0 - a, 1.0 - b))
        for k in range(count + 1):
            diff = pa**k * qa ** (count - k) - g * pb**k * qb ** (count - k)
            total += mpmath.binomial(count, k) * max(diff, mpmath.mpf(0))
        return total


@x87_long_double
@pytest.mark.parametrize("count", [20, 30])
def test_a_wide_band_row_of_few_rounds_takes_its_power_in_double(count):
    """P = (0.999, 0.001) against Q = (0.9999, 0.0001), h = 1e-3: nearly all mass on one grid point, so every bin
    of the spectrum is live and a few rounds' FFT charge on the spectrum reaches kDirectMinCharge.  The row takes
    direct bins, but the power's rounding in double keeps three such charges (a bracket's) below the threshold
    (``long_power_charge``), so the power is taken in double: the spectral charge (``spectral_l2`` sqrt(M), M the
    FFT length) falls below 1e-11 / 3, over 5x below the FFT's, and stays above the long-double power's
    (``direct_min_charge=0`` forces it); each result lies within both charges of the forced one, and every side
    holds the exact binomial delta.  From 50 rounds on the same row takes the power in long double."""
    a, b = 1e-3, 1e-4
    dist = pld.from_distributions([1 - a, a], [1 - b, b], value_discretization_interval=1e-3)
    eps = np.array([0.0, 0.5, 1.0, 2.0, 3.0])
    exact = [_two_point_delta(a, b, count, float(e)) for e in eps]
    ((factor, one),) = dist.directions[0].items()
    assert one == 1
    for pessimistic in (True, False):
        side = factor.upper if pessimistic else factor.lower
        fft = pc.compose([(side, count)], pessimistic=pessimistic)
        double = pc.compose([(side, count)], pessimistic=pessimistic, direct_bins=True)
        forced = pc.compose_many(
            [[(side, count)]], pessimistic=pessimistic, direct_bins=True, direct_min_charge=0.0
        )[0]
        spectral = [
            pmf.spectral_l2 * math.sqrt(pc.fft_length(pmf.p.size)) for pmf in (fft, double, forced)
        ]
        assert spectral[0] > 1e-11 > 3 * spectral[1] and spectral[1] * 5 < spectral[0]
        assert spectral[2] < spectral[1]
        assert forced.entry_error < double.entry_error < fft.entry_error
        for pmf in (double, forced):
            got = pmf.delta(eps)
            for value, truth in zip(got, exact):
                assert (value >= truth) if pessimistic else (value <= truth)
            assert np.max(np.abs(pmf.p - forced.p)) <= pmf.entry_error + forced.entry_error
    side = factor.upper
    fifty = pc.compose([(side, 50)], pessimistic=True, direct_bins=True)
    forced = pc.compose_many(
        [[(side, 50)]], pessimistic=True, direct_bins=True, direct_min_charge=0.0
    )[0]
    assert fifty.p.tobytes() == forced.p.tobytes() and fifty.total_error == forced.total_error


@x87_long_double
def test_the_double_power_holds_at_the_edges():
    """The double power of direct bins on a coarse grid (h = 1) with a mass of 1e-300 (a loss of 684.3, so the
    20-round window spans ~13,700 points and every bin is live): the row takes direct bins with the power in
    double (its values differ from both the FFT-only and the long-double ones), and both sides hold the exact
    binomial delta at eps = 0, a subnormal, 1e-300, 1, 10, 600, 680 and 1e308 (delta 0 there, the sides >= 0)."""
    a, b, count = 1e-3, 1e-300, 20
    dist = pld.from_distributions([1 - a, a], [1 - b, b], value_discretization_interval=1.0)
    eps = np.array([0.0, 5e-324, 1e-300, 1.0, 10.0, 600.0, 680.0, 1e308])
    exact = [_two_point_delta(a, b, count, float(e)) for e in eps[:-1]] + [mpmath.mpf(0)]
    ((factor, one),) = dist.directions[0].items()
    for pessimistic in (True, False):
        side = factor.upper if pessimistic else factor.lower
        double = pc.compose([(side, one * count)], pessimistic=pessimistic, direct_bins=True)
        fft = pc.compose([(side, one * count)], pessimistic=pessimistic)
        forced = pc.compose_many(
            [[(side, one * count)]],
            pessimistic=pessimistic,
            direct_bins=True,
            direct_min_charge=0.0,
        )[0]
        assert not np.array_equal(double.p, fft.p) and not np.array_equal(double.p, forced.p)
        got = double.delta(eps)
        assert np.all((got >= 0.0) & (got <= 1.0))
        for value, truth in zip(got, exact):
            assert (value >= truth) if pessimistic else (value <= truth)
