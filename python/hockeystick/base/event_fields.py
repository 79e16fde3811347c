"""An event's fields, read and checked once for every door that reads the event.

A dp_accounting-style event stores its fields unchecked; the doors that read one (the PLD and RDP
adapters of ``interop.dp_accounting``, and a ``pld`` mechanism's ``from_dp_event`` and its other
door facets, which name their event by a dotted name and so cannot import the adapter) check a field
with these functions, so a refusal names ``EventClass.field`` and states one rule wherever it is
read.  A relation is named as ``pld.mechanisms.neighbouring.RELATIONS`` names it (dp_accounting's
``NeighboringRelation`` member, lower case).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .event_refusal import EventRefused
from .parameter_range import MAX_LOSS_REACH, MAX_NOISE, ParameterOutOfRange
from .validation import MAX_EXACT_INTEGER, single

__all__ = [
    "check_reach",
    "event_field",
    "event_field_at_least_zero",
    "integer",
    "noise",
    "nonnegative",
    "probability",
    "require_relation",
]


def event_field(event: Any, name: str) -> float:
    """An event's field as one real number (NaN and +-inf pass: the caller's rule decides).

    Parameters
    ----------
    event : object
        The event.
    name : str
        The field.

    Returns
    -------
    float
        The field's value.

    Raises
    ------
    ValueError
        A ``ParameterTypeError`` (also a TypeError) naming ``EventClass.name`` for a bool, string,
        None, array or list; a ValueError for an integer past the largest double
        (``validation.single``).
    """
    return single(getattr(event, name), f"{type(event).__name__}.{name}")


def event_field_at_least_zero(event: Any, name: str) -> float:
    """An event's field, a real number >= 0 (+inf allowed: an infinite parameter, refused or
    answered by each door's own range).

    Parameters
    ----------
    event : object
        The event.
    name : str
        The field.

    Returns
    -------
    float
        The field's value.

    Raises
    ------
    ValueError
        If the field is not a real number, or is NaN or negative (naming ``EventClass.name``).
    """
    x = event_field(event, name)
    if not x >= 0:
        raise ValueError(
            f"{type(event).__name__}.{name} must be a real number >= 0 (not NaN), got "
            f"{getattr(event, name)!r}"
        )
    return x


def nonnegative(event: Any, name: str) -> float:
    """An event's field, a finite real number >= 0 (+inf is ``ParameterOutOfRange``, as dp_accounting
    overflows there).

    Parameters
    ----------
    event : object
        The event.
    name : str
        The field.

    Returns
    -------
    float
        The field's value.

    Raises
    ------
    ValueError
        If the field is not a real number, or is NaN or negative (naming ``EventClass.name``);
        ``ParameterOutOfRange`` (also an OverflowError) if it is +inf.
    """
    v = getattr(event, name)
    x = event_field(event, name)
    if x == math.inf:  # dp_accounting overflows here (OverflowError): so does this refusal
        raise ParameterOutOfRange(f"{type(event).__name__}.{name} must be finite, got {v!r}")
    if not (x >= 0 and math.isfinite(x)):
        raise ValueError(f"{type(event).__name__}.{name} must be finite and >= 0, got {v!r}")
    return x


def noise(event: Any, name: str) -> float:
    """A noise scale: finite, >= 0 and at most ``MAX_NOISE`` (``base.parameter_range``).

    Parameters
    ----------
    event : object
        The event.
    name : str
        The field.

    Returns
    -------
    float
        The field's value.

    Raises
    ------
    ValueError
        As ``nonnegative``; ``ParameterOutOfRange`` above ``MAX_NOISE``.
    """
    x = nonnegative(event, name)
    if x > MAX_NOISE:
        raise ParameterOutOfRange(
            f"{type(event).__name__}.{name} must be at most {MAX_NOISE:g} (a larger noise "
            f"scale leaves a privacy loss below double precision, where no certified bound "
            f"is computed), got {getattr(event, name)!r}"
        )
    return x


def probability(event: Any, name: str) -> float:
    """An event's field in [0, 1].

    Parameters
    ----------
    event : object
        The event.
    name : str
        The field.

    Returns
    -------
    float
        The field's value.

    Raises
    ------
    ValueError
        As ``nonnegative``, or above 1.
    """
    x = nonnegative(event, name)
    if x > 1:
        raise ValueError(
            f"{type(event).__name__}.{name} must lie in [0, 1], got {getattr(event, name)!r}"
        )
    return x


def integer(event: Any, name: str, minimum: int) -> int:
    """An event's integer field, minimum <= v <= 2^53 (the mechanisms' counts are exact doubles).

    Parameters
    ----------
    event : object
        The event.
    name : str
        The field.
    minimum : int
        The least value taken.

    Returns
    -------
    int
        The field's value.

    Raises
    ------
    ValueError
        For a bool, a non-integer, a value below ``minimum`` or above 2^53 (naming
        ``EventClass.name``).
    """
    v = getattr(event, name)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum:
        raise ValueError(
            f"{type(event).__name__}.{name} must be an integer >= {minimum}, got {v!r}"
        )
    if v > MAX_EXACT_INTEGER:
        raise ValueError(
            f"{type(event).__name__}.{name} must be at most 2^53 = 9007199254740992, got {v!r}"
        )
    return int(v)


def check_reach(
    event: Any,
    name: str,
    reach: float,
    limit: float = MAX_LOSS_REACH,
    why: str = "the loss grid would need tens of millions of points",
) -> None:
    """Refuse a run whose privacy loss reaches beyond ``limit`` (``base.parameter_range``), naming
    the field.

    Parameters
    ----------
    event : object
        The event.
    name : str
        The field the reach grows with (its value is quoted).
    reach : float
        How far one run's loss reaches.
    limit : float, default MAX_LOSS_REACH
        The farthest reach taken.
    why : str
        What a farther reach would cost.

    Raises
    ------
    ParameterOutOfRange
        If ``reach`` is not at most ``limit`` (NaN included).
    """
    if not reach <= limit:
        raise ParameterOutOfRange(
            f"{type(event).__name__}.{name} = {getattr(event, name)!r} lets one run's privacy loss reach "
            f"{reach:.4g}, beyond {limit:g} ({why}): no certified bound is computed; use more noise"
        )


def require_relation(event: Any, relation: str, allowed: tuple[str, ...], what: str) -> None:
    """Refuse an event under a neighbouring relation its analysis does not bound.

    Parameters
    ----------
    event : object
        The event.
    relation : str
        The relation asked, a ``pld.mechanisms.neighbouring.RELATIONS`` name
        (``"add_or_remove_one"``, ``"replace_one"``, ``"replace_special"``).
    allowed : tuple of str
        The relations its analysis bounds (the same names).
    what : str
        The event as the refusal names it (with the reason, if any).

    Raises
    ------
    EventRefused
        If ``relation`` is not in ``allowed``; the message names dp_accounting's
        ``NeighboringRelation`` members.
    """
    if relation not in allowed:
        names = " or ".join(f"`{r.upper()}`" for r in allowed)
        raise EventRefused(
            event,
            f"neighboring_relation must be {names} for {what}. Found "
            f"NeighboringRelation.{relation.upper()}.",
        )
