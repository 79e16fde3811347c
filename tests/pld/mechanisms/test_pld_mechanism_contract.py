"""Every mechanism registered (``pld.mechanisms.registry``: each class registers itself) keeps the contract of
``pld.mechanisms.mechanism``: its spec reads back to it; its grid PLD brackets delta (lower <= upper, a finer
grid's bracket meeting a coarser one's); a finite pair's exact delta, summed here outcome by outcome, lies in
the grid bracket and in its atoms' bracket (closed-form atoms agreeing with the pair's); a second upper side
stays above the lower side; its loss atoms sit on a grid that divides them; its docstring cites its pair.

``PARAMETERS`` holds one parameter set per class: a class registered without one fails here."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.compose import finite_atoms
from hockeystick.pld.mechanisms.mechanism import Mechanism
from hockeystick.pld.mechanisms.registry import mechanism_class, mechanism_names, mechanism_of
from hockeystick.pld.refine.grid_alignment import aligned

INNER = CompositionPlan(
    {("laplace", 3.0): 1}, gaussian_r2=1.0 / 16.0, gaussian_r2_operations=5
).key()
PARAMETERS: dict[str, tuple[object, ...]] = {
    "gaussian": (2.0, 1.0),
    "poisson_gaussian": (2.0, 0.1),
    "laplace": (2.0,),
    "laplace_mixture": (2.0, (0.0, 1.0), (0.9, 0.1)),
    "gaussian_mixture": (3.0, (0.0, 1.0), (0.5, 0.5)),
    "discrete_laplace": (0.5, 2),
    "poisson_discrete_laplace": (0.6, 1, 0.2),
    "poisson_discrete_gaussian": (3.0, 1, 0.2),
    "truncated_gaussian": (1000, 0.01, 12, 2.0),
    "random_allocation_gaussian": (10, 2.0),
    "random_allocation_selected_gaussian": (11, 3, 2.0),
    "shuffled_gaussian": (3.0, 10, 100),
    "randomized_response": (0.5, 4, "replace_special"),
    "eps_delta": (0.3, 1e-6),
    "exponential_mechanism": (0.4,),
    "permute_and_flip": (0.4,),
    "poisson_replace_one_gaussian": (2.0, 0.1),
    "without_replacement_gaussian": (3.0, 10, 100),
    "with_replacement_gaussian": (3.0, 5, 100),
    "discrete_gaussian": (3.0, 1),
    "poisson_pair": (0.1, ("eps_delta", 0.5, 1e-6)),
    "poisson_generic": (0.1, INNER),
    "without_replacement_generic": (10, 100, INNER),
    "with_replacement_generic": (3, 100, INNER),
    "group_bound": (2, 3, ("eps_delta", 0.5, 1e-6)),
    "zcdp": (0.1, 0.0),
}
NO_PLD = {"zcdp"}  # a zCDP guarantee fixes no privacy-loss distribution (``zcdp_plan``)
EPS = np.array([0.05, 0.3, 1.0])
COARSE, FINE = 2e-2, 5e-3
SLACK = 1e-12  # round-off allowed between two certified computations of one exact value


def mechanism(name: str) -> Mechanism:
    return mechanism_class(name)(*PARAMETERS[name])


def test_every_registered_mechanism_has_parameters():
    assert sorted(mechanism_names()) == sorted(PARAMETERS)
    assert all(mechanism_class(name).name == name for name in mechanism_names())


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_spec_reads_back(name):
    m = mechanism(name)
    spec = m.spec()
    assert spec == (name, *PARAMETERS[name])
    assert mechanism_of(spec) == m
    hash(spec)


def test_a_computed_delta_reads_back_apart_from_a_given_one():
    """(eps, delta) with delta computed (a sampled non-private event's chance) keys apart from the same numbers
    given exactly, and each key builds its own mechanism back."""
    given, computed = (
        mechanism_class("eps_delta")(0.0, 0.049),
        mechanism_class("eps_delta")(0.0, 0.049, False),
    )
    assert given.spec() == ("eps_delta", 0.0, 0.049) and computed.spec() == (
        "eps_delta",
        0.0,
        0.049,
        False,
    )
    assert (
        mechanism_of(given.spec()) == given and mechanism_of(computed.spec()) == computed != given
    )


def test_unknown_or_misnamed_specs_are_refused():
    with pytest.raises(ValueError, match="spec"):
        mechanism_of(("no_such_mechanism", 1.0))
    with pytest.raises(ValueError, match="spec"):
        mechanism_class("laplace").from_spec(("gaussian", 1.0))


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_docstring_names_its_pair_or_citation(name):
    doc = mechanism_class(name).__doc__ or ""
    assert re.search(r"\b(19|20)\d\d\b|\bpair\b|Lemma|Thm", doc), doc


def bracket(m: Mechanism, h: float) -> tuple[np.ndarray, np.ndarray]:
    lo, up = m.grid_pld(h).delta(EPS, bound="both")
    return np.asarray(lo, dtype=np.float64), np.asarray(up, dtype=np.float64)


@pytest.mark.parametrize("name", sorted(set(PARAMETERS) - NO_PLD))
def test_grid_brackets_are_ordered_and_meet_across_grids(name):
    m = mechanism(name)
    lo_c, up_c = bracket(m, COARSE)
    lo_f, up_f = bracket(m, FINE)
    assert np.all(lo_c <= up_c) and np.all(lo_f <= up_f), (lo_c, up_c, lo_f, up_f)
    assert np.all(lo_f <= up_c + SLACK) and np.all(lo_c <= up_f + SLACK), (lo_c, up_c, lo_f, up_f)
    assert np.all((lo_c >= 0) & (up_c <= 1))


def test_zcdp_has_no_grid_pld():
    with pytest.raises(ValueError, match="no privacy-loss distribution"):
        mechanism("zcdp").grid_pld(COARSE)


def hockey_stick(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    """sum_x (P(x) - e^eps Q(x))_+, outcome by outcome (Q = 0: the whole P-mass)."""
    return math.fsum(np.maximum(p - math.exp(eps) * q, 0.0).tolist())


FINITE = sorted(
    name for name in set(PARAMETERS) - NO_PLD if mechanism(name).finite_pairs() is not None
)


def test_the_finite_mechanisms_are_the_expected_ones():
    assert FINITE == [
        "discrete_gaussian",
        "discrete_laplace",
        "eps_delta",
        "poisson_discrete_laplace",
        "poisson_pair",
        "randomized_response",
    ]


@pytest.mark.parametrize("name", FINITE)
def test_finite_pair_delta_lies_in_the_grid_and_atom_brackets(name):
    m = mechanism(name)
    pairs = m.finite_pairs()
    assert pairs is not None
    exact = np.array([max(hockey_stick(p, q, e) for p, q in pairs) for e in EPS])
    for h in (COARSE, FINE):
        lo, up = bracket(m, h)
        assert np.all(lo <= exact * (1 + SLACK) + SLACK) and np.all(
            exact <= up * (1 + SLACK) + SLACK
        ), (h, lo, up)
    for atoms in ([finite_atoms.pair_atoms(p, q) for p, q in pairs], m.exact_atoms()):
        if atoms is None:
            continue
        assert len(atoms) == len(pairs)
        lower = np.max([finite_atoms.delta(a, EPS, upper=False) for a in atoms], axis=0)
        upper = np.max([finite_atoms.delta(a, EPS, upper=True) for a in atoms], axis=0)
        assert np.all(lower <= exact * (1 + SLACK) + SLACK) and np.all(
            exact <= upper * (1 + SLACK) + SLACK
        )
        # the atoms' sides differ from the exact delta by their round-off charges only
        np.testing.assert_allclose(upper, exact, rtol=1e-7, atol=1e-12)
        np.testing.assert_allclose(lower, exact, rtol=1e-7, atol=1e-12)


def test_exact_atoms_come_with_finite_pairs():
    for name in set(PARAMETERS) - NO_PLD:
        m = mechanism(name)
        if m.exact_atoms() is not None:
            assert m.finite_pairs() is not None, name


@pytest.mark.parametrize("name", sorted(set(PARAMETERS) - NO_PLD))
def test_upper_alternative_stays_above_the_lower_side(name):
    m = mechanism(name)
    alternative = m.upper_alternative(COARSE)
    assert (alternative is not None) == m.has_upper_alternative()
    if alternative is None:
        return
    lo, up = bracket(m, COARSE)
    other = np.asarray(alternative.delta(EPS, bound="upper"), dtype=np.float64)
    assert np.all(other >= lo), (other, lo)
    assert np.any(other < up), "a second upper side that is never smaller reports nothing"


@pytest.mark.parametrize("name", sorted(set(PARAMETERS) - NO_PLD))
def test_loss_atoms_lie_on_a_grid_that_divides_them(name):
    m = mechanism(name)
    for atom in m.loss_atoms():
        assert math.isfinite(atom) and atom > 0.0
        h = aligned(atom / 40.0, atom, [])
        assert atom / h == 40.0
        pmfs = m.grid_pld(h).composed(
            False
        )  # the optimistic side keeps an atom on the grid exactly
        index = 40
        held = [
            pmf.p[index - pmf.k_lo] for pmf in pmfs if pmf.k_lo <= index < pmf.k_lo + pmf.p.size
        ]
        assert held and max(held) > 0.0, (atom, h)


def test_laplace_like_mechanisms_name_their_atoms():
    assert mechanism("laplace").loss_atoms() == [0.5]
    atoms = mechanism("laplace_mixture").loss_atoms()
    assert len(atoms) == 2 and min(atoms) > 0.0
    assert mechanism("discrete_laplace").loss_atoms() == []
