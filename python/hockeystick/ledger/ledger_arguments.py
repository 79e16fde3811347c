"""The ledger's arguments checked once: a count of rounds, a budget (epsilon, delta), the filter's name.

A block of equal rounds is held as (round, count) and its curve is multiplied by its count as a
double, so a count is a whole number up to 2^53, where every integer is exact.
"""

from __future__ import annotations

import math
from typing import Any

from ..base.validation import delta_target, describe, single
from .round_rdp import DEFAULT_ORDERS

__all__: list[str] = []  # its names serve ``ledger.py`` (which exports FILTERS), not the users

FILTERS = ("rdp", "gdp")
#: The largest count of one block of rounds: a block's curve is multiplied by its count as a double, which holds
#: every whole number up to 2^53 exactly.
MAX_ROUNDS = 2**53


def orders_text(orders: tuple[int, ...]) -> str:
    """The Rényi orders as a ledger's repr shows them: "default (n)", the list, or their count and range.

    Parameters
    ----------
    orders : tuple of int
        Checked orders (``round_rdp.check_integer_orders``).

    Returns
    -------
    str
        The short text.
    """
    if orders == DEFAULT_ORDERS:
        return f"default ({len(orders)})"
    return (
        repr(list(orders))
        if len(orders) <= 6
        else f"{len(orders)} orders in [{orders[0]}, {orders[-1]}]"
    )


def rounds_count(value: Any, name: str = "rounds") -> int:
    """A count of rounds: an int (not a bool, a float or a string) in [1, MAX_ROUNDS].

    Parameters
    ----------
    value : int
        The count.
    name : str, optional
        The argument's name in the message.

    Returns
    -------
    int
        ``value``.

    Raises
    ------
    ValueError
        If ``value`` is not an int, or lies outside [1, 2^53].
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(
            f"{name} must be a whole number (an int) in [1, 2^53], got {describe(value)} ({type(value).__name__}); "
            "counts are not rounded or parsed"
        )
    if not 1 <= value <= MAX_ROUNDS:
        raise ValueError(f"{name} must be a whole number in [1, 2^53], got {describe(value)}")
    return value


def budget_pair(epsilon: Any, delta: Any) -> tuple[float, float] | None:
    """The budget (epsilon, delta) given both or neither: None for neither.

    Parameters
    ----------
    epsilon : float or None
        Finite and >= 0.
    delta : float or None
        0 < delta < 1.

    Returns
    -------
    tuple of (float, float) or None
        The budget, or None when neither is given.

    Raises
    ------
    ValueError
        If only one is given, or either is out of range.
    """
    if epsilon is None and delta is None:
        return None
    if epsilon is None or delta is None:
        raise ValueError(
            "give the budget as both epsilon and delta, or neither (a ledger without a budget)"
        )
    eps = single(epsilon, "epsilon")
    if not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"epsilon must be a finite number >= 0, got {describe(epsilon)}")
    return eps, delta_target(delta)
