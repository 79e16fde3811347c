"""The default's chain of reads for rounds of one Poisson-subsampled Gaussian: a front end given
neither a grid nor an ``accuracy`` asks this module, and nothing else, for its brackets
(``SubsampledGaussianPLD``, and through it every door the question reader serves).

Epsilon at delta, each bracket certified and each step intersected with the ones before it:

1. the fixed grid of ``DEFAULT_INTERVAL`` where it fits the question
   (``refine.question.fixed_grid_fits``) and its window the memory allowed (past it, the steps
   below alone, as the C library reads on; the grid's refusal raised where they do not answer to
   the tolerance);
2. where that is missing or wider than the default tolerance, the refinement to half of it at the
   question's tail (``question.tail_of``, or the tail given): the core's default refinement
   (pld/refine/default_refinement.hpp), each grid read by the core's step read
   (subsampled_gaussian_step.hpp), a point settled a grid early where the fine read beside its
   ladder brings it within the tolerance (fine_settle.hpp);
3. where still wider, the tilted composition (the core's grid descent: round-off relative to a
   Chernoff bound), its upper side then lowered to the RDP conversion's where no tail was given
   (``question.rdp_upper``);
4. the fine read on ``question.FINE_INTERVAL`` where not yet exact; under rare participation, a
   bracket it leaves within the tolerance but wider than half of it read again on a finer grid
   (nothing later refines a bracket within the tolerance);
5. no tail given, the tilted factors' ladder and blocks of rounds where a bracket is still wide
   (rare participation), and where they bring it within the tolerance but not within half of it,
   its upper side read on a finer grid as in step 4;
6. no tail given, under rare participation, a bracket still wide read on grids finer than the
   tilted reads' window cap, and one within the tolerance but wider than a sixteenth of it given the
   aligned cells' lower read;
7. a bracket still wider than the tolerance read on the coarser grids the C library's tilted
   descent falls back to where its first grid's windows pass their cap (at a delta below the
   aligned cells' least, many rounds of a rare record, the only tilted lower side).
Steps 2 to 7 are one read of the core per point and delta (pld/refine/default_epsilon.hpp, through
``tilted_question.default_epsilon``, the kept ``TiltedPointReader``'s, without the interpreter lock; the steps 4 to 7 in
last_epsilon_reads.hpp), given the fixed grid's bracket and, where no tail was given, the RDP
conversion's upper side.  The C library's ``hs_subsampled_gaussian_epsilon`` makes the same reads,
step 1 by the same rule (``question.fixed_grid_fits``, the core's pld/refine/fixed_grid.hpp), the
RDP conversion aside, so its bracket at its default accuracy is this one's to the round-off of its
FFT backend.

Each delta of an array is asked alone (``each_epsilon_bracket``): every step reads its batch as one
(the least delta sets the tails and the grids), so an element gets the scalar question's bracket.

Delta at epsilon: the fixed grid's bracket, its lower side raised to the max-of-outputs test's
and, where that leaves it wider than exact, its upper side lowered to the fine read's and, where
its grid is at most q, its lower side raised to the tilted read of the optimistic PMFs
(``fine_delta_brackets``: each eps read in its own bucket of tilt and tails, as asked alone); no
tail given, under rare participation, a bracket still wider than a share of the epsilon tolerance
read on finer grids, its lower side by the aligned cells (the core's pld/refine/rare_delta_grids.hpp:
the eps of one bucket sharing its compositions, each read as asked alone), the fine and rare reads
one call of the core (``tilted_question.fine_delta_brackets``, pld/refine/accuracy_delta.hpp's
``default_deltas``, the C library's delta call's).
Epsilon with ``accuracy=``: each refined bracket read by the core's accuracy read
(``accuracy_sides``, cpp/include/hockeystick/pld/refine/accuracy_epsilon.hpp, the C library's too):
finer than the default's tolerance, intersected with the default's (more accuracy is never looser; a
default bracket read for the same point and delta before is kept and not read again,
``kept_epsilon_brackets``) and where still wider than asked with the tilted reads on the accuracy's
grids; coarser, where wider than asked, step 3's reads, then the default's.  Delta with
``accuracy=``: at most the default's accuracy, the default's bracket first, answering each eps it
meets (``accuracy_delta_brackets``); each refined bracket read by the core's accuracy read
(``accuracy_delta_sides``, cpp/include/hockeystick/pld/refine/accuracy_delta.hpp, the C library's
too): the tilted reads where wider than asked, the default's bracket at an accuracy at most the
default's, then at every accuracy the fine read, no tail given rare participation's finer grids (at
the default's accuracy as the default reads them, at another where still wider than asked), and,
coarser than the default, the default's bracket where still wider than asked.  The reasons and
figures of each step are in ``refine.question``'s module docstring.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any, Literal, Protocol

import numpy as np

from ... import _core
from ...base.accountant import Quantity
from ..compose.fft import DEFAULT_MAX_POINTS
from ..grid.distribution import Bound
from ..mechanisms.constructors import DEFAULT_INTERVAL
from ..refine import constants, question
from ..refine.near_one import NearOne
from . import tilted_question
from .kept_readers import KeptValues

# an evaluation point: (sigma, sampling_rate, rounds, sensitivity)
Point = tuple[float, float, float, float]
Bracket = tuple[np.ndarray, np.ndarray]
# what the default's epsilon bracket is a function of (``question_of``): the point, the delta, the
# tail given (None: the question's), the fixed grid's interval, whether its transforms are shared
# along a run
Question = tuple[Point, float, "float | None", float, bool]

# The default's epsilon brackets kept for a later ``accuracy=`` question of the same point and delta
# (``accuracy_sides`` intersects its refined bracket with the default's): read again, the chain
# costs an accuracy question most of its CPU (sigma 0.6, q 1e-5, 10^5 rounds, delta 1e-10: 1.9 s of
# 2.8 s).  A bracket is a function of its ``Question`` alone, so a kept one is the one a new read
# gives, bit for bit; kept as read-only arrays; a bracket is two one-element arrays, so the table
# holds a few kilobytes at most.
KEPT_MOST = 256
_KEPT: KeptValues[Bracket] = KeptValues(KEPT_MOST)


class DefaultFront(Protocol):
    """What the chain needs of its front end: its tail (given or not), its near-one tables, its grid
    builder and its fixed grid's brackets (``SubsampledGaussianPLD``)."""

    tail: float
    accuracy: float | None
    relative_accuracy: float
    delta_accuracy: Literal["relative", "epsilon"]
    value_discretization_interval: float
    _tail_given: bool
    _near_one: NearOne
    _along_run: bool

    def _build(
        self,
        store: dict[Any, Any],
        points: list[Point],
        h: float,
        optimistic: bool = True,
        threads: int = 0,
        blocks: bool = False,
    ) -> None:
        """Discretizes and composes ``points`` at grid ``h`` into ``store``."""
        ...

    def _fixed_brackets(
        self,
        pts: list[Point],
        xs: list[np.ndarray],
        bound: Bound,
        method: Quantity,
        threads: int,
        keep: bool,
        add_uppers: list[np.ndarray | None] | None = None,
    ) -> tuple[list[Bracket], dict[Any, Any]]:
        """The brackets on the fixed grid, and the PLDs kept."""
        ...


