"""From an RDP curve eps_R(alpha) to (eps, delta), minimised over the orders.

``conversion="classic"`` (Mironov 2017, Prop. 3):
    eps(delta) = min_alpha eps_R(alpha) + log(1/delta) / (alpha - 1)
    delta(eps) = min_alpha exp((alpha - 1)(eps_R(alpha) - eps))

``conversion="tight"`` (Balle et al. 2020, Thm. 21; Canonne, Kamath, Steinke 2020, Prop. 12),
the conversion of dp_accounting's RdpAccountant, term for term:
    eps(delta) = min_alpha eps_R(alpha) + log(1 - 1/alpha) - log(delta alpha) / (alpha - 1)   (alpha > 1.01)
    delta(eps) = min_alpha exp((alpha - 1)(eps_R(alpha) - eps + log(1 - 1/alpha)) - log alpha)  (alpha > 1.01)
  together with the total-variation bound delta <= sqrt(1 - exp(-eps_R(alpha))) (eps_R(alpha) >= KL,
  Bretagnolle & Huber 1979), which gives eps = 0 once delta^2 >= 1 - exp(-eps_R(alpha)).
  Orders at or below 1.01 are used only through the TV bound (the tight formula is unstable there).

Both are upper bounds: eps >= 0 and delta <= 1 are enforced.  Orders must be finite and > 1 (the
conversions hold for Renyi orders above 1 only; ValueError otherwise).  Arrays: with a 1-D ``orders``,
``rdp`` has the orders on its last axis; a scalar order is one order and every entry of ``rdp`` is a
curve's value there.  ``epsilon``/``delta`` broadcast with the leading axes of ``rdp``.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from ..base.validation import choice, delta_values, epsilon_values, scalar_or_array
from .mechanisms import check_orders

__all__ = ["CONVERSIONS", "rdp_to_epsilon", "rdp_to_delta"]

CONVERSIONS = ("tight", "classic")


def _prepare(
    rdp: npt.ArrayLike, orders: npt.ArrayLike, target: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r = np.asarray(rdp, dtype=np.float64)
    alpha = check_orders(orders, max_order=np.inf)
    if np.ndim(orders) == 0:  # one order: every entry of rdp is a value at it
        r = r[..., None]
    if r.ndim == 0 or r.shape[-1] != alpha.shape[-1] or alpha.ndim != 1:
        raise ValueError(f"rdp must have the orders on its last axis (rdp {r.shape}, orders {alpha.shape})")
    if np.isnan(r).any() or (r < 0).any():
        raise ValueError("rdp values must be >= 0 and not NaN")
    try:
        lead = np.broadcast_shapes(r.shape[:-1], target.shape)
    except ValueError:
        raise ValueError(f"rdp {r.shape[:-1]} and the target {target.shape} do not broadcast together") from None
    return np.broadcast_to(r, lead + alpha.shape), alpha, np.broadcast_to(target, lead)[..., None]


def rdp_to_epsilon(
    rdp: npt.ArrayLike, orders: npt.ArrayLike, delta: npt.ArrayLike, *, conversion: str = "tight"
) -> float | np.ndarray:
    """Smallest eps the RDP curve certifies at ``delta`` in (0, 1)."""
    choice(conversion, "conversion", CONVERSIONS)
    d = delta_values(delta)
    r, alpha, d = _prepare(rdp, orders, d)
    log_d = np.log(d)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if conversion == "classic":
            eps = r - log_d / (alpha - 1)
        else:
            eps = np.where(alpha > 1.01, r + np.log1p(-1.0 / alpha) - (log_d + np.log(alpha)) / (alpha - 1), np.inf)
            eps = np.where(np.square(d) + np.expm1(-r) > 0, 0.0, eps)
    eps = np.where(np.isnan(eps), np.inf, eps)
    return cast("float | np.ndarray", scalar_or_array(np.maximum(0.0, eps.min(axis=-1))))


def rdp_to_delta(
    rdp: npt.ArrayLike, orders: npt.ArrayLike, epsilon: npt.ArrayLike, *, conversion: str = "tight"
) -> float | np.ndarray:
    """Smallest delta the RDP curve certifies at ``epsilon`` >= 0."""
    choice(conversion, "conversion", CONVERSIONS)
    e = epsilon_values(epsilon)  # inf allowed: delta(inf) = 0
    r, alpha, e = _prepare(rdp, orders, e)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if conversion == "classic":
            log_delta = (alpha - 1) * (r - e)
        else:
            # log(1 - e^-r) as log(-expm1(-r)): 1 - e^-r by log1p(-exp(-r)) is 0 for r < 1.1e-16.
            log_tv = np.where(r > 0, 0.5 * np.log(-np.expm1(-r)), -np.inf)
            log_rdp = np.where(alpha > 1.01, (alpha - 1) * (r - e + np.log1p(-1.0 / alpha)) - np.log(alpha), np.inf)
            log_delta = np.minimum(log_tv, log_rdp)
    log_delta = np.where(np.isnan(log_delta), np.inf, log_delta)
    return cast("float | np.ndarray", scalar_or_array(np.minimum(1.0, np.exp(log_delta.min(axis=-1)))))
