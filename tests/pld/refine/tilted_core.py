"""The tests' handle on the tilted reads the package's default makes inside the core's fine and last
epsilon reads (cpp/include/hockeystick/pld/refine/fine_epsilon.hpp, last_epsilon_reads.hpp, inside
default_epsilon.hpp): the fine upper read (``TiltedReader::fine_read``, bound as
``_core.pld_refine.tilted_fine_upper``), the rare participation upper read
(``TiltedReader::rare_upper``, ``tilted_rare_upper``) and the rule that asks for it
(``fine_rare_pending``), the fine epsilon read (``TiltedPointReader.fine_epsilon``) and the last
reads (``TiltedPointReader.last_epsilon_reads``), each called alone on one point; the tilted grids'
descent the default's and the ``accuracy=`` reads make inside the core (``tilted_brackets``); and the
step read every refinement of one point makes on each of its grids (``epsilon_step``)."""

from __future__ import annotations

import contextlib

import numpy as np

from hockeystick import _core
from hockeystick.pld.compose.fft import DEFAULT_MAX_POINTS
from hockeystick.pld.mechanisms.constructors import MAX_CELLS
from hockeystick.pld.question.tilted_question import TiltedReader, core_point
from hockeystick.pld.question.window_heap import heap_windows
from hockeystick.pld.refine import question
from hockeystick.pld.refine.grid_start import Point, StartGrid, grid_policy


def fine_upper(
    point: Point,
    delta: float,
    upper: float,
    add_upper: float,
    lower: float = 0.0,
    tail: float | None = None,
    threads: int = 0,
) -> tuple[float, float | None]:
    """``upper`` (a finite certified upper epsilon at ``delta`` of ``point``) lowered to the core's
    fine read (pld/refine/tilted_question.hpp's ``TiltedReader::fine_read``, the C library's epsilon
    call's last upper read): per direction, its pessimistic rounds on ``question.FINE_INTERVAL``, or
    on ``DEFAULT_INTERVAL`` where that window passes ``MAX_POINTS`` even cut at ``WINDOW_TAIL``,
    composed under the Chernoff exponent's tilt at ``upper``, its window first cut at the read tail
    (pld/reads/tilted_read_tail.hpp) and read again uncut where the cut may show, and searched from it; the
    maximum over the directions, the add direction not read where ``add_upper`` (a certified upper
    side of its epsilon already known) or its screen on a coarser grid shows it at most the remove
    direction's answer; each search first from ``lower`` (a certified lower side, 0 where none).
    Both directions discretized with ``tail`` where given, else with the tails ``delta`` allows; on
    ``threads`` FFT threads (0: all cores).  Returns the upper side and the
    grid whose read was finite (None: neither).  Certified: every tilted read is."""
    found, grid = _core.pld_refine.tilted_fine_upper(
        **core_point(point, threads),
        delta=np.array([delta]),
        upper=np.array([upper]),
        add_upper=np.array([add_upper]),
        least=np.array([lower]),
        tail=0.0 if tail is None else tail,
    )
    return float(found[0]), (float(grid[0]) if grid[0] > 0.0 else None)


def tilted_brackets(
    point: Point,
    delta: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    tail: float | None = None,
    threads: int = 0,
    accuracy: float = question.DEFAULT_ACCURACY,
    relative_accuracy: float = question.DEFAULT_RELATIVE_ACCURACY,
) -> tuple[np.ndarray, np.ndarray]:
    """Each bracket (``lower``, ``upper``) at ``delta`` (arrays of one shape) of ``point``
    intersected with the tilted ones on the grids of the tolerance max(``accuracy``,
    ``relative_accuracy`` eps) (the default's unless given): the core's descent
    (pld/refine/tilted_question.hpp's ``TiltedReader::grid_descent``, the C library's epsilon
    call's), from that tolerance's first grid (``StartGrid.first``) down by ``GRID_STEP`` while the
    bracket is wider than it and the upper side still falls by a quarter of it, at most ``GRIDS``
    grids, a grid whose windows pass ``MAX_POINTS`` ending it; every bracket certified (at ``tail``
    where given, else at the tails each delta allows), one reader shared by the deltas (on
    ``threads`` FFT threads, 0: all cores); as given at q = 1 (the Gaussian mechanism, which the
    accountant answers in closed form)."""
    if point[1] >= 1.0:
        return np.array(lower, dtype=np.float64), np.array(upper, dtype=np.float64)
    at = np.array(np.broadcast_to(delta, np.shape(lower)), dtype=np.float64)
    first = StartGrid(accuracy, "relative", relative_accuracy)
    starts = np.array([first.first(point, np.array([d]), "epsilon") for d in at.reshape(-1)])
    low, up = _core.pld_refine.tilted_descent(
        **core_point(point, threads),
        delta=at,
        lower=np.array(lower, dtype=np.float64),
        upper=np.array(upper, dtype=np.float64),
        start=starts.reshape(at.shape),
        accuracy=accuracy,
        relative_accuracy=relative_accuracy,
        tail=0.0 if tail is None else tail,
    )
    return np.asarray(low), np.asarray(up)


