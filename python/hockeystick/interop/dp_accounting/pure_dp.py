"""The pure-DP epsilon (target delta 0) of a composition of pure-DP runs: their largest privacy losses, summed.

Under add-or-remove (and replace-special) every run of a composition sees the same pair of
neighbouring datasets, so the composition's privacy loss in one orientation ("remove": the dataset
with the record against the one without) is the sum of its runs' independent losses in that
orientation, and its essential supremum is the sum of theirs; the other orientation ("add")
likewise.  epsilon(0) is the larger of the two sums (delta(eps) = 0 exactly where eps is at least
both).  Each run's largest loss in each orientation, as a certified (lower, upper), is its
mechanism's facet ``Mechanism.largest_losses()`` (``pld.mechanisms.largest_loss``: the exponential
mechanism, permute-and-flip and (eps, 0)-DP eps both ways, Laplace of scale b 1 / b, discrete
Laplace DLap(a) of shift s a s, and their Poisson samples through the sampling map of Zhu, Dong &
Wang 2022, Thm 11); for one subsampled Laplace of epsilon eps0 composed k times, epsilon(0) =
k log(1 + q (e^{eps0} - 1)), the amplification bound of Balle, Barthe & Gaboardi 2018 (Thm 8),
attained.

A Poisson sample of one run (``poisson_pair``) or of a composition of these (one run of several
mechanisms, ``poisson_generic``) takes its inner runs' largest losses, summed, as r and a, through
the same sampling map (they are attained together: the runs are independent).  The
same holds under replace-special, where the special record changes no output (dp_accounting's
convention: the plans are add-or-remove's).  Poisson sampling under replace-one is not analysed here
(the dp_accounting adapter refuses it beside non-Gaussian inners), nor are fixed-size samples: a
plan holding any run without a closed form here (a Gaussian, a delta floor, a zCDP run) gets None,
and the caller falls back to the composed profile.  The sums are exact rationals of doubles each
rounded outward, rounded outward once more at the end.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import cast

from ...pld.mechanisms import Directions, mechanism_of, poisson_sampled_losses, round_outward

__all__ = ["largest_losses", "pure_epsilon_sum", "pure_epsilon_upper_below"]

# A sum in doubles of n >= 0 terms, each a correctly rounded product of a count (exact in a double,
# at most 2^53) and the double nearest a largest loss, then summed correctly rounded (math.fsum), is
# within (1 + u)^3 of the exact sum: 1 - 1e-12 below it is below the exact sum.
_DOUBLE_SUM_MARGIN = 1e-12
# ... where no term underflows: a cap this small is never compared that way.
_LEAST_CAP = 1e-300


def largest_losses(spec: tuple[object, ...]) -> Directions | None:
    """Certified (lower, upper) on one run's largest privacy loss, remove and add (module docstring).

    A mechanism's own facet (``Mechanism.largest_losses``), but for the two sampled plans whose
    inner runs are read here (``_sampled_plan``).

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
    sampled = _sampled_plan(spec)
    if sampled is not None:
        return poisson_sampled_losses(*sampled)
    losses: Directions | None = mechanism_of(spec).largest_losses()
    return losses


def _sampled_plan(spec: tuple[object, ...]) -> tuple[float, Directions | None] | None:
    """(q, the inner's largest losses) of a Poisson sample of one run or of a plan, else None."""
    name = spec[0]
    if name == "poisson_pair":
        return cast(float, spec[1]), largest_losses(cast(tuple[object, ...], spec[2]))
    if (
        name == "poisson_generic"
    ):  # the inner plan's key: (counts, Gaussian r^2, non-private, operations)
        counts, r2, non_private, _ = cast(
            tuple[tuple[tuple[tuple[object, ...], int], ...], float, bool, int], spec[2]
        )
        return cast(float, spec[1]), None if r2 != 0 or non_private else _summed(dict(counts))
    return None


def _known(counts: Mapping[tuple[object, ...], int]) -> list[tuple[Directions, int]] | None:
    """Each run's largest losses (``largest_losses``) with its count; None if a run has no closed form."""
    sides = [(largest_losses(spec), count) for spec, count in counts.items()]
    if any(side is None for side, _ in sides):
        return None
    return [(cast(Directions, side), count) for side, count in sides]


def _summed(counts: Mapping[tuple[object, ...], int]) -> Directions | None:
    """The largest losses of one run of every run in ``counts`` together, per direction: the sums (exact)."""
    known = _known(counts)
    return None if known is None else _totals(known)


def _totals(known: Sequence[tuple[Directions, int]]) -> Directions:
    """The exact sums of ``_known``'s largest losses times their counts, per direction and side."""

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


def pure_epsilon_upper_below(counts: Mapping[tuple[object, ...], int], cap: float) -> float | None:
    """The upper side of ``pure_epsilon_sum(counts)`` where it may lie below ``cap``, else ``cap``.

    In one direction the runs' upper largest losses, each read as its nearest double, times its
    count and summed in doubles (``math.fsum``), lie within a factor (1 + u)^3 of the exact sum
    (all terms >= 0); where that sum less ``_DOUBLE_SUM_MARGIN`` of it is above ``cap``, so is the
    exact sum, and the upper side rounded up from it: ``cap`` is returned without the exact sums,
    and ``min(cap, .)`` is the same either way.

    Parameters
    ----------
    counts : mapping
        Each run's mechanism spec and how many times it is composed.
    cap : float
        The value the caller takes the smaller of (a certified upper epsilon already known).

    Returns
    -------
    float or None
        The upper side rounded up, or ``cap`` where that side is certified above it; None where a
        run's largest loss is not known here.
    """
    known = _known(counts)
    if known is None:
        return None
    if math.isfinite(cap) and cap >= _LEAST_CAP:
        for direction in (0, 1):
            terms = [float(side[direction][1]) * count for side, count in known]
            if all(t >= 0.0 for t in terms) and math.fsum(terms) * (1.0 - _DOUBLE_SUM_MARGIN) > cap:
                return cap
    (_, remove_up), (_, add_up) = _totals(known)
    return round_outward(max(remove_up, add_up), True)
