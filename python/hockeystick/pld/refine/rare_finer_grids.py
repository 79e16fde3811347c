"""Rare participation's last reads: a default bracket still wider than the tolerance read on grids
finer than the tilted reads' window cap (``tilted_question.MAX_POINTS``) allows, under a larger cap
of its own.

Over many rounds of a sampling rate far below the grid (q <= 1e-5, T q of 10 to 100), nearly every
round's loss is of order q, far inside one cell.  The pessimistic PMF spreads each such atom to the
cell's ends (connect-the-dots), which keeps the mean of e^-L but adds about h |l| of variance a
round; over T rounds that is first order in h, so the upper side's excess falls about twofold a
halving of the grid where the one-round loss is below it (sigma 0.5, q 1e-6, 10^8 rounds, delta
1e-8: 0.97038, 0.96832, 0.96740, 0.96698, 0.96683 on 1.25e-5 down to 7.8e-7), not fourfold.  The
aligned cells' lower side (``aligned_lower``) loses a second-order amount, but its window over such
runs is wide too.  On the tilted reads' cap (2^22 points) both stop a few halvings short: the six
points of the box at sigma 0.5 with 10^7 and 10^8 rounds kept brackets 3.6 to 7.2 tolerances wide.

Here, for a point with q at most ``question.RARE_FINE_RATE`` whose bracket is still wider than the
tolerance:

1. the upper side is read (the core's ``TiltedReader::exponent_read``, certified) on ``FIRST_INTERVAL``,
   whose window sizes the reads after it (a window's span in loss is about the same on every grid);
2. where still wide, the lower side is read by the aligned cells (``aligned_lower_epsilon``,
   certified) on the finest of ``LOWER_INTERVALS`` whose window, estimated as
   ``LOWER_WINDOW_RATIO`` times the upper read's at that grid, fits ``LOWER_MAX_POINTS``;
3. where still wide, the upper side is read on half of ``FIRST_INTERVAL``, then, where still wide,
   once more on the grid ``upper_halvings`` chooses from the fall between the two reads (the
   coarsest whose modelled upper side meets the lower one within ``TARGET_SHARE`` of the
   tolerance, at most ``UPPER_HALVINGS`` halvings of ``FIRST_INTERVAL``, its window within
   ``UPPER_MAX_POINTS``): one read, not a ladder, since a read costs about its window's points.

A bracket of such a point already within the tolerance but wider than ``TIGHT_SHARE`` of it
(``tight_bracket``) has its lower side read by the aligned cells on ``FIRST_INTERVAL``, the core's
read (pld/refine/tilted_question.hpp's ``TiltedReader::rare_lower``, its window within
``_core.pld_refine.tilt_rare_lower_max_points``) that the C library's epsilon call makes.  There
the lower side is the optimistic reads', which round every round's loss down (first order in the
grid), while the upper side is the fine read's, whose pessimistic excess is a few 1e-5 after 10^4
to 10^6 rounds: the bracket's width is mostly the lower side's.  dp_accounting's default (the pessimistic PMF on its 1e-4 grid, uncertified: its FFT's
round-off is of order T u of the total mass, near delta after 10^4 to 10^6 rounds) can fall between
such sides, below the truth: sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10 reads 1.077178 against our
[1.077060, 1.077481], and the aligned cells on 1.25e-5 certify 1.077214; sigma 0.5, q 1e-4, 10^4
rounds, delta 1e-8 reads 3.5796137 against [3.5795432, 3.5796268], the cells 3.5796156.  The read
costs about its window's points at 0.3 microseconds (1 to 3 CPU s over the box of q in [1e-6, 1e-4],
T q in [1, 100]).

Every read is certified, so the bracket is the intersection; a window refused after all (its
ValueError) leaves that side as it was.  Memory: the pessimistic tilted read holds about 45 bytes a
point of its window at its peak (48 M points, 2.1 GB resident), the aligned read about 65 (17.6 M
points, 1.15 GB); the caps keep each under 3 GB.  CPU: about 0.3 microseconds a window point for
the upper read and 0.7 for the lower one.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _core
from . import question
from .aligned_lower import LEAST_DELTA, LEAST_ROUNDS, aligned_lower_epsilon
from .bracket_width import within_epsilon_tolerance
from .each_bracket import each_bracket
from .grid_start import Point
from .tilted_question import core_point, rare_lower
from .window_heap import heap_windows

# the first grid of the upper side's reads: the core's rare lower read's, the finest of its rare
# upper reads' (``tilted_question.rare_upper``), a quarter of the fine read's
FIRST_INTERVAL = float(_core.pld_refine.tilt_rare_lower_grid)
# the most halvings of FIRST_INTERVAL the upper side is read on (7.8e-7): past it the window of the
# runs in the box passes UPPER_MAX_POINTS anyway
UPPER_HALVINGS = 4
# the upper read's window cap: 2^26 points, ~3 GB at its peak
UPPER_MAX_POINTS = 1 << 26
# the aligned lower read's grids, finest first: on a grid finer than 6.25e-6 its cells pass
# ``aligned_lower.MAX_ALIGNED_CELLS`` (sigma 0.5, q 1e-6 at 3.125e-6)
LOWER_INTERVALS = (FIRST_INTERVAL / 2, FIRST_INTERVAL)
# the aligned read's window cap: 2^25 points, ~2.2 GB at its peak
LOWER_MAX_POINTS = 1 << 25
# the last upper read's grid is chosen so that its modelled upper side is within this share of the
# tolerance above the lower side (``upper_halvings``)
TARGET_SHARE = 0.75
# the aligned read's window over the pessimistic tilted read's on the same grid (its window is uncut,
# at 1e-3 delta): 1.8 to 2.2 on the box's wide points, with room
LOWER_WINDOW_RATIO = 2.5
# a bracket within the tolerance wider than this share of it has its lower side read by the aligned
# cells (``tight_bracket``): a sixteenth, 6.25e-5 below epsilon 4, below the distance between the
# sides where dp_accounting's default fell between them (7e-5 to 1.2e-4 above the lower side)
TIGHT_SHARE = 1.0 / 16.0


def lower_grid(window: int) -> float | None:
    """The finest of ``LOWER_INTERVALS`` whose aligned window, estimated as ``LOWER_WINDOW_RATIO``
    times the upper read's (``window`` points on ``FIRST_INTERVAL``, scaled by the grids' ratio),
    fits ``LOWER_MAX_POINTS``; None where none does or no window was read."""
    if window <= 0:
        return None
    for h in LOWER_INTERVALS:
        if LOWER_WINDOW_RATIO * window * (FIRST_INTERVAL / h) <= LOWER_MAX_POINTS:
            return h
    return None


def upper_halvings(first: float, second: float, lower: float, window: int) -> int:
    """How many halvings of ``FIRST_INTERVAL`` / 2 the last upper read takes: among the k >= 1 up
    to ``UPPER_HALVINGS`` - 1 whose window (``window`` points on ``FIRST_INTERVAL``, 2^(k+1) times
    as many on the grid read) fits ``UPPER_MAX_POINTS``, the fewest whose modelled upper side is
    within ``TARGET_SHARE`` of the tolerance above ``lower``, else the most; 0 where none fits, or
    where the second read fell by nothing.  The model: from the reads ``first`` (on
    ``FIRST_INTERVAL``) and ``second`` (on half of it), each further halving falls by half the fall
    before it (a first-order excess, the slowest fall seen), so k halvings read second - (first -
    second) (1 - 2^-k).  It only chooses the grid: every read is certified whatever it chooses."""
    fall = first - second
    if not (math.isfinite(fall) and fall > 0.0 and window > 0):
        return 0
    target = lower + TARGET_SHARE * question.default_tolerance(lower)
    fits = [k for k in range(1, UPPER_HALVINGS) if window * 2 ** (k + 1) <= UPPER_MAX_POINTS]
    if not fits:
        return 0
    for k in fits:
        if second - fall * (1.0 - 2.0**-k) <= target:
            return k
    return fits[-1]


def applies(point: Point, delta: float, lower: float, upper: float) -> bool:
    """Whether the bracket (``lower``, ``upper``) at ``delta`` of ``point`` is read here: rare
    participation (0 < q <= ``question.RARE_FINE_RATE``), at least ``aligned_lower.LEAST_ROUNDS``
    rounds, delta at least ``aligned_lower.LEAST_DELTA``, a finite upper side and a bracket wider
    than the default tolerance."""
    sigma, q, rounds, sensitivity = point
    return bool(
        0.0 < q <= question.RARE_FINE_RATE
        and rounds >= LEAST_ROUNDS
        and delta >= LEAST_DELTA
        and math.isfinite(upper)
        and not question.within_tolerance(np.array(lower), np.array(upper))
    )


def finer_bracket(
    point: Point, delta: float, lower: float, upper: float, threads: int = 0
) -> tuple[float, float]:
    """(``lower``, ``upper``) at ``delta`` of ``point`` intersected with the reads of the module
    docstring where ``applies``; as given elsewhere.

    Parameters
    ----------
    point : tuple of float
        (sigma, q, T, sensitivity) of the run.
    delta : float
        The delta asked, in (0, 1).
    lower, upper : float
        A certified epsilon bracket at ``delta``.
    threads : int, default 0
        The OpenMP and FFT threads of the reads (0: all cores).

    Returns
    -------
    tuple of float
        The certified (lower, upper), never wider than given.
    """
    if not applies(point, delta, lower, upper):
        return lower, upper
    with heap_windows():  # the windows' memory kept between compositions (``window_heap``)
        return _finer_reads(point, delta, lower, upper, threads)


def _finer_reads(
    point: Point, delta: float, lower: float, upper: float, threads: int
) -> tuple[float, float]:
    """``finer_bracket``'s reads of a bracket it ``applies`` to."""
    reader = upper_reader(point, threads)
    first, window = upper_read(reader, delta, FIRST_INTERVAL, upper, lower)
    upper = max(lower, min(upper, first))
    h = lower_grid(window)
    if h is not None and wide(lower, upper):
        lower = lower_read(point, delta, h, lower, upper)
        upper = max(lower, upper)
    if wide(lower, upper):
        second, _ = upper_read(reader, delta, FIRST_INTERVAL / 2, upper, lower)
        upper = max(lower, min(upper, second))
        k = upper_halvings(first, second, lower, window) if wide(lower, upper) else 0
        if k:
            last, _ = upper_read(reader, delta, FIRST_INTERVAL / 2 ** (k + 1), upper, lower)
            upper = max(lower, min(upper, last))
    return lower, upper


