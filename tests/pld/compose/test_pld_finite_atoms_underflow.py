"""pld.finite_atoms with Q-masses computed subnormal or 0 (underflowed) while the true Q-mass is
positive, both sides against 50-digit mpmath: lower <= truth <= upper for delta and epsilon.

A P-mass whose computed Q is 0 has a finite true loss: only the upper side may put it at +infinity.  Were
the lower side to do so too, Poisson-subsampled discrete Laplace at a >= 745 (e^-a underflows) would report
the upper side's infinite epsilon and delta = 1/2 where the truth is 0; the tests hold both the atoms path
(pld.finite_atoms) and the grid path (pld.from_distributions) to the truth.  Each pair below is computed in floats the
way the library computes it (the inputs are the same doubles) and its truth in mpmath from the
same inputs, by the pair's closed form.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import dp_event as dpa

from hockeystick import pld
from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.pld.compose import finite_atoms as fa
from hockeystick.pld.grid import atoms as atoms_core
from hockeystick.pld.mechanisms.canonical import canonical_pair
from hockeystick.pld.mechanisms.discrete_laplace import discrete_laplace_pair
from hockeystick.pld.mechanisms.randomized_response import randomized_response_pair
from hockeystick.pld.sampling.subsampling import poisson_subsampled_pair

from .test_pld_finite_atoms import exact_delta

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test
LOSSES = [1.0, 100.0, 700.0, 740.0, 800.0, 1000.0]
TARGETS = [1e-3, 1e-5, 1e-10]


def _true_dlap(a: float) -> tuple[list[mp.mpf], list[mp.mpf]]:
    """discrete Laplace DLap(a) shifted by 1: P(x <= 0) = e^-a / (1 + e^-a), P(x >= 1) = 1 / (1 + e^-a)."""
    e = mp.exp(-mp.mpf(a))
    return [e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)]


def _true_poisson(
    p: list[mp.mpf], q: list[mp.mpf], rate: float
) -> tuple[list[mp.mpf], list[mp.mpf]]:
    r = mp.mpf(rate)
    return [(1 - r) * qi + r * pi for pi, qi in zip(p, q)], q


def _true_canonical(eps: float, d: float) -> tuple[list[mp.mpf], list[mp.mpf]]:
    """(delta, (1-delta) e^eps / (1 + e^eps), (1-delta) / (1 + e^eps), 0) and its mirror."""
    e, dd = mp.mpf(eps), mp.mpf(d)
    hi, lo = (1 - dd) / (1 + mp.exp(-e)), (1 - dd) / (1 + mp.exp(e))
    return [dd, hi, lo, mp.mpf(0)], [mp.mpf(0), lo, hi, dd]


def _true_rr(noise: float, k: int) -> tuple[list[mp.mpf], list[mp.mpf]]:
    p = mp.mpf(noise)
    stay, move = 1 - p + p / k, p / k
    return [stay, move, (k - 2) * move], [move, stay, (k - 2) * move]


def _cases() -> list[tuple[str, tuple[np.ndarray, np.ndarray], tuple[list[mp.mpf], list[mp.mpf]]]]:
    out = []
    for loss in LOSSES:
        out.append(
            (
                f"poisson dlap({loss})",
                poisson_subsampled_pair(*discrete_laplace_pair(loss, 1), 0.5),
                _true_poisson(*_true_dlap(loss), 0.5),
            )
        )
        half = (np.array([0.5, 0.5]), np.array([1.0 - math.exp(-loss) / 2, math.exp(-loss) / 2]))
        out.append(
            (
                f"half e^-{loss}",
                half,
                (
                    [mp.mpf(0.5), mp.mpf(0.5)],
                    [1 - mp.exp(-mp.mpf(loss)) / 2, mp.exp(-mp.mpf(loss)) / 2],
                ),
            )
        )
        out.append(
            (f"canonical({loss}, 1e-6)", canonical_pair(loss, 1e-6), _true_canonical(loss, 1e-6))
        )
        noise = math.exp(-loss)
        if noise > 0.0:
            out.append(
                (
                    f"rr(e^-{loss}, 3)",
                    randomized_response_pair(noise, 3, "replace_one"),
                    _true_rr(noise, 3),
                )
            )
    return out


CASES = _cases()


def _true_delta(pair: tuple[list[mp.mpf], list[mp.mpf]], count: int, eps: float) -> mp.mpf:
    return exact_delta([(pair[0], pair[1], count)], eps)


def _eps_points(atoms: fa.Atoms) -> list[float]:
    """eps where the sides are checked: around every loss either side can place an atom at, and beyond."""
    losses = set(atoms.loss_list) | (
        set(atoms.lower.loss_list) if getattr(atoms, "lower", None) is not None else set()
    )
    points = {0.0, 0.5, 1.0, 2000.0}
    for x in losses:
        points |= {max(x - 1.0, 0.0), max(x, 0.0), x + 1.0}
    return sorted(points)


@pytest.mark.parametrize("numpy_path", [False, True])
@pytest.mark.parametrize("count", [1, 3])
@pytest.mark.parametrize("name,computed,truth", CASES, ids=[c[0] for c in CASES])
def test_delta_sides_bracket_the_truth(name, computed, truth, count, numpy_path, monkeypatch):
    if (
        numpy_path
    ):  # the lean (plain float) and dense paths off: numpy's pair_atoms, outer products, merging
        monkeypatch.setattr(atoms_core, "LEAN_ATOMS", 0)
        monkeypatch.setattr(atoms_core, "DENSE_FILL", 0)
    atoms = fa.self_compose(fa.pair_atoms(*computed), count)
    points = _eps_points(atoms)
    lower = fa.delta(atoms, np.array(points), False)
    upper = fa.delta(atoms, np.array(points), True)
    for eps, lo, up in zip(points, lower, upper):
        exact = _true_delta(truth, count, eps)
        assert lo <= exact <= up, (name, count, eps, lo, float(exact), up)
        assert math.isfinite(lo) and math.isfinite(up)


@pytest.mark.parametrize("name,computed,truth", CASES, ids=[c[0] for c in CASES])
def test_epsilon_sides_bracket_the_truth(name, computed, truth):
    atoms = fa.self_compose(fa.pair_atoms(*computed), 2)
    for target in TARGETS:
        for lo, up in [
            fa.pure_epsilon_bracket(atoms, target),
            (fa.pure_epsilon(atoms, target, False), fa.pure_epsilon(atoms, target, True)),
        ]:
            assert lo <= up
            # delta is non-increasing: lo <= true eps iff the true delta at lo is at least the target
            assert lo == 0.0 or _true_delta(truth, 2, lo) >= target, (name, target, lo)
            assert up == math.inf or _true_delta(truth, 2, up) <= target, (name, target, up)


def test_poisson_discrete_laplace_800_lower_side_below_the_truth():
    """The reported reproducer: the true loss is at most log(1 - q + q e^800) ~ 799.3."""
    acc = HockeystickPLDAccountant()
    acc.compose(dpa.PoissonSampledDpEvent(0.5, dpa.DiscreteLaplaceDpEvent(800.0, 1)))
    eps_lo, eps_up = acc.get_epsilon_bracket(1e-5)
    delta_lo, delta_up = acc.get_delta_bracket(1000.0)
    truth = _true_poisson(*_true_dlap(800.0), 0.5)
    top = mp.log(1 - mp.mpf(0.5) + mp.mpf(0.5) * mp.exp(800))
    assert eps_lo <= top and _true_delta(truth, 1, eps_lo) >= 1e-5
    assert eps_up == math.inf or _true_delta(truth, 1, eps_up) <= 1e-5
    assert delta_lo == 0.0 and _true_delta(truth, 1, 1000.0) == 0 <= delta_up


@pytest.mark.parametrize("a", LOSSES)
def test_poisson_discrete_laplace_through_the_accountant(a):
    acc = HockeystickPLDAccountant()
    acc.compose(dpa.PoissonSampledDpEvent(0.5, dpa.DiscreteLaplaceDpEvent(a, 1)), 2)
    truth = _true_poisson(*_true_dlap(a), 0.5)
    for eps in [1.0, a - 1.0, a + 1.0, 2.0 * a]:
        lo, up = acc.get_delta_bracket(eps)
        exact = _true_delta(truth, 2, eps)
        assert lo <= exact <= up, (a, eps, lo, float(exact), up)
    lo, up = acc.get_epsilon_bracket(1e-5)
    assert lo == 0.0 or _true_delta(truth, 2, lo) >= 1e-5
    assert up == math.inf or _true_delta(truth, 2, up) <= 1e-5


def test_a_truly_zero_q_mass_stays_exact_below_700():
    """A Q-mass given as exactly 0 (the (eps, delta) pair's P-mass delta) keeps its lower side at
    delta for every eps below ~700, composed or not."""
    atoms = fa.pair_atoms(np.array([0.9, 0.1]), np.array([1.0, 0.0]))
    for eps in [0.0, 1.0, 100.0, 690.0]:
        lo, up = (
            fa.delta(atoms, np.array([eps]), False)[0],
            fa.delta(atoms, np.array([eps]), True)[0],
        )
        assert (
            lo == pytest.approx(0.1, rel=1e-14)
            and up == pytest.approx(0.1, rel=1e-14)
            and lo <= 0.1 <= up
        )
    both = fa.compose(
        fa.pair_atoms(*canonical_pair(1.0, 0.1)), fa.pair_atoms(*canonical_pair(2.0, 0.2))
    )
    exact = exact_delta([(*canonical_pair(1.0, 0.1), 1), (*canonical_pair(2.0, 0.2), 1)], 3.0)
    lo, up = fa.delta(both, np.array([3.0]), False)[0], fa.delta(both, np.array([3.0]), True)[0]
    assert lo <= exact <= up and up - lo < 1e-12 and exact == pytest.approx(0.28, rel=1e-15)
    # its lower epsilon below delta is finite (the true one is infinite): it is a lower bound
    assert (
        fa.pure_epsilon(atoms, 0.05, True) == math.inf
        and 700.0 < fa.pure_epsilon(atoms, 0.05, False) < math.inf
    )


@pytest.mark.parametrize("ulps", [10.6, 100.6, 2.0**30 + 0.6])
def test_a_subnormal_q_computed_above_the_truth_keeps_the_upper_side_above(ulps):
    """A Q-mass of 10.6 2^-1074 is computed as 11 2^-1074 (3.8% high): its loss computed 0.037 low,
    which a 16u relative charge would not cover; the upper side must still be at or above the truth."""
    tiny = mp.mpf(2) ** -1074
    true_q = mp.mpf(ulps) * tiny
    truth = ([mp.mpf(0.5), mp.mpf(0.5)], [1 - true_q, true_q])
    computed = (np.array([0.5, 0.5]), np.array([1.0, float(true_q)]))
    assert float(true_q) > true_q  # rounded up: the computed loss is below the true one
    atoms = fa.pair_atoms(*computed)
    top = float(mp.log(mp.mpf(0.5) / true_q))
    points = [top + d for d in (-3.0, -1.0, -0.1, -0.01, 0.0, 0.01, 1.0)]
    lower, upper = fa.delta(atoms, np.array(points), False), fa.delta(atoms, np.array(points), True)
    for eps, lo, up in zip(points, lower, upper):
        exact = _true_delta(truth, 1, eps)
        assert lo <= exact <= up, (ulps, eps, lo, float(exact), up)


def test_grid_from_distributions_lower_side_with_an_underflowed_q():
    """The grid path's reproducer: Q's mass e^-800 / (1 + e^-800) computes to 0, and its P-mass sat at
    +infinity on both sides (lower delta 0.5 at eps 1000, where the truth is 0)."""
    truth = _true_poisson(*_true_dlap(800.0), 0.5)
    lo, up = pld.poisson_subsampled(*discrete_laplace_pair(800.0, 1), 0.5).delta(
        1000.0, bound="both"
    )
    assert lo <= _true_delta(truth, 1, 1000.0) <= up


@pytest.mark.parametrize("name,computed,truth", CASES, ids=[c[0] for c in CASES])
def test_grid_from_distributions_sides_bracket_the_truth(name, computed, truth):
    """Both directions of every pair on a grid (h = 0.01: the grid only loosens the sides), delta and
    epsilon, against 50-digit mpmath: the worse direction's truth lies between the sides."""
    grid = pld.from_distributions(*computed, value_discretization_interval=0.01, exact_zeros=False)
    swapped = (truth[1], truth[0])
    losses = [float(mp.log(pi / qi)) for pi, qi in zip(*truth) if pi > 0 and qi > 0]
    points = sorted(
        {0.0, 0.5, 2000.0} | {max(x + d, 0.0) for x in losses for d in (-1.0, 0.0, 1.0)}
    )
    lower, upper = grid.delta(np.array(points), bound="both")
    for eps, lo, up in zip(points, lower, upper):
        exact = max(_true_delta(truth, 1, eps), _true_delta(swapped, 1, eps))
        assert math.isfinite(lo) and math.isfinite(up)
        assert lo <= exact <= up, (name, eps, lo, float(exact), up)


@pytest.mark.parametrize("name,computed,truth", CASES, ids=[c[0] for c in CASES])
def test_grid_from_distributions_epsilon_sides_bracket_the_truth(name, computed, truth):
    grid = pld.from_distributions(*computed, value_discretization_interval=0.01, exact_zeros=False)
    swapped = (truth[1], truth[0])
    for target in TARGETS:
        lo, up = grid.epsilon(target, bound="both")
        assert lo <= up
        assert lo == 0.0 or max(_true_delta(truth, 1, lo), _true_delta(swapped, 1, lo)) >= target, (
            name,
            lo,
        )
        assert (
            up == math.inf or max(_true_delta(truth, 1, up), _true_delta(swapped, 1, up)) <= target
        ), (name, up)


def test_exact_zeros_stay_at_infinity_and_cost_nothing():
    """``exact_zeros=True`` (the canonical pair's own zeros): the P-mass delta at +infinity on both sides,
    so the lower delta is delta at every eps and the optimistic grid stays two atoms wide."""
    grid = pld.eps_delta_dp(1.0, 1e-6)
    lower, upper = grid.delta(np.array([5.0, 50.0, 5000.0]), bound="both")
    assert np.all(lower <= 1e-6) and np.all(upper >= 1e-6) and np.all(lower > 1e-6 * (1 - 1e-9))
    # a zero given as data is exact by default (a structural zero): both sides at +infinity, no grid to 741
    plain = pld.from_distributions([0.5, 0.5], [1.0, 0.0], value_discretization_interval=1e-5)
    lower, upper = plain.delta(1.0, bound="both")
    assert 0.5 - 1e-12 <= lower <= 0.5 <= upper <= 0.5 + 1e-12
    # declared possibly underflowed, the same zeros give a lower side finite near log p + 741
    data = pld.from_distributions(
        *canonical_pair(1.0, 1e-6),
        symmetric=True,
        value_discretization_interval=0.01,
        exact_zeros=False,
    )
    lo_eps, up_eps = data.epsilon(1e-7, bound="both")
    assert up_eps == math.inf and 700.0 < lo_eps < math.inf


def test_many_rounds_of_a_zero_q_mass_stay_tight_and_certified():
    """200 rounds of the (0.5, 1e-7) pair: the lower side's far atoms are folded (their count stays
    bounded), still exact up to round-off at eps well below 700 and below the truth everywhere."""
    pair = canonical_pair(0.5, 1e-7)
    atoms = fa.self_compose(fa.pair_atoms(*pair), 200)
    assert (
        atoms.lower is not None and atoms.lower.mass.size <= 2 * fa.FOLD_LOSS / atoms.lower.eta + 1
    )
    points = [0.0, 5.0, 20.0, 60.0, 100.0]
    lower, upper = fa.delta(atoms, np.array(points), False), fa.delta(atoms, np.array(points), True)
    for eps, lo, up in zip(points, lower, upper):
        exact = exact_delta([(*pair, 200)], eps)
        assert lo <= exact <= up and up - lo <= 1e-11 * float(exact) + 1e-15, (
            eps,
            lo,
            float(exact),
            up,
        )
