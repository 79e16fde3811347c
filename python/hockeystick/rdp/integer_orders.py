r"""Certified upper Rényi-DP curves at integer orders, each in one array operation: the ledger's rounds.

The ledger adds one round's curve at every order to running sums, round after round, so one round
must cost microseconds, not the milliseconds of ``rdp.subsampled_gaussian_rdp``'s loop over the
series' terms (which is vectorized over many parameter points at once, not over the terms of one).
At an integer order alpha the Poisson-subsampled Gaussian (noise multiplier sigma, rate q,
add/remove neighbours) has

.. math::

    A_\alpha - 1 = \sum_{i=2}^{\alpha} \binom{\alpha}{i} (1-q)^{\alpha-i} q^i
    \bigl(e^{(i^2 - i)/(2\sigma^2)} - 1\bigr), \qquad
    \varepsilon_R(\alpha) = \frac{\log(1 + (A_\alpha - 1))}{\alpha - 1}

(Mironov, Talwar & Zhang 2019, Sec. 3.3: the binomial expansion, whose i = 0, 1 terms sum with the
weights to 1, so every term left is positive and nothing cancels; ``rdp/mechanisms.py`` writes the
same sum as a loop). Here every order's terms are one row of a matrix whose log-binomials are
tabulated once per order set, and each row is summed in log space.

Rounding outward: every term's logarithm is a sum of at most six rounded quantities, so its absolute
error is at most 8 u S (u = 2^-53, S the sum of the magnitudes of those quantities, bounded per
round by ``_magnitude``), a relative error of the term of at most 9 u S; the log-sum-exp of at most
alpha positive terms adds at most (alpha + 4) u relatively. The relative error of log1p(y) is at
most that of y (log1p(y) >= y / (1 + y)), and the division by alpha - 1 adds u. The curve is widened
by the relative margin 16 u S + 8 alpha_max u, twice the sum of those bounds, and stepped one ulp
up: never below the exact curve.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache

import numpy as np

__all__ = [
    "gaussian_rdp_upper",
    "laplace_rdp_upper",
    "mu_squared_upper",
    "subsampled_gaussian_rdp_upper",
    "zcdp_rdp_upper",
]

_U = 2.0**-53


@lru_cache(maxsize=8)
def _log_binomials(
    orders: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each order's terms laid end to end: (log C(alpha_k, i) for i = 2..alpha_k, order after order;
    the index i - 2 of each entry; the offset where each order's entries start; the orders as
    floats).

    Each log-binomial is the logarithm of the exact integer C(alpha, i) (``_binomial_row``; at most
    C(1024, 512) < 2^1020, inside the double range): one rounding of the integer to a double and
    one of the logarithm, within the module docstring's one rounded quantity per term's log."""
    i = np.concatenate([np.arange(2, a + 1, dtype=np.float64) for a in orders])
    table = np.array([math.log(c) for a in orders for c in _binomial_row(a)])
    starts = np.cumsum([0] + [a - 1 for a in orders[:-1]])
    out = (
        table,
        (i - 2).astype(np.intp),
        starts.astype(np.intp),
        np.asarray(orders, dtype=np.float64),
    )
    for array in out:
        array.setflags(write=False)
    return out


def _binomial_row(alpha: int) -> Iterator[int]:
    """The exact integers C(alpha, i), i = 2..alpha, by C(alpha, i) = C(alpha, i - 1) (alpha - i + 1) / i
    (each division exact)."""
    c = alpha
    for i in range(2, alpha + 1):
        c = c * (alpha - i + 1) // i
        yield c


def _widened(curve: np.ndarray, magnitude: float, top: int) -> np.ndarray:
    """``curve`` times (1 + 16 u S + 8 alpha_max u), one ulp up (the module docstring's margin)."""
    margin = 16.0 * _U * magnitude + 8.0 * _U * top
    with np.errstate(over="ignore"):
        return np.nextafter(curve * (1.0 + margin), np.inf)


def gaussian_rdp_upper(sigma: float, orders: tuple[int, ...]) -> np.ndarray:
    r"""The Gaussian mechanism's RDP curve alpha / (2 sigma^2) (Mironov 2017, Prop. 7), rounded up.

    Parameters
    ----------
    sigma : float
        Noise multiplier (noise standard deviation over the L2 sensitivity), finite and > 0.
    orders : tuple of int
        Integer Rényi orders (the ledger's ``round_rdp.check_integer_orders``).

    Returns
    -------
    numpy.ndarray
        One value per order, each at or above alpha / (2 sigma^2) (three rounded operations, widened
        by 4 u and stepped one ulp up); ``inf`` where sigma^2 underflows.
    """
    alpha = np.asarray(orders, dtype=np.float64)
    with np.errstate(over="ignore", divide="ignore"):
        return np.nextafter(alpha / (2.0 * sigma * sigma) * (1.0 + 4.0 * _U), np.inf)


def mu_squared_upper(numerator: float, denominator: float) -> float:
    """(numerator / denominator)^2 rounded up: each of its two operations stepped one ulp up.

    Parameters
    ----------
    numerator, denominator : float
        Finite and > 0 (a sensitivity and a noise scale).

    Returns
    -------
    float
        An upper bound on (numerator / denominator)^2; ``inf`` past the doubles.
    """
    with np.errstate(over="ignore"):
        mu = math.nextafter(numerator / denominator, math.inf)
        return math.nextafter(mu * mu, math.inf) if mu < 1e154 else math.inf


