"""The default's fine read does less work for the same certified numbers: a tilted window read from a certified lower epsilon up (``read_from``) is trivial
below it and within the full read's slack above it, and its upper epsilon lies between the certified sides; a reader
kept from a read that did not settle gives the same numbers as a fresh one; the fixed grid's add-direction upper side
is certified and never makes the fine read's upper side higher; where the view answers, the whole window's
suffix sums are never built; one small point answers the same on any threads."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD, _one_thread
from hockeystick.pld.compose import tilted
from hockeystick.pld.grid.tail import DEFAULT_TAIL
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians
from hockeystick.pld.question import tilted_question
from hockeystick.pld.refine import question

from . import tilted_core
from .read_tail import delta_tilt, read_tail
from .tilted_windows import composed, remove_round

README = (1.1, 256 / 60_000, 14_100.0, 1.0)
FEDAVG = (1.0, 1e-3, 5_000.0, 1.0)


def _fine_window(point, delta, centre, cut=True):
    # the window the default's fine read reads: cut at the point's read tail (``cut``) or whole
    # (where the cut window's read would owe its value to the cut: ``TiltedReader.upper_side``)
    _, factor = remove_round(point, question.FINE_INTERVAL, delta, optimistic=False)
    rounds = int(point[2])
    lam = _core.pld_refine.exponent_tilt([(factor.upper, rounds)], eps=centre)
    window_tail = (
        read_tail(factor.upper, rounds, delta_tilt(factor.upper, rounds, delta))
        if cut
        else DEFAULT_TAIL
    )
    return composed([(factor.upper, rounds)], lam, True, window_tail)


# FedAvg's 5 sampled rounds a record: what wraps around the cut window sends its read to the whole
@pytest.mark.parametrize(("point", "delta", "cut"), [(README, 1e-10, True), (FEDAVG, 1e-10, False)])
def test_a_window_read_from_a_lower_epsilon_is_trivial_below_it_and_the_full_read_above(
    point, delta, cut
):
    lower, upper = SubsampledGaussianPLD(*point[:3]).epsilon(delta, bound="both")
    full = _fine_window(point, delta, upper, cut)
    view = full.read_from(lower - 8 * full.h)
    assert (
        view.floor_index > full.floor_index
    )  # the read starts above the window's bottom: less to sum
    assert view.delta(view.floor - 2 * full.h) == 1.0  # below it: the trivial upper side
    slack = full.slack
    for eps in np.linspace(lower, upper + 0.05, 7):
        a, b = view.delta(float(eps)), full.delta(float(eps))
        assert (
            abs(a - b) <= 2.0 * slack * b + 1e-300
        )  # the same sums, less the terms below the start
    found, whole = (
        tilted.upper_epsilon(view, delta, upper + 0.01),
        tilted.upper_epsilon(full, delta, upper + 0.01),
    )
    ulps = 8 * math.ulp(upper)  # the searches stop within 4 ulps of their crossing
    assert lower <= found <= upper + ulps
    # fewer terms summed carry a smaller slack: no looser than the whole window's read, and close to it
    assert found <= whole + ulps
    assert found == pytest.approx(whole, rel=1e-10)
    assert full.delta(found) <= delta * (
        1.0 + 1e-9
    )  # within the whole window's slack of its own read


def test_a_fine_read_from_a_lower_epsilon_reads_as_the_whole_window():
    # the core's fine read searched from a certified lower side first (its view of the window from
    # a few cells below it) gives the whole window's answer, within the searches' ulps
    point, delta = README, 1e-10
    lower, upper = SubsampledGaussianPLD(*point[:3]).epsilon(delta, bound="both")
    from_lower, grid = tilted_core.fine_upper(point, delta, upper, math.inf, lower)
    whole, _ = tilted_core.fine_upper(point, delta, upper, math.inf)
    assert grid == question.FINE_INTERVAL
    ulps = 8 * math.ulp(upper)
    assert lower <= from_lower <= upper
    assert from_lower <= whole + ulps
    assert from_lower == pytest.approx(whole, rel=1e-10)


def test_a_read_from_below_the_windows_floor_changes_nothing():
    full = _fine_window(FEDAVG, 1e-10, 0.713)
    view = full.read_from(full.floor - 10.0)
    assert view.floor_index == full.floor_index
    assert view.delta(0.7129) == full.delta(0.7129)


def test_a_reader_kept_from_an_unsettled_read_gives_a_fresh_readers_numbers():
    point, delta = README, np.array([1e-10])
    lower, upper = (
        np.array([3.739]),
        np.array([3.7425]),
    )  # certified but wide: the fine read cannot settle it
    kept = tilted_question.TiltedReader(point, None, 1)
    read = tilted_core.fine_brackets(point, delta, lower, upper, None, None, 1, kept)
    assert not question.within_tolerance(*read)  # as the default's settle leaves such a reader
    kept.drop_compositions()
    assert kept.core.held_points() == (0, 0)  # the windows dropped
    again = tilted_core.fine_brackets(point, delta, lower, upper, None, None, 1, kept)
    fresh = tilted_core.fine_brackets(point, delta, lower, upper, None, None, 1)
    np.testing.assert_array_equal(again[0], fresh[0])
    np.testing.assert_array_equal(again[1], fresh[1])


def test_the_fixed_grids_add_upper_side_is_certified_and_never_raises_the_fine_read():
    point, delta = (1.1, 256 / 60_000, 14_100.0, 1.0), np.array([1e-5])
    accountant = SubsampledGaussianPLD(*point[:3])
    adds: list[np.ndarray | None] = []
    ((lo, up),), _ = accountant._fixed_brackets([point], [delta], "both", "epsilon", 1, False, adds)
    (add_upper,) = adds
    assert add_upper is not None
    # above the add direction's own certified lower side on a finer grid: an upper side of that direction
    (add,) = subsampled_gaussians(
        np.array([point[0]]),
        np.array([point[1]]),
        value_discretization_interval=2.5e-5,
        directions="add",
    )
    add_lower, _ = add.self_compose(int(point[2])).epsilon(
        1e-5, bound="both", composition_only=True
    )
    assert add_upper[0] >= add_lower
    given = tilted_core.fine_brackets(point, delta, lo, up, None, add_upper, 1)
    screened = tilted_core.fine_brackets(point, delta, lo, up, None, None, 1)
    assert given[1][0] <= screened[1][0]
    assert given[0][0] == screened[0][0]


@pytest.mark.parametrize("point", [README, FEDAVG])
def test_one_small_point_answers_the_same_on_any_threads(point):
    one = SubsampledGaussianPLD(*point[:3], workers=1).epsilon(1e-10, bound="both")
    default = SubsampledGaussianPLD(*point[:3]).epsilon(1e-10, bound="both")
    assert default == one
    assert math.isfinite(one[1]) and one[0] < one[1]


def test_the_one_thread_rule_is_for_one_small_point_without_accuracy():
    small = [((1.1, 256 / 60_000, 14_100.0, 1.0), np.zeros(1, dtype=np.intp))]
    assert _one_thread(SubsampledGaussianPLD(1.1, 256 / 60_000, 14_100), small)
    assert not _one_thread(SubsampledGaussianPLD(1.1, 256 / 60_000, 14_100, accuracy=1e-3), small)
    assert not _one_thread(SubsampledGaussianPLD(1.1, 256 / 60_000, 14_100), small * 2)
    huge = [
        ((0.3, 0.5, 1e7, 1.0), np.zeros(1, dtype=np.intp))
    ]  # a window of far more than 2^20 points at 5e-5
    assert _core.pld_refine.loss_span(*huge[0][0]) / question.FINE_INTERVAL > 2**20
    assert not _one_thread(SubsampledGaussianPLD(0.3, 0.5, 10**7), huge)
