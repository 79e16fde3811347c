"""Every round the ledger records, read one way: its registry entry and the keywords its facets take.

A round is a registered mechanism (``pld.mechanisms.registry``): one of the ledger's own rounds,
whose ``Round`` fields are its entry's required parameters (``StageEntry.round_fields``, found by
``round_entry``), or a round holding a compose stage's parameters (``registered_round``).  Each
door reads the entry's facets at those keywords: the Rényi curve (``rdp``), the PLD on a fixed
schedule's grid (``cached_compose`` through the accountant's round cache where the entry has one,
else ``build``), the realizable lower side of a round known within a bracket (``lower``), and the
GDP parameter of a round that is a Gaussian pair exactly (``gaussian_of``, its
``gaussian_radius()``: Dong, Roth & Su 2022, Thm 2.7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..pld.mechanisms import StageEntry, described_round, round_entry
from .registered_round import registered_entry

if TYPE_CHECKING:
    from ..pld.accountants import PLDAccountant

__all__: list[str] = []  # its names serve the ledger's rounds (``rounds``, ``fixed_schedule``)


def given(value: float | None) -> float:
    """A parameter a round's mechanism needs, as a float (``Round.__post_init__`` checked it).

    Parameters
    ----------
    value : float or None
        The round's field.

    Returns
    -------
    float
        The value.

    Raises
    ------
    ValueError
        If the field is not set (a round built around its checks).
    """
    if value is None:
        raise ValueError("the round lacks a parameter its mechanism needs")
    return float(value)


def entry_of(one: Any) -> StageEntry:
    """The registry entry of a round: its own entry, or the compose stage's whose parameters it holds.

    Parameters
    ----------
    one : Round
        The round.

    Returns
    -------
    StageEntry
        Its entry.

    Raises
    ------
    ValueError
        If the mechanism is not registered as a round (``round_entry``, ``registered_round``).
    """
    return registered_entry(one.mechanism) if one.parameters else round_entry(one.mechanism)


def keywords(one: Any) -> dict[str, Any]:
    """The keywords the entry's facets take: the stage's parameters, or the round's needed fields.

    Parameters
    ----------
    one : Round
        The round.

    Returns
    -------
    dict
        Name to value (an own round's fields as floats).
    """
    if one.parameters:
        return dict(one.parameters)
    return {name: given(getattr(one, name)) for name in round_entry(one.mechanism).required()}


def compose_round(
    accountant: PLDAccountant, one: Any, rounds: int, h: float, side: str = "upper"
) -> None:
    """Add ``rounds`` copies of the round to ``accountant`` on grid h, at its lower side if asked.

    Parameters
    ----------
    accountant : PLDAccountant
        The accountant.
    one : Round
        The round.
    rounds : int
        How many.
    h : float
        The grid's spacing.
    side : {"upper", "lower"}, optional
        The side of a round known within a bracket (``StageEntry.lower``); others have one.
    """
    entry, fields = entry_of(one), keywords(one)
    if side == "lower" and entry.lower is not None:
        fields = entry.lower(**fields)
    if entry.cached_compose is not None:
        entry.cached_compose(accountant, rounds, **fields)
    else:
        accountant.compose(described_round(entry, fields, h), rounds)


def bracketed(one: Any) -> bool:
    """Whether the round is known only within a bracket: its lower side differs from it.

    Parameters
    ----------
    one : Round
        The round.

    Returns
    -------
    bool
        True when its entry has a ``lower`` facet that moves its fields.
    """
    entry = entry_of(one)
    if entry.lower is None:
        return False
    fields = keywords(one)
    return bool(entry.lower(**fields) != fields)


def gaussian_pair(one: Any) -> Any:
    """The ``Gaussian`` pair the round is exactly, or None (``StageEntry.gaussian_of``).

    Parameters
    ----------
    one : Round
        The round.

    Returns
    -------
    Gaussian or None
        Its ``sigma``, ``shift`` and ``gaussian_radius()`` give its GDP parameter.
    """
    entry = entry_of(one)
    return None if entry.gaussian_of is None else entry.gaussian_of(**keywords(one))
