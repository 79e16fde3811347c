"""The screened delta step over the package's one-round factors (``delta_sides``): the core's
``screened_delta_step`` (cpp/include/hockeystick/pld/refine/screened_step.hpp) given the factors the
package's round cache discretizes (``one_round``), the tails ``shared_tails`` sizes and the add
direction on demand; and the upper side alone that settles a point before the loop
(``delta_uppers``, which the core's settled read, pld/refine/points_delta_start.hpp, equals bit for
bit).  The package's many-points loop reads its start and its steps in the core
(pld/refine/points_delta_source.hpp, over factors the core discretizes); the tests read them through
this reference, which states the screen's contract (dominated_direction's module docstring) over
factors they can build, patch and inspect."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from hockeystick import _core
from hockeystick.pld.compose.fft import DEFAULT_MAX_POINTS
from hockeystick.pld.grid.distribution import (
    PrivacyLossDistribution,
    _side_terms,
    _with_every_side,
    compose_all,
)
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.mechanisms.constructors import MAX_INTERVAL, Directions, subsampled_gaussians
from hockeystick.pld.refine import dominated_direction, round_cache, truncation

Point = tuple[float, float, float, float]  # sigma, sampling rate (< 1), rounds, sensitivity


def one_round(
    points: Sequence[Point],
    hs: Sequence[float],
    tail: float | Sequence[float],
    direction: Directions,
    optimistic: bool,
    coarsening: float = 1.0,
    threads: int = 0,
    windows: Sequence[float] | None = None,
) -> list[PrivacyLossDistribution]:
    """Each point's ``rounds``-fold composition of one direction, discretized once per (sigma, q,
    sensitivity, h, tail) and kept for the refinement's later batches and steps
    (``round_cache.one_direction``: the same doubles); ``tail`` is one for all points or one per
    point, ``windows`` the composed windows' tails (default: the discretization's)."""
    tails = [float(t) for t in tail] if isinstance(tail, Sequence) else [float(tail)] * len(points)
    keys = [
        (p[0], p[1], p[3], min(h * coarsening, MAX_INTERVAL), t)
        for p, h, t in zip(points, hs, tails)
    ]
    built: dict[tuple[float, float, float, float, float], PrivacyLossDistribution] = {}
    for h, t in dict.fromkeys(k[3:] for k in keys):
        pairs = list(dict.fromkeys(k for k in keys if k[3:] == (h, t)))
        built.update(
            zip(
                pairs,
                round_cache.one_direction(
                    [k[:3] for k in pairs],
                    h,
                    t,
                    direction,
                    optimistic,
                    threads,
                    build=subsampled_gaussians,
                ),
            )
        )
    composed = [built[k].self_compose(int(p[2])) for k, p in zip(keys, points)]
    if windows is not None:
        for pld, window in zip(composed, windows):
            pld.tail = float(window)
    return composed


def tails(
    points: Sequence[Point], smallest: Sequence[float], tail: float, accuracy: float | None
) -> tuple[list[float], list[float]]:
    """Per point, the remove direction's one-round tail and the composed windows' tail
    (``truncation.tails`` at the smallest delta that needs resolving; ``tail`` for both without an
    ``accuracy``)."""
    cut = [
        truncation.tails(p, d, tail, accuracy) if accuracy is not None else (tail, tail)
        for p, d in zip(points, smallest)
    ]
    return [t for t, _ in cut], [w for _, w in cut]


def shared_tails(
    points: Sequence[Point], smallest: float, tail: float, accuracy: float | None
) -> tuple[list[float], list[float]]:
    """``tails`` at one smallest delta for all points, each one-round tail the least over the
    points of its (sigma, q, sensitivity): one discretization then serves every rounds value of the
    pair."""
    rounds_tails, windows = tails(points, [smallest] * len(points), tail, accuracy)
    least: dict[tuple[float, float, float], float] = {}
    for p, t in zip(points, rounds_tails):
        least[(p[0], p[1], p[3])] = min(t, least.get((p[0], p[1], p[3]), t))
    return [least[(p[0], p[1], p[3])] for p in points], windows


def first_composed(plds: Sequence[PrivacyLossDistribution], pessimistic: bool) -> list[GridPMF]:
    """The composed PMF of each one-direction PLD's direction on one side, which ``compose_all``
    has just composed: read where it keeps it, without asking ``compose_all`` again per PLD (the
    same objects ``PrivacyLossDistribution.composed`` returns)."""
    return [cast(GridPMF, pld._composed[bool(pessimistic)][0]) for pld in plds]


def charged_sides(
    pmfs: Sequence[GridPMF], xs: Sequence[np.ndarray], threads: int = 0
) -> list[np.ndarray]:
    """Each PMF's ``GridPMF.delta`` at its arguments ``xs[i]`` (one-dimensional), in one core call
    that holds no interpreter lock between the PMFs (``_core.pld_reads.charged_sides``,
    cpp/include/hockeystick/pld/reads/charged_sides.hpp): a pessimistic PMF's certified upper side,
    an optimistic one's charged lower value at each eps alone (``envelope=False``).  The same
    doubles as the PMF-by-PMF reads; ``threads`` share the PMFs (0: all cores)."""
    return cast(
        list[np.ndarray], _core.pld_reads.charged_sides(list(pmfs), list(xs), threads=threads)
    )


def delta_uppers(
    points: Sequence[Point],
    hs: Sequence[float],
    xs: Sequence[np.ndarray],
    tail: float,
    threads: int = 0,
    accuracy: float | None = None,
    settled: float = 0.0,
) -> list[np.ndarray]:
    """Per point (sampling rate below 1) on its grid ``hs[i]``: a certified upper bound on delta at
    ``xs[i]``, the larger of the remove direction's pessimistic side and the add direction's screen
    (``dominated_direction.COARSENING`` times coarser), neither with an optimistic side: an upper side alone, as cheap
    as the two directions allow (the windows sized to ``settled`` given ``accuracy``, as the
    refinement's steps size them: ``shared_tails``)."""
    workers = threads or None
    rounds_tails, windows = shared_tails(points, settled, tail, accuracy)
    removes = one_round(points, hs, rounds_tails, "remove", False, threads=threads, windows=windows)
    screens = one_round(
        points, hs, tail, "add", False, dominated_direction.COARSENING, threads, windows
    )
    compose_all(removes + screens, True, workers=workers)
    read = charged_sides(first_composed(removes + screens, True), list(xs) + list(xs), threads)
    return [np.maximum(up, bound) for up, bound in zip(read[: len(points)], read[len(points) :])]


def fine_add_rounds(
    points: Sequence[Point],
    hs: Sequence[float],
    rest: list[int],
    tail: float,
    threads: int,
    windows: Sequence[float],
) -> list[PrivacyLossDistribution]:
    """The add direction of the points ``rest`` (whose screen did not clear) on their fine grids, both sides,
    composed ``rounds`` times at their windows' tails (``_one_round``)."""
    return one_round(
        [points[i] for i in rest],
        [hs[i] for i in rest],
        tail,
        "add",
        True,
        threads=threads,
        windows=[windows[i] for i in rest],
    )


# a point's delta bracket on its grid (lower, upper, the fixed part's two rows, the add direction's upper side) and
# what decided its sides (whether the screen cleared it, whether it settled, whether the add direction's optimistic
# side was composed)
ScreenedBracket = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[bool, bool, bool]]
# one direction's (PMF, count) terms on its pessimistic side, then on its optimistic side
Terms = list[tuple[GridPMF, int]]