def given_tail(front: DefaultFront) -> float | None:
    """The tail the caller gave ``front``, or None where the question chooses it."""
    return front.tail if front._tail_given else None


def question_of(front: DefaultFront, point: Point, delta: float) -> Question:
    """What the default's epsilon bracket of ``point`` at ``delta`` asked by ``front`` is a function
    of (the key of the brackets kept, ``kept_epsilon_brackets``): the point, the delta, the tail given (None: the question's), and the
    fixed grid's interval and transform sharing (``_fixed_brackets``).

    Parameters
    ----------
    front : DefaultFront
        The front end asking.
    point : (float, float, float, float)
        (sigma, q, rounds, sensitivity).
    delta : float
        The delta asked.

    Returns
    -------
    tuple
        The question's key.
    """
    return (
        point,
        float(delta),
        given_tail(front),
        float(front.value_discretization_interval),
        bool(front._along_run),
    )


def epsilon_brackets(
    front: DefaultFront,
    pts: list[Point],
    xs: list[np.ndarray],
    fixed: list[Bracket | None],
    adds: list[np.ndarray | None],
    threads: int,
    refused: ValueError | None = None,
) -> list[Bracket]:
    """The default's epsilon bracket of each point at its deltas: steps 2 to 6 of the module
    docstring over step 1's reads (``fixed_reads``).  Where the refinement stops at a window no
    memory holds, one ``AccuracyNotMetWarning``.  Given the fixed grid's ``refused`` (its window
    passed that memory), the chain's bracket where it stops nowhere and is within the default
    tolerance, else that refusal raised: no read within the memory allowed answers to the
    tolerance there (DP-SGD at noise 0.1 for 60 epochs at 1e-5 under a cap of 5e7 points: the chain
    reads [4152.6, 4259.3], and the refusal's advice, a coarser grid or a larger cap, answers).

    Parameters
    ----------
    front : DefaultFront
        The front end asking (its tail and builder).
    pts : list of (float, float, float, float)
        Points (sigma, q, rounds, sensitivity), 0 < q < 1.
    xs : list of numpy.ndarray
        Each point's deltas.
    fixed : list
        Each point's certified (lower, upper) on the fixed grid, None where it was not read.
    adds : list
        Each point's certified upper side of the add direction alone on the fixed grid, None where
        not read.
    threads : int
        OpenMP threads of the C++ calls (0: all).
    refused : ValueError or None, default None
        The fixed grid's refusal of the points' window (``fixed_reads``), None where it was read or
        not tried.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The certified (lower, upper) of each point.

    Raises
    ------
    ValueError
        ``refused``, where given and the chain stops at a window or leaves the bracket wider than
        the default tolerance.
    """
    from .window_heap import heap_windows

    todo = {
        i for i, b in enumerate(fixed) if b is None or not np.all(question.within_tolerance(*b))
    }
    plans = _plans(front, pts, xs, todo) if todo else {}
    out = []
    for i, (point, x, bracket) in enumerate(zip(pts, xs, fixed)):
        shape, deltas, sides = _asked(x, bracket, i in todo)
        given = adds[i]
        add = np.broadcast_to(np.inf if given is None else given, shape).reshape(-1)
        reader = tilted_question.TiltedReader(point, given_tail(front), threads)  # one per point
        lower, upper = np.empty(deltas.size), np.empty(deltas.size)
        for j, delta in enumerate(deltas.tolist()):
            with heap_windows():  # the reads' large windows keep their memory between compositions
                read = tilted_question.default_epsilon(
                    point, delta, reader, sides[j], float(add[j]), plans.get(i)
                )
            stopped = read.refined is not None and (read.refined[2] or read.refined[3])
            if refused is not None and (
                stopped or not question.within_tolerance(np.array(read.lower), np.array(read.upper))
            ):
                raise refused  # no read within the memory allowed answers to the tolerance
            if stopped:
                from ..refine.points import warn_gave_up

                warn_gave_up(1)  # a window no memory holds, or no finer grid that fits
            lower[j], upper[j] = read.lower, read.upper
        out.append((lower.reshape(shape), upper.reshape(shape)))
    return out


