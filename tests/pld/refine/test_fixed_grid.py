"""Where the default's fixed grid answers (cpp/include/hockeystick/pld/refine/fixed_grid.hpp, read by
``refine.question``'s ``plain_grid_misses`` and ``fixed_grid_fits`` and by the C library's epsilon call): the plain
composition misses below the delta floor, where T rounds' tails pass a thousandth of delta, and at a sampling rate
below the grid; the fixed grid is read first where no delta misses and the connect-the-dots model asks no finer grid;
and where it is read, the default's bracket is no wider than the fixed grid's own."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.mechanisms.constructors import DEFAULT_INTERVAL
from hockeystick.pld.refine import constants, question

README = (1.1, 256 / 60_000, 14_100, 1.0)


def test_the_plain_grid_misses_where_the_rule_says():
    delta = np.array([1e-5, constants.DELTA_FLOOR, 0.5 * constants.DELTA_FLOOR, 1e-7])
    # 1000 rounds with a tail of 1e-12 cut 1e-9 at most: more than a thousandth of 1e-7, not of 1e-5
    misses = question.plain_grid_misses(0.01, 1000, delta, 1e-12, 1e-4)
    assert misses.tolist() == [False, True, True, True]
    assert question.plain_grid_misses(0.01, 1000, delta, 1e-15, 1e-4).tolist() == [
        False,
        False,
        True,
        False,
    ]
    # a rate below the grid: its remove direction's one-round loss spans less than a cell
    assert question.plain_grid_misses(5e-5, 1000, delta, 1e-15, 1e-4).all()
    assert question.plain_grid_misses(0.01, 1000, np.array(1e-5), 1e-15, 1e-4).shape == ()


@pytest.mark.parametrize(
    ("point", "delta", "fits"),
    [
        (README, [1e-5], True),
        (README, [1e-5, 1e-10], False),  # 1e-10 is below the floor
        ((1.0, 1e-5, 10**6, 1.0), [1e-5], False),  # the rate below the grid
        ((3.0, 1e-3, 10**5, 1.0), [1e-5], False),  # the model asks a grid of 6.2e-5
        (README, [], True),
    ],
)
def test_the_fixed_grid_fits_where_no_delta_misses_and_the_model_asks_no_finer(point, delta, fits):
    assert question.fixed_grid_fits(point, np.array(delta, dtype=np.float64)) is fits


def test_where_it_fits_the_default_is_no_wider_than_the_fixed_grid():
    sigma, q, rounds, _ = README
    fixed = SubsampledGaussianPLD(
        sigma, q, rounds, value_discretization_interval=DEFAULT_INTERVAL
    ).epsilon(1e-5, bound="both")
    default = SubsampledGaussianPLD(sigma, q, rounds).epsilon(1e-5, bound="both")
    assert fixed[0] <= default[0] <= default[1] <= fixed[1]


def test_a_point_whose_fixed_window_passes_memory_is_read_without_it(monkeypatch):
    """The fixed grid's window past the memory allowed (sigma 0.02, q 0.5, 10 rounds needs 1.4e8 points on 1e-4)
    refused the default's question, telling the user to coarsen a grid they never gave, where the C library's call
    reads on; now that point is read by the rest of the chain, and the other points of its batch keep their fixed
    grid."""
    from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD as Front
    from hockeystick.pld.question import default_reads

    real = Front._fixed_brackets
    refused_sigma = 1.1
    read_alone: list[float] = []

    def fixed_brackets(self, pts, *args, **kwargs):
        if any(p[0] == refused_sigma for p in pts):
            raise ValueError(
                "the composed loss window needs 137683050 grid points (max_points=49367584)"
            )
        read_alone.extend(p[0] for p in pts)
        return real(self, pts, *args, **kwargs)

    sigma, q, rounds, _ = README
    expected = [
        tuple(float(v) for v in SubsampledGaussianPLD(s, q, rounds).epsilon(1e-5, bound="both"))
        for s in (refused_sigma, 1.3)
    ]
    default_reads.forget_kept()
    monkeypatch.setattr(Front, "_fixed_brackets", fixed_brackets)
    lower, upper = SubsampledGaussianPLD([refused_sigma, 1.3], q, rounds).epsilon(
        1e-5, bound="both"
    )
    assert read_alone == [
        1.3
    ]  # the batch refused, then each point alone: the other keeps its fixed grid
    for (lo, up), (e_lo, e_up) in zip(zip(lower.tolist(), upper.tolist()), expected):
        assert lo <= e_up and e_lo <= up and up - lo <= question.default_tolerance(up)


@pytest.mark.slow
def test_the_default_answers_where_the_fixed_window_passes_memory():
    lower, upper = SubsampledGaussianPLD(0.02, 0.5, 10).epsilon(1e-5, bound="both")
    assert 12858.46 < float(lower) <= float(upper) < 12858.50


def test_the_refusal_stands_where_the_chain_does_not_answer_to_the_tolerance(monkeypatch):
    """A fixed window refused, and the chain's windows past the memory too (a cap of 2^13 points): the grid's own
    refusal is raised, its advice (a coarser grid, a larger max_points) the way to an answer, not a bracket far
    wider than the tolerance."""
    from hockeystick.pld.compose import fft
    from hockeystick.pld.question import default_reads

    monkeypatch.setattr(fft, "DEFAULT_MAX_POINTS", 1 << 13)
    default_reads.forget_kept()
    sigma, q, rounds, _ = README
    with pytest.raises(ValueError, match="raise max_points"):
        SubsampledGaussianPLD(sigma, q, rounds).epsilon(1e-5, bound="both")
