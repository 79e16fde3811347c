"""The default's epsilon bracket at a delta near or below the composition's round-off: read under an exponential tilt.

After T rounds the FFT composition's round-off charge is about T u of the total mass
(``compose.fft``), and a wide window adds a charge that grows with its points (at q = 0.5, 5 rounds,
about 1e-13 near epsilon 13.5), so a bracket at a delta near or below it stays wide on every grid.
The tilted composition (``compose.tilted``) carries that charge relative to the Chernoff bound at
its tilt instead, so the same discretized rounds are read there tightly.  For a point of the
Poisson-subsampled Gaussian (sigma, q, T, sensitivity) and one delta, each neighbouring direction's
pessimistic PMF is composed under the tilt lam_u that minimizes the Chernoff epsilon (K(lam) + log(E
/ delta)) / lam at E = ``ROUND_OFF_PER_ROUND`` T (where the charge, of size E times the Chernoff
bound, meets delta), K(lam) = T log sum_k p_k e^{lam l_k} its log-moment, and its upper epsilon
found, then again under the tilt that maximizes lam eps - K(lam) at the best upper epsilon so far
(the Chernoff exponent there: where E is below delta the first tilt's optimum runs to the least lam,
almost no tilt, and this one puts the charge least near the answer; at q = 0.5, 5 rounds, delta
1e-12 it takes the upper side from 13.533 to 13.5097); its optimistic PMF under the exponent's tilt
at that epsilon, and its lower epsilon found.  The bracket is the maximum over the directions on
each side (delta is the larger of the two directions' curves), on grids from the default tolerance's
first grid (``StartGrid.first``) down by ``GRID_STEP`` while the upper side still falls by a quarter
of the tolerance, at most ``GRIDS`` grids, each window within ``MAX_POINTS``; every bracket found is
certified and the answer is their intersection with the one given.  That descent is the core's
(pld/refine/tilted_question.hpp's ``TiltedReader::grid_descent``), the one the C library's
``hs_subsampled_gaussian_epsilon`` makes.  It is read for every bracket the refinement left wider
than the tolerance (inside the core's default read, pld/refine/default_epsilon.hpp, and its
``accuracy=`` read, pld/refine/accuracy_epsilon.hpp), whatever limited it; for an ``accuracy=``
finer than the default's, on that tolerance's grids instead.  On ``question.FINE_INTERVAL`` the upper side is read for
every default bracket not yet exact (the core's ``TiltedReader::fine_read``, in its fine epsilon read); the
default's last reads of a point, from that fine read to the coarser grids the C library's descent
falls back to, are one core read (pld/refine/last_epsilon_reads.hpp, inside default_epsilon.hpp).
"""

from __future__ import annotations

import contextlib
from collections.abc import Hashable
from typing import Any, NamedTuple, cast

import numpy as np

from ... import _core
from ..compose.fft import DEFAULT_MAX_POINTS
from ..grid.distribution import Factor
from ..mechanisms.constructors import (
    MAX_CELLS,
    Directions,
    subsampled_gaussians,
)
from ..refine import question
from ..refine.directional_delta import Direction
from ..refine.grid_start import Point, grid_policy
from .kept_readers import KeptReaders
from .window_heap import heap_windows

