"""A round of a mechanism registered with its Rényi curve: the ledger reads its facets from the registry.

The ledger's five own rounds (``rounds.MECHANISMS``, ``own_rounds``) keep their own fields; the
three a compose stage names (gaussian, subsampled_gaussian, laplace) read their Rényi curve from
their stage's entry too (``StageEntry.rdp``, ``pld.mechanisms.constructors``), the discrete Gaussian
and the matrix
mechanism theirs from ``rdp.integer_orders``.  Any other mechanism a compose stage names reaches the
ledger through its registry entry (``pld.mechanisms.registry``): a round of that name holds the
stage's parameters, its Rényi curve is the entry's ``rdp`` (certified upper at integer orders, the
entry's contract), and its PLD for a fixed schedule's bracket is the entry's constructor on the
ledger's grid.  Such a round has no GDP parameter, so the GDP filter refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base.validation import describe
from ..pld.mechanisms import StageEntry, stage_entry, stage_names

if TYPE_CHECKING:
    from ..pld.grid import PrivacyLossDistribution

__all__: list[str] = []  # its names serve the ledger's rounds (``rounds``, ``fixed_schedule``)

# the ledger's own rounds, named here for the message only (``rounds.MECHANISMS``)
_OWN = "gaussian, subsampled_gaussian, laplace, discrete_gaussian, matrix_mechanism"


def _registered(entry: StageEntry) -> bool:
    """A mechanism the ledger records as a round holding its parameters: a Rényi curve, and no round
    of its own (``StageEntry.round_noise``: the ledger's own rounds of that name,
    ``rounds.MECHANISMS``)."""
    return entry.rdp is not None and entry.round_noise is None


def _entry(mechanism: Any) -> StageEntry:
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
    entry = _entry(mechanism)
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


def registered_rdp_upper(
    mechanism: str, parameters: tuple[tuple[str, Any], ...], orders: tuple[int, ...]
) -> np.ndarray:
    """The round's Rényi curve at integer ``orders``: the registry entry's ``rdp``, never below the exact curve.

    Parameters
    ----------
    mechanism : str
        The mechanism's registered name.
    parameters : tuple of (str, value) pairs
        The round's parameters.
    orders : tuple of int
        Integer Rényi orders.

    Returns
    -------
    numpy.ndarray
        One value per order.

    Raises
    ------
    ValueError
        If the mechanism is not registered with a Rényi curve, or its curve has not one value >= 0
        (or +inf) per order.
    """
    rdp = _entry(mechanism).rdp
    assert rdp is not None  # _entry refuses an entry without one
    curve = np.asarray(rdp(orders, **dict(parameters)), dtype=np.float64)
    if curve.shape != (len(orders),) or np.isnan(curve).any() or (curve < 0).any():
        raise ValueError(
            f"the registered Rényi curve of {mechanism} must give one value >= 0 per order, got "
            f"{describe(curve)}"
        )
    return curve


def registered_pld(
    mechanism: str, parameters: tuple[tuple[str, Any], ...], value_discretization_interval: float
) -> PrivacyLossDistribution:
    """The round's PLD on the ledger's grid: the registry entry's constructor.

    Parameters
    ----------
    mechanism : str
        The mechanism's registered name.
    parameters : tuple of (str, value) pairs
        The round's parameters.
    value_discretization_interval : float
        The grid's spacing.

    Returns
    -------
    PrivacyLossDistribution
        Both certified sides of one round.

    Raises
    ------
    ValueError
        If the mechanism is not registered with a Rényi curve, or its constructor refuses the
        parameters.
    """
    return _entry(mechanism).build(
        **dict(parameters), value_discretization_interval=value_discretization_interval
    )