def zcdp_rdp_upper(mu_squared: float, orders: tuple[int, ...]) -> np.ndarray:
    """The RDP curve alpha mu^2 / 2 of a (mu^2 / 2)-zCDP round at integer ``orders``, rounded up.

    Parameters
    ----------
    mu_squared : float
        An upper bound on mu^2 (``mu_squared_upper``), >= 0.
    orders : tuple of int
        Integer Rényi orders (the ledger's ``round_rdp.check_integer_orders``).

    Returns
    -------
    numpy.ndarray
        One value per order, at or above alpha mu^2 / 2 (the two products widened by 2 u and stepped
        one ulp up, then halved, exact but for a subnormal result, and stepped one ulp up again).
    """
    alpha = np.asarray(orders, dtype=np.float64)
    with np.errstate(over="ignore"):
        return np.nextafter(
            np.nextafter(alpha * mu_squared * (1.0 + 2.0 * _U), np.inf) * 0.5, np.inf
        )


def _magnitude(log_q: float, log_1mq: float, inv2s2: float, top: int, lg_top: float) -> float:
    """A bound S on the sum of the magnitudes of the quantities in one term's logarithm."""
    return 3.0 * lg_top + top * (abs(log_q) + abs(log_1mq)) + (top * top) * inv2s2 + 1.0


def subsampled_gaussian_rdp_upper(
    sigma: float, sampling_rate: float, orders: tuple[int, ...]
) -> np.ndarray:
    r"""One round of the Poisson-subsampled Gaussian: its RDP curve at integer orders, rounded up.

    :math:`\varepsilon_R(\alpha) = \log\bigl(1 + \sum_{i=2}^{\alpha} \binom{\alpha}{i}
    (1-q)^{\alpha-i} q^i (e^{(i^2-i)/(2\sigma^2)} - 1)\bigr) / (\alpha - 1)` (Mironov, Talwar &
    Zhang 2019, Sec. 3.3), widened by the module docstring's margin.

    Parameters
    ----------
    sigma : float
        Noise multiplier, finite and > 0.
    sampling_rate : float
        Poisson sampling probability q, 0 <= q <= 1 (q = 1: the Gaussian mechanism).
    orders : tuple of int
        Integer Rényi orders (the ledger's ``round_rdp.check_integer_orders``).

    Returns
    -------
    numpy.ndarray
        One value per order, never below the exact curve; ``inf`` where the terms overflow.
    """
    if sampling_rate == 0.0:
        return np.zeros(len(orders))
    if sampling_rate == 1.0:
        return gaussian_rdp_upper(sigma, orders)
    table, index, starts, alpha = _log_binomials(orders)
    top = int(alpha[-1])
    i = np.arange(2, top + 1, dtype=np.float64)
    log_q, log_1mq = math.log(sampling_rate), math.log1p(-sampling_rate)
    with np.errstate(over="ignore", divide="ignore", under="ignore", invalid="ignore"):
        inv2s2 = 0.5 / np.float64(sigma * sigma)  # inf where sigma^2 underflows: an infinite curve
        x = (i * i - i) * inv2s2
        log_expm1 = x + np.log(-np.expm1(-x))  # log(e^x - 1), no overflow
        terms = table + (i * (log_q - log_1mq) + log_expm1)[index]
        peak = np.maximum.reduceat(terms, starts)
        finite = np.isfinite(peak)
        scale = np.where(finite, peak, 0.0)
        log_sum = (
            peak
            + alpha * log_1mq
            + np.log(
                np.add.reduceat(np.exp(terms - np.repeat(scale, alpha.astype(np.intp) - 1)), starts)
            )
        )
        log_sum = np.where(np.isposinf(peak), np.inf, log_sum)
        log_a = np.logaddexp(0.0, log_sum)
        curve = np.maximum(log_a, 0.0) / (alpha - 1.0)
    lg_top = math.lgamma(top + 1.0)
    return _widened(curve, _magnitude(log_q, log_1mq, inv2s2, top, lg_top), top)


def laplace_rdp_upper(scale: float, orders: tuple[int, ...]) -> np.ndarray:
    r"""The Laplace mechanism's RDP curve at integer orders, rounded up.

    With eps = 1 / scale: :math:`\varepsilon + \log\bigl(1 + (\alpha - 1) (e^{\varepsilon(1 -
    2\alpha)} - 1) / (2\alpha - 1)\bigr) / (\alpha - 1)` (Mironov 2017, Prop. 6), widened by 16 u
    (eps + |its log term|) / value (the cancellation of eps against the log term is the only place
    where rounding grows), one ulp up.

    Parameters
    ----------
    scale : float
        Laplace scale over the L1 sensitivity, finite and > 0.
    orders : tuple of int
        Integer Rényi orders.

    Returns
    -------
    numpy.ndarray
        One value per order, never below the exact curve.
    """
    alpha = np.asarray(orders, dtype=np.float64)
    eps = 1.0 / scale
    am1 = alpha - 1.0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        log_term = np.log1p(am1 * np.expm1(eps * (1.0 - 2.0 * alpha)) / (2.0 * alpha - 1.0)) / am1
        value = eps + log_term
        margin = 16.0 * _U * (eps + np.abs(log_term)) + 8.0 * _U * value
        out = np.where(np.isfinite(value), value + margin, np.inf)
    return np.nextafter(np.maximum(out, 0.0), np.inf)
