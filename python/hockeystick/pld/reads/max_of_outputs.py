"""A certified lower bound on epsilon from one test: the largest released value of a run of
Poisson-subsampled Gaussian rounds against a threshold, computed in log space.

For any event S of the outputs, the hockey-stick divergence is at least P(S) - e^eps Q(S), so a pair
that is (eps, delta)-DP has

    eps >= log((P(S) - delta) / Q(S))        wherever P(S) > delta.                                   (1)

Remove direction: a round of segment s (noise sigma_s, sampling rate q_s, sensitivity c_s) releases
X ~ (1 - q_s) N(0, sigma_s^2) + q_s N(c_s, sigma_s^2) under P and N(0, sigma_s^2) under Q.  With the
event S = {some round has X / sigma_s > z} (the largest standardized release above z),

    Q(S) = 1 - prod_s (1 - a)^{T_s},       a = Qbar(z),
    P(S) = 1 - prod_s (1 - b_s)^{T_s},     b_s = (1 - q_s) Qbar(z) + q_s Qbar(z - c_s / sigma_s),

Qbar the standard normal tail.  Every z gives a valid bound (1); the largest over a ladder of z
(``COARSE_Z``), then over a finer ladder of ``FINE_STEPS`` thresholds one step either side of the
best, is returned.  At small delta the best z is far out (z ~ 37 at delta 1e-289), where Qbar
underflows, so every quantity is carried as its logarithm (the core's ``log_gaussian_tail``, relative
error at most 1e-12 against 50-digit mpmath).

Rounding inward (u = 2^-53).  log Qbar is taken LOG_TAIL_MARGIN (absolute, far above its 1e-12
relative error on Qbar) low for P and high for Q, at the argument z - c / sigma moved up by 4 u
(|z| + |c / sigma|) (Qbar falls in its argument) with c / sigma rounded down by 2 u.  The hazards y =
-sum_s T_s log(1 - b_s) are bounded with their logarithms, log T_s + log x + log(-log(1 - x) / x)
(the ratio at least 1 and increasing in x: b taken low, a high, the ratio moved 8 u inward or
outward; 1 below x = 1e-200), summed by a log-sum-exp moved SUM_MARGIN (relative); then log(1 -
e^{-y}) is bounded by log y + log(1 - y / 2) below and log y + log(1 - y / 2 + y^2 / 6) above
(y < 1e-5), else taken as computed and moved SUM_MARGIN (relative) and 4 u.  In (1), log(1 - delta /
P(S)) = log(1 - e^r) cancels where P(S) is near delta, so r = log delta - log P(S) is rounded up by
4 u (|log delta| + |log P(S)|) before it, and log(1 - e^r) taken from expm1 or log1p as r is above or
below -log 2 and lowered 4 u (1 + |itself|).  The bound (1) is then lowered by SUM_MARGIN (relative
to the magnitudes of its terms), 8 u of itself and LIBM_SLACK (1 + |itself|) once more (a slack for
the last bits in which two libms' elementary functions differ).

The numerics run in the compiled core (cpp/include/hockeystick/pld/reads/max_of_outputs.hpp, the
one home of this read, which the C library's question reads too); this module checks the arguments
and shapes them.  Reference: Balle, Barthe, Gaboardi, Hsu, Sato, "Hypothesis testing interpretations
and Renyi differential privacy", AISTATS 2020, Sec. 3 (delta(eps) = sup_S P(S) - e^eps Q(S)).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import overload

import numpy as np

from ... import _core
from ...base.elementwise import ArrayLike, FloatOrArray, NonScalar

_READS = _core.pld_reads
# absolute margin on each log Qbar (its relative error on Qbar is at most 1e-12, so its log's at
# most ~1e-12)
LOG_TAIL_MARGIN: float = _READS.max_of_outputs_log_tail_margin
# relative margin for the few float operations of a log-sum-exp, a log1p or an expm1 (far above
# their few ulps)
SUM_MARGIN: float = _READS.max_of_outputs_sum_margin
# relative slack for the last bits in which two libms' exp, log, log1p and expm1 differ
LIBM_SLACK: float = _READS.max_of_outputs_libm_slack
# the thresholds tried (standardized): a coarse ladder, then a finer one around its best
COARSE_Z: np.ndarray = np.linspace(*_READS.max_of_outputs_coarse_z)
FINE_STEPS: int = _READS.max_of_outputs_fine_steps
# the most rounds a segment holds (the core counts them in 64 bits)
MAX_ROUNDS = 2**62

# one factor of the run: (sigma, sampling rate, sensitivity) and its rounds
Segment = tuple[tuple[float, float, float], int]
# the run as the core takes it: sigma, sampling rate, sensitivity and rounds, one entry a segment
_Arrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

_SEGMENT_RULE = (
    "a segment ((sigma, sampling_rate, sensitivity), rounds) needs sigma > 0, sensitivity > 0, "
    "0 < sampling_rate <= 1 and an integer 1 <= rounds <= 2**62; fix or drop the segment"
)


def _segment_arrays(segments: Sequence[Segment]) -> _Arrays:
    """The run's segments as the core's four arrays, each segment checked (``_SEGMENT_RULE``)."""
    rows = []
    for segment in segments:
        try:
            (sigma, q, sensitivity), rounds = segment
            values = (float(sigma), float(q), float(sensitivity))
        except (TypeError, ValueError) as error:
            raise ValueError(f"{_SEGMENT_RULE}: got {segment!r}") from error
        # a whole count (an int, or a float of an integer value), never a bool or a string
        whole = isinstance(rounds, numbers.Real) and not isinstance(rounds, bool)
        if not (
            values[0] > 0.0
            and values[2] > 0.0
            and 0.0 < values[1] <= 1.0
            and whole
            and float(rounds).is_integer()
            and 1 <= rounds <= MAX_ROUNDS
        ):
            raise ValueError(f"{_SEGMENT_RULE}: got {segment!r}")
        rows.append((*values, int(rounds)))
    sigma_a, q_a, c_a = (np.array([r[k] for r in rows], dtype=np.float64) for k in range(3))
    return sigma_a, q_a, c_a, np.array([r[3] for r in rows], dtype=np.int64)


def _float_array(values: ArrayLike, name: str, rule: str) -> np.ndarray:
    """``values`` as a float64 array (a ValueError naming ``name`` and ``rule`` where it is not numeric)."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be {rule}, got {values!r}") from error


