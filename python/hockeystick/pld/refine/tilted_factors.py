"""The epsilon bracket of a composition of several Poisson-subsampled Gaussian factors (each its own
sigma, sampling rate, sensitivity and rounds) at a delta below the composition's round-off: read
under an exponential tilt.

As for one factor (``refine.tilted_question``), the FFT composition's round-off charge, about T u of
the total mass after T rounds, keeps a bracket at a delta near or below it wide on every grid; the
tilted composition (``compose.tilted``) composes the factors under one tilt theta with the
normalizer prod_i M_i^{c_i} and carries the charge relative to the Chernoff bound at theta.  Per
neighbouring direction (every factor's remove pair, or every factor's add pair: the neighbouring
relation holds for the whole run), the pessimistic PMFs are composed under the tilt lam_u minimizing
the Chernoff epsilon (K(lam) + log(E / delta)) / lam, now with K(lam) = sum_i c_i K_i(lam) the sum
of the factors' log-moments and E = ``ROUND_OFF_PER_ROUND`` T, T = sum_i c_i, and again under the
tilt maximizing lam eps - K(lam) at the best upper epsilon so far (where E is below delta the first
tilt runs to the least lam, as ``refine.tilted_question`` says); the optimistic PMFs under the
latter tilt at the upper epsilon found.  The bracket is the maximum over the directions on each
side, on grids from the default tolerance's first grid for the factor with the most rounds at T
rounds (``StartGrid.first``) down by ``GRID_STEP`` while the upper side still falls by a quarter of
the tolerance, at most ``GRIDS`` grids; every bracket found is certified and the answer is their
intersection with the one given.  Each factor is discretized with the question tail of the whole run
(``question.question_tail`` at T rounds: its T cuts together at most ``question.TILTED_TAIL_SHARE``
delta).  Last, a bracket not yet exact (``question.exact``) is intersected with the tilted bracket
on ``question.FINE_INTERVAL``, half the peers' default grid (``refine.question``;
``screened_bracket``: the add direction composed there only where a cheaper bound does not put it
below).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..compose import tilted
from ..compose.log_moments import log_mgf_at
from ..grid.distribution import Factor
from ..grid.pmf import GridPMF
from ..mechanisms.constructors import DEFAULT_INTERVAL, MAX_INTERVAL
from ..reads.max_of_outputs import max_of_outputs_epsilon
from . import question
from .directional_delta import Direction
from .dominated_direction import COARSENING
from .each_bracket import each_bracket
from .grid_start import StartGrid
from .tilt_search import best_tilt
from .tilted_question import (
    GRID_STEP,
    GRIDS,
    MAX_POINTS,
    REFUSED_RATIO,
    ROUND_OFF_PER_ROUND,
    SPLIT_SAMPLED_ROUNDS,
    WINDOW_TAIL,
    add_pure_epsilon,
    one_direction,
    split_bracket,
)

# one factor of the run: (sigma, sampling rate, sensitivity) and its rounds
Segment = tuple[tuple[float, float, float], int]


def total_rounds(segments: Sequence[Segment]) -> int:
    """T = sum_i c_i."""
    return sum(int(c) for _, c in segments)


def summed_log_mgf(terms: Sequence[tuple[GridPMF, int]], lams: np.ndarray) -> np.ndarray:
    """K(lam) = sum_i c_i log sum_k p_ik e^{lam l_k} at each lam of ``lams``."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(
            np.sum([count * log_mgf_at(pmf, lams) for pmf, count in terms], axis=0),
            dtype=np.float64,
        )


def chernoff_tilt(terms: Sequence[tuple[GridPMF, int]], delta: float) -> float:
    """The lam minimizing (K(lam) + log(E / delta)) / lam, K the summed log-moment (``best_tilt``)."""
    log_ratio = math.log(ROUND_OFF_PER_ROUND * sum(c for _, c in terms) / delta)
    return best_tilt(lambda lam: -(summed_log_mgf(terms, lam) + log_ratio) / lam)


def exponent_tilt(terms: Sequence[tuple[GridPMF, int]], eps: float) -> float:
    """The lam maximizing lam eps - K(lam), K the summed log-moment (``best_tilt``)."""
    return best_tilt(lambda lam: lam * eps - summed_log_mgf(terms, lam))


