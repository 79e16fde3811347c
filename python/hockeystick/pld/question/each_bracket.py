"""A bracket read at each argument: the small-delta reads (tilted, tilted factors, rare
participation's finer grids) refine one (delta, lower, upper) at a time, and their array front
ends apply them over deltas broadcast to the brackets' shape."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def each_bracket(
    delta: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    read: Callable[[float, float, float], tuple[float, float]],
) -> tuple[np.ndarray, np.ndarray]:
    """``read(delta_j, lower_j, upper_j)`` of every element, ``delta`` broadcast to ``lower``'s
    shape; the brackets (lower, upper) returned in that shape, as float64."""
    lows = np.array(lower, dtype=np.float64).reshape(-1)
    ups = np.array(upper, dtype=np.float64).reshape(-1)
    flat = np.broadcast_to(np.asarray(delta, dtype=np.float64), np.shape(lower)).reshape(-1)
    for j in range(flat.size):
        lows[j], ups[j] = read(float(flat[j]), float(lows[j]), float(ups[j]))
    return lows.reshape(np.shape(lower)), ups.reshape(np.shape(upper))
