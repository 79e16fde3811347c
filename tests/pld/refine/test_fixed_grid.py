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
