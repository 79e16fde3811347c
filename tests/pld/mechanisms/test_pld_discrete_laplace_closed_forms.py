"""Closed forms for lone and self-composed discrete Laplace accounting, against
the slow paths they replace and 50-digit mpmath.

- ``discrete_laplace_atoms`` (atoms straight from the losses a (2x - s)): the lattice of
  ``pair_atoms`` on the pair, every exact loss within the charged loss error of index * eta and every
  mass within the charged relative error of its exact value;
- ``atoms_compose._binomial_self_compose`` (two atoms k times): the atoms of the lattice path, masses
  within both charges of each other and of the exact binomial law;
- ``finite_atoms.pure_epsilon_bracket`` (both sides from one crossing estimate): the answers of
  ``pure_epsilon`` on each side, bracketing the exact epsilon (mpmath bisection);
- the plan's lone / self-composed discrete Laplace brackets: the exact epsilon inside, the slow
  path's (``pair_atoms`` and the lattice self-composition) within round-off.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import PlanProfile
from hockeystick.pld.compose import atoms_compose
from hockeystick.pld.compose import finite_atoms as fa
from hockeystick.pld.mechanisms.discrete_laplace import (
    discrete_laplace_atoms,
    discrete_laplace_pair,
)

from ..compose.test_pld_finite_atoms_self_compose import (
    _exact_epsilon,
)  # the exact epsilon of a law on the a-lattice

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test

PAIRS = [
    (0.092, 1),
    (0.31447809307770563, 2),
    (0.4839990325713871, 1),
    (0.05, 5),
    (2.0, 4),
    (7.5, 3),
    (40.0, 2),
]


def _exact_law(a: float, s: int, count: int) -> dict[int, mp.mpf]:
    """k runs of the discrete Laplace pair: loss j a -> exact P-mass (mpmath)."""
    a_mp = mp.mpf(a)
    one = {-s: mp.e ** (-a_mp * s) / (1 + mp.e**-a_mp), s: 1 / (1 + mp.e**-a_mp)}
    for x in range(1, s):
        one[2 * x - s] = mp.tanh(a_mp / 2) * mp.e ** (-a_mp * (s - x))
    law = {0: mp.mpf(1)}
    for _ in range(count):
        nxt: dict[int, mp.mpf] = {}
        for i, m in law.items():
            for j, w in one.items():
                nxt[i + j] = nxt.get(i + j, mp.mpf(0)) + m * w
        law = nxt
    return law


def _check_against_exact(atoms: fa.Atoms, a: float, law: dict[int, mp.mpf]) -> None:
    """Every atom's loss within loss_error of an exact loss j a, its mass within rel_error of it."""
    assert atoms.index.size == len(law) and atoms.p_inf == 0.0
    for i, m in zip(atoms.index.tolist(), atoms.mass.tolist()):
        j = round(i * atoms.eta / a)
        assert (
            abs(mp.mpf(i) * mp.mpf(atoms.eta) - j * mp.mpf(a)) <= atoms.loss_error
        )  # exact product vs exact loss
        assert (
            abs(mp.mpf(i * atoms.eta) - j * mp.mpf(a)) <= atoms.loss_error
        )  # and the rounded product
        assert abs(mp.mpf(m) / law[j] - 1) <= atoms.rel_error


@pytest.mark.parametrize("a, s", PAIRS)
def test_discrete_laplace_atoms_are_the_pairs_atoms_and_exact(a, s):
    direct = discrete_laplace_atoms(a, s)
    slow = fa.pair_atoms(*discrete_laplace_pair(a, s))
    np.testing.assert_array_equal(direct.index, slow.index)
    np.testing.assert_array_equal(direct.mass, slow.mass)  # the same masses, the same doubles
    assert direct.eta == pytest.approx(slow.eta, rel=1e-14)
    assert (
        direct.loss_list == (direct.index * direct.eta).tolist()
        and direct.mass_list == direct.mass.tolist()
    )
    _check_against_exact(direct, a, _exact_law(a, s, 1))


def test_discrete_laplace_atoms_refuse_what_the_pair_refuses():
    for bad in [(0.0, 1), (-0.3, 1), (math.nan, 1), (math.inf, 1)]:
        with pytest.raises(ValueError, match="parameter"):
            discrete_laplace_atoms(*bad)
    for bad_s in [0, -1, 1.5, True]:
        with pytest.raises(ValueError, match="sensitivity"):
            discrete_laplace_atoms(0.3, bad_s)


