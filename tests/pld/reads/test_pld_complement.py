"""The complement's bracket on delta near 1 (pld/reads/complement.hpp, through ``_core.pld_reads``) and the
accountant's use of it:
against the Gaussian mechanism's closed form and one round of the subsampled Gaussian in 50-digit
quadrature, each side on its side of the truth and 1 - delta resolved to a small relative width; against
the composed PMFs' own certified bracket (both hold, so they overlap); and G1's near-one points narrowed."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick import _core
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.compose import fft

from ... import c_math

MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def _gaussian_complement(sigma: float, rounds: int, eps: float) -> mpmath.mpf:
    """1 - delta(eps) of T Gaussian rounds, mu = sqrt(T) / sigma: Phi(eps / mu - mu / 2) + e^eps Phi(-eps / mu - mu / 2)."""
    mu = mpmath.sqrt(rounds) / mpmath.mpf(sigma)
    e = mpmath.mpf(eps)
    return mpmath.ncdf(e / mu - mu / 2) + mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)


def _bracket(
    sigma: float, q: float, rounds: int, h: float, eps: np.ndarray, tilt: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The core's bracket of both directions (the remove direction's test), every tilt ``tilt`` where given."""
    factors = _core.pld_reads.subsampled_gaussian_complement_factors(sigma, q, h, tilt=tilt)
    return _core.pld_reads.complement_delta_brackets(
        factors, rounds=[rounds], epsilon=[eps], others=[None], max_points=fft.DEFAULT_MAX_POINTS
    )[0]


@pytest.mark.parametrize(
    "sigma, rounds, h, width",
    [
        (0.9, 100, 1e-2, 1e-3),
        (0.9, 100, 2e-3, 1e-4),
        (0.5, 40, 2e-3, 1e-3),
        (0.6, 1000, 2e-3, 1e-2),
        (8.0, 10000, 1e-3, 5e-4),
        (26.0, 100000, 1e-3, 5e-3),
    ],
)
def test_gaussian_composition_is_bracketed_with_relative_accuracy_in_the_complement(
    sigma, rounds, h, width
):
    """q = 1 (the cells of N(1, s^2) against N(0, s^2)): 1 - delta between 1e-13 and 1e-5, where delta's own
    bracket is absolute (about 1e-10 after many rounds); the complement's is relative, and stays so after 10^5
    rounds (the compositions tilted: untilted, their absolute round-off charges left 5 % of 1 - delta = 1.5e-9
    at sigma 26, eps 0.5, where the tilted ones leave 0.3 %, the grid's own T h^2 part)."""
    eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 12.0])
    lo, up = _bracket(sigma, 1.0, rounds, h, eps)
    for e, low, high in zip(eps, lo, up):
        exact = _gaussian_complement(sigma, rounds, e)
        assert 1 - high <= exact <= 1 - low  # each side on its own side of the truth
        assert (up - lo).max() < 1e-3  # and delta itself tight
        if exact > 1e-11:
            assert ((1 - low) - (1 - high)) / exact <= width  # 1 - delta to a small relative width


@settings(max_examples=25, deadline=None)
@given(
    mu=st.floats(0.2, 12.0),
    rounds=st.sampled_from([1, 7, 100, 3000]),
    h=st.sampled_from([0.5, 0.05, 1e-2]),
    eps=st.floats(0.0, 40.0),
)
def test_gaussian_bracket_holds_the_closed_form_for_any_run(mu, rounds, h, eps):
    """q = 1, T rounds of noise sigma = sqrt(T) / mu (the composition is the Gaussian mechanism of mu): each side on
    its side of the 50-digit closed form, for any mu, rounds, grid the factors accept and eps (delta from 1 - 1e-60
    to 0), and ordered within [0, 1]."""
    sigma = math.sqrt(rounds) / mu
    lo, up = _bracket(sigma, 1.0, rounds, h, np.array([eps]))
    exact = 1 - _gaussian_complement(sigma, rounds, eps)
    assert 0.0 <= lo[0] <= exact <= up[0] <= 1.0