def _asked(
    x: np.ndarray, bracket: Bracket | None, refined: bool
) -> tuple[tuple[int, ...], np.ndarray, list[tuple[float, float] | None]]:
    """A point's question for ``epsilon_brackets``: the shape of its answer, its deltas and the
    fixed grid's bracket at each (None where not read).  A point refined asks one delta
    (``each_epsilon_bracket``); one the fixed grid answers within the tolerance, each delta at the
    bracket's shape."""
    if refined:
        shape: tuple[int, ...] = (
            (1,) if bracket is None else np.broadcast_shapes((1,), np.shape(bracket[0]))
        )
        deltas = np.asarray(x, dtype=np.float64).reshape(-1)[:1]
    else:
        assert bracket is not None  # a point not refined has the fixed grid's bracket
        shape = np.shape(bracket[0])
        deltas = np.broadcast_to(np.asarray(x, dtype=np.float64), shape).reshape(-1)
    if bracket is None:
        return shape, deltas, [None] * deltas.size
    lows, ups = (np.broadcast_to(side, shape).reshape(-1) for side in bracket)
    return shape, deltas, [(float(lo), float(up)) for lo, up in zip(lows, ups)]


def _plans(
    front: DefaultFront, pts: list[Point], xs: list[np.ndarray], todo: set[int]
) -> dict[int, Any]:
    """The plan of steps 2 and 3 of each point refined (``Refinement.default_plan``): the refinement
    to half the default tolerance at the least question tail of the points refined (or the tail
    given), the descent from the default tolerance's first grid, capped by the RDP conversion's
    upper side where no tail was given (``_rdp_cap``, asked by the core where it reads the descent)."""
    from ..refine.grid_start import StartGrid
    from ..refine.malloc_thresholds import raise_malloc_thresholds
    from ..refine.points import Refinement  # loaded on use: the fixed grid settles most questions

    raise_malloc_thresholds()  # a refinement's windows come from the heap the process holds
    tail = given_tail(front)
    refinement = Refinement(
        question.REFINED_ACCURACY,
        "relative",
        front.tail
        if tail is not None
        else question.tail_of([pts[i] for i in todo], [xs[i] for i in todo]),
        front._near_one,
        question.REFINED_RELATIVE_ACCURACY,
    )
    descent = StartGrid(question.DEFAULT_ACCURACY, "relative", question.DEFAULT_RELATIVE_ACCURACY)
    plans = {}
    for i in todo:
        delta = float(np.asarray(xs[i], dtype=np.float64).reshape(-1)[0])
        # asked by the core only where it reads the descent: most questions never need the conversion
        cap = None if tail is not None else functools.partial(_rdp_cap, pts[i], delta)
        start = descent.first(pts[i], np.array([delta]), "epsilon")
        plans[i] = refinement.default_plan(pts[i], delta, start, cap)
    return plans


def _rdp_cap(point: Point, delta: float) -> float:
    """The RDP conversion's certified upper epsilon of ``point`` at ``delta`` (``question.rdp_upper``):
    the cap on the tilted descent's upper side where no tail was given."""
    return float(question.rdp_upper(point, np.array([delta]))[0])


def _default_bracket(
    front: DefaultFront, point: Point, delta: float, threads: int
) -> tuple[float, float]:
    """The default's certified epsilon bracket of ``point`` at ``delta`` (``kept_epsilon_brackets``,
    [0, inf] where its read refuses, ``_or_trivial``): what an ``accuracy=`` read intersects with."""
    ((lower, upper),) = _or_trivial(
        lambda points, deltas: kept_epsilon_brackets(front, points, deltas, threads),
        [point],
        [np.array([delta])],
        np.inf,
    )
    return float(lower[0]), float(upper[0])


def fixed_reads(
    front: DefaultFront, pts: list[Point], xs: list[np.ndarray], threads: int, keep: bool
) -> tuple[list[Bracket | None], list[np.ndarray | None], dict[Any, Any], list[ValueError | None]]:
    """Step 1 of the module docstring: each point's bracket on the fixed grid where the grid fits
    its question (``question.fixed_grid_fits``), and that grid's upper side of the add direction
    alone (the fine read need not screen that direction where it is below the remove direction's:
    the fine epsilon read's add_upper, pld/refine/fine_epsilon.hpp).  Each point's rounds are read on their own
    (``fixed_grid.fixed_sides``), so a point's reads are those it gets asked alone, bit for bit,
    unless the fixed grid's transforms are shared along a run (then a composition depends on its
    batch).  A point whose window on the fixed grid passes the memory allowed is not read there: the
    rest of the chain reads it, as the C library's epsilon call does (sigma 0.02, q 0.5, 10 rounds
    at 1e-5 needs 1.4e8 points on 1e-4), and the grid's refusal is returned beside it, raised where
    the chain's windows pass that memory too (``epsilon_brackets``), its advice (a coarser grid, a
    larger ``max_points``) then the way to an answer.

    Parameters
    ----------
    front : DefaultFront
        The front end asking (its tail and fixed grid).
    pts : list of (float, float, float, float)
        Points (sigma, q, rounds, sensitivity), 0 < q < 1.
    xs : list of numpy.ndarray
        Each point's deltas.
    threads : int
        OpenMP threads of the C++ calls (0: all).
    keep : bool
        Whether the fixed grid's composed PLDs are returned.

    Returns
    -------
    tuple
        Each point's certified (lower, upper) on the fixed grid (None where the grid does not fit
        or its window was refused), its add direction's upper side there (None where not read),
        the PLDs kept (empty unless ``keep``), and each point's refusal on the fixed grid (None
        where it was read or not tried).

    Raises
    ------
    ValueError
        As the fixed grid's composition refuses a point for another reason than its window's size.
    """
    found: list[Bracket | None] = [None] * len(pts)
    adds: list[np.ndarray | None] = [None] * len(pts)
    refused: list[ValueError | None] = [None] * len(pts)
    tried = [
        i for i, (p, x) in enumerate(zip(pts, xs)) if question.fixed_grid_fits(p, x, front.tail)
    ]
    store: dict[Any, Any] = {}

    def read(points: list[int]) -> None:
        tried_adds: list[np.ndarray | None] = []
        fixed, kept = front._fixed_brackets(
            [pts[i] for i in points],
            [xs[i] for i in points],
            "both",
            "epsilon",
            threads,
            keep,
            tried_adds,
        )
        store.update(kept)
        for i, bracket, add in zip(points, fixed, tried_adds):
            found[i], adds[i] = bracket, add

    try:
        if tried:
            read(tried)
    except ValueError as error:
        from ..refine.points import window_refused  # loaded by a refusal alone

        if not window_refused(error):
            raise
        for i in tried:  # each point alone: the others keep their fixed grid
            try:
                read([i])
            except ValueError as alone:
                if not window_refused(alone):
                    raise
                refused[i] = alone
    return found, adds, store, refused


