"""A round of a mechanism registered with its Rényi curve: the ledger reads its facets from the registry.

The ledger's five own rounds (``rounds.MECHANISMS``) are registry entries whose ``Round`` fields are
their required parameters (``StageEntry.round_fields``).  Any other mechanism a compose stage names
reaches the ledger through its registry entry (``pld.mechanisms.registry``): a round of that name
holds the stage's parameters, its Rényi curve is the entry's ``rdp`` (certified upper at integer
orders, the entry's contract), and its PLD for a fixed schedule's bracket is the entry's constructor
on the ledger's grid (``round_facets``).  Such a round has no GDP parameter, so the GDP filter
refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base.validation import describe
from ..pld.mechanisms import StageEntry, stage_entry, stage_names

__all__: list[str] = []  # its names serve the ledger's rounds (``rounds``, ``round_facets``)

# the ledger's own rounds, named here for the message only (``rounds.MECHANISMS``)
_OWN = "gaussian, subsampled_gaussian, laplace, discrete_gaussian, matrix_mechanism"


def _registered(entry: StageEntry) -> bool:
    """A mechanism the ledger records as a round holding its parameters: a Rényi curve, and no round
    of its own (``StageEntry.round_fields``: the ledger's own rounds, ``rounds.MECHANISMS``)."""
    return entry.rdp is not None and not entry.round_fields


def registered_entry(mechanism: Any) -> StageEntry:
    """The entry of a compose stage's mechanism the ledger records as a round holding its parameters.

    Parameters
    ----------
    mechanism : str
        The mechanism's registered name.

    Returns
    -------
    StageEntry
        Its entry.

    Raises
    ------
    ValueError
        If no compose stage of that name is registered with a Rényi curve and without a round of
        its own (with the ledger's own rounds and the registered ones).
    """
    entry = stage_entry(mechanism) if mechanism in stage_names() else None
    if entry is None or not _registered(entry):
        with_curve = [n for n in stage_names() if _registered(stage_entry(n))]
        registered = f" or a mechanism registered with its Rényi curve ({', '.join(with_curve)})"
        raise ValueError(
            f"mechanism must be one of {_OWN}"
            + (registered if with_curve else "")
            + f", got {describe(mechanism)}"
        )
    return entry


def registered_parameters(
    mechanism: Any, parameters: Any, fields: Sequence[str]
) -> tuple[tuple[str, Any], ...]:
    """The parameters of a round of a registered mechanism, checked by its constructor's names.

    Parameters
    ----------
    mechanism : str
        The mechanism's registered name.
    parameters : tuple of (str, value) pairs
        The round's parameters.
    fields : sequence of str
        The ``Round`` fields given besides (a registered round takes none of them).

    Returns
    -------
    tuple of (str, value) pairs
        The parameters, sorted by name.

    Raises
    ------
    ValueError
        If the mechanism is not registered with a Rényi curve, a ``Round`` field is given, or a
        parameter is unknown or missing.
    """
    entry = registered_entry(mechanism)
    if fields:
        raise ValueError(
            f"a {mechanism} round takes its parameters as parameters=, not {', '.join(fields)}"
        )
    try:
        given = dict(parameters)
    except (TypeError, ValueError):
        raise ValueError(
            f"a {mechanism} round's parameters must be (name, value) pairs, got {describe(parameters)}"
        ) from None
    allowed = entry.parameters()
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise ValueError(
            f"a {mechanism} round takes {', '.join(allowed)}, got {', '.join(map(str, unknown))}"
        )
    missing = [name for name in entry.required() if name not in given]
    if missing:
        raise ValueError(f"a {mechanism} round needs {', '.join(missing)}")
    return tuple(sorted(given.items()))


def checked_curve(mechanism: str, curve: Any, orders: tuple[int, ...]) -> np.ndarray:
    """A round's Rényi curve as float64, checked against its entry's contract (``StageEntry.rdp``).

    Parameters
    ----------
    mechanism : str
        The mechanism's name (for the message).
    curve : array_like
        What its entry's ``rdp`` gave at ``orders``.
    orders : tuple of int
        Integer Rényi orders.

    Returns
    -------
    numpy.ndarray
        One value per order.

    Raises
    ------
    ValueError
        If the curve has not one value >= 0 (or +inf) per order.
    """
    values: np.ndarray = np.asarray(curve, dtype=np.float64)
    if values.shape != (len(orders),) or np.isnan(values).any() or (values < 0).any():
        raise ValueError(
            f"the registered Rényi curve of {mechanism} must give one value >= 0 per order, got "
            f"{describe(values)}"
        )
    return values
