"""The tilted composition (``compose.tilted``) against an exact reference, and the default at a delta below the
plain composition's round-off.

The reference: a grid PMF with dyadic masses a_k / 2^B, whose T-fold composition has integer numerators, computed
exactly by one big-integer power (Kronecker substitution: the polynomial sum_k a_k X^k at X = 2^W, W wider than
any coefficient of the power), then delta(eps) = sum_{L > eps} (1 - e^{eps - L}) P_T(L) summed in mpmath at 50
digits.  The plain composition's round-off charge (about T u of the total mass) hides every delta below ~1e-13
here; the tilted one must bound the exact curve on both sides at deltas 1e-20 to 1e-40, within a relative 1e-6.
"""

from __future__ import annotations

import decimal
import math
import warnings

import mpmath
import numpy as np
import pytest

from hockeystick import _core, pld
from hockeystick.pld.compose import fft, tilted
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.question import tilted_question
from hockeystick.pld.refine import question
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning

from ..refine import tilted_core
from ..refine.tilted_windows import composed, one_round, pessimistic_deltas

H = 0.05
K_LO = -4
NUMERATORS = [40, 60, 100, 150, 200, 200, 150, 70, 40, 14]  # sum 1024 = 2^10: losses -0.2 .. 0.25
# a second factor for a composition of two kinds of rounds: losses -0.1 .. 0.3
K_LO_2 = -2
NUMERATORS_2 = [300, 400, 200, 80, 30, 10, 3, 1]  # sum 1024
BITS = 10
ROUNDS = 100


def exact_composition(factors: list[tuple[int, list[int], int]]) -> tuple[int, list[int], int]:
    """(k_lo, numerators, bits) of the composition of ``count`` rounds of each (k_lo, numerators over 2^BITS, count),
    exactly: the masses are numerators / 2^bits.

    Kronecker substitution in base 10: each factor's polynomial sum_k a_k X^k at X = 10^digits, one digit wider
    than any coefficient of the product can be, raised to its count in ``decimal`` at unbounded precision (its
    large products are number-theoretic transforms, where ``int``'s are Karatsuba's: at 1000 rounds the power has
    27 million digits), with any rounding trapped, so the power is exact; its coefficients are its digit blocks.
    """
    rounds = sum(count for _, _, count in factors)
    # every coefficient of the product is at most the total numerator 2^(BITS rounds) < 10^digits
    digits = math.ceil(BITS * rounds * math.log10(2)) + 2
    exact = decimal.Context(
        prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, traps=[decimal.Inexact, decimal.Rounded]
    )
    power = decimal.Decimal(1)
    for _, numerators, count in factors:
        x = decimal.Decimal("".join(str(a).zfill(digits) for a in reversed(numerators)))
        power = exact.multiply(power, exact.power(x, count))
    text = format(power, "f")
    # blocks from the least significant digit up; int() of a Decimal has no cap on digits, int() of a str has
    coefficients = [
        int(decimal.Decimal(text[max(0, end - digits) : end]))
        for end in range(len(text), 0, -digits)
    ]
    return sum(k_lo * count for k_lo, _, count in factors), coefficients, BITS * rounds


def exact_curve(factors: list[tuple[int, list[int], int]]):
    k_lo, numerators, bits = exact_composition(factors)
    mpmath.mp.dps = 50
    scale = mpmath.mpf(2) ** (-bits)
    masses = [
        (mpmath.mpf(k_lo + i) * mpmath.mpf(H), mpmath.mpf(c) * scale)
        for i, c in enumerate(numerators)
    ]

    def delta(eps: float) -> mpmath.mpf:
        e = mpmath.mpf(eps)
        return mpmath.fsum((1 - mpmath.exp(e - loss)) * p for loss, p in masses if loss > e)

    return delta


@pytest.fixture(scope="module")
def exact_delta():
    return exact_curve([(K_LO, NUMERATORS, ROUNDS)])


def grid_pmf(pessimistic: bool, k_lo: int = K_LO, numerators: list[int] = NUMERATORS) -> GridPMF:
    return GridPMF(
        k_lo, H, np.array(numerators, dtype=np.float64) / 2.0**BITS, 0.0, pessimistic=pessimistic
    )


