r"""An inner plan's certified curve read under exponential tilts where its composition's round-off
floors it: the sharper sides a nested Poisson sample (``plan.PoissonGeneric``) is built from for a
read at small delta.

The sampling map carries the inner's certified curve H into the sampled one, q H(1 + (e^eps - 1)
/ q) (``pld. sampling.subsampled_pair``), so at small delta the sampled curve is the inner's far tail:
ten Poisson-subsampled Gaussian steps (z = 1, q_l = 0.1) read on the 1e-4 grid have a plain upper
curve floored near 5e-13 by the FFT composition's round-off charge (and a lower curve at 0 there),
which the outer R rounds carry as q R times that. The tilted composition of the same discretized
steps (``compose.tilted``) reads that tail with a charge relative to the Chernoff bound at its tilt:
at inner eps 8 it gives (9.98e-15, 1.05e-14) against the plain (0, 5.5e-13).

Where the plain upper curve is below ``PLAIN_ABOVE`` (the round-off charge is a few 1e-13: above it
the plain read is already exact to ~1e-6), the inner direction's curve is read at the points x_i =
x_0 + i ``SPACING`` under the tilt among ``TILTS`` maximizing lam x_i - K(lam) (the Chernoff
exponent, K the factors' summed log-moment), each point on each side one certified read of the same
composition.  Between the points:

- upper: H(e^x) is convex in g = e^x and non-increasing, so on [g_i, g_{i+1}] it lies below the
  chord through the upper values U_i, U_{i+1} (convexity), and beyond the last point below U_last;
  the chord is evaluated in double and raised by ``CHORD_MARGIN`` (relative; its abscissae e^x each
  within a few ulps, the slope at most lam U);
- lower: H is non-increasing, so at x <= x_i it is at least the lower value L_i at the first point
  x_i >= x.

Each is combined with the plain side (the smaller upper, the larger lower): both are certified, so
is each pointwise extreme.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..compose import tilted
from ..grid.distribution import Factor
from ..grid.pmf import GridPMF
from ..question.tilted_factors import summed_log_mgf
from ..question.tilted_question import MAX_POINTS
from .plan_tilted import direction_lower_terms

Curve = Callable[[np.ndarray], np.ndarray]
Terms = list[tuple[GridPMF, int]]

# the plain upper curve above this is kept (its round-off charge is far below it)
PLAIN_ABOVE = 1e-6
# the spacing of the tilted reads in eps: the chord's excess over a convex curve decaying like
# e^{-lam x} is about (lam SPACING)^2 / 8 relative (0.2 % at lam = 10); the lower side's step about
# lam SPACING
SPACING = 0.01
# at most this many tilted reads per side (the spacing is widened to keep within it)
MAX_READS = 2048
# the tilts lam (per unit of loss) a read may take: a factor sqrt(2) apart
TILTS = 2.0 ** (np.arange(-2, 15) / 2.0)
# the relative raise of an upper chord's value for its round-off in double
CHORD_MARGIN = 1e-9


def _terms(direction: dict[Factor, int], upper: bool) -> Terms | None:
    """The direction's (PMF, count) terms on one side, None where a factor has no optimistic side."""
    if upper:
        return [(f.upper, c) for f, c in direction.items()]
    return direction_lower_terms(direction)


def _reads(terms: Terms, xs: np.ndarray, upper: bool) -> np.ndarray:
    """The certified side at each of ``xs``, each under its Chernoff tilt among ``TILTS`` (1 or 0
    where a tilt's composition cannot be read: its window past ``MAX_POINTS``, or its moment
    overflowing)."""
    with np.errstate(over="ignore", invalid="ignore"):
        exponent = TILTS[None, :] * xs[:, None] - summed_log_mgf(terms, TILTS)[None, :]
    choice = np.argmax(np.where(np.isfinite(exponent), exponent, -np.inf), axis=1)
    out = np.full(xs.size, 1.0 if upper else 0.0)
    h = terms[0][0].h
    for t in np.unique(choice):
        try:
            side = tilted.compose_tilted(
                terms, float(TILTS[t]) * h, pessimistic=upper, max_points=MAX_POINTS
            )
        except ValueError:
            continue
        for i in np.flatnonzero(choice == t):
            out[i] = side.delta(float(xs[i]))
    return out


def tilted_sides(
    direction: dict[Factor, int], plain: tuple[Curve, Curve], top: float
) -> tuple[Curve, Curve]:
    """The (upper, lower) curves of one inner direction: the plain sides ``plain`` combined with the
    tilted reads of the module docstring on [x_0, ``top``], x_0 the first point of the ``SPACING``
    grid where the plain upper is below ``PLAIN_ABOVE``; the plain sides as given where it is
    nowhere below it.

    Parameters
    ----------
    direction : dict
        The inner direction's factors and counts (``PrivacyLossDistribution.directions``), on one
        grid.
    plain : tuple of callable
        The direction's plain (upper, lower) curves, certified at any real eps.
    top : float
        A loss beyond which the curves need not be read more finely (the inner's top loss), > 0.

    Returns
    -------
    tuple of callable
        The certified (upper, lower) curves at any real eps.

    Raises
    ------
    ValueError
        ``top`` not a finite number > 0, or ``direction`` without factors.
    """
    if not (math.isfinite(top) and top > 0.0):
        raise ValueError(f"top must be a finite number > 0 (the inner's top loss), got {top!r}")
    if not direction:
        raise ValueError("a direction to read must hold at least one factor")
    spacing = max(SPACING, top / MAX_READS)
    grid = np.arange(0.0, top + spacing, spacing)
    low_enough = np.flatnonzero(np.asarray(plain[0](grid)) < PLAIN_ABOVE)
    if low_enough.size == 0:
        return plain
    xs = grid[low_enough[0] :]
    ups = _terms(direction, True)
    assert ups is not None
    upper_reads = _reads(ups, xs, True)
    lows = _terms(direction, False)
    lower_reads = np.zeros(xs.size) if lows is None else _reads(lows, xs, False)
    knots = np.exp(xs)

    def upper(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=np.float64)
        with np.errstate(over="ignore"):
            chord = np.interp(np.exp(e), knots, upper_reads) * (1.0 + CHORD_MARGIN)
        return np.asarray(
            np.where(e >= xs[0], np.minimum(plain[0](e), chord), plain[0](e)), dtype=np.float64
        )

    def lower(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=np.float64)
        at = np.searchsorted(xs, e, side="left")  # the first point at or above eps
        step = np.where(at < xs.size, lower_reads[np.minimum(at, xs.size - 1)], 0.0)
        return np.asarray(np.maximum(plain[1](e), step), dtype=np.float64)

    return upper, lower
