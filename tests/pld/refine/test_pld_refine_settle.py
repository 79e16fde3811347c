"""The default's fine read beside the default refinement's grid ladder (``Refinement.default_epsilon``'s step 2, the
core's pld/refine/default_refinement.hpp and fine_settle.hpp inside default_epsilon.hpp): a point it settles asks no finer grid and ends with the fine
read of its bracket so far; a point it does not settle goes on as the ladder alone; the default settles the README
run at delta 1e-10 after one grid, within the default tolerance and with the fine read's upper side; the add
direction's upper side the refinement passes on is certified, and skipping the add direction's read on it leaves
the fine read's upper side as it was."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pytest

from hockeystick.pld import subsampled_gaussian
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians
from hockeystick.pld.question import tilted_question
from hockeystick.pld.refine import question
from hockeystick.pld.refine.grid_start import StartGrid, within_window
from hockeystick.pld.refine.near_one import NearOne
from hockeystick.pld.refine.points import Refinement, coarsest_fit, round_off_charge

from . import tilted_core
from .screened_epsilon_reference import epsilon_brackets

README = (1.1, 256 / 60_000, 14_100.0, 1.0)


def refinement(
    accountant: SubsampledGaussianPLD, point: tuple = README, delta: float = 1e-10
) -> Refinement:
    return Refinement(
        question.REFINED_ACCURACY,
        "relative",
        question.question_tail(point[2], delta),
        NearOne(),
        question.REFINED_RELATIVE_ACCURACY,
    )


def first_grid_read(ladder: Refinement, point: tuple, delta: float) -> tuple[float, float, float]:
    """The step read of ``point``'s first grid as the default refinement makes it: the start grid within
    the window, no finer than the coarsest fit, with the direct bins the rule gives the first grid."""
    x = np.array([delta])
    fit = coarsest_fit(point, ladder.tail)
    h = max(within_window(point, ladder.start.first(point, x, "epsilon")), fit)
    charge = round_off_charge(float(x[0]))
    return tilted_core.epsilon_step(
        point, delta, h, ladder.accuracy, ladder.tail, charge, charge is not None
    )


class StepTwo(NamedTuple):
    lower: np.ndarray
    upper: np.ndarray
    settled: bool
    tried: bool
    grids: int


def step_two(accountant: SubsampledGaussianPLD, point: tuple, delta: float) -> StepTwo:
    """Step 2 of the default's epsilon of ``point`` at ``delta`` with no fixed grid's bracket, as the
    core's default read makes it (``tilted_question.default_epsilon`` with the refinement's plan,
    ``Refinement.default_plan``): its bracket, whether the fine read beside the ladder settled it,
    whether that read was made, the grids read."""
    reader = tilted_question.TiltedReader(point, None, 0)
    start = StartGrid(question.DEFAULT_ACCURACY, "relative", question.DEFAULT_RELATIVE_ACCURACY)
    plan = refinement(accountant, point, delta).default_plan(
        point, delta, start.first(point, np.array([delta]), "epsilon"), None
    )
    read = tilted_question.default_epsilon(point, delta, reader, None, math.inf, plan)
    assert read.refined is not None
    lower, upper, _, _, settled, grids = read.refined
    return StepTwo(np.array([lower]), np.array([upper]), settled, read.tried, grids)


def test_a_settled_point_asks_no_finer_grid_and_ends_with_the_fine_read_of_its_bracket():
    accountant = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100)
    found = step_two(accountant, README, 1e-10)
    assert found.settled and found.tried
    assert found.grids == 1  # the point asked no finer grid
    lo, up, add = first_grid_read(refinement(accountant), README, 1e-10)
    # the settled bracket is the fine read of the grid's bracket, its add direction's upper side passed on
    fine = tilted_core.fine_brackets(
        README, np.array([1e-10]), np.array([lo]), np.array([up]), None, np.array([add]), 0
    )
    np.testing.assert_array_equal(found.lower, fine[0])
    np.testing.assert_array_equal(found.upper, fine[1])
    assert up - lo > found.upper[0] - found.lower[0]  # the fine read narrowed the grid's bracket


@pytest.mark.parametrize(
    ("point", "delta", "tried"),
    [
        (README, 1e-12, False),  # never within four tolerances: the fine read is not made
        (
            (1.0, 1e-3, 5000.0, 1.0),
            1e-8,
            True,
        ),  # made, and it leaves the bracket wider than the tolerance
    ],
)
def test_without_a_settlement_the_ladder_goes_on_as_before(point, delta, tried):
    accountant = SubsampledGaussianPLD(sigma=point[0], sampling_rate=point[1], rounds=int(point[2]))
    found = step_two(accountant, point, delta)
    assert not found.settled and found.tried == tried
    assert found.grids >= 2  # the ladder went on past its first grid
    (plain,) = refinement(accountant, point, delta).refined(
        [point], [np.array([delta])], "epsilon", 0
    )
    np.testing.assert_array_equal(found.lower, plain[0])
    np.testing.assert_array_equal(found.upper, plain[1])


def test_the_default_settles_the_readme_run_with_the_fine_reads_upper_side():
    run = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100)
    lower, upper = run.epsilon(1e-10, bound="both")
    assert question.within_tolerance(np.array(lower), np.array(upper))
    # the fine read of the same point, centred at a looser upper side, gives the same upper side to the digits
    rdp = float(question.rdp_upper(README, np.array([1e-10]))[0])
    fine, grid = tilted_core.fine_upper(README, 1e-10, rdp, math.inf)
    assert grid == question.FINE_INTERVAL
    assert upper == pytest.approx(fine, rel=1e-9)
    # and the composed PLD object reads the same question the same way (one read per question)
    pld = subsampled_gaussian(1.1, 256 / 60_000).self_compose(14_100)
    assert pld.epsilon(1e-10) == pytest.approx(upper, rel=1e-12)


@pytest.mark.parametrize("delta", [1e-5, 1e-10])
def test_the_add_directions_upper_side_passed_on_is_certified(delta):
    """Each grid's add-direction upper epsilon is at least the add direction's own lower side on a finer grid (a
    certified bracket of the same curve): were the screen's reading not an upper side, it could fall below it."""
    h = 2e-4
    ((_, _, add_upper),) = epsilon_brackets([README], [h], [np.array([delta])], 1e-15)
    (add,) = subsampled_gaussians(
        np.array([1.1]),
        np.array([256 / 60_000]),
        value_discretization_interval=h / 4,
        directions="add",
    )
    lower, _ = add.self_compose(14_100).epsilon(delta, bound="both", composition_only=True)
    assert lower > 0.0
    assert add_upper[0] >= lower


