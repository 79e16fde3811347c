"""The grid ladder below a sampling rate (``grid_start.finest_interval``) and ``PLDAccountant``'s default, which
answers rounds of one subsampled Gaussian as ``SubsampledGaussianPLD``'s default does (``refine.question``)."""

from __future__ import annotations

import math

import pytest

from hockeystick.pld import PLDAccountant, SubsampledGaussianPLD
from hockeystick.pld.refine import constants
from hockeystick.pld.refine.grid_start import finest_interval, ladder_rung
from hockeystick.pld.refine.question import question_tail
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning


def test_ladder_above_the_finest_grid_is_unchanged_and_goes_below_only_for_small_rates():
    for k in range(0, 40):  # the rungs 1e-5 2^(k/2) are fixed points of the ladder
        h = constants.FINEST_INTERVAL * 2.0 ** (k / 2)
        assert ladder_rung(h * (1 + 1e-12)) == h
    assert finest_interval(None) == finest_interval(1e-3) == constants.FINEST_INTERVAL
    for q in (1e-5, 1e-6, 1e-7):  # the rung at or below q / 8, on the same ladder
        h = finest_interval(q)
        assert h <= q / constants.BELOW_RATE_FINEST_DIVISOR < h * math.sqrt(2) * (1 + 1e-12)
    assert finest_interval(1e-12) == constants.LOWEST_INTERVAL


def test_question_tail_keeps_the_rounds_cuts_within_a_thousandth_of_delta():
    assert question_tail(100, 1e-5) == 1e-15  # the default where it already fits
    assert 10**6 * question_tail(10**6, 1.26e-10) <= 1e-3 * 1.26e-10
    assert question_tail(10**7, 1e-300) == 1e-300  # the smallest a discretization takes


def test_pld_accountant_default_answers_one_subsampled_gaussian_as_the_question_asks():
    acc = PLDAccountant()
    for rounds in (14_000, 100):  # two calls, one round type
        acc.compose_subsampled_gaussian(sigma=1.1, sampling_rate=256 / 60_000, rounds=rounds)
    ours = SubsampledGaussianPLD(sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100).epsilon(
        1e-10, bound="both"
    )
    assert acc.epsilon(1e-10, bound="both") == ours
    mixed = PLDAccountant().compose_subsampled_gaussian(sigma=1.0, sampling_rate=0.01, rounds=10)
    mixed.compose_subsampled_gaussian(
        sigma=2.0, sampling_rate=0.01, rounds=10
    )  # two round types: the 1e-4 grid
    on_grid = (
        PLDAccountant(value_discretization_interval=1e-4)
        .compose_subsampled_gaussian(sigma=1.0, sampling_rate=0.01, rounds=10)
        .compose_subsampled_gaussian(sigma=2.0, sampling_rate=0.01, rounds=10)
    )
    # ... its bracket, the upper side then read under a tilt on half that grid (refine.question.FINE_INTERVAL), on a
    # grid given or not (the question reader, pld/question): below the grid's own composition
    low, up = mixed.epsilon(1e-5, bound="both")
    assert on_grid.epsilon(1e-5, bound="both") == (low, up)
    grid_low, grid_up = on_grid.composed_pld.epsilon(1e-5, bound="both", composition_only=True)
    assert low >= grid_low and up < grid_up and low <= up


def test_a_given_tail_is_used_as_given_on_the_grid_the_question_chooses():
    """A tail given without a grid: the grid still comes from the question (the README run at delta 1e-20 is as
    readable as the default's and overlaps it, both certified), the tail is the caller's (1e-12 a round over 14 100
    rounds puts ~6e-11 at +infinity: the upper side is inf, not the question tail's nor the RDP conversion's), and
    PLDAccountant answers the same."""
    readme = dict(sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100)
    lower, upper = SubsampledGaussianPLD(**readme, tail=1e-25).epsilon(1e-20, bound="both")
    default = SubsampledGaussianPLD(**readme).epsilon(1e-20, bound="both")
    assert 0 < lower <= upper <= lower + max(1e-2, 1e-2 * upper)
    assert lower <= default[1] and default[0] <= upper
    with pytest.warns(AccuracyNotMetWarning, match="tail="):
        assert SubsampledGaussianPLD(**readme, tail=1e-12).epsilon(1e-20) == math.inf
    acc = PLDAccountant(tail=1e-25).compose_subsampled_gaussian(
        sigma=1.1, sampling_rate=256 / 60_000, rounds=14_100
    )
    ours = SubsampledGaussianPLD(**readme, tail=1e-25).epsilon(1e-10, bound="both")
    assert acc.epsilon(1e-10, bound="both") == ours