@pytest.mark.parametrize(
    "a, count", [(0.4839990325713871, 8), (0.092, 31), (1.3, 15), (2.0, 2), (0.01, 20)]
)
def test_binomial_self_composition_matches_the_lattice_path_and_exact_law(a, count):
    atoms = discrete_laplace_atoms(a, 1)
    binomial = fa.self_compose(atoms, count)
    lattice = atoms_compose._lean_self_compose(atoms, count)  # the path it replaces
    np.testing.assert_array_equal(binomial.index, lattice.index)
    np.testing.assert_allclose(
        binomial.mass, lattice.mass, rtol=binomial.rel_error + lattice.rel_error, atol=0
    )
    assert binomial.loss_error == lattice.loss_error and binomial.eta == lattice.eta
    assert binomial.loss_list == lattice.loss_list and binomial.mass_list == binomial.mass.tolist()
    _check_against_exact(binomial, a, _exact_law(a, 1, count))


def test_binomial_self_composition_steps_aside_near_underflow():
    atoms = discrete_laplace_atoms(
        30.0, 1
    )  # the lower mass ~1e-13: its 31st power would be subnormal
    assert atoms_compose._binomial_self_compose(atoms, 31) is None
    out = fa.self_compose(atoms, 31)  # the lattice path takes it
    assert out.index.size >= 2 and np.all(out.mass > 0)


@pytest.mark.parametrize(
    "a, s, count",
    [
        (0.4839990325713871, 1, 8),
        (0.31447809307770563, 2, 1),
        (0.05, 5, 3),
        (1.3, 1, 15),
        (0.7, 4, 2),
        (0.092, 1, 1),
    ],
)
@pytest.mark.parametrize("target", [1e-5, 1e-3, 0.2])
def test_pure_epsilon_bracket_is_pure_epsilon_and_brackets_the_exact_one(a, s, count, target):
    atoms = fa.self_compose(discrete_laplace_atoms(a, s), count)
    lower, upper = fa.pure_epsilon_bracket(atoms, target)
    assert lower == fa.pure_epsilon(atoms, target, False) and upper == fa.pure_epsilon(
        atoms, target, True
    )
    exact = _exact_epsilon(_exact_law(a, s, count), a, target)
    assert lower <= exact <= upper
    assert upper - lower <= 1e-9 * max(1.0, float(exact))


@pytest.mark.parametrize(
    "a, s, count", [(0.4839990325713871, 1, 8), (0.31447809307770563, 2, 1), (0.05, 5, 3)]
)
def test_plan_brackets_of_a_discrete_laplace_hold_the_exact_epsilon_and_the_slow_paths(a, s, count):
    profile = PlanProfile(CompositionPlan({("discrete_laplace", a, s): count}), None, 1e-4)
    lower, upper = profile.epsilon(1e-5)
    exact = _exact_epsilon(_exact_law(a, s, count), a, 1e-5)
    assert lower <= exact <= upper
    slow = fa.self_compose(fa.pair_atoms(*discrete_laplace_pair(a, s)), count)
    slow_bracket = fa.pure_epsilon(slow, 1e-5, False), fa.pure_epsilon(slow, 1e-5, True)
    assert lower == pytest.approx(slow_bracket[0], rel=1e-11) and upper == pytest.approx(
        slow_bracket[1], rel=1e-11
    )


@pytest.mark.parametrize(
    "a, s, count",
    [(800.0, 1, 3), (800.0, 1, 1), (400.0, 2, 4), (745.5, 3, 2), (720.0, 1, 1), (300.0, 1, 3)],
)
def test_huge_losses_stay_finite_and_exact(a, s, count):
    """Losses beyond 709 (e^loss overflows) and e^{-a s} below the least double: the outcome x <= 0 has
    P-mass 0 and is dropped, the other losses stay the finite a (2x - s) (``pair_atoms`` on the computed
    pair sees Q = 0 at x >= s and puts that P-mass at loss +infinity, on the lower side too: a lower
    epsilon of inf where the truth is about a s), and the exact root's search works in e^{eps - loss}
    (main raised OverflowError at DLap(720, 1) and 3 x DLap(300, 1)).  The plan brackets the exact
    epsilon (mpmath) as tightly as anywhere."""
    direct = discrete_laplace_atoms(a, s)
    assert (
        np.all(direct.mass > 0)
        and direct.p_inf == 0.0
        and direct.loss_list == (direct.index * direct.eta).tolist()
    )
    law = _exact_law(a, s, 1)
    kept = {round(i * direct.eta / a) for i in direct.index.tolist()}
    assert all(
        law[j] < 1e-300 for j in law if j not in kept
    )  # only underflowing outcomes are dropped
    for i, m in zip(direct.index.tolist(), direct.mass.tolist()):
        j = round(i * direct.eta / a)
        assert abs(mp.mpf(i * direct.eta) - j * mp.mpf(a)) <= direct.loss_error
        assert abs(mp.mpf(m) / law[j] - 1) <= direct.rel_error
    lower, upper = PlanProfile(
        CompositionPlan({("discrete_laplace", a, s): count}), None, 1e-4
    ).epsilon(1e-5)
    exact = _exact_epsilon(_exact_law(a, s, count), a, 1e-5)
    assert 0.0 <= lower <= exact <= upper < math.inf
    assert upper - lower <= 1e-9 * float(exact)
