"""The root search of ``atoms_epsilon.epsilon_search`` in the core (pld/reads/epsilon_root_search.hpp).

- On curves whose root is known in closed form (delta = c e^{-a eps}, a Gaussian pair's curve against
  its 50-digit mpmath value), each side's answer satisfies its certificate (upper: delta(eps) <=
  target; lower: delta(eps) > target) and lies within the tolerance of the root, with or without
  hints, first pass or cluster;
- the cluster's aim (inverse cubic interpolation through the evaluated points nearest the bracket):
  where x is a polynomial of degree at most 3 in log delta, the call after the first lands the
  answer;
- a non-monotone side: the answer still meets its side's certificate at the point reported;
- what cannot be searched is refused with a ValueError naming it (NaN values, a wrong count, an
  infinite top, a target <= 0 with the ends unsettled).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld.compose import atoms_epsilon

SEARCHES = [
    dict(),
    dict(first_pass=7),
    dict(first_pass=7, cluster=30),
    dict(hints=(3.0, 3.3), cluster=30),
    dict(hints=(2.5,)),
]


def _exponential(a: float, c: float):
    calls: list[int] = []

    def curve(xs: np.ndarray) -> np.ndarray:
        assert xs.dtype == np.float64 and xs.ndim == 1
        calls.append(xs.size)
        return np.minimum(c * np.exp(-a * xs), 1.0)

    return curve, calls


@pytest.mark.parametrize("search", SEARCHES)
@pytest.mark.parametrize("upper", [True, False])
def test_answers_meet_their_side_within_the_tolerance_of_the_closed_form_root(search, upper):
    a, c, target, tolerance = 1.7, 0.8, 1e-3, 1e-9
    curve, _ = _exponential(a, c)
    found = atoms_epsilon.epsilon_search(curve, target, upper, 20.0, tolerance, **search)
    root = math.log(c / target) / a  # c e^{-a eps} = target
    value = float(curve(np.array([found]))[0])
    assert (value <= target) if upper else (value > target)
    slack = 1e-12  # the closed-form root's own rounding
    if upper:
        assert root - slack <= found <= root + tolerance + slack
    else:
        assert root - tolerance - slack <= found <= root + slack


@pytest.mark.parametrize("upper", [True, False])
def test_gaussian_curve_brackets_the_50_digit_epsilon(upper):
    """delta(eps) = Q(eps / r - r / 2) - e^eps Q(eps / r + r / 2) of the Gaussian pair of radius r
    (double precision, a few ulps: the tolerance is far above them), its epsilon at 1e-6 by mpmath."""
    r, target, tolerance = 0.7, 1e-6, 1e-10

    def curve(xs: np.ndarray) -> np.ndarray:
        q = lambda z: 0.5 * math.erfc(z / math.sqrt(2.0))  # noqa: E731
        return np.array([q(x / r - r / 2) - math.exp(x) * q(x / r + r / 2) for x in xs])

    def above(e: mp.mpf) -> bool:
        q = lambda z: mp.erfc(z / mp.sqrt(2)) / 2  # noqa: E731
        return q(e / r - mp.mpf(r) / 2) - mp.e**e * q(e / r + mp.mpf(r) / 2) > target

    with mp.workdps(50):
        lo, hi = mp.mpf(0), mp.mpf(40)
        for _ in range(80):  # bisection of the falling curve to 40 / 2^80
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if above(mid) else (lo, mid)
        root = float(lo)
    found = atoms_epsilon.epsilon_search(
        curve, target, upper, 40.0, tolerance, first_pass=7, cluster=30
    )
    assert abs(found - root) <= tolerance + 1e-12


def test_cluster_aim_lands_in_the_second_call_where_x_is_a_cubic_in_log_delta():
    """eps = 2 - g / 3 + g^2 / 50 - g^3 / 900 with g = log delta - log target (increasing eps lowers
    delta on [0, 6]): the inverse cubic through the two evaluated points nearest each end of the
    first bracket is this polynomial, so the first cluster's aim is the root up to round-off."""
    target = 1e-5
    eps_of = np.polynomial.Polynomial(
        [2.0, -1.0 / 3.0, 1.0 / 50.0, -1.0 / 900.0]
    )  # strictly falling

    def curve(xs: np.ndarray) -> np.ndarray:
        calls.append(xs.size)
        g = np.array([min((eps_of - x).roots(), key=lambda z: abs(z.imag)).real for x in xs])
        return np.minimum(target * np.exp(g), 1.0)

    calls: list[int] = []
    for upper in (True, False):
        calls.clear()
        found = atoms_epsilon.epsilon_search(
            curve, target, upper, 6.0, 1e-9, first_pass=7, cluster=30
        )
        assert abs(found - 2.0) <= 1e-9
        assert len(calls) == 2, calls


@pytest.mark.parametrize("upper", [True, False])
def test_a_non_monotone_side_still_meets_its_certificate(upper):
    target = 1e-4

    def curve(xs: np.ndarray) -> np.ndarray:  # falls, with bumps above and below the target
        return np.exp(-2.0 * xs) * (1.0 + 0.5 * np.sin(25.0 * xs)) * 0.1

    found = atoms_epsilon.epsilon_search(curve, target, upper, 10.0, 1e-8, first_pass=7, cluster=30)
    value = float(curve(np.array([found]))[0])
    assert (value <= target) if upper else (value > target)


def test_the_ends_settle_the_answer():
    assert (
        atoms_epsilon.epsilon_search(lambda x: np.full(x.size, 0.5), 0.1, True, 5.0, 1e-9)
        == math.inf
    )
    assert (
        atoms_epsilon.epsilon_search(lambda x: np.full(x.size, 0.5), 0.1, False, 5.0, 1e-9) == 5.0
    )
    assert atoms_epsilon.epsilon_search(lambda x: np.zeros(x.size), 0.0, True, 5.0, 1e-9) == 0.0


@pytest.mark.parametrize(
    "curve, target, top, match",
    [
        (lambda x: np.full(x.size, np.nan), 1e-5, 5.0, "NaN"),
        (lambda x: np.ones(x.size + 1), 1e-5, 5.0, "one delta per point"),
        (lambda x: np.exp(-x), 1e-5, math.inf, "top must be finite"),
        (lambda x: np.where(x < 1.0, np.exp(-x), 0.0), 0.0, 5.0, "target must be > 0"),
    ],
)
def test_refusals_name_what_cannot_be_searched(curve, target, top, match):
    with pytest.raises(ValueError, match=match):
        atoms_epsilon.epsilon_search(curve, target, True, top, 1e-9)
