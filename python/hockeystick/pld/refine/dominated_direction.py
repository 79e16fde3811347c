"""Certified delta brackets of the Poisson-subsampled Gaussian, the add direction screened on a coarse
grid (the refinement's delta steps; its epsilon steps are the core's step read's,
cpp/include/hockeystick/pld/refine/subsampled_gaussian_step.hpp, which screens the same way).

A run's epsilon(delta) is the larger of its two neighbouring directions' (Zhu, Dong, Wang,
AISTATS 2022, Sec. 5): eps = max(eps_remove, eps_add), so with certified brackets
[lo_r, up_r] of the remove direction and any certified upper bound U_a >= eps_add,

    U_a <= lo_r  implies  eps_add <= lo_r <= eps_remove,  so  eps = eps_remove in [lo_r, up_r],

and the add direction's own bracket is not needed.  For small sampling rates the remove direction is
far ahead (q = 1e-3, sigma = 0.8, 10^5 rounds, delta = 1e-5: eps_add <= 2.43, eps_remove >= 2.57),
so U_a comes from the add direction's pessimistic PMF on a grid ``COARSENING`` = 4 times coarser (4
times fewer cells and transform points, no optimistic side; at h = 8.5e-5 its upper bound moves from
2.425 to 2.432, against a margin of 0.14), and the add direction is not discretized on the fine grid
at all.  Where the screen does not clear (U_a > lo_r at some argument), the add direction is
composed on the fine grid too and the bracket is the maximum of both directions' sides, the same
numbers ``PrivacyLossDistribution.epsilon`` gives for the two-direction PLD on that grid.

Delta the same way (the core's screened step, cpp/include/hockeystick/pld/refine/screened_step.hpp,
which the many-points delta refinement reads each grid with, points_delta_source.hpp): delta = max(delta_remove, delta_add), so with L_r a certified
lower bound on the remove direction's delta and U_a a certified upper bound on the add direction's,
U_a <= L_r at every argument gives delta_add <= delta_remove there, and the remove direction's
bracket is the mechanism's.  The screen's upper side and the remove direction's charged lower values
(no suffix maxima) decide.  Arguments where U_a is below a ``floor`` the caller names clear too:
there the bracket's upper side is max(up_r, U_a), certified as a maximum of upper bounds, and its
lower side lo_r, certified as delta >= delta_remove; the add direction's own lower side, at most
U_a, is left out (the epsilon rule's floor is a tenth of DELTA_FLOOR: such a lower side can
certify no epsilon width beside an upper side above DELTA_FLOOR; the relative rule, which reads a
bracket below that floor to its own width, names none, so its screen clears by domination alone and
its bracket is the one of both directions on the fine grid).  Far above delta's floor the add
direction's upper bound is its mass at +infinity and charges (sigma 2.05, q 7.8e-3, 10^4 rounds:
5e-12 beside the remove direction's 1e-13 at eps >= 3), so without the floor almost no point would
clear.  Where the screen clears, the add direction is neither discretized nor composed on the fine
grid.  The screen's decisions (where it clears, where a point's upper side settles it, where the add
direction's optimistic side can raise the lower one) are the core's
(cpp/include/hockeystick/pld/refine/direction_screen.hpp).  This module keeps the upper side alone
(``delta_uppers``) that settles a point before the refinement's loop, over the package's own
one-round factors (``round_cache``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from ... import _core
from ..grid.distribution import (
    PrivacyLossDistribution,
    compose_all,
)
from ..grid.pmf import GridPMF
from ..mechanisms.constructors import MAX_INTERVAL, Directions, subsampled_gaussians
from . import round_cache, truncation

# the add direction's screen is read on a grid this many times coarser (the core's kStepScreenCoarsening,
# pld/refine/subsampled_gaussian_step.hpp, which gives the reason)
COARSENING = float(_core.pld_refine.step_screen_coarsening)

Point = tuple[float, float, float, float]  # sigma, sampling rate (< 1), rounds, sensitivity


def _one_round(
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


def _tails(
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


def _shared_tails(
    points: Sequence[Point], smallest: float, tail: float, accuracy: float | None
) -> tuple[list[float], list[float]]:
    """``_tails`` at one smallest delta for all points, each one-round tail the least over the
    points of its (sigma, q, sensitivity): one discretization then serves every rounds value of the
    pair."""
    rounds_tails, windows = _tails(points, [smallest] * len(points), tail, accuracy)
    least: dict[tuple[float, float, float], float] = {}
    for p, t in zip(points, rounds_tails):
        least[(p[0], p[1], p[3])] = min(t, least.get((p[0], p[1], p[3]), t))
    return [least[(p[0], p[1], p[3])] for p in points], windows


def _first_composed(plds: Sequence[PrivacyLossDistribution], pessimistic: bool) -> list[GridPMF]:
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
    (``COARSENING`` times coarser), neither with an optimistic side: an upper side alone, as cheap
    as the two directions allow (the windows sized to ``settled`` given ``accuracy``, as the
    refinement's steps size them: ``_shared_tails``)."""
    workers = threads or None
    rounds_tails, windows = _shared_tails(points, settled, tail, accuracy)
    removes = _one_round(
        points, hs, rounds_tails, "remove", False, threads=threads, windows=windows
    )
    screens = _one_round(points, hs, tail, "add", False, COARSENING, threads, windows)
    compose_all(removes + screens, True, workers=workers)
    read = charged_sides(_first_composed(removes + screens, True), list(xs) + list(xs), threads)
    return [np.maximum(up, bound) for up, bound in zip(read[: len(points)], read[len(points) :])]
