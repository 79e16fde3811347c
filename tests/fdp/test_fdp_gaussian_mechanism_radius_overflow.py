"""GaussianMechanism whose radius sqrt(rounds) sensitivity / sigma overflows to inf (sigma = 5e-324): every
parameter is finite, so the true radius is finite and delta(inf) = theta(r, inf) = 0 exactly on both sides,
not the core's refusal of theta(inf, inf)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.fdp import GaussianMechanism

TINY = 5e-324  # the least positive double: 1 / TINY overflows


@pytest.mark.parametrize(
    "kwargs",
    [{"sigma": TINY}, {"sigma": 1e-300, "sensitivity": 1e10}, {"sigma": 1e-308, "rounds": 10**6}],
)
def test_delta_at_infinite_epsilon_is_zero(kwargs):
    mechanism = GaussianMechanism(**kwargs)
    assert mechanism.mu == math.inf
    assert mechanism.delta(math.inf) == 0.0
    assert mechanism.delta(math.inf, bound="lower") == 0.0
    assert mechanism.delta(math.inf, bound="both") == (0.0, 0.0)
    assert isinstance(mechanism.delta(math.inf), float)


def test_finite_epsilon_unchanged_beside_infinite_one():
    mechanism = GaussianMechanism(sigma=[TINY, 1.0])
    lower, upper = mechanism.delta([math.inf, 1.0], bound="both")
    assert lower[0] == upper[0] == 0.0
    assert upper[1] == GaussianMechanism(sigma=1.0).delta(1.0)
    assert lower[1] == GaussianMechanism(sigma=1.0).delta(1.0, bound="lower")
    grid = mechanism.delta(np.array([[math.inf], [2.0]]))
    assert grid.shape == (2, 2)
    assert np.all(grid[0] == 0.0)
    assert grid[1, 0] == GaussianMechanism(sigma=TINY).delta(2.0)
    assert grid[1, 1] == GaussianMechanism(sigma=1.0).delta(2.0)


def test_finite_epsilon_at_an_overflowed_radius_is_the_outward_bracket():
    lower, upper = GaussianMechanism(sigma=TINY).delta(1.0, bound="both")
    assert upper == 1.0 and lower < 1.0


@pytest.mark.parametrize(
    ("epsilon", "kind", "message"),
    [
        ("inf", TypeError, r"^epsilon must be a real number"),
        (-1.0, ValueError, r"^epsilon must be >= 0, got -1\.0$"),
        (math.nan, ValueError, r"^epsilon must not be NaN"),
    ],
)
def test_epsilon_refused_by_name(epsilon, kind, message):
    with pytest.raises(kind, match=message):
        GaussianMechanism(sigma=TINY).delta(epsilon)
