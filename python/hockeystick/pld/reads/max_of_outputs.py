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

Qbar the standard normal tail.  Every z gives a valid bound (1); the largest over a ladder of z,
then over a finer ladder around the best, is returned.  At small delta the best z is far out (z ~ 37
at delta 1e-289), where Qbar underflows, so every quantity is carried as its logarithm
(``numerics.log_gaussian_tail``, relative error at most 1e-12 against 50-digit mpmath).

Rounding inward (u = 2^-53).  log Qbar is taken LOG_TAIL_MARGIN (absolute, far above its 1e-12
relative error on Qbar) low for P and high for Q, at the argument z - c / sigma moved up by 4 u
(|z| + |c / sigma|) (Qbar falls in its argument) with c / sigma rounded down by 2 u.  The hazards y =
-sum_s T_s log(1 - b_s) are bounded with their logarithms, log T_s + log x + log(-log(1 - x) / x)
(the ratio at least 1 and increasing in x: b taken low, a high, the ratio moved 8 u inward or
outward; 1 below x = 1e-200), summed by a log-sum-exp moved SUM_MARGIN (relative); then log(1 -
e^{-y}) is bounded by log y + log(1 - y / 2) below and log y above (y < 1e-5), else taken as
computed and moved SUM_MARGIN (relative) and 4 u.  The bound (1) is then lowered by LOG_TAIL_MARGIN
and SUM_MARGIN (relative to the magnitudes of its terms) once more.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...numerics.gaussian import log_gaussian_tail

# absolute margin on each log Qbar (its relative error on Qbar is at most 1e-12, so its log's at
# most ~1e-12)
LOG_TAIL_MARGIN = 1e-10
# relative margin for the few float operations of a log-sum-exp, a log1p or an expm1 (far above
# their few ulps)
SUM_MARGIN = 1e-12
UNIT_ROUNDOFF = 2.0**-53
# the thresholds tried (standardized): a coarse ladder, then a finer one around its best
COARSE_Z = np.linspace(-4.0, 45.0, 981)
FINE_STEPS = 201

# one factor of the run: (sigma, sampling rate, sensitivity) and its rounds
Segment = tuple[tuple[float, float, float], int]


def _log_tail(x: np.ndarray, low: bool) -> np.ndarray:
    """log Qbar(x), moved LOG_TAIL_MARGIN (plus its relative share) down (``low``) or up."""
    value = np.asarray(log_gaussian_tail(x), dtype=np.float64)
    margin = LOG_TAIL_MARGIN * (1.0 + np.abs(value) * 1e-3)
    return value - margin if low else value + margin


def _log_one_minus_exp(y_log: np.ndarray, up: bool) -> np.ndarray:
    """A bound on log(1 - e^{-y}) from log y, below it (``up`` False) or above it.  Below: log y +
    log(1 - y / 2) for y < 1e-5 (1 - e^{-y} >= y - y^2 / 2), else log(-expm1(-y)) lowered by
    SUM_MARGIN relative and 4 u. Above: log y for y < 1e-5 (1 - e^{-y} <= y), else log(-expm1(-y))
    raised the same, at most 0."""
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        y = np.exp(np.minimum(y_log, 700.0))
        small = y_log < math.log(1e-5)
        y_small = np.where(small, y, 0.0)
        tiny = y_log + (
            np.log1p(-y_small / 2.0 + y_small * y_small / 6.0) if up else np.log1p(-y_small / 2.0)
        )
        big = np.log(-np.expm1(-y))
    margin = SUM_MARGIN * (1.0 + np.abs(np.where(np.isfinite(big), big, 0.0))) + 4.0 * UNIT_ROUNDOFF
    if up:
        return np.asarray(
            np.minimum(np.where(small, tiny + SUM_MARGIN * (1.0 + np.abs(tiny)), big + margin), 0.0)
        )
    return np.asarray(np.where(small, tiny - SUM_MARGIN * (1.0 + np.abs(tiny)), big - margin))


def _log_hazard_ratio(log_x: np.ndarray, up: bool) -> np.ndarray:
    """log(-log(1 - x) / x) (at least 0: -log(1 - x) >= x), moved 8 u outward (``up``) or in, from
    log x; 0 where x is below 1e-200 (the ratio is 1 + x / 2 + ..., within u of 1), inf where x is
    1."""
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        x = np.exp(np.minimum(log_x, 0.0))
        live = log_x > math.log(1e-200)
        ratio = np.where(live, -np.log1p(-np.where(live, x, 0.0)) / np.where(live, x, 1.0), 1.0)
        value = np.log(ratio)
    return np.asarray(
        np.maximum(value + 8.0 * UNIT_ROUNDOFF if up else value - 8.0 * UNIT_ROUNDOFF, 0.0)
    )


def _log_sum(terms: list[np.ndarray], up: bool) -> np.ndarray:
    """log sum_i e^{terms_i} (elementwise over the arrays), moved SUM_MARGIN relative outward (``up``) or in."""
    stacked = np.stack(terms)
    top = np.max(stacked, axis=0)
    with np.errstate(invalid="ignore"):
        value = top + np.log(np.sum(np.exp(stacked - np.where(np.isfinite(top), top, 0.0)), axis=0))
    margin = SUM_MARGIN * (1.0 + np.abs(value))
    return np.asarray(value + margin if up else value - margin)


