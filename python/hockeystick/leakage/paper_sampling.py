"""Paper 001, Theorems 5.10 and 5.11 and eq. 20: the sampling rate p for "near-optimal utility".

Each of a client's M records is drawn independently with probability p (Section 4.2, Step 1).
Writing G = sum_{i=1}^M ||grad L(W_{t-1}, d_i)||^2:

    Thm 5.10 (eq. 17):      Var[W~_t] = p (1 - p) G
    Thm 5.11 (eq. 18):      near-optimal utility if  p (1 - p) >= r,   r = C_6 (C_1 - tau) / G
    Section 6 (eq. 20):     utility loss 0 and leakage <= tau if  p (1 - p) G <= tau

Eq. 17 is the trace of the covariance of sum_i grad_i 1{i drawn} (one draw, N = 1); the proof in
Appendix K derives (1/N) p (1 - p) G for the average over N draws.  Eq. 18 and eq. 20 point in
opposite directions (p(1-p) bounded below vs above) with different right-hand sides; both are
provided as printed.  Paper formulas, not guarantees (docs/paper-001-errata.md).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative, positive

__all__ = ["sampling_variance", "thm_5_11_sampling_rates", "eq_20_sampling_rates"]


def _probability(p: npt.ArrayLike) -> np.ndarray:
    arr = nonnegative(p, "sampling_rate")
    if not np.all(arr <= 1):
        raise ValueError(f"sampling_rate must lie in [0, 1] (got maximum {arr.max()!r})")
    return arr


def _roots(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two solutions of p (1 - p) = r <= 1/4: (2r / (1 + sqrt(1 - 4r)), 1 - that)."""
    low = 2.0 * r / (1.0 + np.sqrt(1.0 - 4.0 * r))
    return low, 1.0 - low


def _pair(a: np.ndarray, b: np.ndarray) -> tuple[float | np.ndarray, float | np.ndarray]:
    return (float(a), float(b)) if a.ndim == 0 else (a, b)


def sampling_variance(sampling_rate: npt.ArrayLike, gradient_square_sum: npt.ArrayLike) -> float | np.ndarray:
    """p (1 - p) G, Theorem 5.10 (eq. 17); paper formula, not a guarantee.

    sampling_rate p in [0, 1], gradient_square_sum G = sum_i ||grad L_i||^2 >= 0; broadcast.
    (It is the exact trace of Cov[sum_i grad_i 1{i drawn}] for independent draws.)"""
    p = _probability(sampling_rate)
    out = p * (1.0 - p) * nonnegative(gradient_square_sum, "gradient_square_sum")
    return float(out) if out.ndim == 0 else out


def thm_5_11_sampling_rates(
    c6: npt.ArrayLike, c1: npt.ArrayLike, tau: npt.ArrayLike, gradient_square_sum: npt.ArrayLike
) -> tuple[float | np.ndarray, float | np.ndarray]:
    """(p_low, p_high): the rates with p (1 - p) >= C_6 (C_1 - tau) / G (Theorem 5.11, eq. 18) are
    exactly p_low <= p <= p_high; paper formula, not a guarantee.

    c6 = C_6 > 0 (Theorem 5.1's constant), c1 = C_1, tau the budget (c1 - tau >= 0), G > 0.
    ValueError when r = C_6 (C_1 - tau) / G > 1/4: then no p satisfies eq. 18."""
    gap = nonnegative(c1, "c1") - nonnegative(tau, "tau")
    if not np.all(gap >= 0):
        raise ValueError("eq. 18 needs c1 - tau >= 0")
    r = positive(c6, "c6") * gap / positive(gradient_square_sum, "gradient_square_sum")
    if not np.all(r <= 0.25):
        raise ValueError(
            f"no sampling rate satisfies eq. 18: c6 (c1 - tau) / gradient_square_sum = "
            f"{float(np.max(r))!r} > 1/4 = max p (1 - p)"
        )
    return _pair(*_roots(r))


def eq_20_sampling_rates(
    tau: npt.ArrayLike, gradient_square_sum: npt.ArrayLike
) -> tuple[float | np.ndarray, float | np.ndarray]:
    """(p_low, p_high): p (1 - p) G <= tau (Section 6, eq. 20) holds exactly for p <= p_low or
    p >= p_high (every p when tau >= G / 4: then p_low = p_high = 1/2); paper formula, not a guarantee.

    tau >= 0 the leakage budget, gradient_square_sum G > 0; broadcast."""
    r = np.minimum(nonnegative(tau, "tau") / positive(gradient_square_sum, "gradient_square_sum"), 0.25)
    return _pair(*_roots(r))
