"""Finite PLDs composed exactly (pld.finite_atoms) against 50-digit enumeration.

The composed profile of finite pairs is a finite sum, so mpmath enumerates it exactly: k-fold
discrete Laplace (binomial / trinomial), randomized response, a Poisson-sampled discrete Laplace
(no lattice: the sub-grid path), the atoms beside a Gaussian (theta shifted by each atom's loss)
and beside a grid PLD; the certified bracket must contain the exact value and be narrow.
"""

from __future__ import annotations

import functools
import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick.numerics.hockey_stick import theta
from hockeystick.pld.compose import finite_atoms as fa
from hockeystick.pld.grid import atoms as atoms_core
from hockeystick.pld.mechanisms.discrete_laplace import discrete_laplace_pair
from hockeystick.pld.mechanisms.randomized_response import randomized_response_pair
from hockeystick.pld.sampling.subsampling import poisson_subsampled_pair

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def exact_delta(
    pairs: list[tuple[np.ndarray, np.ndarray, int]], eps: float, gaussian_r: float = 0.0
) -> mp.mpf:
    """delta(eps) of the composition, by enumerating every outcome (and theta for a Gaussian beside it)."""
    atoms = _enumerated(tuple((tuple(p), tuple(q), count) for p, q, count in pairs), mp.mp.dps)
    total = mp.mpf(0)
    for loss, mass in atoms.items():
        if loss is None:
            total += mass
        elif gaussian_r > 0:
            shifted = mp.mpf(eps) - loss
            r = mp.mpf(gaussian_r)
            t = lambda e: mp.ncdf(-e / r + r / 2) - mp.e**e * mp.ncdf(-e / r - r / 2)  # noqa: E731
            total += mass * t(shifted)  # theta's formula holds at every real eps
        elif loss > eps:
            total += mass * (1 - mp.e ** (mp.mpf(eps) - loss))
    return total


@functools.lru_cache(maxsize=8)
def _enumerated(pairs: tuple[tuple[tuple, tuple, int], ...], dps: int) -> dict:
    """loss -> P-mass of the composition (+inf under the key None), every outcome enumerated at ``dps``
    digits; the pairs given as tuples of their masses (doubles or mpf, equal values read alike), so
    that each delta(eps) of one composition (a test's several epsilons, a bisection's steps) sums the
    one enumeration (read only)."""
    atoms = {mp.mpf(0): mp.mpf(1)}
    for p, q, count in pairs:
        one: dict = {}
        for pi, qi in zip(p, q):
            if pi == 0:
                continue
            key = None if qi == 0 else mp.log(mp.mpf(pi)) - mp.log(mp.mpf(qi))
            one[key] = one.get(key, 0) + mp.mpf(pi)
        for _ in range(count):
            nxt: dict = {}
            for (l1, m1), (l2, m2) in itertools.product(atoms.items(), one.items()):
                key = None if l1 is None or l2 is None else l1 + l2
                nxt[key] = nxt.get(key, 0) + m1 * m2
            atoms = nxt
    return atoms


def composed(pairs, direction=0):
    return fa.compose_all(
        [(fa.pair_atoms(*(p, q) if direction == 0 else (q, p)), c) for p, q, c in pairs]
    )


@pytest.mark.parametrize("a, s, count", [(0.3, 1, 11), (0.11, 2, 60), (0.46, 3, 7)])
def test_self_composed_discrete_laplace_is_exact(a, s, count):
    p, q = discrete_laplace_pair(a, s)
    atoms = composed([(p, q, count)])
    assert atoms.index.size == count * s + 1  # stays on the lattice
    for eps in (0.0, 0.4, 1.7, 5.0):
        ex = exact_delta([(p, q, count)], eps)
        lo, up = (
            fa.delta(atoms, np.array([eps]), False)[0],
            fa.delta(atoms, np.array([eps]), True)[0],
        )
        assert lo <= ex <= up
        assert up - lo <= 1e-10 * float(ex)


