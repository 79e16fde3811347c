"""Extreme parameters: little noise with a large sampling rate, loss grids far wider than 709,
and Chernoff exponents with lam h large.

References are independent of the C++ code: the closed form of one round of the
Poisson-subsampled Gaussian evaluated with mpmath at 50 digits (both directions), a direct
log-sum-exp in mpmath for the cumulant generating function, and dp_accounting for compositions.
"""

from __future__ import annotations

import functools
import gc
import math

import mpmath as mp
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.compose import log_moments, tilted
from hockeystick.pld.compose.log_moments import log_mgf_at
from hockeystick.pld.grid.pmf import GridPMF

from ..log_mgf_reference import exact_log_mgf


def _q(x: mp.mpf) -> mp.mpf:
    return mp.erfc(x / mp.sqrt(2)) / 2


def _theta(r: mp.mpf, a: mp.mpf) -> mp.mpf:
    """H_{e^a}(N(r, 1) || N(0, 1)) = Q(a/r - r/2) - e^a Q(a/r + r/2), any real a."""
    return _q(a / r - r / 2) - mp.exp(a) * _q(a / r + r / 2)


def exact_one_round(sigma: float, q: float, eps: float) -> float:
    """delta(eps) of one round, the larger of the two directions, eps >= 0 (mpmath, 60 digits).

    Remove, P = (1-q) N(0) + q N(1) vs Q = N(0): q theta(1/sigma, log(1 + (e^eps - 1)/q)).
    Add, P = N(0) vs Q = (1-q) N(0) + q N(1): with c = 1 - e^eps (1-q), (P - e^eps Q)_+ =
    c (P - (e^eps q / c) N(1))_+ when c > 0 (else 0), i.e. c theta(1/sigma, eps + log q - log c).
    """
    with mp.workdps(60):
        s, qq, e = mp.mpf(sigma), mp.mpf(q), mp.mpf(eps)
        r = 1 / s
        remove = qq * _theta(r, mp.log(1 + mp.expm1(e) / qq))
        c = 1 - mp.exp(e) * (1 - qq)
        add = c * _theta(r, e + mp.log(qq) - mp.log(c)) if c > 0 else mp.mpf(0)
        return float(max(remove, add))


def test_closed_form_matches_direct_quadrature():
    """The reference itself: the remove-direction closed form against a quadrature of (p - e^eps q)_+."""
    sigma, q, eps = 0.4, 0.3, 0.7
    with mp.workdps(30):
        s, g = mp.mpf(sigma), mp.exp(mp.mpf(eps))
        f = lambda x: max(
            (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, 1, s) - g * mp.npdf(x, 0, s), 0
        )  # noqa: E731
        # The loss is increasing in x: one crossing, x* = 1/2 + s^2 log(1 + (e^eps - 1)/q).
        x_star = mp.mpf(0.5) + s**2 * mp.log(1 + (g - 1) / q)
        direct = mp.quad(f, [x_star, x_star + 1, mp.inf])
    assert exact_one_round(sigma, q, eps) == pytest.approx(float(direct), rel=1e-20)


# The reads a test takes: the distribution's own composition (``composition_only=True``, what the discretization
# gives) and the front door's per-question read, which refines by the tilted factors at every eps and costs 6 to 25
# CPU seconds a case here. Every case reads its composition in the default run; the front door's read stays there in
# the cases named below (the subsampled bracket's first case is the upper bound's first distribution, both sides, its
# upper side bit for bit the composition's) and is marked slow in the others.
COMPOSITION, FRONT_DOOR = True, False


def _reads(cases: list[tuple], door_in_default: set[tuple]) -> list:
    return [
        pytest.param(*case, read, marks=() if read or case in door_in_default else pytest.mark.slow)
        for case in cases
        for read in (COMPOSITION, FRONT_DOOR)
    ]


def _large_rate_eps(sigma: float, h: float) -> np.ndarray:
    """The large-rate test's eps: grid points (multiples of h) up to the top of the loss range
    (~ 1/(2 sigma^2) + 8.1/sigma)."""
    top = 0.5 / sigma**2 + 8.1 / sigma
    grid = np.concatenate([[0.0, 0.3, 1.0, 5.0, 100.0], np.linspace(0.4, 0.95, 12) * top])
    return np.round(grid / h) * h