@pytest.mark.parametrize("target", [1e-20, 1e-30, 1e-40])
def test_tilted_sides_bound_the_exact_curve(exact_delta, target):
    upper_pmf, lower_pmf = grid_pmf(True), grid_pmf(False)
    lam = _core.pld_refine.chernoff_tilt([(upper_pmf, ROUNDS)], delta=target)
    up = tilted.compose_tilted([(upper_pmf, ROUNDS)], lam * H, pessimistic=True)
    eps_up = tilted.upper_epsilon(up, target, 0.25 * ROUNDS)
    lo = tilted.compose_tilted(
        [(lower_pmf, ROUNDS)],
        _core.pld_refine.exponent_tilt([(lower_pmf, ROUNDS)], eps=eps_up) * H,
        pessimistic=False,
    )
    eps_lo = tilted.lower_epsilon(lo, target, eps_up)
    # certified: the exact curve is at most the target at the upper epsilon, above it at the lower one
    assert exact_delta(eps_up) <= target < exact_delta(eps_lo)
    assert 0.0 < eps_lo <= eps_up < math.inf
    # and tight: both within a relative 1e-6 of the target in delta
    assert exact_delta(eps_up) >= target * (1 - 1e-6)
    assert exact_delta(eps_lo) <= target * (1 + 1e-6)
    # each side's delta brackets the exact one at grid and off-grid points near the answer
    for eps in (eps_lo - 0.013, eps_lo, 0.5 * (eps_lo + eps_up), eps_up + 0.021):
        exact = exact_delta(eps)
        assert lo.delta(eps) <= exact <= up.delta(eps)
        assert up.delta(eps) - lo.delta(eps) <= 1e-6 * exact
    # the plain composition's round-off charge hides this delta: its upper side is far above the exact one
    plain = fft.compose([(upper_pmf, ROUNDS)], pessimistic=True)
    assert float(plain.delta(np.array(eps_up))) > 1e3 * float(exact_delta(eps_up))


def test_tilted_composition_of_two_kinds_of_rounds_bounds_the_exact_curve():
    """40 rounds of one PMF and 60 of another: the untilt factor is the product of both normalizers' powers."""
    exact = exact_curve([(K_LO, NUMERATORS, 40), (K_LO_2, NUMERATORS_2, 60)])
    sides = {}
    for pessimistic in (True, False):
        factors = [(grid_pmf(pessimistic), 40), (grid_pmf(pessimistic, K_LO_2, NUMERATORS_2), 60)]
        sides[pessimistic] = tilted.compose_tilted(
            factors, 14.0 * H, pessimistic=pessimistic
        )  # lam 14: eps ~ 8
    for eps in (6.0, 7.33, 8.0, 9.0):
        value = exact(eps)
        assert 1e-45 < value < 1e-15
        assert sides[False].delta(eps) <= value <= sides[True].delta(eps)
        assert sides[True].delta(eps) - sides[False].delta(eps) <= 1e-6 * value


def test_tilted_arguments_refused():
    pmf = grid_pmf(True)
    for theta in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="theta"):
            tilted.compose_tilted([(pmf, 3)], theta, pessimistic=True)
    with pytest.raises(ValueError, match="side"):
        tilted.compose_tilted([(pmf, 3)], 0.1, pessimistic=False)
    negative = GridPMF(0, H, np.array([0.5, -0.1, 0.6]), 0.0, pessimistic=True)
    with pytest.raises(ValueError, match="discretized round"):
        tilted.compose_tilted([(negative, 3)], 0.1, pessimistic=True)


def test_below_the_window_reads_are_trivial():
    c = tilted.compose_tilted([(grid_pmf(True), ROUNDS)], 0.5, pessimistic=True)
    assert c.side_at(c.floor - 1.0) == 1.0
    d = tilted.compose_tilted([(grid_pmf(False), ROUNDS)], 0.5, pessimistic=False)
    assert d.side_at(d.floor - 1.0) == 0.0


