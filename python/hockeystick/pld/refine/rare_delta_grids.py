"""Rare participation's delta at an epsilon read on grids finer than the fine read's, as its epsilon
is (``rare_finer_grids``).

Over many rounds of a sampling rate far below the grid (q <= ``question.RARE_FINE_RATE``), nearly
every round's loss lies inside one cell: the pessimistic PMF spreads it to the cell's ends, an
excess first order in the grid over T rounds, and the optimistic PMF rounds it down, blind to it.
On the fine read's grid (``question.FINE_INTERVAL``) the upper delta of sigma 0.6, q 1e-5, 10^6
rounds at the certified upper epsilon of delta 1e-5 is 2.28e-5 and the lower sides (the fixed
grid's, the max-of-outputs test's) 1.2e-6.  Here, for such a point (at least
``aligned_lower.LEAST_ROUNDS`` rounds: ``applies``) whose delta bracket at eps is wider than
``RELATIVE_WIDTH`` of its lower side, on the grids of
``UPPER_GRIDS`` (each ``GRID_STEP`` times finer than the one before), one after the other:

1. the upper side is lowered to the tilted read's (``TiltedReader.delta_upper``: each direction's
   pessimistic PMF composed under the tilt of the Chernoff exponent at the centre of eps's bucket,
   ``tilted_question.fine_delta_key``, so that the eps of a bucket share the composition;
   certified), its window within ``MAX_POINTS``;
2. on a grid at most q, the lower side is raised to the tilted read of the optimistic PMFs
   (``TiltedReader.delta_lower``, certified), which a grid below the rate no longer blinds;
3. on the first grids, where the bracket is not yet ``within``, the lower side is
   raised to the aligned cells' read (``aligned_lower.aligned_lower_delta``: each round's loss
   replaced by conditional means on cells aligned to a shifted grid, Jensen; certified) on the grid
   of ``LOWER_GRIDS`` beside it, its window within ``rare_finer_grids.LOWER_MAX_POINTS``;

until the bracket is within ``RELATIVE_WIDTH`` of its lower side, or, the next window past
``CHEAP_POINTS``, within ``WIDTH_SHARE`` of the default epsilon tolerance or with the upper side's
modelled excess (``upper_settled``) within it, or the next window (``GRID_STEP`` times the last
one's points: a window's span in loss is about the same on every grid) would pass its cap. Each
grid's tails are sized for the upper side read before it (``tilted_question.fine_delta_key``'s
level).

The width of a delta bracket [lo, up] at eps is read in epsilon: the bracket is within a width w
where lo is at least the last upper read's delta at eps + w (the same composition read there), so
that every delta in [lo, up] has its epsilon within w of eps by the upper read's curve: the delta
bracket an epsilon bracket w wide implies.  Every read is certified, so the bracket is their
intersection with the one given, whatever the width chooses.
"""

from __future__ import annotations

import math

import numpy as np

from . import question
from .aligned_lower import LEAST_DELTA, LEAST_ROUNDS, aligned_lower_delta
from .bracket_width import epsilon_tolerance
from .grid_start import Point
from .rare_finer_grids import LOWER_MAX_POINTS
from .tilted_question import (
    SPLIT_SAMPLED_ROUNDS,
    TiltedReader,
    fine_delta_key,
)
from .window_heap import heap_windows

# a bracket within this share of the default epsilon tolerance (in epsilon: module docstring) is
# not read further where the next window passes ``CHEAP_POINTS``: the share of the epsilon path's
# tightest target under rare participation (``rare_finer_grids.TIGHT_SHARE``)
WIDTH_SHARE = 1.0 / 16.0
# a bracket whose upper side is within this share of its lower one is not read further: then, at
# the epsilon door's certified sides of a delta d, the upper side at eps_up(d) is at most (1 +
# RELATIVE_WIDTH) d and the lower side at eps_lo(d) at least d / (1 + RELATIVE_WIDTH) (the truth
# lies in the bracket).
# Where delta falls slowly with eps (sigma 0.5, q 1e-4, 10^6 rounds at eps 3.9: d log delta / d
# eps ~ 2.8), the width in epsilon asks a relative width of 1.75e-4, a read on a grid four times
# finer (8 CPU s against 1.2)
RELATIVE_WIDTH = 1e-3
# the upper side's grids, each a quarter of the one before (as ``tilted_question.GRID_STEP``), from
# a quarter of the fine read's; a window's span in loss is about the same on every grid, so where
# the rounds' losses span little (a small q) the finest fit the cap at little cost
GRID_STEP = 4.0
UPPER_GRIDS = tuple(question.FINE_INTERVAL / GRID_STEP**k for k in range(1, 9))
# the aligned cells' grid read with each of the first upper grids: finer than 6.25e-6 their cells
# pass ``aligned_lower.MAX_ALIGNED_CELLS`` (sigma 0.5, q 1e-6 at 3.125e-6)
LOWER_GRIDS = (question.FINE_INTERVAL / 4.0, question.FINE_INTERVAL / 8.0)
# the tilted windows' cap here: a read costs about 0.13 microseconds a point (sigma 0.6, q 1e-5,
# 10^6 rounds: 4.0e7 points on 7.8e-7, 5.3 CPU s)
MAX_POINTS = 1 << 25
# a grid whose window (estimated as ``GRID_STEP`` times the last one's) holds at most this many
# points is read even where the bracket is within the width in epsilon (about 0.3 CPU s): where
# the rounds' losses span little, the epsilon door's own reads go far finer than that width asks
# (sigma 2, q 1e-6, 10^6 rounds at the certified upper epsilon of delta 1e-12, 0.0029867: the upper
# delta 1.44e-12 on 1.95e-7, where the width is met, 0.997e-12 on 1.22e-8 in 7.3e5 points)
CHEAP_POINTS = 1 << 21