def each_epsilon_bracket(
    front: DefaultFront, pts: list[Point], xs: list[np.ndarray], threads: int, keep: bool
) -> tuple[list[Bracket], dict[Any, Any]]:
    """The default's epsilon bracket of each point at each of its distinct deltas asked alone
    (``by_value``), so that an element of an array gets the bracket the scalar question gets, bit
    for bit: the points asking one delta read the fixed grid in one call (``fixed_reads``: each
    point's reads its own, unless the grid's transforms are shared along a run, when each point is
    read on its own), then the rest of the chain point by point (``epsilon_brackets``: each of its
    steps reads its batch as one, the least delta setting the tails and the refinement's grids, the
    widest bracket the reads taken).
    Each bracket read is kept (read-only) for a later ``accuracy=`` question of the same
    point and delta (``kept_epsilon_brackets``).

    Parameters
    ----------
    front, pts, xs, threads, keep
        As ``fixed_reads``': the front end, its points, each point's deltas, the OpenMP threads
        and whether the fixed grid's PLDs are returned.

    Returns
    -------
    tuple
        The certified (lower, upper) of each point, shaped as its deltas, and the PLDs kept (empty
        unless ``keep``).
    """
    store: dict[Any, Any] = {}

    def read(points: list[Point], deltas: list[np.ndarray]) -> list[Bracket]:
        fixed, adds, kept, refused = fixed_reads(front, points, deltas, threads, keep)
        store.update(kept)
        found = []
        for i, (point, delta) in enumerate(zip(points, deltas)):
            (bracket,) = epsilon_brackets(
                front, [point], [delta], [fixed[i]], [adds[i]], threads, refused[i]
            )
            lower, upper = (np.array(side, dtype=np.float64) for side in bracket)
            lower.setflags(write=False)
            upper.setflags(write=False)
            _KEPT.keep(question_of(front, point, float(delta[0])), (lower, upper))
            found.append(bracket)
        return found

    return by_value(pts, xs, read, together=not front._along_run), store


def kept_epsilon_brackets(
    front: DefaultFront, pts: list[Point], xs: list[np.ndarray], threads: int
) -> list[Bracket]:
    """``each_epsilon_bracket``'s brackets (no PLDs kept), each point at each delta the one kept
    for its question where an earlier call read it (``each_epsilon_bracket`` keeps the last
    ``KEPT_MOST``: the same doubles), else read.

    Parameters
    ----------
    front, pts, xs, threads
        As ``each_epsilon_bracket``'s: the front end, its points, each point's deltas and the
        OpenMP threads.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The certified (lower, upper) of each point, shaped as its deltas.
    """

    def read(points: list[Point], deltas: list[np.ndarray]) -> list[Bracket]:
        found = _KEPT.kept(question_of(front, points[0], float(deltas[0][0])))
        if found is None:
            return each_epsilon_bracket(front, points, deltas, threads, False)[0]
        return [found]

    return by_value(pts, xs, read, together=False)


def forget_kept() -> None:
    """Forgets every default bracket kept (``kept_epsilon_brackets``): a test that changes a read of
    the chain, a benchmark timing a cold question.

    Returns
    -------
    None

    Raises
    ------
    None
    """
    _KEPT.clear()


def by_value(
    pts: list[Point],
    xs: list[np.ndarray],
    read: Callable[[list[Point], list[np.ndarray]], list[Bracket]],
    together: bool = True,
) -> list[Bracket]:
    """The brackets ``read`` gives each point at its arguments ``xs``, asked one distinct argument
    at a time, each point at that argument alone, so that an element of an array gets the bracket
    of its value asked alone: the points asking one argument in one call where ``together`` (a read
    whose points do not meet, each read on grids of its own: the refinement to an accuracy), else
    one call per point and argument (a read whose batch shares its tails and grids: the default's
    chain, ``epsilon_brackets``).

    Parameters
    ----------
    pts : list of (float, float, float, float)
        Points (sigma, q, rounds, sensitivity).
    xs : list of numpy.ndarray
        Each point's arguments.
    read : callable
        ``read(points, arguments)``: the certified (lower, upper) of each of ``points`` at its
        arguments.
    together : bool, default True
        Whether the points asking one argument are read in one call.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        Each point's certified (lower, upper), shaped as its arguments.
    """
    out = [(np.empty(np.shape(x)), np.empty(np.shape(x))) for x in xs]
    flat = [np.asarray(x, dtype=np.float64).reshape(-1) for x in xs]
    # the distinct values in increasing order (a sorted set: numpy's unique imports numpy.ma, which a
    # first answer need not load)
    for value in sorted({v for x in flat for v in x.tolist()}):
        asking = [i for i, x in enumerate(flat) if np.any(x == value)]
        calls = [asking] if together else [[i] for i in asking]
        for call in calls:
            found = read([pts[i] for i in call], [np.array([value]) for _ in call])
            for i, (lo, up) in zip(call, found):
                at = (flat[i] == value).reshape(np.shape(xs[i]))
                out[i][0][at], out[i][1][at] = lo[0], up[0]
    return out


