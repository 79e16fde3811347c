"""The mixture of Gaussians' window floor (``GaussianMixture.loss_span_floor``, counted by
pld/accountants/plan.py's ``window_points_floor``) against the windows its builds take: a floor above a
build's window would send a plan the default grid holds to the accuracy-driven grid unbuilt.  A floor past the
cap skips the build and leaves the choice the builds make: test_plan_default_grid.py, beside the exponential
mechanism's."""

from __future__ import annotations

import pytest

from hockeystick.pld.accountants import plan as plan_module
from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import (
    PlanProfile,
    summed_window_points,
)
from hockeystick.pld.mechanisms.gaussian_mixture import GaussianMixture

# The event-tree fuzz's seed-2 mixtures (tests/interop/test_interop_event_tree_fuzz.py): the second,
# seven times, takes ~25 M points on the default grid against the cap's ~1 M
SEED_2 = (
    GaussianMixture(
        4.755423441760443,
        (1.2683540198103835, 1.8995531978223492, 2.9023078574810297, 2.049194466928876),
        (0.1539072877525225, 0.17506795427033517, 0.5624835161004226, 0.1085412418767198),
    ),
    GaussianMixture(
        0.187320971918611,
        (2.7726506895204723, 1.4127296562472726),
        (0.2527305426004156, 0.7472694573995845),
    ),
)


@pytest.mark.parametrize(
    ("mixture", "count", "h", "share"),
    [
        (SEED_2[1], 7, 2e-2, 0.6),  # the fuzz's narrow mixture on a coarse grid
        (SEED_2[0], 1, 1e-3, 0.4),
        (GaussianMixture(1.0, (1.0,), (1.0,)), 2, 1e-3, 0.5),  # the Gaussian mechanism
        (GaussianMixture(0.3, (0.0, 0.5, 2.0), (0.5, 0.3, 0.2)), 3, 1e-2, 0.4),
        # a heavy zero shift (Poisson-subsampled, q = 0.1 and 0.001): the loss near x_lo + 2 sigma is
        # ~log w_0, most of the window lies between s + 2 sigma and x_hi, uncounted
        (GaussianMixture(0.7, (0.0, 1.0), (0.9, 0.1)), 1, 1e-3, 0.15),
        (GaussianMixture(2.5, (0.02, 2.9), (0.999, 0.001)), 1, 3e-3, 0.02),
    ],
)
def test_the_floor_is_at_most_the_builds_window(mixture, count, h, share):
    """The floor lies below the summed windows the factor's build takes on grid h, and above
    ``share`` of them (the losses from x_lo + 2 sigma to the largest shift + 2 sigma)."""
    profile = PlanProfile(CompositionPlan({mixture.spec(): count}), h, None)
    floor = plan_module.window_points_floor(profile, h)
    bound = summed_window_points(profile, h)
    assert bound is not None and share * bound <= floor <= bound


def test_the_floor_is_0_where_the_loss_barely_moves():
    """A shift of weight 1e-6 moves the loss by ~1e-6 below c = s + 2 sigma: no span is counted."""
    mixture = GaussianMixture(1.0, (0.0, 1.0), (1.0 - 1e-6, 1e-6))
    assert mixture.loss_span_floor(1e-3) == 0.0


def test_the_fuzz_mixtures_are_past_the_cap_unbuilt():
    """Seed 2's plan: the floor alone is past the default grid's cap, so its factors are not built
    there."""
    plan = CompositionPlan({SEED_2[0].spec(): 1, SEED_2[1].spec(): 7})
    h = plan_module.default_interval(plan)
    floor = plan_module.window_points_floor(PlanProfile(plan, h, None), h)
    assert floor > 10 * plan_module.DEFAULT_GRID_POINTS