def test_a_known_add_upper_side_below_the_remove_directions_leaves_the_fine_read_unchanged():
    centre = 3.7415
    screened = tilted_core.fine_upper(README, 1e-10, centre, math.inf)
    known = tilted_core.fine_upper(README, 1e-10, centre, 0.0)
    assert known == screened


def test_the_cap_is_asked_only_where_the_descent_is_read_and_lowers_its_upper_side():
    """The plan's cap (the RDP conversion's upper side in the default) is asked only for a bracket the refinement
    leaves wider than the tolerance, where it bounds the descent's upper side and so the answer's; a point the fine
    read settles never asks it."""
    start = StartGrid(question.DEFAULT_ACCURACY, "relative", question.DEFAULT_RELATIVE_ACCURACY)
    for delta, wide in ((1e-10, False), (1e-12, True)):
        accountant = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100)
        x = np.array([delta])

        def read(cap):
            plan = refinement(accountant, README, delta).default_plan(
                README, delta, start.first(README, x, "epsilon"), cap
            )
            reader = tilted_question.TiltedReader(README, None, 0)
            return tilted_question.default_epsilon(README, delta, reader, None, math.inf, plan)

        free = read(None)
        asked: list[float] = []
        below = free.lower + 0.5 * (free.upper - free.lower)  # a cap between the answer's sides

        def cap() -> float:
            asked.append(below)
            return below

        capped = read(cap)
        assert len(asked) == (1 if wide else 0)
        if wide:
            assert free.lower <= capped.upper <= below < free.upper
        else:
            assert (capped.lower, capped.upper) == (free.lower, free.upper)
