"""An event's fields, read and checked once for every door that reads the event.

A dp_accounting-style event stores its fields unchecked; the doors that read one (the PLD and RDP
adapters of ``interop.dp_accounting``, and a ``pld`` mechanism's ``from_dp_event``, which names its
event by a dotted name and so cannot import the adapter) check a field with these functions, so a
refusal names ``EventClass.field`` and states one rule wherever it is read.
"""

from __future__ import annotations

from typing import Any

from .validation import single

__all__ = ["event_field", "event_field_at_least_zero"]


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