def applies(point: Point, eps: float, lower: float, upper: float) -> bool:
    """Whether the delta bracket (``lower``, ``upper``) at ``eps`` of ``point`` is read here: rare
    participation (0 < q <= ``question.RARE_FINE_RATE``), at least ``aligned_lower.LEAST_ROUNDS``
    rounds sampling the record more than ``tilted_question.SPLIT_SAMPLED_ROUNDS`` times on average
    (T q; below it the fine read's split read bounds both sides of the remove direction, and a
    window here costs many times more: sigma 0.8, q 1e-5, 5000 rounds at eps 0.6, 1.5 and 3 read
    0.8 CPU s there, 17 s here), a finite eps > 0 and an upper side at least
    ``aligned_lower.LEAST_DELTA``, more than ``RELATIVE_WIDTH`` above the lower side."""
    sigma, q, rounds, sensitivity = point
    return bool(
        0.0 < q <= question.RARE_FINE_RATE
        and rounds >= LEAST_ROUNDS
        and q * rounds > SPLIT_SAMPLED_ROUNDS
        and math.isfinite(eps)
        and eps > 0.0
        and upper >= LEAST_DELTA
        and upper > lower * (1.0 + RELATIVE_WIDTH)
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
    for bit (its choices read its own values and the window its own key composed).

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
        Whether the lower side is read (steps 2 and 3 of the module docstring): a caller asking
        the upper side alone reads the upper side's grids, and stops where the cap or
        ``upper_settled`` stops them.

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper), never wider than given.
    """
    eps = np.asarray(eps, dtype=np.float64)
    lower, upper = np.array(lower, dtype=np.float64), np.array(upper, dtype=np.float64)
    reading = np.array([applies(point, *b) for b in zip(eps, lower, upper)], dtype=bool)
    if not reading.any():
        return lower, upper
    q = point[1]
    reader = TiltedReader(point, None, threads, max_points=MAX_POINTS)
    # each read eps's (centre, level) (``applies``: eps finite and > 0, upper > 0); the others' unused
    keys = [
        fine_delta_key(float(e), float(u)) if r else (0.0, 1.0)
        for e, u, r in zip(eps, upper, reading)
    ]
    centre = np.array([c for c, _ in keys])
    level = np.array([lv for _, lv in keys])
    width = WIDTH_SHARE * epsilon_tolerance(
        question.DEFAULT_ACCURACY, question.DEFAULT_RELATIVE_ACCURACY, eps
    )
    window = np.zeros(eps.shape)
    before = np.full(eps.shape, math.inf)
    with heap_windows():  # the windows' memory kept between compositions (``window_heap``)
        for k, h in enumerate(UPPER_GRIDS):
            reading &= window * GRID_STEP <= MAX_POINTS  # else the next window would pass the cap
            if not reading.any():
                break
            # a grid below the rate: the optimistic side sees the rounds' losses
            tilted_lower = read_lower and h <= q
            for c, lv in sorted(set(zip(centre[reading], level[reading]))):
                at = np.flatnonzero(reading & (centre == c) & (level == lv))
                try:
                    found, low = tilted_sides(reader, eps[at], c, h, lv, tilted_lower)
                    shifted = reader.delta_upper(eps[at] + width[at], h, c, lv)
                except ValueError:  # a window past the cap: no finer grid fits either
                    reader.drop_compositions()
                    reading[at] = False
                    continue
                window[at] = reader.window_points(h)
                reader.drop_compositions()
                lower[at] = np.maximum(lower[at], low)
                upper[at] = np.maximum(lower[at], np.minimum(upper[at], found))
                if read_lower and k < len(LOWER_GRIDS):
                    lower[at] = raised_by_aligned_cells(
                        point, eps[at], lower[at], upper[at], shifted, c, lv, LOWER_GRIDS[k]
                    )
                    upper[at] = np.maximum(lower[at], upper[at])
                # the next grid's tails sized for the upper side read (its level, a function of
                # eps and the reads before: as asked alone)
                for i in at:
                    level[i] = min(level[i], fine_delta_key(float(eps[i]), float(upper[i]))[1])
                reading[at] = ~settled(lower[at], upper[at], shifted, before[at], found, window[at])
                before[at] = found
    return lower, np.maximum(lower, upper)


def tilted_sides(
    reader: TiltedReader, eps: np.ndarray, centre: float, h: float, level: float, tilted_lower: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The upper read's deltas at ``eps`` on grid ``h`` (``TiltedReader.delta_upper`` under the
    exponent's tilt at ``centre``, the tails ``level`` allows) and, where ``tilted_lower``, the
    tilted read of the optimistic PMFs there (``TiltedReader.delta_lower``, the same tilt;
    else 0), both sides discretized in one call.  Its ValueError: a window past the reader's
    cap."""
    if not tilted_lower:
        return reader.delta_upper(eps, h, centre, level), np.zeros(eps.shape)
    reader.discretize(h, level)
    found = reader.delta_upper(eps, h, centre, level)
    return found, reader.delta_lower(eps, h, centre, level)


