"""A read beside the default refinement's grid ladder (``Refinement.default_refined``'s ``settle``, the core's
pld/refine/default_refinement.hpp): a point it settles asks no finer
grid and ends with the settled bracket; the default's fine read (``tilted_question.FineSettle``) settles the README
run at delta 1e-10 after one grid, within the default tolerance and with the fine read's upper side; the add
direction's upper side the refinement passes on is certified, and skipping the add direction's read on it leaves
the fine read's upper side as it was."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.pld import subsampled_gaussian
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians
from hockeystick.pld.refine import dominated_direction, question, tilted_question
from hockeystick.pld.refine.near_one import NearOne
from hockeystick.pld.refine.points import Refinement

README = (1.1, 256 / 60_000, 14_100.0, 1.0)


def refinement(accountant: SubsampledGaussianPLD) -> Refinement:
    return Refinement(
        question.REFINED_ACCURACY,
        "relative",
        question.question_tail(README[2], 1e-10),
        accountant._build,
        NearOne(),
        question.REFINED_RELATIVE_ACCURACY,
    )


def test_a_settled_point_asks_no_finer_grid_and_ends_with_the_settled_bracket():
    accountant = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100)
    asked: list[tuple[int, np.ndarray, np.ndarray]] = []

    def settle(i, lower, upper, add_upper):
        asked.append((i, lower.copy(), upper.copy()))
        return lower, upper + 1.0  # wider than the grid's: the loop must still take it and stop

    bracket = refinement(accountant).default_refined(README, 1e-10, 0, settle)
    assert len(asked) == 1  # one grid: the point asked no finer one
    i, lower, upper = asked[0]
    assert i == 0 and math.isfinite(upper[0]) and lower[0] > 0.0
    # the loop intersects the settled bracket with the grid's own record, so the answer is within both
    assert bracket[0][0] == lower[0] and bracket[1][0] <= upper[0] + 1.0


def test_without_a_settlement_the_ladder_goes_on_as_before():
    accountant = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100)
    calls: list[int] = []

    def never(i, lower, upper, add_upper):
        calls.append(i)
        return None

    settled = refinement(accountant).default_refined(README, 1e-10, 0, never)
    (plain,) = refinement(accountant).refined([README], [np.array([1e-10])], "epsilon", 0)
    assert len(calls) >= 2  # asked after every grid
    np.testing.assert_array_equal(settled[0], plain[0])
    np.testing.assert_array_equal(settled[1], plain[1])


def test_the_default_settles_the_readme_run_with_the_fine_reads_upper_side():
    run = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100)
    lower, upper = run.epsilon(1e-10, bound="both")
    assert question.within_tolerance(np.array(lower), np.array(upper))
    # the fine read of the same point, centred at a looser upper side, gives the same upper side to the digits
    rdp = float(question.rdp_upper(README, np.array([1e-10]))[0])
    fine, grid = tilted_question.fine_upper(README, 1e-10, rdp, math.inf)
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
    ((_, _, add_upper),) = dominated_direction.epsilon_brackets(
        [README], [h], [np.array([delta])], 1e-15
    )
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
    screened = tilted_question.fine_upper(README, 1e-10, centre, math.inf)
    known = tilted_question.fine_upper(README, 1e-10, centre, 0.0)
    assert known == screened