def _upper_side(
    ups: Sequence[tuple[GridPMF, int]],
    lam: float,
    h: float,
    delta: float,
    upper: float,
    cut: list[int] | None = None,
) -> float:
    """The certified upper epsilon at ``delta`` of the pessimistic PMFs ``ups`` composed under the
    tilt ``lam``, searched from ``upper`` or the window's top; the points of its window appended to
    ``cut`` where given and the window was cut at ``WINDOW_TAIL`` (its uncut one past the cap)."""
    up_side = tilted.compose_tilted(
        ups, lam * h, pessimistic=True, max_points=MAX_POINTS, window_tail=WINDOW_TAIL
    )
    if cut is not None and up_side.above is not None:
        cut.append(int(up_side.window.p.size))
    return tilted.upper_epsilon(up_side, delta, min(upper, up_side.top))


def pessimistic_terms(
    segments: Sequence[Segment], direction: Direction, h: float, tail: float, optimistic: bool
) -> list[tuple[Factor, int]]:
    """Each factor of one direction discretized on grid ``h`` (with its optimistic side where
    ``optimistic``) and its rounds."""
    return [
        (one_direction(mechanism, direction, h, tail, optimistic), int(count))
        for mechanism, count in segments
    ]


def direction_bracket(
    segments: Sequence[Segment],
    direction: Direction,
    h: float,
    tail: float,
    delta: float,
    upper: float,
    cut: list[int] | None = None,
) -> tuple[float, float]:
    """The certified (lower, upper) epsilon at ``delta`` of one direction's composition on grid
    ``h``; the points of its upper windows cut at ``WINDOW_TAIL`` appended to ``cut`` where given
    (``_upper_side``)."""
    factors = pessimistic_terms(segments, direction, h, tail, True)
    ups = [(f.upper, c) for f, c in factors]
    up = _upper_side(ups, chernoff_tilt(ups, delta), h, delta, upper, cut)
    if math.isfinite(
        min(up, upper)
    ):  # re-tilted at the Chernoff exponent of the best upper side so far
        up = min(up, _upper_side(ups, exponent_tilt(ups, min(up, upper)), h, delta, up, cut))
    terms = [
        (p, c) for f, count in factors for p, c in f.lower_terms(count) if p is not None and c > 0
    ]
    if any(f.lower is None and f.lower_blocks is None for f, _ in factors) or not (
        math.isfinite(up) and up > 0.0
    ):
        return 0.0, up  # a factor without an optimistic side: no lower side here
    try:
        low_side = tilted.compose_tilted(
            terms, exponent_tilt(terms, up) * h, pessimistic=False, max_points=MAX_POINTS
        )
    except (
        ValueError
    ):  # a window past MAX_POINTS (or blocks of rounds, not tilted): no lower side here
        return 0.0, up
    return tilted.lower_epsilon(low_side, delta, up), up


def add_below(segments: Sequence[Segment], eps: float, h: float, tail: float, delta: float) -> bool:
    """Whether the add direction's epsilon at ``delta`` is certified at most ``eps``: eps at least
    ``tilted_question.add_pure_epsilon``, or the add direction's pessimistic PMFs, composed on a
    grid ``dominated_direction.COARSENING`` times coarser than ``h`` (at most ``MAX_INTERVAL``)
    under the exponent's tilt at eps, certify delta(eps) <= delta."""
    if eps >= add_pure_epsilon([(q, float(c)) for (_, q, _), c in segments]):
        return True
    coarse = min(h * COARSENING, MAX_INTERVAL)
    ups = [(f.upper, c) for f, c in pessimistic_terms(segments, "add", coarse, tail, False)]
    side = tilted.compose_tilted(
        ups,
        exponent_tilt(ups, eps) * coarse,
        pessimistic=True,
        max_points=MAX_POINTS,
        window_tail=WINDOW_TAIL,
    )
    return side.delta(eps) <= delta


def screened_bracket(
    segments: Sequence[Segment],
    delta: float,
    lower: float,
    upper: float,
    h: float,
    tail: float,
    strict: bool = False,
    cut: list[int] | None = None,
) -> tuple[float, float]:
    """(``lower``, ``upper``) intersected with the tilted bracket on grid ``h``
    (``direction_bracket``: the maximum over the directions on each side), the add direction's
    bracket composed only where ``add_below`` does not show its epsilon below the remove direction's
    upper side: then eps = max(eps_remove, eps_add) lies in the remove direction's bracket.  As
    given where a window passes ``MAX_POINTS`` (``strict``: that ValueError raised).  ``cut``: where
    given, the points of the remove direction's upper windows cut at ``WINDOW_TAIL`` are appended
    to it (``direction_bracket``)."""
    try:
        sides = [direction_bracket(segments, "remove", h, tail, delta, upper, cut)]
        if not (math.isfinite(sides[0][1]) and add_below(segments, sides[0][1], h, tail, delta)):
            sides.append(direction_bracket(segments, "add", h, tail, delta, upper))
    except ValueError:
        if strict:
            raise
        return lower, upper
    return max(lower, max(s[0] for s in sides)), min(upper, max(s[1] for s in sides))


