"""The lean paths of pld.finite_atoms (plain floats for few atoms, dense convolution on a lattice)
against the numpy paths they replace and against 50-digit enumeration, both sides.

Each fast path is forced off with monkeypatch (``LEAN_ATOMS = 0``: numpy everywhere; ``DENSE_FILL = 0``:
outer products and merging) so the two answers can be compared on the same pairs; the exact values come
from ``exact_delta`` of tests/pld/compose/test_pld_finite_atoms.py (every outcome enumerated in mpmath).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld.compose import atoms_delta, atoms_epsilon
from hockeystick.pld.compose import finite_atoms as fa
from hockeystick.pld.grid import atoms as atoms_core
from hockeystick.pld.mechanisms.canonical import canonical_pair
from hockeystick.pld.mechanisms.discrete_laplace import discrete_laplace_pair
from hockeystick.pld.mechanisms.randomized_response import randomized_response_pair
from hockeystick.pld.sampling.subsampling import poisson_subsampled_pair

from .test_pld_finite_atoms import exact_delta

U = np.finfo(np.float64).eps / 2

PAIRS = {
    "dlap(0.32, 1)": discrete_laplace_pair(0.32, 1),
    "dlap(0.2, 2)": discrete_laplace_pair(0.2, 2),
    "dlap(0.05, 5)": discrete_laplace_pair(0.05, 5),
    "rr(0.3, 6)": randomized_response_pair(0.3, 6, "replace_one"),
    "rr special": randomized_response_pair(0.4, 4, "replace_special"),
    "canonical(1, 0.1)": canonical_pair(1.0, 0.1),
    "poisson dlap": poisson_subsampled_pair(*discrete_laplace_pair(0.5, 2), 0.2),
}


def _numpy_path(monkeypatch):
    monkeypatch.setattr(atoms_core, "LEAN_ATOMS", 0)
    monkeypatch.setattr(atoms_core, "DENSE_FILL", 0)


@pytest.mark.parametrize("name", PAIRS)
def test_lean_pair_atoms_equal_the_numpy_ones(name, monkeypatch):
    p, q = PAIRS[name]
    lean = fa.pair_atoms(p, q)
    _numpy_path(monkeypatch)
    ref = fa.pair_atoms(p, q)
    assert lean.index.tolist() == ref.index.tolist() and lean.eta == ref.eta
    assert lean.p_inf == pytest.approx(ref.p_inf, rel=4 * U, abs=0.0)
    np.testing.assert_allclose(lean.mass, ref.mass, rtol=0, atol=0)
    assert lean.loss_error == ref.loss_error and lean.rel_error == ref.rel_error


@pytest.mark.parametrize("a, s, count", [(0.48, 1, 8), (0.2, 2, 5), (0.11, 1, 60), (0.3, 3, 13)])
def test_dense_self_composition_matches_the_outer_product(a, s, count, monkeypatch):
    p, q = discrete_laplace_pair(a, s)
    dense = fa.self_compose(fa.pair_atoms(p, q), count)
    _numpy_path(monkeypatch)
    ref = fa.self_compose(fa.pair_atoms(p, q), count)
    assert dense.index.tolist() == ref.index.tolist() and dense.eta == ref.eta
    np.testing.assert_allclose(dense.mass, ref.mass, rtol=1e-13, atol=0)
    assert dense.loss_error == ref.loss_error and dense.p_inf == ref.p_inf
    # the charge may differ (a different bound on the same sums); both must hold the exact value
    for eps in (0.0, 0.7, 2.0):
        ex = exact_delta([(p, q, count)], eps)
        for atoms in (dense, ref):
            lo, up = (fa.delta(atoms, np.array([eps]), side)[0] for side in (False, True))
            assert lo <= ex <= up and up - lo <= 1e-10 * float(ex) + 1e-14  # at the top loss ex = 0


def _exact_epsilon(parts, target: float) -> mp.mpf:
    """The exact epsilon by bisection on the enumerated delta (50 digits)."""
    lo, hi = mp.mpf(0), mp.mpf(60)
    if exact_delta(parts, 0.0) <= target:
        return mp.mpf(0)
    for _ in range(120):
        mid = (lo + hi) / 2
        if exact_delta(parts, mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


@pytest.mark.parametrize(
    "name, count, target",
    [
        ("dlap(0.32, 1)", 1, 1e-5),
        ("dlap(0.2, 2)", 1, 1e-3),
        ("dlap(0.48, 1)", 8, 1e-5),
        ("rr(0.3, 6)", 3, 1e-4),
        ("canonical(1, 0.1)", 2, 0.25),
        ("poisson dlap", 4, 1e-4),
        ("dlap(0.05, 5)", 2, 0.3),
    ],
)
def test_lean_pure_epsilon_brackets_the_exact_value_and_matches_numpy(
    name, count, target, monkeypatch
):
    p, q = discrete_laplace_pair(0.48, 1) if name == "dlap(0.48, 1)" else PAIRS[name]
    atoms = fa.self_compose(fa.pair_atoms(p, q), count)
    assert atoms.mass.size <= fa.LEAN_ATOMS  # the lean path is the one under test
    lo, up = fa.pure_epsilon(atoms, target, False), fa.pure_epsilon(atoms, target, True)
    exact = _exact_epsilon([(p, q, count)], target)
    assert lo <= exact <= up  # direction of each side
    assert up - lo <= 1e-9 * max(float(exact), 1.0)
    _numpy_path(monkeypatch)
    ref = fa.self_compose(fa.pair_atoms(p, q), count)
    assert fa.pure_epsilon(ref, target, False) == pytest.approx(lo, rel=1e-11, abs=1e-12)
    assert fa.pure_epsilon(ref, target, True) == pytest.approx(up, rel=1e-11, abs=1e-12)


def test_lean_delta_equals_the_numpy_delta():
    atoms = fa.self_compose(fa.pair_atoms(*discrete_laplace_pair(0.3, 2)), 6)
    for eps in (-1.0, 0.0, 0.3, 1.1, 4.0):
        for upper in (False, True):
            assert atoms_delta._lean_delta(atoms, eps, upper) == pytest.approx(
                float(fa.delta(atoms, np.array([eps]), upper)[0]),
                rel=8 * U * atoms.mass.size,
                abs=1e-300,
            )


@pytest.mark.parametrize("wrong", [0, 1, 3])
def test_a_wrong_crossing_estimate_falls_back_to_the_search(wrong, monkeypatch):
    atoms = fa.self_compose(fa.pair_atoms(*discrete_laplace_pair(0.3, 1)), 7)
    want = [fa.pure_epsilon(atoms, 1e-4, side) for side in (False, True)]
    monkeypatch.setattr(atoms_epsilon, "_crossing_guess", lambda *args: wrong)
    assert [fa.pure_epsilon(atoms, 1e-4, side) for side in (False, True)] == want


def test_lone_pair_edges_zero_and_infinity():
    atoms = fa.pair_atoms(*canonical_pair(1.0, 0.1))  # p_inf = 0.1: epsilon is infinite below it
    # the lower side places that mass at log 0.1 - log(32 2^-1074) (a Q-mass computed 0 may be up to that)
    assert (
        fa.pure_epsilon(atoms, 0.05, True) == math.inf
        and 730.0 < fa.pure_epsilon(atoms, 0.05, False) < 745.0
    )
    lone = fa.pair_atoms(*discrete_laplace_pair(0.3, 1))
    assert fa.pure_epsilon(lone, 0.9, True) == 0.0 and fa.pure_epsilon(lone, 0.9, False) == 0.0


@pytest.mark.parametrize("hints", [(), (0.3,), (1.0, 1.6)])
def test_clustered_epsilon_search_certifies_both_ends(hints):
    """Each step's cluster of points (one call) against the one-point search: both certified, both
    within the tolerance of the exact epsilon of 20-fold discrete Laplace."""
    p, q = discrete_laplace_pair(0.3, 2)
    atoms = fa.self_compose(fa.pair_atoms(p, q), 20)
    exact = _exact_epsilon([(p, q, 20)], 1e-4)
    calls = []

    def side(upper):
        def f(e):
            calls.append(np.size(e))
            return fa.delta(atoms, e, upper)

        return f

    count = {}
    for cluster in (0, 10):
        calls.clear()
        up = fa.epsilon_search(
            side(True), 1e-4, True, 20.0, 1e-9, hints=hints, first_pass=7, cluster=cluster
        )
        lo = fa.epsilon_search(
            side(False), 1e-4, False, 20.0, 1e-9, hints=hints, first_pass=7, cluster=cluster
        )
        assert lo <= exact <= up and up - lo <= 2e-9
        count[cluster] = len(calls)
    assert count[10] < count[0]  # fewer calls (each of more points)


def test_clustered_search_on_a_jagged_side_keeps_its_guarantees():
    """A computed side need not be monotone: whatever is returned is a point the side certifies."""
    jag = lambda e: np.exp(-3.0 * np.asarray(e)) * (1.0 + 0.3 * np.sin(40.0 * np.asarray(e)))  # noqa: E731
    target = 1e-3
    up = fa.epsilon_search(jag, target, True, 10.0, 1e-9, first_pass=7, cluster=10)
    lo = fa.epsilon_search(jag, target, False, 10.0, 1e-9, first_pass=7, cluster=10)
    assert jag(np.array([up]))[0] <= target < jag(np.array([lo]))[0]


def test_a_long_self_composition_still_coarsens_past_the_cap(monkeypatch):
    """A dense lattice whose k-fold span would pass WINDOW_POINTS is coarsened step by step (bounded
    size), and stays certified against the exact value."""
    p, q = discrete_laplace_pair(0.2, 1)
    monkeypatch.setattr(atoms_core, "MAX_ATOMS", 64)
    monkeypatch.setattr(atoms_core, "WINDOW_POINTS", 64)
    atoms = fa.self_compose(fa.pair_atoms(p, q), 100)  # 201 lattice points uncapped
    assert atoms.index.size <= 64
    for eps in (0.5, 2.0):
        ex = exact_delta([(p, q, 100)], eps)
        lo, up = (fa.delta(atoms, np.array([eps]), side)[0] for side in (False, True))
        assert lo <= ex <= up
