"""(xi, rho)-zCDP to (eps, delta): certified upper bounds, each at its near-optimal Renyi order.

A mechanism is (xi, rho)-zCDP when every Renyi divergence of order alpha > 1 between its outputs on
neighbours is at most xi + rho alpha (Bun & Steinke 2016, Def. 1.1); rho-zCDP is xi = 0.  Its RDP
curve is that line, so the RDP conversion of Canonne, Kamath, Steinke 2020 (Prop. 12; Cor. 13 for
zCDP; the ``conversion="tight"`` of ``rdp.conversion``) holds at every alpha > 1:

    delta(eps) <= exp((alpha - 1)(xi + rho alpha - eps) + (alpha - 1) log(1 - 1/alpha) - log alpha)
    eps(delta) <= xi + rho alpha + log(1 - 1/alpha) - (log delta + log alpha) / (alpha - 1),

and with the total variation bound delta(eps) <= delta(0) <= sqrt(1 - e^{-(xi + rho)})
(Kullback-Leibler divergence at most xi + rho, the limit alpha -> 1; Bretagnolle & Huber 1979).  Any
alpha gives a valid bound, so alpha is searched in floating point (a grid of log(alpha - 1), then
Brent's method) and only the value at the alpha found is certified: every rounded term's error
bounded (a few u relative each, u = 2^-53), the sum widened by 16 u times the sum of the terms'
magnitudes, exp rounded up past its one-ulp error.  The values at the alpha found are within 1e-9
relative of the infimum over alpha (tests: 50-digit mpmath).

These are upper bounds for every (xi, rho)-zCDP mechanism.  The Gaussian mechanism of radius mu =
sqrt(2 rho) is rho-zCDP, so its exact delta, theta(mu, eps) (``certified_theta``), is a lower bound
on the worst case over the class: the truth for a mechanism known only to be rho-zCDP lies between
the two (``interop.zcdp_plan`` reports that bracket for ``ZCDpEvent``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..base import validation as _validation

__all__ = ["zcdp_to_delta", "zcdp_to_epsilon"]

UNIT_ROUNDOFF = 2.0**-53
WIDEN = 16.0 * UNIT_ROUNDOFF  # relative charge on the summed magnitudes of a bound's rounded terms
LOG_GAP = np.linspace(-36.0, 700.0, 1473)  # log(alpha - 1) searched first (steps of 0.5)


def _checked(rho: float, xi: float) -> tuple[float, float]:
    r = float(_validation.nonnegative(_validation.single(rho, "rho"), "rho"))
    x = float(_validation.nonnegative(_validation.single(xi, "xi"), "xi"))
    return r, x


def _order(log_gap: float) -> tuple[float, float]:
    """(alpha, alpha - 1) from log(alpha - 1): alpha = 1 + e^t rounded, alpha - 1 then exact
    (Sterbenz below 2, a multiple of alpha's ulp above; past 2^53 within u, which the terms' charge
    covers)."""
    alpha = 1.0 + math.exp(log_gap)
    return alpha, alpha - 1.0 if alpha < 2.0**53 else alpha


def _log_delta_terms(log_gap: float, rho: float, xi: float, eps: float) -> tuple[float, float]:
    """(log delta at alpha = 1 + e^log_gap, a bound on its round-off) by the conversion above.
    log(1 - 1/alpha) is taken as log(alpha - 1) - log(alpha) (log1p(-1/alpha) loses its digits as
    alpha -> 1); each term errs by a few u of its magnitude, the magnitudes' sum times ``WIDEN``
    covers them and the sum's two roundings."""
    alpha, gap = _order(log_gap)
    line = xi + rho * alpha - eps
    log_alpha = math.log1p(gap)
    shrink = math.log(gap) - log_alpha
    value = gap * line + gap * shrink - log_alpha
    magnitude = (
        gap * (xi + rho * alpha + abs(eps)) + gap * (abs(math.log(gap)) + log_alpha) + log_alpha
    )
    return value, WIDEN * magnitude + 1e-300


