r"""The Rényi odometer: an epsilon after every round, valid at every round at once, however each
round's settings were chosen from the outputs before it, and with no budget fixed in advance.

With M_t^k = exp((alpha_k - 1)(L_t - R_t(alpha_k))) the nonnegative supermartingales of
``rdp_filter``, Ville's inequality gives P(sup_t M_t^k >= K / delta) <= delta / K, so with a union
over the K orders, with probability at least 1 - delta over the run, at every round t at once

.. math::

    L_t < \varepsilon_t = \min_k\ R_t(\alpha_k) + \frac{\log(K/\delta)}{\alpha_k - 1}

(the privacy-loss odometer of Rogers, Roth, Ullman & Vadhan 2016, Def. 3.2; the supermartingale
argument of Whitehouse, Ramdas, Rogers & Wu 2023; Lécuyer 2021 builds RDP odometers the same way).
delta must be fixed before the run, not chosen from it.

Its cost beside the filter: the bound is on the loss's tail (Mironov 2017's conversion, log(1/delta)
/ (alpha - 1)) rather than on the hockey-stick divergence (Balle et al. 2020's, which the filter
uses), and the union over the orders (log K in log(1/delta)); in exchange it holds at every round,
with no budget chosen in advance.
"""

from __future__ import annotations

import math

import numpy as np

from .guarantee import PrivacyGuarantee

__all__ = ["odometer_epsilon", "odometer_guarantee"]

_U = 2.0**-53


def odometer_epsilon(spent_upper: np.ndarray, delta: float, orders: tuple[int, ...]) -> float:
    r"""eps_t = min_k R_t(alpha_k) + log(K / delta) / (alpha_k - 1), rounded up.

    Parameters
    ----------
    spent_upper : numpy.ndarray
        An upper bound on the spent RDP R_t(alpha_k) per order.
    delta : float
        The delta, 0 < delta < 1, fixed before the run.
    orders : tuple of int
        The integer Rényi orders.

    Returns
    -------
    float
        The odometer's epsilon (``inf`` where every order's sum is infinite).
    """
    alpha = np.asarray(orders, dtype=np.float64)
    log_k_over_delta = math.log(len(orders)) - math.log(delta)
    with np.errstate(over="ignore", invalid="ignore"):
        values = spent_upper + log_k_over_delta / (alpha - 1.0)
        values = values * (1.0 + 8.0 * _U)
    best = float(np.min(values))
    return math.nextafter(best, math.inf) if math.isfinite(best) else math.inf


def odometer_guarantee(
    spent_upper: np.ndarray, delta: float, orders: tuple[int, ...], rounds: int
) -> PrivacyGuarantee:
    """The odometer's answer after ``rounds`` rounds.

    Parameters
    ----------
    spent_upper : numpy.ndarray
        An upper bound on the spent RDP per order.
    delta : float
        The delta, 0 < delta < 1, fixed before the run.
    orders : tuple of int
        The integer Rényi orders.
    rounds : int
        The rounds recorded.

    Returns
    -------
    PrivacyGuarantee
        ``kind="odometer"``, ``method="rdp"``.
    """
    k = len(orders)
    return PrivacyGuarantee(
        kind="odometer",
        method="rdp",
        epsilon=0.0 if rounds == 0 else odometer_epsilon(spent_upper, delta, orders),
        delta=delta,
        rounds=rounds,
        assumption=(
            "delta was fixed before the run; the settings may depend on any output released before their "
            "round; with probability at least 1 - delta the privacy loss stays below this epsilon at every "
            "round at once (Rogers et al. 2016, Whitehouse et al. 2023)"
        ),
        cost=(
            f"a tail conversion (log(1/delta) / (alpha - 1)) and a union over {k} orders, against the filter's "
            "tight conversion at a budget fixed in advance"
        ),
    )