def tight_applies(point: Point, delta: float, lower: float, upper: float) -> bool:
    """Whether the bracket (``lower``, ``upper``) at ``delta`` of ``point`` is read by
    ``tight_bracket``: the domain of ``applies`` (rare participation, at least
    ``aligned_lower.LEAST_ROUNDS`` rounds, delta at least ``aligned_lower.LEAST_DELTA``, a finite
    upper side), a bracket within the default tolerance but wider than ``TIGHT_SHARE`` of it."""
    sigma, q, rounds, sensitivity = point
    share = TIGHT_SHARE
    return bool(
        0.0 < q <= question.RARE_FINE_RATE
        and rounds >= LEAST_ROUNDS
        and delta >= LEAST_DELTA
        and math.isfinite(upper)
        and question.within_tolerance(np.array(lower), np.array(upper))
        and not within_epsilon_tolerance(
            np.array(lower),
            np.array(upper),
            share * question.DEFAULT_ACCURACY,
            share * question.DEFAULT_RELATIVE_ACCURACY,
        )
    )


def tight_bracket(
    point: Point, delta: float, lower: float, upper: float, threads: int = 0
) -> tuple[float, float]:
    """(``lower``, ``upper``) at ``delta`` of ``point`` with its lower side raised to the aligned
    cells' read on ``FIRST_INTERVAL`` (``tilted_question.rare_lower``, the core's, its window
    within ``_core.pld_refine.tilt_rare_lower_max_points``, on ``threads`` FFT threads, 0 all
    cores) where ``tight_applies`` (module docstring); as given elsewhere.

    Parameters
    ----------
    point : tuple of float
        (sigma, q, T, sensitivity) of the run.
    delta : float
        The delta asked, in (0, 1).
    lower, upper : float
        A certified epsilon bracket at ``delta``.
    threads : int, default 0
        The read's FFT threads (0: all cores).

    Returns
    -------
    tuple of float
        The certified (lower, upper), never wider than given.
    """
    if not tight_applies(point, delta, lower, upper):
        return lower, upper
    lower = rare_lower(point, delta, lower, upper, threads)
    return lower, max(lower, upper)