def delta_brackets(
    front: DefaultFront,
    pts: list[Point],
    xs: list[np.ndarray],
    found: list[Bracket],
    with_lower: bool,
    threads: int,
) -> list[Bracket]:
    """The default's delta bracket of each point at its epsilons: the fixed grid's ``found``
    intersected with the fine read's and, no tail given, under rare participation, with the finer
    grids' (``tilted_question.fine_delta_brackets``: one call of the core's ``default_deltas``,
    pld/refine/accuracy_delta.hpp, which the C library's delta call reads too; certified, at the
    tail given if one was).

    Parameters
    ----------
    front : DefaultFront
        The front end asking (its tail).
    pts : list of (float, float, float, float)
        Points (sigma, q, rounds, sensitivity).
    xs : list of numpy.ndarray
        Each point's epsilons.
    found : list of (numpy.ndarray, numpy.ndarray)
        The fixed grid's certified brackets there.
    with_lower : bool
        Whether ``found`` holds a lower side and the lower side is asked; without one, no bracket
        is known exact and each is read, its lower side by the max-of-outputs test alone.
    threads : int
        OpenMP threads (0: all).

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The certified (lower, upper) of each point.
    """
    tail = given_tail(front)
    return [
        tilted_question.fine_delta_brackets(
            p,
            x,
            lo if with_lower else np.zeros_like(up),
            up,
            tail,
            threads,
            with_lower,
            rare=tail is None,
        )
        for p, x, (lo, up) in zip(pts, xs, found)
    ]


def accuracy_delta_sides(
    front: DefaultFront,
    pts: list[Point],
    xs: list[np.ndarray],
    refined: list[Bracket],
    bound: Bound,
    threads: int,
    defaults: list[Bracket] | None = None,
) -> list[Bracket]:
    """The delta brackets of ``front`` refined to its ``accuracy``, each read by the core's accuracy
    read (cpp/include/hockeystick/pld/refine/accuracy_delta.hpp, bound as
    ``_core.pld_refine.accuracy_delta``; the C library's ``hs_subsampled_gaussian_delta`` reads it
    too), each intersection certified.

    Where a refined bracket is wider than the relative ``accuracy`` asked (``delta_accuracy=
    "relative"``), the tilted reads on that accuracy's grids (the plain composition's round-off and
    tail cut hold its upper side); where ``accuracy`` is at most ``question.DEFAULT_ACCURACY``, the
    default's delta bracket of the same point at the same epsilons intersected in
    (``default_delta_brackets``, read once a point, where first asked), so that more accuracy is
    never looser; then, under ``delta_accuracy="relative"``, the default's fine delta read of a
    bracket not exact with a positive upper side, at every accuracy (``delta_accuracy="epsilon"``
    met epsilon's width, which does not depend on the scale of delta): below ``DELTA_FLOOR`` the
    relative criterion is met by a width of ``accuracy`` times that floor, which can lie far above
    the truth (the README's DP-SGD run at eps 5 refined to 1e-3: [0, 7.05e-12], read [6.4925e-17,
    6.4973e-17]); no tail given, rare participation's finer grids, at the default's accuracy as the
    default reads them, at another where still wider than asked (at 1e-3 rare participation's
    refinement met eps 3 at 3.8384e-15, the default's upper side 3.8330e-15); and, at an accuracy
    coarser than the default's, the default's bracket where still wider than asked.  The reads are at
    the tail given, else at the tails each read's level allows; the default's read that refuses (its
    grid needs more loss cells or a larger window than allowed) gives the trivial bracket [0, 1]
    (``_or_trivial``).

    Parameters
    ----------
    front : DefaultFront
        The front end asking, its ``accuracy`` set.
    pts : list of (float, float, float, float)
        Points (sigma, q, rounds, sensitivity), 0 < q < 1.
    xs : list of numpy.ndarray
        Each point's epsilons.
    refined : list of (numpy.ndarray, numpy.ndarray)
        Each point's certified bracket refined to ``accuracy``.
    bound : {"upper", "lower", "both"}
        The sides asked.
    threads : int
        OpenMP threads (0: all).
    defaults : list of (numpy.ndarray, numpy.ndarray), optional
        The default's certified bracket of each point at its epsilons (flat), where already read
        (``accuracy_delta_brackets``); else read where the core's read first asks one.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The certified (lower, upper) of each point, never wider than ``refined``.

    Raises
    ------
    ValueError
        As the core's read refuses a point or a bracket (a NaN side).
    """
    from .window_heap import heap_windows  # as epsilon_brackets: loaded by a refined read

    accuracy = float(front.accuracy) if front.accuracy is not None else question.DEFAULT_ACCURACY
    tail = given_tail(front)
    out = []
    for k, (point, x, (lo, up)) in enumerate(zip(pts, xs, refined)):
        shape = np.shape(lo)
        at = np.broadcast_to(np.asarray(x, dtype=np.float64), shape).reshape(-1)
        default = _DefaultDeltas(
            front, point, at, bound, threads, None if defaults is None else defaults[k]
        )
        with heap_windows():  # the reads' large windows keep their memory between compositions
            lower, upper = _core.pld_refine.accuracy_delta(
                **tilted_question.core_point(point, threads),
                eps=np.ascontiguousarray(at),
                lower=np.asarray(lo, dtype=np.float64).reshape(-1),
                upper=np.asarray(up, dtype=np.float64).reshape(-1),
                accuracy=accuracy,
                default_accuracy=question.DEFAULT_ACCURACY,
                delta_floor=constants.DELTA_FLOOR,
                by_width=front.delta_accuracy == "relative",
                rare=tail is None,
                read_lower=delta_sides_asked(bound) == "both",
                default_bracket=default.at,
                split_max_points=DEFAULT_MAX_POINTS,
                tail=0.0 if tail is None else tail,
            )
        out.append((np.reshape(lower, shape), np.reshape(upper, shape)))
    return out


