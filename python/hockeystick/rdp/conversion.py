"""From an RDP curve eps_R(alpha) to (eps, delta), minimised over the orders.

``conversion="classic"`` (Mironov 2017, Prop. 3):
    eps(delta) = min_alpha eps_R(alpha) + log(1/delta) / (alpha - 1)
    delta(eps) = min_alpha exp((alpha - 1)(eps_R(alpha) - eps))

``conversion="tight"`` (Balle et al. 2020, Thm. 21; Canonne, Kamath, Steinke 2020, Prop. 12),
the conversion of dp_accounting's RdpAccountant, term for term:
    eps(delta) = min_alpha eps_R(alpha) + log(1 - 1/alpha) - log(delta alpha) / (alpha - 1)   (alpha > 1.01)
    delta(eps) = min_alpha exp((alpha - 1)(eps_R(alpha) - eps + log(1 - 1/alpha)) - log alpha)  (alpha > 1.01)
  together with the total-variation bound delta(0) <= sqrt(1 - exp(-eps_R(alpha))) (eps_R(alpha) >= KL,
  Bretagnolle & Huber 1979), which gives eps = 0 where delta^2 > 1 - exp(-eps_R(alpha)), tested as
  delta^2 + expm1(-eps_R(alpha)) > 0 in double precision.  The bound also gives 0 at equality, but for
  double inputs equality never holds exactly (exp(-eps_R) is transcendental for eps_R > 0); a computed tie
  (the sum rounding to 0) hides either sign, so a tie keeps the order formula's value.  A positive
  computed sum is at least an ulp of delta^2, more than the rounding of delta^2 (half an ulp) and of
  expm1 (half an ulp when correctly rounded) together.
  Orders at or below 1.01 are used only through the TV bound (the tight formula is unstable there).

Both are upper bounds: eps >= 0 and delta <= 1 are enforced.  Orders must be finite and > 1 (the
conversions hold for Renyi orders above 1 only; ValueError otherwise).  Arrays: with a 1-D
``orders``, ``rdp`` has the orders on its last axis; a scalar order is one order and every entry of
``rdp`` is a curve's value there.  ``epsilon``/``delta`` broadcast with the leading axes of ``rdp``.
"""

from __future__ import annotations

from typing import Literal, cast

import numpy as np
import numpy.typing as npt

from ..base.validation import choice, delta_values, epsilon_values, scalar_or_array
from .mechanisms import check_orders

__all__ = ["CONVERSIONS", "rdp_to_epsilon", "rdp_to_delta"]

# the RDP-to-(eps, delta) conversions: Balle et al. 2020's tight one, Mironov 2017's classic one
Conversion = Literal["tight", "classic"]
CONVERSIONS: tuple[Conversion, ...] = ("tight", "classic")


