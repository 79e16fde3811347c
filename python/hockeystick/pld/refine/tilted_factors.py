"""The epsilon bracket of a composition of several Poisson-subsampled Gaussian factors (each its own
sigma, sampling rate, sensitivity and rounds) at a delta below the composition's round-off, read
under an exponential tilt: the front end of the core's tilted factors reads
(cpp/include/hockeystick/pld/refine/tilted_factors.hpp, bound as
``_core.pld_refine.TiltedFactorsReader``).

The core composes each neighbouring direction's factors under one tilt (its Chernoff tilt at delta,
then the Chernoff exponent's at the best upper side so far), the add direction only where a cheaper
bound does not put its epsilon below the remove direction's upper side, on a ladder of grids from
the default tolerance's first grid for the factor with the most rounds at T rounds
(``StartGrid.first``) down by ``GRID_STEP`` while the upper side still falls by a quarter of the
tolerance, at most ``GRIDS`` grids (``coarse_to_fine``; the header's comment gives the rules that end
it).  Each factor is discretized with the question tail of the whole run (``question.question_tail``
at T rounds: its T cuts together at most ``question.TILTED_TAIL_SHARE`` delta).  Around the ladder
this module adds the max-of-outputs test's lower side (``reads.max_of_outputs``), the blocks of
rounds of one segment still wide (``block_reads``), the tilted bracket on ``question.FINE_INTERVAL``
(half the peers' default grid, ``screened_bracket``) where not yet exact (``question.exact``), under
rare participation (every rate at most the core's kTiltRareRate) the core's rare reads where still
wide (``rare_bracket``: the upper side on finer grids under a larger cap, the lower side by the
aligned cells of every kind composed), and the split read of few rounds of small rates
(``tilted_question.split_bracket``).  Every bracket
found is certified and the answer is their intersection with the one given.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ... import _core
from ..compose.log_moments import log_mgf_at
from ..grid.distribution import Factor
from ..grid.pmf import GridPMF
from ..mechanisms.constructors import MAX_CELLS
from ..reads.max_of_outputs import max_of_outputs_epsilon
from . import question
from .directional_delta import Direction
from .each_bracket import each_bracket
from .grid_start import StartGrid
from .tilt_search import best_tilt
from .tilted_question import ROUND_OFF_PER_ROUND, SPLIT_SAMPLED_ROUNDS, one_direction, split_bracket

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


def factors_reader(segments: Sequence[Segment]) -> _core.pld_refine.TiltedFactorsReader:
    """The core's tilted reads of the run ``segments`` (sigma per unit sensitivity, sampling rate,
    rounds of each factor)."""
    return _core.pld_refine.TiltedFactorsReader(
        [(sigma / sensitivity, q, int(c)) for (sigma, q, sensitivity), c in segments],
        max_cells=MAX_CELLS,
    )


def pessimistic_terms(
    segments: Sequence[Segment], direction: Direction, h: float, tail: float, optimistic: bool
) -> list[tuple[Factor, int]]:
    """Each factor of one direction discretized on grid ``h`` (with its optimistic side where
    ``optimistic``) and its rounds."""
    return [
        (one_direction(mechanism, direction, h, tail, optimistic), int(count))
        for mechanism, count in segments
    ]


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
    segments = [s for s in segments if s[1] > 0]  # a factor of no rounds composes to the identity
    if not segments or any(k[1] >= 1.0 for k, _ in segments):
        return lower, upper
    rounds = total_rounds(segments)
    tail = question.question_tail(rounds, delta, question.TILTED_TAIL_SHARE)
    reader = factors_reader(segments)
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
            lower, upper = reader.coarse_to_fine(
                delta=delta,
                lower=lower,
                upper=upper,
                interval=h,
                tail=tail,
                accuracy=question.DEFAULT_ACCURACY,
                relative_accuracy=question.DEFAULT_RELATIVE_ACCURACY,
            )
    if not question.within_tolerance(
        np.array(lower), np.array(upper)
    ):  # one segment of a small rate: blocks
        from .block_reads import block_bracket  # loaded on use: only a wide bracket reads blocks
        from .window_heap import heap_windows

        with heap_windows():
            lower, upper = block_bracket(segments, delta, lower, upper, tail)
    if fine:
        lower, upper = _fine_reads(reader, segments, delta, lower, upper, tail)
    return lower, max(lower, upper)


def _fine_reads(
    reader: _core.pld_refine.TiltedFactorsReader,
    segments: Sequence[Segment],
    delta: float,
    lower: float,
    upper: float,
    tail: float,
) -> tuple[float, float]:
    """The default's reads past the ladder (each certified, intersected): where not yet exact, the
    tilted bracket on ``question.FINE_INTERVAL``; under rare participation, where still wider than the
    default tolerance, the core's rare reads (finer upper grids, the aligned cells' lower side of the
    whole run); where still not exact, the split read (``_split_read``)."""
    if not question.exact(np.array(lower), np.array(upper)):
        lower, upper = reader.screened_bracket(
            delta=delta, lower=lower, upper=upper, interval=question.FINE_INTERVAL, tail=tail
        )
    lower, upper = reader.rare_bracket(
        delta=delta,
        lower=lower,
        upper=upper,
        tail=tail,
        accuracy=question.DEFAULT_ACCURACY,
        relative_accuracy=question.DEFAULT_RELATIVE_ACCURACY,
    )
    if lower > 0.0 and not question.exact(np.array(lower), np.array(upper)):
        lower, upper = _split_read(reader, segments, delta, lower, upper, tail)
    return lower, upper


def _split_read(
    reader: _core.pld_refine.TiltedFactorsReader,
    segments: Sequence[Segment],
    delta: float,
    lower: float,
    upper: float,
    tail: float,
) -> tuple[float, float]:
    """(``lower``, ``upper``) intersected with the split read on ``question.FINE_INTERVAL``
    (``tilted_question.split_bracket``) where the rounds sample the record at most
    ``SPLIT_SAMPLED_ROUNDS`` times on average (sum_i q_i c_i), the add direction screened by the
    core's ``add_below``; as given elsewhere."""
    if sum(q * c for (_, q, _), c in segments) > SPLIT_SAMPLED_ROUNDS:
        return lower, upper
    h = question.FINE_INTERVAL
    return split_bracket(
        pessimistic_terms(segments, "remove", h, tail, True),
        delta,
        lower,
        upper,
        lambda eps: reader.add_below(eps=eps, interval=h, tail=tail, delta=delta),
    )


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
