"""How far one run of a dp_accounting event's privacy loss can reach, and the refusals that read it.

A sampled event folded into one grid mechanism, or analysed as groups of copies of the record, is
refused (``ParameterOutOfRange``, naming the inner field) when its inner loss, times the copies a
batch can hold, reaches past the grid's range (``MAX_LOSS_REACH``) or past doubles
(``OVERFLOW_REACH``): ``dp_events``' module docstring states the ranges.
"""

from __future__ import annotations

try:
    from dp_accounting import dp_event as ev
    from dp_accounting.privacy_accountant import NeighboringRelation
except ModuleNotFoundError:  # name the extra that installs dp_accounting
    from ...base.optional import require_extra

    require_extra("hockeystick.interop.dp_accounting.event_reach", "dp_accounting")
    raise

from ...base.event_refusal import NonPrivateRun
from ...pld.accountants import COPY_COUNT_CUT
from ..loss_reach import MAX_LOSS_REACH, ParameterOutOfRange
from .event_checks import (
    MAX_COPIES,
    MAX_GROUP_ATOMS,
    SampledEvent,
    check_reach,
    registered_mechanism,
)
from .event_structure import structure_case


def event_reach(
    event: ev.DpEvent, relation: NeighboringRelation, group: float = 1.0
) -> tuple[float, ev.DpEvent | None, str]:
    """How far one run's privacy loss can reach (an over-estimate: reaches add over composition),
    and the mechanism event and field contributing the most (None if nothing does), for a group of
    ``group`` copies of the record (each shift times ``group``: quadratic in it for the Gaussians,
    gaussian_reach(group r), linear for the others).  Called on validated events; a zero noise
    (non-private) contributes nothing here (the sampled pair is exact)."""
    case = structure_case(event, "reach", globals())
    return (
        _registered_reach(event, relation, group) if case is None else case(event, relation, group)
    )


_Reach = tuple[float, "ev.DpEvent | None", str]
_NO_REACH: _Reach = (0.0, None, "")


def _registered_reach(event: ev.DpEvent, relation: NeighboringRelation, group: float) -> _Reach:
    """A leaf event: its registered mechanism's ``group_loss_reach`` (a group's loss is a sum of its
    copies'), named by the mechanism's ``dp_event_field``; nothing when none reads it."""
    mechanism = registered_mechanism(event, relation)
    if mechanism is None or isinstance(mechanism, NonPrivateRun):
        return _NO_REACH  # nothing released, or a non-private run (its sampled pair is exact)
    reach = float(mechanism.group_loss_reach(group))
    return (reach, event, mechanism.dp_event_field) if reach > 0 else _NO_REACH


def _sampled_reach(
    event: ev.PoissonSampledDpEvent | ev.SampledWithoutReplacementDpEvent,
    relation: NeighboringRelation,
    group: float,
) -> _Reach:
    return event_reach(event.event, relation, group)


def _with_replacement_reach(
    event: ev.SampledWithReplacementDpEvent, relation: NeighboringRelation, group: float
) -> _Reach:
    return event_reach(event.event, relation, group * copies_of(event))


def _self_composed_reach(
    event: ev.SelfComposedDpEvent, relation: NeighboringRelation, group: float
) -> _Reach:
    reach, leaf, name = event_reach(event.event, relation, group)
    return reach * event.count, leaf, name


def _composed_reach(
    event: ev.ComposedDpEvent, relation: NeighboringRelation, group: float
) -> _Reach:
    parts = [event_reach(e, relation, group) for e in event.events]
    top = max(parts, key=lambda part: part[0], default=_NO_REACH)
    return sum(part[0] for part in parts), top[1], top[2]


def copies_of(event: SampledEvent) -> int:
    """c_max: the most copies of the record a batch of K draws from n holds, short of the binomial
    tail (``COPY_COUNT_CUT``) whose mass the with-replacement analysis adds to delta (at most 2
    above ``copy_count_weights``'s); more than ``MAX_COPIES`` is refused (one group plan per
    count)."""
    from scipy import (
        stats,
    )  # lazy: scipy.stats costs ~0.3 s of import, off the way to a first answer

    n, k = int(event.source_dataset_size), int(event.sample_size)
    copies = k if n == 1 else min(k, int(stats.binom.isf(COPY_COUNT_CUT, k, 1.0 / n)) + 2)
    if copies > MAX_COPIES:
        raise ParameterOutOfRange(
            f"SampledWithReplacementDpEvent.sample_size = {k} draws from source_dataset_size = {n} records hold up "
            f"to {copies} copies of one record (more than {MAX_COPIES}, one group analysis each): no certified "
            f"bound is computed; sample fewer records per batch"
        )
    return copies


def _largest_sensitivity(event: ev.DpEvent) -> tuple[int, ev.DpEvent | None]:
    """The largest discrete Laplace sensitivity inside an event, and that event (None if it has none)."""
    # Not event_reach's walk: a maximum of one leaf field (it sizes a group pair's atoms), not a sum
    # of reaches.
    if isinstance(event, ev.DiscreteLaplaceDpEvent):
        return int(event.sensitivity), event
    inner = getattr(event, "event", None)
    parts = (
        list(event.events)
        if isinstance(event, ev.ComposedDpEvent)
        else []
        if inner is None
        else [inner]
    )
    return max((_largest_sensitivity(e) for e in parts), key=lambda t: t[0], default=(0, None))


def check_group_atoms(inner: ev.DpEvent, copies: int) -> None:
    """Refuse a with-replacement group whose discrete Laplace pair would hold more than
    ``MAX_GROUP_ATOMS`` outcomes (copies x sensitivity: its tables grow with that product, to
    gigabytes at 20 000 x 8), naming the sensitivity."""
    s, leaf = _largest_sensitivity(inner)
    if leaf is not None and s * copies > MAX_GROUP_ATOMS:
        raise ParameterOutOfRange(
            f"DiscreteLaplaceDpEvent.sensitivity = {s} drawn up to {copies} times in one batch gives a group pair of "
            f"{s * copies} outcomes (more than {MAX_GROUP_ATOMS}): no certified bound is computed in bounded memory; "
            "use a smaller sensitivity (rescale the query) or sample fewer records per batch"
        )


def check_inner_reach(
    event: ev.PoissonSampledDpEvent | SampledEvent,
    relation: NeighboringRelation,
    copies: int,
    limit: float = MAX_LOSS_REACH,
    why: str = "the loss grid would need tens of millions of points",
) -> None:
    """Refuse a sampled event whose inner loss, times ``copies`` of the record, reaches beyond
    ``limit`` (``MAX_LOSS_REACH`` where it folds into one grid mechanism: Gaussians only, or a group
    of every draw; ``OVERFLOW_REACH`` for the group analyses of any inner), naming the inner
    field."""
    reach, leaf, name = event_reach(event.event, relation, copies)
    if leaf is not None:
        check_reach(
            leaf,
            name,
            reach,
            limit,
            f"{copies} cop{'y' if copies == 1 else 'ies'} of the record in one batch: {why}",
        )