def wide(lower: float, upper: float) -> bool:
    """Whether the bracket [``lower``, ``upper``] is wider than the default tolerance."""
    return not bool(question.within_tolerance(np.array(lower), np.array(upper)))


def upper_reader(
    point: Point, threads: int = 0, max_points: int | None = None
) -> _core.pld_refine.TiltedPointReader:
    """The core's tilted reader of ``point`` kept from one upper read to the next
    (``upper_read``), its windows within ``max_points`` (``UPPER_MAX_POINTS`` unless given), on
    ``threads`` FFT threads (0: all cores)."""
    return _core.pld_refine.TiltedPointReader(
        **core_point(point, threads),
        max_points=UPPER_MAX_POINTS if max_points is None else max_points,
    )


def upper_read(
    reader: _core.pld_refine.TiltedPointReader, delta: float, h: float, upper: float, lower: float
) -> tuple[float, int]:
    """The certified upper epsilon at ``delta`` of ``reader``'s point on grid ``h`` (the core's
    ``TiltedReader::exponent_read``: per direction at the tilt of the Chernoff exponent at
    ``upper``, its window first cut at the read tail, read again uncut where the cut shows, the
    uncut read first on a grid finer than one where it showed, past the reader's cap cut at
    ``tilted_question.WINDOW_TAIL`` and charged; searched from ``lower``; the add direction
    screened; inf where a window passes the cap) and the points of the least window it read (0
    where none)."""
    found, window = reader.exponent_read(delta=delta, interval=h, upper=upper, least=lower)
    return float(found), int(window)