def log_sides(segments: Sequence[Segment], z: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """A lower bound on log P(S) and an upper bound on log Q(S) at each threshold of ``z`` (module
    docstring: Q(S) = 1 - prod_s (1 - Qbar(z))^{T_s}, P(S) = 1 - prod_s (1 - b_s)^{T_s}).

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors, at least one: Poisson-subsampled Gaussian rounds, 0 < sampling_rate <= 1.
    z : array_like
        Standardized thresholds, finite.

    Returns
    -------
    tuple of numpy.ndarray
        (log P(S) rounded down, log Q(S) rounded up), each of the shape of ``z``.

    Raises
    ------
    ValueError
        If there is no segment, a segment is out of range, or a threshold is not finite.
    """
    arrays = _segment_arrays(segments)
    if not segments:
        raise ValueError(
            "segments must hold at least one segment ((sigma, q, sensitivity), rounds)"
        )
    zs = _float_array(z, "z", "finite thresholds")
    log_p, log_q = _READS.max_of_outputs_log_sides(*arrays, z=zs)
    return np.asarray(log_p), np.asarray(log_q)


def log_bound(segments: Sequence[Segment], z: ArrayLike, delta: float) -> np.ndarray:
    """The certified lower bound (1) of the module docstring, log((P(S) - delta) / Q(S)), at each
    threshold of ``z``.

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors, at least one: Poisson-subsampled Gaussian rounds, 0 < sampling_rate <= 1.
    z : array_like
        Standardized thresholds, finite.
    delta : float
        The delta asked, in (0, 1).

    Returns
    -------
    numpy.ndarray
        The bound at each threshold (the shape of ``z``), -inf where P(S) is not certified above
        ``delta``.

    Raises
    ------
    ValueError
        If there is no segment, a segment is out of range, a threshold is not finite or ``delta``
        is not in (0, 1).
    """
    arrays = _segment_arrays(segments)
    if not segments:
        raise ValueError(
            "segments must hold at least one segment ((sigma, q, sensitivity), rounds)"
        )
    zs = _float_array(z, "z", "finite thresholds")
    return np.asarray(_READS.max_of_outputs_log_bound(*arrays, z=zs, delta=_delta(delta)))


def _delta(delta: float) -> float:
    """``delta`` as a float in (0, 1), else a ValueError saying so."""
    try:
        value = float(delta)
    except (TypeError, ValueError) as error:
        raise ValueError(f"delta must be a number in (0, 1), got {delta!r}") from error
    if not 0.0 < value < 1.0:
        raise ValueError(f"delta must be in (0, 1) (e.g. 1e-6), got {delta!r}")
    return value


def best_threshold(segments: Sequence[Segment], delta: float) -> tuple[float, float]:
    """The threshold z of ``COARSE_Z``, then of a ladder of ``FINE_STEPS`` one coarse step either
    side of the best of them, whose bound (``log_bound``) is the largest, and that bound.

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors, at least one: Poisson-subsampled Gaussian rounds, 0 < sampling_rate <= 1.
    delta : float
        The delta asked, in (0, 1).

    Returns
    -------
    tuple of float
        (z, bound), the bound -inf where no threshold is certified.

    Raises
    ------
    ValueError
        If there is no segment, a segment is out of range or ``delta`` is not in (0, 1).
    """
    arrays = _segment_arrays(segments)
    if not segments:
        raise ValueError(
            "segments must hold at least one segment ((sigma, q, sensitivity), rounds)"
        )
    z, value = _READS.max_of_outputs_best_threshold(*arrays, delta=_delta(delta))
    return float(z), float(value)


@overload
def max_of_outputs_epsilon(segments: Sequence[Segment], delta: float) -> float: ...
@overload
def max_of_outputs_epsilon(segments: Sequence[Segment], delta: NonScalar) -> np.ndarray: ...
def max_of_outputs_epsilon(segments: Sequence[Segment], delta: ArrayLike) -> FloatOrArray:
    """A certified lower bound on the epsilon at ``delta`` of the composition of ``segments`` (the
    remove direction's, so of the add-or-remove pair's), from the test of the largest released value
    against a threshold: the largest bound (1) of the module docstring over ``COARSE_Z`` and a finer
    ladder around its best (``best_threshold``); 0 where no threshold certifies more.

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors: Poisson-subsampled Gaussian rounds, 0 < sampling_rate <= 1.
    delta : float or array_like
        The deltas asked, each in (0, 1).  The coarse ladder is computed once for all of them.

    Returns
    -------
    float or numpy.ndarray
        A certified lower bound on epsilon(delta), >= 0: a float for a scalar ``delta``, else an
        array of its shape.

    Raises
    ------
    ValueError
        If a ``delta`` is not in (0, 1), or a segment's sigma, sensitivity, sampling rate or rounds
        is out of range.
    """
    arrays = _segment_arrays(segments)
    deltas = _float_array(delta, "delta", "numbers in (0, 1)")
    if not np.all((deltas > 0.0) & (deltas < 1.0)):
        raise ValueError(f"delta must be in (0, 1) (e.g. 1e-6), got {delta!r}")
    out = (
        np.asarray(_READS.max_of_outputs_epsilon(*arrays, delta=deltas))
        if segments
        else np.zeros(deltas.shape)
    )
    return float(out) if np.ndim(delta) == 0 else out


def _epsilons(epsilon: ArrayLike) -> np.ndarray:
    """``epsilon`` as a float64 array, each finite, else a ValueError saying so."""
    values = _float_array(epsilon, "epsilon", "finite numbers")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"epsilon must be finite (e.g. 1.0), got {epsilon!r}")
    return values