def tilted_factors_bracket(
    segments: Sequence[Segment], delta: float, lower: float, upper: float, fine: bool = True
) -> tuple[float, float]:
    """(``lower``, ``upper``) at ``delta`` intersected with the tilted brackets of the composition
    of ``segments`` on the grids of the module docstring where it is wider than the default
    tolerance, then, where ``fine`` (the default's: no grid given) and not yet exact
    (``question.exact``), with the tilted bracket on ``question.FINE_INTERVAL``, so that the upper
    side is read finer than the peers' default grid (each certified); as given where a factor's
    sampling rate is 1.  The lower side first takes the max-of-outputs test's bound where higher
    (``reads.max_of_outputs``, certified); one segment still wider than the tolerance is then read
    in blocks (``block_reads``: many rounds of a rate far below the grid, where every one-round
    discretization inflates the loss variance by ~T q h).

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors.
    delta : float
        The delta asked, in (0, 1).
    lower, upper : float
        A certified bracket of epsilon at ``delta`` (the plain composition's).
    fine : bool, default True
        Whether the bracket is also read on ``question.FINE_INTERVAL`` where not exact.

    Returns
    -------
    tuple of float
        The certified (lower, upper) bracket.
    """
    if not segments or any(k[1] >= 1.0 for k, _ in segments):
        return lower, upper
    rounds = total_rounds(segments)
    tail = question.question_tail(rounds, delta, question.TILTED_TAIL_SHARE)
    if not (
        math.isfinite(upper) and question.exact(np.array(lower), np.array(upper))
    ):  # max-of-outputs test
        lower = max(lower, max_of_outputs_epsilon(segments, delta))
        upper = max(lower, upper)
    if not question.within_tolerance(np.array(lower), np.array(upper)):
        (sigma, q, sensitivity), _ = max(segments, key=lambda s: s[1])
        h = StartGrid(
            question.DEFAULT_ACCURACY, "relative", question.DEFAULT_RELATIVE_ACCURACY
        ).first((sigma, q, float(rounds), sensitivity), np.array([delta]), "epsilon")
        from .window_heap import heap_windows  # lazy: only a wide bracket reads large windows

        with heap_windows():  # wide: large windows, their memory kept between compositions
            lower, upper = _coarse_to_fine(segments, delta, lower, upper, h, tail)
    if not question.within_tolerance(
        np.array(lower), np.array(upper)
    ):  # one segment of a small rate: blocks
        from .block_reads import block_bracket  # loaded on use: only a wide bracket reads blocks
        from .window_heap import heap_windows

        with heap_windows():
            lower, upper = block_bracket(segments, delta, lower, upper, tail)
    if fine and not question.exact(np.array(lower), np.array(upper)):
        lower, upper = screened_bracket(segments, delta, lower, upper, question.FINE_INTERVAL, tail)
    # few rounds of small rates (T q at most SPLIT_SAMPLED_ROUNDS): the split read
    # (``tilted_question.split_bracket``)
    sampled = sum(q * c for (_, q, _), c in segments)
    if (
        fine
        and lower > 0.0
        and not question.exact(np.array(lower), np.array(upper))
        and sampled <= SPLIT_SAMPLED_ROUNDS
    ):
        h = question.FINE_INTERVAL
        factors = pessimistic_terms(segments, "remove", h, tail, True)
        lower, upper = split_bracket(
            factors, delta, lower, upper, lambda eps: add_below(segments, eps, h, tail, delta)
        )
    return lower, max(lower, upper)


def _coarse_to_fine(
    segments: Sequence[Segment], delta: float, lower: float, upper: float, h: float, tail: float
) -> tuple[float, float]:
    """The tilted brackets on grids from ``h`` down by ``GRID_STEP`` while the upper side still
    falls by a quarter of the tolerance and the bracket is wider than it, at most ``GRIDS`` grids,
    intersected.  Where ``h``'s window passes ``MAX_POINTS`` (many rounds whose loss has a heavy
    tail: sigma 0.6, q 1e-5, 10^6 rounds at delta 1e-10 spans ~114 in loss under the exponent's
    tilt, 1.6e7 points on the start grid 7e-6), the grids from ``h`` up by ``GRID_STEP`` up to
    ``DEFAULT_INTERVAL`` first, the first that fits read, and no finer one after it (the grid
    refused is not read again: its composition is the same)."""
    refused = 0.0
    while True:
        try:
            return _finer_brackets(segments, delta, lower, upper, h, tail, refused)
        except ValueError:
            if not h < DEFAULT_INTERVAL:
                return lower, upper
            refused, h = h, min(h * GRID_STEP, DEFAULT_INTERVAL)


