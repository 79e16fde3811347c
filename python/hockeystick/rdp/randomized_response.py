"""Renyi DP of k-ary randomized response, in closed form, exact to rounding at every order.

Randomized response with noise parameter p over k buckets outputs its input with probability 1 - p
and a uniform bucket otherwise (dp_accounting's ``RandomizedResponseDpEvent``), so on input 1 it
outputs P = (a, b, ..., b), a = 1 - p + p/k, b = p/k.  Its RDP is the Renyi divergence D_alpha(P
|| Q) = log(S) / (alpha - 1), S = sum_i Q_i (P_i / Q_i)^alpha (Mironov 2017, Def. 3), for the
neighbouring output distributions of each relation (as dp_accounting 0.6's RdpAccountant takes
them):

* ``"replace_one"``: Q = (b, a, b, ..., b) (the input changes bucket); D is symmetric, and with
  r = a / b = 1 + k (1 - p) / p,
      S = b r^alpha + a r^-alpha + (k - 2) b;
* ``"replace_special"``: Q = U, the uniform law (the special record leaves every bucket equally
  likely), in both directions; with A = k a = 1 + (k - 1)(1 - p) the likelihood ratio on the input's
  bucket,
      eps(alpha) = max(log(A^alpha / k + (k - 1) p^alpha / k), log(A^(1-alpha) / k + (k - 1) p^(1-alpha) / k)) / (alpha - 1).

Edges: k = 1 or p = 1 gives 0 (the output does not depend on the input), p = 0 gives inf (the input
is released).

Exactness.  dp_accounting takes log S by log-sum-exp, which loses every digit when S - 1 is tiny
(p near 1: at p = 1 - 1e-7, k = 2, alpha = 2 its RDP is off by ~1e-3 relative).  Here, with w the
reference law (Q, or U) and x = P / Q the likelihood ratio, sum_i w_i x_i = 1 = sum_i w_i, so

    S - 1 = sum_i w_i f_t(x_i),   f_t(x) = x^t - 1 - t (x - 1) >= 0   (t = alpha, or 1 - alpha),

a sum of non-negative terms, each written as a sum of non-negative parts: with L = log x, s =
alpha - 1,

    f_alpha(x)   = s (x L - x + 1) + x (e^{s L} - 1 - s L),
    f_{1-alpha}(x) = (e^{-s L} - 1 + s L) + s (x - 1 - L),

and each part (x log x - x + 1, e^u - 1 - u, d - log(1 + d)) by its Taylor series near 0 and
directly elsewhere (where it loses at most a few bits).  So log1p(S - 1) keeps full relative
accuracy however close S is to 1, and S - 1 is exact to a few ulp; where S > e it is log-sum-exp of
positive terms (no cancellation, no overflow).  Tests: mpmath at 50 digits and dp_accounting to 1e-9
wherever its log-sum-exp is itself accurate.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import numpy.typing as npt

from ..base.validation import in_interval, positive_integer
from .mechanisms import check_orders

__all__ = ["RELATIONS", "randomized_response_rdp"]

RELATIONS = ("replace_one", "replace_special")

_SERIES_RADIUS = (
    0.5  # each remainder's Taylor series is used for |argument| < 0.5, its closed form beyond
)
_J = np.arange(2, 64, dtype=np.float64)  # series terms j = 2 .. 63: 0.5^63 / 63 < 1e-20


def _series(z: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """sum_j coefficients[j - 2] z^j over j = 2 .. 63 (z clipped into the series' radius)."""
    zs = np.where(np.abs(z) < _SERIES_RADIUS, z, 0.0)
    return cast(np.ndarray, np.sum(coefficients * zs[..., None] ** _J, axis=-1))


def _exp_remainder(u: np.ndarray) -> np.ndarray:
    """e^u - 1 - u >= 0 (series sum_{j>=2} u^j / j! near 0)."""
    with np.errstate(over="ignore"):
        direct = np.expm1(u) - u
    return np.where(
        np.abs(u) < _SERIES_RADIUS, _series(u, 1.0 / np.cumprod(np.arange(1.0, 64.0))[1:]), direct
    )


def _log_remainder(d: np.ndarray) -> np.ndarray:
    """d - log(1 + d) >= 0 (series sum_{j>=2} (-1)^j d^j / j near 0)."""
    with np.errstate(divide="ignore"):
        direct = d - np.log1p(d)
    return np.where(np.abs(d) < _SERIES_RADIUS, _series(d, (-1.0) ** _J / _J), direct)


def _entropy_remainder(d: np.ndarray) -> np.ndarray:
    """(1 + d) log(1 + d) - d >= 0 (series sum_{j>=2} (-1)^j d^j / (j (j - 1)) near 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = np.where(d > -1.0, (1.0 + d) * np.log1p(d) - d, 1.0)  # x log x -> 0 as x -> 0
    return np.where(
        np.abs(d) < _SERIES_RADIUS, _series(d, (-1.0) ** _J / (_J * (_J - 1.0))), direct
    )


def _log_moment(
    weights: list[np.ndarray],
    ratios_minus_one: list[np.ndarray],
    log_ratios: list[np.ndarray],
    alpha: np.ndarray,
    upper: bool,
) -> np.ndarray:
    """log sum_i w_i x_i^t, t = alpha (``upper``) or 1 - alpha, for laws with sum_i w_i x_i = 1.

    S - 1 = sum_i w_i f_t(x_i) summed over non-negative parts (module docstring) where S < e;
    log-sum-exp of the positive terms w_i x_i^t beyond.
    """
    from scipy.special import (
        logsumexp,
    )  # lazy: scipy start-up time (import hockeystick loads no scipy)

    s = alpha - 1.0
    excess = np.zeros(np.broadcast_shapes(alpha.shape, *(w.shape for w in weights)))
    terms = []
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for w, d, log_x in zip(weights, ratios_minus_one, log_ratios):
            if upper:
                f = s * _entropy_remainder(d) + (1.0 + d) * _exp_remainder(s * log_x)
            else:
                f = _exp_remainder(-s * log_x) + s * _log_remainder(d)
            excess = excess + np.where(w > 0, w * f, 0.0)
            terms.append(
                np.where(w > 0, np.log(w) + (alpha if upper else 1.0 - alpha) * log_x, -np.inf)
            )
        log_sum = logsumexp(np.stack(np.broadcast_arrays(*terms)), axis=0)
        return np.where(log_sum > 1.0, log_sum, np.log1p(excess))


def randomized_response_rdp(
    noise_parameter: npt.ArrayLike,
    num_buckets: npt.ArrayLike,
    orders: npt.ArrayLike | None = None,
    *,
    relation: str = "replace_one",
) -> np.ndarray:
    """eps(alpha) of k-ary randomized response (module docstring): shape broadcast(p, k).shape + (len(orders),).

    ``noise_parameter`` p in [0, 1], ``num_buckets`` k an integer >= 1, ``relation`` one of
    ``RELATIONS``.
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    p = in_interval(noise_parameter, "noise_parameter", 0.0, 1.0, open_low=False, open_high=False)
    k = positive_integer(num_buckets, "num_buckets").astype(np.float64)
    alpha = check_orders(orders)
    p, k = np.broadcast_arrays(p, k)
    p, k = p[..., None], k[..., None]
    q = 1.0 - p  # exact for p >= 1/2
    with np.errstate(divide="ignore", invalid="ignore"):
        if relation == "replace_one":
            a, b = q + p / k, p / k
            d = k * q / p  # r - 1
            log_r = np.log1p(d)
            zero = np.zeros_like(d)
            log_s = _log_moment(
                [b, a, (k - 2.0) * b],
                [d, -d / (1.0 + d), zero],
                [log_r, -log_r, zero],
                alpha,
                upper=True,
            )
        else:
            weights = [1.0 / k, (k - 1.0) / k]
            d = [(k - 1.0) * q, -q]  # A - 1, p - 1
            logs = [np.log1p(d[0]), np.log(p)]
            log_s = np.maximum(
                _log_moment(weights, d, logs, alpha, upper=True),
                _log_moment(weights, d, logs, alpha, upper=False),
            )
        rdp = np.maximum(log_s, 0.0) / (alpha - 1.0)
    rdp = np.where((k == 1) | (p == 1), 0.0, np.where(p == 0, math.inf, rdp))
    return np.broadcast_to(
        rdp, np.broadcast_shapes(p.shape[:-1], k.shape[:-1]) + alpha.shape
    ).copy()
