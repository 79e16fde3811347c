"""Epsilon of a grid part beside a Gaussian from a few reads near an estimate
(pld/accountants/plan_beside_root.py): each side's certificate (the certified side itself at the
answer), the estimate's accuracy against the exact sum, agreement with the search from [0, top], and
the gate that now reads a Poisson-subsampled Gaussian's grid beside a wide Gaussian."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as E  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.interop.dp_accounting.dp_events import plan_for  # noqa: E402
from hockeystick.interop.dp_accounting.pld_accountant import NeighboringRelation  # noqa: E402
from hockeystick.pld.accountants import plan as plan_module  # noqa: E402
from hockeystick.pld.accountants import plan_charge  # noqa: E402
from hockeystick.pld.accountants import plan_gaussian_beside as beside  # noqa: E402
from hockeystick.pld.accountants.composition_plan import CompositionPlan  # noqa: E402
from hockeystick.pld.accountants.plan_beside_root import (  # noqa: E402
    blocked_estimate,
    epsilon_near,
)
from hockeystick.pld.accountants.plan_gaussian_beside import (  # noqa: E402
    composed_points,
    grid_beside_gaussian,
)
from hockeystick.pld.accountants.plan_sides import gaussian_side  # noqa: E402
from hockeystick.pld.grid.distribution import PrivacyLossDistribution  # noqa: E402
from hockeystick.pld.mechanisms.registry import mechanism_of  # noqa: E402

mp.mp.dps = 40

# 23 rounds of a Laplace beside 23 Gaussians: a grid part of ~39 000 points, read by the estimate
LAPLACE_BESIDE = E.SelfComposedDpEvent(
    E.ComposedDpEvent([E.LaplaceDpEvent(11.87053775863965), E.GaussianDpEvent(3.80852040708817)]),
    23,
)
# 14 rounds of a Gaussian beside a Poisson-subsampled Gaussian: the sampled grid beside a wide Gaussian
SAMPLED_BESIDE = E.SelfComposedDpEvent(
    E.ComposedDpEvent(
        [
            E.GaussianDpEvent(0.803746490641903),
            E.PoissonSampledDpEvent(0.12278624697907328, E.GaussianDpEvent(2.5642796202367792)),
        ]
    ),
    14,
)


def _gaussian_epsilon(r: float, delta: float) -> float:
    """The Gaussian pair's epsilon at delta, 40 digits (Balle & Wang 2018, Thm. 8)."""
    r, lo, hi = mp.mpf(r), mp.mpf(0), mp.mpf(60)
    for _ in range(120):  # bisection: delta decreases in epsilon
        mid = (lo + hi) / 2
        if mp.ncdf(-mid / r + r / 2) - mp.exp(mid) * mp.ncdf(-mid / r - r / 2) > delta:
            lo = mid
        else:
            hi = mid
    return float(lo)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("offset", [0.0, 1e-6, -3e-4, 0.5])
def test_answer_carries_its_certificate(upper, offset):
    """On the Gaussian's own certified side: the answer's side value is at most delta (upper) or
    above it (lower), within 1e-12 of the 40-digit root, from good and poor estimates alike."""
    r, delta = 1.7, 1e-6

    def side(eps):
        return gaussian_side(r, np.asarray(eps, dtype=np.float64), upper, 1)

    truth = _gaussian_epsilon(r, delta)
    got = epsilon_near(side, delta, upper, 200.0, 1e-13, truth + offset)
    value = float(side(np.array([got]))[0])
    assert (value <= delta) if upper else (value > delta)
    assert abs(got - truth) < 1e-12  # certified theta is within ~1e-15 of the truth


@pytest.mark.parametrize("estimate", [math.nan, -1.0, 0.0, 500.0])
def test_estimate_outside_the_range_falls_back_to_the_search(estimate):
    r, delta = 0.9, 1e-5

    def side(eps):
        return gaussian_side(r, np.asarray(eps, dtype=np.float64), True, 1)

    got = epsilon_near(side, delta, True, 200.0, 1e-12, estimate)
    assert float(side(np.array([got]))[0]) <= delta
    assert abs(got - _gaussian_epsilon(r, delta)) < 1e-11


