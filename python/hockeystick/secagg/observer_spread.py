r"""The observer's lower side over every coordinate: the shifted coordinate and how the others spread.

In the known-count model (the observer knows how many other clients' shares are in a round: the
worst case over the others' cohort) one scenario the assumptions allow is n other clients surviving,
their updates zero, and the differing client's rounded update k e_1 (``sensitivity``'s realizable
shift).  The round on its d coordinates is then, with N_j the sum of j noise shares on one
coordinate,

.. math::

    P = q\,(N_{n+1} + k) \otimes N_{n+1}^{\otimes(d-1)} + (1 - q)\,N_n^{\otimes d}
    \quad\text{against}\quad
    Q = q\,N_{n+1}^{\otimes d} + (1 - q)\,N_n^{\otimes d}.

One participation bit is shared by all d coordinates, so the other d - 1 coordinates carry
information on it: their spread is that of n + 1 shares when the client took part and of n when it
did not.  Any function of the release is a post-processing, which lowers every hockey-stick
divergence (and composing over rounds keeps the order), so the pair of laws of a statistic of the
release is a certified lower side.  The statistic here is (y_1, K), K = #{j >= 2 : |y_j| > c} the
count of other coordinates beyond an integer threshold c: given the participation bit the
coordinates are independent, so K is binomial,

.. math::

    K \sim \mathrm{Bin}(d - 1, \pi_{n+1}) \text{ (client in)}, \quad \mathrm{Bin}(d - 1, \pi_n) \text{ (client out)},
    \qquad \pi_j = P(|N_j| > c),

and (y_1, K) has the laws

.. math::

    P(y, K) = q\,p_{n+1}(y - k)\,B_{n+1}(K) + (1 - q)\,p_n(y)\,B_n(K), \quad
    Q(y, K) = q\,p_{n+1}(y)\,B_{n+1}(K) + (1 - q)\,p_n(y)\,B_n(K).

K is a coarsening of the sufficient statistic (the others' log-likelihood ratio, close to their sum
of squares): for Gaussian-like shares the count beyond c = 1.6 standard deviations keeps about 65%
of its Fisher information on the count of shares, so the lower side reads most of what the spread
reveals.  y_1 is further merged into cells and K into bins (merging outcomes is a post-processing
too).  Every mass is bounded on its side: P's masses from below and Q's from above (the noise masses
by their relative errors, ``observer_shares``; the binomial masses at both ends of pi_j's interval
and at the binomial's mode, log B(K; pi) being concave in pi; scipy's binomial functions charged
``BINOMIAL_RELATIVE_ERROR``, an allowance checked against mpmath at 50 digits in
tests/secagg/test_secagg_observer_spread.py, as scipy states no bound), so the grid PLD's optimistic
side is below the pair's (``lattice_pld``'s argument: masses not renormalised only lower sum (p -
e^eps q)_+).

Where d/n^2 is large the spread tells the bit almost surely, and the round approaches the pair that
reveals participation, q (N_{n+1} + k) + (1 - q) * against q N_{n+1} + (1 - q) *, whose Rényi
divergence is the joint-convexity upper side's: the bracket closes from below.
"""

from __future__ import annotations

import math

import numpy as np

from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import checked_interval, pair_factor
from .lattice_pld import Masses
from .observer_shares import window_masses

__all__ = [
    "BINOMIAL_RELATIVE_ERROR",
    "binomial_bin_masses",
    "exceedance_interval",
    "spread_pair_pld",
]

UNIT_ROUNDOFF = 2.0**-53
#: scipy's binomial pmf and tails (boost's incomplete beta and its derivative) charged this relative error each.
BINOMIAL_RELATIVE_ERROR = 1e-9
_COUNT_STDDEVS = (
    12.0  # the count's bins span +-12 standard deviations of both binomials; two tail bins beyond
)
_THRESHOLDS = (1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.3)  # candidate c, in standard deviations of N_n


def exceedance_interval(masses: Masses, threshold: int) -> tuple[float, float]:
    """An interval holding pi = P(|N| > c) for the noise whose masses are given.

    pi = 1 - sum_{|y| <= c} p(y); the window holds every |y| <= c (checked), each mass within its
    relative error, and the sum of m terms within (m + 2) u relative.

    Parameters
    ----------
    masses : tuple
        (x0, masses, errors, outside) of N (``lattice_pld.ddg_sum_masses`` or ``skellam_masses``).
    threshold : int
        c >= 0.

    Returns
    -------
    tuple of float
        (lo, hi) with lo <= pi <= hi, both in [0, 1].

    Raises
    ------
    ValueError
        If the window does not hold every |y| <= c.
    """
    x0, m, r, _ = masses
    start, stop = -threshold - x0, threshold - x0 + 1
    if start < 0 or stop > m.size:
        raise ValueError(
            f"threshold {threshold} reaches past the noise's window [{x0}, {x0 + m.size - 1}]"
        )
    part, error = m[start:stop], r[start:stop]
    slack = (part.size + 2) * UNIT_ROUNDOFF
    inside_lo = float(np.sum(np.maximum(part * (1.0 - error), 0.0))) * (1.0 - slack)
    inside_hi = float(np.sum(part * (1.0 + error))) * (1.0 + slack)
    return max(0.0, 1.0 - inside_hi - UNIT_ROUNDOFF), min(1.0, 1.0 - inside_lo + UNIT_ROUNDOFF)


