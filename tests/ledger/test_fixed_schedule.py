"""A schedule fixed before the run: the ledger's bracket is the batch PLD accountant's for the same rounds, the
exact Gaussian composition (sqrt(sum mu^2)-GDP) lies inside it, and a budget halts at the round the certified
upper epsilon would pass it."""

from __future__ import annotations

import math

import pytest
from scipy import optimize, stats

from hockeystick.ledger import BudgetExceeded, PrivacyLedger, Round
from hockeystick.pld import PLDAccountant

H = 1e-3  # a coarse grid keeps these tests cheap; every bound stays certified


def gdp_epsilon(mu: float, delta: float) -> float:
    """eps at delta of mu-GDP, by root finding on the closed form (Dong, Roth & Su 2022) with scipy."""

    def excess(e: float) -> float:
        return float(
            stats.norm.cdf(-e / mu + mu / 2)
            - math.exp(e) * stats.norm.cdf(-e / mu - mu / 2)
            - delta
        )

    return float(optimize.brentq(excess, 0.0, 50.0, xtol=1e-13))


def test_fixed_schedule_bracket_is_the_batch_accountants_and_holds_the_exact_gaussian():
    ledger = PrivacyLedger(adaptive=False, value_discretization_interval=H)
    batch = PLDAccountant(value_discretization_interval=H)
    for sigma, q, rounds in [(1.1, 0.02, 40), (0.9, 0.05, 20), (1.1, 0.02, 40)]:
        for _ in range(rounds):
            ledger.record(Round.subsampled_gaussian(sigma, q))
        batch.compose_subsampled_gaussian(sigma, q, rounds)
    g = ledger.composition(1e-5)
    lower, upper = batch.epsilon(1e-5, bound="both")
    assert (g.kind, g.method, g.rounds) == ("certified composition", "pld", 100)
    assert g.epsilon_lower == pytest.approx(lower, rel=1e-9) and g.epsilon == pytest.approx(
        upper, rel=1e-9
    )
    assert g.epsilon_lower <= g.epsilon

    gaussians = PrivacyLedger(adaptive=False, value_discretization_interval=H)
    sigmas = [2.0, 3.0, 2.5, 4.0, 2.0]
    for sigma in sigmas:
        gaussians.record(Round.gaussian(sigma))
    exact = gdp_epsilon(math.sqrt(sum(1 / s**2 for s in sigmas)), 1e-5)
    bracket = gaussians.composition(1e-5)
    assert bracket.epsilon_lower <= exact <= bracket.epsilon


def test_a_fixed_schedule_halts_where_the_certified_epsilon_would_pass_the_budget():
    epsilon, delta = 2.0, 1e-5
    ledger = PrivacyLedger(
        adaptive=False, epsilon=epsilon, delta=delta, value_discretization_interval=H
    )
    with pytest.raises(BudgetExceeded, match="certified epsilon"):
        for _ in range(1000):
            ledger.record(Round.gaussian(3.0))
    t = ledger.rounds
    exact_now, exact_next = (
        gdp_epsilon(math.sqrt(t) / 3.0, delta),
        gdp_epsilon(math.sqrt(t + 1) / 3.0, delta),
    )
    assert (
        exact_now <= ledger.composition().epsilon <= epsilon < exact_next
    )  # kept it; the next round passes it
    assert (
        ledger.odometer(delta).epsilon >= exact_now
    )  # the odometer holds for a fixed schedule too


def test_the_brackets_along_the_run_are_the_checkpoints_own():
    ledger = PrivacyLedger(adaptive=False, value_discretization_interval=H)
    schedule = [
        (Round.subsampled_gaussian(1.1, 0.02), 30),
        (Round.gaussian(8.0), 10),
        (Round.subsampled_gaussian(0.9, 0.05), 20),
    ]
    for one, n in schedule:
        ledger.record(one, n)
    curve = ledger.composition_curve(1e-5, steps=[30, 45, 60])
    for t, lower, upper in zip(curve.steps, curve.lower, curve.upper, strict=True):
        prefix = PrivacyLedger(adaptive=False, value_discretization_interval=H)
        left = int(t)
        for one, n in schedule:
            if left > 0:
                prefix.record(one, min(n, left))
                left -= n
        own = prefix.composition(1e-5)
        assert (lower, upper) == pytest.approx((own.epsilon_lower, own.epsilon), rel=1e-6)
    with pytest.raises(ValueError, match="not a valid guarantee"):
        PrivacyLedger(adaptive=True).composition_curve(1e-5)
