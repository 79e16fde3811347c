r"""The observer's upper side read by the number of rounds the client takes part in.

Each sampled client adding its own noise share, a round on neighbouring inputs is
(``observer_shares``) P = q P_1 + (1 - q) P_0 against Q = q Q_1 + (1 - q) P_0, mixed over the
others' cohort with the same weights: P_1 / Q_1 the round with the client in the cohort, its update
against zero; P_0 the round without it, the same on both inputs.  Revealing the participation bit b
with the round is more information (the round is b's post-processing away), so the pair (P_1, Q_1)
tagged b = 1 with weight q and (P_0, P_0) tagged b = 0 with weight 1 - q bounds the round's
hockey-stick divergence from above; joint convexity's Rényi bound is this revealed pair's Rényi
divergence.  Over T rounds the bits are independent and the same law on both inputs, and the
components with different bit vectors have disjoint supports, so the revealed run's divergence is
exactly the average over the bits:

.. math::

    \delta(\varepsilon) \le \sum_{m = 1}^{T} \binom{T}{m} q^m (1 - q)^{T - m}\,
    \delta_m(\varepsilon),

delta_m the m-fold composition of the round with the client in it, bounded by the tight conversion
of the RDP curve m eps(alpha) (Balle et al. 2020, Thm. 21; eps(alpha) the round's curve at
``min_surviving_clients`` shares, more shares a post-processing).  Conditioning on the count M of
participations before converting is tighter than converting the mixture's Rényi divergence where few
participations carry delta (rare participation: q T below one); where many do, joint convexity's
conversion is the tighter, and the accountant reports the least of the two.  The counts past ``m*``
(their probability P(M > m*) at most 1e-3 of the smallest delta of interest, or the count capped at
``MAX_COUNTS``) are charged delta_m <= 1.  The binomial masses are scipy's, charged
``BINOMIAL_RELATIVE_ERROR`` (``observer_spread``).
"""

from __future__ import annotations

import math

import numpy as np

from ..rdp.conversion import rdp_to_delta
from .observer_spread import BINOMIAL_RELATIVE_ERROR

__all__ = ["MAX_COUNTS", "participation_count_delta", "participation_count_epsilon"]

MAX_COUNTS = 4096  # the most participation counts read one by one; the rest charged delta_m <= 1
_TAIL_FLOOR = 1e-300
_BISECTION_STEPS = 60


def _count_masses(rate: float, rounds: int, tail: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The counts 1 .. m*, upper bounds on their binomial masses, and one on P(M > m*) (module docstring)."""
    from scipy import special, stats  # lazy: scipy's import time

    mean = rounds * rate
    last = int(min(rounds, MAX_COUNTS, math.ceil(mean + 40.0 * math.sqrt(mean + 1.0) + 40.0)))
    while last > 1 and float(special.bdtrc(last - 1, rounds, rate)) < tail:
        last -= 1
    counts = np.arange(1, last + 1)
    masses = stats.binom.pmf(counts, rounds, rate) * (1.0 + BINOMIAL_RELATIVE_ERROR)
    beyond = (
        float(special.bdtrc(last, rounds, rate)) * (1.0 + BINOMIAL_RELATIVE_ERROR)
        if last < rounds
        else 0.0
    )
    return counts, masses, beyond


def participation_count_delta(
    round_curve: np.ndarray, orders: np.ndarray, rate: float, rounds: int, epsilon: np.ndarray
) -> np.ndarray:
    """An upper bound on delta(eps) of T rounds against an observer, by the number of participations
    (module docstring).

    Parameters
    ----------
    round_curve : numpy.ndarray
        eps(alpha), one round's RDP curve with the client in the cohort, at ``orders`` (each >= 0).
    orders : numpy.ndarray
        The orders, each > 1.
    rate : float
        q in (0, 1].
    rounds : int
        T >= 1.
    epsilon : numpy.ndarray
        The eps, each >= 0.

    Returns
    -------
    numpy.ndarray
        delta at each eps, in [0, 1], rounded up.

    Raises
    ------
    ValueError
        If ``rdp.rdp_to_delta`` refuses the curve or the eps.

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.secagg.observer_participations import participation_count_delta
    >>> orders = np.arange(2.0, 65.0)
    >>> float(participation_count_delta(orders / 2.0, orders, 1e-3, 100, np.array([3.0]))[0]) < 1e-3
    True
    """
    eps = np.asarray(epsilon, dtype=float)
    counts, masses, beyond = _count_masses(rate, rounds, _TAIL_FLOOR)
    curves = np.nextafter(
        np.multiply.outer(counts.astype(float), round_curve) * (1.0 + 2.0**-52), np.inf
    )
    per_count = np.asarray(rdp_to_delta(curves, orders, eps.reshape(eps.shape + (1,))), dtype=float)
    total = np.sum(np.minimum(per_count, 1.0) * masses, axis=-1) * (
        1.0 + (counts.size + 2) * 2.0**-53
    )
    return np.asarray(np.minimum(1.0, np.nextafter(total + beyond, np.inf)), dtype=float)


def participation_count_epsilon(
    round_curve: np.ndarray,
    orders: np.ndarray,
    rate: float,
    rounds: int,
    delta: np.ndarray,
    high: np.ndarray,
) -> np.ndarray:
    """The least eps (to the bisection's resolution, rounded up) whose ``participation_count_delta``
    is at most delta, searched below ``high``, a certified eps(delta) already known (returned where
    none below it does).

    Parameters
    ----------
    round_curve, orders, rate, rounds
        As ``participation_count_delta`` takes them.
    delta : numpy.ndarray
        The delta, each in (0, 1).
    high : numpy.ndarray
        A certified eps at each delta (broadcast with it), finite or ``inf``.

    Returns
    -------
    numpy.ndarray
        eps at each delta, at most ``high``.

    Raises
    ------
    ValueError
        If ``rdp.rdp_to_delta`` refuses the curve.
    """
    d = np.asarray(delta, dtype=float)
    hi = np.broadcast_to(np.asarray(high, dtype=float), d.shape).copy()
    if _count_masses(rate, rounds, _TAIL_FLOOR)[2] >= float(np.max(d, initial=0.0)):
        return hi  # the counts past m* alone carry every delta asked: no eps below ``high`` is certified this way
    top = np.where(np.isfinite(hi), hi, 1e3)
    met = participation_count_delta(round_curve, orders, rate, rounds, top) <= d
    lo = np.zeros(d.shape)
    up = np.where(met, top, hi)
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + up)
        ok = participation_count_delta(round_curve, orders, rate, rounds, mid) <= d
        up, lo = np.where(ok & met, mid, up), np.where(ok | ~met, lo, mid)
    return np.asarray(np.minimum(hi, up), dtype=float)
