"""The visit and plan plumbing of a family of client rounds under secure aggregation.

A family (``secagg_events``: the distributed discrete Gaussian and Skellam rounds;
``secagg_pair_events``: the Poisson-binomial and distributed discrete Laplace rounds) is composed on
its own: its rounds are taken under REPLACE_SPECIAL or REPLACE_ONE only (removing a client removes
its draws or noise share from the sum too), a ``PoissonSampledDpEvent`` directly around one round is
the only sampling taken (each sampled client brings its own draws or share), and a plan holding its
rounds beside any other mechanism is refused. ``ClientRounds`` holds what differs between the
families (their event classes, the plan's spec of a round, the reasons given), and each door reads
it the same way: ``visit``, ``visit_sampled``, ``check_alone``, ``profile``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dp_accounting import dp_event as ev  # installed: the wing's import checked it
from dp_accounting.privacy_accountant import NeighboringRelation

from ...base import validation as _validation
from ...pld.accountants import CompositionPlan, PlanKey
from ...pld.mechanisms import DEFAULT_INTERVAL
from .event_checks import Unsupported, add_runs, probability, real_field

__all__: list[str] = []  # its names serve the event modules of this package


def positive_field(event: ev.DpEvent, name: str) -> float:
    """The event's field ``name``, a real number, finite and > 0 (else a ValueError naming it).

    Parameters
    ----------
    event : dp_event.DpEvent
        The event.
    name : str
        Its field.

    Returns
    -------
    float
        The field's value.

    Raises
    ------
    ValueError
        If the field is not a real, finite and > 0.
    """
    x = real_field(event, name)
    if not (x > 0 and math.isfinite(x)):
        raise ValueError(
            f"{type(event).__name__}.{name} must be finite and > 0, got {getattr(event, name)!r}"
        )
    return x


def count_field(
    event: ev.DpEvent, name: str, maximum: float = _validation.MAX_EXACT_INTEGER
) -> int:
    """The event's field ``name``, an integer in [1, ``maximum``] (``base.validation.count``).

    Parameters
    ----------
    event : dp_event.DpEvent
        The event.
    name : str
        Its field.
    maximum : float, optional
        The largest value taken (default: the largest integer a double holds exactly).

    Returns
    -------
    int
        The field's value.

    Raises
    ------
    ValueError
        If the field is not an integer in [1, ``maximum``].
    """
    return _validation.count(
        getattr(event, name), f"{type(event).__name__}.{name}", maximum=maximum
    )


@dataclass(frozen=True)
class ClientRounds:
    """One family of client rounds: its events, its spec, its reasons (module docstring).

    Parameters
    ----------
    spec_name : str
        The first field of its rounds' specs in a plan.
    classes : tuple of type
        Its event classes.
    label : str
        Its rounds' name in a refusal ("secure-aggregation", ...).
    spec : callable
        ``spec(event, relation, rate)``: the plan's spec of one round of ``event`` under
        ``relation``, Poisson-sampled at ``rate`` (1: unsampled), its fields checked.
    replace_only : str
        The refusal under ADD_OR_REMOVE_ONE, with ``{event}`` (the event's class name) and
        ``{relation}`` to fill.
    mixed : str
        The refusal of a plan holding its rounds beside another mechanism.
    build : callable
        ``build(plan, interval)``: the profile (certified sides) of a plan of its rounds alone.
    sampled_reason : str, optional
        Said after the refusal of a sampling event other than a Poisson sample around one round.
    """

    spec_name: str
    classes: tuple[type, ...]
    label: str
    spec: Callable[[Any, NeighboringRelation, float], tuple[Any, ...]]
    replace_only: str
    mixed: str
    build: Callable[[CompositionPlan, float], Any]
    sampled_reason: str = ""

    def require_replace(self, event: Any, relation: NeighboringRelation) -> None:
        """Refuse ADD_OR_REMOVE_ONE (``Unsupported`` with ``replace_only``)."""
        if relation == NeighboringRelation.ADD_OR_REMOVE_ONE:
            raise Unsupported(
                event, self.replace_only.format(event=type(event).__name__, relation=relation)
            )

    def visit(
        self, event: Any, count: int, relation: NeighboringRelation, plan: CompositionPlan
    ) -> None:
        """Add ``count`` rounds of ``event`` to ``plan`` (REPLACE_SPECIAL or REPLACE_ONE)."""
        self.require_replace(event, relation)
        add_runs(plan, self.spec(event, relation, 1.0), count, False)

    def visit_event(
        self, event: Any, count: int, relation: NeighboringRelation, plan: CompositionPlan
    ) -> bool:
        """Add ``count`` runs of ``event`` and return True where it is a round of the family or a
        sample around rounds of it (``visit``, ``visit_sampled``: refused but for a Poisson sample
        directly around one round); return False for every other event (not the family's).

        Parameters
        ----------
        event : dp_accounting.DpEvent
            Any event that is not a composition.
        count : int
            Its runs.
        relation : NeighboringRelation
            The accountant's relation.
        plan : CompositionPlan
            The plan added to.

        Returns
        -------
        bool
            Whether the family read the event.

        Raises
        ------
        Unsupported
            Under ADD_OR_REMOVE_ONE, or for a sample of its rounds other than a Poisson sample
            directly around one.
        ValueError
            For a field out of its rule.
        """
        if isinstance(event, self.classes):
            self.visit(event, count, relation, plan)
            return True
        return self.visit_sampled(event, count, relation, plan)

    def visit_sampled(
        self, event: ev.DpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
    ) -> bool:
        """Add ``count`` runs of a ``PoissonSampledDpEvent`` directly around one round and return
        True; refuse any other sampling event around rounds of the family (naming the reason);
        return False for every other event (not handled here)."""
        inner = getattr(event, "event", None)
        if not self.holds(inner):
            return False
        if not (isinstance(event, ev.PoissonSampledDpEvent) and isinstance(inner, self.classes)):
            raise Unsupported(
                event,
                f"`{type(event).__name__}` around {self.label} rounds is not certified here: only "
                "a "
                f"`PoissonSampledDpEvent` directly around one round is{self.sampled_reason}.",
            )
        self.require_replace(inner, relation)
        q = probability(event, "sampling_probability")
        if q > 0.0:  # q = 0: the client is never in a cohort, nothing of it is released
            add_runs(plan, self.spec(inner, relation, q), count, False)
        return True

    def holds(self, event: Any) -> bool:
        """Whether ``event`` is, or holds in its ``event`` / ``events`` fields, a round of it."""
        if isinstance(event, self.classes):
            return True
        inner = [getattr(event, "event", None), *(getattr(event, "events", None) or [])]
        return any(e is not None and self.holds(e) for e in inner)

    def is_round(self, spec: tuple[Any, ...]) -> bool:
        """Whether a plan's ``spec`` is one of its rounds."""
        return bool(spec) and spec[0] == self.spec_name

    def check_alone(self, plan: CompositionPlan, event: ev.DpEvent) -> None:
        """Refuse a plan holding its rounds beside any other mechanism (a Gaussian included)."""
        specs = list(plan.counts)
        if any(map(self.is_round, specs)) and (
            plan.gaussian_r2 > 0 or not all(map(self.is_round, specs))
        ):
            raise Unsupported(event, self.mixed)

    def profile(self, plan: CompositionPlan, interval: float | None) -> Any:
        """The profile of a plan of its rounds (``build``), or None for a plan without them; one
        per plan and grid (None: 1e-4), answered again without recomposing."""
        if not any(map(self.is_round, plan.counts)):
            return None
        return _profile(self, plan.key(), interval or DEFAULT_INTERVAL)


@functools.lru_cache(maxsize=32)
def _profile(family: ClientRounds, key: PlanKey, interval: float) -> Any:
    return family.build(CompositionPlan.from_key(key), interval)
