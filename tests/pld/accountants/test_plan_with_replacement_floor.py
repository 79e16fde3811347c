"""The with-replacement Gaussian's window floor (``WithReplacementGaussian.top_loss_floor``, counted by
pld/accountants/plan.py's ``window_points_floor``) against the windows its builds take: a floor above
a build's window would send a plan the default grid holds to the accuracy-driven grid unbuilt."""

from __future__ import annotations

import pytest

from hockeystick.pld.accountants import plan as plan_module
from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import PlanProfile, summed_window_points
from hockeystick.pld.sampling.with_replacement_shift_bound import WithReplacementGaussian


@pytest.mark.parametrize(
    ("sigma", "k", "n", "count", "h"),
    [
        (1.0, 10, 2, 1, 5e-2),  # the adapter's WR(2, 10, Gaussian(1)): ten copies, loss reach ~364
        (1.0, 2, 10, 3, 1e-3),  # two copies at most, three rounds
        (0.5, 3, 5, 1, 1e-2),
        (1.0, 1, 1000, 1, 1e-3),  # one draw: the Poisson-remove pair of rate 1/n alone
        (1.0, 3, 1, 2, 1e-2),  # n = 1: only c = K has weight
        (2.0, 40, 3, 1, 0.5),  # many copies: the count taken one below the core's c_max
        (10.0, 2, 2, 1, 1e-3),  # a short reach: the relative margins matter most
    ],
)
def test_the_floor_is_at_most_the_builds_window(sigma, k, n, count, h):
    """The floor lies below the summed windows the factor's build takes on grid h, and within 5 % of
    them (the top loss the core integrates to, mirrored; the count taken is at most one below the
    core's c_max)."""
    plan = CompositionPlan({WithReplacementGaussian(sigma, k, n).spec(): count})
    profile = PlanProfile(plan, h, None)
    floor = plan_module.window_points_floor(profile, h)
    bound = summed_window_points(profile, h)
    assert bound is not None and 0.95 * bound <= floor <= bound