@pytest.mark.parametrize("tilt", [0.0, 0.25, 1.0])
def test_any_tilt_gives_a_valid_bracket_and_the_balancing_one_the_narrowest(tilt):
    """(4) holds for every tilt in [0, 1]: forced to 0 (no tilt on P), 0.25 or 1 (no tilt on Q) the bracket
    still holds the Gaussian's closed form, and is no narrower than with ``balancing_tilt``'s (1/2 here)."""
    eps = np.array([0.5, 4.0, 10.0])
    sigma, rounds, h = 8.0, 10000, 1e-3
    lo, up = _bracket(sigma, 1.0, rounds, h, eps)
    tilts = _core.pld_reads.subsampled_gaussian_complement_factors(sigma, 1.0, h).tilts
    assert tilts == pytest.approx((0.5, 0.5, 0.5), abs=1e-2)
    flo, fup = _bracket(sigma, 1.0, rounds, h, eps, tilt=tilt)
    for e, low, high in zip(eps, flo, fup):
        exact = _gaussian_complement(sigma, rounds, e)
        assert 1 - high <= exact <= 1 - low
    assert np.all(fup - flo >= (up - lo) * (1 - 1e-6))


@pytest.mark.parametrize(
    "sigma, q, eps", [(0.3, 0.5, 0.5), (0.2, 0.9, 0.5), (0.15, 0.99, 1.0), (0.5, 0.9, 3.0)]
)
def test_one_round_bracket_holds_the_50_digit_delta(sigma, q, eps):
    """T = 1 (no composition: the factors themselves): delta(eps) = max over directions of int (p - e^eps q)_+
    in 50-digit quadrature, split where p = e^eps q."""
    s, r = mpmath.mpf(sigma), mpmath.mpf(q)

    def normal(x, mu):
        return mpmath.exp(-((x - mu) ** 2) / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi))

    exact = mpmath.mpf(0)
    for remove in (True, False):
        mix = lambda x: (1 - r) * normal(x, 0) + r * normal(x, 1)  # noqa: E731
        p, qq = (mix, lambda x: normal(x, 0)) if remove else (lambda x: normal(x, 0), mix)
        ratio = (mpmath.exp(eps) - 1 + r) / r if remove else (mpmath.exp(-eps) - 1 + r) / r
        if ratio <= 0:
            continue
        root = s * s * mpmath.log(ratio) + mpmath.mpf(1) / 2
        ends = [root, mpmath.inf] if remove else [-mpmath.inf, root]
        exact = max(exact, mpmath.quad(lambda x: p(x) - mpmath.exp(eps) * qq(x), ends))
    lo, up = _bracket(sigma, q, 1, 1e-3, np.array([eps]))
    assert lo[0] <= exact <= up[0]
    assert ((1 - lo[0]) - (1 - up[0])) / (1 - exact) < 1e-3


@pytest.mark.parametrize(
    "sigma, q, rounds", [(1.0, 0.05, 200), (0.8, 0.034, 20000), (2.0, 0.1, 3000)]
)
def test_bracket_overlaps_the_composed_pmfs_certified_bracket(sigma, q, rounds):
    """Where delta is not near 1 both brackets are tight, and both are certified: they must overlap (a side
    that crossed the truth would show here), and the complement's is ordered."""
    eps = np.array([0.25, 1.0, 2.0, 4.0])
    acc = SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=1e-3
    )
    lo, up = acc.delta(eps, bound="both")
    clo, cup = _bracket(sigma, q, rounds, 2e-3, eps)
    assert np.all(clo <= cup)
    assert np.all(np.maximum(lo, clo) <= np.minimum(up, cup))


def test_g1_near_one_point_is_resolved_to_the_epsilon_tolerance():
    """G1's sigma 0.5, q 0.1, 1600 rounds: 1 - delta ~ 1e-8, where the composed PMFs alone left a gap of
    ~6 % of it ([8.457e-9, 9.215e-9] at eps 0.5); the accountant takes the complement's
    bracket there, within 1e-3 of 1 - delta, and still around a finer grid's complement bracket."""
    eps = np.array([0.5, 2.0, 6.0])
    acc = SubsampledGaussianPLD(
        sigma=0.5, sampling_rate=0.1, rounds=1600, accuracy=1e-2, delta_accuracy="epsilon"
    )
    lo, up = acc.delta(eps, bound="both")
    assert np.all(((1 - lo) - (1 - up)) / (1 - up) < 2e-3)
    flo, fup = _bracket(0.5, 0.1, 1600, 5e-4, eps)
    assert np.all(np.maximum(lo, flo) <= np.minimum(up, fup))


