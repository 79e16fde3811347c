"""The Gaussian mechanism on a truncated Poisson sample (dp_accounting's ``TruncatedSubsampledGaussianDpEvent``).

Each of n records is sampled with probability q; a sample larger than B is cut to a random subset of
B; the sum plus N(0, sigma^2) is released.  dp_accounting's analysis (arXiv:2508.15089, as
implemented in its ``from_truncated_subsampled_gaussian_mechanism``): with
    t = P(Binomial(n - 1, q) >= B)                           (truncation, given the record is sampled)
    q' = P(Binomial(n, q) > B) B / (t n)                     (the record kept, given truncation)
the mechanism is dominated by the mixture (``pld_mixture``)
    (1 - t) x [Poisson-subsampled Gaussian (sigma, q), add/remove]
    + t x [replace pair (1 - q') N(0, s^2) + q' N(1, s^2) vs (1 - q') N(0, s^2) + q' N(-1, s^2), s = sigma / 2],
the second a (slightly loose) replace-one bound for the truncated case.  The replace pair's loss
    L(x) = log(1 - q' + q' e^{(2x - 1)/(2 s^2)}) - log(1 - q' + q' e^{-(2x + 1)/(2 s^2)})
is increasing and odd (x -> -x swaps P and Q: one direction), so ``monotone`` discretizes it with
certified sides; the Poisson part is ``subsampled_gaussian``.  t = 0 is the Poisson part alone.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..gaussian import gaussian_tail_inverse
from .compose import DEFAULT_TAIL
from .distribution import PrivacyLossDistribution
from .gaussian_mixture import normal_interval
from .mechanisms import DEFAULT_INTERVAL, _positive, checked_interval, subsampled_gaussian
from .monotone import MonotonePair, log_sum_exp_rows, monotone_factors
from .pld_mixture import mixture


def replace_pair(s: float, q: float, tail: float) -> MonotonePair:
    """(1 - q) N(0, s^2) + q N(1, s^2) vs (1 - q) N(0, s^2) + q N(-1, s^2) as a ``MonotonePair``."""
    z = float(gaussian_tail_inverse(tail / 4.0))
    log_w = np.log([1.0 - q, q])
    shifts = np.array([0.0, 1.0])

    def half(x: np.ndarray, sign: float) -> tuple[np.ndarray, np.ndarray]:
        terms = log_w + (sign * shifts * np.asarray(x, dtype=np.float64)[..., None] - 0.5 * shifts) / (s * s)
        return log_sum_exp_rows(terms)

    def loss(x: np.ndarray) -> np.ndarray:
        return half(x, 1.0)[0] - half(x, -1.0)[0]

    def slope(x: np.ndarray) -> np.ndarray:
        return ((half(x, 1.0)[1] * shifts).sum(axis=-1) + (half(x, -1.0)[1] * shifts).sum(axis=-1)) / (s * s)

    def p_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (1 - q) * normal_interval(a / s, b / s) + q * normal_interval((a - 1) / s, (b - 1) / s)

    def q_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (1 - q) * normal_interval(a / s, b / s) + q * normal_interval((a + 1) / s, (b + 1) / s)

    return MonotonePair(loss, slope, p_mass, q_mass, -1.0 - z * s, 1.0 + z * s)


def truncated_subsampled_gaussian(dataset_size: int, sampling_probability: float, truncated_batch_size: int,
                                  noise_multiplier: float, *,
                                  value_discretization_interval: float = DEFAULT_INTERVAL,
                                  tail: float = DEFAULT_TAIL) -> PrivacyLossDistribution:
    """Remove and add PLDs of the truncated-Poisson-sampled Gaussian (see the module docstring)."""
    n, b = dataset_size, truncated_batch_size
    for name, v in (("dataset_size", n), ("truncated_batch_size", b)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    q = float(sampling_probability)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"sampling_probability must lie in (0, 1], got {sampling_probability!r}")
    sigma = _positive("noise_multiplier", noise_multiplier)
    h = checked_interval(value_discretization_interval)
    poisson = subsampled_gaussian(sigma, q, value_discretization_interval=h, tail=tail)
    t = float(stats.binom.sf(b - 1, n - 1, q))
    if t == 0.0:
        return poisson
    q_kept = min(float(stats.binom.sf(b, n, q)) * b / (t * n), 1.0)
    forward, _ = monotone_factors(f"replace_pair(s={sigma / 2}, q={q_kept})", replace_pair(sigma / 2.0, q_kept, tail), h)
    replace = PrivacyLossDistribution([{forward: 1}], tail)
    return mixture([poisson, replace], [1.0 - t, t])