def accuracy_delta_brackets(
    front: DefaultFront,
    pts: list[Point],
    xs: list[np.ndarray],
    refine: Callable[[list[Point], list[np.ndarray]], list[Bracket]],
    bound: Bound,
    threads: int,
) -> list[Bracket]:
    """The delta brackets of ``front`` to its ``accuracy``.  An accuracy at most the default's
    (``question.DEFAULT_ACCURACY``) under ``delta_accuracy="relative"`` reads the default's bracket
    of each point at its epsilons first (``default_delta_brackets``, both sides; [0, 1] where it
    refuses): an epsilon whose default bracket is within the accuracy relative to its own upper side
    (``delta_within``) is answered by it, the others are refined (``refine``) and read by
    ``accuracy_delta_sides``, intersected with it.  So such an accuracy is never looser than the
    default, and costs the default's reads where they meet it: the refinement's grids, with the fine
    read after them, cost more (sigma 0.8, q 1e-5, 5000 rounds at six eps from 0.2 to 8: 5.3 CPU s at
    1e-3 against the default's 1.4, its upper side up to 0.65 % above the default's).  The width is
    read against the upper side itself, not ``DELTA_FLOOR`` as the refinement reads it: below the
    floor the default's bracket can be far wider than the refinement's reads leave it (the same run
    at eps 8: [1.76e-53, 7.9e-47] against [1.7557e-53, 1.7562e-53]).  A coarser accuracy, or
    ``delta_accuracy="epsilon"``, refines every epsilon on its own grids (``accuracy_delta_sides``).

    Parameters
    ----------
    front : DefaultFront
        The front end asking, its ``accuracy`` set.
    pts : list of (float, float, float, float)
        Points (sigma, q, rounds, sensitivity), 0 < q < 1.
    xs : list of numpy.ndarray
        Each point's epsilons.
    refine : callable
        ``refine(points, epsilons)``: each point's certified bracket refined to ``accuracy`` at its
        epsilons (``refine.points.Refinement.refined``).
    bound : {"upper", "lower", "both"}
        The sides asked.
    threads : int
        OpenMP threads (0: all).

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The certified (lower, upper) of each point, in the shape of its epsilons.

    Raises
    ------
    ValueError
        As the refinement or the core's accuracy read refuses a point or a bracket.
    """
    accuracy = float(front.accuracy) if front.accuracy is not None else question.DEFAULT_ACCURACY
    if accuracy > question.DEFAULT_ACCURACY or front.delta_accuracy != "relative":
        return accuracy_delta_sides(front, pts, xs, refine(pts, xs), bound, threads)
    flats = [np.asarray(x, dtype=np.float64).reshape(-1) for x in xs]
    defaults = _or_trivial(
        lambda points, eps: default_delta_brackets(front, points, eps, "both", threads),
        pts,
        flats,
        1.0,
    )
    unmet = [~delta_within(lo, up, accuracy) for lo, up in defaults]
    todo = [k for k in range(len(pts)) if unmet[k].any()]
    points, asked = [pts[k] for k in todo], [flats[k][unmet[k]] for k in todo]
    read = accuracy_delta_sides(
        front,
        points,
        asked,
        refine(points, asked) if todo else [],
        bound,
        threads,
        [(defaults[k][0][unmet[k]], defaults[k][1][unmet[k]]) for k in todo],
    )
    refined = dict(zip(todo, read))
    return [
        _with_refined(defaults[k], unmet[k], refined.get(k), np.shape(x)) for k, x in enumerate(xs)
    ]


def _with_refined(
    default: Bracket, unmet: np.ndarray, refined: Bracket | None, shape: tuple[int, ...]
) -> Bracket:
    """The default's flat bracket with the elements ``unmet`` replaced by ``refined`` (none: all
    met), in ``shape``."""
    lower, upper = (np.array(side, dtype=np.float64) for side in default)
    if refined is not None:
        lower[unmet], upper[unmet] = refined
    return lower.reshape(shape), upper.reshape(shape)


def delta_within(lower: np.ndarray, upper: np.ndarray, accuracy: float) -> np.ndarray:
    """Where the delta bracket [lower, upper] is within the relative ``accuracy`` of its upper side
    (a bracket [0, 0] is).

    Parameters
    ----------
    lower, upper : numpy.ndarray
        Certified sides of delta brackets.
    accuracy : float
        The relative width asked, > 0.

    Returns
    -------
    numpy.ndarray of bool
        Whether each bracket is within ``accuracy``.

    Raises
    ------
    None
    """
    lower, upper = np.asarray(lower), np.asarray(upper)
    return np.asarray((upper - lower) <= accuracy * upper)


class _DefaultDeltas:
    """The default's delta brackets of one point at its epsilons ``at`` (``default_delta_brackets``,
    [0, 1] where it refuses: ``_or_trivial``), read together where the core's accuracy read first
    asks one of them (each epsilon's bracket is the one it gets asked alone), then kept for the
    others; ``found``: the brackets already read (``accuracy_delta_brackets``)."""

    def __init__(
        self,
        front: DefaultFront,
        point: Point,
        at: np.ndarray,
        bound: Bound,
        threads: int,
        found: Bracket | None = None,
    ) -> None:
        self.read = functools.partial(
            _or_trivial,
            lambda points, eps: default_delta_brackets(front, points, eps, bound, threads),
            [point],
            [np.array(at)],
            1.0,
        )
        self.found = found

    def at(self, j: int) -> tuple[float, float]:
        """The default's certified (lower, upper) at the epsilon of index ``j``."""
        if self.found is None:
            (self.found,) = self.read()
        return float(self.found[0][j]), float(self.found[1][j])


