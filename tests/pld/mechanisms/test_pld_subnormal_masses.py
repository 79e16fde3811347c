"""Masses below the smallest normal double (2^-1022), on the grid path (``pld.from_distributions``)
and the atoms path (``pld.finite_atoms``), both sides against 50-digit mpmath from the same doubles.

A subnormal number has no relative precision: each arithmetic result is within 2^-1075 absolute of
the exact one, not within u relative.  A grid whose cell arithmetic charged relative round-off only
would report ``from_distributions([5e-320, ...], [1e-310, ...])`` at h = 1e-4 with a certified LOWER
delta(0) ~5e-318 above the exact value (and, the other way round, upper sides below it); atoms whose
products underflow, if dropped, would leave an upper side of 0 where the truth is positive.  Each test compares lower <= truth <= upper.
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
from hockeystick.pld.compose import atoms_compose, atoms_delta
from hockeystick.pld.compose import finite_atoms as fa
from hockeystick.pld.grid import atoms as atoms_core
from hockeystick.pld.mechanisms import atoms_from_pairs
from hockeystick.pld.mechanisms import constructors as mechanisms
from hockeystick.pld.mechanisms.canonical import canonical_pair
from hockeystick.pld.mechanisms.randomized_response import randomized_response_pair

from ..compose.test_pld_finite_atoms import exact_delta

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test

TINY = [0.0, 2.0**-1074, 5e-320, 1e-310, 2.0**-1022 - 2.0**-1074, 2.0**-1022, 1e-300]
PAIRS = [(a, b) for a, b in itertools.product(TINY, TINY) if a > 0.0 or b > 0.0]
GRID_EPS = [0.0, 1e-3, 0.5, 3.0, 30.0, 800.0]
ATOM_EPS = [-30.0, -1.0, 0.0, 0.5, 3.0, 30.0, 700.0, 800.0]


def _distributions(a: float, b: float, rest: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """P = (a, rest), Q = (b, rest'): the tiny outcome beside ordinary ones, each side summing to 1
    in floats (the given doubles are the data; the truth is computed from them)."""
    return np.array([a, rest[0], 1.0 - rest[0]]), np.array([b, rest[1], 1.0 - rest[1]])


def _atom_sides(atoms: fa.Atoms, eps: float) -> tuple[float, float]:
    """(lower, upper) delta(eps) of the atoms."""
    return float(fa.delta(atoms, np.array([eps]), False)[0]), float(
        fa.delta(atoms, np.array([eps]), True)[0]
    )


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
    """Relative charges alone would give a lower delta(0) of 1.0000000466e-310 here; the truth is 9.999999995e-311."""
    p, q = _distributions(1e-310, 5e-320, (0.5, 0.5))
    lo, up = pld.from_distributions(p, q, value_discretization_interval=1e-4).delta(
        0.0, bound="both"
    )
    assert lo <= _truth(p, q, 0.0) <= up


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-323.5, -300.0),
    st.floats(-30.0, 30.0),
    st.sampled_from([1e-4, 1e-2]),
    st.floats(0.0, 1.0),
)
def test_grid_random_tiny_masses(log10_a, log_ratio, h, where):
    """A tiny P-mass a and Q-mass a e^r (possibly subnormal), eps anywhere up to the loss."""
    a = 10.0**log10_a
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
    if (
        numpy_path
    ):  # the lean (plain float) and dense paths off: numpy's pair_atoms, outer products, merging
        monkeypatch.setattr(atoms_core, "LEAN_ATOMS", 0)
        monkeypatch.setattr(atoms_core, "DENSE_FILL", 0)
    for p, q in [
        _distributions(a, b, (1.0 / 3.0, 2.0 / 3.0)),
        _distributions(b, a, (2.0 / 3.0, 1.0 / 3.0)),
    ]:
        atoms = fa.self_compose(fa.pair_atoms(p, q), count)
        lower = fa.delta(atoms, np.array(ATOM_EPS), False)
        upper = fa.delta(atoms, np.array(ATOM_EPS), True)
        for eps, lo, up in zip(ATOM_EPS, lower, upper):
            exact = exact_delta([(p, q, count)], eps)
            assert lo <= exact <= up, (a, b, count, eps, lo, float(exact), up)
            assert (
                atoms_delta._lean_delta(atoms, eps, False)
                <= exact
                <= atoms_delta._lean_delta(atoms, eps, True)
            )


@pytest.mark.parametrize("tiny", [1e-300, 1e-170, 1e-160])
def test_composed_products_that_underflow_keep_the_upper_side_above(tiny):
    """A pair with a P-mass ``tiny`` at loss 30, composed with itself and with a pair holding a P-mass
    1e-300: products of the tiny masses underflow (or are subnormal), yet the true delta at eps up to
    60 is made of them."""
    p, q = (
        np.array([tiny, 0.5, 0.5 - tiny]),
        np.array([tiny * math.exp(-30.0), 0.5, 0.5 - tiny * math.exp(-30.0)]),
    )
    other = (np.array([1e-300, 0.4, 0.6 - 1e-300]), np.array([1e-310, 0.4, 0.6]))
    one = fa.pair_atoms(p, q)
    for atoms, parts in [
        (fa.compose(one, one), [(p, q, 2)]),
        (fa.self_compose(one, 2), [(p, q, 2)]),
        (fa.compose(one, fa.pair_atoms(*other)), [(p, q, 1), (*other, 1)]),
    ]:
        for eps in [0.0, 20.0, 45.0, 59.0]:
            truth = exact_delta(parts, eps)
            lo, up = _atom_sides(atoms, eps)
            assert lo <= truth <= up, (tiny, eps, lo, float(truth), up)


def test_grid_subnormal_p_mass_costs_at_most_its_size():
    """The upper side's subnormal P-mass (raised to the grid's mass floor, ``grid_mass_floor(h)``, at the top of its
    loss range) costs at most that floor in delta; the lower side, which drops it, stays within 2^-1022 of the truth."""
    p, q = _distributions(1e-310, 5e-320, (0.5, 0.5))
    grid = pld.from_distributions(p, q, value_discretization_interval=1e-4)
    for eps in [0.0, 3.0, 100.0]:
        lo, up = grid.delta(eps, bound="both")
        exact = float(_truth(p, q, eps))
        assert (
            exact - 2.0**-1022
            <= lo
            <= exact
            <= up
            <= exact + mechanisms.grid_mass_floor(1e-4) * (1.0 + 1e-12)
        )


def test_normal_masses_never_take_the_subnormal_paths(monkeypatch):
    """Normal masses (every mass, and every product a composition forms, at least 2^-1022) take the normal
    paths only: the functions handling masses below 2^-1022 are never called."""

    def refuse(*args, **kwargs):
        raise AssertionError("a subnormal path was taken for normal masses")

    monkeypatch.setattr(atoms_from_pairs, "_with_near_underflow", refuse)
    monkeypatch.setattr(atoms_compose, "_underflow_charged", refuse)
    monkeypatch.setattr(mechanisms, "_near_underflow_atoms", refuse)
    for p, q, count in [
        (*_distributions(1e-150, 1e-140, (0.3, 0.7)), 2),
        (*_distributions(2.0**-1022, 1e-300, (0.5, 0.5)), 1),
        (np.array([0.6, 0.4]), np.array([0.3, 0.7]), 40),
    ]:
        atoms = fa.pair_atoms(p, q)
        fa.delta(fa.self_compose(atoms, count), np.array([0.0, 1.0]), False)
        if count > 1:
            fa.delta(fa.compose(atoms, fa.pair_atoms(q, p)), np.array([0.0, 1.0]), True)
        if p.min() >= mechanisms.grid_mass_floor(1e-3):  # the grid's own floor (2^-1000 here)
            pld.from_distributions(p, q, value_discretization_interval=1e-3).delta(
                0.5, bound="both"
            )
    pld.from_distributions(
        *_distributions(2.0**-999, 1e-300, (0.5, 0.5)), value_discretization_interval=1e-3
    )
    # their two sides share one set of atoms, as before
    monkeypatch.undo()
    p, q = _distributions(1e-150, 1e-140, (0.3, 0.7))
    atoms = fa.self_compose(fa.pair_atoms(p, q), 2)
    assert atoms.lower_of is None


@pytest.mark.parametrize("noise", [1e-310, 5e-320, 2.0**-1074 * 3])
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
    """The (eps, delta) pair past eps ~708, where (1 - delta) / (1 + e^eps) is subnormal.  The grid bounds the
    canonical pair itself (its profile delta + (1 - delta) (e^eps - e^eps')_+ / (1 + e^eps), 50 digits), the atoms
    the pair of doubles ``canonical_pair`` returns (its subnormal mass rounded)."""
    p, q = canonical_pair(epsilon, 1e-6)
    grid = pld.eps_delta_dp(epsilon, 1e-6, value_discretization_interval=1e-2)
    atoms = fa.self_compose(fa.pair_atoms(p, q), 2)
    d, big = mp.mpf(1e-6), mp.e ** mp.mpf(epsilon)
    for eps in [0.0, epsilon - 1.0, epsilon, 2.0 * epsilon - 1.0]:
        lo, up = grid.delta(eps, bound="both")
        exact = d + (1 - d) * max(big - mp.e ** mp.mpf(eps), 0) / (1 + big)
        assert lo <= exact <= up, (epsilon, eps, lo, float(exact), up)
        lo, up = _atom_sides(atoms, eps)
        exact = exact_delta([(p, q, 2)], eps)
        assert lo <= exact <= up, (epsilon, eps, lo, float(exact), up)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-323.5, -150.0),
    st.floats(-40.0, 40.0),
    st.integers(1, 3),
    st.floats(0.05, 0.95),
    st.floats(0.0, 2.0),
)
def test_atoms_random_tiny_masses(log10_a, log_ratio, count, share, where):
    """A tiny P-mass a and Q-mass a e^r beside two ordinary outcomes, ``count`` runs (products of the
    tiny masses underflow from count 2 on), eps from 0 to past the composed loss (below 0 the given
    doubles' total 1 + a would put the truth above the upper side's clamp at 1: the input's excess)."""
    a = 10.0**log10_a
    p, q = _distributions(a, a * math.exp(log_ratio), (share, 1.0 - share))
    atoms = fa.self_compose(fa.pair_atoms(p, q), count)
    eps = where * count * abs(log_ratio)
    lo, up = _atom_sides(atoms, eps)
    exact = exact_delta([(p, q, count)], eps)
    assert lo <= exact <= up, (a, log_ratio, count, eps, lo, float(exact), up)


@pytest.mark.parametrize(
    "a,b",
    [
        (1e-310, 5e-320),
        (5e-320, 1e-310),
        (2.0**-1022, 1e-310),
        (1e-300, 5e-320),
        (2.0**-1074, 1e-300),
    ],
)
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


U = 2.0**-1074


@pytest.mark.parametrize("count,eps", [(2, 1.0), (3, 1.0), (2, 0.0)])
@pytest.mark.parametrize("rest", [(0.3, 0.7), (0.5, 0.5000000000000001)])
def test_grid_subnormal_p_mass_with_an_exact_zero_q_brackets_the_truth(rest, count, eps):
    """A subnormal P-mass with Q given as exactly 0 (``exact_zeros``): the grid's compositions err by 2^-1075
    absolute there, so keeping it at +infinity on both sides would put the lower side above the truth (6.0
    2^-1074 against the exact 5.99999999999999967 2^-1074 at two runs); both sides bracket it."""
    s = 3.0 * U
    p, q = np.array([s, rest[0], rest[1]]), np.array([0.0, rest[0], rest[1]])
    lo, up = (
        pld.from_distributions(p, q, symmetric=True).self_compose(count).delta(eps, bound="both")
    )
    truth = exact_delta([(p, q, count)], eps)
    assert lo <= truth <= up, (rest, count, float(lo) / U, float(truth / U), float(up) / U)


@pytest.mark.parametrize("eps0,d0", [(0.3, 7.0 * U), (1.0, 3.0 * U), (1.0, 1e-310), (2.0, 1e-315)])
def test_eps_delta_pair_with_a_subnormal_delta_brackets_the_truth(eps0, d0):
    """An (eps, delta) pair with a subnormal delta, composed: the upper side stays at or above the truth (for
    ``eps_delta_dp(0.3, 7 2^-1074)`` twice, delta(1.1) is exactly 14.00000000000000078 2^-1074, above the
    double 14.0 2^-1074)."""
    p, q = canonical_pair(eps0, d0)
    d = pld.eps_delta_dp(eps0, d0)
    for count in [1, 2, 3]:
        composed = d.self_compose(count) if count > 1 else d
        for eps in [eps0 * count - 0.5 * eps0, eps0 * count + 0.1, eps0 * count + 0.5]:
            lo, up = composed.delta(eps, bound="both")
            truth = exact_delta([(p, q, count)], eps)
            assert lo <= truth <= up, (
                eps0,
                d0,
                count,
                eps,
                float(lo) / U,
                float(truth / U),
                float(up) / U,
            )


@pytest.mark.parametrize("h", [1e-4, 1e-2])
@pytest.mark.parametrize(
    "a,b",
    [
        (2.0**-1021, 1e-320),
        (2.0**-1021, 2.0**-1022),
        (2.0**-1021, 2.0**-1022 * 0.999),
        (2.0**-1018, 1e-320),
        (1e-305, 1e-320),
        (2.0**-1021, 2.0**-1030),
        (2.0**-1005, 2.0**-1010),
    ],
)
def test_grid_normal_p_mass_near_the_subnormal_range_brackets_the_truth(a, b, h):
    """A NORMAL P-mass just above 2^-1022 still meets the grid's cell arithmetic m (1 - e^-u) / (e^h - 1),
    which goes subnormal: both sides bracket the truth (p = 2^-1021, q = 2^-1022 at h = 1e-4 has the exact
    lower delta(0) 2.2250738585072014e-308, which an uncharged cell would exceed)."""
    p, q = _distributions(a, b, (0.5, 0.5))
    grid = pld.from_distributions(p, q, symmetric=True, value_discretization_interval=h)
    lower, upper = grid.delta(np.array(GRID_EPS), bound="both")
    for eps, lo, up in zip(GRID_EPS, lower, upper):
        truth = exact_delta([(p, q, 1)], eps)
        assert lo <= truth <= up, (a, b, h, eps, lo, float(truth), up)


def test_discrete_laplace_with_a_subnormal_mass_keeps_a_finite_epsilon():
    """The subnormal P-mass of a discrete Laplace of parameter 720 (e^-720 ~ 1e-313, at loss -720) has a
    finite true loss: the pessimistic side keeps it at a finite loss and reports the pure epsilon 720 (and
    2 720 for two runs), not the infinite epsilon of a mass at +infinity.  The grid is 1e-3 (1.4 M cells across
    the 1440 of loss, a tenth of the default's): the mass is the same subnormal whatever the grid, and the bracket
    is 720 within one cell."""
    from hockeystick.pld.mechanisms.discrete_laplace import discrete_laplace_atoms

    grid = pld.discrete_laplace(720.0, value_discretization_interval=1e-3)
    lo, up = grid.epsilon(1e-305, bound="both")
    assert 719.99 <= lo <= up <= 720.01
    atoms = fa.self_compose(discrete_laplace_atoms(720.0, 1), 2)
    # at delta 0 the search reports the point past the top loss (1440 + 1)
    assert (
        1439.99
        <= fa.pure_epsilon(atoms, 0.0, False)
        <= fa.pure_epsilon(atoms, 0.0, True)
        <= 1441.01
    )
    assert (
        1439.99
        <= fa.pure_epsilon(atoms, 1e-305, False)
        <= fa.pure_epsilon(atoms, 1e-305, True)
        <= 1441.01
    )
    for eps in [-1440.0, -1.0, 0.0, 1439.0]:
        lo, up = _atom_sides(atoms, eps)
        truth = exact_delta([(*discrete_laplace_pair_of(720.0), 2)], eps)
        assert lo <= truth <= up, (eps, lo, float(truth), up)


def discrete_laplace_pair_of(a: float) -> tuple[np.ndarray, np.ndarray]:
    from hockeystick.pld.mechanisms.discrete_laplace import discrete_laplace_pair

    return discrete_laplace_pair(a, 1)


def test_interop_discrete_laplace_with_a_subnormal_mass_keeps_a_finite_epsilon():
    """dp_accounting's DiscreteLaplaceDpEvent(720, 1) three times has a finite epsilon at delta 1e-320: within
    the point past the top loss (2161) of the pure epsilon 3 720 = 2160."""
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

    accountant = HockeystickPLDAccountant()
    accountant.compose(dp_event.DiscreteLaplaceDpEvent(720.0, 1), 3)
    assert 2159.99 <= accountant.get_epsilon(1e-320) <= 2161.01


@pytest.mark.parametrize("grid", [False, True])
def test_many_subnormal_p_masses_cost_their_sum_not_one_floor_each(grid):
    """10^4 outcomes of P-mass 1e-310 (sum 1e-306), each raised to 2^-1000, would put 9.3e-298 on the
    upper delta and 0 on the lower; pooled they cost at most max(sum, 2^-1000) above and the lower side
    keeps their rounded-down sum (normal) at their least loss.  Each side is compared with the same
    pair whose tiny outcomes are merged into one normal outcome (its bound's own slack factored out)."""
    n = 10_000
    tiny = 1e-310
    p = np.concatenate([np.full(n, tiny), [0.5, 0.5 - n * tiny]])
    q = np.concatenate(
        [np.full(n, 0.5 * tiny), [0.5, 0.5 - n * 0.5 * tiny]]
    )  # the tiny outcomes at loss log 2
    truth = exact_delta(
        [(np.concatenate([[n * tiny], p[n:]]), np.concatenate([[n * 0.5 * tiny], q[n:]]), 1)], 0.0
    )
    merged = np.concatenate([[n * tiny], p[n:]]), np.concatenate([[n * 0.5 * tiny], q[n:]])

    def sides(p: np.ndarray, q: np.ndarray) -> tuple[float, float]:
        if grid:
            d = pld.from_distributions(p, q, symmetric=True, value_discretization_interval=1e-3)
            return tuple(float(x) for x in d.delta(0.0, bound="both"))
        return _atom_sides(fa.pair_atoms(p, q), 0.0)

    lo, up = sides(p, q)
    merged_lo, merged_up = sides(*merged)
    assert lo <= truth <= up, (lo, float(truth), up)
    assert (
        lo >= 0.99 * merged_lo
        and (grid or lo > 0.0)
        and up <= merged_up * (1.0 + 1e-6) + 2.0**-1000 * 1.01
    ), (
        lo,
        merged_lo,
        up,
        merged_up,
    )


def test_underflow_charge_lands_on_the_coarsened_lattice(monkeypatch):
    """Products that underflow in a composition coarsened past ``MAX_ATOMS``: the charged mass goes to
    the top loss on the result's own (coarser) lattice, not to the index of the finer one (a loss
    2^j times too far: pure epsilon ~1e10); both sides still bracket the truth."""
    monkeypatch.setattr(atoms_core, "MAX_ATOMS", 64)
    rng = np.random.default_rng(1)
    p, q = rng.random(40), rng.random(40)
    p[:5] = 1e-170
    p, q = p / p.sum(), q / q.sum()
    atoms = fa.compose(fa.pair_atoms(p, q), fa.pair_atoms(p, q))
    assert atoms.lower_of is not None and atoms.eta > fa.ETA  # charged, and coarsened
    top = float(np.max(np.log(p) - np.log(q))) * 2.0
    assert float(atoms.index[-1]) * atoms.eta <= top + 2.0 * atoms.eta + atoms.loss_error
    for eps in [0.0, 0.5, 2.0, top - 0.1]:
        lo, up = _atom_sides(atoms, eps)
        truth = exact_delta([(p, q, 2)], eps)
        assert lo <= truth <= up, (eps, lo, float(truth), up)


def test_the_canonical_grid_pld_refuses_an_epsilon_past_the_grids_exact_reach_by_name():
    """An atom at loss eps needs the grid index eps / h exactly: past 2^52 points it has none, and the grid
    PLD is refused naming epsilon and the interval; short of it the composition keeps eps on its grid."""
    with pytest.raises(ValueError, match=r"^epsilon = 1e\+308 .*value_discretization_interval"):
        pld.eps_delta_dp(1e308, 1e-6, value_discretization_interval=1e-2)
    composed = pld.eps_delta_dp(1e13, 1e-6, value_discretization_interval=1e-2).self_compose(2)
    assert composed.epsilon(1e-3) == pytest.approx(
        2e13, rel=1e-12
    )  # two eps-atoms: 2 eps, less a few e-3
