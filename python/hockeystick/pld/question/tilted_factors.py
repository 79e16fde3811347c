"""The epsilon bracket of a composition of several Poisson-subsampled Gaussian factors (each its own
sigma, sampling rate, sensitivity and rounds) at a delta below the composition's round-off, read
under an exponential tilt: the front end of the core's tilted factors reads
(cpp/include/hockeystick/pld/refine/tilted_factors.hpp, bound as
``_core.pld_refine.TiltedFactorsReader``; the C library reads a composed handle of such rounds the
same way).

The core composes each neighbouring direction's factors under one tilt (its Chernoff tilt at delta,
then the Chernoff exponent's at the best upper side so far), the add direction only where a cheaper
bound does not put its epsilon below the remove direction's upper side.  ``ladder_bracket`` raises
the lower side to the max-of-outputs test's, then reads a ladder of grids from the default
tolerance's first grid for the factor with the most rounds at T rounds down by the core's grid step
while the upper side still falls by a quarter of the tolerance (the header's comment gives the rules
that end it); ``fine_bracket`` reads half the peers' default grid where not yet exact
(``question.exact``) and, under rare participation (every rate at most the core's kTiltRareRate)
where still wider than the tolerance, the upper side on finer grids under a larger cap and the lower
side by the aligned cells of every kind composed.  Each factor is discretized with the question tail
of the whole run (its T cuts together at most ``question.TILTED_TAIL_SHARE`` delta).  Between the
two, one segment still wide is read in blocks of rounds (the core's, pld/refine/block_reads.hpp,
through ``block_reads``), and after them the split read of few rounds of small rates (the core's,
pld/refine/split_read.hpp).  Every bracket found is certified and the answer is their intersection
with the one given.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ... import _core
from ..compose.fft import DEFAULT_MAX_POINTS
from ..compose.log_moments import log_mgf_at
from ..grid.pmf import GridPMF
from ..mechanisms.constructors import MAX_CELLS
from ..refine import question
from .each_bracket import each_bracket

# one factor of the run: (sigma, sampling rate, sensitivity) and its rounds
Segment = tuple[tuple[float, float, float], int]


def summed_log_mgf(terms: Sequence[tuple[GridPMF, int]], lams: np.ndarray) -> np.ndarray:
    """K(lam) = sum_i c_i log sum_k p_ik e^{lam l_k} at each lam of ``lams``."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(
            np.sum([count * log_mgf_at(pmf, lams) for pmf, count in terms], axis=0),
            dtype=np.float64,
        )


def factors_reader(segments: Sequence[Segment]) -> _core.pld_refine.TiltedFactorsReader:
    """The core's tilted reads of the run ``segments`` (each factor's sigma, sampling rate, rounds
    and sensitivity)."""
    return _core.pld_refine.TiltedFactorsReader(
        [(sigma, q, int(c), sensitivity) for (sigma, q, sensitivity), c in segments],
        max_cells=MAX_CELLS,
    )


def tilted_factors_bracket(
    segments: Sequence[Segment], delta: float, lower: float, upper: float, fine: bool = True
) -> tuple[float, float]:
    """(``lower``, ``upper``) at ``delta`` intersected with the reads of the module docstring, each
    certified: the core's ladder (``TiltedFactorsReader.ladder_bracket``: the max-of-outputs test's
    lower side, then the ladder of grids where wider than the default tolerance), one segment still
    wider read in blocks (``block_reads``: many rounds of a rate far below the grid, where every
    one-round discretization inflates the loss variance by ~T q h), then, where ``fine`` (the
    default's: no grid given), the core's fine reads (``fine_bracket``: the tilted bracket on
    ``question.FINE_INTERVAL`` where not yet exact, the rare participation reads where still wide)
    and the split read; as given where a factor's sampling rate is 1.

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
    reader = factors_reader(segments)
    tolerance = {
        "accuracy": question.DEFAULT_ACCURACY,
        "relative_accuracy": question.DEFAULT_RELATIVE_ACCURACY,
    }
    if question.within_tolerance(np.array(lower), np.array(upper)):  # the max-of-outputs test alone
        lower, upper = reader.ladder_bracket(delta=delta, lower=lower, upper=upper, **tolerance)
    else:
        from .window_heap import heap_windows  # lazy: only a wide bracket reads large windows

        with heap_windows():  # wide: large windows, their memory kept between compositions
            lower, upper = reader.ladder_bracket(delta=delta, lower=lower, upper=upper, **tolerance)
            if not question.within_tolerance(np.array(lower), np.array(upper)):
                # one segment of a small rate: blocks
                from .block_reads import (
                    block_bracket,  # loaded on use: only a wide bracket reads them
                )

                lower, upper = block_bracket(
                    segments, delta, lower, upper, reader.question_tail(delta)
                )
    if fine:
        lower, upper = reader.fine_bracket(delta=delta, lower=lower, upper=upper, **tolerance)
        if lower > 0.0 and not question.exact(np.array(lower), np.array(upper)):
            lower, upper = _split_read(reader, delta, lower, upper)
    return lower, max(lower, upper)


def _split_read(
    reader: _core.pld_refine.TiltedFactorsReader, delta: float, lower: float, upper: float
) -> tuple[float, float]:
    """(``lower``, ``upper``) intersected with the core's split read on ``question.FINE_INTERVAL``
    (pld/refine/split_read.hpp's ``factors_split_epsilon``: the run's remove direction read as a sum
    over how many rounds pass lower / T, the add direction cleared by ``add_below``) where the
    rounds sample the record at most ``tilted_question.SPLIT_SAMPLED_ROUNDS`` times on average
    (sum_i q_i c_i); as given elsewhere.  The run and its question tail at ``delta`` are the
    reader's."""
    low, up = reader.split_epsilon(
        delta=delta, lower=lower, upper=upper, split_max_points=DEFAULT_MAX_POINTS
    )
    return float(low), float(up)


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
