r"""Rényi divergences of the balls-in-bins dominating pair with correlated noise, from the bins' Gram matrix.

The pair (Choquette-Choo, Ganesh, Haque, Steinke & Thakurta 2025, arXiv:2410.06266, Lemma 3.2) is

.. math::

    P = \frac{1}{b} \sum_{i<b} \mathcal N(m_i, \sigma^2 I_n), \qquad Q = \mathcal N(0, \sigma^2 I_n),

m_i = C x_i the image of bin i's rounds; both divergences depend on the m_i only through the Gram
matrix G_ij = <m_i, m_j> (``bin_gram``).  Units: sigma = z, the noise multiplier (the clip norm is
1).

**Remove direction, exact** (Schuchardt & Kalinin 2026, arXiv:2601.21636, Sec. 3; re-derived): with
r_1..r_alpha i.i.d. uniform bins, E_Q[(P/Q)^alpha] = E_r exp(sum_{j<j'} G_{r_j r_j'} / sigma^2), and
grouping the r by their count vector c (sum c = alpha),

.. math::

    E_Q[(P/Q)^\alpha] = b^{-\alpha} \sum_{c} \frac{\alpha!}{\prod_i c_i!}
    \exp\Big(\frac{c^\top G c - \sum_i c_i G_{ii}}{2\sigma^2}\Big), \qquad
    D_\alpha(P\|Q) = \frac{\log E_Q[(P/Q)^\alpha]}{\alpha - 1}.

``remove_log_moments_exact`` sums it over every count vector.  Since c >= 0, the exponent sum_i c_i
(c_i - 1) G_ii + sum_{i != j} c_i c_j G_ij does not decrease in any entry of G, so an entrywise
upper bound G <= G' + tau 1 1^T gives an upper bound; with G' cyclically p-banded (G'_ij = 0 unless
the cyclic distance of i and j is below p) the constant adds exactly tau alpha (alpha - 1) / (2
sigma^2) to the log-moment (tau alpha / (2 sigma^2) to D_alpha) and the sum over count vectors of G'
is a dynamic program over the bins in order whose state is the first and the last p - 1 counts and
the running total (``remove_log_moments_banded``: cost about b (A + 1)^(2p) for every order up to A
at once).

**Add direction, an upper bound** (``add_rdp_bound``), proved: with Y_i = dN(m_i, sigma^2
I)/dQ (y) = exp((2 <m_i, y> - ||m_i||^2) / (2 sigma^2)), Q/P = ((1/b) sum_i Y_i)^{-1}, and by the AM-GM
inequality (1/b) sum_i Y_i >= (prod_i Y_i)^{1/b} = exp((2 <mbar, y> - (1/b) sum_i G_ii) / (2
sigma^2)), mbar = (1/b) sum_i m_i. As alpha - 1 > 0, (Q/P)^{alpha-1} <= exp(-(alpha - 1)(2 <mbar,
y> - (1/b) sum_i G_ii) / (2 sigma^2)); under Q, <mbar, y> ~ N(0, sigma^2 ||mbar||^2), whose moment
generating function gives

.. math::

    E_P[(Q/P)^\alpha] = E_Q[(Q/P)^{\alpha-1}] \le \exp\Big(\frac{(\alpha-1) \sum_i G_{ii}}{2 b \sigma^2}
      + \frac{(\alpha-1)^2 \sum_{ij} G_{ij}}{2 b^2 \sigma^2}\Big),
    \quad D_\alpha(Q\|P) \le \frac{\sum_i G_{ii}}{2 b \sigma^2} + (\alpha - 1) \frac{\sum_{ij} G_{ij}}{2 b^2 \sigma^2},

using ||mbar||^2 = sum_ij G_ij / b^2.  At b = 1 both sides are alpha ||m||^2 / (2 sigma^2), the
Gaussian's.

**Unamplified, both directions**: by the joint convexity of (P, Q) -> E_Q[(P/Q)^alpha] (and of
E_Q[(Q/P)^{alpha-1}] through the convexity of x -> x^{1-alpha}), each direction's D_alpha is at most
the largest component's, alpha max_i G_ii / (2 sigma^2) (``gaussian_rdp_of_bins``); callers take the
smaller.

Floating point: G is computed from a C rounded up by its error bound and widened by the error of its
sums of non-negative products (``bin_gram``); the log-moments are sums of exponentials of bounded
exponents, computed in the log domain, and each is widened by ``_LOG_PAD`` (1e-9 relative plus 1e-9
absolute, orders of magnitude above the few hundred roundings of at most 1e3 in size they hold).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .round_off import UNIT_ROUNDOFF

__all__ = [
    "add_rdp_bound",
    "banded_split",
    "bin_gram",
    "count_vectors",
    "gaussian_rdp_of_bins",
    "remove_log_moments_banded",
    "remove_log_moments_exact",
    "remove_rdp_from_log_moments",
]

_LOG_PAD_RELATIVE = 1e-9
_LOG_PAD_ABSOLUTE = 1e-9


def bin_gram(c: np.ndarray, bins: int, error: np.ndarray | None = None) -> np.ndarray:
    """Upper bound, entrywise, on the Gram matrix G_ij = <C x_i, C x_j> of the bins' sensitivity vectors.

    x_i is the indicator of rounds i, i + b, i + 2b, ... < n (the rounds of bin i, every epoch); a
    bin i >= n has no round, and m_i = 0.

    Parameters
    ----------
    c : numpy.ndarray
        C, shape (rows, n), entries >= 0.
    bins : int
        b >= 1.
    error : numpy.ndarray, optional
        An entrywise bound on the error of ``c`` (C is taken as ``c + error``, an upper bound as C
        >= 0).

    Returns
    -------
    numpy.ndarray
        Shape (b, b): G, rounded up (each entry a sum of at most n products of non-negative doubles,
        so widened by the relative bound 2 (n + 2) u).
    """
    upper = c if error is None else c + error
    n = upper.shape[1]
    m = np.zeros((upper.shape[0], bins))
    for i in range(min(bins, n)):
        m[:, i] = upper[:, i::bins].sum(axis=1)
    gram = m.T @ m
    widen = 1.0 + 2.0 * (upper.shape[0] + n + 2) * UNIT_ROUNDOFF
    return np.asarray(np.nextafter(gram * widen, np.inf), dtype=float)


def gaussian_rdp_of_bins(gram: np.ndarray, sigma: float, orders: np.ndarray) -> np.ndarray:
    """alpha max_i G_ii / (2 sigma^2): the worst single bin's Gaussian RDP, an upper bound in both directions.

    Parameters
    ----------
    gram : numpy.ndarray
        G, shape (b, b), an entrywise upper bound.
    sigma : float
        The noise standard deviation, > 0.
    orders : numpy.ndarray
        Orders alpha > 1.

    Returns
    -------
    numpy.ndarray
        The Gaussian's RDP at each order, rounded up (joint convexity: module docstring).
    """
    top = float(np.max(np.diag(gram)))
    return np.asarray(
        np.nextafter(orders * top / (2.0 * sigma * sigma) * (1.0 + 4 * UNIT_ROUNDOFF), np.inf)
    )


def add_rdp_bound(gram: np.ndarray, sigma: float, orders: np.ndarray) -> np.ndarray:
    r"""The AM-GM upper bound on D_alpha(Q || P), the add direction (module docstring: the proof).

    .. math::

        D_\alpha(Q\|P) \le \frac{\sum_i G_{ii}}{2 b \sigma^2} + (\alpha - 1) \frac{\sum_{ij} G_{ij}}{2 b^2 \sigma^2}.

    Parameters
    ----------
    gram : numpy.ndarray
        G, shape (b, b), an entrywise upper bound (the bound increases in every entry).
    sigma : float
        The noise standard deviation, > 0.
    orders : numpy.ndarray
        Orders alpha > 1 (any real).

    Returns
    -------
    numpy.ndarray
        The bound at each order, rounded up.
    """
    b = gram.shape[0]
    two_s2 = 2.0 * sigma * sigma
    if two_s2 == 0.0:  # sigma^2 underflows to 0 (sigma below about 1e-162): +inf, or 0 where G = 0
        return np.full(np.shape(orders), np.inf if gram.any() else 0.0)
    constant = float(np.trace(gram)) / (b * two_s2)
    slope = float(gram.sum()) / (b * b * two_s2)
    value = (constant + (np.asarray(orders, dtype=float) - 1.0) * slope) * (1.0 + 8 * UNIT_ROUNDOFF)
    return np.asarray(np.nextafter(value, np.inf))


def count_vectors(total: int, bins: int) -> np.ndarray:
    """Every c in N^bins with sum c = total, one per row (stars and bars: C(total + bins - 1, bins - 1) rows).

    Parameters
    ----------
    total : int
        alpha >= 0.
    bins : int
        b >= 1.

    Returns
    -------
    numpy.ndarray
        Shape (C(total + bins - 1, bins - 1), bins), int64.
    """
    rows = []
    for bars in itertools.combinations(range(total + bins - 1), bins - 1):
        edges = (-1, *bars, total + bins - 1)
        rows.append([edges[k + 1] - edges[k] - 1 for k in range(bins)])
    return np.array(rows, dtype=np.int64).reshape(-1, bins)


def _logsumexp(x: np.ndarray, axis: int | tuple[int, ...] | None = None) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - safe), axis=axis, keepdims=True)) + safe
    return np.asarray(np.squeeze(out, axis=axis) if axis is not None else out.reshape(()))


def remove_log_moments_exact(gram: np.ndarray, sigma: float, orders: np.ndarray) -> np.ndarray:
    r"""log E_Q[(P/Q)^alpha] at integer orders, summed over every count vector (module docstring).

    .. math::

        \log\Big( b^{-\alpha} \sum_{c \in \mathbb N^b,\ \sum c = \alpha} \frac{\alpha!}{\prod_i c_i!}
        \exp\Big(\frac{c^\top G c - \sum_i c_i G_{ii}}{2\sigma^2}\Big)\Big)

    Parameters
    ----------
    gram : numpy.ndarray
        G, shape (b, b).
    sigma : float
        The noise standard deviation, > 0.
    orders : numpy.ndarray
        Whole orders >= 2; the sum has C(alpha + b - 1, b - 1) terms, so small b and alpha only.

    Returns
    -------
    numpy.ndarray
        The log-moment at each order, widened up by the floating-point pad.
    """
    b = gram.shape[0]
    out = []
    for alpha in np.asarray(orders, dtype=np.int64).tolist():
        whole = count_vectors(int(alpha), b)
        counts = whole.astype(float)
        quad = np.einsum("ki,ij,kj->k", counts, gram, counts) - counts @ np.diag(gram)
        log_fact = np.array([math.lgamma(v + 1.0) for v in range(int(alpha) + 1)])
        log_terms = (
            math.lgamma(alpha + 1.0) - log_fact[whole].sum(axis=1) + quad / (2.0 * sigma * sigma)
        )
        out.append(float(_logsumexp(log_terms)) - alpha * math.log(b))
    return _padded(np.array(out))


def _padded(log_moment: np.ndarray) -> np.ndarray:
    return np.asarray(log_moment + _LOG_PAD_RELATIVE * np.abs(log_moment) + _LOG_PAD_ABSOLUTE)


def banded_split(gram: np.ndarray, band: int) -> tuple[np.ndarray, float]:
    """G <= G' + tau 1 1^T entrywise, with G' cyclically ``band``-banded.

    Parameters
    ----------
    gram : numpy.ndarray
        G, shape (b, b), entries >= 0.
    band : int
        p >= 1: the entries at cyclic distance min(|i - j|, b - |i - j|) < p are in the band.

    Returns
    -------
    tuple
        ``(G', tau)``: tau the largest entry outside the band (0 when none), G'_ij = G_ij - tau
        rounded up inside the band and 0 outside it.
    """
    b = gram.shape[0]
    lag = np.abs(np.subtract.outer(np.arange(b), np.arange(b)))
    distance = np.minimum(lag, b - lag)
    outside = distance >= band
    tau = float(np.max(gram[outside])) if outside.any() else 0.0
    tau = max(tau, 0.0)
    inside = np.nextafter(gram - tau, np.inf)
    return np.where(outside, 0.0, inside), tau


def remove_log_moments_banded(
    gram: np.ndarray, sigma: float, top_order: int, band: int, *, cyclic: bool = True
) -> np.ndarray:
    r"""Upper bounds on log E_Q[(P/Q)^alpha] at alpha = 0..top_order, by the dynamic program for cyclic bands.

    G <= G' + tau 1 1^T (``banded_split``), and for G' cyclically p-banded (p = ``band``, w = p - 1
    neighbours each side, b >= 2w + 1 so that every pair at cyclic distance <= w is met once) the
    sum over count vectors factors along the bins: with D_i = G'_ii / (2 sigma^2), K_id = G'_{i, i+d
    mod b} / sigma^2,

    .. math::

        \sum_{\sum c = \alpha} \prod_i \frac{e^{c_i (c_i - 1) D_i}}{c_i!}
        \prod_i \prod_{d=1}^{w} e^{c_i c_{i+d} K_{id}},

    run over i = 0..b-1 with state (c_0..c_{w-1}; c_{i-w+1}..c_i; the total so far), the pairs that
    wrap (i + d >= b) closed at the end.  Then log E_Q[(P/Q)^alpha] <= log(alpha! S_alpha) - alpha
    log b
    + tau alpha (alpha - 1) / (2 sigma^2).

    With ``cyclic=False`` the pairs that wrap are bounded by c_j c_k K <= K (c_j^2 + c_k^2) / 2 (K >
    0; a pair of K <= 0 by 0) and join the two bins' own terms, so the chain's state is the last w
    counts and the total only: cost about b (A + 1)^(p + 1), an upper bound still (every term of the
    sum only grows).

    Parameters
    ----------
    gram : numpy.ndarray
        G, shape (b, b), entries >= 0.
    sigma : float
        The noise standard deviation, > 0.
    top_order : int
        A, the largest order; every whole order 0..A is returned.
    band : int
        p >= 1 with b >= 2p - 1.
    cyclic : bool, default True
        True: the wrapping pairs kept exactly (state of the first and last w counts); False: bounded
        by AM-GM (state of the last w counts).

    Returns
    -------
    numpy.ndarray
        Shape (A + 1,): the bound at each whole order 0..A, widened up by the floating-point pad.

    Raises
    ------
    ValueError
        ``band`` < 1 or b < 2 band - 1.
    """
    b = gram.shape[0]
    w = band - 1
    if band < 1 or b < 2 * w + 1:
        raise ValueError(
            f"band must be in [1, (b + 1) / 2] = [1, {(b + 1) // 2}] for b = {b} bins, got {band}"
        )
    banded, tau = banded_split(gram, band)
    a = int(top_order)
    two_s2 = 2.0 * sigma * sigma
    counts = np.arange(a + 1, dtype=float)
    log_fact = np.array([math.lgamma(v + 1.0) for v in counts])
    squares = np.zeros(
        b
    )  # the AM-GM share of each wrapping pair, on each of its two bins (cyclic=False)
    if not cyclic and w:
        for j in range(b - w, b):
            for k in range(w):
                if 1 <= b + k - j <= w and banded[j, k] > 0:
                    squares[j] += banded[j, k] / two_s2
                    squares[k] += banded[j, k] / two_s2
    self_term = [
        counts * (counts - 1.0) * banded[i, i] / two_s2 + squares[i] * counts**2 - log_fact
        for i in range(b)
    ]
    shift = np.arange(a + 1)
    if w == 0:  # a product of b polynomials in the total, in the log domain
        v = np.full(a + 1, -np.inf)
        v[0] = 0.0
        for i in range(b):
            v = _logsumexp(
                np.where(
                    shift[:, None] >= shift[None, :],
                    v[np.clip(shift[:, None] - shift[None, :], 0, a)] + self_term[i][None, :],
                    -np.inf,
                ),
                axis=1,
            )
        log_s = v
    elif cyclic:
        log_s = _banded_program(banded, two_s2, a, w, self_term)
    else:
        log_s = _chain_program(banded, two_s2, a, w, self_term)
    alpha = counts
    log_moment = log_fact + log_s - alpha * math.log(b) + tau * alpha * (alpha - 1.0) / two_s2
    return _padded(log_moment)


def _banded_program(
    banded: np.ndarray, two_s2: float, a: int, w: int, self_term: list[np.ndarray]
) -> np.ndarray:
    """The cyclic dynamic program of ``remove_log_moments_banded`` for w >= 1 neighbours (log domain).

    Axes of the state: w axes of the first counts (c_0..c_{w-1}), w of the last (oldest first), one
    of the total.
    """
    b = banded.shape[0]
    size = a + 1
    grid = np.arange(size, dtype=float)
    # start after bin w - 1: the first w counts enumerated, the last window equal to them, the total
    # their sum
    first = np.stack(np.meshgrid(*([np.arange(size)] * w), indexing="ij"), axis=-1).reshape(-1, w)
    shape = (size,) * (2 * w + 1)
    v = np.full(shape, -np.inf)
    for row in first:
        total = int(row.sum())
        if total > a:
            continue
        weight = sum(float(self_term[i][row[i]]) for i in range(w))
        weight += sum(
            float(row[i] * row[i + d] * banded[i, i + d] / (two_s2 / 2.0))
            for i in range(w)
            for d in range(1, w - i)
        )
        v[(*row, *row, total)] = weight
    for i in range(w, b):
        # pair term of the new count c with c_{i-d}, held on last axis w - d (d = 1..w)
        pair_rate = np.zeros((size,) * w)
        for d in range(1, w + 1):
            coefficient = banded[i - d, i] / (two_s2 / 2.0)
            axis_shape = [1] * w
            axis_shape[w - d] = size
            pair_rate = pair_rate + coefficient * grid.reshape(axis_shape)
        pair_rate = pair_rate.reshape((1,) * w + (size,) * w + (1,))
        new = np.full(shape, -np.inf)
        for c in range(size):
            moved = v[..., : size - c] + c * pair_rate + self_term[i][c]
            # drop the oldest of the window (axis w), append c as the newest, shift the total by c
            reduced = _logsumexp(moved, axis=w)
            index: tuple[int | slice, ...] = (slice(None),) * (2 * w - 1) + (c, slice(c, size))
            new[index] = reduced
        v = new
    # close the pairs that wrap: c_j (j = b - w + s, on last axis w + s) with c_k (k on first axis
    # k), j + d = b + k
    closing = np.zeros((size,) * (2 * w))
    for s in range(w):
        j = b - w + s
        for k in range(w):
            d = b + k - j
            if 1 <= d <= w:
                coefficient = banded[j, k] / (two_s2 / 2.0)
                shape_jk = [1] * (2 * w)
                shape_jk[w + s] = size
                first_shape = [1] * (2 * w)
                first_shape[k] = size
                closing = closing + coefficient * grid.reshape(shape_jk) * grid.reshape(first_shape)
    return _logsumexp(v + closing[..., None], axis=tuple(range(2 * w)))


def _chain_program(
    banded: np.ndarray, two_s2: float, a: int, w: int, self_term: list[np.ndarray]
) -> np.ndarray:
    """The chain program of ``remove_log_moments_banded(cyclic=False)``: axes of the state are the
    last w counts (oldest first) and the total; bins before 0 count 0."""
    b = banded.shape[0]
    size = a + 1
    grid = np.arange(size, dtype=float)
    shape = (size,) * (w + 1)
    v = np.full(shape, -np.inf)
    v[(0,) * (w + 1)] = 0.0
    for i in range(b):
        pair_rate = np.zeros((size,) * w)
        for d in range(1, min(w, i) + 1):
            axis_shape = [1] * w
            axis_shape[w - d] = size
            pair_rate = pair_rate + banded[i - d, i] / (two_s2 / 2.0) * grid.reshape(axis_shape)
        pair_rate = pair_rate[..., None]
        new = np.full(shape, -np.inf)
        for c in range(size):
            reduced = _logsumexp(
                v[..., : size - c] + c * pair_rate[..., :1] + self_term[i][c], axis=0
            )
            new[(slice(None),) * (w - 1) + (c, slice(c, size))] = reduced
        v = new
    return _logsumexp(v, axis=tuple(range(w)))


def remove_rdp_from_log_moments(log_moments: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """D_alpha(P || Q) = log E_Q[(P/Q)^alpha] / (alpha - 1), rounded up, floored at 0 (a divergence is >= 0).

    Parameters
    ----------
    log_moments : numpy.ndarray
        Upper bounds on log E_Q[(P/Q)^alpha].
    orders : numpy.ndarray
        The orders alpha > 1, of the same shape.

    Returns
    -------
    numpy.ndarray
        The RDP upper bounds.
    """
    alpha = np.asarray(orders, dtype=float)
    value = np.asarray(log_moments, dtype=float) / (alpha - 1.0)
    value = np.nextafter(value + 4 * UNIT_ROUNDOFF * np.abs(value), np.inf)
    return np.asarray(np.maximum(value, 0.0))
