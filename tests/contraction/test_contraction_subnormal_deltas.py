"""Deltas at the bottom of the double range, on every route: never below the exact bound.

Below 2.2e-308 a double's spacing is absolute (4.9e-324), so the 2^-42 relative margin every reported
delta carries (contraction/bounds.hpp, ``safe_side``) may fall below one step and no longer covers the
rounding of exp and of the products.  A subnormal result is moved up by two steps of that grid
(``up_from_subnormal``), and a product whose factor ``w theta(r1)`` or whose value leaves the normal
range is taken by logarithms instead; a positive bound whose double is 0 (below half the least subnormal, or
skipped far out in theta's tail) is the least subnormal, and only a bound whose factor is exactly 0 is 0.
The bounds here are the papers' formulas at 120 digits
(test_contraction_reference): 000 Thm 2 (geometric, schedule), 000 Cor 3 (random stop), 002's power
bound; each weight is chosen so that the exact bound lands at 10^u, u drawn below -300 (subnormal
results, and normal results of a subnormal ``w theta(r1)`` times a large geometric sum).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np

from hockeystick import _core

from .test_contraction_reference import (
    geometric_sum,
    laplace,
    random_stop_sum,
    schedule_sum,
    theta,
)
from .test_contraction_vanishing import _from_factors

STEP = float(np.nextafter(0.0, 1.0))
TINY = float(np.finfo(float).tiny)


def _targets(rng: np.random.Generator, n: int) -> list[mp.mpf]:
    """Exact values at 10^u: u in [-322, -309] (subnormal) for the first half, [-307, -300] after."""
    low = rng.uniform(-322.0, -309.0, n - n // 2)
    high = rng.uniform(-307.0, -300.0, n // 2)
    return [mp.power(10, mp.mpf(float(u))) for u in np.concatenate([low, high])]


def _check(reported: np.ndarray, exact: list[mp.mpf]) -> None:
    """Each reported value is at least its exact bound and within 4 subnormal steps (or 1e-11 relative)
    of it; a positive exact value below half the least subnormal (2^-1075) is the least subnormal."""
    subnormal = 0
    with mp.workdps(40):
        for value, bound in zip(reported, exact):
            if bound < mp.mpf(2) ** -1075:
                assert value == (STEP if bound > 0 else 0.0), (float(value), bound)
                continue
            v = mp.mpf(float(value))
            assert v >= bound, (float(value), bound)
            assert v <= bound * (1 + mp.mpf("1e-11")) + 4 * STEP, (float(value), bound)
            subnormal += 0.0 < value < TINY
    assert subnormal >= 4


def test_geometric_bound_at_the_bottom_of_the_range() -> None:
    rng = np.random.default_rng(20261202)
    n = 16
    eps = rng.uniform(0.0, 20.0, n)
    r1 = rng.uniform(0.3, 3.0, n)
    # subnormal targets: theta(r2) near 0 (G about 1), 7 terms; normal ones: theta(r2) near 1 and 10^6
    # terms (G = 10^6: w theta(r1) leaves the normal range where the bound does not)
    terms = np.where(np.arange(n) < n - n // 2, 7.0, 1e6)
    r2 = np.where(terms > 100, rng.uniform(30.0, 60.0, n), rng.uniform(1e-3, 0.05, n))
    exact, weight = [], []
    for target, e, a, b, t in zip(_targets(rng, n), eps, r1, r2, terms):
        unit = theta(a, e) * geometric_sum(b, e, t)
        weight.append(float(target / unit))
        exact.append(mp.mpf(weight[-1]) * unit)
    reported = _core.contraction.geometric_bound_delta(
        eps, weight=np.array(weight), terms=terms, r_first=r1, r_product=r2, threads=1
    )
    _check(reported, exact)


def test_random_stop_and_schedule_bounds_at_the_bottom_of_the_range() -> None:
    rng = np.random.default_rng(7)
    n, rounds, first_stop = 12, 6, 2
    eps = rng.uniform(0.0, 10.0, n)
    r1 = rng.uniform(0.3, 3.0, n)
    r2 = rng.uniform(0.5, 4.0, n)
    targets = _targets(rng, n)
    stop_exact, stop_weight, schedule_exact, schedule_reported = [], [], [], []
    for target, e, a, b in zip(targets, eps, r1, r2):
        unit = random_stop_sum(e, [a] * rounds, [b] * rounds, 1, first_stop)
        stop_weight.append(float(target / unit))
        stop_exact.append(mp.mpf(stop_weight[-1]) * unit)
        unit = schedule_sum(e, [a] * rounds, [b] * rounds, 1)
        w = float(target / unit)
        schedule_exact.append(mp.mpf(w) * unit)
        schedule_reported.append(
            _core.contraction.schedule_bound_delta(
                [e], weight=w, first_stop=0, r_first=[a] * rounds, r_product=[b] * rounds, threads=1
            )[0]
        )
    reported = _core.contraction.random_stop_bound_delta(
        eps,
        weight=np.array(stop_weight),
        terms=np.full(n, float(rounds)),
        first_stop=np.full(n, float(first_stop)),
        r_first=r1,
        r_product=r2,
        threads=1,
    )
    _check(reported, stop_exact)
    _check(np.array(schedule_reported), schedule_exact)


def test_power_bounds_at_the_bottom_of_the_range() -> None:
    """theta(g1) theta(g2)^k (Gaussian, k = 0 included) and a Laplace factor's power: the first radius
    or the exponent chosen for the exact value to land near each target."""
    rng = np.random.default_rng(11)
    n = 16
    eps = rng.uniform(0.5, 5.0, n)
    g2 = rng.uniform(2.0, 4.0, n)
    exponent = np.where(np.arange(n) % 4 == 0, 0.0, rng.integers(1, 40, n).astype(float))
    gaussian_exact, g1 = [], []
    for target, e, b, k in zip(_targets(rng, n), eps, g2, exponent):
        rest = theta(b, e) ** int(k)
        # theta(g1) ~ Q(x) ~ e^{-x^2/2} at x = eps/g1 - g1/2: the x of target / rest, then g1 from x
        x = float(mp.sqrt(-2 * mp.log(target / rest)))
        g1.append(-x + float(np.sqrt(x * x + 2 * e)))
        gaussian_exact.append(theta(g1[-1], e) * rest)
    reported = _core.contraction.power_bound_delta(
        "gaussian", eps, exponent=exponent, g_first=np.array(g1), g_product=g2, threads=1
    )
    _check(reported, gaussian_exact)
    # Laplace: [1 - e^{(eps - g)/2}]_+ to the power, the product's exponent sized for 10^u
    targets = _targets(rng, n)
    g = rng.uniform(3.0, 8.0, n)
    k = np.array(
        [int(mp.floor(mp.log(t) / mp.log(laplace(x, 0.0)))) for t, x in zip(targets, g)], float
    )
    laplace_exact = [laplace(x, 0.0) ** (int(j) + 1) for x, j in zip(g, k)]
    reported = _core.contraction.power_bound_delta(
        "laplace", np.zeros(n), exponent=k, g_first=g, g_product=g, threads=1
    )
    _check(reported, laplace_exact)


def test_positive_bounds_far_below_the_range_are_the_least_subnormal() -> None:
    """Bounds near 1e-1000 (theta(r1) far out in its tail; each kernel's skip and log routes) report the
    least subnormal, never 0, and a bound with an exactly vanishing factor (r1 = 0, eps = inf, the
    Laplace factor at eps >= g) reports 0."""
    c = _core.contraction
    eps = np.array([60.0, 400.0, np.inf, 60.0])
    r1 = np.array([1.0, 0.5, 1.0, 0.0])
    expected = np.array([STEP, STEP, 0.0, 0.0])
    assert all(0 < theta(float(r), float(e)) < mp.mpf("1e-700") for r, e in zip(r1[:2], eps[:2]))
    four = np.ones(4)
    kw = {"weight": 0.5 * four, "r_first": r1, "r_product": 2.0 * four, "threads": 1}
    for terms in (7.0, np.inf):
        got = c.geometric_bound_delta(eps, terms=terms * four, **kw)
        np.testing.assert_array_equal(got, expected)
    got = c.random_stop_bound_delta(eps, terms=50.0 * four, first_stop=3.0 * four, **kw)
    np.testing.assert_array_equal(got, expected)
    # the factor table's route: its skipped and evaluated pairs alike
    for bound in (np.inf, float(np.log(0.5 * 7.0))):
        table = c.gaussian_factor_pairs(eps, r1, 2.0 * four, log_rest_bound=bound, threads=1)
        got = _from_factors(0.5 * four, 7.0 * four, table)
        np.testing.assert_array_equal(got, expected)
    for exponent in (0.0, 3.0):
        got = c.power_bound_delta(
            "gaussian", eps, exponent=exponent * four, g_first=r1, g_product=2.0 * four, threads=1
        )
        np.testing.assert_array_equal(got, expected)
    # Laplace: (1 - e^{(eps - g)/2})^3 at g = 1e-300 above eps = 0: positive, far below the range; 0 at eps >= g
    two = np.ones(2)
    got = c.power_bound_delta(
        "laplace",
        np.array([0.0, 2.0]),
        exponent=2.0 * two,
        g_first=1e-300 * two,
        g_product=1e-300 * two,
        threads=1,
    )
    np.testing.assert_array_equal(got, [STEP, 0.0])
    # the schedule: a positive round kept by a positive product factor; one whose product factor is 0 (r = 0)
    # cuts what came before it
    got = c.schedule_bound_delta(
        np.array([60.0, np.inf]),
        weight=1.0,
        first_stop=0,
        r_first=np.array([1.0, 0.0]),
        r_product=np.array([2.0, 2.0]),
        threads=1,
    )
    np.testing.assert_array_equal(got, [STEP, 0.0])
    cut = c.schedule_bound_delta(
        np.array([60.0]),
        weight=1.0,
        first_stop=0,
        r_first=np.array([1.0, 0.0]),
        r_product=np.array([2.0, 0.0]),
        threads=1,
    )
    np.testing.assert_array_equal(cut, [0.0])