# the FFT composition's round-off charge per round and unit of mass, for choosing the tilt (a model,
# not a bound; the core's)
ROUND_OFF_PER_ROUND: float = _core.pld_refine.tilt_round_off_per_round
# the core's tilted descent (the C library's): each grid GRID_STEP times finer, at most GRIDS grids,
# each window within MAX_POINTS
GRID_STEP: float = _core.pld_refine.tilt_grid_step
GRIDS: int = _core.pld_refine.tilt_grids
MAX_POINTS: int = _core.pld_refine.tilt_max_points
# the pessimistic side's window tail under a tilt where the default window passes MAX_POINTS
# (``tilted.compose_tilted``'s ``window_tail``; the core's kTiltWindowTail, whose comment gives the
# reason)
WINDOW_TAIL: float = _core.pld_refine.tilt_window_tail
# the split read (the core's split_read.hpp, in its fine epsilon and delta reads) is tried where the
# rounds sample the record at most this many times on average (T q; the core's
# kTiltSplitSampledRounds, whose comment gives the reason)
SPLIT_SAMPLED_ROUNDS: float = _core.pld_refine.tilt_split_sampled_rounds
# the fine delta read's buckets (``fine_delta_key``): the epsilons from a centre FINE_DELTA_RATIO^k
# up to FINE_DELTA_RATIO times it read under one tilt, the tails sized for a delta level of
# 10^(FINE_DELTA_DECADES j) (the core's, which the C library's delta call reads by)
FINE_DELTA_RATIO: float = _core.pld_refine.tilt_delta_ratio
FINE_DELTA_DECADES: float = _core.pld_refine.tilt_delta_decades
# the fine delta read's readers kept between calls, one per (point, tail, threads)
# (``fine_delta_brackets``): a risk profile (``risk.gdp``, ``risk.power_bracket``) asks one point's
# delta at new epsilons call after call, each call's buckets mostly ones an earlier call composed, on
# the rounds it discretized; a reader's answers are a function of its point and tail alone, so a
# kept one reads as a new one.  The reader lent last keeps its pessimistic compositions and its
# optimistic ones within DELTA_WINDOW_POINTS window points each (the core's kTiltDeltaWindowPoints,
# whose comment gives the reason), the others keep their discretized rounds
DELTA_READERS = 2
DELTA_WINDOW_POINTS: int = _core.pld_refine.tilt_delta_window_points


def one_direction(
    mechanism: tuple[float, float, float],
    direction: Direction,
    h: float,
    tail: float,
    optimistic: bool,
    threads: int = 0,
) -> Factor:
    """One round of the Poisson-subsampled Gaussian (sigma, q, sensitivity), one neighbouring
    direction, discretized on grid ``h`` with ``tail`` (with its optimistic side where
    ``optimistic``), on ``threads`` OpenMP threads (0: all cores)."""
    sigma, q, sensitivity = mechanism
    (pld,) = subsampled_gaussians(
        sigma,
        q,
        sensitivity=sensitivity,
        value_discretization_interval=h,
        tail=tail,
        optimistic=optimistic,
        directions=cast(Directions, direction),
        threads=threads,
    )
    ((factor, _),) = pld.directions[0].items()
    return factor


def remove_tail(point: Point, delta: float) -> float:
    """The remove direction's tail: the largest 10^(-k / 4) below 1e-3 whose mass above the
    integration range over T rounds (which carries the factor q the add direction's tail lacks) is
    at most ``question.TILTED_TAIL_SHARE`` delta, at least the question tail at that share (the
    core's ``tilted_remove_tail``, by which its tilted reads discretize the remove direction)."""
    sigma, q, rounds, sensitivity = point
    return float(
        _core.pld_refine.tilted_remove_tail(
            sigma=sigma / sensitivity, sampling_rate=q, rounds=float(rounds), delta=delta
        )
    )


