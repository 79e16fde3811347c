"""The distributed discrete Laplace with dropout: GDL's masses against Lekshmi & Sebastian's closed form and a
simulation of the clients' negative-binomial shares, Harrison's Theorem 1 against the exact largest loss, the
many-coordinate bound against every small integer shift, Harrison & Manurangsi's published parametrization, and
the accountant's two sides against their pairs' exact divergences."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from hockeystick.secagg import DistributedDiscreteLaplace, calibrate_distributed_discrete_laplace
from hockeystick.secagg.distributed_discrete_laplace import (
    gdl_masses,
    harrison_epsilon,
    pure_epsilon,
)

mpmath.mp.dps = 50


def _gdl_exact(beta: float, a: float, x: int) -> mpmath.mpf:
    """GDL(beta, a)'s mass at x (Lekshmi & Sebastian 2014, eq. 2.5, as Harrison 2024 quotes it), by mpmath."""
    b, k = mpmath.mpf(beta), abs(x)
    z = mpmath.exp(-2 * mpmath.mpf(a))
    return (
        mpmath.exp(-a * k)
        * (-mpmath.expm1(-mpmath.mpf(a))) ** (2 * b)
        * mpmath.hyp2f1(b, b + k, k + 1, z)
        * mpmath.gamma(b + k)
        / (mpmath.gamma(k + 1) * mpmath.gamma(b))
    )


@pytest.mark.parametrize(("beta", "a"), [(0.3, 0.5), (1.0, 0.2), (0.05, 0.1), (2.5, 1.0)])
def test_gdl_masses_are_the_closed_form_within_their_errors(beta, a):
    x0, masses, errors, outside = gdl_masses(beta, a)
    for x in (0, 1, 2, 5, 17, 60):
        exact = _gdl_exact(beta, a, x)
        assert abs(masses[x - x0] / exact - 1) <= errors[x - x0]
        assert masses[x - x0] == masses[-x - x0]  # symmetric
    assert _gdl_exact(beta, a, -x0 + 1) <= outside  # beyond the window


def test_the_full_noise_is_the_discrete_laplace():
    x0, masses, _, _ = gdl_masses(1.0, 0.3)
    x = np.arange(x0, x0 + masses.size)
    inside = np.abs(x) < 200
    closed = math.tanh(0.15) * np.exp(-0.3 * np.abs(x[inside]))
    assert np.max(np.abs(masses[inside] / closed - 1)) < 1e-12


def test_clients_negative_binomial_shares_sum_to_the_gdl():
    # E = 10 shares make the full noise; 7 survive: GDL(0.7, a), simulated from the shares themselves
    rng = np.random.default_rng(96)
    expected, survivors, a, draws = 10, 7, 0.25, 300_000
    p = -math.expm1(-a)
    total = np.zeros(draws, dtype=np.int64)
    for _ in range(survivors):
        total += rng.negative_binomial(1.0 / expected, p, draws) - rng.negative_binomial(
            1.0 / expected, p, draws
        )
    x0, masses, _, _ = gdl_masses(survivors / expected, a)
    counts = np.bincount(total - x0, minlength=masses.size)[: masses.size]
    want = masses * draws
    big = want > 50
    z = (counts[big] - want[big]) / np.sqrt(want[big])
    assert float(np.abs(z).max()) < 5.5


@pytest.mark.parametrize(
    ("beta", "a", "shift"),
    [(0.5, 0.5, 1), (0.3, 0.2, 3), (0.8, 1.0, 2), (0.1, 0.05, 5), (0.95, 0.02, 4)],
)
def test_theorem_1_is_the_largest_privacy_loss(beta, a, shift):
    # the exact loss log P(X = y - Delta) / P(X = y) over y in a window wide enough for its maximum, by mpmath
    masses = {y: _gdl_exact(beta, a, y) for y in range(-3 * shift - 5, 3 * shift + 6)}
    largest = max(
        mpmath.log(masses[y - shift] / masses[y]) for y in range(-2 * shift - 5, 3 * shift + 6)
    )
    value = harrison_epsilon(beta, a, shift)
    assert largest <= value <= largest * (1 + 1e-12) + 1e-15
    # the bound without its 2F1 factor (at most 1 for beta <= 1) is above it
    without = a * shift + math.lgamma(shift + 1) + math.lgamma(beta) - math.lgamma(beta + shift)
    assert value <= without + 1e-12


