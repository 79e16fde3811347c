"""The bounds every Monte Carlo reading here rests on, and the labels of what its numbers are.

``kl_upper_confidence``: the Bernoulli-KL (Hoeffding 1963, Theorem 1) upper confidence bound on the
expectation of i.i.d. draws in [0, 1]; ``mean_with_confidence_bound`` for draws in [0, B];
``log_importance_bound``: log B(alpha), the bound on every importance-weighted draw (derived in
``matrix.importance_sampling``); ``MonteCarloKind``.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from ..base.validation import count, in_interval, positive_number
from .round_off import gamma

__all__ = [
    "MonteCarloKind",
    "bernoulli_kl",
    "kl_upper_confidence",
    "log_importance_bound",
    "mean_with_confidence_bound",
]

MonteCarloKind = Literal["estimate", "estimate with confidence bound", "pipeline guarantee"]
"""What a Monte Carlo number is, never "certified": a sample mean ("estimate"); a sample mean with a bound that holds
with a stated probability over the draws ("estimate with confidence bound"); or the (eps, delta) of the pipeline
"verify by Monte Carlo, then run the verified mechanism", a DP statement about that randomized pipeline whose
probability is over its draws and its noise together ("pipeline guarantee", ``matrix.verified_release``)."""


def bernoulli_kl(p: float, m: float) -> float:
    """kl(p || m) of Bernoulli laws, 0 <= p <= m < 1."""
    left = (
        p * (math.log(p) - math.log(m)) if p > 0.0 else 0.0
    )  # not log(p / m): p / m may underflow
    right = (1.0 - p) * (math.log1p(-p) - math.log1p(-m)) if p < 1.0 else 0.0
    return left + right


def kl_upper_confidence(mean: float, draws: int, beta: float) -> float:
    r"""Upper confidence bound on the expectation of [0, 1]-valued i.i.d. draws from their mean.

    .. math::

        \bar m^+ = \sup\{m \ge \bar m : N\,\mathrm{kl}(\bar m \,\|\, m) \le \log(1/\beta)\},

    so that the expectation is at most :math:`\bar m^+` with probability at least 1 - beta over the
    draws (Hoeffding 1963, Theorem 1, in its Bernoulli-KL form; jax_privacy's Monte Carlo
    verification uses the same bound, Chua et al. 2024, arXiv:2412.16802, Fact 4.2). Found by 200
    bisection steps, returning the upper end of the bracket.

    Parameters
    ----------
    mean : float
        The draws' mean, in [0, 1].
    draws : int
        N, a whole number >= 1.
    beta : float
        The failure probability, in (0, 1).

    Returns
    -------
    float
        The bound, in [mean, 1].

    Raises
    ------
    ValueError
        ``mean`` outside [0, 1]; ``draws`` not a whole number >= 1; ``beta`` outside (0, 1).

    Examples
    --------
    >>> from hockeystick.matrix import kl_upper_confidence
    >>> round(kl_upper_confidence(0.0, 1000, 0.05), 6)
    0.002991
    """
    m = float(in_interval(mean, "mean", 0.0, 1.0, open_low=False, open_high=False))
    n = count(draws, "draws")
    b = float(in_interval(beta, "beta", 0.0, 1.0, open_low=True, open_high=True))
    budget = math.log(1.0 / b) / n
    if m >= 1.0:
        return 1.0
    low, high = m, 1.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if mid >= 1.0 or bernoulli_kl(m, mid) > budget:
            high = mid
        else:
            low = mid
    return high


def mean_with_confidence_bound(
    values: np.ndarray, support_bound: float, beta: float
) -> tuple[float, float, float]:
    """The mean of i.i.d. draws in [0, B], its standard error, and an upper bound on their
    expectation that holds with probability >= 1 - beta over the draws.

    The bound is ``B * kl_upper_confidence(mean / B, N, beta)``: the draws divided by B lie in [0,
    1] (Hoeffding 1963, Theorem 1). The computed mean of N values is raised by gamma_{N+1} (Higham
    2002, Lemma 3.1) so that its round-off cannot lower the bound.

    Parameters
    ----------
    values : numpy.ndarray
        The draws, a non-empty 1-D array of values in [0, B].
    support_bound : float
        B > 0, an upper bound on every draw that holds for every outcome of the draws.
    beta : float
        The failure probability, in (0, 1).

    Returns
    -------
    tuple of float
        (mean, standard error (inf for one draw), bound at 1 - beta).

    Raises
    ------
    ValueError
        An empty array, a value outside [0, B] (B was not a bound), ``support_bound`` not > 0 or
        ``beta`` outside (0, 1).
    """
    b = float(positive_number(support_bound, "support_bound"))
    level = float(in_interval(beta, "beta", 0.0, 1.0, open_low=True, open_high=True))
    draws = np.asarray(values, dtype=np.float64)
    if draws.ndim != 1 or draws.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array of draws, got shape {draws.shape}")
    if not (draws >= 0.0).all() or not (draws <= b).all():
        raise ValueError(
            f"values must lie in [0, support_bound] = [0, {b:g}], got [{float(draws.min()):g}, {float(draws.max()):g}]:"
            " support_bound must bound every draw for the confidence bound to hold"
        )
    n = draws.size
    mean = min(float(draws.mean()) * (1.0 + gamma(n + 1)), b)
    error = float(draws.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf
    return mean, error, b * kl_upper_confidence(mean / b, n, level)


def log_importance_bound(alpha: float, epsilon: float, kappa: float) -> float:
    """log B(alpha) = (alpha - 1) log(alpha - 1) - alpha log alpha + kappa (alpha^2 - alpha)/2 -
    (alpha - 1) eps, the log of the bound on every importance-weighted draw
    (``matrix.importance_sampling``), for checked arguments (alpha >= 1 finite, eps finite, kappa >=
    0 finite)."""
    head = (alpha - 1.0) * math.log(alpha - 1.0) if alpha > 1.0 else 0.0
    return (
        head
        - alpha * math.log(alpha)
        + kappa * (alpha * alpha - alpha) / 2.0
        - (alpha - 1.0) * epsilon
    )
