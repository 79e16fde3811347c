"""A lower side stays below the truth when the truth lies beyond the doubles: a finite radius has a finite
epsilon(delta), so its certified lower side is a finite double (the largest one), never inf."""

from __future__ import annotations

import math

import mpmath as mp
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


def _mp_q(x: mp.mpf, upper: bool) -> mp.mpf:
    """Q(x) in mpmath: erfc where mpmath evaluates it, beyond |x| = 1e6 the Mills bounds
    phi(x) x / (1 + x^2) <= Q(x) <= phi(x) / x (x > 0), on the side asked for."""
    if abs(x) < 1e6:
        return mp.erfc(x / mp.sqrt(2)) / 2
    if x < 0:
        return 1 - _mp_q(-x, not upper)
    phi = mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)
    return phi / x if upper else phi * x / (1 + x * x)


def _mp_theta(r: float, eps: float, upper: bool) -> mp.mpf:
    """A bound on theta(r, eps) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2) (paper 000 eq. 6) on the side asked for,
    in mpmath with the digits a tiny radius's cancellation needs (the difference is about r times the terms)."""
    digits = 60 + max(0, -math.floor(math.log10(r)))
    with mp.workdps(digits):
        r_, e_ = mp.mpf(r), mp.mpf(eps)
        a, b = e_ / r_ - r_ / 2, e_ / r_ + r_ / 2
        return _mp_q(a, upper) - mp.exp(e_) * _mp_q(b, not upper)


@pytest.mark.parametrize("r", [1e160, 1e300, TOP])
@pytest.mark.parametrize("delta", [5e-324, 1e-300, 1e-5, 0.5, 1.0 - 2.0**-53])
def test_the_largest_double_is_below_the_exact_epsilon(r, delta):
    # the lower side is TOP where theta(r, TOP) >= delta is certified (then epsilon(delta) >= TOP, checked
    # exactly), else 0 (delta within theta's rounding of 1); never inf, which is above the finite truth
    low = theta_epsilon_lower(r, delta)
    assert low in (0.0, TOP)
    assert low == TOP or delta > 0.9
    assert _mp_theta(r, TOP, upper=False) >= mp.mpf(delta)


@pytest.mark.parametrize("r", [5e-324, 1e-310, 1e-300, 1e-8])
@pytest.mark.parametrize("delta", [5e-324, 1e-300, 1e-5, 0.5])
def test_subnormal_and_tiny_radii_keep_their_sides_around_the_exact_epsilon(r, delta):
    low, high = theta_epsilon_lower(r, delta), theta_epsilon_upper(r, delta)
    assert 0.0 <= low <= high < math.inf
    # the exact epsilon lies between: theta at the lower side is >= delta (or the side is 0), at the upper <= delta
    assert low == 0.0 or _mp_theta(r, low, upper=False) >= mp.mpf(delta)
    assert _mp_theta(r, high, upper=True) <= mp.mpf(delta)
