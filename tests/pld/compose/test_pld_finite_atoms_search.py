"""The epsilon search of pld.finite_atoms against plain bisection and 50-digit references.

- ``finite_atoms.epsilon_search`` with its cluster steps: the answers satisfy their side's
  condition (upper: delta_up(eps) <= target; lower: delta_lo(eps) > target), lie within the
  tolerance of the crossing found by plain bisection on the same side, and bracket the exact
  epsilon of discrete Laplace atoms beside a Gaussian (mpmath, 50 digits) (the cluster's aim:
  test_atoms_epsilon_core.py).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld import gaussian
from hockeystick.pld.compose import atoms_epsilon
from hockeystick.pld.compose import finite_atoms as fa
from hockeystick.pld.mechanisms.discrete_laplace import discrete_laplace_pair

from ..grid.test_pld_grid_pmf_many_queries import _gaussian_exact

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


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
def test_cluster_search_lands_within_tolerance_and_brackets_the_exact_epsilon(
    a, s, sigma, count, h, target
):
    atoms, sides, top, r = _atoms_beside_gaussian(a, s, sigma, count, h)
    tolerance = 1e-6
    found = {}
    for upper in (True, False):
        eps = fa.epsilon_search(
            sides[upper], target, upper, top, tolerance, first_pass=7, cluster=30
        )
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


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("target", [5e-324, 1e-310, 1e-200])
def test_search_below_the_gap_floor_keeps_each_end_on_its_side(upper, target):
    """A side curve at 1e-305 below eps = 1 and 0 above, searched for a target below and above the log gap's floor
    (1e-300): the lower side's answer 0 or with delta above the target (in (0, 1) when the target is below 1e-305,
    where a side decided by the floored gap, 0 read as 1e-300 above the target, put it near the top), the upper
    side's at most it."""

    def curve(xs: np.ndarray) -> np.ndarray:
        return np.where(xs < 1.0, 1e-305, 0.0)

    found = atoms_epsilon.epsilon_search(curve, target, upper=upper, top=2.0, tolerance=1e-9)
    value = float(curve(np.array([found]))[0])
    assert (value <= target) if upper else (found == 0.0 or value > target)
    if not upper and target < 1e-305:
        assert 0.0 < found < 1.0