class TiltedReader:
    """The tilted delta reads of one point (sigma, q, T, sensitivity) at several epsilons, and the
    split read of its epsilon: the core's kept reader (``core``, ``_core.pld_refine.TiltedPointReader``,
    pld/refine/tilted_question.hpp's ``TiltedReader``: its fine delta read, pld/refine/fine_delta.hpp,
    its split read, pld/refine/split_read.hpp, and ``add_screens``), whose discretized rounds and
    compositions are held for the reads that share them (the same grid, tails and tilt).  Each
    direction's rounds are discretized with the largest tail the delta allows: the add direction
    with the question tail at ``question.TILTED_TAIL_SHARE`` (``question.question_tail``), the
    remove direction with ``remove_tail`` (its mass above the range carries a factor q), not the
    least over the deltas.
    The tilted charge is E times the Chernoff bound, which a longer loss tail (its mass ~tail, its
    moments large) raises: at q 1e-6, 10^6 rounds, delta 1e-20 the remove direction's upper epsilon
    falls from 0.048 (tail 1e-29) to about 0.02 (1e-24).  A ``tail`` given (the caller's) is both
    directions' instead.  ``threads``: the OpenMP and FFT threads of its discretizations and
    compositions (0: all cores; an accountant's worker thread passes its own, 1, so that threads do
    not nest).  ``max_points``: the most points a tilted window may hold (``MAX_POINTS``; a larger
    cap reads finer grids, each read certified alike)."""

    def __init__(
        self,
        point: Point,
        tail: float | None = None,
        threads: int = 0,
        max_points: int = MAX_POINTS,
    ):
        self.point = point
        self.tail = tail
        self.threads = threads
        self.core = _core.pld_refine.TiltedPointReader(
            **core_point(point, threads),
            max_points=int(max_points),
            tail=0.0 if tail is None else tail,
        )

    def drop_compositions(self) -> None:
        """Forgets the tilted compositions made so far (the discretized rounds stay): a reader kept
        for a later read then holds one round's PMFs, not the composed windows."""
        self.core.forget_windows()

    def keep_windows(self, points: int) -> None:
        """Forgets the tilted compositions least recently used until each side's left hold at most
        ``points`` window points (the discretized rounds stay)."""
        self.core.keep_windows(points)

    def window_points(self, h: float) -> int:
        """The points a read on grid ``h`` needed: per neighbouring direction, the least of its
        pessimistic tilted windows composed on ``h`` so far, the most over the directions (0 where
        none is held)."""
        return self.core.window_points(h)

    def add_screen(self, eps: np.ndarray, h: float, delta: float, centre: float) -> np.ndarray:
        """A certified upper bound on the add direction's delta at each of ``eps``, cheaper than its
        read on ``h`` (the core's ``TiltedReader::add_screens``): 0 where eps is at least
        the core's ``add_pure_epsilon``; elsewhere its tilted read on a grid ``dominated_direction.COARSENING``
        times coarser (at most ``MAX_INTERVAL``), under the exponent's tilt at ``centre``."""
        return self.core.add_screen(eps=eps, interval=h, level=delta, centre=centre)


def core_point(point: Point, threads: int) -> dict[str, Any]:
    """``point`` and ``threads`` as the core's tilted reads take them (sigma per unit sensitivity,
    the package's cells cap, the FFT workers: None for all cores)."""
    sigma, q, rounds, sensitivity = point
    return {
        "sigma": sigma / sensitivity,
        "sampling_rate": q,
        "rounds": int(rounds),
        "max_cells": MAX_CELLS,
        "workers": None if threads == 0 else threads,
    }


class DefaultRead(NamedTuple):
    """The default's epsilon of one point at one delta after its fixed grid (``default_epsilon``):
    its certified sides, step 2's refinement where it ran ((lower, upper, whether a refused window
    stopped it, whether its coarsest fit stopped it, whether the fine read settled it, the grids
    read); None where the fixed grid's bracket was within the tolerance) and whether the fine read
    beside it was made."""

    lower: float
    upper: float
    refined: tuple[float, float, bool, bool, bool, int] | None
    tried: bool