def raised_by_aligned_cells(
    point: Point,
    eps: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    shifted: np.ndarray,
    centre: float,
    level: float,
    h: float,
) -> np.ndarray:
    """``lower`` raised to the aligned cells' read on grid ``h`` (``aligned_sides``) where the
    bracket is not yet ``within`` (step 3 of the module docstring)."""
    wide = ~within(lower, upper, shifted)
    if not wide.any():
        return lower
    raised = lower.copy()
    raised[wide] = np.maximum(lower[wide], aligned_sides(point, eps[wide], centre, level, h))
    return raised


def settled(
    lower: np.ndarray,
    upper: np.ndarray,
    shifted: np.ndarray,
    before: np.ndarray,
    found: np.ndarray,
    window: np.ndarray,
) -> np.ndarray:
    """Where a bracket is read no further (module docstring): within ``RELATIVE_WIDTH`` of its
    lower side, or, the next window (``GRID_STEP`` times ``window``) past ``CHEAP_POINTS``, within
    the width in epsilon or with the upper side's fall from ``before`` to ``found`` settled
    (``upper_settled``)."""
    costly = window * GRID_STEP > CHEAP_POINTS
    fallen = np.array([upper_settled(*v) for v in zip(before, found, shifted)], dtype=bool)
    return np.asarray(
        (upper <= lower * (1.0 + RELATIVE_WIDTH)) | (costly & ((lower >= shifted) | fallen))
    )


def within(lower: np.ndarray, upper: np.ndarray, shifted: np.ndarray) -> np.ndarray:
    """Where the bracket [``lower``, ``upper``] needs no finer read: within ``RELATIVE_WIDTH`` of
    its lower side, or within the width in epsilon (``lower`` at least ``shifted``, the upper
    read's delta at eps plus that width: module docstring)."""
    return np.asarray((lower >= shifted) | (upper <= lower * (1.0 + RELATIVE_WIDTH)))


def upper_settled(before: float, found: float, shifted: float) -> bool:
    """Whether the upper reads need go no finer: the upper side's excess over the truth modelled
    as first order in the grid (the pessimistic PMF's spread of rare losses, module docstring), so
    that after a fall from ``before`` (on a grid ``GRID_STEP`` times coarser) to ``found`` what is
    left of it is the fall's ln(before / found) / (``GRID_STEP`` - 1), at most that of one width in
    epsilon, ln(found / ``shifted``) (the read at eps + the width).  It only chooses the grids:
    every read is certified whatever it chooses."""
    if not (math.isfinite(before) and found > 0.0 and shifted > 0.0):
        return False
    return math.log(before / found) / (GRID_STEP - 1.0) <= math.log(found / shifted)


def aligned_sides(
    point: Point, eps: np.ndarray, centre: float, level: float, h: float
) -> np.ndarray:
    """The aligned cells' certified lower deltas at ``eps`` of ``point`` on grid ``h``
    (``aligned_lower.aligned_lower_delta`` under the exponent's tilt at ``centre``, its window
    within ``rare_finer_grids.LOWER_MAX_POINTS``); 0 where its window or its cells pass their
    caps."""
    sigma, q, rounds, sensitivity = point
    try:
        return aligned_lower_delta(
            sigma / sensitivity,
            q,
            int(rounds),
            eps,
            centre,
            level,
            h,
            LOWER_MAX_POINTS,
        )[0]
    except ValueError:  # past its window's cap or its cells'
        return np.zeros(eps.shape)