def lower_read(
    point: Point,
    delta: float,
    h: float,
    lower: float,
    upper: float,
    max_points: int = LOWER_MAX_POINTS,
) -> float:
    """``lower`` raised to the aligned cells' certified lower epsilon at ``delta`` of ``point`` on
    grid ``h`` (``aligned_lower.aligned_lower_epsilon``, searched below ``upper``, its window within
    ``max_points``); as given where its window or its cells pass their caps."""
    sigma, q, rounds, sensitivity = point
    try:
        found = aligned_lower_epsilon(
            sigma / sensitivity, q, int(rounds), delta, upper, h, max_points
        )
    except ValueError:  # past its window's cap or its cells': the lower side so far
        return lower
    return max(lower, found)


def finer_brackets(
    point: Point, delta: np.ndarray, lower: np.ndarray, upper: np.ndarray, threads: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``finer_bracket`` at each delta of ``delta`` (of the brackets' shape after broadcasting), or
    ``tight_bracket`` where the bracket is within the tolerance already.

        Parameters
        ----------
        point : tuple of float
            (sigma, q, T, sensitivity) of the run.
        delta, lower, upper : numpy.ndarray
            The deltas and their certified epsilon brackets.
        threads : int, default 0
            The reads' threads (0: all cores).

        Returns
        -------
        tuple of numpy.ndarray
            The certified (lower, upper) brackets, of ``lower``'s shape, never wider than given.
    """

    def read(at: float, lo: float, up: float) -> tuple[float, float]:
        if applies(point, at, lo, up):
            return finer_bracket(point, at, lo, up, threads)
        return tight_bracket(point, at, lo, up, threads)

    return each_bracket(delta, lower, upper, read)