def binomial_bin_masses(
    trials: int, rate: tuple[float, float], edges: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the masses of Bin(trials, pi) on the bins K < e_0, [e_0, e_1), ..., [e_{B-1}, e_B],
    K > e_B, for every pi in the interval ``rate``.

    Inside the bins each pmf is bounded at both ends of the interval (below: log pmf is concave in
    pi, so its least value on an interval is at an end) and at the mode clipped to it (above); the
    tails are monotone in pi (P(K < e_0) falls as pi grows, P(K > e_B) rises).  Each scipy value is
    charged ``BINOMIAL_RELATIVE_ERROR``, each sum of m terms (m + 2) u.

    Parameters
    ----------
    trials : int
        d - 1 >= 1.
    rate : tuple of float
        (lo, hi), 0 <= lo <= hi <= 1.
    edges : numpy.ndarray
        Increasing integers e_0 < ... < e_B in [0, trials].

    Returns
    -------
    tuple of numpy.ndarray
        (lower, upper), each of B + 2 masses: the tail below, the B bins, the tail above.
    """
    from scipy import special, stats  # lazy: scipy's import time

    lo, hi = rate
    k = np.arange(int(edges[0]), int(edges[-1]) + 1)
    at_lo, at_hi = stats.binom.pmf(k, trials, lo), stats.binom.pmf(k, trials, hi)
    mode = stats.binom.pmf(k, trials, np.clip(k / trials, lo, hi))
    least, most = np.minimum(at_lo, at_hi), np.maximum(np.maximum(at_lo, at_hi), mode)
    starts = (edges[:-1] - edges[0]).astype(np.intp)
    width = int(np.max(np.diff(np.append(starts, k.size))))
    slack = BINOMIAL_RELATIVE_ERROR + (width + 2) * UNIT_ROUNDOFF
    inner_lo = np.add.reduceat(least, starts) * (1.0 - slack)
    inner_hi = np.add.reduceat(most, starts) * (1.0 + slack)
    below, above = (0.0, 0.0), (0.0, 0.0)  # no outcome beyond an edge at 0 or at trials
    if edges[0] > 0:  # P(K <= e_0 - 1) falls as pi grows
        below = (
            float(special.bdtr(edges[0] - 1, trials, hi)),
            float(special.bdtr(edges[0] - 1, trials, lo)),
        )
    if edges[-1] < trials:  # P(K > e_B) rises with pi
        above = (
            float(special.bdtrc(edges[-1], trials, lo)),
            float(special.bdtrc(edges[-1], trials, hi)),
        )
    tail = 1.0 + BINOMIAL_RELATIVE_ERROR
    lower = np.concatenate([[below[0] / tail], np.maximum(inner_lo, 0.0), [above[0] / tail]])
    upper = np.concatenate([[below[1] * tail], inner_hi, [above[1] * tail]])
    return lower, np.minimum(upper, 1.0)


def _threshold(fewer: Masses, more: Masses) -> int:
    """The candidate c whose exceedance best separates n shares from n + 1 over many coordinates
    (largest (pi_{n+1} - pi_n)^2 / (pi_n (1 - pi_n)), the binomial's signal over its noise): any c
    gives a lower side."""
    x0, m, _, _ = fewer
    y = np.arange(x0, x0 + m.size, dtype=float)
    sd = math.sqrt(max(float(np.sum(m * y * y)), 0.25))
    reach = min(-fewer[0], fewer[0] + fewer[1].size - 1, -more[0], more[0] + more[1].size - 1)
    best, best_score = 0, -1.0
    for ratio in _THRESHOLDS:
        c = min(int(round(ratio * sd)), reach)
        a, b = exceedance_interval(fewer, c), exceedance_interval(more, c)
        pa, pb = 0.5 * (a[0] + a[1]), 0.5 * (b[0] + b[1])
        score = (pb - pa) ** 2 / max(pa * (1.0 - pa), 1e-300)
        if score > best_score:
            best, best_score = c, score
    return best


def _count_edges(trials: int, rates: list[tuple[float, float]], bins: int) -> np.ndarray:
    """Bin edges over +-``_COUNT_STDDEVS`` standard deviations of both binomials (at most ``bins`` bins)."""
    ends = []
    for lo, hi in rates:
        mid = 0.5 * (lo + hi)
        sd = math.sqrt(trials * mid * (1.0 - mid)) + 1.0
        ends += [trials * lo - _COUNT_STDDEVS * sd, trials * hi + _COUNT_STDDEVS * sd]
    first, last = max(0, int(math.floor(min(ends)))), min(trials, int(math.ceil(max(ends))))
    edges = np.unique(
        np.linspace(first, last, min(bins, last - first) + 1).round().astype(np.int64)
    )
    return edges if edges.size >= 2 else np.array([first, last if last > first else first + 1])


def _cells(values: np.ndarray, width: int, raised: bool) -> np.ndarray:
    """Sums of ``width`` consecutive masses, moved outward by the sums' rounding ((width + 2) u)."""
    sums = np.add.reduceat(values, np.arange(0, values.size, width))
    slack = (width + 2) * UNIT_ROUNDOFF
    return sums * (1.0 + slack) if raised else sums * (1.0 - slack)


def spread_pair_pld(
    fewer: Masses,
    more: Masses,
    shift: int,
    rate: float,
    dimension: int,
    interval: float,
    *,
    cells: int = 4096,
    bins: int = 96,
) -> PrivacyLossDistribution:
    """The pair of laws of (y_1, K) for one round against an observer who knows the count of others'
    shares (module docstring).

    Parameters
    ----------
    fewer : tuple
        (x0, masses, errors, outside) of N_n, the n shares of a round without the client.
    more : tuple
        The same of N_{n+1}.
    shift : int
        k >= 1, the client's integer shift on the first coordinate.
    rate : float
        q in (0, 1].
    dimension : int
        d >= 2, the coordinates of the release.
    interval : float
        The PLD grid's spacing, in (0, 100].
    cells : int, optional
        The most cells y_1 is merged into (default 4096).
    bins : int, optional
        The most bins of K inside its window (default 96; two tail bins are added).

    Returns
    -------
    PrivacyLossDistribution
        One direction (P against Q); its optimistic side (``bound="lower"``) is a certified lower
        bound on the round's.

    Raises
    ------
    ValueError
        If ``dimension`` < 2, the windows hold fewer than two common outcomes, or ``interval`` is
        outside (0, 100].

    Examples
    --------
    >>> from hockeystick.secagg.lattice_pld import skellam_masses
    >>> from hockeystick.secagg.observer_spread import spread_pair_pld
    >>> pair = spread_pair_pld(skellam_masses(25.0, 2), skellam_masses(30.0, 2), 2, 0.5, 64, 1e-4)
    >>> 0.0 < pair.delta(0.1, bound="lower") < 1.0
    True
    """
    if dimension < 2:
        raise ValueError(
            f"dimension must be >= 2 for the spread of the other coordinates, got {dimension!r}"
        )
    h = checked_interval(interval)
    start = max(fewer[0], more[0] + shift, more[0])
    stop = min(fewer[0] + fewer[1].size, more[0] + more[1].size)
    if stop - start < 2:
        raise ValueError(
            "the noise's window holds too few outcomes for the shift: no certified lower side"
        )
    width = max(1, -(-(stop - start) // cells))
    shifted_lo = _cells(window_masses(more, start - shift, stop - shift, False), width, False)
    fewer_lo = _cells(window_masses(fewer, start, stop, False), width, False)
    more_hi = _cells(window_masses(more, start, stop, True), width, True)
    fewer_hi = _cells(window_masses(fewer, start, stop, True), width, True)
    c = _threshold(fewer, more)
    rates = [exceedance_interval(more, c), exceedance_interval(fewer, c)]
    edges = _count_edges(dimension - 1, rates, bins)
    in_lo, in_hi = binomial_bin_masses(dimension - 1, rates[0], edges)
    out_lo, out_hi = binomial_bin_masses(dimension - 1, rates[1], edges)
    # the products and the sum of two: within 4u of the exact values of the bounds
    p = rate * np.outer(shifted_lo, in_lo) + (1.0 - rate) * np.outer(fewer_lo, out_lo)
    q = rate * np.outer(more_hi, in_hi) + (1.0 - rate) * np.outer(fewer_hi, out_hi)
    p, q = p.ravel() * (1.0 - 4.0 * UNIT_ROUNDOFF), q.ravel() * (1.0 + 4.0 * UNIT_ROUNDOFF)
    factor = pair_factor(p, q, "spread_pair", h, False)
    return PrivacyLossDistribution([{factor: 1}])
