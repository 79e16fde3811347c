"""A run's largest privacy loss per direction, certified as exact rationals rounded outward.

The largest loss of a pure-DP run in one orientation ("remove": the dataset with the record
against the one without; "add": the other) is the essential supremum of its privacy loss there;
a composition's pure-DP epsilon (target delta 0) is the larger of its runs' per-direction sums
(``Mechanism.largest_losses``, summed by the dp_accounting adapter's pure-DP door).  Each bound is
a (lower, upper) pair of ``Fraction`` values, so sums are exact and only the final reading rounds.

A run of a mechanism with largest losses r (remove) and a (add) on a Poisson sample of rate q
(Zhu, Dong & Wang 2022, Thm 11: remove pair ((1 - q) Q + q P, Q), add the pair swapped) has

    remove: log(1 + q (e^r - 1)),        add: -log(1 - q (1 - e^{-a})),

since log(P'/Q) = log(1 - q + q P/Q) is increasing in P/Q, whose essential supremum is e^r (and
infimum e^{-a}).  On the sample of an empty dataset against the record alone the pair is
realizable, so the bound is exact wherever the inner's is.  For one subsampled Laplace of epsilon
eps0 the remove side, k log(1 + q (e^{eps0} - 1)) over k runs, is the amplification bound of
Balle, Barthe & Gaboardi 2018 (Thm 8), attained.  Each side is computed in doubles from the
inner's outward-rounded double and widened by its round-off bound (``poisson_sampled_losses``).
"""

from __future__ import annotations

import math
from fractions import Fraction

# its names serve the mechanisms' ``largest_losses`` facets and the pure-DP door (the stage's
# front door serves them to other packages)
__all__: list[str] = []

Interval = tuple[Fraction, Fraction]  # (lower, upper) on a largest loss
Directions = tuple[Interval, Interval]  # (remove, add)

_U = 2.0**-53  # unit round-off of a double


def round_outward(x: Fraction, up: bool) -> float:
    """``x`` rounded to a double outward (up or down).

    Parameters
    ----------
    x : Fraction
        The exact value.
    up : bool
        Round up (else down).

    Returns
    -------
    float
        The nearest double on the chosen side of ``x`` (``x`` itself where it is a double).

    Raises
    ------
    OverflowError
        Where ``x`` is beyond the doubles' range (``float(x)`` refuses it).
    """
    f = float(x)
    if up and Fraction(f) < x:
        return math.nextafter(f, math.inf)
    if not up and Fraction(f) > x:
        return math.nextafter(f, -math.inf)
    return f


def both_ways(top: Fraction) -> Directions:
    """The largest losses of a symmetric run whose largest |loss| ``top`` is known exactly.

    Parameters
    ----------
    top : Fraction
        The exact largest loss, the same in both directions (e.g. 1 / b for Laplace of scale b).

    Returns
    -------
    tuple of tuple of Fraction
        ((top, top), (top, top)): remove and add, lower and upper equal.
    """
    return (top, top), (top, top)


def poisson_sampled_losses(q: float, inner: Directions | None) -> Directions | None:
    """Certified largest losses of a run on a Poisson sample of rate q (module docstring).

    Parameters
    ----------
    q : float
        The sampling rate; outside 0 < q < 1 no bound is given here (None).
    inner : tuple of tuple of Fraction or None
        The unsampled run's ((remove lower, remove upper), (add lower, add upper)), or None where
        unknown.

    Returns
    -------
    tuple of tuple of Fraction or None
        The sampled run's bounds, each side rounded outward; None where ``inner`` is None or q is
        not in (0, 1).
    """
    if inner is None or not 0.0 < q < 1.0:
        return None
    (r_low, r_up), (a_low, a_up) = inner
    remove = (_remove_loss(q, r_low, False), _remove_loss(q, r_up, True))
    add = (_add_loss(q, a_low, False), _add_loss(q, a_up, True))
    return remove, add


def _remove_loss(q: float, r: Fraction, up: bool) -> Fraction:
    """log(1 + q (e^r - 1)), increasing in r, rounded outward from r's outward double."""
    x = round_outward(r, up)
    if x < 700.0:
        # e^r in range: each step within u relative, log1p's condition y / ((1 + y) log1p(y)) <= 1
        value = math.log1p(q * math.expm1(x))
        pad = 8 * _U * value
    else:
        # r + log q + log1p((1 - q) / q e^{-r}): no overflow of e^r; each term within u of its
        # magnitude
        tail = math.log1p((1.0 - q) / q * math.exp(-x))
        value = x + math.log(q) + tail
        pad = 8 * _U * (x + abs(math.log(q)) + tail + 1.0)
    return _widened(value, pad, up)


def _add_loss(q: float, a: Fraction, up: bool) -> Fraction:
    """-log(1 - q (1 - e^{-a})), increasing in a, rounded outward from a's outward double."""
    x = round_outward(a, up)
    if q <= 0.5:
        # y = q (1 - e^{-a}) <= 1/2: log1p(-y)'s condition y / ((1 - y) |log1p(-y)|) <= 1 / ln 2
        value = -math.log1p(-q * -math.expm1(-x))
        pad = 16 * _U * value
    else:  # (1 - q) + q e^{-a}, 1 - q exact (Sterbenz), a sum of positives
        value = -math.log((1.0 - q) + q * math.exp(-x))
        pad = 8 * _U * (value + 1.0)
    return _widened(value, pad, up)


def _widened(value: float, pad: float, up: bool) -> Fraction:
    """``value`` moved outward by ``pad`` (and one ulp), never below 0 (a largest loss is >= 0 here)."""
    if up:
        return Fraction(math.nextafter(value + pad, math.inf))
    return Fraction(max(0.0, math.nextafter(value - pad, -math.inf)))
