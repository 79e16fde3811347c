"""The structural events of dp_accounting, the one table of them: how each door walks an event that
holds others (a composition, a sample, a repetition) or holds no mechanism (nothing, everything).

A leaf event (one mechanism) is read by the registered ``pld`` mechanism whose ``dp_event`` it is
(``Mechanism.from_dp_event`` and its other door facets, docs/howto-mechanism.md), and a
secure-aggregation round by its family (``client_rounds.ClientRounds``); the structure is the
adapter's own.  Each row names an event class's case at each door that reads it, a function of the
door's module (named, not imported: the doors import this table):

- ``plan``: in ``dp_events``, ``case(event, count, relation, plan)`` adds ``count`` runs to a
  ``CompositionPlan`` (compositions are unwrapped by its ``_visit`` itself, on an explicit stack);
- ``reach``: in ``event_reach``, ``case(event, relation, group)`` is how far one run's loss reaches;
- ``rdp``: in ``rdp_accountant``, ``case(accountant, event, count)`` is the Rényi curve of
  ``count`` runs.

A door without a case for the event's class (nor for a base class nearer in its MRO) reads the
event as a leaf.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from dp_accounting import dp_event as ev  # installed: the wing's import checked it

__all__: list[str] = []  # the doors' dispatch; no public name

Door = Literal["plan", "reach", "rdp"]


@dataclass(frozen=True)
class Walk:
    """One structural event class's case at each door, by its name in the door's module (None: the
    door reads it as a leaf)."""

    plan: str | None = None
    reach: str | None = None
    rdp: str | None = None


STRUCTURE: dict[type, Walk] = {
    ev.NoOpDpEvent: Walk(plan="_visit_noop", rdp="_noop_rdp"),
    ev.NonPrivateDpEvent: Walk(plan="_visit_non_private", rdp="_non_private_rdp"),
    ev.SelfComposedDpEvent: Walk(reach="_self_composed_reach", rdp="_self_composed_rdp"),
    ev.ComposedDpEvent: Walk(reach="_composed_reach", rdp="_composed_rdp"),
    ev.PoissonSampledDpEvent: Walk(
        plan="_visit_poisson", reach="_sampled_reach", rdp="_poisson_rdp"
    ),
    ev.SampledWithoutReplacementDpEvent: Walk(
        plan="_visit_fixed_size", reach="_sampled_reach", rdp="_without_replacement_rdp"
    ),
    ev.SampledWithReplacementDpEvent: Walk(
        plan="_visit_fixed_size", reach="_with_replacement_reach"
    ),
    ev.RepeatAndSelectDpEvent: Walk(rdp="_repeat_and_select_rdp"),
    ev.SingleEpochTreeAggregationDpEvent: Walk(rdp="_tree_aggregation_rdp"),
}


def structure_case(event: Any, door: Door, cases: Mapping[str, Any]) -> Callable[..., Any] | None:
    """The case of the nearest class in ``event``'s MRO that has one at ``door`` (as isinstance
    would pick), or None: the door reads the event as a leaf.

    Parameters
    ----------
    event : dp_accounting.DpEvent
        The event.
    door : {"plan", "reach", "rdp"}
        The door asking.
    cases : mapping
        The door module's namespace (``globals()``), where its cases are defined.

    Returns
    -------
    callable or None
        The case.
    """
    for cls in type(event).__mro__:
        walk = STRUCTURE.get(cls)
        name = None if walk is None else getattr(walk, door)
        if name is not None:
            case: Callable[..., Any] = cases[name]
            return case
    return None