@overload
def max_of_outputs_delta(segments: Sequence[Segment], epsilon: float) -> float: ...
@overload
def max_of_outputs_delta(segments: Sequence[Segment], epsilon: NonScalar) -> np.ndarray: ...
def max_of_outputs_delta(segments: Sequence[Segment], epsilon: ArrayLike) -> FloatOrArray:
    """A certified lower bound on the delta at ``epsilon`` of the composition of ``segments`` (the
    remove direction's, so of the add-or-remove pair's): the largest over the thresholds of
    ``COARSE_Z`` and a finer ladder around the best of P(S) - e^eps Q(S) (module docstring), and, at
    one round of one segment, at the threshold where the remove direction's likelihood ratio is
    e^eps (the Neyman-Pearson test's event: the read is that direction's delta up to the margins), its
    logarithm log P(S) + log(1 - e^r), r = eps + log Q(S) - log P(S) rounded up by 4 u (|eps| +
    |log Q(S)| + |log P(S)|), lowered by SUM_MARGIN relative to its terms, 8 u of itself and
    LIBM_SLACK (1 + |itself|), its exponential by 4 u; 0 where no threshold certifies more.

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors: Poisson-subsampled Gaussian rounds, 0 < sampling_rate <= 1.
    epsilon : float or array_like
        The epsilons asked, each finite.

    Returns
    -------
    float or numpy.ndarray
        A certified lower bound on delta(epsilon), >= 0: a float for a scalar ``epsilon``, else an
        array of its shape.

    Raises
    ------
    ValueError
        If an ``epsilon`` is not finite, or a segment's sigma, sensitivity, sampling rate or rounds
        is out of range.
    """
    arrays = _segment_arrays(segments)
    eps = _epsilons(epsilon)
    out = (
        np.asarray(_READS.max_of_outputs_delta(*arrays, epsilon=eps))
        if segments
        else np.zeros(eps.shape)
    )
    return float(out) if np.ndim(epsilon) == 0 else out


