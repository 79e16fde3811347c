"""Why an adaptive ledger never answers a PLD composition: a two-round run whose second round, a
Poisson-subsampled Gaussian or a Gaussian, is chosen from the first round's output.  Composing the PLDs of
the rounds that happened (the natural filter) certifies (2, 0.12) on either path, yet the adaptive run's
delta(2) is 0.153 (arXiv 2602.06756; arXiv 2602.15815: the natural filter is free only for totally ordered
families).  The ledger refuses the composition and its filter refuses the round.  For a totally ordered family
(Gaussians of two noise levels) the same adaptivity gains nothing, as the GDP filter's exactness says.

The adaptive run's delta is computed independently: the hockey-stick divergence of the second round's pair
at the threshold the first round's loss leaves, in closed form (the loss of either pair is monotone in the
output), integrated over the first round's output by scipy's quad."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from hockeystick.ledger import BudgetExceeded, PrivacyLedger, Round
from hockeystick.numerics.certified_theta import theta_upper
from hockeystick.pld import PLDAccountant

EPSILON, BUDGET_DELTA = 2.0, 0.12


def gaussian_excess(x: float, sigma: float) -> float:
    """E_P[(1 - e^{x - L})_+] for P = N(1, sigma^2), Q = N(0, sigma^2), any real x."""
    y = sigma * sigma * x + 0.5  # P > e^x Q above y
    return float(stats.norm.sf((y - 1) / sigma) - math.exp(x) * stats.norm.sf(y / sigma))


def subsampled_excess(x: float, sigma: float, q: float) -> float:
    """The same for P = (1 - q) N(0, sigma^2) + q N(1, sigma^2), Q = N(0, sigma^2) (removal)."""
    if math.exp(x) <= 1 - q:
        return 1 - math.exp(x)
    y = sigma * sigma * math.log((math.exp(x) - (1 - q)) / q) + 0.5
    sf0, sf1 = stats.norm.sf(y / sigma), stats.norm.sf((y - 1) / sigma)
    return float((1 - q) * sf0 + q * sf1 - math.exp(x) * sf0)


def adaptive_delta(second) -> float:
    """delta(EPSILON) of round 1 = Gaussian(1) then ``second(x)``'s excess at the threshold x it leaves."""

    def integrand(y: float) -> float:
        loss = (2 * y - 1) / 2  # round 1's privacy loss at output y (sigma 1)
        return float(stats.norm.pdf(y, 1.0, 1.0)) * second(EPSILON - loss)

    return float(integrate.quad(integrand, -11, 13, limit=200, points=[1.0])[0])


def test_the_natural_pld_filter_is_invalid_for_subsampled_rounds_and_the_ledger_does_not_certify_it():
    heavy = Round.subsampled_gaussian(0.2, 0.1)

    # each path's realized composition, certified: within (2, 0.12)
    path_gaussian = float(theta_upper(math.sqrt(2.0), EPSILON))
    path_subsampled = (
        PLDAccountant(value_discretization_interval=1e-3)
        .compose_subsampled_gaussian(1.0, 1.0)
        .compose_subsampled_gaussian(0.2, 0.1)
        .delta(EPSILON)
    )
    assert max(path_gaussian, path_subsampled) <= BUDGET_DELTA

    # the adaptive run picks, for each first output, the second round with the larger excess there
    truth = adaptive_delta(lambda x: max(gaussian_excess(x, 1.0), subsampled_excess(x, 0.2, 0.1)))
    assert truth > 0.15 > BUDGET_DELTA  # the natural filter's (2, 0.12) is false for this run

    ledger = PrivacyLedger(
        adaptive=True, epsilon=EPSILON, delta=BUDGET_DELTA, orders=[2]
    )  # one order: no union
    ledger.record(Round.gaussian(1.0))
    with pytest.raises(ValueError, match="not a valid guarantee"):
        ledger.composition(BUDGET_DELTA)
    assert ledger.would_exceed(heavy)
    with pytest.raises(BudgetExceeded):
        ledger.record(heavy)
    assert ledger.guarantee().kind == "filter"

    unbudgeted = PrivacyLedger(
        adaptive=True
    )  # no budget: it records, and answers only the odometer
    unbudgeted.record(Round.gaussian(1.0))
    unbudgeted.record(heavy)
    odometer = unbudgeted.guarantee(BUDGET_DELTA)
    assert odometer.kind == "odometer"
    exact_at_odometer = adaptive_delta(
        lambda x: max(
            gaussian_excess(x + odometer.epsilon - EPSILON, 1.0),
            subsampled_excess(x + odometer.epsilon - EPSILON, 0.2, 0.1),
        )
    )
    assert exact_at_odometer <= BUDGET_DELTA


def test_for_gaussians_alone_adaptivity_gains_nothing_over_the_worse_path():
    # a totally ordered family: the noisier round is dominated at every threshold, so the choice cannot help
    xs = np.linspace(-6.0, 8.0, 57)
    assert all(gaussian_excess(x, 0.8) >= gaussian_excess(x, 1.3) for x in xs)
    truth = adaptive_delta(lambda x: max(gaussian_excess(x, 0.8), gaussian_excess(x, 1.3)))
    worse_path = float(theta_upper(math.sqrt(1.0 + 1 / 0.8**2), EPSILON))
    assert truth <= worse_path
