"""A run of broadcast parameters answered point by point: each point's certified (lower, upper)
bracket, read on the side asked for (the runs whose accountant is built per point: user-level,
record-level, check-ins)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..base.accountant import Bound, BoundResult


def answer_pointwise(
    shape: tuple[int, ...],
    scalar: bool,
    bracket: Callable[[int, float], tuple[float, float]],
    x: np.ndarray,
    bound: Bound,
) -> BoundResult:
    """``bracket(i, x)`` at every point of the parameters' ``shape`` (flat index i) broadcast with
    the checked argument ``x``, as one float (scalar parameters and argument) or arrays, on the
    sides ``bound`` names."""
    from ..pld.grid import bound_result

    full = np.broadcast_shapes(shape, x.shape)
    xs = np.broadcast_to(x, full)
    index = np.broadcast_to(np.arange(int(np.prod(shape))).reshape(shape), full)
    lower, upper = np.empty(full), np.empty(full)
    for pos in np.ndindex(full):
        lower[pos], upper[pos] = bracket(int(index[pos]), float(xs[pos]))
    return bound_result(lower, upper, bound, scalar and x.ndim == 0)
