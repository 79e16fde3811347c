"""The benchmark's point sets for theta: one typical, one hard (where naive formulas fail)."""

from __future__ import annotations

import numpy as np


def typical_points(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """r log-uniform in [1e-2, 1e2] (sensitivity/sigma), eps uniform in [0, 20]."""
    rng = np.random.default_rng(seed)
    return 10.0 ** rng.uniform(-2, 2, n), rng.uniform(0, 20, n)


def hard_points(n: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The five regions of W5 (bench/README.md): tiny r, delta in [1e-302, 1e-12], log gamma in [50, 700],
    r in [10, 37], and theta below 1e-308 (equal shares)."""
    rng = np.random.default_rng(seed)
    k = n // 5
    r_tiny = 10.0 ** rng.uniform(-12, -2, k)
    eps_tiny = r_tiny * rng.uniform(0, 8, k)
    # delta between 1e-12 and 1e-302: x1 = eps/r - r/2 between 7 and 37
    r_mid = 10.0 ** rng.uniform(-1, 1, k)
    eps_mid = r_mid * (rng.uniform(7, 37, k) + r_mid / 2)
    eps_big = rng.uniform(50, 700, k)
    r_big = np.sqrt(2 * eps_big) * rng.uniform(0.5, 2, k)
    r_far = rng.uniform(10, 37, k)
    eps_far = rng.uniform(0, 50, k)
    eps_under = rng.uniform(800, 5000, n - 4 * k)
    r_under = rng.uniform(1, 10, n - 4 * k)
    r = np.concatenate([r_tiny, r_mid, r_big, r_far, r_under])
    eps = np.concatenate([eps_tiny, eps_mid, eps_big, eps_far, eps_under])
    return r, eps


def naive_theta(r: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """The vectorized textbook formula Q(a - r/2) - e^eps Q(a + r/2), a = eps/r, with scipy."""
    from scipy.special import ndtr

    a = eps / r
    return ndtr(-(a - r / 2)) - np.exp(eps) * ndtr(-(a + r / 2))
