"""Epsilon on one certified side of a grid part read beside a Gaussian (``plan_gaussian_beside``),
from a few evaluations near an estimate of the root.

Every evaluation of the certified side (*) costs one theta per grid point of the part (tens of
thousands), so its cost is the count of arguments read, not of calls.  A bracketing search from
[0, top] reads some 18 arguments a side.  Here the root is first estimated on the part's masses
merged in blocks of ``BLOCK`` consecutive points (each at its mass-weighted mean loss, with the
second-order term of its spread about it: the error is of fourth order in the block's width),
where an argument costs 1 / ``BLOCK`` of one on the part; the certified side is then read at the
estimate -+ d (d widened ``WIDEN`` times until the two straddle the target), and at the secant
root -+ 0.4 ``tolerance`` of that bracket, which leaves it within the tolerance: some four
arguments a side.

Only the certified side's own values decide the answer, as in ``atoms_epsilon.epsilon_search``:
on the upper side any hi with delta_up(hi) <= delta bounds epsilon from above, on the lower side any
lo with delta_lo(lo) > delta from below (the true delta is non-increasing), whether or not the
computed side is monotone; the estimate only chooses where to look.  Where the few reads do not
settle it (a root at 0 or past ``top``, a side flat near the target), that search answers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from ...numerics.gaussian import gaussian_tail, mills_ratio
from ..compose import atoms_epsilon
from ..grid.pmf import GridPMF
from .plan_sides import gaussian_side, worst

# Consecutive grid points merged into one for the estimate.
BLOCK = 64
# The first half-width of the reads around the estimate (relative to max(1, estimate)), and the
# factor it widens by while the two reads do not straddle the target.
FIRST_HALF_WIDTH = 1e-9
WIDEN = 30.0
# Half-widths tried before the full search answers, and secant steps inside the bracket.
MAX_WIDENINGS = 5
MAX_STEPS = 4
# The secant root's reads sit this share of the tolerance on each side of it.
STRADDLE = 0.4
# The narrowest bracket of the root sought, relative to it.
RELATIVE_FLOOR = 1e-14


def blocked_estimate(
    pmfs: Sequence[GridPMF], radius: float, upper: bool
) -> Callable[[np.ndarray], np.ndarray]:
    """An estimate (not certified) of one side of (*) over the directions ``pmfs``: each part's
    masses merged ``BLOCK`` at a time at their mass-weighted mean loss (moved by the loss shift the
    certified side's way), each block's variance about it times half the Gaussian curve's second
    derivative added (``_curvature``), plus the mass at +infinity and the shift, and the masses'
    round-off charge for the block counts' weights, added on the upper side and taken away on the
    lower.

    Parameters
    ----------
    pmfs : sequence of GridPMF
        The grid part's composed PMFs, one per neighbouring direction, on the side estimated.
    radius : float
        The Gaussian's radius on that side.
    upper : bool
        The pessimistic side (else the optimistic one).

    Returns
    -------
    callable
        delta(eps) estimated at a flat array of eps.
    """

    def one(pmf: GridPMF) -> Callable[[np.ndarray], np.ndarray]:
        n = pmf.p.size
        edges = np.arange(0, n, BLOCK)
        offset = np.arange(n, dtype=np.float64) - np.repeat(edges, BLOCK)[:n]  # within its block
        mass = np.add.reduceat(pmf.p, edges)
        counts = np.diff(np.append(edges, n)).astype(np.float64)
        first = np.add.reduceat(pmf.p * offset, edges)
        second = np.add.reduceat(pmf.p * offset * offset, edges)
        held = np.where(mass > 0.0, mass, 1.0)
        mean = np.where(mass > 0.0, first / held, 0.5 * (counts - 1.0))
        spread = np.maximum(second / held - mean * mean, 0.0) * pmf.h * pmf.h
        losses = (pmf.k_lo + edges + mean) * pmf.h + (pmf.loss_shift if upper else -pmf.loss_shift)
        sign = 1.0 if upper else -1.0

        def side(eps: np.ndarray) -> np.ndarray:
            e = np.asarray(eps, dtype=np.float64).ravel()
            x = (e[:, None] - losses[None, :]).ravel()
            weights = gaussian_side(radius, x, upper, 1).reshape(e.size, losses.size)
            # a block's masses about their mean: + half the curve's second derivative times their
            # variance (Taylor), so the merge errs at fourth order in the block's width
            bent = weights + 0.5 * _curvature(radius, x).reshape(weights.shape) * spread
            # sums in numpy's own loops, not BLAS (whose threads would spin on the cores)
            charge = pmf.charge_of_weighted_sum(
                np.einsum("ij,j->i", weights, counts),
                np.sqrt(np.einsum("ij,ij,j->i", weights, weights, counts)),
            )
            value = np.einsum("ij,j->i", bent, mass) + pmf.p_inf + sign * (pmf.shift + charge)
            return cast(np.ndarray, np.clip(value, 0.0, 1.0))

        return side

    return worst([one(pmf) for pmf in pmfs])


def _curvature(r: float, x: np.ndarray) -> np.ndarray:
    """delta_G''(x) of the Gaussian pair of radius r, delta_G(x) = Q(x / r - r / 2) - e^x Q(x / r +
    r / 2) (Balle & Wang 2018, Thm. 8, every real x): e^x (phi(z) / r - Q(z)) at z = x / r + r / 2,
    with e^x phi(z) = exp(x / 2 - x^2 / (2 r^2) - r^2 / 8) / sqrt(2 pi) and e^x Q(z) that times the
    Mills ratio where z >= 0 (no overflow), e^x Q(z) directly below (x < 0 there).  Not rounded
    outward: it only places the estimate."""
    z = x / r + 0.5 * r
    density = np.exp(0.5 * x - x * x / (2.0 * r * r) - r * r / 8.0) / math.sqrt(2.0 * math.pi)
    high = z >= 0.0
    tail = np.empty_like(x)
    tail[high] = density[high] * mills_ratio(z[high], threads=1)
    tail[~high] = np.exp(x[~high]) * gaussian_tail(z[~high], threads=1)
    return cast(np.ndarray, density / r - tail)


def _log_gap(value: float, target: float) -> float:
    """log delta - log target, delta floored at 1e-300 (nearly linear in eps near the root)."""
    return math.log(max(value, 1e-300)) - math.log(target)


def _straddle(
    side: Callable[[np.ndarray], np.ndarray],
    target: float,
    estimate: float,
    top: float,
) -> tuple[float, float, float, float] | None:
    """(lo, hi, side(lo), side(hi)) with side(lo) > target >= side(hi) and 0 <= lo < hi <= top, read
    at estimate -+ d for widening d; None where no read pair straddles the target."""
    d = FIRST_HALF_WIDTH * max(1.0, abs(estimate))
    for _ in range(MAX_WIDENINGS):
        a, b = max(estimate - d, 0.0), min(estimate + d, top)
        if not a < b:
            return None
        va, vb = (float(v) for v in side(np.array([a, b], dtype=np.float64)))
        if va > target >= vb:
            return a, b, va, vb
        if va <= target and vb > target:  # the side rises through the target here: no estimate
            return None
        estimate = a - d if va <= target else b + d  # both on one side: look past it
        d *= WIDEN
    return None


def epsilon_near(
    side: Callable[[np.ndarray], np.ndarray],
    target: float,
    upper: bool,
    top: float,
    tolerance: float,
    estimate: float,
    hints: Sequence[float] = (),
) -> float:
    """The certified epsilon of one side at ``target`` (module docstring): hi with side(hi) <=
    target on the upper side, lo with side(lo) > target on the lower, within ``tolerance`` of each
    other, read near ``estimate``; ``atoms_epsilon.epsilon_search`` (with ``hints``) where those
    reads do not settle it.

    Parameters
    ----------
    side : callable
        A certified side of delta(eps) at a flat array of eps.
    target : float
        The delta asked, in (0, 1).
    upper : bool
        The pessimistic side (its epsilon an upper bound) or the optimistic one.
    top : float
        A loss past which the side is constant.
    tolerance : float
        The width the final bracket of the root is narrowed to, > 0.
    estimate : float
        Where the root is expected.
    hints : sequence of float
        Points near the root for the fallback search.

    Returns
    -------
    float
        The certified epsilon on that side.
    """
    found = (
        _straddle(side, target, estimate, top)
        if math.isfinite(estimate) and 0.0 < estimate < top
        else None
    )
    if found is None:
        return atoms_epsilon.epsilon_search(side, target, upper, top, tolerance, tuple(hints))
    lo, hi, vlo, vhi = found
    # the width asked, and no less than RELATIVE_FLOOR of the root: below it the side's own
    # round-off, not the secant, places the root
    tolerance = max(tolerance, RELATIVE_FLOOR * hi)
    for _ in range(MAX_STEPS):
        if hi - lo <= max(tolerance, 4.0 * math.ulp(hi)):
            return hi if upper else lo
        glo, ghi = _log_gap(vlo, target), _log_gap(vhi, target)
        x = lo + (hi - lo) * glo / (glo - ghi) if glo > ghi else 0.5 * (lo + hi)
        step = STRADDLE * tolerance
        trial = np.array(
            [min(max(x - step, lo + 0.1 * step), hi), max(min(x + step, hi - 0.1 * step), lo)]
        )
        values = side(trial)
        for t, v in zip(trial.tolist(), np.asarray(values).tolist()):
            if lo < t < hi:
                if v > target:
                    lo, vlo = t, v
                else:
                    hi, vhi = t, v
                    break  # a read at or below the target closes the bracket from above
    if hi - lo <= max(tolerance, 4.0 * math.ulp(hi)):
        return hi if upper else lo
    return atoms_epsilon.epsilon_search(side, target, upper, top, tolerance, (lo, hi))