def default_epsilon(
    point: Point,
    delta: float,
    reader: TiltedReader,
    fixed: tuple[float, float] | None,
    fixed_add: float,
    plan: _core.pld_refine.DefaultRefinementPlan | None,
) -> DefaultRead:
    """The default's epsilon bracket of ``point`` at ``delta`` after its fixed grid, one core read
    without the interpreter lock (pld/refine/default_epsilon.hpp, bound as
    ``TiltedPointReader.default_epsilon``; the C library's epsilon call makes the same): where
    ``fixed`` (the fixed grid's certified bracket) is missing or wider than the default tolerance,
    ``plan``'s refinement with the fine read beside its ladder (``points.Refinement.default_plan``)
    and, where still wider, its tilted descent and cap; then the last reads by ``reader`` (the fine
    read unless the refinement settled on it, with ``fixed_add``, the fixed grid's certified upper
    side of the add direction; the rare participation and coarser reads from ``grid_policy()``).

    Parameters
    ----------
    point : (float, float, float, float)
        (sigma, q, rounds, sensitivity), 0 < q < 1.
    delta : float
        The delta asked.
    reader : TiltedReader
        The point's reader (its tail, its threads).
    fixed : (float, float) or None
        The fixed grid's certified bracket, None where it was not read.
    fixed_add : float
        Its add direction's certified upper side (inf: none).
    plan : hockeystick._core.pld_refine.DefaultRefinementPlan or None
        Steps 2 and 3's plan; None where ``fixed`` is within the tolerance.

    Returns
    -------
    DefaultRead
        The certified bracket, step 2's refinement where it ran, whether the fine read was made.

    Raises
    ------
    ValueError
        Where a grid the refinement chose cannot discretize a round (naming sigma / sensitivity), or
        ``fixed`` is wider than the tolerance and no ``plan`` is given.
    """
    sigma, _, _, sensitivity = point
    lower, upper, refined, tried = reader.core.default_epsilon(
        delta=float(delta),
        fixed=fixed,
        fixed_add=float(fixed_add),
        plan=plan,
        policy=grid_policy(),
        sigma=sigma,
        sensitivity=sensitivity,
        split_max_points=DEFAULT_MAX_POINTS,
        upper_max_points=int(_core.pld_refine.finer_upper_max_points),
        lower_max_points=int(_core.pld_refine.finer_lower_max_points),
    )
    return DefaultRead(float(lower), float(upper), refined, bool(tried))


def fine_delta_key(eps: float, upper: float) -> tuple[float, float]:
    """The fine delta read's (centre, level) at ``eps`` whose certified upper delta so far is
    ``upper`` > 0, a function of these two alone, so that an epsilon asked in an array is read
    exactly as asked alone (``fine_delta_brackets``): the centre the largest ``FINE_DELTA_RATIO``^k
    (k an integer) at most ``eps`` (0 where ``eps`` <= 0), under whose exponent's tilt the
    epsilons from it up to ``FINE_DELTA_RATIO`` times it are read; the level the largest
    10^(``FINE_DELTA_DECADES`` j) at most ``upper`` (the least delta expected, which sizes the tails
    and what the split reads as negligible).  Both are the core's (``_core.pld_refine.tilted_delta_key``:
    pld/refine/tilted_question.hpp's ``tilted_delta_centre`` and ``tilted_delta_level``), by which
    the C library's delta call tilts and sizes its reads too.

    Any tilt and any tails give a certified read; these make it tight.  A tilt at a centre a little
    below eps reads as tight to five digits (DP-FedAvg's sigma 1, q 1e-3, 5000 rounds at eps 0.56,
    1.03 and 3: the same upper delta from 0.8 eps to 1.1 eps; a centre 1.25 eps above it reads
    1e9 times looser at eps 3); at eps 0.99 2^(k / 2), k = -4 .. 5, the top of a bucket, on four
    runs, the upper delta is within 4e-5 relative of the read centred at eps itself or below it.
    Tails sized below ``upper`` (the fixed grid's, often far above the delta) mostly tighten the
    read (at eps 6: 0.44 to 0.90 lower on four runs); where the split read applies they may loosen
    it a little (sigma 0.8, q 1e-5, 5000 rounds at eps 0.2: 2.9e-4 relative with a level up to 100
    times below ``upper``, 4.8e-3 up to 10^4 times); a level above ``upper`` charges a tail mass
    too large (84 times looser, rounded up by 10^4)."""
    centre, level = _core.pld_refine.tilted_delta_key(eps=eps, upper=upper)
    return float(centre), float(level)


def _delta_reader(key: Hashable) -> TiltedReader:
    """A new reader of ``key``, (point, tail, threads) (``DELTA_READERS``)."""
    point, tail, threads = cast(tuple[Point, "float | None", int], key)
    return TiltedReader(point, tail, threads)


