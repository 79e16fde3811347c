"""The filters under adaptive settings: the GDP filter keeps sum mu_t^2 <= mu^2 with mu the budget's exact
radius (mpmath), the Rényi filter halts with some order's exact spent RDP within its exact budget and would
have passed every order's with one more round, and a training loop stops before the budget."""

from __future__ import annotations

import math
import random

import mpmath
import numpy as np
import pytest

from hockeystick.ledger import BudgetExceeded, PrivacyLedger, Round
from hockeystick.rdp import rdp_to_epsilon, subsampled_gaussian_rdp


def gaussian_delta(mu: float, epsilon: float) -> mpmath.mpf:
    """delta(eps) of mu-GDP (Dong, Roth & Su 2022), 50 digits."""
    with mpmath.workdps(50):
        m, e = mpmath.mpf(mu), mpmath.mpf(epsilon)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def test_gdp_filter_halts_an_adaptive_gaussian_run_at_the_budgets_radius():
    epsilon, delta = 1.0, 1e-5
    ledger = PrivacyLedger(adaptive=True, epsilon=epsilon, delta=delta, filter="gdp")
    rng = random.Random(1)
    sigmas: list[float] = []
    with pytest.raises(BudgetExceeded) as stop:
        for _ in range(10_000):
            sigma = rng.choice([4.0, 8.0, 20.0]) if not sigmas or rng.random() < 0.5 else sigmas[-1]
            ledger.record(
                Round.gaussian(sigma)
            )  # raises before recording a round the filter refuses
            sigmas.append(sigma)
    refused = stop.value.next_round.sigma
    spent = math.fsum(1 / s**2 for s in sigmas)
    with mpmath.workdps(50):
        mu = mpmath.findroot(lambda m: gaussian_delta(m, epsilon) - delta, 0.26)
    assert (
        spent <= mu**2 < spent + 1 / refused**2
    )  # kept the budget, and the refused round would pass it
    assert (
        gaussian_delta(math.sqrt(spent), epsilon) <= delta
    )  # the run is sqrt(sum mu^2)-GDP within budget
    g = ledger.guarantee()
    assert (g.kind, g.method, g.epsilon, g.delta, g.rounds) == (
        "filter",
        "gdp",
        epsilon,
        delta,
        len(sigmas),
    )
    with pytest.raises(ValueError, match="unsampled Gaussian"):
        ledger.record(Round.subsampled_gaussian(1.0, 0.1))


def exact_budget(epsilon: float, delta: float, alpha: int, k: int) -> mpmath.mpf:
    with mpmath.workdps(50):
        a = mpmath.mpf(alpha)
        return (
            epsilon
            + (mpmath.log(mpmath.mpf(delta) / k) + mpmath.log(a)) / (a - 1)
            - mpmath.log(1 - 1 / a)
        )


def test_rdp_filter_never_lets_the_spent_rdp_pass_every_budget():
    epsilon, delta, orders = 1.5, 1e-6, (2, 4, 8, 16, 32, 64)
    ledger = PrivacyLedger(adaptive=True, epsilon=epsilon, delta=delta, orders=orders)
    rng = random.Random(7)
    recorded: list[tuple[float, float]] = []
    with pytest.raises(BudgetExceeded) as stop:
        for _ in range(100_000):  # settings chosen from a stand-in for the released outputs
            noisy = rng.gauss(0.0, 1.0)
            sigma, q = (1.5, 0.02) if noisy > 0.5 else (2.0, 0.05) if noisy > -0.5 else (3.0, 0.1)
            ledger.record(Round.subsampled_gaussian(sigma, q))
            recorded.append((sigma, q))
    alpha = np.asarray(orders, dtype=float)
    kinds = {p: recorded.count(p) for p in set(recorded)}
    # the spent RDP by the independent series (rdp/mechanisms.py), counted per setting
    spent = sum(n * subsampled_gaussian_rdp(s, q, alpha) for (s, q), n in kinds.items())
    nxt = stop.value.next_round
    step = subsampled_gaussian_rdp(nxt.sigma, nxt.sampling_rate, alpha)
    budgets = [exact_budget(epsilon, delta, a, len(orders)) for a in orders]
    assert any(spent[i] <= budgets[i] for i in range(len(orders)))  # within budget at some order
    assert all(
        spent[i] + step[i] * (1 + 1e-9) > budgets[i] for i in range(len(orders))
    )  # halted in time
    # the budget at delta / K converts back to epsilon by the repository's tight conversion
    usable = [i for i in range(len(orders)) if budgets[i] > 0]
    at_budget = [rdp_to_epsilon(float(budgets[i]), orders[i], delta / len(orders)) for i in usable]
    assert at_budget == pytest.approx([epsilon] * len(usable), rel=1e-12)
    # the odometer: min_k R(alpha_k) + log(K / delta) / (alpha_k - 1), on the upper side
    odometer = min(
        spent[i] + math.log(len(orders) / delta) / (orders[i] - 1) for i in range(len(orders))
    )
    assert odometer <= ledger.odometer(delta).epsilon <= odometer * (1 + 1e-9)
    assert len(recorded) > 50


def test_a_training_loop_stops_before_the_budget_and_says_so():
    ledger = PrivacyLedger(adaptive=True, epsilon=1.0, delta=1e-5)
    steps = 0
    sigma = 2.0
    while not ledger.should_stop(Round.subsampled_gaussian(sigma, 0.01)):
        ledger.record(Round.subsampled_gaussian(sigma, 0.01))
        steps += 1
        sigma = 2.0 if steps % 2 else 2.5  # the noise alternates, as an adaptive rule might set it
    assert 0 < steps == ledger.rounds
    with pytest.raises(BudgetExceeded, match=f"stopped before round {steps + 1}"):
        ledger.record(Round.subsampled_gaussian(sigma, 0.01))
    assert ledger.rounds == steps  # the refused round was not recorded
    assert (
        ledger.would_exceed(Round.subsampled_gaussian(50.0, 1e-4)) is False
    )  # a smaller round still fits
    with pytest.raises(ValueError, match="budget"):
        PrivacyLedger(adaptive=True).should_stop(Round.gaussian(1.0))


def test_a_gdp_ledger_without_a_budget_still_refuses_rounds_its_sum_would_not_count():
    ledger = PrivacyLedger(adaptive=True, filter="gdp")
    ledger.record(Round.gaussian(10.0))
    with pytest.raises(ValueError, match="unsampled Gaussian"):
        ledger.record(Round.subsampled_gaussian(1.0, 0.1))
    assert ledger.rounds == 1 and not ledger.would_exceed(Round.gaussian(10.0), 1.0, 1e-5)
    assert ledger.would_exceed(Round.gaussian(3.0), 1.0, 1e-5)  # 1/100 + 1/9 > mu^2 = 0.0718
