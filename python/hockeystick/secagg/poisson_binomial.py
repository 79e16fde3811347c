r"""The Poisson-binomial mechanism: a dominating pair (upper side) and a realizable pair (lower side) of one coordinate.

Chen, Özgür & Kairouz 2022 ("The Poisson binomial mechanism for unbiased federated learning with
secure aggregation", ICML; arXiv:2207.09916): each client i holds x_i in [-c, c] on a coordinate,
encodes it in a binomial's parameter, p_i = 1/2 + theta x_i / c (0 < theta < 1/2), and sends
Binom(m, p_i); secure aggregation gives the server Z = sum_i Binom(m, p_i), a Poisson-binomial law
that depends on every client's data.  No noise is added: the privacy comes from the draws.
Neighbouring inputs replace one client's value by any other in [-c, c], so its p moves within [a,
b], a = 1/2 - theta, b = 1/2 + theta; n is the fewest clients in the sum (dropout: the others' draws
are independent of the differing client's, so more of them is a post-processing).

Dominating pair (``dominating_pair_pld``).  Each of the n m Bernoulli draws of success probability p
in [a, b] is, independently: with probability 1 - 2 theta a fair coin, else a coin of probability
s = (p - a) / (2 theta) in [0, 1] (its law is then Bern(a + 2 theta s) = Bern(p)).  Reveal which draws
took the second branch and the others' outcomes there (their law does not depend on the differing
client).  What is left is Bin(N', 1/2) + Binom(J, s) against Bin(N', 1/2) + Binom(J, s'), with J ~
Binom(m, 2 theta) the differing client's second-branch draws and N' = L + m - J, L ~ Binom((n - 1)
m, 1 - 2 theta) the others' first-branch draws.  Writing each Binom(J, .) as a mixture over its
value, joint convexity of the hockey-stick divergence (for every gamma at once) bounds the pair by
the worst (N' + u, N' + u') with 0 <= u, u' <= J; translation and the symmetry of Bin(N', 1/2) about
N'/2 reduce it to (Bin(N', 1/2) + |u - u'|, Bin(N', 1/2)), and Bin(N', 1/2) is log-concave, so the
shifts have a monotone likelihood ratio and the hockey-stick divergence grows with the shift
(Lehmann & Romano, Testing Statistical Hypotheses, Thm. 3.4.1): J is the worst.  So every pair of
neighbouring cohorts, in both directions, is dominated by

.. math::

    P^* = \sum_{l, j} \mathrm{Bin}(l; (n-1)m, 1-2\theta)\,\mathrm{Bin}(j; m, 2\theta)\,
          \bigl(\mathrm{Bin}(l + m - j, \tfrac12) + j\bigr), \qquad
    Q^* = \text{the same without the} + j,

the (l, j) revealed.  Fewer fair coins is worse (Bin(N' + 1, 1/2) adds an independent coin to
Bin(N', 1/2): a post-processing), so grouping l into blocks, each at its least l, gives a pair that
dominates P^*, Q^* (``_L_BLOCKS`` blocks where L's window spans more than ``_L_EXACT`` outcomes).
The pair is one direction (the two are the same by the symmetry).

Realizable pair (``realizable_pair_pld``).  The n - 1 others at x = -c (p = a), the differing client
at x = +c (p = b) against x = -c:

.. math::

    P = \mathrm{Binom}((n-1)m, a) * \mathrm{Binom}(m, b), \qquad Q = \mathrm{Binom}(nm, a),

its exact lattice PLD read on the optimistic side.  Against an observer who does not learn the
cohorts (each client in a round's Poisson cohort with probability q, and absent from the sum
otherwise): q (S + Binom(m, b)) + (1 - q) S against q (S + Binom(m, a)) + (1 - q) S, S =
Binom((n - 1) m, a), below; above, joint convexity: the dominating pair mixed with weight q with a pair of
equal laws (weight 1 - q), the mixture's index revealed.

Masses and rounding.  Binomial masses are scipy's ``binom.pmf``, charged a relative error of
``BINOMIAL_RELATIVE_ERROR`` plus 4u (N + 16) for the probabilities' own rounding (scipy states no
bound: the allowance is an assumption, checked against mpmath at 50 digits in
tests/secagg/test_secagg_poisson_binomial.py); a convolution of positive terms adds (length + 1) u
(Higham 2002, Sec. 4.2).  The upper side lowers both laws' masses by their error bounds and drops
the outcomes outside its windows: the P-mass removed sits at loss +infinity on the grid's
pessimistic side (which carries 1 minus the P-masses given there), and a pair so lowered dominates
the true one for every gamma (sum (p - gamma q)_+ <= sum (p' - gamma q')_+ + sum (p - p') for p' <=
p, q' <= q).  The lower side lowers P's masses and raises Q's, dropping outcomes (lowers every
hockey-stick divergence), as ``lattice_pld`` does.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..base.validation import count, in_interval, positive_number
from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import checked_interval, pair_factor

__all__ = [
    "BINOMIAL_RELATIVE_ERROR",
    "MIN_THETA",
    "binomial_masses",
    "dominating_pair_pld",
    "poisson_binomial_parameters",
    "realizable_pair_pld",
]

UNIT_ROUNDOFF = 2.0**-53
BINOMIAL_RELATIVE_ERROR = 1e-10
MIN_THETA = 1e-9
MAX_OUTCOMES = 1 << 24  # the most atoms one pair may hold (128 MiB a mass array)
_TAIL = 1e-30  # each window leaves out a tail of at most this mass (Chernoff)
_L_BLOCKS = 8  # blocks of the others' fair-coin count where it spans more than _L_EXACT outcomes
_L_EXACT = 32
# fair-coin windows are kept for counts up to this: ~12 sqrt(N) outcomes, 34 KiB each
_KEPT_COINS = 1 << 17


def poisson_binomial_parameters(trials: int, theta: float, clients: int) -> tuple[int, float, int]:
    """(m, theta, n) checked: m >= 1 an integer, 0 < theta < 1/2, n >= 1 an integer, n m at most 2^40.

    Parameters
    ----------
    trials : int
        m, each client's binomial draws per coordinate.
    theta : float
        The encoding's scale, p = 1/2 + theta x / c, ``MIN_THETA`` <= theta < 1/2.
    clients : int
        n, the fewest clients in a round's sum.

    Returns
    -------
    tuple
        (m, theta, n).

    Raises
    ------
    ValueError
        An argument outside its rule, naming it.
    """
    m = count(trials, "trials")
    t = positive_number(theta, "theta")
    if not t >= MIN_THETA:
        raise ValueError(
            f"theta must be at least {MIN_THETA:g} (a smaller one carries no data), got {theta!r}"
        )
    if not t < 0.5:
        raise ValueError(
            f"theta must be below 1/2 (p = 1/2 + theta x / c must stay a probability), got {theta!r}"
        )
    n = count(clients, "min_surviving_clients")
    if n * m > 2**40:
        raise ValueError(
            f"min_surviving_clients * trials must be at most 2^40 (the draws' count), got {n} * {m}: fewer trials"
        )
    return m, t, n


def _binomial_error(trials: int) -> float:
    return BINOMIAL_RELATIVE_ERROR + 4.0 * UNIT_ROUNDOFF * (trials + 16.0)


def binomial_masses(trials: int, p: float) -> tuple[int, np.ndarray, float, float]:
    """Binom(N, p)'s masses on the window outside which each tail holds at most 1e-30, with their errors.

    Parameters
    ----------
    trials : int
        N >= 0.
    p : float
        The success probability, in [0, 1].

    Returns
    -------
    tuple
        (x0, masses, relative_error, outside): masses[i] is P(X = x0 + i) within the relative error,
        and ``outside`` bounds the mass beyond the window (Chernoff's bound, 1e-30 a side).

    Raises
    ------
    ValueError
        If the window would hold more than 2^24 outcomes.

    Examples
    --------
    >>> from hockeystick.secagg.poisson_binomial import binomial_masses
    >>> x0, masses, error, outside = binomial_masses(4, 0.5)
    >>> x0, masses.round(12).tolist(), error < 1e-9, outside
    (0, [0.0625, 0.25, 0.375, 0.25, 0.0625], True, 0.0)
    """
    from scipy import stats  # lazy: scipy's import time

    lo, hi = _chernoff_end(trials, p, -1), _chernoff_end(trials, p, 1)
    if hi - lo + 1 > MAX_OUTCOMES:
        raise ValueError(
            f"Binom({trials}, {p:.6g}) spans {hi - lo + 1} outcomes, above {MAX_OUTCOMES}: fewer trials"
        )
    x = np.arange(lo, hi + 1)
    outside = (lo > 0) * _TAIL + (hi < trials) * _TAIL
    return (
        lo,
        np.asarray(stats.binom.pmf(x, trials, p), dtype=float),
        _binomial_error(trials),
        outside,
    )


def _chernoff_end(trials: int, p: float, side: int) -> int:
    """The window's end on ``side`` (1: above the mean, -1: below): the nearest count k to the mean
    with N KL(k / N || p) >= log(1 / tail) (Chernoff: P(X >= k) <= e^{-N KL(k/N || p)} for k >= Np,
    and likewise below), found by bisection and widened by one; the support's end where none is."""
    mean = trials * p
    target = -math.log(_TAIL) * (1.0 + 1e-9) + 1e-9

    def far(k: int) -> bool:
        x = k / trials
        kl = (x * math.log(x / p) if x > 0 else 0.0) + (
            (1 - x) * math.log((1 - x) / (1 - p)) if x < 1 else 0.0
        )
        return trials * kl >= target

    end = trials if side > 0 else 0
    if trials == 0 or not far(end) or p in (0.0, 1.0):
        return end
    near = int(math.floor(mean)) if side > 0 else int(math.ceil(mean))
    while abs(end - near) > 1:  # far(end) holds, far(near) does not (near at the mean)
        middle = (end + near) // 2
        end, near = (middle, near) if far(middle) else (end, middle)
    return min(trials, end + 1) if side > 0 else max(0, end - 1)


def _blocks(trials: int, p: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The others' fair-coin count L ~ Binom(trials, p) in blocks: each block's least count, its
    weight (lowered by its error bound) and the relative error; the tails beyond the window are
    dropped."""
    x0, masses, error, _ = binomial_masses(trials, p)
    if masses.size <= _L_EXACT:
        return np.arange(x0, x0 + masses.size), masses * (1.0 - error), error
    edges = np.linspace(0, masses.size, _L_BLOCKS + 1).astype(np.int64)
    sums = np.add.reduceat(masses, edges[:-1])
    return x0 + edges[:-1], sums * (1.0 - error - (masses.size + 1) * UNIT_ROUNDOFF), error


@functools.lru_cache(maxsize=512)
def _kept_fair_coins(coins: int) -> tuple[int, np.ndarray]:
    """Binom(coins, 1/2)'s window (``binomial_masses``: its first count and masses), kept read-only.

    The dominating pair asks it at every block of the others' count and every data-carrying count j,
    and a calibration at every theta: the same counts again and again (512 windows of at most
    ``_KEPT_COINS`` trials, under 20 MiB).
    """
    x0, masses, _, _ = binomial_masses(coins, 0.5)
    masses.flags.writeable = False
    return x0, masses


def _fair_coins(coins: int) -> tuple[int, np.ndarray]:
    """Binom(coins, 1/2)'s window, from the kept ones where the count is small enough to keep."""
    if coins <= _KEPT_COINS:
        return _kept_fair_coins(coins)
    x0, masses, _, _ = binomial_masses(coins, 0.5)
    return x0, masses


def dominating_pair_pld(
    clients: int, trials: int, theta: float, value_discretization_interval: float, rate: float = 1.0
) -> PrivacyLossDistribution:
    """The PLD of the pair that dominates every pair of neighbouring cohorts of one coordinate (module docstring).

    Parameters
    ----------
    clients : int
        n, the fewest clients in the sum (the differing client among them).
    trials : int
        m.
    theta : float
        0 < theta < 1/2.
    value_discretization_interval : float
        The grid's spacing.
    rate : float, optional
        q in (0, 1]: the pair mixed with weight q with equal laws (against an observer; module
        docstring).

    Returns
    -------
    PrivacyLossDistribution
        One direction (the pair is symmetric); its pessimistic side (``bound="upper"``) is a
        certified upper bound on every neighbouring pair's hockey-stick divergence, also after
        composition.  Its optimistic side bounds nothing (both laws are lowered): the lower side is
        ``realizable_pair_pld``'s.

    Raises
    ------
    ValueError
        An argument outside its rule, or more than 2^24 atoms.

    Examples
    --------
    >>> from hockeystick.secagg.poisson_binomial import dominating_pair_pld
    >>> pair = dominating_pair_pld(10, 4, 0.1, 1e-4)
    >>> 0.0 < pair.delta(0.5, bound="upper") < 1.0
    True
    """

    m, t, n = poisson_binomial_parameters(trials, theta, clients)
    h = checked_interval(value_discretization_interval)
    q = float(in_interval(rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False))
    free = 2.0 * t  # exact
    j0, j_masses, j_error, _ = binomial_masses(m, free)
    starts, block_weights, l_error = (
        _blocks((n - 1) * m, 1.0 - free) if n > 1 else (np.array([0]), np.ones(1), 0.0)
    )
    coin_error = _binomial_error(n * m)
    lowered = 1.0 - j_error - l_error - coin_error - 8.0 * UNIT_ROUNDOFF
    p_parts, q_parts = [], []
    same = 0.0  # j = 0: the two laws agree (loss 0)
    atoms = 0
    for start, weight in zip(starts.tolist(), block_weights.tolist()):
        for offset, v in enumerate(j_masses.tolist()):
            j = j0 + offset
            w = weight * v
            if j == 0:
                same += w
                continue
            coins = start + m - j
            x0, coin_masses = _fair_coins(coins)
            atoms += coin_masses.size + j
            if atoms > MAX_OUTCOMES:
                raise ValueError(
                    f"the dominating pair of {n} clients of {m} trials holds over {MAX_OUTCOMES} atoms: fewer trials"
                )
            # outcomes x0 .. x0 + len + j - 1: P(x) = Bin(x - j), Q(x) = Bin(x) (0 past the window:
            # Q lowered)
            p_parts.append(w * np.concatenate([np.zeros(j), coin_masses]))
            q_parts.append(w * np.concatenate([coin_masses, np.zeros(j)]))
    p = np.concatenate([*p_parts, [same]]) * (lowered * q)
    qq = np.concatenate([*q_parts, [same]]) * (lowered * q)
    if q < 1.0:
        p, qq = np.append(p, (1.0 - q) * lowered), np.append(qq, (1.0 - q) * lowered)
    # Q's zeros are exact for the lowered pair (outcomes past Q's window, dropped from Q): their
    # P-mass sits at loss +infinity, the pessimistic side's placement whatever Q's true mass there.
    # (Marked as possibly underflowed instead, the optimistic side would place it at
    # log p - log 2^-1074, near loss 700: a grid of millions of cells for a side this pair does not
    # certify.)
    factor = pair_factor(p, qq, "poisson_binomial_dominating_pair", h, exact_zeros=True)
    return PrivacyLossDistribution([{factor: 1}])


Window = tuple[int, np.ndarray, float, float]  # (x0, masses, relative error, mass outside)


def _convolve(a: Window, b: Window) -> Window:
    """The law of the sum of two independent windows' laws, with its relative error (direct sums)
    and the mass left outside (at most the two windows')."""
    out = np.convolve(a[1], b[1])
    error = (a[2] + b[2] + (min(a[1].size, b[1].size) + 1) * UNIT_ROUNDOFF) * 1.01
    return a[0] + b[0], out, error, a[3] + b[3]


def _on(masses: Window, start: int, stop: int) -> np.ndarray:
    """The masses on start .. stop - 1, 0 outside their window."""
    x0, m = masses[0], masses[1]
    out = np.zeros(stop - start)
    lo, hi = max(start, x0), min(stop, x0 + m.size)
    if hi > lo:
        out[lo - start : hi - start] = m[lo - x0 : hi - x0]
    return out


def realizable_pair_pld(
    clients: int, trials: int, theta: float, value_discretization_interval: float, rate: float = 1.0
) -> PrivacyLossDistribution:
    """The PLD of a pair of neighbouring cohorts of one coordinate (module docstring), P lowered and Q raised.

    Parameters
    ----------
    clients : int
        n, the clients in the sum (the differing client among them).
    trials : int
        m.
    theta : float
        0 < theta < 1/2.
    value_discretization_interval : float
        The grid's spacing.
    rate : float, optional
        q in (0, 1]: the differing client in the sum with probability q (against an observer).

    Returns
    -------
    PrivacyLossDistribution
        One direction; its optimistic side (``bound="lower"``) is a certified lower bound on the
        mechanism's.

    Raises
    ------
    ValueError
        An argument outside its rule, or a window above 2^24 outcomes.

    Examples
    --------
    >>> from hockeystick.secagg.poisson_binomial import realizable_pair_pld
    >>> pair = realizable_pair_pld(10, 4, 0.1, 1e-4)
    >>> 0.0 < pair.delta(0.5, bound="lower") < 1.0
    True
    """
    m, t, n = poisson_binomial_parameters(trials, theta, clients)
    h = checked_interval(value_discretization_interval)
    q = float(in_interval(rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False))
    a, b = 0.5 - t, 0.5 + t
    others: Window = binomial_masses((n - 1) * m, a) if n > 1 else (0, np.ones(1), 0.0, 0.0)
    with_b = _convolve(others, binomial_masses(m, b))
    with_a = _convolve(others, binomial_masses(m, a))
    start = min(others[0], with_a[0], with_b[0])
    stop = max(others[0] + others[1].size, with_a[0] + with_a[1].size, with_b[0] + with_b[1].size)
    error = max(with_a[2], with_b[2], others[2]) + 4.0 * UNIT_ROUNDOFF
    p = q * _on(with_b, start, stop) + (1.0 - q) * _on(others, start, stop)
    qq = q * _on(with_a, start, stop) + (1.0 - q) * _on(others, start, stop)
    # Q raised by the mass its windows leave out (any one outcome's share of it is at most all of
    # it)
    outside = (q * with_a[3] + (1.0 - q) * others[3]) * 1.01
    p_low = np.maximum(p * (1.0 - error), 0.0)
    q_high = qq * (1.0 + error) + outside
    keep = q_high > 0.0  # Q = 0 exactly (beyond the n m draws): P is 0 there too
    factor = pair_factor(
        p_low[keep], q_high[keep], "poisson_binomial_realizable_pair", h, exact_zeros=False
    )
    return PrivacyLossDistribution([{factor: 1}])