def epsilon_step(
    point: Point,
    delta: float,
    h: float,
    accuracy: float,
    tail: float,
    charge: float | None,
    direct: bool = True,
) -> tuple[float, float, float]:
    """One point's certified epsilon bracket at ``delta`` on grid ``h`` and its add direction's
    certified upper side: the core's step read (pld/refine/subsampled_gaussian_step.hpp, bound as
    ``_core.pld_refine.subsampled_gaussian_step``), the rounds at ``tail`` to ``accuracy`` within
    ``MAX_CELLS`` cells and ``DEFAULT_MAX_POINTS`` points, the direct bins from ``charge`` (the
    composition's least where None) where ``direct``: the read the default refinement and the
    ``accuracy=`` refinement of one point make on each grid, inside the core."""
    sigma, q, rounds, sensitivity = point
    return _core.pld_refine.subsampled_gaussian_step(
        sigma=sigma / sensitivity,
        sampling_rate=q,
        rounds=int(rounds),
        delta=delta,
        interval=h,
        accuracy=accuracy,
        tail=tail,
        direct_bins=direct,
        direct_min_charge=_core.pld_compose.direct_min_charge if charge is None else charge,
        max_cells=MAX_CELLS,
        workers=None,
        max_points=DEFAULT_MAX_POINTS,
    )


def rare_pending(q: float, lower: float, upper: float) -> bool:
    """Whether a bracket of the fine read is read again on a finer grid (``rare_upper``): the core's
    ``fine_rare_pending`` (pld/refine/fine_epsilon.hpp, whose comment gives the reason): rare
    participation (q at most ``question.RARE_FINE_RATE``) and a bracket within the default
    tolerance but wider than the refinement's target, half of it (``question.REFINED_ACCURACY``)."""
    return bool(_core.pld_refine.fine_rare_pending(sampling_rate=q, lower=lower, upper=upper))


def rare_upper(
    point: Point, delta: float, upper: float, tail: float | None = None, threads: int = 0
) -> float:
    """``upper`` (a certified upper epsilon at ``delta`` of ``point``) lowered to the core's rare
    participation read (pld/refine/tilted_question.hpp's ``TiltedReader::rare_upper``, the read the
    C library's epsilon call makes): per direction, its pessimistic rounds on the first of
    ``_core.pld_refine.tilt_rare_upper_grids`` whose uncut windows fit
    ``tilt_rare_max_points``, composed under the Chernoff exponent's tilt at ``upper`` and searched
    from it; the maximum over the directions.  Both directions' rounds discretized with ``tail``
    where given, else with the tails ``delta`` allows (``TiltedReader.direction``'s); the
    compositions on ``threads`` FFT threads (0: all cores).  As given where no grid's windows fit.
    Over many rounds of a rate far below the grid the upper side's discretization excess falls
    about twofold a halving of the grid: at sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10 the read on
    1.25e-5 gives 1.077423.  Certified: every tilted read is."""
    given = 0.0 if tail is None else tail
    found = _core.pld_refine.tilted_rare_upper(
        **core_point(point, threads), delta=delta, upper=upper, tail=given
    )
    return float(found)


def _read_flat(point, delta, lower, upper, tail, add_upper, threads, reader, read):
    """``read(core reader, deltas, lowers, uppers, add uppers)`` of the brackets (``lower``,
    ``upper``) at ``delta`` of ``point`` flattened to one dimension (``add_upper`` None: inf), by
    ``reader`` or a new one at ``tail`` on ``threads``; the brackets as given at q = 1 or where none
    is asked; reshaped to the brackets' shape."""
    lows = np.array(lower, dtype=np.float64).reshape(-1)
    adds = np.broadcast_to(np.inf if add_upper is None else add_upper, np.shape(lower)).reshape(-1)
    ups = np.array(upper, dtype=np.float64).reshape(-1)
    flat = np.broadcast_to(np.asarray(delta, dtype=np.float64), np.shape(lower)).reshape(-1)
    if point[1] < 1.0 and flat.size:
        reader = TiltedReader(point, tail, threads) if reader is None else reader
        lows, ups = read(
            reader.core,
            np.ascontiguousarray(flat),
            lows,
            ups,
            np.ascontiguousarray(adds, dtype=np.float64),
        )
    return lows.reshape(np.shape(lower)), ups.reshape(np.shape(upper))