def _finer_brackets(
    segments: Sequence[Segment],
    delta: float,
    lower: float,
    upper: float,
    h: float,
    tail: float,
    refused: float = 0.0,
) -> tuple[float, float]:
    """``_coarse_to_fine`` from a grid ``h`` whose window fits (its ValueError raised where it does
    not), a finer grid whose window does not fit ending it.  Each grid's own bracket (read from
    nothing, so that a coarse grid looser than the bracket given does not end the ladder: sigma 2, q
    1e-4, 10^6 rounds at delta 1e-8 reads [0.149, 0.284] on its start grid 6.2e-5, then [0.25534,
    0.25552] a grid finer, inside the default's [0.25463, 0.25632]) is intersected with the bracket
    held; the ladder goes on while that own upper side falls by a quarter of the tolerance from the
    grid before's and the bracket held is wider than the tolerance.  It ends, too, before a grid
    whose window would be refused: one at most ``refused`` (a grid refused already, 0 where none),
    or one where the remove direction's upper windows on the grid before were cut at
    ``WINDOW_TAIL`` and the least of them, scaled by ``GRID_STEP`` (a window's span in loss is
    about the same on every grid), passes ``REFUSED_RATIO`` times ``MAX_POINTS``: that grid's
    windows cut at ``WINDOW_TAIL`` pass the cap (``compose_tilted``'s fallback refused), so its
    bracket would raise, after its discretization."""
    own_before = math.inf
    for step in range(GRIDS):
        cut: list[int] = []
        try:
            own_lower, own_upper = screened_bracket(
                segments, delta, 0.0, math.inf, h, tail, strict=True, cut=cut
            )
        except ValueError:
            if step == 0:
                raise
            break
        lower, upper = max(lower, own_lower), min(upper, own_upper)
        if question.within_tolerance(np.array(lower), np.array(upper)) or not (
            own_before - own_upper > 0.25 * question.default_tolerance(own_upper)
        ):
            break
        finer = h / GRID_STEP
        if finer <= refused * (1.0 + 1e-9) or (
            cut and min(cut) * GRID_STEP > REFUSED_RATIO * MAX_POINTS
        ):
            break
        own_before, h = own_upper, finer
    return lower, max(lower, upper)


def tilted_factors_brackets(
    segments: Sequence[Segment],
    delta: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    fine: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """``tilted_factors_bracket`` at each delta of ``delta`` (of the brackets' shape after broadcasting).

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors.
    delta, lower, upper : numpy.ndarray
        The deltas and their certified brackets.
    fine : bool, default True
        Whether each bracket is also read on ``question.FINE_INTERVAL`` where not exact.

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper) brackets, of ``lower``'s shape.
    """
    return each_bracket(
        delta, lower, upper, lambda at, lo, up: tilted_factors_bracket(segments, at, lo, up, fine)
    )


def wide_brackets(
    point: tuple[float, float, float, float],
    delta: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each bracket of ``point`` (sigma, q, rounds, sensitivity) at ``delta`` still wider than the
    default tolerance (``question.within_tolerance``) intersected with ``tilted_factors_bracket``'s
    of its one segment (without the fine read, which the default made): the engine's reads,
    certified, where the default's own left it wide (rare participation, q <= 1e-4 and T q >= 1:
    sigma 0.6, q 1e-5, 10^6 rounds at delta 1e-12 takes [1.903, 3.226] to [1.903, 1.909]); the
    others as given, and all at q = 1.

    Parameters
    ----------
    point : tuple of float
        (sigma, sampling rate, rounds, sensitivity).
    delta, lower, upper : numpy.ndarray
        The deltas and their certified brackets (one shape after broadcasting).

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper) brackets, of ``lower``'s shape.
    """
    sigma, q, rounds, sensitivity = point
    segments: list[Segment] = [((sigma, q, sensitivity), int(rounds))]

    def read(at: float, lo: float, up: float) -> tuple[float, float]:
        if q < 1.0 and not question.within_tolerance(np.array(lo), np.array(up)):
            return tilted_factors_bracket(segments, at, lo, up, fine=False)
        return lo, up

    return each_bracket(delta, lower, upper, read)