def test_g1_far_corner_keeps_a_relative_bracket_after_100000_rounds():
    """G1's sigma 2.471, q 0.1, 10^5 rounds, h 1e-3: 1 - delta ~ 1e-9 at eps 6.5, where the untilted
    compositions' round-off charges (~1.1e-11 absolute) leave it 1.1 % wide (126 such G1 points would miss
    the criterion); tilted, the grid's own part is left, 0.3 %; and it overlaps a coarser grid's bracket."""
    eps = np.array([6.5, 8.5])
    lo, up = _bracket(2.471, 0.1, 100000, 1e-3, eps)
    assert np.all(((1 - lo) - (1 - up)) / (1 - up) < 5e-3)
    clo, cup = _bracket(2.471, 0.1, 100000, 2e-3, eps)
    assert np.all(np.maximum(lo, clo) <= np.minimum(up, cup))


def test_fixed_grid_bracket_near_one_takes_the_complement():
    """value_discretization_interval= (no refinement): bound="both" near 1 is the intersection as well."""
    eps = np.array([0.5, 4.0])
    acc = SubsampledGaussianPLD(
        sigma=0.5, sampling_rate=0.1, rounds=1600, value_discretization_interval=1e-3
    )
    lo, up = acc.delta(eps, bound="both")
    clo, cup = _bracket(0.5, 0.1, 1600, 1e-3, eps)
    assert np.all(lo >= clo) and np.all(up <= cup)
    assert np.all(((1 - lo) - (1 - up)) / (1 - up) < 1e-3)


def test_factors_refuse_a_grid_too_coarse_for_their_slack_and_a_tilt_outside_0_1():
    with pytest.raises(ValueError, match="h must lie in"):
        _core.pld_reads.subsampled_gaussian_complement_factors(1.0, 0.1, 0.75)
    for tilt in (
        -0.1,
        1.5,
        math.nan,
    ):  # the weights of (2) and (3) leave [0, 1]: no bound is certified
        with pytest.raises(ValueError, match=r"tilt must lie in \[0, 1\]"):
            _core.pld_reads.subsampled_gaussian_complement_factors(1.0, 0.1, 0.01, tilt=tilt)


@pytest.mark.parametrize("h", [0.5, 0.05, 1e-3])
def test_edges_of_epsilon_and_grid_stay_on_the_safe_side(h):
    """eps = 0, a subnormal, 1e-300, moderate, 50 and 1e308 on the coarsest grid the factors accept (0.5), a
    coarse and a fine one: q = 1 (Gaussian, 100 rounds, sigma 0.9, 1 - delta ~ 1e-8 at eps 0.5) against the
    closed form in mpmath; both sides ordered and in [0, 1], the lower one 0 where delta is 0 (eps 1e308)."""
    eps = np.array([0.0, 5e-324, 1e-300, 0.5, 3.0, 50.0, 1e308])
    lo, up = _bracket(0.9, 1.0, 100, h, eps)
    assert np.all((0.0 <= lo) & (lo <= up) & (up <= 1.0))
    for e, low, high in zip(eps[:-1], lo, up):
        exact = 1 - _gaussian_complement(0.9, 100, float(e))
        assert low <= exact <= high
    assert lo[-1] == 0.0
    # a sampling rate far below the grid and a large sigma: nothing near 1, still certified (loose is fine):
    # ordered, and overlapping the composed PMFs' certified bracket on a fine grid
    small_lo, small_up = _bracket(5.0, 1e-4, 10, h, eps)
    assert (
        np.all((0.0 <= small_lo) & (small_lo <= small_up) & (small_up <= 1.0))
        and small_lo[-1] == 0.0
    )
    f_lo, f_up = SubsampledGaussianPLD(
        sigma=5.0, sampling_rate=1e-4, rounds=10, value_discretization_interval=1e-4
    ).delta(eps, bound="both")
    assert np.all(np.maximum(f_lo, small_lo) <= np.minimum(f_up, small_up))


