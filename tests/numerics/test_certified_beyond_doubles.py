"""A lower side stays below the truth when the truth lies beyond the doubles: a finite radius has a finite
epsilon(delta), so its certified lower side is a finite double (the largest one), never inf."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import theta
from hockeystick.fdp import GaussianDP, GaussianMechanism
from hockeystick.numerics.certified_theta import theta_epsilon_lower, theta_epsilon_upper

TOP = np.finfo(np.float64).max


@pytest.mark.parametrize("r", [1e160, 1e300, TOP])
def test_an_epsilon_beyond_the_doubles_gets_the_largest_double_below_it(r):
    # theta(r, eps) stays above 1/2 up to eps ~ r^2 / 2 > DBL_MAX: the true epsilon is finite and above every double
    assert theta(r, TOP) >= 0.5
    assert theta_epsilon_lower(r, 0.5) == TOP
    assert theta_epsilon_upper(r, 0.5) == math.inf
    assert GaussianDP(r).epsilon(0.5, bound="both") == (TOP, math.inf)


def test_an_infinite_radius_keeps_an_infinite_epsilon():
    assert GaussianDP(math.inf).epsilon(0.5, bound="both") == (math.inf, math.inf)


def test_a_mechanism_whose_radius_overflows_has_finite_lower_sides():
    mechanism = GaussianMechanism(sigma=5e-324)
    assert mechanism.mu == math.inf and mechanism.mu_lower < math.inf
    low, high = mechanism.epsilon(1e-5, bound="both")
    assert low == TOP and high == math.inf
    low, high = mechanism.delta(1.0, bound="both")
    assert 0.0 < low <= high == 1.0


@pytest.mark.parametrize("r", [0.5, 3.0, 40.0, 1e5])
def test_finite_epsilons_are_unchanged(r):
    for delta in (1e-10, 1e-5, 0.3):
        low = theta_epsilon_lower(r, delta)
        assert math.isfinite(low) and low <= theta_epsilon_upper(r, delta)