@pytest.mark.slow
def test_long_run_small_delta_is_read_below_the_peer():
    """q = 1e-6, 10^6 rounds, delta = 1e-20: the plain composition's charge left the default's upper side ~0.14;
    the tilted one reads it below dp_accounting's default PLD (uncertified) and the RDP conversion."""
    from dp_accounting import GaussianDpEvent, PoissonSampledDpEvent  # lazy: the peer
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

    peer = PLDAccountant()
    peer.compose(PoissonSampledDpEvent(1e-6, GaussianDpEvent(1.0)), 10**6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotMetWarning)
        lower, upper = pld.SubsampledGaussianPLD(1.0, 1e-6, 10**6).epsilon(1e-20, bound="both")

    assert 0.0 < lower <= upper < peer.get_epsilon(1e-20)
    assert upper < float(question.rdp_upper((1.0, 1e-6, 1e6, 1.0), np.array(1e-20)))


def _tilted(
    point: tuple[float, float, float, float], delta: float
) -> tuple[np.ndarray, np.ndarray]:
    """The core's tilted descent (``tilted_core.tilted_brackets``) at delta from no bracket (0, inf)."""
    return tilted_core.tilted_brackets(
        point, np.array([delta]), np.array([0.0]), np.array([math.inf])
    )


def test_tilted_bracket_overlaps_the_plain_one_where_both_read():
    """The README's DP-SGD run at delta 1e-10, where the plain default is within its tolerance: the tilted bracket
    from nothing (0, inf), certified by other means, must overlap it and be as narrow."""
    point = (1.1, 256 / 60_000, 14_100.0, 1.0)
    plain_lo, plain_up = pld.SubsampledGaussianPLD(*point[:3]).epsilon(1e-10, bound="both")
    lo, up = (float(v[0]) for v in _tilted(point, 1e-10))
    assert plain_lo <= up and lo <= plain_up
    assert up - lo <= question.default_tolerance(up)


def test_readme_run_at_delta_1e_20_is_read_within_the_tolerance():
    """The plain composition's charge left this bracket (4.2, 8.4) and the RDP conversion's 6.07 as its upper side;
    the tilted reads make it readable, below the RDP conversion."""
    point = (1.1, 256 / 60_000, 14_100.0, 1.0)
    lower, upper = pld.SubsampledGaussianPLD(*point[:3]).epsilon(1e-20, bound="both")
    assert 0.0 < lower <= upper <= float(question.rdp_upper(point, np.array(1e-20)))
    assert question.within_readable(np.array(lower), np.array(upper))


@pytest.mark.parametrize("q", [0.01, 0.3, 0.5])
def test_add_direction_is_pure_dp_past_t_log_one_over_one_minus_q(q):
    """The add direction's loss -log(1 - q + q e^{(2x - 1) / (2 sigma^2)}) is at most -log(1 - q): one round's
    delta, read from mpmath's 50-digit integral, is positive just below that and the screen's bound is 0 from it
    on, while below it the screen's bound (a coarser grid's tilted read) is at least the 50-digit delta."""
    sigma = 0.7
    mpmath.mp.dps = 50
    s = mpmath.mpf(sigma)

    def add_delta(eps: float) -> mpmath.mpf:
        e = mpmath.mpf(eps)
        if mpmath.exp(-e) <= 1 - q:  # no x has a loss above eps
            return mpmath.mpf(0)
        edge = (
            1 + 2 * s**2 * mpmath.log((mpmath.exp(-e) - (1 - q)) / q)
        ) / 2  # loss > eps exactly for x < edge

        def integrand(x):
            loss = -mpmath.log(1 - q + q * mpmath.exp((2 * x - 1) / (2 * s**2)))
            return (1 - mpmath.exp(e - loss)) * mpmath.npdf(x, 0, s)

        return mpmath.quad(integrand, [-mpmath.inf, edge - 5 * s, edge])

    pure = -math.log1p(-q)
    reader = tilted_question.TiltedReader((sigma, q, 1.0, 1.0))
    eps = np.array([0.5 * pure, 0.999 * pure, pure * (1 + 1e-12), 2 * pure])
    screen = reader.add_screen(eps, question.FINE_INTERVAL, 1e-10, float(eps[0]))
    exact = [add_delta(float(e)) for e in eps]
    assert exact[1] > 0 and exact[2] == 0 and exact[3] == 0
    assert screen[2] == 0.0 and screen[3] == 0.0
    assert all(float(b) >= float(e) for b, e in zip(screen[:2], exact[:2]))