_DELTA_READERS: KeptReaders[TiltedReader] = KeptReaders(
    DELTA_READERS, _delta_reader, TiltedReader.drop_compositions
)


def fine_delta_brackets(
    point: Point,
    eps: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    tail: float | None = None,
    threads: int = 0,
    read_lower: bool = True,
    rare: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Each delta bracket (``lower``, ``upper``) at ``eps`` of ``point`` with a finite eps, a
    positive upper side and not yet exact (``question.exact``), read by the core's fine delta read
    (``TiltedPointReader.fine_delta_brackets``, pld/refine/fine_delta.hpp, which the C library's
    delta call reads too): the lower side raised to the max-of-outputs test's; per bucket of
    ``fine_delta_key``, the upper side lowered to the tilted read's on ``question.FINE_INTERVAL``
    (half the peers' default grid), the lower side, where ``read_lower`` and that grid is at most q,
    raised to the optimistic rounds' tilted read there, and, where T q is at most
    ``SPLIT_SAMPLED_ROUNDS``, the brackets still not exact at a positive eps intersected with the
    binomial split of the remove direction's rounds (the add direction by its screen).  Every
    element's bracket is the one it gets asked alone, bit for bit, whatever else is asked with it
    or was asked before; each read certified.  Where ``rare``, the brackets then read by rare
    participation's finer grids where they apply (the core's ``rare_delta_applies``: q at most
    ``question.RARE_FINE_RATE``, many rounds, a bracket wider than its rule): on grids a quarter of
    the one before from a quarter of the fine read's, the upper side by the tilted read under the
    Chernoff exponent's tilt at the centre of eps's bucket, the lower side by the optimistic PMFs on
    a grid at most q and by the aligned cells (pld/refine/rare_delta_grids.hpp, whose comment gives
    the rules that stop them), the eps of one bucket sharing each grid's compositions; the default
    reads both where no tail is given (pld/refine/accuracy_delta.hpp's ``default_deltas``, the C
    library's delta call's reads).  As given at q = 1 (closed form).  The reader of (``point``,
    ``tail``, ``threads``) is kept for later calls (``DELTA_READERS``), its compositions cut to
    ``DELTA_WINDOW_POINTS`` after the read.

    Parameters
    ----------
    point : tuple of float
        (sigma, q, rounds, sensitivity).
    eps : numpy.ndarray
        The epsilons, broadcast to ``lower``'s shape.
    lower, upper : numpy.ndarray
        Certified delta brackets there (0 <= lower <= upper <= 1).
    tail : float or None, default None
        Both directions' tail (None: the tails each delta allows).
    threads : int, default 0
        The reads' OpenMP and FFT threads (0: all cores).
    read_lower : bool, default True
        Whether the lower side is asked (else only the max-of-outputs test raises it).
    rare : bool, default False
        Whether rare participation's finer grids read the brackets after the fine read.

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper), of ``lower``'s shape.
    """
    lows = np.array(lower, dtype=np.float64).reshape(-1)
    ups = np.array(upper, dtype=np.float64).reshape(-1)
    flat = np.broadcast_to(np.asarray(eps, dtype=np.float64), np.shape(lower)).reshape(-1)
    todo = np.isfinite(flat) & (ups > 0.0) & ~question.exact(lows, ups)
    rare = rare and 0.0 < point[1] <= question.RARE_FINE_RATE
    if point[1] < 1.0 and todo.any():
        # the rare reads' windows keep their memory between compositions (``window_heap``)
        with (
            _DELTA_READERS.lent((point, tail, threads)) as reader,
            heap_windows() if rare else contextlib.nullcontext(),
        ):
            lows, ups = reader.core.fine_delta_brackets(
                eps=np.ascontiguousarray(flat),
                lower=lows,
                upper=ups,
                read_lower=read_lower,
                split_max_points=DEFAULT_MAX_POINTS,
                rare=rare,
            )
    return lows.reshape(np.shape(lower)), ups.reshape(np.shape(upper))
