"""Renyi DP of epsilon-bounded-range mechanisms (the exponential mechanism), exact, rounded upward.

Bound.  The exponential mechanism of parameter epsilon is epsilon-bounded-range (Durfee & Rogers
2019; ``pld.selection``): on a neighbouring pair its privacy loss L = log dP/dQ lies in [t -
epsilon, t] for some t, and t is in [0, epsilon] (L takes both signs, or is 0).  Y = e^{-L} lies in
[e^{-t}, e^{epsilon - t}] with E_P[Y] = 1, and E_Q[(dP/dQ)^alpha] = E_P[Y^{1 - alpha}] with y ->
y^{1 - alpha} convex (alpha > 1): rounding Y at random to an endpoint with its mean kept, Jensen's
inequality bounds it by its value on the two-point pair B_t, of P-mass p_t = (e^epsilon - e^t) /
(e^epsilon - 1) at loss t and 1 - p_t at loss t - epsilon (the pair ``pld.selection`` splits every
bounded-range pair into).  B_t is itself epsilon-bounded-range, so the RDP of the class is (Cesar &
Rogers, "Bounding, Concentrating, and Truncating", ALT 2021: the Renyi divergence of bounded-range
mechanisms as a supremum over this one-parameter family)

    eps_BR(alpha) = sup_{t in [0, epsilon]} log(p_t e^{(alpha - 1) t} + (1 - p_t) e^{(alpha - 1)(t - epsilon)}) / (alpha - 1).

With lam = alpha - 1, w = e^t and c = (1 - e^{-lam epsilon}) / (e^epsilon - 1), the logarithm is
f(w) = lam log w + log(1 - (w - 1) c): concave, 0 at w = 1 and at w = e^epsilon, so its maximum is
the interior root w* = lam (1 + c) / (alpha c), where 1 - (w* - 1) c = (1 + c) / alpha:

    eps_BR(alpha) = log w* + log((1 + c) / alpha) / (alpha - 1).

It holds for both orders of every pair (the reversed pair is epsilon-bounded-range too), so under
every neighbouring relation.  eps_BR lies between the RDP of randomized response of epsilon / 2 (the
exponential mechanism on two candidates) and min(alpha epsilon^2 / 8, the epsilon-DP bound
``pure_dp``); it is below the Renyi divergence log(sinh((2 alpha - 1) epsilon / 2) / ((2 alpha - 1)
sinh(epsilon / 2))) / (alpha - 1) of the continuous pair ``pld.selection`` composes, which dominates
every B_t at every hockey-stick order but is not itself bounded-range (its losses span 2 epsilon).

Evaluation.

* epsilon >= ``_CLOSED_FORM``: the closed form expanded, with A = 1 - e^{-lam epsilon}, eps_BR =
  epsilon + log(1 - e^-epsilon) - log alpha - log(A / lam) + (alpha / lam) log1p(c) - log(alpha) /
  lam, whose terms are O(epsilon) and O(log alpha): within a few ulp.
* epsilon below it, where that form cancels (eps_BR ~ alpha epsilon^2 / 8 out of O(1) terms): B_t at
  t = t*, from non-negative parts.  w* - 1 = N / (alpha A) with N = lam (e^eps - 1 - eps) + (e^{-lam
  eps} - 1 + lam eps), and e^{eps - t*} - 1 = e^{-lam eps} G / (alpha A w*) with e^{-lam eps} G =
  lam e^{-lam eps} (eps e^eps - e^eps + 1)
  + e^eps h(e^{-lam eps}), h(x) = x log x - x + 1: every term >= 0, so t* and epsilon - t* keep full
    relative
  accuracy.  Then Q-masses expm1(eps - t*) / expm1(eps) at ratio e^{t*} and expm1(t*) e^{eps - t*} / expm1(eps)
  at ratio e^{t* - eps}, and log E_Q[(P/Q)^alpha] summed over non-negative parts (``randomized_response``).
  A t* off by rounding gives a member of the family a hair below the supremum: alpha dt^2 / 2, second order.
* epsilon below ``TINY_EPSILON``: alpha epsilon^2 / 8 (Cesar & Rogers 2021: epsilon-BR is
  epsilon^2/8-zCDP), above eps_BR by a relative O(alpha^2 epsilon^2).

Certified.  Against 50-digit mpmath (the closed form, and a golden-section search over t) for
epsilon in [1e-99, 3e3] and orders in (1 + 1e-15, 1e4] the float evaluation is within 8 ulp;
``pure_dp.round_up`` adds 256 ulp and one float.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..base import validation as _validation
from .mechanisms import check_orders
from .pure_dp import TINY_EPSILON, round_up
from .randomized_response import _entropy_remainder, _exp_remainder, _log_moment

__all__ = ["bounded_range_rdp"]

_CLOSED_FORM = 3.0  # epsilon at or above it: the expanded closed form (measured within 8 ulp there)


def _closed_form(eps: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """eps_BR by the expanded closed form (module docstring), for epsilon >= ``_CLOSED_FORM``."""
    lam = alpha - 1.0
    a = -np.expm1(-lam * eps)
    c = a / np.expm1(eps)
    log_alpha = np.log1p(lam)
    rdp = (
        eps
        + np.log1p(-np.exp(-eps))
        - log_alpha
        - np.log(a / lam)
        + np.log1p(c) * (alpha / lam)
        - log_alpha / lam
    )
    return np.asarray(rdp)


def _two_point(eps: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """eps_BR as D_alpha(B_t*) from non-negative parts (module docstring), for small and moderate epsilon."""
    lam = alpha - 1.0
    a = -np.expm1(-lam * eps)
    growth = np.expm1(eps)
    w_minus_1 = (lam * _exp_remainder(eps) + _exp_remainder(-lam * eps)) / (alpha * a)
    t = np.log1p(w_minus_1)
    g = lam * np.exp(-lam * eps) * _entropy_remainder(growth) + np.exp(eps) * _entropy_remainder(
        np.expm1(-lam * eps)
    )
    r = np.log1p(g / (alpha * a * (1.0 + w_minus_1)))  # epsilon - t*
    q_high = np.expm1(r) / growth  # Q-mass at ratio e^t
    q_low = np.expm1(t) * np.exp(r) / growth  # Q-mass at ratio e^-r
    log_s = _log_moment([q_high, q_low], [np.expm1(t), np.expm1(-r)], [t, -r], alpha, upper=True)
    return np.asarray(log_s / lam)


def bounded_range_rdp(epsilon: npt.ArrayLike, orders: npt.ArrayLike | None = None) -> np.ndarray:
    """eps_BR(alpha) at each order, rounded up (module docstring): the RDP curve of an
    epsilon-bounded-range mechanism (the exponential mechanism of parameter epsilon), shape
    epsilon.shape + (len(orders),).

    ``epsilon`` >= 0 (0 releases nothing: 0; inf: inf), ``orders`` in (1, ``MAX_ORDER``] (None:
    DEFAULT_ORDERS).
    """
    eps = _validation.nonnegative(epsilon, "epsilon", finite=False)[..., None]
    alpha = check_orders(orders)
    eps, alpha = np.broadcast_arrays(eps, alpha)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        rdp = np.where(eps >= _CLOSED_FORM, _closed_form(eps, alpha), _two_point(eps, alpha))
        rdp = np.where(eps < TINY_EPSILON, 0.125 * alpha * eps * eps, rdp)
    return np.where(eps == 0.0, 0.0, np.where(eps == math.inf, math.inf, round_up(rdp)))
