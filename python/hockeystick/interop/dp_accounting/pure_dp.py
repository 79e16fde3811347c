"""The pure-DP epsilon (target delta 0) of a composition of pure-DP runs: their largest privacy losses, summed.

Under add-or-remove (and replace-special) every run of a composition sees the same pair of
neighbouring datasets, so the composition's privacy loss in one orientation ("remove": the dataset
with the record against the one without) is the sum of its runs' independent losses in that
orientation, and its essential supremum is the sum of theirs; the other orientation ("add")
likewise.  epsilon(0) is the larger of the two sums (delta(eps) = 0 exactly where eps is at least
both).  Each run's largest loss in each orientation, as a certified (lower, upper):

* the exponential mechanism eps both ways (eps-bounded range above; below, its realizable pairs on
  1 + m candidates, whose largest loss eps/2 + log((1 + m E) / (E + m)), E = e^{eps/2}, tends to eps);
  permute-and-flip eps both ways (its realizable pair's loss on the second candidate); (eps, 0)-DP
  eps both ways (the canonical pair); Laplace of scale b (shift folded into b) 1 / b both ways;
  discrete Laplace DLap(a) of shift s, a s both ways: each attained with positive probability on a
  realizable pair (the query's value moved by the shift), or approached by them;
* a run of one of these on a Poisson sample of rate q (Zhu, Dong & Wang 2022, Thm 11: remove pair
  ((1 - q) Q + q P, Q), add the pair swapped): with r the inner's largest remove loss and a its
  largest add loss,

      remove: log(1 + q (e^r - 1)),        add: -log(1 - q (1 - e^{-a})),

  since log(P'/Q) = log(1 - q + q P/Q) is increasing in P/Q, whose essential supremum is e^r (and
  infimum e^{-a}).  On the sample of an empty dataset against the record alone (the rest of the
  sample is then empty on both sides) the pair is realizable, so the bound is exact wherever the
  inner's is: Laplace, discrete Laplace and nested samples of them.  The remove side is the larger
  ((1 + q (e^r - 1)) (1 - q (1 - e^{-r})) = 1 + q (1 - q) (e^r - 1)^2 / e^r >= 1), so for one
  subsampled Laplace of epsilon eps0 = 1 / b composed k times, epsilon(0) = k log(1 + q (e^{eps0} - 1)),
  the amplification bound of Balle, Barthe & Gaboardi 2018 (Thm 8), attained.

A Poisson sample of a composition of these (one run of several mechanisms) takes the sums of its
inner runs' largest losses as r and a (they are attained together: the runs are independent).  The
same holds under replace-special, where the special record changes no output (dp_accounting's
convention: the plans are add-or-remove's).  Poisson sampling under replace-one is not analysed here
(the dp_accounting adapter refuses it beside non-Gaussian inners), nor are fixed-size samples: a
plan holding any run without a closed form here (a Gaussian, a delta floor, a zCDP run) gets None,
and the caller falls back to the composed profile.  The sums are exact rationals of doubles each
rounded outward, rounded outward once more at the end.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import cast

__all__ = ["largest_losses", "pure_epsilon_sum"]

Interval = tuple[Fraction, Fraction]  # (lower, upper) on a largest loss
Directions = tuple[Interval, Interval]  # (remove, add)

_U = 2.0**-53
_SYMMETRIC = ("exponential_mechanism", "permute_and_flip")


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
        The double.
    """
    f = float(x)
    if up and Fraction(f) < x:
        return math.nextafter(f, math.inf)
    if not up and Fraction(f) > x:
        return math.nextafter(f, -math.inf)
    return f


def largest_losses(spec: tuple[object, ...]) -> Directions | None:
    """Certified (lower, upper) on one run's largest privacy loss, remove and add (module docstring).

    Parameters
    ----------
    spec : tuple
        The run's mechanism spec (``pld.accountants.plan``'s vocabulary).

    Returns
    -------
    tuple of tuple of Fraction or None
        ((remove lower, remove upper), (add lower, add upper)); None where no closed form is known
        here.
    """
    name = spec[0]
    if name in _SYMMETRIC or (name == "eps_delta" and spec[2] == 0.0):
        eps = Fraction(cast(float, spec[1]))
        return (eps, eps), (eps, eps)
    if name == "laplace":
        top = 1 / Fraction(cast(float, spec[1]))
        return (top, top), (top, top)
    if name == "discrete_laplace":
        top = Fraction(cast(float, spec[1])) * cast(int, spec[2])
        return (top, top), (top, top)
    return _sampled(spec)


