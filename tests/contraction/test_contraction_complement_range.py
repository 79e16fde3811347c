"""The geometric bound with T = inf where 1 - theta_eps(r2) is subnormal or below the double range.

There w theta(r1) / (1 - theta(r2)) (002 eq. 16) is a number while both theta(r1) and 1 - theta(r2)
underflow; the bound carries log(1 - theta(r2)) (contraction/factor.hpp) and must report that number,
never below it and within the documented margin above it (a few 1e-12 relative: the logarithms' roundings),
on the per-point kernel, the factor table and the epsilon solve.  The exact values are the 120-digit references of test_contraction_reference.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np

from hockeystick import _core

from .test_contraction_reference import geometric_sum, theta
from .test_contraction_vanishing import _from_factors


def _points(
    low: float = 40.0, high: float = 600.0, n: int = 30, seed: int = 20261202
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(eps, weight, r1, r2): the issue's point, then a sweep of second radii whose complement is below
    e^-700, with first radii chosen so that the bound is near w e^-u, u in [low, high]."""
    rng = np.random.default_rng(seed)
    eps = np.concatenate([[8.9], rng.uniform(0.0, 40.0, n)])
    r2 = np.concatenate([[99.5], rng.uniform(74.5, 110.0, n)])
    weight = np.concatenate([[1.0], np.exp(rng.uniform(np.log(1e-6), 0.0, n))])
    # log(1 - theta(r2)) ~ -x^2/2 with x = r2/2 - eps/r2; theta(r1) ~ e^{-y^2/2}, y = eps/r1 - r1/2: y^2 = x^2 + 2 u
    # puts the bound near w e^-u
    x = r2 / 2 - eps / r2
    y = np.sqrt(x**2 + 2 * rng.uniform(low, high, n + 1))
    y[0] = 8.9 / 0.155 - 0.155 / 2
    r1 = -y + np.sqrt(y**2 + 2 * eps)  # eps/r1 - r1/2 = y
    r1[0] = 0.155
    return eps, weight, r1, r2


def _exact(eps: float, weight: float, r1: float, r2: float) -> tuple[mp.mpf, float]:
    """The bound and how far above it the reported value may lie: safe_side (2^-42), and
    geometric_value_below_range's margin e^{2^-51 s} plus the roundings it covers (at most as much),
    s = |log theta(r1)| + |log w| + |log(1 - theta(r2))|."""
    a, g = theta(r1, eps), geometric_sum(r2, eps, mp.inf)
    spread = float(abs(mp.log(a)) + abs(mp.log(weight)) + abs(mp.log(g)))
    return mp.mpf(weight) * a * g, 2.0**-42 + 2.0**-50 * spread * (1 + 1e-9) + 1e-15


def _excess(reported: np.ndarray, exact: list[mp.mpf]) -> np.ndarray:
    with mp.workdps(40):
        return np.array([float(mp.mpf(float(v)) / e - 1) for v, e in zip(reported, exact)])


def test_infinite_sum_with_a_complement_below_range_is_reported() -> None:
    c = _core.contraction
    eps, weight, r1, r2 = _points()
    exact, allowed = zip(*(_exact(*p) for p in zip(eps, weight, r1, r2)))
    assert (
        3.8e-182 < exact[0] < 4e-182
    )  # r1 0.155, r2 99.5, eps 8.9: theta(r1) and 1 - theta(r2) underflow
    assert all(mp.mpf("1e-300") < e < 1 for e in exact)
    terms = np.full(eps.size, np.inf)
    direct = c.geometric_bound_delta(
        eps, weight=weight, terms=terms, r_first=r1, r_product=r2, threads=1
    )
    table = c.gaussian_factor_pairs(eps, r1, r2, threads=1)
    assert (table[2] < 1e-300).all() and (table[2] == 0).any() and (table[2] > 0).any()
    tabled = _from_factors(weight, terms, table)
    np.testing.assert_array_equal(tabled, direct)
    excess = _excess(direct, exact)
    assert (excess >= 0).all(), excess.min()
    assert (excess <= np.array(allowed)).all(), (excess - np.array(allowed)).max()


def test_epsilon_with_a_complement_below_range_keeps_its_delta() -> None:
    c = _core.contraction
    eps, weight, r1, r2 = _points()
    terms = np.full(eps.size, np.inf)
    delta = c.geometric_bound_delta(
        eps, weight=weight, terms=terms, r_first=r1, r_product=r2, threads=1
    )
    solved = c.geometric_bound_epsilon(
        delta, weight=weight, terms=terms, r_first=r1, r_product=r2, threads=1
    )
    back = c.geometric_bound_delta(
        solved, weight=weight, terms=terms, r_first=r1, r_product=r2, threads=1
    )
    assert (back <= delta).all()
    np.testing.assert_allclose(solved, eps, rtol=1e-12)


def test_subnormal_bound_with_a_complement_below_range_is_not_below_it() -> None:
    """Where w theta(r1) / (1 - theta(r2)) is subnormal (and 1 - theta(r2) below the normal range), its
    rounding onto the subnormal grid is made up (within four steps of it): two steps for exp's and the product's rounding
    (``up_from_subnormal``), one for the margin's product (``geometric_value_below_range``)."""
    eps, weight, r1, r2 = (p[1:] for p in _points(705.0, 730.0, n=24, seed=7))
    weight = np.ones_like(weight)
    exact = [_exact(*p)[0] for p in zip(eps, weight, r1, r2)]
    direct = _core.contraction.geometric_bound_delta(
        eps, weight=weight, terms=np.full(eps.size, np.inf), r_first=r1, r_product=r2, threads=1
    )
    tiny = np.finfo(float).tiny
    below_range = _core.contraction.gaussian_factor_pairs(eps, r1, r2, threads=1)[2] < tiny
    subnormal = (direct > 0) & (direct < tiny) & below_range
    assert subnormal.sum() >= 10
    step = np.nextafter(0.0, 1.0)
    with mp.workdps(40):
        for v, e in zip(direct[subnormal], np.array(exact)[subnormal]):
            assert e <= mp.mpf(float(v)) <= e * (1 + mp.mpf(1e-11)) + 4 * step
