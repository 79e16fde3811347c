"""Many rounds of a small sampling rate read in blocks: the front end of the core's block reads
(cpp/include/hockeystick/pld/refine/block_reads.hpp, bound as ``_core.pld_refine.block_bracket``;
the C library reads a composed handle of such rounds the same way).

Where q is far below the grid h, one round's loss sits inside a cell or two, and a one-round
discretization on h inflates the loss variance of T rounds by about T q h: no grid within memory
brackets epsilon to the default tolerance.  The core composes, per neighbouring direction, blocks of
B rounds on a fine grid (the pessimistic ones under the run's tilt), moves them onto a coarse grid
(the pessimistic blocks by a dominating split of each atom: cpp
pld/grid/dilation.hpp; the optimistic ones by a Jensen merge), composes the T // B blocks and the
remainder there under the Chernoff exponent's tilt and reads the upper and the lower epsilon; the
header's comment is the proof.  A small sigma reaches too far in loss for the fine grid (the core's
``block_grids`` refuses it), and there the bracket given is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from ... import _core
from ..mechanisms.constructors import MAX_CELLS
from ..refine import question

# the blocks are read for sampling rates up to this (the core's kBlockMaxRate)
MAX_RATE: float = _core.pld_refine.block_max_rate
# one factor of the run: (sigma, sampling rate, sensitivity) and its rounds
Segment = tuple[tuple[float, float, float], int]


def block_bracket(
    segments: Sequence[Segment], delta: float, lower: float, upper: float, tail: float
) -> tuple[float, float]:
    """(``lower``, ``upper``) at ``delta`` intersected with the blocks' bracket of one segment (the
    core's ``block_bracket``: the maximum over the directions on each side, read near the middle of
    the bracket given, or its lower side where the upper is not finite); as given for several
    segments, a sampling rate above ``MAX_RATE``, a lower side of 0 or where the blocks do not
    apply.

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors (one).
    delta : float
        The delta asked, in (0, 1).
    lower, upper : float
        A certified bracket of epsilon at ``delta``.
    tail : float
        The tail of one round's discretization.

    Returns
    -------
    tuple of float
        The certified (lower, upper) bracket.
    """
    if len(segments) != 1 or not lower > 0.0:
        return lower, upper
    (sigma, q, sensitivity), rounds = segments[0]
    if not q <= MAX_RATE:
        return lower, upper
    got = _core.pld_refine.block_bracket(
        [(float(sigma), float(q), int(rounds), float(sensitivity))],
        delta=float(delta),
        lower=float(lower),
        upper=float(upper),
        tail=float(tail),
        accuracy=question.DEFAULT_ACCURACY,
        relative_accuracy=question.DEFAULT_RELATIVE_ACCURACY,
        max_cells=MAX_CELLS,
    )
    return float(got[0]), float(got[1])


__all__ = ["MAX_RATE", "block_bracket"]
