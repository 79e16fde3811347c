"""Empirical checks that the simulated runs respect their bounds.

1. Empirical sensitivity (paper 004, Figure 2's experiment): train on D and on a neighbour D'
   (one sample replaced at one client) with the *same* seed, so every minibatch and every noise
   draw is shared, and measure ||w_t - w'_t||. It can never exceed the deterministic recursion
   Delta_{t+1} <= rho_t Delta_t + gamma_t that paper 004's bound is built on.
2. A Monte-Carlo lower bound on the hockey-stick divergence E_{e^eps}(P || P') of 1-D PNSGD's
   released iterate on neighbouring data sets: sup over threshold sets A = {y > c}, {y <= c} of
   P(A) - e^eps P'(A), with one-sided Clopper-Pearson bounds (Bonferroni over all sets), so with
   probability >= 1 - alpha it is below the true divergence, and so below paper 002's Theorem 4.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.stats import beta as beta_distribution

from .data import FederatedData
from .result import RunResult


def sensitivity_trajectory(
    train: Callable[..., RunResult], data: FederatedData, neighbour: FederatedData, **options
) -> np.ndarray:
    """||w_t - w'_t|| for t = 0..T, training ``train(data, seed=..., **options)`` on both data sets
    with shared randomness (same seed)."""
    a = train(data, trajectory=True, **options)
    b = train(neighbour, trajectory=True, **options)
    assert a.trajectory is not None and b.trajectory is not None  # asked for with trajectory=True
    return np.linalg.norm(a.trajectory - b.trajectory, axis=1)


def sensitivity_bound(rho: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """Delta_0 = 0, Delta_{t+1} = rho_t Delta_t + gamma_t: the worst-case ||w_t - w'_t|| under
    shared randomness (paper 004 eq. 12-16, with the per-round rho_t, gamma_t of
    :func:`privacy.fedprox_sensitivities`)."""
    out = np.zeros(len(rho) + 1)
    for t in range(len(rho)):
        out[t + 1] = rho[t] * out[t] + gamma[t]
    return out


def hockey_stick_lower_bound(
    samples: np.ndarray,
    neighbour_samples: np.ndarray,
    epsilon: float,
    thresholds: np.ndarray,
    alpha: float = 1e-3,
) -> tuple[float, float]:
    """(lower confidence bound, point estimate) of E_{e^eps}(P || P') from 1-D samples of P and P'.

    For each threshold c and both sets {y > c}, {y <= c}: P(A) from below and P'(A) from above
    by Clopper-Pearson at level alpha / (2 x number of sets); the bound is the largest
    P_low(A) - e^eps P'_high(A), floored at 0. Thresholds must be chosen without looking at these
    samples (a fixed grid, or one fitted on separate runs)."""
    x = np.sort(np.asarray(samples, float).ravel())
    y = np.sort(np.asarray(neighbour_samples, float).ravel())
    c = np.asarray(thresholds, float).ravel()
    n, m = x.size, y.size
    above_x = n - np.searchsorted(x, c, side="right")
    above_y = m - np.searchsorted(y, c, side="right")
    k = np.concatenate([above_x, n - above_x])
    j = np.concatenate([above_y, m - above_y])
    level = alpha / (2 * k.size)
    p_low = np.where(k > 0, beta_distribution.ppf(level, k, n - k + 1), 0.0)
    q_high = np.where(j < m, beta_distribution.ppf(1 - level, j + 1, m - j), 1.0)
    gamma = np.exp(epsilon)
    lower = float(max(0.0, np.max(np.nan_to_num(p_low) - gamma * q_high)))
    estimate = float(max(0.0, np.max(k / n - gamma * j / m)))
    return lower, estimate