def _plan(event) -> CompositionPlan:
    return plan_for(event, 1, NeighboringRelation.ADD_OR_REMOVE_ONE)


def _grid_factors(
    plan: CompositionPlan, h: float = 1e-4
) -> list[tuple[PrivacyLossDistribution, int]]:
    """The plan's grid mechanisms on grid h, with their counts (the folded Gaussian apart)."""
    return [(mechanism_of(m).grid_pld(h), c) for m, c in plan.counts.items()]


def _grid_part(plan: CompositionPlan, h: float = 1e-4) -> PrivacyLossDistribution:
    """The plan's grid mechanisms composed on grid h."""
    total = None
    for pld, count in _grid_factors(plan, h):
        step = pld.self_compose(count) if count > 1 else pld
        total = step if total is None else total.compose(step)
    assert total is not None
    return total


@pytest.mark.parametrize("upper", [True, False])
def test_blocked_estimate_follows_the_certified_side(upper):
    """Masses merged 64 at a time with their spread's second-order term: within 1e-9 (relative) of
    the certified side at delta near 1e-6, where the merge alone (spread dropped) errs by more."""
    plan = _plan(LAPLACE_BESIDE)
    r = math.sqrt(plan.gaussian_r2)
    pmfs = _grid_part(plan).composed(upper)
    eps = np.array([5.0, 6.0, 6.7225, 7.5])
    exact = np.max([grid_beside_gaussian(p, r, upper)(eps) for p in pmfs], axis=0)
    rough = blocked_estimate(pmfs, r, upper)(eps)
    assert np.all(np.abs(rough - exact) <= 1e-9 * exact)


def test_reads_near_the_estimate_agree_with_the_full_search(monkeypatch):
    """The same bracket read both ways: each side within 1e-9 of the search from [0, top] (its
    tolerance), and certified by its own side's value."""
    acc = HockeystickPLDAccountant().compose(LAPLACE_BESIDE)
    near = acc.get_epsilon_bracket(1e-6)
    monkeypatch.setattr(beside, "ESTIMATED_POINTS", 1 << 40)
    full = HockeystickPLDAccountant().compose(LAPLACE_BESIDE).get_epsilon_bracket(1e-6)
    assert abs(near[0] - full[0]) <= 1e-9 and abs(near[1] - full[1]) <= 1e-9
    plan = _plan(LAPLACE_BESIDE)
    radius = plan.gaussian_radius_bounds()
    part = _grid_part(plan, plan_module.default_interval(plan))  # the adapter's default grid
    for upper, answer in ((False, near[0]), (True, near[1])):
        value = max(
            float(grid_beside_gaussian(p, radius[1 if upper else 0], upper)(np.array([answer]))[0])
            for p in part.composed(upper)
        )
        assert (value <= 1e-6) if upper else (value > 1e-6)


def test_composed_points_estimates_the_composed_windows():
    """The estimate from the factors alone against the composition's own windows: within 40 %."""
    for event in (LAPLACE_BESIDE, SAMPLED_BESIDE):
        plan = _plan(event)
        real = sum(p.p.size for p in _grid_part(plan).composed(True))
        factors = _grid_factors(plan)
        assert abs(composed_points(factors, 1e-4) - real) <= 0.4 * real


def test_sampled_gaussian_grid_beside_a_wide_gaussian(monkeypatch):
    """A Poisson-subsampled Gaussian's grid is read beside the folded Gaussian where its composed
    windows are few: the bracket inside the one with the Gaussian on the grid (gate shut, its upper
    side the plain composition's, not read again under a tilt), narrower."""
    beside_bracket = HockeystickPLDAccountant().compose(SAMPLED_BESIDE).get_epsilon_bracket(1e-6)
    monkeypatch.setattr(plan_module, "reads_beside", lambda factors, radius2, h: False)
    monkeypatch.setattr(plan_charge, "CHARGED_EPSILON_SHARE", math.inf)
    on_grid = HockeystickPLDAccountant().compose(SAMPLED_BESIDE).get_epsilon_bracket(1e-6)
    assert on_grid[0] <= beside_bracket[0] <= beside_bracket[1] <= on_grid[1]
    assert beside_bracket[1] - beside_bracket[0] < on_grid[1] - on_grid[0]
