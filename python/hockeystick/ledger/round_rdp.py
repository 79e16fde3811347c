"""The ledger's Rényi orders: the default set and the check of a given one.

The curves a round adds at these orders are ``rdp.integer_orders``'s (certified upper, one array
operation per round).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["DEFAULT_ORDERS", "MAX_LEDGER_ORDER", "check_integer_orders"]

#: The integer Rényi orders the ledger composes at by default: dense where small-epsilon runs find their best
#: order, sparse beyond (25 orders, so a union over them costs log 25 ~ 3.2 in log(1/delta)).
DEFAULT_ORDERS: tuple[int, ...] = (
    2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 128, 192, 256,
)  # fmt: skip

MAX_LEDGER_ORDER = (
    1024  # the rows are alpha_max long: a larger order costs its length in every round
)


def check_integer_orders(orders: object) -> tuple[int, ...]:
    """The orders as a sorted tuple of distinct integers in [2, 1024]; a ValueError naming ``orders`` otherwise.

    Parameters
    ----------
    orders : int, sequence of int, 1-d or 0-d array of int, or None
        Integer Rényi orders; None gives ``DEFAULT_ORDERS``.

    Returns
    -------
    tuple of int
        The orders, sorted, without repeats.

    Raises
    ------
    ValueError
        If ``orders`` is empty, an array of more than one dimension, or an order is not a whole
        number in [2, 1024].
    """
    if orders is None:
        return DEFAULT_ORDERS
    if isinstance(orders, np.ndarray) and orders.ndim > 1:
        raise ValueError(
            f"orders must be one order or a flat sequence of orders, got an array of shape {orders.shape}"
        )
    if isinstance(orders, np.ndarray):
        values = orders.reshape(-1).tolist()  # a 0-d array is one order
    else:
        values = list(orders) if isinstance(orders, (list, tuple)) else [orders]
    if not values:
        raise ValueError(
            "orders must not be empty: give integer Rényi orders in [2, 1024], or None for the defaults"
        )
    out = set()
    for value in values:
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise ValueError(
                f"orders must be whole numbers in [2, {MAX_LEDGER_ORDER}], got {value!r}"
            )
        x = float(value)
        if not (math.isfinite(x) and x == math.floor(x) and 2 <= x <= MAX_LEDGER_ORDER):
            raise ValueError(
                f"orders must be whole numbers in [2, {MAX_LEDGER_ORDER}] (the ledger sums the exact integer-order "
                f"series of each round), got {value!r}"
            )
        out.add(int(x))
    return tuple(sorted(out))