def log_sides(segments: Sequence[Segment], z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A lower bound on log P(S) and an upper bound on log Q(S) at each threshold of ``z`` (module docstring)."""
    log_a_high = np.minimum(_log_tail(z, low=False), 0.0)
    p_terms, q_terms = [], []
    for (sigma, q, sensitivity), rounds in segments:
        r_low = (sensitivity / sigma) * (1.0 - 2.0 * UNIT_ROUNDOFF)
        shifted = (z - r_low) + 4.0 * UNIT_ROUNDOFF * (np.abs(z) + r_low)  # at least z - c / sigma
        log_rounds = math.log(rounds)
        sampled = (
            _log_tail(shifted, low=True)
            + math.log(q) * (1.0 + 4.0 * UNIT_ROUNDOFF)
            - 4.0 * UNIT_ROUNDOFF
        )
        if q < 1.0:  # (q = 1: every round samples the record)
            unsampled = _log_tail(z, low=True) + math.log1p(-q) * (1.0 + 4.0 * UNIT_ROUNDOFF)
            sampled = _log_sum([unsampled, sampled], up=False)
        p_terms.append(log_rounds + sampled + _log_hazard_ratio(sampled, up=False))
        q_terms.append(log_rounds + log_a_high + _log_hazard_ratio(log_a_high, up=True))
    log_p = _log_one_minus_exp(_log_sum(p_terms, up=False) - 4.0 * UNIT_ROUNDOFF, up=False)
    log_q = _log_one_minus_exp(_log_sum(q_terms, up=True) + 4.0 * UNIT_ROUNDOFF, up=True)
    return log_p, log_q


def log_bound(segments: Sequence[Segment], z: np.ndarray, delta: float) -> np.ndarray:
    """The certified lower bound (1) of the module docstring at each threshold of ``z`` (-inf where
    P(S) is not certified above ``delta``)."""
    log_p, log_q = log_sides(segments, z)
    log_delta = math.log(delta)
    with np.errstate(invalid="ignore", divide="ignore"):
        above = log_p > log_delta + 1e-9
        gap = np.where(
            above, log_p + np.log1p(-np.exp(np.minimum(log_delta - log_p, 0.0))), -np.inf
        )
        bound = gap - log_q
    margin = SUM_MARGIN * (2.0 + np.abs(log_p) + np.abs(log_q)) + 8.0 * UNIT_ROUNDOFF * (
        1.0 + np.abs(bound)
    )
    return np.where(above & np.isfinite(bound), bound - margin, -np.inf)


def max_of_outputs_epsilon(segments: Sequence[Segment], delta: float) -> float:
    """A certified lower bound on the epsilon at ``delta`` of the composition of ``segments`` (the
    remove direction's, so of the add-or-remove pair's), from the test of the largest released value
    against a threshold (module docstring); 0 where no threshold certifies more.

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors: Poisson-subsampled Gaussian rounds, 0 < sampling_rate <= 1.
    delta : float
        The delta asked, in (0, 1).

    Returns
    -------
    float
        A certified lower bound on epsilon(delta), >= 0.

    Raises
    ------
    ValueError
        If ``delta`` is not in (0, 1), or a segment's sigma, sensitivity, sampling rate or rounds is
        out of range.
    """
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    for (sigma, q, sensitivity), rounds in segments:
        if not (sigma > 0.0 and sensitivity > 0.0 and 0.0 < q <= 1.0 and rounds >= 1):
            raise ValueError(
                f"a segment needs sigma > 0, sensitivity > 0, 0 < q <= 1 and rounds >= 1: {segments!r}"
            )
    if not segments:
        return 0.0
    value = best_threshold(segments, delta)[1]
    return max(0.0, value) if math.isfinite(value) else 0.0


def best_threshold(segments: Sequence[Segment], delta: float) -> tuple[float, float]:
    """The threshold z of ``COARSE_Z``, then of a ladder of ``FINE_STEPS`` around the best of them,
    whose bound (``log_bound``) is the largest, and that bound (-inf where none is certified)."""
    coarse = log_bound(segments, COARSE_Z, delta)
    best = int(np.argmax(coarse))
    step = float(COARSE_Z[1] - COARSE_Z[0])
    fine_z = np.linspace(float(COARSE_Z[best]) - step, float(COARSE_Z[best]) + step, FINE_STEPS)
    fine = log_bound(segments, fine_z, delta)
    j = int(np.argmax(fine))
    return (
        (float(fine_z[j]), float(fine[j]))
        if fine[j] > coarse[best]
        else (float(COARSE_Z[best]), float(coarse[best]))
    )


def max_of_outputs_delta(segments: Sequence[Segment], epsilon: float) -> float:
    """A certified lower bound on the delta at ``epsilon`` of the composition of ``segments`` (the
    remove direction's, so of the add-or-remove pair's): the largest over the thresholds of
    ``COARSE_Z`` and a finer ladder around the best of P(S) - e^eps Q(S) (module docstring), its
    logarithm log P(S) + log(1 - e^{eps + log Q(S) - log P(S)}) lowered by SUM_MARGIN relative to
    its terms; 0 where no threshold certifies more.

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors: Poisson-subsampled Gaussian rounds, 0 < sampling_rate <= 1.
    epsilon : float
        The epsilon asked, finite.

    Returns
    -------
    float
        A certified lower bound on delta(epsilon), >= 0.

    Raises
    ------
    ValueError
        If ``epsilon`` is not finite, or a segment's sigma, sensitivity, sampling rate or rounds is
        out of range.
    """
    if not math.isfinite(epsilon):
        raise ValueError(f"epsilon must be finite, got {epsilon!r}")
    for (sigma, q, sensitivity), rounds in segments:
        if not (sigma > 0.0 and sensitivity > 0.0 and 0.0 < q <= 1.0 and rounds >= 1):
            raise ValueError(
                f"a segment needs sigma > 0, sensitivity > 0, 0 < q <= 1 and rounds >= 1: {segments!r}"
            )
    if not segments:
        return 0.0

    def log_delta(z: np.ndarray) -> np.ndarray:
        log_p, log_q = log_sides(segments, z)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            ratio = epsilon + log_q - log_p
            value = np.where(
                ratio < 0.0, log_p + np.log1p(-np.exp(np.minimum(ratio, 0.0))), -np.inf
            )
        margin = SUM_MARGIN * (2.0 + np.abs(log_p) + np.abs(log_q) + abs(epsilon))
        return np.where(
            np.isfinite(value), value - margin - 8.0 * UNIT_ROUNDOFF * np.abs(value), -np.inf
        )

    coarse = log_delta(COARSE_Z)
    best = int(np.argmax(coarse))
    step = float(COARSE_Z[1] - COARSE_Z[0])
    fine = log_delta(
        np.linspace(float(COARSE_Z[best]) - step, float(COARSE_Z[best]) + step, FINE_STEPS)
    )
    value = max(float(coarse[best]), float(np.max(fine)))
    return math.exp(value) * (1.0 - 4.0 * UNIT_ROUNDOFF) if math.isfinite(value) else 0.0


def max_of_outputs_deltas(segments: Sequence[Segment], epsilon: np.ndarray) -> np.ndarray:
    """``max_of_outputs_delta`` at many epsilons at once, on the thresholds of ``COARSE_Z`` only (no
    finer ladder): P(S) and Q(S) are computed once for the ladder and each epsilon takes the largest
    certified P(S) - e^eps Q(S) over it, so a curve of many points costs one ladder; each value is a
    certified lower bound, at most the scalar read's (which adds the finer ladder).

    Parameters
    ----------
    segments : sequence of ((sigma, sampling_rate, sensitivity), rounds)
        The run's factors: Poisson-subsampled Gaussian rounds, 0 < sampling_rate <= 1.
    epsilon : numpy.ndarray
        The epsilons asked, each finite (1-d).

    Returns
    -------
    numpy.ndarray
        A certified lower bound on delta at each epsilon, >= 0.

    Raises
    ------
    ValueError
        If an epsilon is not finite, or a segment is out of range (as ``max_of_outputs_delta``).
    """
    eps = np.asarray(epsilon, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(eps)):
        raise ValueError("every epsilon must be finite")
    for (sigma, q, sensitivity), rounds in segments:
        if not (sigma > 0.0 and sensitivity > 0.0 and 0.0 < q <= 1.0 and rounds >= 1):
            raise ValueError(
                f"a segment needs sigma > 0, sensitivity > 0, 0 < q <= 1 and rounds >= 1: {segments!r}"
            )
    out = np.zeros(eps.size)
    if not segments or not eps.size:
        return out
    log_p, log_q = log_sides(segments, COARSE_Z)
    keep = np.isfinite(log_p) & np.isfinite(log_q)
    log_p, log_q = log_p[keep], log_q[keep]
    if not log_p.size:
        return out
    chunk = max(
        1, (1 << 21) // log_p.size
    )  # a block of epsilons against the whole ladder in bounded memory
    for start in range(0, eps.size, chunk):
        e = eps[start : start + chunk, None]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            ratio = e + log_q[None, :] - log_p[None, :]
            value = np.where(
                ratio < 0.0, log_p[None, :] + np.log1p(-np.exp(np.minimum(ratio, 0.0))), -np.inf
            )
        margin = SUM_MARGIN * (2.0 + np.abs(log_p)[None, :] + np.abs(log_q)[None, :] + np.abs(e))
        value = np.where(
            np.isfinite(value), value - margin - 8.0 * UNIT_ROUNDOFF * np.abs(value), -np.inf
        )
        best = np.max(value, axis=1)
        with np.errstate(under="ignore"):
            out[start : start + chunk] = np.where(
                np.isfinite(best), np.exp(best) * (1.0 - 4.0 * UNIT_ROUNDOFF), 0.0
            )
    return out