@pytest.mark.parametrize(
    ("beta", "a", "l1", "l2", "d"),
    [(0.4, 0.3, 3.0, 2.0, 3), (0.2, 0.1, 4.0, 2.5, 2), (0.7, 0.5, 2.0, 2.0, 1)],
)
def test_many_coordinates_bound_every_integer_shift_within_the_norms(beta, a, l1, l2, d):
    bound = pure_epsilon(beta, a, l1, l2, d)
    masses = {y: _gdl_exact(beta, a, y) for y in range(-12, 13)}

    def largest_loss(s: int) -> mpmath.mpf:
        if s == 0:
            return mpmath.mpf(0)
        return max(mpmath.log(masses[y - s] / masses[y]) for y in range(-12 + abs(s), 13 - abs(s)))

    worst = mpmath.mpf(0)
    r = int(l1)
    for shift in itertools.product(range(-r, r + 1), repeat=d):
        if sum(map(abs, shift)) <= l1 and sum(s * s for s in shift) <= l2 * l2:
            worst = max(worst, mpmath.fsum(largest_loss(s) for s in shift))
    assert worst <= bound
    assert bound <= 1.5 * float(
        worst
    )  # not far above: the steps' sum is Theorem 1's bound without its 2F1


@pytest.mark.parametrize("sensitivity", [1, 2, 5, 10])
@pytest.mark.parametrize("margin", [0.5, 2.0, 4.0])
def test_harrison_manurangsi_parametrization_is_private(sensitivity, margin):
    # Harrison & Manurangsi 2025, Sec. 3: beta = Delta e^{2 - eps}, a = 2 / Delta is eps-DP for eps > 2 + log Delta
    eps = 2.0 + math.log(sensitivity) + margin
    assert (
        harrison_epsilon(sensitivity * math.exp(2.0 - eps), 2.0 / sensitivity, sensitivity) <= eps
    )


def _accountant(**extra) -> DistributedDiscreteLaplace:
    run = dict(
        clip_norm=1.0,
        granularity=0.25,
        dimension=1,
        scale=2.0,
        expected_clients=10,
        min_surviving_clients=6,
    )
    return DistributedDiscreteLaplace(**{**run, **extra})


def test_one_round_is_below_randomized_response_above_every_shift_and_the_exact_shift_below():
    acc = _accountant()
    eps0 = acc.round_epsilon  # shift <= 4 + 1 on one coordinate: Theorem 1
    assert eps0 == pytest.approx(
        max(harrison_epsilon(0.6, 0.125, k) for k in range(1, 6)), rel=1e-14
    )
    # the noise GDL(0.6, 1/8) exactly (mpmath) on |x| <= 320: what lies beyond is below 1e-17
    exact_masses = {x: _gdl_exact(0.6, 0.125, x) for x in range(-320, 321)}
    x0, masses, _, _ = gdl_masses(0.6, 0.125)
    shift = acc.sensitivity.realizable_shift
    assert shift == 4
    for e in (0.0, 0.3, 0.8):
        rr = (math.exp(eps0) - math.exp(e)) / (1 + math.exp(eps0))
        gamma = mpmath.exp(e)
        # every shift 1 .. 5 (both directions alike: the noise is symmetric), exactly
        worst = max(
            mpmath.fsum(
                max(exact_masses[y - s] - gamma * exact_masses[y], 0) for y in range(-320 + s, 321)
            )
            for s in range(1, 6)
        )
        low, high = acc.delta(e, bound="both")
        # above: the envelope of the shifts' profiles, at or above each, below randomized response
        assert float(worst) <= high <= min(rr, float(worst) + 1e-3)
        exact = math.fsum(
            max(masses[i] - math.exp(e) * masses[i + shift], 0.0)
            for i in range(masses.size - shift)
        )
        assert low <= exact + 1e-12 and exact <= low + 1e-3


def test_the_full_noise_on_one_coordinate_is_bounded_by_its_largest_shift():
    # n = E: the discrete Laplace, log-concave; the largest shift floor(min(Delta_1, Delta_2)) = 5 dominates
    acc = _accountant(min_surviving_clients=10, rounds=3)
    a, k = acc.decay, 5
    assert math.floor(min(acc.sensitivity.l1, acc.sensitivity.l2)) == k
    # the pair's privacy loss a (|y| - |y - k|) is a j, j in -k .. k: its P-law composed 3 times, exactly
    y = np.arange(-2000, 2001)
    law = math.tanh(a / 2) * np.exp(-a * np.abs(y - k))  # P = DLap + k
    steps = np.abs(y) - np.abs(y - k)
    one = np.bincount(steps + k, weights=law, minlength=2 * k + 1)
    three = np.convolve(np.convolve(one, one), one)  # loss a j, j = -3k .. 3k
    j = np.arange(-3 * k, 3 * k + 1)
    rr = acc.round_epsilon  # the pure bound's composition alone is looser
    for e in (0.5, 1.0, 2.0):
        exact = math.fsum((three * np.maximum(0.0, 1.0 - np.exp(e - a * j))).tolist())
        high = acc.delta(e)
        assert exact <= high <= exact + 2e-3
        assert high <= _rr_composed(rr, 3, e) + 1e-12


