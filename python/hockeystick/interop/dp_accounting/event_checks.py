"""The rules every dp_accounting event adapter shares, beside the field rules of ``base.event_fields``.

A field is read as one real number or integer and checked against its rule (``ValueError`` naming
the field and the rule; ``ParameterOutOfRange`` past the ranges where a certified bound is computed,
see ``dp_events``): the rules are ``base.event_fields``', which the registered mechanisms read their
events with too, imported here.  Beside them: the neighbouring relations a mechanism's analysis
bounds, as dp_accounting's ``NeighboringRelation``; the limits on runs and copies; a leaf event's
registered mechanism and the refusal of its reach.  Both dp_accounting adapters (``dp_events`` for
the PLD accountant, ``rdp_accountant``) read events here.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

try:
    from dp_accounting import dp_event as ev
    from dp_accounting.privacy_accountant import NeighboringRelation
except ModuleNotFoundError:  # name the extra that installs dp_accounting
    from ...base.optional import require_extra

    require_extra("hockeystick.interop.dp_accounting.event_checks", "dp_accounting")
    raise

from ...base import validation as _validation
from ...base.event_fields import check_reach as check_reach
from ...base.event_fields import event_field
from ...base.event_fields import integer as integer
from ...base.event_fields import noise as noise
from ...base.event_fields import nonnegative as nonnegative
from ...base.event_fields import probability as probability
from ...base.event_fields import require_relation as _require_relation
from ...base.event_refusal import EventRefused
from ...pld.accountants import CompositionPlan, zcdp_alone
from ...pld.mechanisms import (
    Spec,
    relations_bounded,
)
from ..loss_reach import ParameterOutOfRange

# the fixed-size batch events: sample_size records drawn from source_dataset_size
SampledEvent = ev.SampledWithoutReplacementDpEvent | ev.SampledWithReplacementDpEvent


def bounded_by(analysed_under: str) -> tuple[NeighboringRelation, ...]:
    """The accountant's relations a mechanism analysed under ``analysed_under`` bounds (pld.neighbouring's table)."""
    return tuple(NeighboringRelation[r.upper()] for r in relations_bounded(analysed_under))


ADD_REMOVE = bounded_by("add_or_remove_one")  # add/remove and replace-special
REPLACE_ONE = bounded_by("replace_one")
# A non-private inner event as a finite pair: the canonical pair of (0, 1)-DP, P and Q disjoint (it
# dominates every pair and NonPrivate attains it), so a sample of it keeps its exact delta.
NON_PRIVATE = ("eps_delta", 0.0, 1.0)
MAX_RUNS = 1 << 53  # the most runs of one grid or finite mechanism composed (PLD self-composition)
MAX_COPIES = 100_000  # with replacement: the most copies of a record (group analyses) computed
MAX_GROUP_ATOMS = (
    10_000  # with replacement: copies x discrete Laplace sensitivity of one group pair
)
OVERFLOW_REACH = (
    1e300  # with replacement: a group's loss (inner reach x copies) kept finite in doubles
)
# adds ``count`` runs of an event under a relation to a plan (``dp_events._visit``: passed to the
# sampled events' cases, which plan their inner event with it)
Visit = Callable[[ev.DpEvent, int, NeighboringRelation, CompositionPlan], None]


# an event (or relation) with no certified analysis here: carries the offending sub-event
Unsupported = EventRefused


def real_field(event: ev.DpEvent, name: str) -> float:
    """An event's field as one real number (NaN and +-inf pass: the caller's rule decides); a bool,
    string, None, array or list is a ``ParameterTypeError`` (a TypeError and a ValueError) naming
    the field, and an integer past the largest double a ValueError, as at every hockeystick entry
    point (``_validation.single``)."""
    return event_field(event, name)


def check_count(count: int) -> int:
    """dp_accounting's rule for composition counts, with its message; more than 2^53 runs
    (``MAX_RUNS``) are refused (``ParameterOutOfRange``): counts multiply and enter the curves as
    doubles."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"`count` must be positive. Found {count}.")
    if count > MAX_RUNS:
        raise ParameterOutOfRange(
            f"`count` must be at most 2^53 = {MAX_RUNS}, got {_validation.describe(count)}: no certified bound is "
            "computed for more runs"
        )
    return int(count)


def require_relation(
    event: ev.DpEvent,
    relation: NeighboringRelation,
    allowed: tuple[NeighboringRelation, ...],
    what: str,
) -> None:
    """Refuse ``event`` under a relation outside ``allowed`` (``base.event_fields.require_relation``)."""
    _require_relation(event, relation.name.lower(), tuple(r.name.lower() for r in allowed), what)


ZCDP_MIXED = (
    "`ZCDpEvent` composes only with `GaussianDpEvent` and other `ZCDpEvent`s in the PLD accountant (a zCDP "
    "guarantee fixes no privacy-loss distribution; pld.accountants.zcdp_plan); use `HockeystickRdpAccountant` to "
    "compose it with other events."
)


