"""MMCC's conditional participation bounds: how likely a record took part in round j, given the rows
released before row i, outside an event of small probability.

The pair (``mmcc.py``, step 1): the record's pattern S in {0, 1}^n has independent coordinates of
probability q, and the rows are y = C S + z N(0, I) (with the record) or y = z N(0, I) (without it),
C >= 0 entrywise, rows taken in release order.  For row i, let a = C[:i, j] be column j over the
rows released before it and

    L_ij(y) = (<a, y> - ||a||^2 / 2) / z^2,

the privacy loss of the Gaussian pair N(a, z^2 I) vs N(0, z^2 I) read at the released rows.

Posterior (Bayes).  Given y[:i] and every other coordinate S_{-j} = s, P(S_j = 1 | y[:i], s) = q l /
(q l + 1 - q) with log l = (<a, y[:i] - C[:i] s_{-j}> - ||a||^2 / 2) / z^2.  C >= 0 and s >= 0 make
<a, C[:i] s_{-j}> >= 0, so l <= exp(L_ij(y)) whatever s is (the sign condition is used here), and
averaging over the posterior of the coordinates after j keeps the bound:

    P(S_j = 1 | y[:i], S_1..S_{j-1}) <= q~_ij = q e^eps_ij / (q e^eps_ij + 1 - q)   whenever L_ij(y) <= eps_ij.

A column that no earlier row holds (a = 0) leaves S_j independent of y[:i]: q~_ij = q.

Tail (the event charged to delta).  Under either law, L_ij = (W - ||a||^2 / 2) / z^2 + (||a|| / z)
N(0, 1) with W = sum_k G_jk S_k, G_jk = <C[:i, j], C[:i, k]> >= 0 (with the record; W = 0 without
it).  For lam >= 1, Chernoff with E e^{lam G_jk S_k / z^2} = 1 - q + q e^{lam G_jk / z^2} <= exp(q
(e^{lam G_jk / z^2} - 1)) and the chord bound e^x - 1 <= x (e^X - 1) / X on [0, X], X = lam M / z^2,
M >= max_k G_jk:

    log P(L_ij > eps) <= -lam eps + lam (lam - 1) ||a||^2 / (2 z^2) + q A (e^{lam M / z^2} - 1) / M,
    A = sum_k G_jk = sum_{r < i} C_rj (C 1)_r,

which bounds the law without the record too (its W = 0 term is smaller).  eps_ij is the smallest eps
this bound puts at the tail share tau, over a grid of lam (any lam >= 1 is valid), each term rounded
up.

M is the smaller of sum_{r<i} C_rj max_k C_rk and ||a|| max_k ||C[:i, k]|| (both >= every G_jk:
entries >= 0, Cauchy-Schwarz).  The sums ||a||^2, A and M are sums of non-negative products, widened
by gamma_{2 m + 4} (m rows; Higham 2002, Lemma 3.1) before use; the entries are C's computed entries
plus its error bound.

References: Choquette-Choo, Ganesh, Steinke & Thakurta 2024 ("Privacy amplification for matrix
mechanisms", ICLR; arXiv:2310.15526), Sec. 4 (conditional sampling probabilities bounded from tail
bounds of earlier privacy losses); Higham 2002, Lemma 3.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .round_off import gamma

__all__ = ["ParticipationBounds", "ParticipationSums", "participation_bounds", "participation_sums"]

# lam / lam_0 for the Chernoff grid, lam_0 = sqrt(log(1 / tau) / v) the optimum without the record's
# own shifts
_LAM_FACTORS = 2.0 ** np.arange(-6.0, 2.01, 0.5)
_MARGIN = (
    1e-9  # relative margin on each eps_ij: far above the round-off of the few operations forming it
)


@dataclass(frozen=True)
class ParticipationBounds:
    """q~_ij for every row i (release order) and column j, with how many (i, j) tail events are charged.

    ``bounds[i, j]`` bounds the conditional probability that the record took part in round j given
    the rows before row i (``q`` where no earlier row holds column j); ``events`` pairs (i, j) with
    C_ij > 0 and an earlier row holding column j, each charged ``tail_share``; ``events *
    tail_share`` is at most the tail probability given."""

    bounds: np.ndarray
    events: int
    tail_share: float


def _prefix(values: np.ndarray) -> np.ndarray:
    """Rows 0..m-1 of the exclusive cumulative sum down the rows: out[i] = sum_{r < i} values[r]."""
    out = np.zeros_like(values)
    np.cumsum(values[:-1], axis=0, out=out[1:])
    return out


def _chernoff_epsilon(
    norm2: np.ndarray, total: np.ndarray, top: np.ndarray, z: float, q: float, log_inv: float
) -> np.ndarray:
    """The smallest eps over the lam grid with the Chernoff bound above at most exp(-log_inv), rounded up."""
    v = norm2 / (2.0 * z * z)
    lam0 = np.maximum(np.sqrt(log_inv / v), 1.0)
    best = np.full(norm2.shape, np.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        for factor in _LAM_FACTORS:
            lam = np.maximum(lam0 * factor, 1.0)
            x = lam * top / (z * z)
            jump = q * total * np.expm1(x) / top
            eps = (log_inv + lam * (lam - 1.0) * v + jump) / lam
            best = np.fmin(best, eps)
    return np.nextafter(best * (1.0 + _MARGIN) + 1e-300, np.inf)


@dataclass(frozen=True)
class ParticipationSums:
    """The sums the tail bound reads for the charged pairs (i, j), widened upward (module
    docstring): ||a||^2, A and M; they depend on C only, so one C's are formed once for every tail
    probability tried."""

    charged: np.ndarray
    norm2: np.ndarray
    total: np.ndarray
    top: np.ndarray


def participation_sums(c: np.ndarray) -> ParticipationSums:
    """||a||^2, A and M (module docstring) at every charged pair (i, j) of C's rows in release order.

    Parameters
    ----------
    c : numpy.ndarray
        C (m x n), entries >= 0 and at least the exact ones.

    Returns
    -------
    ParticipationSums
        The mask of charged pairs (C_ij > 0 and an earlier row holding column j) and the three sums
        there.
    """
    m = c.shape[0]
    widen = 1.0 + gamma(2 * m + 4)
    norm2 = _prefix(c * c) * widen
    charged = (c > 0) & (norm2 > 0)
    total = _prefix(c * c.sum(axis=1, keepdims=True))[charged] * widen
    by_max = _prefix(c * c.max(axis=1, keepdims=True))[charged]
    by_norm = (np.sqrt(norm2) * np.sqrt(norm2.max(axis=1, keepdims=True)))[charged]
    top = np.nextafter(np.minimum(by_max, by_norm) * widen, np.inf)
    return ParticipationSums(charged, norm2[charged], total, top)


def participation_bounds(
    c: np.ndarray,
    noise_multiplier: float,
    sampling_rate: float,
    tail: float,
    sums: ParticipationSums | None = None,
) -> ParticipationBounds:
    """q~_ij (module docstring) for C's rows in release order, the charged tail events sharing ``tail``.

    Parameters
    ----------
    c : numpy.ndarray
        C (m x n), entries >= 0 and at least the exact ones (the computed entries plus their error
        bound).
    noise_multiplier : float
        z > 0.
    sampling_rate : float
        q in (0, 1].
    tail : float
        The probability charged to the union of the tail events, in (0, 1).
    sums : ParticipationSums, optional
        ``participation_sums(c)``, if already formed.

    Returns
    -------
    ParticipationBounds
        The bounds, the number of events and the share each is charged.
    """
    found = participation_sums(c) if sums is None else sums
    charged = found.charged
    events = int(charged.sum())
    q = float(sampling_rate)
    bounds = np.full(c.shape, q)
    if events == 0:
        return ParticipationBounds(bounds, 0, tail)
    share = math.nextafter(tail / events, 0.0)
    log_inv = math.nextafter(-math.log(share), math.inf) * (1.0 + _MARGIN)
    eps = _chernoff_epsilon(found.norm2, found.total, found.top, noise_multiplier, q, log_inv)
    with np.errstate(over="ignore"):
        odds = (1.0 - q) * np.exp(-eps)  # a few ulps off at most: the factor 1 + 8u below covers it
    bounds[charged] = np.minimum(np.nextafter(q / (q + odds) * (1.0 + 8.0 * 2.0**-53), np.inf), 1.0)
    return ParticipationBounds(bounds, events, share)
