r"""The distributed Skellam mechanism: RDP of the sum of n clients' Skellam noises.

Each of n clients adds symmetric Skellam noise of variance mu to each integer coordinate (Pois(mu
/ 2) minus an independent Pois(mu / 2)); the sum is symmetric Skellam of variance V = n mu, exactly.
For an integer shift Delta with ||Delta||_2 <= Delta_2 and ||Delta||_1 <= Delta_1, Agarwal, Kairouz
& Liu 2021 ("The Skellam mechanism for differentially private federated learning", NeurIPS;
arXiv:2110.04995), Cor. 3.6 (the multi-dimensional Skellam mechanism), at integer orders alpha > 1:

.. math::

    D_\alpha \le \frac{\alpha \Delta_2^2}{2V}
        + \min\Bigl(\frac{(2\alpha - 1)\Delta_2^2 + 6\Delta_1}{4V^2},\ \frac{3\Delta_1}{2V}\Bigr).

The number is the one C. Harrison's 2024 restatement for integer orders gives, not checked against the
paper's own text (the authors' code, google-research/federated's distributed_dp, names no number);
Thm. 3.5, the number other readings give, is likely the one-dimensional shifted-Skellam bound the
corollary extends.  In the Pois(mu) - Pois(mu) parametrization (V = 2 mu) the bound reads alpha
Delta_2^2 / (4 mu) + min(((2 alpha - 1) Delta_2^2 + 6 Delta_1) / (16 mu^2), 3 Delta_1 / (4 mu)).
The formula is the one google-research/federated's ``accounting_utils._skellam_rdp``
evaluates (there in the update's units: Delta_2 = s l2, Delta_1 = s l1, V = s^2 mu for the scale s),
and tests/secagg/test_secagg_rdp_against_exact_divergence.py checks it above the exact divergence.

The bound falls as V grows, so n survivors are at least as private as any n' <= n of them: the
minimum over n' <= n is at n.  The bound is used at integer orders only (as
google-research/federated's ``accounting_utils`` does): ``SKELLAM_ORDERS``, 2 .. 256, 512 and 1024.
Each value carries a few roundings of non-negative terms and is widened by 32 u relative, then one
ulp.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import positive_number
from ..rdp.mechanisms import check_orders

__all__ = ["SKELLAM_ORDERS", "skellam_rdp"]

UNIT_ROUNDOFF = 2.0**-53
SKELLAM_ORDERS: tuple[float, ...] = tuple(float(a) for a in [*range(2, 257), 512, 1024])


def skellam_rdp(
    variance: float, l2: float, l1: float, orders: npt.ArrayLike | None = None
) -> np.ndarray:
    r"""The RDP curve of one round of the Skellam mechanism of summed variance V (module docstring), rounded up.

    Parameters
    ----------
    variance : float
        V = n mu, the summed noise's variance per coordinate in integer units, finite and > 0.
    l2 : float
        Delta_2, finite and > 0.
    l1 : float
        Delta_1, finite and > 0.
    orders : array_like, optional
        Integer Rényi orders >= 2 (default ``SKELLAM_ORDERS``).

    Returns
    -------
    numpy.ndarray
        The curve at each order, each value an upper bound.

    Raises
    ------
    ValueError
        If an argument breaks its rule, or an order is not an integer (the theorem is stated at
        integer orders).

    References
    ----------
    Agarwal, Kairouz & Liu 2021, Cor. 3.6; google-research/federated,
    distributed_dp/accounting_utils.py (``_skellam_rdp``).

    Examples
    --------
    >>> from hockeystick.secagg import skellam_rdp
    >>> skellam_rdp(100.0, 10.0, 100.0, [2.0]).round(6)
    array([1.0225])
    """
    v = positive_number(variance, "variance")
    d2, d1 = positive_number(l2, "l2"), positive_number(l1, "l1")
    alpha = check_orders(SKELLAM_ORDERS if orders is None else orders)
    if (alpha != np.floor(alpha)).any():
        raise ValueError(
            f"orders must be integers for the Skellam bound (Agarwal, Kairouz & Liu 2021, Cor. 3.6 is stated at "
            f"integer orders), got {alpha[alpha != np.floor(alpha)][0]!r}"
        )
    base = alpha * d2 * d2 / (2.0 * v)
    extra = np.minimum(
        ((2.0 * alpha - 1.0) * d2 * d2 + 6.0 * d1) / (4.0 * v * v), 3.0 * d1 / (2.0 * v)
    )
    return np.nextafter((base + extra) * (1.0 + 32.0 * UNIT_ROUNDOFF), np.inf)
