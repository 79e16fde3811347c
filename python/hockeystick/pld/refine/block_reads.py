"""Many rounds of a small sampling rate read in blocks: the front end of the core's block reads
(cpp/include/hockeystick/pld/refine/block_reads.hpp, bound as ``_core.pld_refine.block_bracket``;
the C library reads a composed handle of such rounds the same way).

Where q is far below the grid h, one round's loss sits inside a cell or two, and a one-round
discretization on h inflates the loss variance of T rounds by about T q h: no grid within memory
brackets epsilon to the default tolerance.  The core composes, per neighbouring direction, blocks of
B rounds on a fine grid (the pessimistic ones under the run's tilt), moves them onto a coarse grid
(the pessimistic blocks by a dominating split of each atom, ``dilated``: cpp
pld/grid/dilation.hpp; the optimistic ones by a Jensen merge), composes the T // B blocks and the
remainder there under the Chernoff exponent's tilt and reads the upper and the lower epsilon; the
header's comment is the proof.  A small sigma reaches too far in loss for the fine grid (``grids``
refuses it), and there the bracket given is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ... import _core
from ..grid.pmf import GridPMF
from ..mechanisms.constructors import MAX_CELLS
from . import question

# the blocks are read for sampling rates up to this (the core's kBlockMaxRate)
MAX_RATE: float = _core.pld_refine.block_max_rate
# one factor of the run: (sigma, sampling rate, sensitivity) and its rounds
Segment = tuple[tuple[float, float, float], int]


def dilated(fine: GridPMF, ratio: int) -> GridPMF:
    """A pessimistic fine PMF (a composed block, its charges and loss shift included) split onto the
    grid ratio * fine.h by the core (``_core.pld_refine.dilated``, pld/grid/dilation.hpp): a fresh
    pessimistic GridPMF without charges or loss shift, whose curve bounds the fine one's true curve
    from above at every eps.

    Raises
    ------
    ValueError
        If ``fine`` is optimistic, carries a shift, or its loss shift is negative or not finite.
    """
    if not fine.pessimistic or fine.shift != 0.0:
        raise ValueError(
            "dilated: the fine PMF must be pessimistic (an upper side) without a constant shift"
        )
    out = _core.pld_refine.dilated(
        np.ascontiguousarray(fine.p, dtype=np.float64),
        k_lo=int(fine.k_lo),
        h=float(fine.h),
        p_inf=float(fine.p_inf),
        entry_error=float(fine.entry_error),
        loss_shift=float(fine.loss_shift),
        ratio=int(ratio),
    )
    return GridPMF(int(out.k_lo), float(out.h), np.array(out.p), float(out.p_inf), 0.0, True)


def grids(point: tuple[float, float, float, float], tail: float) -> tuple[float, float]:
    """The fine grid h_f = 2^k and the coarse grid of the blocks of ``point`` (sigma, q, rounds,
    sensitivity) at ``tail`` (the core's ``block_grids``).

    Raises
    ------
    ValueError
        Where one round's loss span does not fit the fine grid (a small sigma reaches far in loss).
    """
    sigma, q, _, sensitivity = point
    fine, coarse = _core.pld_refine.block_grids(
        float(sigma), sampling_rate=float(q), sensitivity=float(sensitivity), tail=float(tail)
    )
    return float(fine), float(coarse)


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


__all__ = ["MAX_RATE", "block_bracket", "dilated", "grids"]
