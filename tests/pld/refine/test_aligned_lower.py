"""The aligned-cells lower epsilon (the core's aligned_lower.hpp): each cell's mean bound against a
50-digit quadrature, and the epsilon against certified brackets read by other means."""

from __future__ import annotations

import math

import mpmath
import pytest

from hockeystick.pld.question.tilted_question import MAX_POINTS
from hockeystick.pld.reads.max_of_outputs import max_of_outputs_epsilon

from .aligned_core import RareRound, aligned_lower_epsilon


def integral_50_digits(sigma: float, q: float, a: float, b: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The P-mass of (a, b] and int_(a, b] log(1 + q (e^z - 1)) dP, P = (1 - q) N(0, s^2) + q
    N(1, s^2), z = (2 x - 1) / (2 s^2), by mpmath's quadrature at 50 digits."""
    mpmath.mp.dps = 50
    s, qq = mpmath.mpf(sigma), mpmath.mpf(q)

    def density(x: mpmath.mpf) -> mpmath.mpf:
        return (1 - qq) * mpmath.npdf(x, 0, s) + qq * mpmath.npdf(x, 1, s)

    def loss(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.log1p(qq * mpmath.expm1((2 * x - 1) / (2 * s * s)))

    ends = [mpmath.mpf(a), mpmath.mpf(b)]
    mass = mpmath.quad(density, ends)
    integral = mpmath.quad(lambda x: loss(x) * density(x), ends)
    return mass, integral


@pytest.mark.parametrize(
    "sigma, q, a, b",
    [
        (0.6, 1e-5, -8.0, 0.3),
        (0.6, 1e-5, 1.2, 1.21),
        (0.5, 1e-4, 1.0, 1.6),
        (1.0, 1e-6, 3.0, 3.001),
    ],
)
def test_a_cells_bounds_hold_the_50_digit_integral(
    sigma: float, q: float, a: float, b: float
) -> None:
    low_mass, high_mass, integral = RareRound(sigma, q).cell(a, b)
    mass, exact = integral_50_digits(sigma, q, a, b)
    assert low_mass <= mass <= high_mass
    assert integral <= exact  # a lower bound on the cell's loss integral
    # and a tight one where the cells are aligned (u <= 0.01, the series' remainder below 1e-11 u)
    assert float(exact) - integral <= 1e-8 * abs(float(exact)) + 1e-25


def test_its_epsilon_is_below_a_tight_certified_bracket_and_close_to_it() -> None:
    """sigma 0.5, q 1e-4, 10^4 rounds, delta 1e-12: the default reads [6.45078, 6.45081] there."""
    from hockeystick.pld import SubsampledGaussianPLD

    lower, upper = SubsampledGaussianPLD(sigma=0.5, sampling_rate=1e-4, rounds=10**4).epsilon(
        1e-12, bound="both"
    )
    assert upper - lower < 1e-4
    found = aligned_lower_epsilon(0.5, 1e-4, 10**4, 1e-12, upper, 5e-5, MAX_POINTS)
    assert upper - 1e-3 < found <= upper


def test_at_the_issue_run_it_is_far_above_the_max_of_outputs_bound() -> None:
    """sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10: the max-of-outputs bound is 1.0716, the
    certified upper side 1.0783 and dp_accounting's (1e-4 grid) 1.0772."""
    segments = [((0.6, 1e-5, 1.0), 10**6)]
    found = aligned_lower_epsilon(0.6, 1e-5, 10**6, 1e-10, 1.0783, 2.5e-5, MAX_POINTS)
    assert max_of_outputs_epsilon(segments, 1e-10) + 4e-3 < found < 1.0772
    assert math.isfinite(found)