def _rr_composed(eps0: float, rounds: int, e: float) -> float:
    """delta(e) of randomized response at eps0 composed ``rounds`` times (Kairouz, Oh & Viswanath 2015, Thm. 3.3)."""
    total = 0.0
    for i in range(rounds + 1):  # i rounds of loss -eps0, rounds - i of +eps0
        loss = (rounds - 2 * i) * eps0
        weight = (
            math.comb(rounds, i) * math.exp((rounds - i) * eps0) / (1 + math.exp(eps0)) ** rounds
        )
        total += weight * max(0.0, 1 - math.exp(e - loss))
    return total


def test_the_bracket_over_rounds_is_ordered_and_falls_with_the_scale():
    previous = math.inf
    for scale in (1.0, 2.0, 4.0):
        low, high = _accountant(scale=scale, rounds=20).epsilon(1e-6, bound="both")
        assert 0.0 < low <= high < previous
        previous = high
    # fewer survivors: less noise, a larger eps
    assert _accountant(min_surviving_clients=3, rounds=20).epsilon(1e-6) > _accountant(
        rounds=20
    ).epsilon(1e-6)


def test_against_an_observer():
    acc = _accountant(rounds=10, sampling_rate=0.1)
    server, observer = (
        acc.epsilon(1e-6, bound="both"),
        acc.epsilon(1e-6, bound="both", against="observer"),
    )
    assert observer[0] <= observer[1] < server[1]
    assert server == _accountant(rounds=10).epsilon(1e-6, bound="both")


def test_calibration_meets_the_target():
    run = dict(
        clip_norm=1.0,
        granularity=0.25,
        dimension=1,
        expected_clients=10,
        min_surviving_clients=6,
        rounds=2,
    )
    cal = calibrate_distributed_discrete_laplace(epsilon=3.0, delta=1e-6, **run)
    assert cal.epsilon <= 3.0
    assert DistributedDiscreteLaplace(scale=cal.scale * 0.99, **run).epsilon(1e-6) > 3.0


def test_a_decay_too_small_for_the_lattice_is_refused_below_and_answered_above():
    acc = _accountant(scale=1000.0)
    assert acc.epsilon(1e-6) > 0.0
    with pytest.raises(ValueError, match="bound=.upper."):
        acc.epsilon(1e-6, bound="lower")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (dict(scale=0.0), "scale"),
        (dict(expected_clients=0), "expected_clients"),
        (dict(sampling_rate=2.0), "sampling_rate"),
    ],
)
def test_bad_arguments_are_refused_by_name(extra, message):
    with pytest.raises(ValueError, match=message):
        _accountant(**extra)


def test_a_target_past_every_grid_calibrates_to_the_decay_limit_on_the_pure_bound():
    """Past the grid's widest pure eps the upper side is the run's pure bound T eps_0 (basic composition):
    finite, at least the lower side, and the least scale the accountant takes is the answer."""
    run = dict(
        clip_norm=1.0,
        granularity=0.1,
        dimension=1,
        expected_clients=10,
        min_surviving_clients=8,
        rounds=10,
    )
    cal = calibrate_distributed_discrete_laplace(epsilon=1e308, delta=1e-6, **run)
    assert cal.scale == pytest.approx(0.1 / 700.0, rel=1e-15) and 0.1 / cal.scale <= 700.0
    acc = DistributedDiscreteLaplace(scale=cal.scale, **run)
    lower, upper = acc.epsilon(1e-6, bound="both")
    pure_run = 10 * acc.round_epsilon
    assert upper == cal.epsilon and math.isfinite(upper)
    assert pure_run <= upper <= pure_run * (1.0 + 1e-15)
    assert 0.0 < lower <= upper
    assert acc.delta(upper, bound="upper") <= 1e-300  # (T eps_0, 0)-DP: no delta at the pure bound


@pytest.mark.parametrize("scale", [0.5, 5.0, 0.0012])
def test_the_upper_side_never_exceeds_the_runs_pure_bound(scale):
    run = dict(
        clip_norm=1.0,
        granularity=0.1,
        dimension=1,
        expected_clients=10,
        min_surviving_clients=8,
        rounds=10,
    )
    acc = DistributedDiscreteLaplace(scale=scale, **run)
    lower, upper = acc.epsilon(np.array([1e-9, 1e-3, 0.5]), bound="both")
    assert np.all(upper <= 10 * acc.round_epsilon * (1.0 + 1e-15))
    assert np.all(lower <= upper)
