"""The tests' independent reference for the core's aligned cells' reads (pld/refine/aligned_lower.hpp's
aligned_read, aligned_lower_delta): the core's one-round aligned PMF
(``aligned_core.aligned_pmf``, looked up when called, so that a test may give it other cells) composed
under the Chernoff exponent's tilt by the package's Python composition (``compose.tilted.compose_tilted``,
whose reads a test may charge otherwise) and read there, the rule of the core's reads: the window's tails
1e-3 of the delta expected, else the least of ``aligned_core.CUT_TAILS`` that fits the cap; the argument
moved by T b, rounded on the safe side."""

from __future__ import annotations

import numpy as np

from hockeystick.pld.compose import tilted
from hockeystick.pld.grid.pmf import GridPMF

from . import aligned_core
from .read_tail import exponent_tilt

U = aligned_core.UNIT_ROUNDOFF


def composed_within(
    pmf: GridPMF, rounds: int, theta: float, level: float, max_points: int
) -> tuple[tilted.TiltedComposition, bool]:
    """The optimistic composition of ``rounds`` copies of ``pmf`` under ``theta`` (lam h), its tails
    1e-3 ``level``, or, past ``max_points``, the least of ``CUT_TAILS`` whose window fits; and whether
    a ``CUT_TAILS`` tail was taken.  The last tail's ValueError (past the cap) is raised."""
    tails = [1e-3 * level] + [t for t in aligned_core.CUT_TAILS if t > 1e-3 * level]
    for i, tail in enumerate(tails):
        try:
            window = tilted.compose_tilted(
                [(pmf, rounds)], theta, pessimistic=False, tail=tail, max_points=max_points
            )
            return window, i > 0
        except ValueError:
            if i + 1 == len(tails):
                raise
    raise AssertionError("no tail")  # not reached


def aligned_epsilon(
    sigma: float, q: float, rounds: int, delta: float, near: float, h: float, max_points: int
) -> float:
    """The certified lower epsilon at ``delta`` searched below ``near`` (0 where none is found)."""
    pmf, offset = aligned_core.aligned_pmf(sigma, q, h)
    moved = rounds * offset
    lam = exponent_tilt(pmf, rounds, near - moved)
    composed, _ = composed_within(pmf, rounds, lam * h, delta, max_points)
    found = tilted.lower_epsilon(composed, delta, near - (moved + 4.0 * U * abs(moved)))
    if not found > 0.0:
        return 0.0
    return max(0.0, found + moved - 4.0 * U * (abs(found) + abs(moved)))


def aligned_deltas(
    sigma: float,
    q: float,
    rounds: int,
    eps: np.ndarray,
    centre: float,
    level: float,
    h: float,
    max_points: int,
) -> np.ndarray:
    """The certified lower deltas at each of ``eps`` under the exponent's tilt at ``centre``."""
    pmf, offset = aligned_core.aligned_pmf(sigma, q, h)
    moved = rounds * offset
    at = np.asarray(eps, dtype=np.float64) - moved
    at = at + 4.0 * U * (np.abs(eps) + abs(moved) + np.abs(at))
    lam = exponent_tilt(pmf, rounds, centre - moved)
    composed, _ = composed_within(pmf, rounds, lam * h, level, max_points)
    return np.maximum(0.0, composed.deltas(at))
