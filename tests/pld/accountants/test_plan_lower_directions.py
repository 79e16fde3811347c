"""The lower side beside exact atoms with each direction's optimistic composition read only where it
can raise it (pld/accountants/plan_lower_directions.py): the plan's lower epsilon and delta the same
doubles as the search over the maximum of every direction's lower side, the second direction's
optimistic side not composed where its upper side never exceeds the first's lower one, and the
first call's test refusing each case where the search would read a value it leaves out."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld.accountants import plan_lower_directions
from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import SEARCH_CLUSTER, PlanProfile
from hockeystick.pld.accountants.plan_lower_directions import first_call_settles
from hockeystick.pld.accountants.plan_sides import worst
from hockeystick.pld.compose import atoms_epsilon
from hockeystick.pld.mechanisms.constructors import PoissonGaussian
from hockeystick.pld.mechanisms.discrete_laplace import DiscreteLaplace

H = 2e-3


def _plan(sigma: float, q: float, rounds: int, runs: int = 2) -> CompositionPlan:
    """Poisson-subsampled Gaussians (their add direction above the remove one near eps = 0, below
    it at larger eps) beside discrete Laplace runs (exact atoms)."""
    return CompositionPlan(
        {PoissonGaussian(sigma, q).spec(): rounds, DiscreteLaplace(0.45, 2).spec(): runs}
    )


def _composed_directions(monkeypatch) -> list[list[int]]:
    """The directions each optimistic composition of plan_lower_directions asks for, recorded."""
    asked: list[list[int]] = []
    compose = plan_lower_directions.compose_all

    def recording(plds, pessimistic, directions=None, **kw):
        asked.append([d for ds in directions for d in ds])
        return compose(plds, pessimistic, directions, **kw)

    monkeypatch.setattr(plan_lower_directions, "compose_all", recording)
    return asked


# the first call's bracket at its second point (the value at 0 is read: both directions composed;
# at 1e-4 the answer taken from the remove direction alone there is another double), and further
# up (the remove direction's alone)
@pytest.mark.parametrize(
    "plan, delta, composed",
    [
        ((1.5, 0.2, 3), 1e-2, [[0], [1]]),
        ((2.0, 0.17, 1, 1), 1e-4, [[0], [1]]),
        ((1.5, 0.2, 3), 1e-6, [[0]]),
    ],
)
def test_lower_epsilon_is_the_search_over_every_direction(monkeypatch, plan, delta, composed):
    asked = _composed_directions(monkeypatch)
    lower, _ = PlanProfile(_plan(*plan), H, None).epsilon(delta)
    reference = PlanProfile(_plan(*plan), H, None)
    curves = reference.curves(H, upper=False)  # every direction's optimistic side composed
    assert len(curves) == 2
    # the plan's search (``PlanProfile._evaluate_side``) on a few atoms (at most FIRST_PASS_ATOMS)
    expected = atoms_epsilon.epsilon_search(
        worst(curves),
        delta,
        False,
        reference.top_loss(H),
        1e-9,
        first_pass=7,
        cluster=SEARCH_CLUSTER,
    )
    assert lower.hex() == expected.hex()
    assert asked == composed


@pytest.mark.parametrize("eps, composed", [(0.0, [[0], [1]]), (1.0, [[0]])])
def test_lower_delta_is_the_maximum_over_every_direction(monkeypatch, eps, composed):
    """At 0 both directions' true delta is the pair's total variation (the add direction composed
    and read), at eps 1 the add direction's upper side is below the remove direction's lower side
    (not composed)."""
    plan = _plan(1.0, 0.05, 4)
    asked = _composed_directions(monkeypatch)
    lower, _ = PlanProfile(plan, H, None).delta(eps)
    reference = PlanProfile(plan, H, None).curves(H, upper=False)
    values = [float(c(np.array([eps]))[0]) for c in reference]
    assert lower.hex() == max(values).hex()
    assert asked == composed


def _case(**changes: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A first call of 8 points (0 first, top last) settled from the known lower side: above the
    target 1e-6 up to point 3, exact from point 2 to point 6, the ceiling above the known side at
    0, 1 and 7 only; ``changes`` (``"c<i>"``: the ceiling at point i, ``"k<i>"``: the known side)."""
    eps = np.linspace(0.0, 7.0, 8)
    known = np.array([0.4, 0.1, 1e-3, 2e-6, 5e-7, 1e-8, 1e-12, 0.0])
    ceiling = np.array([0.41, 0.11, 1e-3, 2e-6, 5e-7, 1e-8, 1e-12, 2e-15])
    for key, value in changes.items():
        (known if key[0] == "k" else ceiling)[int(key[1:])] = value
    return eps, known, ceiling


def test_first_call_settles_only_where_the_values_left_out_are_never_read():
    target = 1e-6
    assert first_call_settles(*_case(), target)
    # a point left out whose side of the target is unknown
    assert not first_call_settles(*_case(c5=2e-6), target)
    # the bracket's ends and the point before the lower end: read exactly
    for i in (2, 3, 4):
        assert not first_call_settles(*_case(**{f"c{i}": 1.0}), target)
    # the two positive points from the upper end: read exactly; the first 0 past them is not read
    assert not first_call_settles(*_case(c5=5e-7), target)
    assert first_call_settles(*_case(c6=1e-9), target)
    # a 0 before the second positive point whose ceiling leaves its sign unknown
    assert not first_call_settles(*_case(k5=0.0, c5=1e-9), target)
    # the ends settle it: the comparisons alone
    assert first_call_settles(*_case(k0=1e-7, c0=1e-7, c2=1.0), target)
    # lower end at 0: its value is read
    assert not first_call_settles(*_case(k1=1e-7, c1=1e-7), target)
