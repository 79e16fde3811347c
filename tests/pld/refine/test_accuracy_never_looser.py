"""More accuracy is never looser: a bracket asked at a finer ``accuracy=``, or of a PLD on a finer grid or with a
smaller tail, is no wider on the upper side than the default's, and never infinite where the default is finite
(issue "one engine", item 3): each is intersected with the default's certified bracket
(``pld.question.default_reads.accuracy_sides``; the PLD object through the question reader, pld/question)."""

from __future__ import annotations

import math
import warnings

import pytest

import hockeystick.pld as pld

RUNS = {"readme": (1.1, 256 / 60_000, 14_100), "fedavg": (1.0, 1e-3, 5000)}


def _both(read):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read()


@pytest.mark.parametrize("delta", [1e-10, pytest.param(1e-12, marks=pytest.mark.slow)])
@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_finer_accuracy_is_no_looser_than_the_default(run, delta):
    sigma, q, rounds = RUNS[run]
    d_lower, d_upper = _both(
        lambda: pld.SubsampledGaussianPLD(sigma, q, rounds).epsilon(delta, bound="both")
    )
    lower, upper = _both(
        lambda: pld.SubsampledGaussianPLD(sigma, q, rounds, accuracy=1e-4).epsilon(
            delta, bound="both"
        )
    )
    assert math.isfinite(upper) and upper <= d_upper
    assert lower <= d_upper and d_lower <= upper  # both certified: they overlap


def test_a_coarser_accuracy_is_bounded_where_the_default_is():
    """accuracy=1e-3 at delta 1e-12 after 5000 rounds of q 1e-3: the plain refinement's charges leave its upper side
    infinite; the default's tilted reads bound it within the tolerance asked of the default's upper side."""
    sigma, q, rounds = RUNS["fedavg"]
    _, d_upper = _both(
        lambda: pld.SubsampledGaussianPLD(sigma, q, rounds).epsilon(1e-12, bound="both")
    )
    lower, upper = _both(
        lambda: pld.SubsampledGaussianPLD(sigma, q, rounds, accuracy=1e-3).epsilon(
            1e-12, bound="both"
        )
    )
    assert math.isfinite(upper) and upper - d_upper <= 1e-3
    assert lower <= d_upper


def test_a_coarser_accuracy_its_reads_miss_reads_the_defaults():
    """accuracy=1e-3 at delta 1e-10 after 10^5 rounds of a rare record (sigma 0.6, q 1e-5): the refinement and the
    tilted reads leave [0.687, 0.755], 68 times wider than asked, and the RDP conversion bounds the upper side; the
    default's last reads (the fine and aligned reads of rare participation) are within it, so the bracket asked is
    the two intersected: within the accuracy, and its upper side at most the default's."""
    sigma, q, rounds, delta = 0.6, 1e-5, 100_000, 1e-10
    d_lower, d_upper = _both(
        lambda: pld.SubsampledGaussianPLD(sigma, q, rounds).epsilon(delta, bound="both")
    )
    lower, upper = _both(
        lambda: pld.SubsampledGaussianPLD(sigma, q, rounds, accuracy=1e-3).epsilon(
            delta, bound="both"
        )
    )
    assert upper - lower <= 1e-3
    assert upper <= d_upper and d_lower <= upper


@pytest.mark.parametrize("grid", [1e-3, 5e-5])
def test_a_pld_on_any_grid_is_no_looser_than_the_default(grid):
    """A PLD object on a coarser or finer grid, or with a smaller tail, read at delta 1e-10: its upper side at most
    the default's (the question reader intersects its own bracket with the front door's)."""
    sigma, q, rounds = RUNS["readme"]
    _, d_upper = _both(
        lambda: pld.SubsampledGaussianPLD(sigma, q, rounds).epsilon(1e-10, bound="both")
    )
    for tail in (1e-15, 1e-25):
        dist = pld.subsampled_gaussian(
            sigma, q, value_discretization_interval=grid, tail=tail
        ).self_compose(rounds)
        lower, upper = _both(lambda: dist.epsilon(1e-10, bound="both"))
        assert upper <= d_upper and lower <= upper
