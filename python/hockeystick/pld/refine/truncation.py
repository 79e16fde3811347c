"""How much mass an ``accuracy=`` bracket may truncate: tails sized to the smallest delta it must resolve.

Every composition truncates twice, and both are charged, never ignored:

1. each round's discretization stops at [x_lo, x_hi] with P-mass tail / 2 beyond each end
   (pld/grid/cells.hpp); for the remove direction of the Poisson-subsampled Gaussian, x_hi = 1 + z
   s, z = Q^{-1}(tail / 2), s = sigma / sensitivity, and the mass above it,
       above(tail) = q Q(z) + (1 - q) Q(z + 1 / s),
   goes to +infinity on the pessimistic side (dropped on the optimistic one); the mass below x_lo sits at
   the lowest loss, below 0, where it adds nothing to delta at eps >= 0;
2. the composed window drops at most tail per end (pld/compose/compose.hpp's Chernoff edges), both
charged.

So over T rounds the certified upper delta rises by at most T above(t_round) + 2 t_window, and the
lower one falls by at most as much.  The default tail (1e-15) keeps that far below any delta a user
asks about, but the window it implies is what the transforms pay for (about sqrt(2 log(1 / tail))
composed spreads each side).  ``tails`` sizes both truncations to the smallest delta the bracket
must resolve instead: each adds at most s / 2 of it, s = 0.1 x accuracy, at the largest rung of a
ladder (10^(-k / 4), k = 44 ... 60: 4 per decade from 1e-11 down to 1e-15; no coarser, so the
truncations stay below the round-off charge, which sets a bracket's width) that stays within that,
and never below the user's ``tail``.  An error s delta in delta moves epsilon by
s delta / |d delta / d eps|, at most s where |d delta / d eps| >= delta (about s / 7 at q = 1e-3,
sigma = 0.8, 10^5 rounds, delta = 1e-5), and the smaller window's round-off charge pays it back.
Either way the bracket is certified: the tails only decide its width and its cost.  The add
direction keeps ``tail`` (its mass beyond each end is tail / 2, with no factor q).  The rule is the
core's, pld/refine/refinement_tails.hpp, read through ``_core.pld_refine.refinement_tails``: the C
library's refinement sizes its truncations with the same header.

``.epsilon(delta)`` resolves the deltas asked.  ``delta_accuracy="epsilon"``'s delta(eps) resolves
none below its floor (1e-9, ``DELTA_FLOOR``), so its truncations are sized to that (t_window =
1.8e-13 at accuracy 1e-2), each one-round tail the least over the rounds values of its (sigma, q) in
a unit of a step, whose discretization they share (pld/refine/points_delta_source.hpp): the shorter windows
cost less, most where a long one-round loss tail (sigma 0.5, q 1e-4) would widen every window.
"""

from __future__ import annotations

from ... import _core


def tails(
    point: tuple[float, float, float, float], smallest: float, tail: float, accuracy: float
) -> tuple[float, float]:
    """(t_round, t_window) for the remove direction of ``point``: the coarsest rungs whose charges
    stay within 0.1 x ``accuracy`` / 2 of ``smallest`` each (module docstring), at least ``tail``.

    Parameters
    ----------
    point : tuple of float
        (sigma, q, rounds, sensitivity) of the Poisson-subsampled Gaussian run.
    smallest : float
        The smallest delta the bracket must resolve.
    tail : float
        The user's tail: neither truncation goes below it.
    accuracy : float
        The epsilon accuracy asked.

    Returns
    -------
    tuple of float
        One round's tail of the remove direction's discretization, and the composed windows' tail;
        both ``tail`` where the budget 0.05 ``accuracy`` ``smallest`` is not finite and > 0.

    Raises
    ------
    ZeroDivisionError
        Where the point's sensitivity is 0.
    """
    sigma, q, rounds, sensitivity = (float(v) for v in point)
    return _core.pld_refine.refinement_tails(
        sigma / sensitivity,
        q,
        rounds,
        smallest=float(smallest),
        tail=float(tail),
        accuracy=float(accuracy),
    )