def default_delta_brackets(
    front: DefaultFront, pts: list[Point], xs: list[np.ndarray], bound: Bound, threads: int
) -> list[Bracket]:
    """The default's delta bracket of each point at its epsilons, on the sides ``bound`` asks for:
    the fixed grid ``DEFAULT_INTERVAL``'s intersected with the fine reads' (``delta_brackets``; a
    lower side asked alone is the whole bracket's).  Each epsilon's bracket is the one it gets
    asked alone (the fixed grid's composition does not depend on the epsilons; the fine read takes
    each in its own bucket).

    Parameters
    ----------
    front : DefaultFront
        A front end whose fixed grid is ``DEFAULT_INTERVAL`` (given no grid).
    pts : list of (float, float, float, float)
        Points (sigma, q, rounds, sensitivity), 0 < q < 1.
    xs : list of numpy.ndarray
        Each point's epsilons.
    bound : {"upper", "lower", "both"}
        The sides asked.
    threads : int
        OpenMP threads (0: all).

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The certified (lower, upper) of each point (the sides ``bound`` asks for).

    Raises
    ------
    ValueError
        Where a composed window passes the memory allowed (``compose.fft.DEFAULT_MAX_POINTS``).
    """
    asked = delta_sides_asked(bound)
    found, _ = front._fixed_brackets(pts, xs, asked, "delta", threads, False)
    return delta_brackets(front, pts, xs, found, asked == "both", threads)


def delta_sides_asked(bound: Bound) -> Bound:
    """The sides a delta question reads for ``bound``: a lower side asked alone is read as both,
    since the default's reads raise the lower side too and a grid's reads are chosen by its upper
    side, so the lower side of the whole bracket is the one asked; other bounds as given."""
    return "both" if bound == "lower" else bound


def intersected(given: Bracket, read: Bracket, bound: Bound) -> Bracket:
    """The intersection of two certified brackets of one question on the sides ``bound`` asks for
    (the other side kept as ``given`` has it); with both, the upper side never below the lower.

    Parameters
    ----------
    given, read : (numpy.ndarray, numpy.ndarray)
        Two certified (lower, upper) at the same arguments.
    bound : {"upper", "lower", "both"}
        The sides asked.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The certified (lower, upper), never wider than either.
    """
    (lo, up), (r_lo, r_up) = given, read
    lower = np.maximum(lo, r_lo) if bound != "upper" else lo
    upper = np.minimum(up, r_up) if bound != "lower" else up
    return lower, np.maximum(lower, upper) if bound == "both" else upper


def grid_sides(
    front: DefaultFront,
    pts: list[Point],
    xs: list[np.ndarray],
    found: list[Bracket],
    bound: Bound,
    method: Quantity,
    threads: int,
) -> list[Bracket]:
    """The brackets of ``front``, given a grid h, intersected with the default's where that grid's
    plain composition cannot answer (``question.plain_grid_misses`` at the delta asked of epsilon,
    at the grid's upper side of delta), each intersection certified.

    A caller's grid answers as the composition on it reads (dp_accounting's numbers, certified), but
    where its round-off, its tails or a rate below a cell make that composition wide or unbounded
    whatever the grid (the README's DP-SGD run on dp_accounting's 1e-4 grid: epsilon at 1e-10 in
    [3.561, 4.941], at 1e-12 in [3.58, inf], the default's [3.7404, 3.7410] and [4.1799, 4.1802];
    sigma 0.6, q 1e-5, 10^6 rounds at 1e-5: [0, 0.158] against [0.1298, 0.1302]), the bracket is
    intersected with the default's (epsilon:
    ``kept_epsilon_brackets``; delta: ``default_delta_brackets``), so a grid given is never looser
    there than the front door, which the PLD objects and the ``PLDAccountant`` on any grid read
    through the question reader too.  Each element is decided and read on its own, as asked alone;
    where the default's reads need more memory than allowed (its ValueError), the grid's bracket
    stands, certified on its own.

    Parameters
    ----------
    front : DefaultFront
        The front end given a grid (``value_discretization_interval``) and no accuracy; the
        default's reads are its own on ``DEFAULT_INTERVAL`` (``_as_default``).
    pts : list of (float, float, float, float)
        Points (sigma, q, rounds, sensitivity), 0 < q < 1.
    xs : list of numpy.ndarray
        Each point's arguments (deltas of epsilon, epsilons of delta), one-dimensional.
    found : list of (numpy.ndarray, numpy.ndarray)
        Each point's certified bracket on the grid (the sides ``bound`` asks for).
    bound : {"upper", "lower", "both"}
        The sides asked.
    method : {"epsilon", "delta"}
        What is asked.
    threads : int
        OpenMP threads (0: all).

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The certified (lower, upper) of each point, never wider than ``found``.
    """
    out = list(found)
    h, tail, default = front.value_discretization_interval, front.tail, _as_default(front)
    for i, (point, x, (lo, up)) in enumerate(zip(pts, xs, found)):
        scale = x if method == "epsilon" else up
        # an upper delta of 0 is exact: nothing to read
        miss = question.plain_grid_misses(point[1], point[2], scale, tail, h) & (scale > 0.0)
        if not miss.any():
            continue
        try:
            ((d_lo, d_up),) = (
                kept_epsilon_brackets(default, [point], [x[miss]], threads)
                if method == "epsilon"
                else default_delta_brackets(default, [point], [x[miss]], bound, threads)
            )
        except ValueError:  # the default's windows pass the memory allowed
            continue
        lower, upper = np.array(lo, dtype=np.float64), np.array(up, dtype=np.float64)
        lower[miss], upper[miss] = intersected((lower[miss], upper[miss]), (d_lo, d_up), bound)
        out[i] = (lower, upper)
    return out