def _prepare(
    rdp: npt.ArrayLike, orders: npt.ArrayLike, target: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r = np.asarray(rdp, dtype=np.float64)
    alpha = check_orders(orders, max_order=np.inf)
    if np.ndim(orders) == 0:  # one order: every entry of rdp is a value at it
        r = r[..., None]
    if r.ndim == 0 or r.shape[-1] != alpha.shape[-1] or alpha.ndim != 1:
        raise ValueError(
            f"rdp must have the orders on its last axis (rdp {r.shape}, orders {alpha.shape})"
        )
    if np.isnan(r).any() or (r < 0).any():
        raise ValueError("rdp values must be >= 0 and not NaN")
    try:
        lead = np.broadcast_shapes(r.shape[:-1], target.shape)
    except ValueError:
        raise ValueError(
            f"rdp {r.shape[:-1]} and the target {target.shape} do not broadcast together"
        ) from None
    return np.broadcast_to(r, lead + alpha.shape), alpha, np.broadcast_to(target, lead)[..., None]


def rdp_to_epsilon(
    rdp: npt.ArrayLike,
    orders: npt.ArrayLike,
    delta: npt.ArrayLike,
    *,
    conversion: Conversion = "tight",
) -> float | np.ndarray:
    r"""Upper bound on the smallest eps with delta(eps) <= ``delta``, from an RDP curve, minimised over the orders.

    ``conversion="tight"`` (dp_accounting's, term for term), for orders above 1.01:

    .. math::

        \varepsilon(\delta) = \min_\alpha\ \varepsilon_R(\alpha) + \log(1 - 1/\alpha)
        - \frac{\log(\delta\alpha)}{\alpha - 1},

    and eps = 0 wherever :math:`\delta^2 > 1 - e^{-\varepsilon_R(\alpha)}` at some order (the
    total-variation bound); ``conversion="classic"``: :math:`\varepsilon(\delta) = \min_\alpha
    \varepsilon_R(\alpha) + \log(1/\delta)/(\alpha - 1)`.

    Parameters
    ----------
    rdp : array_like
        RDP values eps_R(alpha) >= 0 (``inf`` allowed, NaN refused), with the orders on the last
        axis; for a scalar ``orders`` every entry is a curve's value at that one order.
    orders : array_like
        The Renyi orders alpha, finite and > 1: a 1-d sequence matching the last axis of ``rdp``, or
        one order.
    delta : array_like
        Target delta, 0 < delta < 1; broadcasts with the leading axes of ``rdp``.
    conversion : {"tight", "classic"}, optional
        The conversion (default ``"tight"``).

    Returns
    -------
    float or numpy.ndarray
        eps >= 0 (``inf`` where no order certifies ``delta``); a float for scalar inputs, else an
        array of the broadcast leading shape.

    Raises
    ------
    ValueError
        If ``delta`` lies outside (0, 1), an order is not finite and > 1, ``rdp`` is negative or NaN
        or its last axis does not match ``orders``, the shapes do not broadcast, or ``conversion``
        is not one of the two.
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Balle et al. 2020, Thm 21; Canonne, Kamath & Steinke 2020, Prop. 12 (tight); Mironov 2017, Prop.
    3 (classic); Bretagnolle & Huber 1979 (the total-variation bound).

    Examples
    --------
    >>> from hockeystick.rdp import rdp_to_epsilon
    >>> round(rdp_to_epsilon([0.5, 1.0, 2.0], [2.0, 3.0, 5.0], 1e-5), 6)
    4.252728
    >>> round(rdp_to_epsilon([0.5, 1.0, 2.0], [2.0, 3.0, 5.0], 1e-5, conversion="classic"), 6)
    4.878231
    """
    choice(conversion, "conversion", CONVERSIONS)
    d = delta_values(delta)
    r, alpha, d = _prepare(rdp, orders, d)
    log_d = np.log(d)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if conversion == "classic":
            eps = r - log_d / (alpha - 1)
        else:
            eps = np.where(
                alpha > 1.01,
                r + np.log1p(-1.0 / alpha) - (log_d + np.log(alpha)) / (alpha - 1),
                np.inf,
            )
            eps = np.where(np.square(d) + np.expm1(-r) > 0, 0.0, eps)
    eps = np.where(np.isnan(eps), np.inf, eps)
    return cast("float | np.ndarray", scalar_or_array(np.maximum(0.0, eps.min(axis=-1))))


def rdp_to_delta(
    rdp: npt.ArrayLike,
    orders: npt.ArrayLike,
    epsilon: npt.ArrayLike,
    *,
    conversion: Conversion = "tight",
) -> float | np.ndarray:
    r"""Upper bound on delta(``epsilon``) from an RDP curve, minimised over the orders.

    ``conversion="tight"`` (dp_accounting's, term for term):

    .. math::

        \delta(\varepsilon) = \min\Bigl( \min_{\alpha > 1.01} e^{(\alpha - 1)(\varepsilon_R(\alpha) - \varepsilon
        + \log(1 - 1/\alpha)) - \log\alpha},\ \min_\alpha \sqrt{1 - e^{-\varepsilon_R(\alpha)}} \Bigr),

    the second term the total-variation bound; ``conversion="classic"``:
    :math:`\delta(\varepsilon) = \min_\alpha e^{(\alpha - 1)(\varepsilon_R(\alpha) - \varepsilon)}`.  Capped at 1.

    Parameters
    ----------
    rdp : array_like
        RDP values eps_R(alpha) >= 0 (``inf`` allowed, NaN refused), with the orders on the last
        axis; for a scalar ``orders`` every entry is a curve's value at that one order.
    orders : array_like
        The Renyi orders alpha, finite and > 1: a 1-d sequence matching the last axis of ``rdp``, or
        one order.
    epsilon : array_like
        The eps, >= 0 (``inf`` gives 0); broadcasts with the leading axes of ``rdp``.
    conversion : {"tight", "classic"}, optional
        The conversion (default ``"tight"``).

    Returns
    -------
    float or numpy.ndarray
        delta in [0, 1]; a float for scalar inputs, else an array of the broadcast leading shape.

    Raises
    ------
    ValueError
        If ``epsilon`` is negative or NaN, an order is not finite and > 1, ``rdp`` is negative or
        NaN or its last axis does not match ``orders``, the shapes do not broadcast, or
        ``conversion`` is not one of the two.
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Balle et al. 2020, Thm 21; Canonne, Kamath & Steinke 2020, Prop. 12 (tight); Mironov 2017, Prop.
    3 (classic); Bretagnolle & Huber 1979 (the total-variation bound).

    Examples
    --------
    >>> from hockeystick.rdp import rdp_to_delta
    >>> round(rdp_to_delta([0.5, 1.0, 2.0], [2.0, 3.0, 5.0], 3.0), 6)
    0.0015
    >>> round(rdp_to_delta([0.5, 1.0, 2.0], [2.0, 3.0, 5.0], 3.0, conversion="classic"), 6)
    0.018316
    """
    choice(conversion, "conversion", CONVERSIONS)
    e = epsilon_values(epsilon)  # inf allowed: delta(inf) = 0
    r, alpha, e = _prepare(rdp, orders, e)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if conversion == "classic":
            log_delta = (alpha - 1) * (r - e)
        else:
            # log(1 - e^-r) as log(-expm1(-r)): 1 - e^-r by log1p(-exp(-r)) is 0 for r < 1.1e-16.
            log_tv = np.where(r > 0, 0.5 * np.log(-np.expm1(-r)), -np.inf)
            log_rdp = np.where(
                alpha > 1.01, (alpha - 1) * (r - e + np.log1p(-1.0 / alpha)) - np.log(alpha), np.inf
            )
            log_delta = np.minimum(log_tv, log_rdp)
    log_delta = np.where(np.isnan(log_delta), np.inf, log_delta)
    return cast(
        "float | np.ndarray", scalar_or_array(np.minimum(1.0, np.exp(log_delta.min(axis=-1))))
    )
