"""The tests' handle on rare participation's last epsilon reads (the core's
cpp/include/hockeystick/pld/refine/rare_finer_grids.hpp, bound as
``_core.pld_refine.rare_finer_brackets``), which the package's default makes inside the core's last
reads (last_epsilon_reads.hpp): the finer grids past the tilted windows' cap where a bracket is
wider than the tolerance, the aligned cells' tight read where it is within it but wider than a
sixteenth of it.  The header's opening comment gives the reasons and figures."""

from __future__ import annotations

import numpy as np

from hockeystick import _core
from hockeystick.pld.question.tilted_question import core_point
from hockeystick.pld.question.window_heap import heap_windows
from hockeystick.pld.refine import question
from hockeystick.pld.refine.grid_start import Point

# the first grid of the upper side's reads (the core's kFinerFirstGrid: the rare lower read's)
FIRST_INTERVAL = float(_core.pld_refine.finer_first_grid)


def finer_brackets(
    point: Point,
    delta: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    threads: int = 0,
    upper_max_points: int = int(_core.pld_refine.finer_upper_max_points),
    lower_max_points: int = int(_core.pld_refine.finer_lower_max_points),
) -> tuple[np.ndarray, np.ndarray]:
    """Each bracket (``lower``, ``upper``) at ``delta`` of ``point`` read by the core's
    ``rare_finer_bracket`` (module docstring), each as asked alone; as given outside rare
    participation (q above ``question.RARE_FINE_RATE``), below the aligned cells' least rounds or
    delta, or with an infinite upper side.

    Parameters
    ----------
    point : tuple of float
        (sigma, q, T, sensitivity) of the run.
    delta, lower, upper : numpy.ndarray
        The deltas, in (0, 1), and their certified epsilon brackets (``delta`` broadcast to
        ``lower``'s shape).
    threads : int, default 0
        The reads' OpenMP and FFT threads (0: all cores).
    upper_max_points, lower_max_points : int
        The window caps of the upper reads and of the aligned read (the core's, about 3 GB and
        2.2 GB at their peaks).

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper) brackets, of ``lower``'s shape, never wider than given.

    Raises
    ------
    ValueError
        Where a delta lies outside (0, 1), a side is NaN or a cap is below 1.
    """
    lows = np.array(lower, dtype=np.float64).reshape(-1)
    ups = np.array(upper, dtype=np.float64).reshape(-1)
    flat = np.broadcast_to(np.asarray(delta, dtype=np.float64), np.shape(lower)).reshape(-1)
    if not 0.0 < point[1] <= question.RARE_FINE_RATE or flat.size == 0:
        return lows.reshape(np.shape(lower)), ups.reshape(np.shape(upper))
    with heap_windows():  # the windows' memory kept between compositions (``window_heap``)
        lows, ups = _core.pld_refine.rare_finer_brackets(
            **core_point(point, threads),
            delta=np.ascontiguousarray(flat),
            lower=lows,
            upper=ups,
            upper_max_points=upper_max_points,
            lower_max_points=lower_max_points,
        )
    return lows.reshape(np.shape(lower)), ups.reshape(np.shape(upper))


def finer_bracket(
    point: Point, delta: float, lower: float, upper: float, threads: int = 0
) -> tuple[float, float]:
    """``finer_brackets`` of one bracket.

    Parameters
    ----------
    point : tuple of float
        (sigma, q, T, sensitivity) of the run.
    delta : float
        The delta asked, in (0, 1).
    lower, upper : float
        A certified epsilon bracket at ``delta``.
    threads : int, default 0
        The reads' threads (0: all cores).

    Returns
    -------
    tuple of float
        The certified (lower, upper), never wider than given.

    Raises
    ------
    ValueError
        As ``finer_brackets``.
    """
    lo, up = finer_brackets(point, np.array([delta]), np.array([lower]), np.array([upper]), threads)
    return float(lo[0]), float(up[0])
