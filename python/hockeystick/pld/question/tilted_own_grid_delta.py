"""The delta bracket of a composed PLD whose factors describe no run the question reader reads
(random allocation's epochs, Laplace, discrete mechanisms, mixtures, a ledger of mixed mechanisms),
read under exponential tilts of a ladder fixed in advance, on its own grid, from its own factors
(its epsilon: ``tilted_own_grid``), by the core (``_core.pld_refine.OwnGridDeltas``:
cpp/include/hockeystick/pld/refine/own_grid_delta.hpp, whose opening comment gives the read, its
invariant and its citations), so that the C library and every Python door read it by one
arithmetic.

The plain FFT composition's round-off charge (about T u of the whole mass) and the tail cut of its
window sit far above a delta of 1e-10: the README's DP-SGD run on balls-in-bins batches (sigma 1.1,
235 steps an epoch, 60 epochs) reads delta in [9.17e-11, 1.021e-10] at the upper epsilon of delta
1e-10 and in [0, 2.85e-12] at that of 1e-12, so that its delta(eps) and epsilon(delta) disagree.
Per neighbouring direction, the core composes the factors' pessimistic PMFs with their counts (the
upper side), or their optimistic ones (``Factor.lower_terms``, the lower side), under the tilt of a
ladder fixed in advance that eps's rung gives (so that an eps asked in an array is read as asked
alone), where the plain composition's charges pass the core's share of the plain delta; every eps
of one tilt is read from one composition per direction and side, and the compositions are held
from call to call (``HELD``) within a budget of window points, the least recently used forgotten
first: a curve of deltas asked again (the risk family's directional profiles, whose one-direction
PLDs are built again call after call) reads the windows held.  Each side asked alone is the
bracket's, bit for bit.  This module hands the core each direction's plain composed PMF and
factors.
"""

from __future__ import annotations

import numpy as np

from ... import _core
from ...base.accountant import Bound
from ..grid.distribution import PrivacyLossDistribution
from .tilted_own_grid import direction_optimistic, direction_pessimistic

# the compositions held from call to call, process-wide (module docstring), within the core's
# kTiltDeltaWindowPoints window points: a tilted window of an undescribed run holds 1e4 to 1e6
# points, a point with its reads about 40 bytes
HELD = _core.pld_refine.OwnGridDeltas()


def own_grid_deltas(
    pld: PrivacyLossDistribution,
    eps: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    bound: Bound = "both",
) -> tuple[np.ndarray, np.ndarray]:
    """(``lower``, ``upper``), ``pld``'s plain delta brackets at ``eps``, intersected with its
    tilted sides (module docstring) where the plain composition's charges pass the core's share of
    the plain delta, read by the core (``HELD.deltas``).

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD (``tilted_own_grid.composed_rounds``) whose pessimistic sides are composed
        already.
    eps : numpy.ndarray
        The epsilons asked, >= 0 and finite; those at 0 keep their plain bracket.
    lower, upper : numpy.ndarray
        Their certified plain delta brackets (the maximum over the directions of each side), of
        ``eps``' shape.
    bound : {"both", "upper", "lower"}, default "both"
        "upper": the upper sides alone are read (the lower sides stay ``lower``); "lower": the
        lower sides alone (the upper sides stay ``upper``).

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper) brackets, of ``eps``' shape.
    """
    shape = np.shape(eps)
    x = np.array(eps, dtype=np.float64).reshape(-1)
    lows = np.array(np.broadcast_to(lower, shape), dtype=np.float64).reshape(-1)
    ups = np.array(np.broadcast_to(upper, shape), dtype=np.float64).reshape(-1)
    directions = [
        (pmf, direction_pessimistic(direction), direction_optimistic(direction))
        for pmf, direction in zip(pld.composed(True), pld.directions)
    ]
    low, up = HELD.deltas(directions, eps=x, lower=lows, upper=ups, bound=bound)
    return np.asarray(low).reshape(shape), np.asarray(up).reshape(shape)