@pytest.mark.parametrize(
    "point, delta",
    [
        ((0.6, 0.5, 5.0, 1.0), 1e-10),
        ((1.0, 0.01, 1000.0, 1.0), 1e-5),
        ((0.8, 0.3, 20.0, 1.0), 1e-8),
    ],
)
def test_screened_reads_equal_both_directions_read(point, delta):
    """The core's fine read with the add direction screened gives what the maximum over both directions read on the
    fine grid gives, where the screen clears (the add direction then below the remove direction's answer); the delta
    reads' screen never less than the remove direction alone."""
    h = question.FINE_INTERVAL
    start = float(_tilted(point, delta)[1][0])
    screened, grid = tilted_core.fine_upper(point, delta, start, math.inf)
    assert grid == h
    both = []  # each direction's uncut window under the exponent's tilt at start, read alone
    for name in ("remove", "add"):
        _, factor = one_round(point, name, h, delta, optimistic=False)
        lam = _core.pld_refine.exponent_tilt([(factor.upper, int(point[2]))], eps=start)
        side = composed([(factor.upper, int(point[2]))], lam, True)
        both.append(tilted.upper_epsilon(side, delta, min(start, side.top)))
    assert screened == pytest.approx(max(both), rel=1e-9)
    eps = np.linspace(0.5, 1.5, 5) * screened
    deltas = tilted_question.TiltedReader(point).core.delta_upper(
        eps=eps, interval=h, centre=screened, level=delta
    )
    remove = pessimistic_deltas(point, "remove", eps, h, screened, delta)
    add = pessimistic_deltas(point, "add", eps, h, screened, delta)
    assert np.all(deltas >= remove) and np.all(deltas <= np.maximum(remove, add))


@pytest.mark.parametrize(
    "point, delta, eps",
    [
        ((1.1, 256 / 60000, 14100.0, 1.0), 1e-10, 3.741),  # the README's DP-SGD run
        ((1.0, 1e-3, 5000.0, 1.0), 1e-10, 0.713),  # DP-FedAvg
        ((1.0, 0.01, 1000.0, 1.0), 1e-10, 3.29),
    ],
)
def test_the_add_screen_is_tilted_at_its_centre_with_the_tails_of_its_delta(point, delta, eps):
    """The screen reads the add direction on a coarser grid under the exponent's tilt at the centre
    it is given, its tails sized for the delta given: at the certified upper epsilon of delta it is
    at least the add direction's certified lower delta (the optimistic PMFs' tilted read on the fine
    grid, a bound of the other side) and within 1.5 times the fine grid's upper read (tilted at eps
    with delta's tails), where a tilt at delta as an epsilon with tails for eps as a delta read 4.7
    times it on the README run and 10^7 times on the others."""
    h = question.FINE_INTERVAL
    at = np.array([eps])
    screen = tilted_question.TiltedReader(point).add_screen(at, h, delta, eps)[0]
    fine = pessimistic_deltas(point, "add", at, h, eps, delta)[0]
    _, factor = one_round(point, "add", h, delta)
    terms = [(p, c) for p, c in factor.lower_terms(int(point[2])) if p is not None and c > 0]
    lam = _core.pld_refine.exponent_tilt([(terms[0][0], int(point[2]))], eps=eps)
    lower = tilted.compose_tilted(terms, lam * h, pessimistic=False).deltas(at)[0]
    assert 0.0 < lower <= screen <= 1.5 * fine


def test_add_pure_epsilon_is_the_sum_of_each_factors_bound_rounded_up():
    """sum_i c_i log(1 / (1 - q_i)) against mpmath at 50 digits: at least it, by at most a few ulps
    (the core's multi-rate add_pure_epsilon, pld/refine/tilted_factors.hpp, whatever each sigma)."""
    rates = [(0.5, 3), (0.3, 4), (1e-3, 5000)]
    mpmath.mp.dps = 50
    exact = mpmath.fsum(mpmath.mpf(c) * -mpmath.log1p(-mpmath.mpf(q)) for q, c in rates)
    reader = _core.pld_refine.TiltedFactorsReader(
        [(sigma, q, c, 1.0) for sigma, (q, c) in zip((0.5, 1.0, 3.0), rates)], max_cells=1 << 20
    )
    assert exact <= reader.pure_add_epsilon <= exact * (1 + 1e-14)
