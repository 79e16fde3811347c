"""Where the search on the requested grid starts for an accountant with coarser grids
(``calibration_grids``): the target solved on each coarse grid, the answers extrapolated to the
requested grid (Richardson)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .problem import Problem

_COARSE_RTOL = 1e-5  # how closely a coarse grid is solved (relative; calibration_grids)


def from_coarse_grids(
    problem: Callable[[dict[str, float]], Problem],
    ladder: list[tuple[float, dict[str, float]]],
    start: np.ndarray,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Where the search on the requested grid starts, and the slope of its log excess there.

    ``ladder`` (the accountant's ``calibration_grids``): coarse grids h_1 > h_2 > ... and the
    requested grid h last.  The target is solved on each coarse grid in turn (to ``_COARSE_RTOL``,
    each from the last answer, its first step the Newton step of the slope the coarser grid's
    bracket measured), and the log answers u_k on the last two extrapolated to h through
    u(h) = u_inf + c h^2 (Richardson):  u = u_2 + (u_2 - u_1) (h^2 - h_2^2) / (h_2^2 - h_1^2).
    Without a ladder, or where a coarse grid raises ValueError (the requested grid then decides,
    and words, any refusal): ``start`` and no slope; where the extrapolation is not finite (an
    answer at a range end), the last coarse answer.
    """
    if len(ladder) < 3:
        return start, None
    x, logs, slope = start, [], None
    try:
        for _, overrides in ladder[:-1]:
            level = problem(overrides)
            level.slope, level.integer_rtol = slope, _COARSE_RTOL
            x = level.solve(x, _COARSE_RTOL)
            with np.errstate(
                divide="ignore"
            ):  # a lower side of 0 (no sigma certain): not extrapolated
                logs.append(np.log(x))
            slope = level.measured_slope
    except ValueError:
        return start, None
    (h1, _), (h2, _), (h, _) = ladder[-3:]
    u1, u2 = logs[-2], logs[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        u = u2 + (u2 - u1) * ((h * h - h2 * h2) / (h2 * h2 - h1 * h1))
    usable = np.isfinite(u) & (x > 0)
    return np.where(usable, np.exp(np.where(usable, u, 0.0)), np.where(x > 0, x, start)), slope
