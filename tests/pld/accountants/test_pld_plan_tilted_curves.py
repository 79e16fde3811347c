"""An inner plan's curve read under exponential tilts (``pld.accountants.plan_tilted_curves``): ten Poisson-subsampled
Gaussian steps, whose plain curve the composition's round-off floors near 5e-13, against ``SubsampledGaussianPLD``'s
own bracket of the same steps (another discretization, read by its own tilted reader): the sides overlap it, are
never looser than the plain ones, and the upper side is within 10 % of it where the plain one is many times above
it."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import PlanProfile
from hockeystick.pld.accountants.plan_tilted_curves import tilted_sides
from hockeystick.pld.mechanisms.constructors import PoissonGaussian

H = 1e-3
EPS = np.array([5.0, 6.0, 7.0, 8.0, 9.0])


@pytest.fixture(scope="module")
def sides():
    profile = PlanProfile(CompositionPlan({PoissonGaussian(1.0, 0.1).spec(): 10}), H, None)
    plain = (profile.curves(H, True)[0], profile.curves(H, False)[0])
    direction = (
        PoissonGaussian(1.0, 0.1).grid_pld(H).self_compose(10).directions[0]
    )  # the profile's composition
    return plain, tilted_sides(direction, plain, profile.top_loss(H))


def test_tilted_sides_overlap_an_independent_bracket_and_are_never_looser(sides) -> None:
    (plain_up, plain_lo), (up, lo) = sides
    ref_lo, ref_up = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.1, rounds=10).delta(
        EPS, bound="both"
    )
    upper, lower = up(EPS), lo(EPS)
    assert np.all(lower <= ref_up) and np.all(ref_lo <= upper) and np.all(lower <= upper)
    assert np.all(upper <= plain_up(EPS)) and np.all(lower >= plain_lo(EPS))
    # tight where the plain read is floored (10 times the reference and more at eps 8): within 10 % of the
    # reference's upper side at eps 7 and 8 (at 9 the steps' own mass at +infinity, 10 x 5e-17, is the floor)
    assert np.all(upper[2:4] <= 1.1 * ref_up[2:4]) and plain_up(EPS[3:4])[0] > 10.0 * ref_up[3]


def test_tilted_sides_are_non_increasing_between_and_beyond_the_reads(sides) -> None:
    _, (up, lo) = sides
    x = np.linspace(4.0, 60.0, 20001)
    assert np.all(np.diff(up(x)) <= 0.0) and np.all(np.diff(lo(x)) <= 0.0)


def test_tilted_sides_refuse_a_top_that_is_no_loss(sides) -> None:
    (plain_up, plain_lo), _ = sides
    with pytest.raises(ValueError, match="top must be a finite number > 0"):
        tilted_sides({}, (plain_up, plain_lo), float("nan"))