def sides(pld: PrivacyLossDistribution) -> tuple[Terms, Terms]:
    """A one-direction PLD's (PMF, count) terms on both sides (``compose_all``'s items)."""
    direction = pld.directions[0]
    return (
        _with_every_side([_side_terms(direction, True)])[0],
        _with_every_side([_side_terms(direction, False)])[0],
    )


def delta_sides(
    points: Sequence[Point],
    hs: Sequence[float],
    xs: Sequence[np.ndarray],
    tail: float,
    rules: _core.pld_refine.PointsRules,
    own: Sequence[int],
    before: Sequence[tuple[np.ndarray, np.ndarray] | None],
    threads: int = 0,
    direct_bins: bool = False,
    floor: float = 0.0,
    settled: float = 0.0,
    accuracy: float | None = None,
    direct_min_charge: float | None = None,
) -> list[ScreenedBracket]:
    """Per point (sampling rate below 1) on its grid ``hs[i]``, the two-direction PLD's delta bracket at ``xs[i]``
    (``own[i]`` of them its own, ``before[i]`` its record of earlier grids, under the step's ``rules``: the
    refinement's screened step, points_delta_source.hpp), its add direction screened; ``direct_bins`` and ``direct_min_charge`` as
    ``compose_all``'s, ``threads`` the OpenMP threads of the C++ calls (0: all cores).

    The add direction is screened first (module docstring): where its coarse upper bound is at or below the remove
    direction's lower values, or below ``floor``, at every argument, the point's directions are the remove one and
    the screen (an upper side only: the bracket's upper side is the larger of the two); elsewhere the add direction
    is discretized and composed on the fine grid, and its optimistic side where its upper values are not all at or
    below the remove direction's lower ones.  A point whose upper side (the larger of the remove direction's and the
    screen's) is below ``settled`` at every argument gets no lower side at all (its lower bound is 0): the caller asks
    no more of it there.  Given the ``accuracy`` the caller refines for, the truncations are sized to ``settled``
    (``truncation.tails``: a delta below it needs no resolving, so each truncation's charge stays within 0.05
    accuracy x ``settled``); the remove direction's one-round tail is the least over the points of its (sigma, q,
    sensitivity) in the call, so that one discretization still serves every rounds value of the pair (a tail per
    rounds value would split it into one discretization per rounds value, costing more than the shorter windows
    save).

    The one-round factors are discretized here (``round_cache``); every composition, read, decision and the bracket
    are the core's, in one call without the interpreter lock (``_core.pld_refine.screened_delta_step``,
    cpp/include/hockeystick/pld/refine/screened_step.hpp), which takes it again only to ask for the add direction's
    factors of the points whose screen did not clear.  Each bracket comes with its decisions (cleared, settled,
    add_lower)."""
    rounds_tails, windows = shared_tails(points, settled, tail, accuracy)
    removes = one_round(points, hs, rounds_tails, "remove", True, threads=threads, windows=windows)
    screens = one_round(
        points, hs, tail, "add", False, dominated_direction.COARSENING, threads, windows
    )

    def add_direction(rest: list[int]) -> list[tuple[Terms, Terms]]:
        return [sides(add) for add in fine_add_rounds(points, hs, rest, tail, threads, windows)]

    return cast(
        list[ScreenedBracket],
        _core.pld_refine.screened_delta_step(
            rules=rules,
            xs=list(xs),
            own=list(own),
            before=list(before),
            windows=windows,
            removes=[sides(remove) for remove in removes],
            screens=[_side_terms(screen.directions[0], True) for screen in screens],
            add_direction=add_direction,
            floor=floor,
            settled=settled,
            direct_bins=direct_bins,
            direct_min_charge=float(
                _core.pld_compose.direct_min_charge
                if direct_min_charge is None
                else direct_min_charge
            ),
            workers=threads or None,
            max_points=DEFAULT_MAX_POINTS,
        ),
    )
