"""Certified epsilon brackets of the Poisson-subsampled Gaussian, the add direction screened on a coarse grid.

A run's epsilon(delta) is the larger of its two neighbouring directions' (Zhu, Dong, Wang,
AISTATS 2022, Sec. 5): eps = max(eps_remove, eps_add), so with certified brackets
[lo_r, up_r] of the remove direction and any certified upper bound U_a >= eps_add,

    U_a <= lo_r  implies  eps_add <= lo_r <= eps_remove,  so  eps = eps_remove in [lo_r, up_r],

and the add direction's own bracket is not needed.  For small sampling rates the remove direction
is far ahead (W3: q = 1e-3, sigma = 0.8, 10^5 rounds, delta = 1e-5: eps_add <= 2.43, eps_remove >= 2.57),
so U_a comes from the add direction's pessimistic PMF on a grid ``COARSENING`` = 4 times coarser (4 times
fewer cells and transform points, no optimistic side; at h = 8.5e-5 its upper bound moves from 2.425 to
2.432, against a margin of 0.14), and the add direction is not discretized on the fine grid at all.  Where the
screen does not clear (U_a > lo_r at some argument), the add direction is composed on the fine grid too and
the bracket is the maximum of both directions' sides, the same numbers ``PrivacyLossDistribution.epsilon``
gives for the two-direction PLD on that grid.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .distribution import PrivacyLossDistribution, brackets, compose_all
from .mechanisms import MAX_INTERVAL, Directions, subsampled_gaussians

COARSENING = 4

Point = tuple[float, float, float, float]  # sigma, sampling rate (< 1), rounds, sensitivity


def _one_round(points: Sequence[Point], hs: Sequence[float], tail: float, direction: Directions, optimistic: bool,
               coarsening: float = 1.0, threads: int = 0) -> list[PrivacyLossDistribution]:
    """Each point's ``rounds``-fold composition of one direction, discretized once per (sigma, q, sensitivity, h)."""
    keys = [(p[0], p[1], p[3], min(h * coarsening, MAX_INTERVAL)) for p, h in zip(points, hs)]
    built: dict[tuple[float, float, float, float], PrivacyLossDistribution] = {}
    for h in dict.fromkeys(k[3] for k in keys):
        pairs = list(dict.fromkeys(k for k in keys if k[3] == h))
        s, q, c = (np.array(v) for v in zip(*(k[:3] for k in pairs)))
        built.update(zip(pairs, subsampled_gaussians(s, q, sensitivity=c, value_discretization_interval=h,
                                                     tail=tail, optimistic=optimistic, directions=direction,
                                                     threads=threads)))
    return [built[k].self_compose(int(p[2])) for k, p in zip(keys, points)]


def epsilon_brackets(points: Sequence[Point], hs: Sequence[float], deltas: Sequence[np.ndarray],
                     tail: float, threads: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per point (sampling rate below 1) on its grid ``hs[i]``: the certified (lower, upper) epsilon at ``deltas[i]``
    (``threads``: of the C++ discretization and the compositions, 0 all cores).

    Equal to the two-direction PLD's ``epsilon(delta, bound="both")`` on that grid (see the module docstring).
    """
    workers = threads or None
    remove = brackets(_one_round(points, hs, tail, "remove", True, threads=threads), "epsilon", deltas, workers)
    screens = _one_round(points, hs, tail, "add", False, COARSENING, threads)
    compose_all(screens, True, workers=workers)
    cleared = [bool(np.all(screen.epsilon(d) <= lo)) for screen, d, (lo, _) in zip(screens, deltas, remove)]
    rest = [i for i, ok in enumerate(cleared) if not ok]
    add = brackets(_one_round([points[i] for i in rest], [hs[i] for i in rest], tail, "add", True, threads=threads),
                   "epsilon", [deltas[i] for i in rest], workers) if rest else []
    out = list(remove)
    for i, (lo, up) in zip(rest, add):
        out[i] = (np.maximum(remove[i][0], lo), np.maximum(remove[i][1], up))
    return out