def check_zcdp_alone(plan: CompositionPlan, event: ev.DpEvent) -> None:
    """Refuse a plan holding a ``ZCDpEvent`` run beside any mechanism other than Gaussians (``zcdp_plan``)."""
    if not zcdp_alone(plan):
        raise Unsupported(event, ZCDP_MIXED)


def plan_with(
    visit: Visit, event: ev.DpEvent, count: int, relation: NeighboringRelation
) -> CompositionPlan:
    """The plan of ``count`` runs of ``event`` built by ``visit`` (a new plan; nothing is modified)."""
    plan = CompositionPlan()
    visit(event, count, relation, plan)
    check_zcdp_alone(plan, event)
    return plan


def registered_mechanism(event: ev.DpEvent, relation: NeighboringRelation) -> Any:
    """The registered mechanism (a ``pld`` ``Mechanism``) of one ``event`` under ``relation``, or None.

    It is ``from_dp_event`` of the registered class whose ``dp_event`` is nearest in the event's MRO
    (``pld.mechanisms.registry.dp_event_class``); None when no registered class reads events of its
    class. The adapter's doors read an event none of their own cases reads through it
    (docs/howto-mechanism.md).
    """
    from ...pld.mechanisms import dp_event_class  # at the first event no case reads

    reader = dp_event_class(event)
    return None if reader is None else reader.from_dp_event(event, relation.name.lower())


def check_registered_reach(event: ev.DpEvent, mechanism: Any) -> None:
    """Refuse one run of ``event`` whose registered mechanism's loss reaches past the grid's range
    (``Mechanism.loss_reach`` against ``MAX_LOSS_REACH``, as ``check_reach``), naming its
    ``dp_event_field``."""
    reach = float(mechanism.loss_reach())
    if math.isnan(reach) or reach < 0:
        raise ValueError(
            f"{type(mechanism).__name__}.loss_reach() must be a number >= 0 (0: not stated), got {reach!r}: "
            "return how far one run's privacy loss can reach"
        )
    if reach == 0:
        return
    if not mechanism.dp_event_field:
        raise ValueError(
            f"{type(mechanism).__name__}.dp_event_field must name the {type(event).__name__} field its "
            "loss_reach grows with: set it beside loss_reach"
        )
    if reach == math.inf:  # an infinite parameter: refused as ``nonnegative`` refuses one
        raise ParameterOutOfRange(
            f"{type(event).__name__}.{mechanism.dp_event_field} must be finite, got "
            f"{getattr(event, mechanism.dp_event_field)!r}"
        )
    check_reach(event, mechanism.dp_event_field, reach)


def add_runs(plan: CompositionPlan, mechanism: Spec, count: int, non_private: bool) -> None:
    if count > MAX_RUNS:
        raise ParameterOutOfRange(
            f"SelfComposedDpEvent.count (times the `count` of compose) gives {count} runs of "
            f"{mechanism[0]}, more than 2^53: no certified bound is computed for it"
        )
    if non_private:
        plan.non_private = True
    else:
        plan.add(mechanism, count)


def nesting_depth(event: Any) -> int:
    """The deepest chain of events inside ``event`` through its ``event`` / ``events`` fields.

    Walked with an explicit stack: the depth may pass Python's recursion limit.

    Parameters
    ----------
    event : dp_accounting.DpEvent
        The event.

    Returns
    -------
    int
        1 for an event with no inner event; one more per level of nesting.
    """
    deepest, stack = 0, [(event, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        inner = [getattr(node, "event", None), *(getattr(node, "events", None) or [])]
        stack.extend((e, depth + 1) for e in inner if isinstance(e, ev.DpEvent))
    return deepest


@contextlib.contextmanager
def nesting_refused(event: Any) -> Iterator[None]:
    """Turn a ``RecursionError`` while an adapter reads ``event`` into a ValueError naming its nesting and the fix.

    An analysis that walks the event's tree recursively (dp_accounting's own ledger, a sampled
    event's inner composition, the RDP adapter's curves) runs out of Python's stack thousands of
    levels down; the PLD adapter's composition walk itself is iterative.

    Parameters
    ----------
    event : dp_accounting.DpEvent
        The event being read.

    Yields
    ------
    None
        Inside the block the event is read.

    Raises
    ------
    ValueError
        When the block raises ``RecursionError``: the event's depth (``nesting_depth``) and how to
        flatten it.
    """
    try:
        yield
    except RecursionError:
        raise ValueError(
            f"the event nests {nesting_depth(event)} events deep (each ComposedDpEvent, SelfComposedDpEvent or "
            f"sampled event one level), past what this analysis walks (Python's recursion limit, "
            "sys.getrecursionlimit()); flatten it: one ComposedDpEvent of the leaf events, or compose(event, "
            "count) once per repeated event"
        ) from None
