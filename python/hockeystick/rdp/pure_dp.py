"""Renyi DP of any epsilon-DP mechanism: the divergence of binary randomized response, rounded upward.

Bound.  For an epsilon-DP pair (P, Q) the likelihood ratio Z = dP/dQ lies in [e^-epsilon, e^epsilon]
and E_Q[Z] = 1.  Rounding Z at random to an endpoint of that interval with its mean kept, Jensen's
inequality for the convex z -> z^alpha (alpha > 1) gives E_Q[Z^alpha] <= E_Q[Z'^alpha], where Z' is
the ratio of binary randomized response RR_epsilon: P = (e^epsilon, 1) / (1 + e^epsilon) against Q
the same reversed.  So, for every order alpha > 1 (Steinke, "Sharp RDP & zCDP from pure DP",
DifferentialPrivacy.org 2024, Thm. 4; equivalently, every epsilon-DP pair is a post-processing of
RR_epsilon, Kairouz, Oh & Viswanath 2015, Thm. 2.1 at delta = 0, and Renyi divergence satisfies data
processing):

    D_alpha(P || Q) <= D_alpha(RR_epsilon)
                     = log((e^{alpha eps} + e^{(1 - alpha) eps}) / (1 + e^eps)) / (alpha - 1)
                     = log(cosh((2 alpha - 1) eps / 2) / cosh(eps / 2)) / (alpha - 1)
                     = log1p(2 sinh(alpha eps / 2) sinh((alpha - 1) eps / 2) / cosh(eps / 2)) / (alpha - 1),

(cosh(x + y) - cosh(x - y) = 2 sinh x sinh y), equality for RR_epsilon itself, so the bound is the
supremum over epsilon-DP pairs.  It holds for both orders of every pair (the definition of
epsilon-DP is symmetric), so under every neighbouring relation.  Limits: epsilon tanh(epsilon / 2)
(the KL divergence) as alpha -> 1, epsilon as alpha -> inf, alpha epsilon^2 / 2 (Bun & Steinke 2016,
Prop. 1.4, which it never exceeds) as epsilon -> 0.  Permute-and-flip (McKenna & Sheldon 2020,
Thm. 1) and the exponential mechanism are epsilon-DP.

Evaluation.  With a = alpha eps / 2 and b = (alpha - 1) eps / 2 (so a - eps/2 = b is never formed),
sinh(a) / cosh(eps / 2) = e^b (1 - e^{-2a}) / (1 + e^{-eps}) and X = 2 sinh(b) e^b (1 - e^{-2a}) /
(1 + e^{-eps}): products of positive factors, each a few ulp, then log1p(X) / (alpha - 1).  For b >=
350 (X would overflow) log X = 2b + log(1 - e^{-2b}) + log((1 - e^{-2a}) / (1 + e^{-eps})) and
log1p(X) = log X + log1p(e^{-log X}). Below ``TINY_EPSILON`` (where alpha eps^2 would leave the
normal range inside the formula) the curve is alpha epsilon^2 / 2, an upper bound exceeding it by a
relative O(alpha^2 epsilon^2) < 1e-190.

Certified.  Against 50-digit mpmath over epsilon in [1e-99, 3e3] and orders in (1 + 1e-15, 1e4] the
float evaluation is within 4 ulp; ``round_up`` multiplies by 1 + ``RELATIVE_MARGIN`` (256 ulp) and
moves up one float, so no returned value is below the divergence it bounds (an underflowed one
included).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..base import validation as _validation
from .mechanisms import check_orders

__all__ = ["RELATIVE_MARGIN", "TINY_EPSILON", "pure_dp_rdp", "round_up"]

RELATIVE_MARGIN = (
    2.0**-44
)  # 256 ulp: the evaluations here and in ``bounded_range`` measured within 8 ulp of 50 digits
TINY_EPSILON = 1e-100  # below it, the small-epsilon zCDP bound (its intermediates stay in the normal range above)
_LOG_BRANCH = 350.0  # b at or above it: X in log space (e^b sinh(b) would overflow near b = 355)


def round_up(rdp: np.ndarray) -> np.ndarray:
    """Each finite value times (1 + ``RELATIVE_MARGIN``), then up one float (so an underflowed 0
    becomes the least positive float); inf unchanged.  An exact 0 is the caller's to restore."""
    with np.errstate(over="ignore"):
        up = np.nextafter(rdp * (1.0 + RELATIVE_MARGIN), np.inf)
    return np.where(np.isfinite(rdp), up, rdp)


def pure_dp_rdp(epsilon: npt.ArrayLike, orders: npt.ArrayLike | None = None) -> np.ndarray:
    """D_alpha(RR_epsilon) at each order, rounded up (module docstring): the RDP curve of any
    epsilon-DP mechanism, shape epsilon.shape + (len(orders),).

    ``epsilon`` >= 0 (0 releases nothing: 0; inf: inf), ``orders`` in (1, ``MAX_ORDER``] (None:
    DEFAULT_ORDERS).
    """
    eps = _validation.nonnegative(epsilon, "epsilon", finite=False)[..., None]
    alpha = check_orders(orders)
    lam = alpha - 1.0
    u = 0.5 * eps
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        a, b = alpha * u, lam * u
        shape = -np.expm1(-2.0 * a) / (1.0 + np.exp(-eps))  # sinh(a) / cosh(eps / 2) over e^b
        direct = np.log1p(2.0 * np.sinh(b) * np.exp(b) * shape) / lam
        log_x = 2.0 * b + np.log(-np.expm1(-2.0 * b)) + np.log(shape)
        far = (log_x + np.log1p(np.exp(-log_x))) / lam
        rdp = np.where(b < _LOG_BRANCH, direct, far)
        rdp = np.where(eps < TINY_EPSILON, 0.5 * alpha * eps * eps, rdp)
    rdp = np.where(eps == 0.0, 0.0, np.where(eps == math.inf, math.inf, round_up(rdp)))
    return np.broadcast_to(rdp, eps.shape[:-1] + alpha.shape).copy()
