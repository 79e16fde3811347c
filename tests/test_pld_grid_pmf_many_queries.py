"""The searches' fast paths against the slow paths they replace and 50-digit references.

- ``GridPMF.delta_tabled`` (a grid PMF's side with its charges and suffix maxima read from per-index
  tables): equal to ``delta_many`` once its suffix maxima are built and to ``delta`` on the
  pessimistic side, never below ``delta`` on the optimistic side, and between the exact delta of a
  composed Gaussian (closed form in mpmath) on the two sides, at eps < 0, on grid points and beyond;
- ``finite_atoms.epsilon_search`` with its cluster steps aimed by ``_inverse_cubic``: the answers
  satisfy their side's condition (upper: delta_up(eps) <= target; lower: delta_lo(eps) > target),
  lie within the tolerance of the crossing found by plain bisection on the same side, and bracket
  the exact epsilon of discrete Laplace atoms beside a Gaussian (mpmath, 50 digits);
- ``_inverse_cubic`` itself: exact where x is a cubic in g, the fallback where the points are not
  monotone or the estimate leaves the bracket.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld import finite_atoms as fa
from hockeystick.pld import gaussian
from hockeystick.pld.discrete_laplace import discrete_laplace_pair

mp.mp.dps = 50


def _gaussian_exact(r: float, eps: float) -> mp.mpf:
    """theta(r, eps) extended to eps < 0 by the symmetry of the Gaussian pair."""
    r_mp, e = mp.mpf(r), mp.mpf(eps)
    if e < 0:
        return 1 - mp.e**e + mp.e**e * _gaussian_exact(r, -eps)
    return mp.ncdf(-e / r_mp + r_mp / 2) - mp.e**e * mp.ncdf(-e / r_mp - r_mp / 2)


@pytest.mark.parametrize("sigma, count, h", [(1.0, 20, 1e-3), (3.0, 50, 2e-3), (0.8, 4, 5e-4)])
def test_delta_tabled_is_delta_many_and_certified(sigma, count, h):
    pld = gaussian(sigma, value_discretization_interval=h).self_compose(count)
    lower, upper = pld.composed(False)[0], pld.composed(True)[0]
    assert lower.total_error > 0 and upper.total_error > 0  # the charge and envelope tables are exercised
    r = math.sqrt(count) / sigma
    rng = np.random.default_rng(7)
    eps = np.concatenate(
        [
            rng.uniform(-2.0, r * r / 2 + 6 * r, 3000),
            lower.losses[::5],
            upper.losses[::5],
            [0.0, -np.inf, np.inf, 1e6, -1e6],
        ]
    )
    tab_lo, tab_up = lower.delta_tabled(eps), upper.delta_tabled(eps)
    np.testing.assert_array_equal(tab_up, upper.delta(eps))
    np.testing.assert_array_equal(tab_up, upper.delta_many(eps))
    assert np.all(tab_lo >= lower.delta(eps))  # never looser than delta's own optimistic side
    lower.delta_many(np.linspace(0.0, 20.0, lower.p.size))  # builds delta_many's suffix maxima
    np.testing.assert_array_equal(tab_lo, lower.delta_many(eps))
    assert np.all((tab_lo >= 0) & (tab_lo <= tab_up) & (tab_up <= 1))
    finite = np.isfinite(eps) & (np.abs(eps) < 100)
    for e, lo, hi in list(zip(eps[finite].tolist(), tab_lo[finite].tolist(), tab_up[finite].tolist()))[::25]:
        exact = _gaussian_exact(r, e)
        assert lo <= exact <= hi, (e, lo, float(exact), hi)


def test_delta_tabled_without_charges_is_the_uncharged_side():
    """A PMF with no round-off charge (one factor): the tables hold zeros and the optimistic side
    takes no envelope, as ``delta``."""
    pmfs = gaussian(1.5, value_discretization_interval=1e-3).composed(False)
    for pmf in pmfs:
        eps = np.linspace(-1.0, 5.0, 997)
        np.testing.assert_array_equal(pmf.delta_tabled(eps), pmf.delta(eps))


def _atoms_beside_gaussian(a: float, s: int, sigma: float, count: int, h: float):
    atoms = fa.pair_atoms(*discrete_laplace_pair(a, s))
    pld = gaussian(sigma, value_discretization_interval=h).self_compose(count)
    sides = {
        upper: (lambda eps, u=upper: fa.delta_with(atoms, fa.grid_side(pld.composed(u)[0]), eps, u))
        for upper in (True, False)
    }
    top = float(atoms.loss[-1]) + max((p.k_lo + p.p.size) * p.h for p in pld.composed(True)) + 1.0
    return atoms, sides, top, math.sqrt(count) / sigma


def _bisect(side, target: float, upper: bool, top: float, tolerance: float) -> float:
    """The crossing of one side by plain bisection (the slow reference search)."""
    lo, hi = 0.0, top
    while hi - lo > tolerance / 8:
        mid = 0.5 * (lo + hi)
        if float(side(np.array([mid]))[0]) > target:
            lo = mid
        else:
            hi = mid
    return hi if upper else lo


@pytest.mark.parametrize(
    "a, s, sigma, count, h, target",
    [
        (0.085, 2, 1.0, 10, 2.7e-3, 1e-5),
        (0.46, 1, 2.0, 15, 1.7e-3, 1e-5),
        (0.3, 1, 0.9, 4, 1e-3, 1e-3),
        (0.13, 1, 3.0, 40, 5e-4, 1e-6),
    ],
)
def test_cluster_search_lands_within_tolerance_and_brackets_the_exact_epsilon(a, s, sigma, count, h, target):
    atoms, sides, top, r = _atoms_beside_gaussian(a, s, sigma, count, h)
    tolerance = 1e-6
    found = {}
    for upper in (True, False):
        eps = fa.epsilon_search(sides[upper], target, upper, top, tolerance, first_pass=7, cluster=30)
        value = float(sides[upper](np.array([eps]))[0])
        assert (value <= target) if upper else (value > target)  # the side's own certificate
        assert abs(eps - _bisect(sides[upper], target, upper, top, tolerance)) <= tolerance
        # from a coarser bracket (hints), as a finer grid's search starts
        hinted = fa.epsilon_search(
            sides[upper], target, upper, top, tolerance, hints=(eps - 3e-3, eps + 2e-3), cluster=30
        )
        assert abs(hinted - eps) <= tolerance
        found[upper] = eps
    # the exact delta of the atoms beside the Gaussian: sum_j p_j theta(r, eps - l_j) (finite_atoms (*))
    a_mp = mp.mpf(a)
    p_exact = (
        [mp.e ** (-a_mp * s) / (1 + mp.e**-a_mp)]
        + [mp.tanh(a_mp / 2) * mp.e ** (-a_mp * (s - x)) for x in range(1, s)]
        + [1 / (1 + mp.e**-a_mp)]
    )
    losses = [a_mp * (2 * x - s) for x in range(s + 1)]

    def exact(e: float) -> mp.mpf:
        return sum(p * _gaussian_exact(r, float(mp.mpf(e) - l)) for p, l in zip(p_exact, losses))

    assert exact(found[True]) <= target < exact(found[False])


def test_inverse_cubic_is_exact_on_a_cubic_and_falls_back():
    xs = np.array([0.0, 0.1, 0.2, 0.3, 0.4])
    g = 1.0 - 3.0 * xs - 0.5 * xs**2  # strictly decreasing; x(g) is not a cubic, but close
    values = np.exp(g) * 1e-5  # log(values) - log(1e-5) = g
    estimate = fa._inverse_cubic(xs, values, 0.3, 0.4, math.log(1e-5), fallback=-1.0)
    root = (-3.0 + math.sqrt(9.0 + 2.0)) / 1.0  # 1 - 3x - x^2/2 = 0
    assert 0.3 < estimate < 0.4 and abs(estimate - root) < 1e-4
    # x exactly a cubic in g: exact
    gs = np.array([0.9, 0.3, -0.2, -0.8])
    cubic = 0.5 - 0.2 * gs + 0.05 * gs**2 - 0.01 * gs**3
    assert fa._inverse_cubic(cubic, np.exp(gs), float(cubic[1]), float(cubic[2]), 0.0, -1.0) == pytest.approx(
        0.5, abs=1e-14
    )
    # not monotone: the fallback
    bumpy = np.array([1e-5 * math.e, 1e-5 * 0.5, 1e-5 * 2.0, 1e-5 * 0.1])
    assert fa._inverse_cubic(np.array([0.0, 0.1, 0.2, 0.3]), bumpy, 0.0, 0.1, math.log(1e-5), 0.05) == 0.05
    # nothing beyond one end: the fallback
    assert fa._inverse_cubic(np.array([0.1, 0.2]), np.array([2e-5, 5e-6]), 0.1, 0.2, math.log(1e-5), 0.15) == 0.15


def test_check_mixture_plain_path_is_the_array_path():
    """A few components given as tuples or lists of floats (the plans' specs) skip the array checks: the
    same arrays, and invalid input still reaches the array path's ValueError."""
    from hockeystick.pld.laplace_mixture import laplace_mixture
    from hockeystick.pld.monotone import check_mixture

    for shifts, weights in [
        ((0.0, 1.0), (0.9271864453057831, 0.0728135546942169)),
        ((0.0, 1.0), (1.0, 0.0)),
        ((0.5, 2.0, 3.0), (0.2, 0.3, 0.5)),
    ]:
        plain, arrays = check_mixture(shifts, weights), check_mixture(np.array(shifts), np.array(weights))
        for x, y in zip(check_mixture(list(shifts), list(weights)), arrays):
            np.testing.assert_array_equal(x, y)
        for x, y in zip(plain, arrays):
            np.testing.assert_array_equal(x, y)
            assert x.dtype == y.dtype == np.float64
        one = laplace_mixture(2.47, shifts, weights, value_discretization_interval=2e-3)
        two = laplace_mixture(2.47, np.array(shifts), np.array(weights), value_discretization_interval=2e-3)
        for upper in (True, False):
            for a, b in zip(one.composed(upper), two.composed(upper)):
                np.testing.assert_array_equal(a.p, b.p)
    for shifts, weights in [
        ((0.0, -1.0), (0.5, 0.5)),
        ((0.0, 1.0), (0.5, 0.6)),
        ((0.0, math.nan), (0.5, 0.5)),
        ((0.0, 1.0), (1.0,)),
        ((), ()),
        ((0.0, math.inf), (0.5, 0.5)),
        ([0.0, 1.0], [0.5, -0.5]),
    ]:
        with pytest.raises(ValueError, match="shifts|weights"):
            check_mixture(shifts, weights)
