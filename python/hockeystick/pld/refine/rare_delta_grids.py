"""Rare participation's delta at an epsilon read on grids finer than the fine read's, as its epsilon
is (the core's rare_finer_grids.hpp): the front end of the core's reads (pld/refine/rare_delta_grids.hpp's
``rare_delta_brackets``, whose comment states them, and which the C library's delta call makes too).

Over many rounds of a sampling rate far below the grid (q <= ``question.RARE_FINE_RATE``), nearly
every round's loss lies inside one cell: the pessimistic PMF spreads it to the cell's ends, an
excess first order in the grid over T rounds, and the optimistic PMF rounds it down, blind to it.
For such a run (``applies``) whose delta bracket at eps is wider than ``RELATIVE_WIDTH`` of its
lower side, on grids each a quarter of the one before from a quarter of the fine read's, the upper
side is lowered to the tilted read's (``TiltedReader.delta_upper``, under the Chernoff exponent's
tilt at the centre of eps's bucket, ``tilted_question.fine_delta_key``, so that the eps of a bucket
share the composition), and the lower side raised to the tilted read of the optimistic PMFs on a
grid at most q (``TiltedReader.delta_lower``) and to the aligned cells' read
(the core's ``aligned_lower_delta``, pld/refine/aligned_lower.hpp) on the first grids, until the bracket is within
``RELATIVE_WIDTH`` of its lower side, or, the next window past ``CHEAP_POINTS``, within
``WIDTH_SHARE`` of the default epsilon tolerance (read in epsilon: the bracket [lo, up] is within a
width w where lo is at least the last upper read's delta at eps + w) or with the upper side's
modelled excess within it, or the next window would pass ``MAX_POINTS``.  Every read is certified,
so the bracket is their intersection with the one given.
"""

from __future__ import annotations

import numpy as np

from ... import _core
from .grid_start import Point
from .tilted_question import core_point
from .window_heap import heap_windows

# a bracket within this share of the default epsilon tolerance (in epsilon) is not read further
# where the next window passes ``CHEAP_POINTS`` (the core's kRareDeltaWidthShare)
WIDTH_SHARE: float = _core.pld_refine.rare_delta_width_share
# a bracket whose upper side is within this share of its lower one is not read further (the core's
# kRareDeltaRelativeWidth, whose comment gives the reason)
RELATIVE_WIDTH: float = _core.pld_refine.rare_delta_relative_width
# the tilted and aligned windows' cap here (the core's kRareDeltaMaxPoints)
MAX_POINTS: int = _core.pld_refine.rare_delta_max_points
# a grid whose window is estimated within this many points is read even where the bracket is within
# the width in epsilon (the core's kRareDeltaCheapPoints)
CHEAP_POINTS: int = _core.pld_refine.rare_delta_cheap_points


def applies(point: Point, eps: float, lower: float, upper: float) -> bool:
    """Whether the delta bracket (``lower``, ``upper``) at ``eps`` of ``point`` is read here (the
    core's ``rare_delta_applies``): rare participation (0 < q <= ``question.RARE_FINE_RATE``), at
    least the aligned cells' least rounds (the core's ``kAlignedLeastRounds``) sampling the record more than
    ``tilted_question.SPLIT_SAMPLED_ROUNDS`` times on average, a finite eps > 0 and an upper side
    at least the aligned cells' least delta (``kAlignedLeastDelta``), more than ``RELATIVE_WIDTH`` above the lower side."""
    _, q, rounds, _ = point
    return bool(
        _core.pld_refine.rare_delta_applies(
            sampling_rate=q, rounds=float(rounds), eps=eps, lower=lower, upper=upper
        )
    )


def rare_delta_brackets(
    point: Point,
    eps: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    threads: int = 0,
    read_lower: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Each delta bracket (``lower``, ``upper``) at ``eps`` of ``point`` intersected with the reads
    of the module docstring where ``applies``; as given elsewhere.

    Every eps is read under the Chernoff exponent's tilt at its ``tilted_question.fine_delta_key``
    centre, its tails sized for its level (the key's at its upper side, then lowered after each
    grid to the key's at the upper side read there), so that the eps of one (centre, level) share
    each grid's compositions; each element's grids and bracket are those it gets asked alone, bit
    for bit.

    Parameters
    ----------
    point : tuple of float
        (sigma, q, T, sensitivity) of the run.
    eps : numpy.ndarray
        The epsilons asked, one dimension.
    lower, upper : numpy.ndarray
        Certified delta brackets at ``eps``, its shape.
    threads : int, default 0
        The OpenMP and FFT threads of the reads (0: all cores).
    read_lower : bool, default True
        Whether the lower side is read: a caller asking the upper side alone reads the upper side's
        grids, and stops where the cap or the upper side's settling stops them.

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper), never wider than given.
    """
    eps = np.asarray(eps, dtype=np.float64)
    lower, upper = np.array(lower, dtype=np.float64), np.array(upper, dtype=np.float64)
    if not 0.0 < point[1] < 1.0:  # q = 1: the Gaussian mechanism, answered in closed form
        return lower, upper
    with heap_windows():  # the windows' memory kept between compositions (``window_heap``)
        found = _core.pld_refine.rare_delta_brackets(
            **core_point(point, threads), eps=eps, lower=lower, upper=upper, read_lower=read_lower
        )
    return np.asarray(found[0]), np.asarray(found[1])