def fine_brackets(
    point: Point,
    delta: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    tail: float | None = None,
    add_upper: np.ndarray | None = None,
    threads: int = 0,
    reader: TiltedReader | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each bracket (``lower``, ``upper``) at ``delta`` of ``point`` read by the core's fine epsilon
    read (pld/refine/fine_epsilon.hpp, bound as ``TiltedPointReader.fine_epsilon``): where not yet
    exact, its lower side raised to the max-of-outputs test's bound where higher
    (``reads.max_of_outputs``: at sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10 it is 1.0716 where the
    PLD reads' lower side is 0.911); with a finite upper side, the upper side lowered to the fine
    read on ``question.FINE_INTERVAL`` under the Chernoff exponent's tilt at it (or on the peers'
    grid where that window would pass ``MAX_POINTS``), so that the default's upper side is read
    finer than the peers' default grid; then the split read of few sampled rounds (T q at most
    ``SPLIT_SAMPLED_ROUNDS``), the aligned cells' lower side where still wider than the tolerance
    (rare participation) and, where the bracket is now within the tolerance but wider than half of
    it under rare participation (the core's ``fine_rare_pending``), the upper side read on a finer grid.  Every
    read is certified; as given at q = 1 (closed form).  ``tail``: the rounds' tail where given;
    ``add_upper``: certified upper sides of the add direction's epsilon at ``delta`` already known
    (the refinement's), where given; ``threads``: the reads' (``TiltedReader``); ``reader``: the
    point's reader of an earlier read at the same ``tail``, whose discretized rounds the split read
    then reuses (the same numbers)."""
    sigma, q, _, sensitivity = point

    def read(core, flat, lows, ups, adds):
        # under rare participation the aligned cells' large windows keep their memory between compositions
        scope = heap_windows() if q <= question.RARE_FINE_RATE else contextlib.nullcontext()
        with scope:
            return core.fine_epsilon(
                delta=flat,
                lower=lows,
                upper=ups,
                add_upper=adds,
                sigma=sigma,
                sensitivity=sensitivity,
                split_max_points=DEFAULT_MAX_POINTS,
            )

    return _read_flat(point, delta, lower, upper, tail, add_upper, threads, reader, read)


def last_brackets(
    point: Point,
    delta: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    tail: float | None = None,
    add_upper: np.ndarray | None = None,
    threads: int = 0,
    reader: TiltedReader | None = None,
    fine_done: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Each bracket (``lower``, ``upper``) at ``delta`` of ``point`` read by the default's last
    epsilon reads (the core's pld/refine/last_epsilon_reads.hpp, bound as
    ``TiltedPointReader.last_epsilon_reads``; pld/question/default_reads.py, steps 4 to 7): the
    fine read (``fine_brackets``) unless ``fine_done``; then, no ``tail`` given, a bracket still
    wider than the default tolerance read by the tilted factors' ladder and blocks of rounds, one
    they bring within the tolerance but not within half of it under rare participation with its
    upper side read again on the rare grids (``TiltedReader::rare_upper``), and under rare participation the
    finer grids past the tilted windows' cap (rare_finer_grids.hpp); last, a bracket still wider
    than the tolerance read on the coarser grids above the tolerance's first grid.  Every read is
    certified and intersected with the bracket given; as given at q = 1 (closed form).
    ``add_upper``, ``threads`` and ``reader`` as ``fine_brackets``'."""
    sigma, _, _, sensitivity = point

    def read(core, flat, lows, ups, adds):
        with heap_windows():
            return core.last_epsilon_reads(
                delta=flat,
                lower=lows,
                upper=ups,
                add_upper=adds,
                fine_done=fine_done,
                sigma=sigma,
                sensitivity=sensitivity,
                policy=grid_policy(),
                split_max_points=DEFAULT_MAX_POINTS,
                upper_max_points=int(_core.pld_refine.finer_upper_max_points),
                lower_max_points=int(_core.pld_refine.finer_lower_max_points),
            )

    return _read_flat(point, delta, lower, upper, tail, add_upper, threads, reader, read)
