"""The brackets of ``SubsampledGaussianPLD``'s points on a fixed grid h (no ``accuracy=``): the
sides ``bound`` asks of each point's rounds, and, for delta, the lower side raised near 1 and the
bracket intersected with the complement's (``refine.near_one``).

A bracket is read with the add direction's optimistic side discretized only where it can raise the
lower side (``lean_sides``).  Both sides of a bracket are the largest over the neighbouring
directions (Zhu, Dong, Wang, AISTATS 2022, Sec. 5), and ``brackets`` reads a direction's optimistic
side only where its upper values lie above the leading direction's lower values at some argument:
one at or below them at every argument can raise no maximum, its own lower side being no larger than
its upper one.  For the Poisson-subsampled Gaussian the remove direction leads and the add direction
lies below it (on 300 default questions, sigma 0.5 to 5, q 1e-3 to 0.9, 1 to 1000 rounds, delta 1e-3
to 1e-7, the add direction's upper side passed the remove direction's lower side at one: sigma 5, q
1e-3, 1000 rounds, delta 1e-3), and its optimistic side is half of that direction's discretization
(the cells' halves, ``pld/grid/cells.hpp``).  ``lean_sides`` discretizes the remove direction's two
sides and the add direction's pessimistic side (``round_cache.lean_discretized``: the full
discretization's doubles), reads every direction's upper side (``direction_uppers``), then the
remove direction's lower side where it leads (``lower_values`` of that direction alone: the
composition ``brackets`` makes of it); where the add direction's upper values lie at or below it,
the bracket is that lower side and the larger upper side, as ``brackets`` gives it, and every other
point is read by ``brackets`` on the full PLDs.  The sides are ``brackets``' bit for bit either way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from ...base.accountant import Quantity
from ..grid.distribution import (
    Bound,
    PrivacyLossDistribution,
    brackets,
    direction_uppers,
    leading_directions,
    lower_values,
    undominated_directions,
)
from ..refine import constants, round_cache
from ..refine.near_one import NearOne, Point


def fixed_sides(
    points: list[Point],
    xs: list[np.ndarray],
    grid: tuple[float, float],
    bound: Bound,
    method: Quantity,
    threads: int,
    shared: bool,
    full: Callable[[list[Point]], list[PrivacyLossDistribution]],
    add_uppers: list[np.ndarray | None] | None = None,
) -> Sequence[tuple[np.ndarray | None, np.ndarray | None]]:
    """The sides ``bound`` asks of each point's rounds at its arguments (None for a side not asked).
    The upper side needs no composed PMF: read from the spectra where few frequencies live
    (``direction_uppers``), the same numbers alone and in a bracket; the lower side alone is read as
    the bracket reads it (``lower_values``: spectral where few bins live); the bracket is
    ``brackets``', read by ``lean_sides`` where every sampling rate lies in [h, 1) and no transform
    is shared (below h a PLD's lower side may be composed from blocks of rounds,
    ``compose.two_resolution``; at 1 the mechanism has one direction; a shared transform makes a
    composition depend on its batch).

    Parameters
    ----------
    points : list of (float, float, float, float)
        The points (sigma, q, rounds, sensitivity).
    xs : list of numpy.ndarray
        Each point's arguments (validated already).
    grid : (float, float)
        The grid interval h and the one-round discretization's tail.
    bound : {"lower", "upper", "both"}
        The sides asked.
    method : {"delta", "epsilon"}
        The quantity read.
    threads : int
        OpenMP threads of the C++ calls (0: all cores).
    shared : bool
        Whether the compositions of a curve along one run share one forward transform per factor.
    full : callable
        ``full(pts)``: the composed PLDs of ``pts`` as the accountant builds its fixed grid's (both
        sides of both directions, or the pessimistic ones alone for ``bound="upper"``).
    add_uppers : list, optional
        Where, for a bracket, each point's certified upper side of the add direction alone is
        appended (None where its PLD has one direction).

    Returns
    -------
    list of tuple
        Each point's (lower, upper), None for a side not asked.
    """
    workers = threads or None
    if bound == "lower":
        return [(low, None) for low in lower_values(full(points), method, xs, workers, shared)]
    if bound == "upper":
        uppers = direction_uppers(full(points), method, xs, workers, shared)
        return [(None, functools.reduce(np.maximum, u)) for u in uppers]
    h, tail = grid
    if not shared and all(h <= p[1] < 1.0 for p in points):
        sides, uppers = lean_sides(points, xs, grid, method, threads, full)
    else:
        dists = full(points)
        uppers = direction_uppers(dists, method, xs, workers, shared)
        sides = brackets(dists, method, xs, workers, uppers=uppers, shared_transform=shared)
    if add_uppers is not None:  # directions: (remove, add)
        add_uppers.extend(u[1] if len(u) == 2 else None for u in uppers)
    return sides


def lean_sides(
    points: list[Point],
    xs: list[np.ndarray],
    grid: tuple[float, float],
    method: Quantity,
    threads: int,
    full: Callable[[list[Point]], list[PrivacyLossDistribution]],
) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[list[np.ndarray]]]:
    """``brackets``' (lower, upper) of each point's rounds on grid ``h`` at its arguments ``xs[i]``
    with the add direction's optimistic side discretized only where it can raise the lower side
    (module docstring), and each direction's upper values (``direction_uppers``), every sampling
    rate in [h, 1).

    Parameters
    ----------
    points, xs, grid, method, threads, full
        As ``fixed_sides``' (``full``: both sides of both directions).

    Returns
    -------
    tuple
        Per point its (lower, upper), and per point each direction's upper values (remove, add).
    """
    pairs = [(p[0], p[1], p[3]) for p in points]
    one_round = dict(zip(pairs, round_cache.lean_discretized(pairs, *grid, threads)))
    dists = [one_round[pair].self_compose(int(p[2])) for pair, p in zip(pairs, points)]
    uppers = direction_uppers(dists, method, xs, threads or None)
    sides = _dominated_sides(dists, xs, uppers, method, threads)
    rest = [i for i, side in enumerate(sides) if side is None]
    if rest:
        read = brackets(
            full([points[i] for i in rest]),
            method,
            [xs[i] for i in rest],
            threads or None,
            uppers=[uppers[i] for i in rest],
        )
        for i, side in zip(rest, read):
            sides[i] = side
    return [side for side in sides if side is not None], uppers


def _dominated_sides(
    dists: list[PrivacyLossDistribution],
    xs: list[np.ndarray],
    uppers: list[list[np.ndarray]],
    method: Quantity,
    threads: int,
) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """Per PLD (remove, add), ``brackets``' sides where the remove direction leads
    (``leading_directions``) and the add
    direction's upper values lie at or below the remove direction's lower ones at every argument:
    that lower side (``lower_values`` of the remove direction alone) and the larger upper side; None
    elsewhere."""
    leading = [i for i, lead in enumerate(leading_directions(uppers)) if lead == 0]
    removes = [PrivacyLossDistribution([dists[i].directions[0]], dists[i].tail) for i in leading]
    lows = lower_values(removes, method, [xs[i] for i in leading], threads or None)
    raising = undominated_directions([uppers[i] for i in leading], [0] * len(leading), lows)
    sides: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(dists)
    for i, low, others in zip(leading, lows, raising):
        if not others:  # the add direction raises no maximum
            sides[i] = (low, np.maximum(uppers[i][0], uppers[i][1]))
    return sides


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