def _epsilon_terms(log_gap: float, rho: float, xi: float, log_delta: float) -> tuple[float, float]:
    """(eps at alpha = 1 + e^log_gap, a bound on its round-off) by the conversion above (log_delta within an ulp)."""
    alpha, gap = _order(log_gap)
    log_alpha = math.log1p(gap)
    shrink = math.log(gap) - log_alpha
    tail = (log_delta + log_alpha) / gap
    value = xi + rho * alpha + shrink - tail
    magnitude = (
        xi + rho * alpha + abs(math.log(gap)) + log_alpha + (abs(log_delta) + log_alpha) / gap
    )
    return value, WIDEN * magnitude + 1e-300


def _best_log_gap(objective: np.ndarray, fine: Callable[[float], float]) -> float:
    """log(alpha - 1) near the minimum of ``objective`` (its values on ``LOG_GAP``), refined by
    Brent's method on ``fine`` (kept only where it improves on the grid's best)."""
    from scipy import optimize  # lazy: scipy start-up time (import hockeystick loads no scipy)

    values = np.where(np.isfinite(objective), objective, np.inf)
    i = int(np.argmin(values))
    lo, hi = float(LOG_GAP[max(i - 1, 0)]), float(LOG_GAP[min(i + 1, LOG_GAP.size - 1)])
    with np.errstate(
        invalid="ignore", over="ignore"
    ):  # inf - inf in its parabola step where ``fine`` is inf
        found = optimize.minimize_scalar(
            fine, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10}
        )
    x = float(found.x)
    return x if fine(x) <= fine(float(LOG_GAP[i])) else float(LOG_GAP[i])


def _safe(f: Callable[[float], float]) -> Callable[[float], float]:
    """f, with inf where it overflows or is undefined (the search only compares values)."""

    def g(x: float) -> float:
        try:
            value = f(x)
        except (OverflowError, ValueError, ZeroDivisionError):
            return math.inf
        return value if math.isfinite(value) else math.inf

    return g


def _tv_upper(rho: float, xi: float) -> float:
    """sqrt(1 - e^{-(xi + rho)}) rounded up: the sum and the square root one rounding each, expm1 two ulps."""
    kl = (xi + rho) * (1.0 + 2.0 * UNIT_ROUNDOFF)
    return min(
        math.nextafter(math.sqrt(-math.expm1(-kl) * (1.0 + 6.0 * UNIT_ROUNDOFF)), math.inf), 1.0
    )


def zcdp_to_delta(rho: float, epsilon: float, *, xi: float = 0.0) -> float:
    r"""Certified upper bound on delta(``epsilon``) of any (``xi``, ``rho``)-zCDP mechanism.

    The RDP curve xi + rho alpha converted at a near-optimal order alpha > 1, and capped by the
    total-variation bound:

    .. math::

        \delta(\varepsilon) \le \min\Bigl(e^{(\alpha - 1)(\xi + \rho\alpha - \varepsilon)
        + (\alpha - 1)\log(1 - 1/\alpha) - \log\alpha},\ \sqrt{1 - e^{-(\xi + \rho)}}\Bigr).

    alpha is searched in floating point and the value at the alpha found is rounded up past every
    rounding error, so the result is a certified upper bound.

    Parameters
    ----------
    rho : float
        The zCDP parameter rho, finite and >= 0.
    epsilon : float
        The eps, >= 0 (``inf`` gives 0).
    xi : float, optional
        The zCDP offset xi, finite and >= 0 (default 0: rho-zCDP).

    Returns
    -------
    float
        The bound, in [0, 1]; 0 for rho = xi = 0.

    Raises
    ------
    ValueError
        If rho or xi is negative or not finite, or epsilon is negative or NaN.
    ParameterTypeError
        If an argument is a string, a boolean, None or an array (one number each).

    References
    ----------
    Bun & Steinke 2016, Def. 1.1 (zCDP); Canonne, Kamath & Steinke 2020, Prop. 12 and Cor. 13 (the
    conversion); Bretagnolle & Huber 1979 (the total-variation bound).

    Examples
    --------
    >>> from hockeystick.rdp import zcdp_to_delta
    >>> round(zcdp_to_delta(0.5, 1.0), 6)
    0.246846
    """
    r, x = _checked(rho, xi)
    eps = float(_validation.epsilon_target(epsilon))
    if r == 0.0 and x == 0.0:
        return 0.0
    if eps == math.inf:
        return 0.0
    tv = _tv_upper(r, x)
    alpha = 1.0 + np.exp(LOG_GAP)
    with np.errstate(all="ignore"):
        gaps = np.exp(LOG_GAP)
        coarse = gaps * (x + r * alpha - eps) + gaps * np.log1p(-1.0 / alpha) - np.log1p(gaps)
    best = _best_log_gap(coarse, _safe(lambda t: _log_delta_terms(t, r, x, eps)[0]))
    value, error = _log_delta_terms(best, r, x, eps)
    if not math.isfinite(value):
        return tv
    bound = math.nextafter(
        math.exp(min(value + error, 0.0)) * (1.0 + 4.0 * UNIT_ROUNDOFF), math.inf
    )
    return min(bound, tv, 1.0)


