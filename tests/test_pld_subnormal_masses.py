"""Masses below the smallest normal double (2^-1022), on the grid path (``pld.from_distributions``)
and the atoms path (``pld.finite_atoms``), both sides against 50-digit mpmath from the same doubles.

A subnormal number has no relative precision: each arithmetic result is within 2^-1075 absolute of
the exact one, not within u relative.  Session 9's review found ``from_distributions([5e-320, ...],
[1e-310, ...])`` at h = 1e-4 reporting a certified LOWER delta(0) ~5e-318 above the exact value (and,
the other way round, upper sides below it): the grid's cell arithmetic charges relative round-off
only.  On the atoms path, composing masses whose products underflow lost them, so the upper side
read 0 where the truth is positive.  Each test compares lower <= truth <= upper.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick import pld
from hockeystick.pld import finite_atoms as fa
from hockeystick.pld import mechanisms
from hockeystick.pld.canonical import canonical_pair
from hockeystick.pld.randomized_response import randomized_response_pair

from .test_pld_finite_atoms import exact_delta

mp.mp.dps = 50

TINY = [0.0, 2.0 ** -1074, 5e-320, 1e-310, 2.0 ** -1022 - 2.0 ** -1074, 2.0 ** -1022, 1e-300]
PAIRS = [(a, b) for a, b in itertools.product(TINY, TINY) if a > 0.0 or b > 0.0]
GRID_EPS = [0.0, 1e-3, 0.5, 3.0, 30.0, 800.0]
ATOM_EPS = [-30.0, -1.0, 0.0, 0.5, 3.0, 30.0, 700.0, 800.0]


def _distributions(a: float, b: float, rest: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """P = (a, rest), Q = (b, rest'): the tiny outcome beside ordinary ones, each side summing to 1
    in floats (the given doubles are the data; the truth is computed from them)."""
    return np.array([a, rest[0], 1.0 - rest[0]]), np.array([b, rest[1], 1.0 - rest[1]])


def _atom_sides(atoms: fa.Atoms, eps: float) -> tuple[float, float]:
    """(lower, upper) delta(eps) of the atoms."""
    return float(fa.delta(atoms, np.array([eps]), False)[0]), float(fa.delta(atoms, np.array([eps]), True)[0])


def _truth(p: np.ndarray, q: np.ndarray, eps: float, count: int = 1) -> mp.mpf:
    """The worse direction's exact delta(eps) of ``count`` runs (both neighbouring directions)."""
    return max(exact_delta([(p, q, count)], eps), exact_delta([(q, p, count)], eps))


@pytest.mark.parametrize("rest", [(0.5, 0.5), (0.3, 0.7)])
@pytest.mark.parametrize("h", [1e-4, 1e-2])
@pytest.mark.parametrize("a,b", PAIRS)
def test_grid_sides_bracket_the_truth(a, b, h, rest):
    p, q = _distributions(a, b, rest)
    grid = pld.from_distributions(p, q, value_discretization_interval=h)
    lower, upper = grid.delta(np.array(GRID_EPS), bound="both")
    for eps, lo, up in zip(GRID_EPS, lower, upper):
        exact = _truth(p, q, eps)
        assert math.isfinite(lo) and math.isfinite(up)
        assert lo <= exact <= up, (a, b, h, eps, lo, float(exact), up)


def test_grid_reported_reproducer():
    """Session 9's case: lower delta(0) was 1.0000000466e-310 where the truth is 9.999999995e-311."""
    p, q = _distributions(1e-310, 5e-320, (0.5, 0.5))
    lo, up = pld.from_distributions(p, q, value_discretization_interval=1e-4).delta(0.0, bound="both")
    assert lo <= _truth(p, q, 0.0) <= up


@settings(max_examples=60, deadline=None)
@given(st.floats(-323.5, -300.0), st.floats(-30.0, 30.0), st.sampled_from([1e-4, 1e-2]),
       st.floats(0.0, 1.0))
def test_grid_random_tiny_masses(log10_a, log_ratio, h, where):
    """A tiny P-mass a and Q-mass a e^r (possibly subnormal), eps anywhere up to the loss."""
    a = 10.0 ** log10_a
    b = a * math.exp(log_ratio)
    p, q = _distributions(a, b, (0.5, 0.5))
    grid = pld.from_distributions(p, q, value_discretization_interval=h)
    eps = where * abs(log_ratio)
    lo, up = grid.delta(eps, bound="both")
    exact = _truth(p, q, eps)
    assert lo <= exact <= up, (a, b, h, eps, lo, float(exact), up)


@pytest.mark.parametrize("numpy_path", [False, True])
@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("a,b", PAIRS)
def test_atoms_sides_bracket_the_truth(a, b, count, numpy_path, monkeypatch):
    """Both orientations of the tiny outcome beside masses 1/3, 2/3 (products round), ``count`` runs."""
    if numpy_path:  # the lean (plain float) and dense paths off: numpy's pair_atoms, outer products, merging
        monkeypatch.setattr(fa, "LEAN_ATOMS", 0)
        monkeypatch.setattr(fa, "DENSE_FILL", 0)
    for p, q in [_distributions(a, b, (1.0 / 3.0, 2.0 / 3.0)), _distributions(b, a, (2.0 / 3.0, 1.0 / 3.0))]:
        atoms = fa.self_compose(fa.pair_atoms(p, q), count)
        lower = fa.delta(atoms, np.array(ATOM_EPS), False)
        upper = fa.delta(atoms, np.array(ATOM_EPS), True)
        for eps, lo, up in zip(ATOM_EPS, lower, upper):
            exact = exact_delta([(p, q, count)], eps)
            assert lo <= exact <= up, (a, b, count, eps, lo, float(exact), up)
            assert fa._lean_delta(atoms, eps, False) <= exact <= fa._lean_delta(atoms, eps, True)


@pytest.mark.parametrize("tiny", [1e-300, 1e-170, 1e-160])
def test_composed_products_that_underflow_keep_the_upper_side_above(tiny):
    """A pair with a P-mass ``tiny`` at loss 30, composed with itself and with a pair holding a P-mass
    1e-300: products of the tiny masses underflow (or are subnormal), yet the true delta at eps up to
    60 is made of them."""
    p, q = np.array([tiny, 0.5, 0.5 - tiny]), np.array([tiny * math.exp(-30.0), 0.5, 0.5 - tiny * math.exp(-30.0)])
    other = (np.array([1e-300, 0.4, 0.6 - 1e-300]), np.array([1e-310, 0.4, 0.6]))
    one = fa.pair_atoms(p, q)
    for atoms, parts in [(fa.compose(one, one), [(p, q, 2)]), (fa.self_compose(one, 2), [(p, q, 2)]),
                         (fa.compose(one, fa.pair_atoms(*other)), [(p, q, 1), (*other, 1)])]:
        for eps in [0.0, 20.0, 45.0, 59.0]:
            truth = exact_delta(parts, eps)
            lo, up = _atom_sides(atoms, eps)
            assert lo <= truth <= up, (tiny, eps, lo, float(truth), up)


def test_grid_subnormal_p_mass_costs_at_most_its_size():
    """The upper side's subnormal P-mass at +infinity (raised to 2^-1000) costs at most 2^-1000 in delta
    (and the grid's own spacing); the lower side, which drops it, stays within 2^-1022 of the truth."""
    p, q = _distributions(1e-310, 5e-320, (0.5, 0.5))
    grid = pld.from_distributions(p, q, value_discretization_interval=1e-4)
    for eps in [0.0, 3.0, 100.0]:
        lo, up = grid.delta(eps, bound="both")
        exact = float(_truth(p, q, eps))
        assert exact - 2.0 ** -1022 <= lo <= exact <= up <= exact + 2.0 ** -1000 * (1.0 + 1e-12)


def test_normal_masses_never_take_the_subnormal_paths(monkeypatch):
    """Normal masses (every mass, and every product a composition forms, at least 2^-1022) keep the old
    paths bit for bit: the functions handling masses below 2^-1022 are never called."""
    def refuse(*args, **kwargs):
        raise AssertionError("a subnormal path was taken for normal masses")

    monkeypatch.setattr(fa, "_with_near_underflow", refuse)
    monkeypatch.setattr(fa, "_underflow_charged", refuse)
    monkeypatch.setattr(mechanisms, "_near_underflow_atoms", refuse)
    for p, q, count in [(*_distributions(1e-150, 1e-140, (0.3, 0.7)), 2), (*_distributions(2.0 ** -1022, 1e-300,
                        (0.5, 0.5)), 1), (np.array([0.6, 0.4]), np.array([0.3, 0.7]), 40)]:
        atoms = fa.pair_atoms(p, q)
        fa.delta(fa.self_compose(atoms, count), np.array([0.0, 1.0]), False)
        if count > 1:
            fa.delta(fa.compose(atoms, fa.pair_atoms(q, p)), np.array([0.0, 1.0]), True)
        pld.from_distributions(p, q, value_discretization_interval=1e-3).delta(0.5, bound="both")
    # their two sides share one set of atoms, as before
    monkeypatch.undo()
    p, q = _distributions(1e-150, 1e-140, (0.3, 0.7))
    atoms = fa.self_compose(fa.pair_atoms(p, q), 2)
    assert atoms.lower_of is None


@pytest.mark.parametrize("noise", [1e-310, 5e-320, 2.0 ** -1074 * 3])
def test_randomized_response_with_a_subnormal_noise_brackets_the_truth(noise):
    """Randomized response whose off-diagonal mass p / k is subnormal, on the grid and as atoms (1 and 3
    runs), both sides against the exact delta of the same doubles."""
    p, q = randomized_response_pair(noise, 3, "replace_one")
    grid = pld.randomized_response(noise, 3, value_discretization_interval=1e-3)
    atoms = fa.pair_atoms(p, q)
    for eps in [0.0, 5.0, 700.0, 720.0, 800.0]:
        lo, up = grid.delta(eps, bound="both")
        exact = _truth(p, q, eps)
        assert lo <= exact <= up, (noise, eps, lo, float(exact), up)
        for count in (1, 3):
            composed = fa.self_compose(atoms, count)
            lo, up = _atom_sides(composed, eps)
            exact = exact_delta([(p, q, count)], eps)
            assert lo <= exact <= up, (noise, count, eps, lo, float(exact), up)


@pytest.mark.parametrize("epsilon", [709.0, 720.0, 740.0, 744.5])
def test_canonical_pair_with_a_subnormal_mass_brackets_the_truth(epsilon):
    """The (eps, delta) pair past eps ~708, where (1 - delta) / (1 + e^eps) is subnormal."""
    p, q = canonical_pair(epsilon, 1e-6)
    grid = pld.eps_delta_dp(epsilon, 1e-6, value_discretization_interval=1e-2)
    atoms = fa.self_compose(fa.pair_atoms(p, q), 2)
    for eps in [0.0, epsilon - 1.0, epsilon, 2.0 * epsilon - 1.0]:
        lo, up = grid.delta(eps, bound="both")
        exact = exact_delta([(p, q, 1)], eps)
        assert lo <= exact <= up, (epsilon, eps, lo, float(exact), up)
        lo, up = _atom_sides(atoms, eps)
        exact = exact_delta([(p, q, 2)], eps)
        assert lo <= exact <= up, (epsilon, eps, lo, float(exact), up)


@settings(max_examples=60, deadline=None)
@given(st.floats(-323.5, -150.0), st.floats(-40.0, 40.0), st.integers(1, 3), st.floats(0.05, 0.95),
       st.floats(0.0, 2.0))
def test_atoms_random_tiny_masses(log10_a, log_ratio, count, share, where):
    """A tiny P-mass a and Q-mass a e^r beside two ordinary outcomes, ``count`` runs (products of the
    tiny masses underflow from count 2 on), eps from 0 to past the composed loss (below 0 the given
    doubles' total 1 + a would put the truth above the upper side's clamp at 1: the input's excess)."""
    a = 10.0 ** log10_a
    p, q = _distributions(a, a * math.exp(log_ratio), (share, 1.0 - share))
    atoms = fa.self_compose(fa.pair_atoms(p, q), count)
    eps = where * count * abs(log_ratio)
    lo, up = _atom_sides(atoms, eps)
    exact = exact_delta([(p, q, count)], eps)
    assert lo <= exact <= up, (a, log_ratio, count, eps, lo, float(exact), up)


@pytest.mark.parametrize("a,b", [(1e-310, 5e-320), (5e-320, 1e-310), (2.0 ** -1022, 1e-310), (1e-300, 5e-320),
                                 (2.0 ** -1074, 1e-300)])
def test_epsilon_sides_bracket_the_truth(a, b):
    """Both paths' epsilon for targets above, among and below the tiny masses: the lower epsilon's true
    delta at least the target, the upper's at most (delta is non-increasing in eps)."""
    p, q = _distributions(a, b, (0.5, 0.5))
    grid = pld.from_distributions(p, q, value_discretization_interval=1e-3)
    for target in [1e-6, 1e-305, 1e-309, 1e-315]:
        for pair in [(p, q), (q, p)]:
            lo, up = fa.pure_epsilon_bracket(fa.pair_atoms(*pair), target)
            assert lo <= up
            assert lo == 0.0 or exact_delta([(*pair, 1)], lo) >= target, (a, b, target, lo)
            assert up == math.inf or exact_delta([(*pair, 1)], up) <= target, (a, b, target, up)
        lo, up = grid.epsilon(target, bound="both")
        assert lo <= up
        assert lo == 0.0 or _truth(p, q, lo) >= target, (a, b, target, lo)
        assert up == math.inf or _truth(p, q, up) <= target, (a, b, target, up)
