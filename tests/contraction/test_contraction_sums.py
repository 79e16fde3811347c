"""Exactness of the contraction kernels against 50-digit evaluations of the papers' sums.

Schedules (per-round radii) are compared with the literal sums of products,
the closed forms with the general O(T) recursion (T up to 10^6) and with mpmath,
and epsilon(delta) with delta(epsilon).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from hockeystick.contraction import _kernels

from .test_contraction_reference import (
    geometric_sum,
    laplace,
    random_stop_sum,
    relative_error,
    schedule_sum,
    theta,
)

TOL = 1e-12
RNG = np.random.default_rng(20261122)


def upper_and_close(value, reference) -> bool:
    """Within 1e-12 relative, and never below the exact value (every delta is an upper bound); the
    kernels cap a delta at 1, so a reference above 1 is read as 1."""
    reference = min(reference, mp.mpf(1))
    return relative_error(value, reference) < TOL and mp.mpf(value) >= reference


def _radii(count: int, low: float, high: float) -> np.ndarray:
    return np.exp(RNG.uniform(np.log(low), np.log(high), count))


# Regimes of the two factors: a_t ordinary / tiny (log-space path), b_j near 0 / moderate / near 1.
REGIMES = [
    ("moderate", (0.3, 3.0), (0.5, 5.0), (0.1, 5.0)),
    ("b near 1", (0.1, 1.0), (20.0, 60.0), (0.1, 3.0)),
    ("b near 0", (0.5, 2.0), (1e-4, 1e-2), (0.1, 3.0)),
    ("a underflows", (0.01, 0.05), (1.0, 4.0), (8.0, 12.0)),
]


@pytest.mark.parametrize("name, first, product, eps_range", REGIMES, ids=[r[0] for r in REGIMES])
@pytest.mark.parametrize("rounds", [1, 2, 7, 40])
def test_schedule_sum_matches_literal_sum(name, first, product, eps_range, rounds):
    r1, r2 = _radii(rounds, *first), _radii(rounds, *product)
    eps = RNG.uniform(*eps_range, size=3)
    weight = float(RNG.uniform(0.01, 1.0))
    got = _kernels.schedule_delta(eps, weight, 0, r1, r2, 1)
    for e, value in zip(eps, got):
        reference = schedule_sum(e, r1, r2, weight)
        if reference < mp.mpf("1e-300"):  # below the double range: compare logs instead
            continue
        assert upper_and_close(value, reference), (name, rounds, e)


def test_schedule_sum_stays_finite_in_log_space_far_below_double_range():
    r1, r2 = np.full(5, 0.02), np.full(5, 2.0)
    got = _kernels.schedule_delta(np.array(12.0), 1.0, 0, r1, r2, 1)
    reference = schedule_sum(12.0, r1, r2, 1.0)
    assert reference < mp.mpf("1e-1000")
    # below the double range: the least subnormal (never below the bound); the solver reads its logarithm
    assert got == np.nextafter(0.0, 1.0)
    eps = _kernels.schedule_epsilon(np.array(1e-300), 1.0, 0, r1, r2, 1)
    assert 0 < eps < 12.0


@pytest.mark.parametrize("rounds, first_stop", [(1, 1), (5, 1), (12, 1), (12, 6), (25, 20)])
def test_random_stop_double_sum_matches_literal_double_sum(rounds, first_stop):
    r1, r2 = _radii(rounds, 0.2, 2.0), _radii(rounds, 0.5, 30.0)
    weight = 1.0 / (rounds * (rounds - first_stop + 1))
    for e in RNG.uniform(0.05, 4.0, size=3):
        got = _kernels.schedule_delta(np.array(e), weight, first_stop, r1, r2, 1)
        assert upper_and_close(got, random_stop_sum(e, r1, r2, weight, first_stop))


def _geometric_reference(eps, weight, terms, r1, r2):
    return (
        weight * theta(r1, eps) * geometric_sum(r2, eps, mp.inf if terms == np.inf else int(terms))
    )


GEOMETRIC_CASES = [  # eps, weight, T, r1, r2
    (1.0, 0.1, 10, 0.42, 8.43),  # 000 Fig 2, b = 1 - 1e-5
    (0.2, 0.1, 10, 0.42, 37.0),  # b = 1 - 1e-77: G = T to the last digit
    (3.0, 0.01, 100, 0.1, 0.5),  # tiny delta
    (10.0, 1e-3, 1000, 1.0, 30.0),
    (0.01, 0.5, 2, 2.0, 0.001),  # b ~ 4e-4
    (0.5, 1e-6, 10**6, 0.05, 60.0),  # T = 10^6, b -> 1
    (0.5, 1e-6, 10**6, 0.05, 9.0),  # T = 10^6, b^T underflows
    (2.0, 0.025, np.inf, 1.0, 1.0),  # 002 eq. 16
]


@pytest.mark.parametrize("eps, weight, terms, r1, r2", GEOMETRIC_CASES)
def test_geometric_closed_form_matches_mpmath(eps, weight, terms, r1, r2):
    got = _kernels.geometric_delta(
        np.float64(eps), np.float64(weight), np.float64(terms), np.float64(r1), np.float64(r2), 1
    )
    assert upper_and_close(got, _geometric_reference(eps, weight, terms, r1, r2))


@pytest.mark.parametrize("terms", [1, 3, 1000, 10**5, 10**6])
@pytest.mark.parametrize("r2", [0.01, 1.0, 6.0, 25.0])
def test_geometric_closed_form_equals_general_recursion(terms, r2):
    eps = np.array([0.3, 2.0])
    closed = _kernels.geometric_delta(
        eps, np.float64(1.0 / terms), np.float64(terms), np.float64(0.4), np.float64(r2), 1
    )
    general = _kernels.schedule_delta(
        eps, 1.0 / terms, 0, np.full(terms, 0.4), np.full(terms, r2), 1
    )
    np.testing.assert_allclose(closed, general, rtol=TOL, atol=0)


@pytest.mark.parametrize(
    "terms, first_stop",
    [(1, 1), (10, 1), (10, 5), (2000, 1), (2000, 1999), (10**5, 1), (10**5, 50000)],
)
@pytest.mark.parametrize("r2", [0.01, 1.0, 8.0, 40.0])
def test_random_stop_closed_form_equals_general_recursion(terms, first_stop, r2):
    eps = np.array([0.3, 2.0])
    weight = 1.0 / (terms * (terms - first_stop + 1))
    closed = _kernels.random_stop_delta(
        eps,
        np.float64(weight),
        np.float64(terms),
        np.float64(first_stop),
        np.float64(0.4),
        np.float64(r2),
        1,
    )
    general = _kernels.schedule_delta(
        eps, weight, first_stop, np.full(terms, 0.4), np.full(terms, r2), 1
    )
    np.testing.assert_allclose(closed, general, rtol=TOL, atol=0)


@pytest.mark.parametrize(
    "terms, first_stop, r2", [(7, 1, 0.8), (7, 4, 45.0), (50, 1, 20.0), (50, 26, 0.05)]
)
def test_random_stop_closed_form_matches_mpmath(terms, first_stop, r2):
    eps = 0.7
    weight = 1.0 / (terms * (terms - first_stop + 1))
    got = _kernels.random_stop_delta(
        np.float64(eps),
        np.float64(weight),
        np.float64(terms),
        np.float64(first_stop),
        np.float64(0.6),
        np.float64(r2),
        1,
    )
    with mp.workdps(120):
        reference = (
            weight
            * theta(0.6, eps)
            * mp.fsum(geometric_sum(r2, eps, tau) for tau in range(first_stop, terms + 1))
        )
    assert upper_and_close(got, reference)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_power_bound_matches_mpmath(noise):
    factor = theta if noise == "gaussian" else laplace
    for _ in range(20):
        g1, g2 = (float(x) for x in np.exp(RNG.uniform(np.log(0.05), np.log(8.0), 2)))
        k = float(RNG.integers(0, 60))
        eps = float(RNG.uniform(0.0, min(g1, g2) if noise == "laplace" else 6.0))
        got = _kernels.power_delta(
            noise, np.float64(eps), np.float64(k), np.float64(g1), np.float64(g2), 1
        )
        reference = factor(g1, eps) * factor(g2, eps) ** int(k)
        if reference < mp.mpf("1e-300"):  # not a double: covered by the log-space tests
            continue
        assert upper_and_close(got, reference)


def _assert_round_trip(delta_of, epsilon_of, deltas):
    eps = epsilon_of(deltas)
    back = delta_of(eps)
    assert np.all(back <= deltas * (1 + 1e-15)), "epsilon(delta) must satisfy delta(eps) <= delta"
    positive = eps > 0
    np.testing.assert_allclose(back[positive], deltas[positive], rtol=1e-12)
    # minimality: a slightly smaller epsilon violates the target
    smaller = eps[positive] * (1 - 1e-9)
    assert np.all(delta_of(smaller) > deltas[positive])


def test_round_trip_geometric():
    deltas = 10.0 ** RNG.uniform(-14, -1, size=400)
    args = (np.float64(0.05), np.float64(20.0), np.float64(0.4), np.float64(7.0))
    _assert_round_trip(
        lambda e: _kernels.geometric_delta(e, *args, 1),
        lambda d: _kernels.geometric_epsilon(d, *args, 1),
        deltas,
    )


def test_round_trip_random_stop():
    deltas = 10.0 ** RNG.uniform(-14, -1, size=200)
    args = (
        np.float64(1 / 200.0),
        np.float64(20.0),
        np.float64(11.0),
        np.float64(0.4),
        np.float64(7.0),
    )
    _assert_round_trip(
        lambda e: _kernels.random_stop_delta(e, *args, 1),
        lambda d: _kernels.random_stop_epsilon(d, *args, 1),
        deltas,
    )


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_round_trip_power(noise):
    deltas = 10.0 ** RNG.uniform(-14, -1, size=300)
    args = (np.float64(12.0), np.float64(2.5), np.float64(1.3))
    _assert_round_trip(
        lambda e: _kernels.power_delta(noise, e, *args, 1),
        lambda d: _kernels.power_epsilon(noise, d, *args, 1),
        deltas,
    )


def test_round_trip_schedule():
    deltas = 10.0 ** RNG.uniform(-14, -1, size=50)
    r1, r2 = _radii(30, 0.1, 1.0), _radii(30, 1.0, 20.0)
    _assert_round_trip(
        lambda e: _kernels.schedule_delta(e, 1 / 30, 0, r1, r2, 1),
        lambda d: _kernels.schedule_epsilon(d, 1 / 30, 0, r1, r2, 1),
        deltas,
    )
