"""Renyi DP of the Laplace mechanism (noise multiplier b = scale / L1 sensitivity), in closed form.

Mironov, "Renyi differential privacy", CSF 2017, Prop. 6, with eps = 1/b:

    eps_R(alpha) = eps + log1p((alpha - 1) expm1(eps (1 - 2 alpha)) / (2 alpha - 1)) / (alpha - 1),

exact for the Laplace mechanism, between alpha eps^2 / 2 (small orders) and eps (alpha -> inf).
log1p keeps full relative accuracy as alpha -> 1 (its argument is O(alpha - 1)), where the limit is
the KL divergence eps + expm1(-eps); dp_accounting's RdpAccountant evaluates the same formula (a
Taylor series below alpha = 1.1), so the two agree to rounding.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .mechanisms import check_orders


def laplace_rdp(noise_multiplier: npt.ArrayLike, orders: npt.ArrayLike | None = None) -> np.ndarray:
    """eps_R(alpha) of the Laplace mechanism: shape noise_multiplier.shape + (len(orders),)."""
    b = np.asarray(noise_multiplier, dtype=np.float64)
    if np.isnan(b).any() or np.any(b <= 0) or np.any(~np.isfinite(b)):
        raise ValueError(
            "noise_multiplier must be positive and finite (Laplace scale / L1 sensitivity)"
        )
    alpha = check_orders(orders)
    with np.errstate(over="ignore"):  # b below 1 / 1.8e308: eps = inf, an infinite curve
        eps = (1.0 / b)[..., None]
    am1 = alpha - 1.0
    return eps + np.log1p(am1 * np.expm1(eps * (1.0 - 2.0 * alpha)) / (2.0 * alpha - 1.0)) / am1