def test_two_lattices_and_randomized_response_meet_on_the_sub_grid():
    parts = [
        (*discrete_laplace_pair(0.27, 1), 9),
        (*discrete_laplace_pair(0.46, 2), 5),
        (*randomized_response_pair(0.4, 5, "replace_one"), 4),
    ]
    atoms = composed(parts)
    for eps in (0.0, 0.9, 2.5):
        ex = exact_delta(parts, eps)
        lo, up = (fa.delta(atoms, np.array([eps]), side)[0] for side in (False, True))
        assert lo <= ex <= up and up - lo <= 1e-8 * float(ex)


def test_poisson_sampled_pair_both_directions_and_epsilon():
    p, q = poisson_subsampled_pair(*discrete_laplace_pair(0.5, 2), 0.2)
    for direction in (0, 1):
        atoms = composed([(p, q, 12)], direction)
        pp, qq = (p, q) if direction == 0 else (q, p)
        for target in (1e-3, 1e-6):
            lo, up = fa.pure_epsilon(atoms, target, False), fa.pure_epsilon(atoms, target, True)
            assert lo <= up and up - lo < 1e-8
            # the exact delta crosses the target inside the bracket
            assert exact_delta([(pp, qq, 12)], up) <= target <= exact_delta([(pp, qq, 12)], lo)


def test_atoms_beside_a_gaussian_and_a_grid_pld():
    p, q = discrete_laplace_pair(0.35, 1)
    atoms = composed([(p, q, 6)])
    r = 0.7
    for eps in (0.2, 1.5):
        ex = exact_delta([(p, q, 6)], eps, gaussian_r=r)

        def gauss(e, widen):
            t = np.asarray(theta(r, np.abs(e))) * widen
            return np.where(
                e >= 0, t, -np.expm1(np.minimum(e, 0)) * widen + np.exp(np.minimum(e, 0)) * t
            )

        lo = fa.delta_with(atoms, lambda e: gauss(e, 1 - 4e-12), np.array([eps]), False)[0]
        up = fa.delta_with(atoms, lambda e: gauss(e, 1 + 4e-12), np.array([eps]), True)[0]
        assert lo <= ex <= up and up - lo <= 1e-10 * float(ex)
    # beside a grid PLD of the same Gaussian: the bracket still holds the exact value
    from hockeystick.pld import gaussian

    g = gaussian(1 / r, value_discretization_interval=1e-3)
    ex = exact_delta([(p, q, 6)], 1.0, gaussian_r=r)
    lo = fa.delta_with(atoms, fa.grid_side(g.composed(False)[0]), np.array([1.0]), False)[0]
    up = fa.delta_with(atoms, fa.grid_side(g.composed(True)[0]), np.array([1.0]), True)[0]
    assert lo <= ex <= up and up - lo < 1e-4


def test_many_atoms_are_merged_outward(monkeypatch):
    p, q = poisson_subsampled_pair(*randomized_response_pair(0.3, 4, "replace_special"), 0.3)
    parts = [(p, q, 12), (*discrete_laplace_pair(0.2, 3), 8)]
    reference = composed(parts)  # unmerged: below the default cap
    monkeypatch.setattr(atoms_core, "MAX_ATOMS", 128)
    merged = composed(parts)
    assert merged.index.size <= 128 < reference.index.size
    for eps in (0.0, 0.5, 2.0):
        ex = exact_delta(parts, eps)
        for atoms, width in ((reference, 1e-8), (merged, 0.1)):
            lo, up = (fa.delta(atoms, np.array([eps]), side)[0] for side in (False, True))
            assert lo <= ex <= up and up - lo < width


def test_epsilon_search_certifies_both_ends():
    p, q = discrete_laplace_pair(0.3, 2)
    atoms = composed([(p, q, 20)])
    exact = fa.pure_epsilon(atoms, 1e-4, True)
    up = fa.epsilon_search(lambda e: fa.delta(atoms, e, True), 1e-4, True, 20.0, 1e-9)
    lo = fa.epsilon_search(lambda e: fa.delta(atoms, e, False), 1e-4, False, 20.0, 1e-9)
    assert lo <= exact <= up + 1e-12 and up - lo < 1e-8
    assert fa.epsilon_search(lambda e: np.full(e.shape, 0.5), 0.1, True, 5.0, 1e-9) == math.inf