def _bracket_eps(sigma: float, h: float) -> np.ndarray:
    """The subsampled bracket test's eps: grid points across the loss range."""
    top = 0.5 / sigma**2 + 8.1 / sigma
    return (
        np.round(np.concatenate([[0.0, 0.3, 1.0, 5.0], np.linspace(0.1, 0.95, 10) * top]) / h) * h
    )


# The points both little-noise tests read through the front door (sigma, q, h): a large rate, read by
# default, and a small one, where the composition's lower side is loose by about q / 2 at small eps
SHARED_DOOR = (0.03, 0.5, 1e-3)
SMALL_RATE_DOOR = (0.03, 1e-2, 1e-3)
SHARED_DOORS = {SHARED_DOOR, SMALL_RATE_DOOR}


@functools.cache
def _shared_door_bracket(
    sigma: float, q: float, h: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The front door's delta bracket of one round at the union of both little-noise tests' eps, read
    once for the two tests that take the point (a read of 5 to 25 CPU s, nearly all of it at the top
    eps): (eps, lower, upper), each side certified at each eps whichever others are read with it."""
    eps = np.union1d(_large_rate_eps(sigma, h), _bracket_eps(sigma, h))
    d = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
    lower, upper = d.delta(eps, bound="both", composition_only=False)
    return eps, lower, upper


def _shared_door_at(
    point: tuple[float, float, float], eps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``_shared_door_bracket``'s (lower, upper) at ``point`` at each of ``eps`` (points of its union)."""
    union, lower, upper = _shared_door_bracket(*point)
    at = np.searchsorted(union, eps)
    assert np.array_equal(union[at], eps)
    return lower[at], upper[at]


@pytest.mark.parametrize(
    "sigma, q, h, composition_only",
    _reads([SHARED_DOOR, (0.02, 0.9, 1e-2), SMALL_RATE_DOOR], set()),
)
def test_little_noise_large_rate_upper_bound_is_finite_and_certified(sigma, q, h, composition_only):
    """sigma = 0.03: the shifted component's weight underflows to 0 at the bottom of the x range
    while e^{dx/s^2} - 1 overflows across the first cell (0 * inf = NaN), and the cell edges
    above loss 709 (e^l overflows in the loss inverse) all collapse onto the top of the x range,
    losing the mass there. The pessimistic cells must be finite and keep all the mass, and the
    upper bound must lie above the exact one-round curve and close to it, out to the far tail."""
    for remove in (True, False):
        cells = _core.pld_grid.subsampled_gaussian_cells(
            sigma, q, remove=remove, h=h, tail=1e-15, max_cells=1 << 26
        )
        assert np.all(np.isfinite(cells.c)) and np.all(np.isfinite(cells.d))
        assert np.all(cells.c >= 0) and np.all(cells.d >= 0)
    d = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
    for direction in d.directions:
        for factor in direction:
            assert factor.upper.p_inf < 1e-13  # the tail (1e-15) and round-off, nothing lost
    eps = _large_rate_eps(sigma, h)
    if not composition_only and (sigma, q, h) in SHARED_DOORS:
        upper = _shared_door_at((sigma, q, h), eps)[1]
    else:
        upper = d.delta(eps, composition_only=composition_only)
    exact = np.array([exact_one_round(sigma, q, e) for e in eps])
    assert np.all(np.isfinite(upper))
    assert np.all(upper >= exact)
    # One round of connect-the-dots is exact at grid points, up to the mass at +infinity (< 1e-13).
    assert np.all(upper <= exact * (1 + 1e-9) + 1e-13)


def _exact_discrete(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    """sum_i (p_i - e^eps q_i)_+ at 50 digits."""
    with mp.workdps(50):
        g = mp.exp(mp.mpf(eps))
        return float(mp.fsum(max(mp.mpf(float(a)) - g * mp.mpf(float(b)), 0) for a, b in zip(p, q)))


def test_optimistic_side_is_finite_and_certified_on_grids_wider_than_709():
    """The optimistic construction scaled by e^{l_j} (chord widths, tangent excess, Q-mass):
    on a grid spanning more than 709 in loss it overflowed to NaN. Gaussian sigma = 0.02 spans
    -1650 .. 1650; the bracket must hold the exact theta(1/sigma, eps) and stay tight."""
    h = 1e-2
    d = pld.gaussian(0.02, value_discretization_interval=h)
    factor = next(iter(d.directions[0]))
    assert factor.upper.losses[0] < -709 and factor.upper.losses[-1] > 709
    assert (
        factor.connect_dots and np.all(np.isfinite(factor.lower.p)) and np.all(factor.lower.p >= 0)
    )
    assert factor.lower.finite_mass <= 1 + 1e-12
    live = factor.lower.p > 0
    q_mass = np.sum(np.exp(np.log(factor.lower.p[live]) - factor.lower.losses[live]))  # no overflow
    assert q_mass <= 1 + 1e-12
    eps = np.array([0.0, 1.0, 100.0, 800.0, 1000.0, 1400.0, 1500.0])
    lower, upper = d.delta(eps, bound="both")
    exact = np.array([float(_theta(mp.mpf(50), mp.mpf(e))) for e in eps])
    assert np.all(lower <= exact) and np.all(exact <= upper)
    assert np.all(lower >= exact * (1 - 0.1 * h) - 1e-13)


@pytest.mark.parametrize(
    "sigma, q, h, gap, composition_only",
    [
        *_reads([(*SHARED_DOOR, 2e-4), (*SMALL_RATE_DOOR, None)], {(*SHARED_DOOR, 2e-4)}),
        pytest.param(0.025, 1e-3, 1e-2, None, COMPOSITION),
    ],
)
def test_little_noise_subsampled_bracket_holds_the_exact_curve(sigma, q, h, gap, composition_only):
    """Both directions, grids up to loss ~ 1/(2 sigma^2) + 8.1/sigma (> 800). The lower side's
    relative gap at eps ~ 0 is the tent height c d / (c + d) of the cell holding the unshifted
    mass (an atom-like spike near log(1 - q)) over delta: small for q = 0.5, but about q / 2 for
    q = 1e-2 and nearly q itself for q = 1e-3 (a valid, loose lower bound: there only the order is
    asserted).  The front door reads the small rate at the large-rate test's point (q 1e-2, whose
    composition's lower side is loose the same way, 5e-3 below the exact curve at eps <= 600), so
    both tests take one read of it."""
    eps = _bracket_eps(sigma, h)
    if not composition_only and (sigma, q, h) in SHARED_DOORS:
        lower, upper = _shared_door_at((sigma, q, h), eps)
    else:
        d = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
        lower, upper = d.delta(eps, bound="both", composition_only=composition_only)
    exact = np.array([exact_one_round(sigma, q, e) for e in eps])
    assert np.all(lower <= exact) and np.all(exact <= upper)
    assert np.all(lower > 0)
    if gap is not None:
        assert np.all(lower >= exact * (1 - gap) - 1e-13)


def test_extreme_ratio_distributions_bracket_the_exact_curve():
    """Atoms at losses 737, 0 and -690 (a span of 1427) in both directions."""
    p = np.array([0.5, 0.5 - 1e-300, 1e-300])
    q = np.array([1e-320, 0.5, 0.5 - 1e-320])
    d = pld.from_distributions(p, q, value_discretization_interval=1e-2)
    for eps in (0.0, 0.5, 100.0, 600.0, 730.0):
        lower, upper = d.delta(eps, bound="both")
        exact = max(_exact_discrete(p, q, eps), _exact_discrete(q, p, eps))
        assert lower <= exact <= upper
        assert lower >= exact * (1 - 1e-2) - 1e-13


@pytest.mark.parametrize("lam", [24.0, 30.0, 200.0, -24.0, -200.0])
def test_log_mgf_keeps_blocks_whose_first_term_underflows(lam):
    """With lam h large a block of 32 terms can start below e^{-745} (its first term, formed by one
    exp, underflows to 0 and the recurrence keeps it 0) and still end near the top term: those
    terms were dropped, so K(lam) came out too small and the Chernoff window too narrow."""
    h, k_lo = 1.0, -5
    p = np.zeros(33)
    if lam > 0:
        p[31], p[32] = 1.0, 1e-20  # the top term is tiny, the one just below the block edge is not
    else:
        p[0], p[1] = 1e-20, 1.0  # mirrored: the bottom term is tiny
    got = float(_core.pld_grid.log_mgf(p, k_lo=k_lo, h=h, lam=np.array([lam]))[0])
    exact = exact_log_mgf(p, k_lo, h, lam)
    assert got >= exact
    assert got - exact <= 1e-10 * max(1.0, abs(float(exact)))


def test_log_mgf_matches_log_sum_exp_over_a_wide_range():
    """Random masses spread over 20 orders of magnitude, 5000 points, many lam, numpy log-sum-exp
    in extended precision as the reference (and mpmath for a few)."""
    rng = np.random.default_rng(11)
    p = rng.random(5000) * 10.0 ** -rng.integers(0, 20, 5000)
    p[rng.random(5000) < 0.3] = 0.0
    k_lo, h = -2500, 1e-2
    lams = np.array([-500.0, -90.0, -3.0, 0.5, 7.0, 60.0, 300.0, 2000.0])
    got = _core.pld_grid.log_mgf(p, k_lo=k_lo, h=h, lam=lams)
    for lam, g in zip(lams, got):
        exact = exact_log_mgf(p, k_lo, h, float(lam))
        assert g >= exact
        assert g - exact <= 1e-10 * max(1.0, abs(float(exact)))


def _wide_range_pmf(pessimistic: bool) -> GridPMF:
    """A round's PMF on a grid spanning 1427 in loss, masses over 20 orders of magnitude and zeros."""
    rng = np.random.default_rng(12)
    p = rng.random(142_700) * 10.0 ** -rng.integers(0, 20, 142_700)
    p[rng.random(p.size) < 0.3] = 0.0
    return GridPMF(-69_000, 1e-2, p / p.sum(), 0.0, 0.0, pessimistic)


def test_log_moments_kept_per_pmf_are_each_lams_alone_bit_for_bit():
    """``log_mgf_at`` (each lam evaluated once per PMF, kept for the tilt searches of later buckets)
    gives, asked in pieces, repeated and out of order, the core's value of each lam asked alone,
    and forgets a PMF with it."""
    pmf = _wide_range_pmf(True)
    lams = _core.pld_reads.tilt_lambdas()[::7] / 50.0
    alone = np.array([pmf.log_mgf(np.array([lam]))[0] for lam in lams])
    order = np.random.default_rng(3).permutation(lams.size)
    for piece in (order[:5], order, order[::-1], np.concatenate([order[:9], order[:9]])):
        np.testing.assert_array_equal(log_mgf_at(pmf, lams[piece]), alone[piece])
    key = id(pmf)
    assert key in log_moments._KEPT
    del pmf
    gc.collect()
    assert key not in log_moments._KEPT


# every how many masses of ``_wide_range_pmf`` the tilted factor is checked against its formula entry by entry
TILT_STRIDE = 13


def _tilted_by_formula(pmf: GridPMF, theta: float, at: range) -> np.ndarray:
    """``tilted.tilted_factor``'s masses at the indices ``at`` by its formula, entry by entry with libm's exp and
    log (``math``): e^{log p_k + theta k - log M} (1 +- 32 u (|log p_k| + |theta k| + |log M| + 1)), 0 where p_k
    is, an underflow raised to twice the least normal double on the upper side."""
    log_m = float(pmf.log_mgf(np.array([theta / pmf.h]))[0])
    least = 2.0 * np.finfo(np.float64).tiny
    out = []
    for j in at:
        p = float(pmf.p[j])
        if not p > 0.0:
            out.append(0.0)
            continue
        log_p, scaled = math.log(p), theta * float(pmf.k_lo + j)
        margin = 32.0 * 2.0**-53 * (abs(log_p) + abs(scaled) + abs(log_m) + 1.0)
        mass = math.exp(log_p + scaled - log_m) * (
            (1.0 + margin) if pmf.pessimistic else (1.0 - margin)
        )
        out.append(least if pmf.pessimistic and mass < least else mass)
    return np.array(out)


@pytest.mark.parametrize("pessimistic", [True, False])
@pytest.mark.parametrize("lam", [0.5, 7.0, 60.0])
def test_tilted_factor_is_its_formula_with_libms_exp_and_log_bit_for_bit(pessimistic, lam):
    """The tilted factor (the core's arithmetic) gives the formula's masses, bit for bit, on every
    ``TILT_STRIDE``-th mass of a grid wide in loss where many tilted masses underflow."""
    pmf = _wide_range_pmf(pessimistic)
    got, _ = tilted.tilted_factor(pmf, lam * pmf.h)
    at = range(0, pmf.p.size, TILT_STRIDE)
    want = _tilted_by_formula(pmf, lam * pmf.h, at)
    assert np.array_equal(got.p[::TILT_STRIDE].view(np.uint64), want.view(np.uint64))


def _sweep_points():
    """(sigma, q, h) over sigma in [0.02, 5], q in [1e-4, 1], h in {1e-2, 1e-3, 1e-4}; the finer
    grids skip the smallest sigmas (millions of cells: bench sizes, not test sizes)."""
    sigmas = {1e-2: (0.02, 0.05, 0.2, 1.0, 5.0), 1e-3: (0.03, 0.2, 1.0, 5.0), 1e-4: (0.5, 2.0, 5.0)}
    rates = {1e-2: (1e-4, 1e-2, 0.3, 1.0), 1e-3: (1e-4, 0.05, 1.0), 1e-4: (1e-4, 0.3, 1.0)}
    return [
        (s, q, h)
        for h in sigmas
        for s in sigmas[h]
        for q in rates[h]
        if not (h == 1e-3 and s == 0.03 and q != 0.05)
    ]


def test_sweep_has_no_nan_and_every_bracket_is_ordered_monotone_and_holds_the_exact_curve():
    """One round: lower <= exact <= upper at 8 eps (mpmath closed form, both directions); one and
    three rounds: finite, within [0, 1], lower <= upper, both non-increasing on a 60-point eps grid."""
    grid = np.linspace(0.0, 40.0, 60)
    check = np.array([0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    for sigma, q, h in _sweep_points():
        one = pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
        lo, up = one.delta(check, bound="both", composition_only=True)
        exact = np.array([exact_one_round(sigma, q, e) for e in check])
        assert np.all(lo <= exact) and np.all(exact <= up), (sigma, q, h)
        for dist in (one, one.self_compose(3)):
            lo, up = dist.delta(grid, bound="both", composition_only=True)
            assert np.all(np.isfinite(lo)) and np.all(np.isfinite(up)), (sigma, q, h)
            assert np.all((0 <= lo) & (lo <= up) & (up <= 1)), (sigma, q, h)
            assert np.all(np.diff(lo) <= 0) and np.all(np.diff(up) <= 0), (sigma, q, h)
            e_lo, e_up = dist.epsilon(1e-5, bound="both", composition_only=True)
            assert 0 <= e_lo <= e_up, (sigma, q, h)


@functools.cache
def _dp_accounting_deltas(
    sigma: float, q: float, rounds: int, h: float, pessimistic: bool, eps: tuple[float, ...]
) -> tuple[float, ...]:
    """dp_accounting's delta at each eps of ``rounds`` compositions of its Poisson-subsampled Gaussian PLD on
    grid h (its pessimistic or optimistic side); computed once for both reads of a case."""
    import logging

    from dp_accounting.pld import privacy_loss_distribution as dpl

    logging.getLogger().setLevel(
        logging.ERROR
    )  # their optimistic side warns that it is not connect-the-dots
    d = dpl.from_gaussian_mechanism(
        standard_deviation=sigma,
        sensitivity=1.0,
        sampling_prob=q,
        value_discretization_interval=h,
        pessimistic_estimate=pessimistic,
    )
    composed = d.self_compose(rounds)
    return tuple(composed.get_delta_for_epsilon(e) for e in eps)


@pytest.mark.parametrize(
    "sigma, q, rounds, h, composition_only",
    _reads([(0.05, 0.3, 5, 1e-2), (0.2, 0.1, 10, 1e-3)], {(0.2, 0.1, 10, 1e-3)}),
)
def test_little_noise_compositions_against_dp_accounting(sigma, q, rounds, h, composition_only):
    """Same grid, same connect-the-dots upper construction: our upper bound is no looser than
    theirs beyond our certified round-off charges, and the two brackets overlap. Fails (never
    skips) when dp_accounting is importable."""
    try:
        import dp_accounting.pld  # noqa: F401
    except ImportError:  # pragma: no cover - dp_accounting is in the test extra
        pytest.skip("dp_accounting is not installed (pip install hockeystick[test])")
    eps = (0.5, 5.0, 30.0)
    their_up = np.array(_dp_accounting_deltas(sigma, q, rounds, h, True, eps))
    their_low = np.array(_dp_accounting_deltas(sigma, q, rounds, h, False, eps))
    lo, up = (
        pld.subsampled_gaussian(sigma, q, value_discretization_interval=h)
        .self_compose(rounds)
        .delta(np.array(eps), bound="both", composition_only=composition_only)
    )
    assert np.all(up <= their_up * (1 + 1e-6) + 1e-9)
    assert np.all(lo <= their_up) and np.all(their_low <= up)