def max_of_outputs_deltas(segments: Sequence[Segment], epsilon: ArrayLike) -> np.ndarray:
    """``max_of_outputs_delta`` at many epsilons at once, on the thresholds of ``COARSE_Z`` only (no
    finer ladder; at one round of one segment, with the likelihood ratio's threshold too): P(S) and
    Q(S) are computed once for the ladder and each epsilon takes the largest certified P(S) - e^eps
    Q(S) over it, so a curve of many points costs one ladder; each value is a
    certified lower bound, at most the scalar read's (which adds the finer ladder).

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors: Poisson-subsampled Gaussian rounds, 0 < sampling_rate <= 1.
    epsilon : array_like
        The epsilons asked, each finite (flattened).

    Returns
    -------
    numpy.ndarray
        A certified lower bound on delta at each epsilon (1-d), >= 0.

    Raises
    ------
    ValueError
        If an epsilon is not finite, or a segment is out of range (as ``max_of_outputs_delta``).
    """
    arrays = _segment_arrays(segments)
    eps = _epsilons(epsilon).reshape(-1)
    if not segments:
        return np.zeros(eps.size)
    return np.asarray(_READS.max_of_outputs_delta(*arrays, epsilon=eps, fine=False))


# the three reads other stages use; the constants and the steps they share stay this module's
__all__ = ["max_of_outputs_delta", "max_of_outputs_deltas", "max_of_outputs_epsilon"]