def test_infinite_and_nan_epsilon_give_the_trivial_sides_without_a_warning():
    """eps = -inf (delta 1), +inf (delta 0) and nan: upper side 1, lower side 0, no floating-point warning (the
    tilted sums' slack met 0 x inf at -inf)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, up = _bracket(1.0, 0.1, 100, 1e-2, np.array([-np.inf, np.inf, np.nan, 1.0]))
    assert np.all(lo[:3] == 0.0) and np.all(up[:3] == 1.0)
    assert 0.0 < lo[3] <= up[3] < 1.0


def _sums_reference(p: np.ndarray, decay: float, rising: bool) -> np.ndarray:
    """The geometric sums at every index 0 .. n in numpy and scipy (a linear filter over the masses)."""
    import scipy.signal

    r = math.exp(-decay)
    if rising:
        return np.concatenate([[0.0], r * scipy.signal.lfilter([1.0], [1.0, -r], p)])
    return np.append(scipy.signal.lfilter([1.0], [1.0, -r], p[::-1])[::-1], 0.0)


def _threshold_reference(
    a: np.ndarray, a_lo: int, b: np.ndarray, b_lo: int, h: float, offset: float, eps: np.ndarray
) -> np.ndarray:
    """The likelihood-ratio threshold in numpy (the core's operations in the same order), the C library's log
    in place of numpy's (``c_math``)."""
    lo, hi = max(a_lo, b_lo), min(a_lo + a.size, b_lo + b.size)
    index, ratio = np.arange(0), np.zeros(0)
    if hi > lo:
        am, bm = a[lo - a_lo : hi - a_lo], b[lo - b_lo : hi - b_lo]
        live = (am > 0.0) & (bm > 0.0)
        index = np.arange(lo, hi)[live]
        ratio = np.maximum.accumulate(
            c_math.log(am[live]) - c_math.log(bm[live]) + index * h + offset
        )
    if index.size:
        return index[np.clip(np.searchsorted(ratio, eps) - 1, 0, index.size - 1)]
    return np.full(eps.shape, lo)


def _masses(rng: np.random.Generator, n: int) -> np.ndarray:
    """Masses over 300 decades, with zeros, subnormals and a few equal neighbours."""
    p = 10.0 ** rng.uniform(-300, 0, n)
    p[rng.random(n) < 0.2] = 0.0
    p[rng.random(n) < 0.05] = 5e-324
    return p


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_scans_are_the_numpy_forms_bit_for_bit(seed):
    """The core's geometric sums (every index, any shape of indices) and likelihood-ratio thresholds
    (pld/reads/complement_scans.hpp) give the doubles and indices the numpy forms gave: random masses over 300
    decades, decays from 0 to past e^-decay's underflow, windows overlapping or not, eps at +-inf and NaN."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 400))
    p = _masses(rng, n)
    for decay in (0.0, 1e-9, float(rng.uniform(0.0, 2.0)), 30.0, 800.0):
        at = rng.integers(0, n + 1, (3, 7))
        for rising in (True, False):
            full = _sums_reference(p, decay, rising)
            assert (
                _core.pld_reads.geometric_sums_at(
                    p, decay=decay, at=np.arange(n + 1), rising=rising
                ).tobytes()
                == full.tobytes()
            )
            got = _core.pld_reads.geometric_sums_at(p, decay=decay, at=at, rising=rising)
            assert got.shape == at.shape and got.tobytes() == full[at].tobytes()
    b = _masses(rng, int(rng.integers(0, 400)))
    a_lo, b_lo = (int(v) for v in rng.integers(-300, 300, 2))
    h, offset = float(10.0 ** rng.uniform(-4, 0)), float(rng.uniform(-50.0, 50.0))
    eps = np.concatenate([rng.uniform(-100.0, 100.0, 40), [-np.inf, np.inf, np.nan, 0.0, -0.0]])
    got = _core.pld_reads.ratio_threshold(
        p, a_lo=a_lo, b=b, b_lo=b_lo, h=h, offset=offset, epsilon=eps
    )
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, _threshold_reference(p, a_lo, b, b_lo, h, offset, eps))


def test_the_geometric_sums_are_within_their_stated_error():
    """before_i and after_i against 50-digit sums of p_j r^{|i - j|} (r = e^{-decay} exact in mpmath): within
    3 (n + 1) u relative, the bound complement.hpp's slack takes for them."""
    rng = np.random.default_rng(7)
    n = 60
    p = rng.random(n) * 10.0 ** rng.uniform(-5, 0, n)
    u = 2.0**-53
    for decay in (1e-6, 0.05, 1.7):
        r = mpmath.exp(-mpmath.mpf(decay))
        before = _core.pld_reads.geometric_sums_at(
            p, decay=decay, at=np.arange(n + 1), rising=True
        )  # rising: sum over j < i
        after = _core.pld_reads.geometric_sums_at(
            p, decay=decay, at=np.arange(n + 1), rising=False
        )  # decayed: sum over j >= i
        for i in range(n + 1):
            exact_before = mpmath.fsum(mpmath.mpf(p[j]) * r ** (i - j) for j in range(i))
            exact_after = mpmath.fsum(mpmath.mpf(p[j]) * r ** (j - i) for j in range(i, n))
            for got, exact in ((before[i], exact_before), (after[i], exact_after)):
                assert abs(mpmath.mpf(got) - exact) <= 3 * (n + 1) * u * exact
    assert before[0] == 0.0 and after[n] == 0.0
