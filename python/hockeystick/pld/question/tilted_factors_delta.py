"""The delta bracket of a composition of several Poisson-subsampled Gaussian factors at one epsilon,
read finer than the peers' default grid, as its epsilon is (``tilted_factors``).

On the default grid (``DEFAULT_INTERVAL``, dp_accounting's) a certified upper delta is the peers'
uncharged estimate plus the plain composition's round-off charges, so it cannot be below it, and at
a small delta those charges (about T u of the whole mass) are much of it; the plain lower side loses
as much.  Each direction's PMFs on ``question.FINE_INTERVAL`` are composed under the tilt that
maximizes the Chernoff exponent lam eps - K(lam) at the epsilon asked (the tilted composition
carries its charge relative to that Chernoff bound) and read there, the pessimistic ones for the
upper side and, where the bracket is still wider than the core's kRareDeltaRelativeWidth of its
lower side, the optimistic ones for the lower; the add direction is 0 past the run's pure epsilon
(pure DP there): the core's reads (``TiltedFactorsReader.delta_read``,
cpp/include/hockeystick/pld/refine/tilted_factors.hpp).  Where the rounds sample the record rarely
(sum_i q_i c_i at most ``tilted_question.SPLIT_SAMPLED_ROUNDS``) the remove direction is also read
as a sum over how many rounds pass eps / T, on both sides, the upper side the larger of it and the
add direction's: the core's split read (``TiltedFactorsReader.split_delta``,
cpp/include/hockeystick/pld/refine/split_read.hpp).  The lower side takes the max-of-outputs test's
bound where higher (``reads.max_of_outputs``).  Every read is certified, and the bracket is their
intersection with the one given.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..compose.fft import DEFAULT_MAX_POINTS
from ..reads.max_of_outputs import max_of_outputs_delta
from ..refine import question
from .tilted_factors import Segment, factors_reader


def tilted_factors_delta(
    segments: Sequence[Segment], eps: float, lower: float, upper: float
) -> tuple[float, float]:
    """(``lower``, ``upper``), a certified delta bracket at ``eps`` of the composition of
    ``segments``, intersected with the reads of the module docstring where not yet exact
    (``question.exact``) and positive; as given where a factor's sampling rate is 1 or a window
    passes ``MAX_POINTS``.

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors.
    eps : float
        The epsilon asked, >= 0.
    lower, upper : float
        A certified bracket of delta at ``eps`` (the plain composition's).

    Returns
    -------
    tuple of float
        The certified (lower, upper) bracket.
    """
    segments = [s for s in segments if s[1] > 0]  # a factor of no rounds composes to the identity
    if (
        not segments
        or any(k[1] >= 1.0 for k, _ in segments)
        or not (upper > 0.0 and math.isfinite(eps))
    ):
        return lower, upper
    if question.exact(np.array(lower), np.array(upper)):
        return lower, upper
    lower = max(
        lower, max_of_outputs_delta(segments, eps)
    )  # the max-of-outputs test's bound where higher
    h = question.FINE_INTERVAL
    reader = factors_reader(segments)
    tail = reader.question_tail(upper)
    try:
        lower, upper, add = reader.delta_read(
            eps=eps, interval=h, tail=tail, lower=lower, upper=upper
        )
    except ValueError:  # a window past MAX_POINTS: the bracket as given
        return lower, upper
    lower, upper = reader.split_delta(
        eps=eps,
        interval=h,
        tail=tail,
        lower=lower,
        upper=upper,
        add_upper=add,
        split_max_points=DEFAULT_MAX_POINTS,
    )
    return float(lower), float(max(lower, upper))
