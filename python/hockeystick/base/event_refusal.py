"""What a door answers for an event it reads: a refusal, a non-private run, or a facet not offered.

Every door that reads a dp_accounting-style event (the PLD plan, the loss reach, the Rényi curve,
the Poisson sample) asks the event's registered mechanism (``pld.mechanisms.mechanism.Mechanism``)
through one facet per door.  A facet answers with a value, or with one of these:

- ``EventRefused(event, message)``, raised: the event (or the relation asked) has no certified
  analysis at that door; the dp_accounting adapters turn it into dp_accounting's
  ``UnsupportedEventError`` carrying ``event`` and ``message``.
- ``NonPrivateRun(name)``, returned by ``from_dp_event``: the event releases its input (epsilon =
  inf), e.g. zero noise; ``name`` is the spec name of the mechanism it would otherwise be, which the
  plan's run-count refusal names.
- ``NOT_OFFERED``, returned by a door's facet: the mechanism has no answer at that door (no Rényi
  curve); the door refuses the event in its own words.

A bad field value is a ``ValueError`` (``base.event_fields``), a value past the computed range a
``ParameterOutOfRange`` (``base.parameter_range``): neither is a refusal of the event's kind.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["NOT_OFFERED", "EventRefused", "NonPrivateRun", "NotOffered"]


class EventRefused(Exception):
    """An event (or relation) with no certified analysis at a door: carries the offending event.

    Parameters
    ----------
    event : object
        The event refused (the innermost one the refusal is about).
    message : str
        Why, and what to use instead.
    """

    def __init__(self, event: Any, message: str):
        super().__init__(message)
        self.event = event
        self.message = message


@dataclass(frozen=True)
class NonPrivateRun:
    """An event that releases its input: epsilon = inf (the plan records a non-private run).

    Parameters
    ----------
    name : str
        The spec name of the mechanism the event is at positive noise.
    """

    name: str


class NotOffered(enum.Enum):
    """A facet a mechanism does not offer at a door (the door words the refusal)."""

    NOT_OFFERED = "not offered"


NOT_OFFERED = NotOffered.NOT_OFFERED