def _or_trivial(
    read: Callable[[list[Point], list[np.ndarray]], list[Bracket]],
    pts: list[Point],
    xs: list[np.ndarray],
    ceiling: float,
) -> list[Bracket]:
    """The default's brackets ``read`` gives the points at their arguments; where that read refuses
    (its ValueError: the default's grid needs more loss cells or a larger window than allowed, sigma
    1e-3 on the 1e-4 grid), each point at each argument asked alone (``by_value``), the trivial
    certified bracket [0, ``ceiling``] (epsilon: inf; delta: 1) where that refuses too, so that an
    ``accuracy=`` the default cannot read keeps the refinement's own bracket rather than refusing
    it.  A read that answers is the same call as without this guard, bit for bit."""

    def guarded(points: list[Point], arguments: list[np.ndarray]) -> list[Bracket]:
        try:
            return read(points, arguments)
        except ValueError:
            return [(np.zeros(np.shape(x)), np.full(np.shape(x), ceiling)) for x in arguments]

    try:
        return read(pts, xs)
    except ValueError:
        return by_value(pts, xs, guarded, together=False)


def _as_default(front: DefaultFront) -> DefaultFront:
    """``front`` (given a grid) as the front end given none: its fixed grid ``DEFAULT_INTERVAL``,
    its tail (the one given, or ``DEFAULT_TAIL`` where the question chooses it) and tables; its
    PLDs are keyed by their grid, so neither's are read as the other's."""
    default = copy.copy(front)
    default.value_discretization_interval = DEFAULT_INTERVAL
    return default


def accuracy_sides(
    front: DefaultFront,
    pts: list[Point],
    xs: list[np.ndarray],
    refined: list[Bracket],
    threads: int,
) -> list[Bracket]:
    """The epsilon brackets of ``front`` refined to its ``accuracy``, each read by the core's
    accuracy read (cpp/include/hockeystick/pld/refine/accuracy_epsilon.hpp, bound as
    ``_core.pld_refine.accuracy_epsilon``; the C library's ``hs_subsampled_gaussian_epsilon`` reads
    it too), each intersection certified.

    Where the tolerance asked (max(``accuracy``, ``relative_accuracy`` eps)) is finer than the
    default's (``accuracy`` below ``question.DEFAULT_ACCURACY``, ``relative_accuracy`` at most
    ``question.DEFAULT_RELATIVE_ACCURACY``; or below the default's tolerance at the refined
    bracket's upper side: ``accuracy`` 1e-3 above eps 4), each refined bracket is intersected with
    the default's
    (``kept_epsilon_brackets``, each point and delta asked alone, a default read before for the same
    question not read again: more accuracy is never looser), and one still wider than asked with the
    tilted descent on that tolerance's grids, from its first grid (``StartGrid.first``): the
    default's tilted reads stop at the default's tolerance, and the plain refinement's upper side is
    held by the round-off charge at a small delta (the README's DP-SGD run at delta 1e-10: about
    3.7413 on its grids 5.9e-5 and 1.4e-5, where the default's is 3.74104), so a finer accuracy is
    met there by these reads alone.  Otherwise, where a refined bracket is unbounded or wider than
    the tolerance asked (the plain composition's charges past delta), step 3's reads: the descent on
    the default tolerance's grids where wider than it, its upper side then lowered to the RDP
    conversion's (``question.rdp_upper``) where no tail was given; and where still wider than asked,
    the default's (each point and delta alone too): a coarser accuracy reads no less than the
    default where its own reads miss what it asks (rare participation at a small delta, whose tight
    sides come from the default's last reads).  The tilted reads are at the tail given, else at the
    question's tails; the default's read that refuses (its grid needs more loss cells or a larger
    window than allowed) gives the trivial bracket [0, inf] (``_or_trivial``).

    Parameters
    ----------
    front : DefaultFront
        The front end asking, its ``accuracy`` set.
    pts : list of (float, float, float, float)
        Points (sigma, q, rounds, sensitivity), 0 < q < 1.
    xs : list of numpy.ndarray
        Each point's deltas.
    refined : list of (numpy.ndarray, numpy.ndarray)
        Each point's certified bracket refined to ``accuracy``.
    threads : int
        OpenMP threads (0: all).

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The certified (lower, upper) of each point, never wider than ``refined``.

    Raises
    ------
    ValueError
        As the core's read refuses a point or a bracket (a NaN side).
    """
    from ..refine.grid_start import StartGrid  # as _plans: loaded by a refined read alone

    accuracy = float(front.accuracy) if front.accuracy is not None else question.DEFAULT_ACCURACY
    tail = given_tail(front)
    asked = StartGrid(accuracy, "relative", front.relative_accuracy)
    default = StartGrid(question.DEFAULT_ACCURACY, "relative", question.DEFAULT_RELATIVE_ACCURACY)
    out = []
    for point, x, (lo, up) in zip(pts, xs, refined):
        lower, upper = np.array(lo, dtype=np.float64), np.array(up, dtype=np.float64)
        at = np.broadcast_to(np.asarray(x, dtype=np.float64), lower.shape)
        for j in np.ndindex(lower.shape):
            delta = float(at[j])
            lower[j], upper[j] = _core.pld_refine.accuracy_epsilon(
                **tilted_question.core_point(point, threads),
                delta=delta,
                lower=float(lower[j]),
                upper=float(upper[j]),
                accuracy=accuracy,
                relative_accuracy=front.relative_accuracy,
                start=asked.first(point, np.array([delta]), "epsilon"),
                default_start=default.first(point, np.array([delta]), "epsilon"),
                cap=None if tail is not None else functools.partial(_rdp_cap, point, delta),
                default_bracket=functools.partial(_default_bracket, front, point, delta, threads),
                tail=0.0 if tail is None else tail,
            )
        out.append((lower, upper))
    return out
