"""The brackets of ``SubsampledGaussianPLD``'s points on a fixed grid h (no ``accuracy=``): the
sides ``bound`` asks of each composed PLD, and, for delta, the lower side raised near 1 and the
bracket intersected with the complement's (``refine.near_one``)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ...base.accountant import Quantity
from ..grid.distribution import (
    Bound,
    PrivacyLossDistribution,
    brackets,
    direction_uppers,
    lower_values,
)
from ..refine import constants
from ..refine.near_one import NearOne, Point


def fixed_sides(
    dists: list[PrivacyLossDistribution],
    xs: list[np.ndarray],
    bound: Bound,
    method: Quantity,
    threads: int,
    shared: bool,
) -> Sequence[tuple[np.ndarray | None, np.ndarray | None]]:
    """The sides ``bound`` asks of each composed PLD at its arguments (None for a side not asked;
    ``shared``: the compositions of a curve along one run share one forward transform per factor).
    The upper side needs no composed PMF: read from the spectra where few frequencies live
    (``direction_uppers``), the same numbers alone and in a bracket; the lower side alone is read as
    the bracket reads it (``lower_values``: spectral where few bins live)."""
    workers = threads or None
    if bound == "lower":
        return [(low, None) for low in lower_values(dists, method, xs, workers, shared)]
    uppers = direction_uppers(dists, method, xs, workers, shared)
    if bound == "upper":
        return [(None, functools.reduce(np.maximum, u)) for u in uppers]
    return brackets(dists, method, xs, workers, uppers=uppers, shared_transform=shared)


def fixed_bracket(
    near_one: NearOne,
    point: Point,
    x: np.ndarray,
    side_low: np.ndarray | None,
    side_high: np.ndarray | None,
    bound: Bound,
    method: Quantity,
    h: float,
    threads: int,
) -> tuple[np.ndarray, np.ndarray]:
    """One point's (lower, upper) on grid h from its sides; for delta, the lower side raised near 1
    (``NearOne.raised``; bound="lower": no upper side to test, raised everywhere) and the bracket
    intersected with the complement's (``NearOne.complement_brackets``; bound="lower": where the
    lower side is above ``COMPLEMENT_ABOVE``)."""
    lo, up = np.empty(x.size), np.empty(x.size)
    if side_low is not None:
        lo[:] = side_low
    if side_high is not None:
        up[:] = side_high
    if method != "delta":
        return lo, up
    if bound != "upper":
        lo = near_one.raised(point, x, lo, up if bound == "both" else np.ones(x.size))
    select = up if bound != "lower" else np.where(lo > constants.COMPLEMENT_ABOVE, 1.0, lo)
    ((low, high),) = near_one.complement_brackets([point], [h], [x], [(lo, select)], threads)[0]
    return (low if bound != "upper" else lo), (high if bound != "lower" else up)
