"""Renyi DP of running a mechanism a random number K of times and releasing only the best run.

Papernot & Steinke, "Hyperparameter tuning with Renyi differential privacy", ICLR 2022
(arXiv:2110.03620v2).  The base mechanism has RDP eps(alpha) at the given orders; K has mean mu >= 1
and one of the laws dp_accounting's ``RepeatAndSelectDpEvent`` names by its ``shape`` eta:

* truncated negative binomial (0 <= eta < inf; eta = 0 the logarithmic law, eta = 1 the geometric),
  P[K = k] proportional to C(k + eta - 1, k) (1 - gamma)^k, k >= 1 (Def. 1), of mean
      mu(gamma) = eta (1 - gamma) / (gamma (1 - gamma^eta))     (eta = 0: (1 - gamma) / (gamma log(1/gamma))),
  Thm. 2: for every alpha > 1 and every order alpha_hat >= 1,
      eps'(alpha) = eps(alpha) + (1 + eta) [(1 - 1/alpha_hat) eps(alpha_hat) + log(1/gamma) / alpha_hat]
                    + log(mu) / (alpha - 1),
  minimised over alpha_hat in the orders; then, RDP being non-decreasing in the order,
  eps'(alpha) <- min over orders alpha' >= alpha of eps'(alpha');
* Poisson (eta = inf), Thm. 6: eps'(alpha) = eps(alpha) + mu delta_hat + log(mu) / (alpha - 1), with
  delta_hat the delta the base curve gives at eps_hat = log(1 + 1/(alpha - 1)) (``rdp_to_delta``,
  the conversion of dp_accounting, minimised over the orders).

This is what dp_accounting 0.6's RdpAccountant computes.  One difference, on the safe side and
exact: dp_accounting finds gamma from mu by bisection to 1e-9 relative; here gamma is the root of
log mu(gamma) = log mu to a few ulp (scipy's brentq on the closed form above, with expm1 for 1 -
gamma^eta), then lowered by 2^-40 relative -- far more than the root's and the mean's rounding --
until mu(gamma) >= mu, so log(1/gamma) is never below the truth (a smaller gamma is a longer-tailed
law: a larger eps').  The two accountants therefore differ by at most (1 + eta) 1e-9 / alpha_hat,
dp_accounting's own bisection error.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .conversion import rdp_to_delta
from .mechanisms import check_orders

__all__ = [
    "truncated_negative_binomial_gamma",
    "truncated_negative_binomial_mean",
    "repeat_and_select_rdp",
]

_OUTWARD = 2.0**-40  # relative step that rounds gamma down past the root's and the mean's rounding


def truncated_negative_binomial_mean(gamma: float, shape: float) -> float:
    """mu(gamma) of the truncated negative binomial law (module docstring; Papernot & Steinke Def. 1)."""
    if not 0 < gamma <= 1:
        raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
    if gamma == 1:
        return 1.0
    log_gamma = math.log(gamma)
    if shape == 0:
        return (1.0 - gamma) / (gamma * -log_gamma)
    return shape * (1.0 - gamma) / (gamma * -math.expm1(shape * log_gamma))


def truncated_negative_binomial_gamma(shape: float, mean: float) -> float:
    """gamma with mu(gamma) = mean, rounded down (never above the root): the law's halting probability."""
    from scipy.optimize import (
        brentq,
    )  # lazy: scipy start-up time (import hockeystick loads no scipy)

    if mean == 1:
        return 1.0
    if shape == 1:
        return float(np.nextafter(1.0 / mean, 0.0))  # geometric: gamma = 1 / mu, rounded down
    high = min(
        1.0, 2.0 * (shape + 1.0) / mean
    )  # mu(gamma) <= 2 (eta + 1) / gamma (dp_accounting's bracket)
    low = high / 2.0
    while truncated_negative_binomial_mean(low, shape) < mean:
        low /= 2.0
    log_mean = math.log(mean)
    gamma: float = brentq(
        lambda g: math.log(truncated_negative_binomial_mean(g, shape)) - log_mean,
        low,
        high,
        xtol=1e-300,
        rtol=1e-15,
    )
    gamma *= 1.0 - _OUTWARD
    while truncated_negative_binomial_mean(gamma, shape) < mean:
        gamma *= 1.0 - _OUTWARD
    return gamma


def repeat_and_select_rdp(
    rdp: npt.ArrayLike, orders: npt.ArrayLike, mean: float, shape: float
) -> np.ndarray:
    """eps'(alpha) of the best of K runs (module docstring) from the base curve ``rdp`` (orders last axis)."""
    shape, mean = float(shape), float(mean)
    if math.isnan(shape) or shape < 0:
        raise ValueError(f"Distribution of repetitions must be >=0. Got {shape}.")
    if math.isnan(mean) or mean < 1:
        raise ValueError(f"Mean of number of repetitions must be >=1. Got {mean}.")
    alpha = check_orders(orders)
    eps = np.asarray(rdp, dtype=np.float64)
    if eps.ndim == 0 or eps.shape[-1] != alpha.size:
        raise ValueError(
            f"rdp must have the orders on its last axis (rdp {eps.shape}, orders {alpha.shape})"
        )
    if np.isnan(eps).any() or (eps < 0).any():
        raise ValueError("rdp values must be >= 0 and not NaN")
    if mean == math.inf:
        return np.full_like(eps, math.inf)
    log_mean_term = math.log(mean) / (alpha - 1.0)
    if shape == math.inf:
        eps_hat = np.log1p(1.0 / (alpha - 1.0))
        delta_hat = np.asarray(rdp_to_delta(eps[..., None, :], alpha, eps_hat))
        return eps + mean * delta_hat + log_mean_term
    gamma = truncated_negative_binomial_gamma(shape, mean)
    with np.errstate(invalid="ignore"):
        best = np.min((1.0 - 1.0 / alpha) * eps - math.log(gamma) / alpha, axis=-1, keepdims=True)
    out = eps + log_mean_term + (1.0 + shape) * best
    ascending = np.argsort(alpha, kind="stable")
    closed = np.minimum.accumulate(out[..., ascending[::-1]], axis=-1)[..., ::-1]
    result: np.ndarray = np.empty_like(out)
    result[..., ascending] = closed
    return result