def zcdp_to_epsilon(rho: float, delta: float, *, xi: float = 0.0) -> float:
    r"""Certified upper bound on the least eps with delta(eps) <= ``delta`` for any (``xi``, ``rho``)-zCDP mechanism.

    The RDP curve xi + rho alpha converted at a near-optimal order alpha > 1,

    .. math::

        \varepsilon(\delta) \le \xi + \rho\alpha + \log(1 - 1/\alpha) - \frac{\log\delta + \log\alpha}{\alpha - 1},

    and 0 when delta is at least the total-variation bound :math:`\sqrt{1 - e^{-(\xi + \rho)}}`.
    alpha is searched in floating point and the value at the alpha found is rounded up past every
    rounding error.

    Parameters
    ----------
    rho : float
        The zCDP parameter rho, finite and >= 0.
    delta : float
        The target delta, 0 < delta < 1.
    xi : float, optional
        The zCDP offset xi, finite and >= 0 (default 0: rho-zCDP).

    Returns
    -------
    float
        The bound, >= 0; 0 for rho = xi = 0.

    Raises
    ------
    ValueError
        If rho or xi is negative or not finite, or delta lies outside (0, 1).
    ParameterTypeError
        If an argument is a string, a boolean, None or an array (one number each).

    References
    ----------
    Bun & Steinke 2016, Def. 1.1; Canonne, Kamath & Steinke 2020, Prop. 12 and Cor. 13; Bretagnolle
    & Huber 1979.

    Examples
    --------
    >>> from hockeystick.rdp import zcdp_to_epsilon
    >>> round(zcdp_to_epsilon(0.5, 1e-5), 6)
    4.728387
    """
    r, x = _checked(rho, xi)
    d = _validation.delta_target(delta)
    if r == 0.0 and x == 0.0:
        return 0.0
    # delta >= the TV bound: eps = 0 (delta squared and the bound's square each within a few u)
    kl = (x + r) * (1.0 + 2.0 * UNIT_ROUNDOFF)
    if d * d * (1.0 - 4.0 * UNIT_ROUNDOFF) >= -math.expm1(-kl) * (1.0 + 4.0 * UNIT_ROUNDOFF):
        return 0.0
    log_d = math.log(d)  # within one ulp: charged in _epsilon_terms' magnitude
    alpha = 1.0 + np.exp(LOG_GAP)
    with np.errstate(all="ignore"):
        gaps = np.exp(LOG_GAP)
        coarse = x + r * alpha + np.log1p(-1.0 / alpha) - (log_d + np.log1p(gaps)) / gaps
    best = _best_log_gap(coarse, _safe(lambda t: _epsilon_terms(t, r, x, log_d)[0]))
    value, error = _epsilon_terms(best, r, x, log_d)
    if not math.isfinite(value):
        return math.inf
    return max(math.nextafter(value + error, math.inf), 0.0)