def _sampled(spec: tuple[object, ...]) -> Directions | None:
    """A Poisson-sampled run's largest losses from its inner's (``largest_losses``), None where unknown."""
    name = spec[0]
    if name == "laplace_mixture" and tuple(cast(tuple[float, ...], spec[2])) == (0.0, 1.0):
        q = cast(tuple[float, float], spec[3])[1]
        top = 1 / Fraction(cast(float, spec[1]))
        inner: Directions | None = ((top, top), (top, top))
    elif name == "poisson_discrete_laplace":
        q = cast(float, spec[3])
        top = Fraction(cast(float, spec[1])) * cast(int, spec[2])
        inner = ((top, top), (top, top))
    elif name == "poisson_pair":
        q = cast(float, spec[1])
        inner = largest_losses(cast(tuple[object, ...], spec[2]))
    elif (
        name == "poisson_generic"
    ):  # the inner plan's key: (counts, Gaussian r^2, non-private, operations)
        q = cast(float, spec[1])
        counts, r2, non_private, _ = cast(
            tuple[tuple[tuple[tuple[object, ...], int], ...], float, bool, int], spec[2]
        )
        inner = None if r2 != 0 or non_private else _summed(dict(counts))
    else:
        return None
    if inner is None or not 0.0 < q < 1.0:
        return None
    (r_low, r_up), (a_low, a_up) = inner
    remove = (_remove_loss(q, r_low, False), _remove_loss(q, r_up, True))
    add = (_add_loss(q, a_low, False), _add_loss(q, a_up, True))
    return remove, add


def _remove_loss(q: float, r: Fraction, up: bool) -> Fraction:
    """log(1 + q (e^r - 1)), increasing in r, rounded outward from r's outward double."""
    x = round_outward(r, up)
    if (
        x < 700.0
    ):  # e^r in range: each step within u relative, log1p's condition y / ((1 + y) log1p(y)) <= 1
        value = math.log1p(q * math.expm1(x))
        pad = 8 * _U * value
    else:  # r + log q + log1p((1 - q) / q e^{-r}): no overflow of e^r; each term within u of its magnitude
        tail = math.log1p((1.0 - q) / q * math.exp(-x))
        value = x + math.log(q) + tail
        pad = 8 * _U * (x + abs(math.log(q)) + tail + 1.0)
    return _widened(value, pad, up)


def _add_loss(q: float, a: Fraction, up: bool) -> Fraction:
    """-log(1 - q (1 - e^{-a})), increasing in a, rounded outward from a's outward double."""
    x = round_outward(a, up)
    if (
        q <= 0.5
    ):  # y = q (1 - e^{-a}) <= 1/2: log1p(-y)'s condition y / ((1 - y) |log1p(-y)|) <= 1 / ln 2
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


def _summed(counts: Mapping[tuple[object, ...], int]) -> Directions | None:
    """The largest losses of one run of every run in ``counts`` together, per direction: the sums (exact)."""
    sides = [(largest_losses(spec), count) for spec, count in counts.items()]
    if any(side is None for side, _ in sides):
        return None
    known = [(cast(Directions, side), count) for side, count in sides]

    def total(direction: int, end: int) -> Fraction:
        return sum((side[direction][end] * count for side, count in known), Fraction(0))

    return (total(0, 0), total(0, 1)), (total(1, 0), total(1, 1))


def pure_epsilon_sum(counts: Mapping[tuple[object, ...], int]) -> tuple[float, float] | None:
    """Certified (lower, upper) on epsilon(0) of a composition of the runs ``counts``.

    It is the larger of the remove and add sums of the runs' largest losses (module docstring), or
    None if a run has no closed form.

    Parameters
    ----------
    counts : mapping
        Each run's mechanism spec and how many times it is composed.

    Returns
    -------
    tuple of float or None
        (lower, upper), rounded outward; None where a run's largest loss is not known here.
    """
    summed = _summed(counts)
    if summed is None:
        return None
    (remove_low, remove_up), (add_low, add_up) = summed
    return round_outward(max(remove_low, add_low), False), round_outward(
        max(remove_up, add_up), True
    )
