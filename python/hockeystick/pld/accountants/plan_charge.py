"""The default grid's upper epsilon where the composition's round-off charge, not the grid, sets it.

A certified upper delta on a grid is the pessimistic PMF's hockey-stick sum plus the composition's
round-off charge (``compose.fft``: about 8 u ceil(log2 M) ||p||_1 per point, a normwise bound); its
upper epsilon is where that charged curve meets delta.  At delta 1e-6 after a few rounds of
Poisson-subsampled Gaussians the charge, ~5e-13, is a shift of ~5e-8 in epsilon: more than a grid
7/8 as fine gains over dp_accounting's pessimistic estimate on 1e-4 (the same connect-the-dots
masses, read without a charge; ``plan.default_interval``).  Where the charge moves a direction's
upper epsilon by more than ``CHARGED_EPSILON_SHARE`` of it, that direction is read again under the
exponential tilt of the Chernoff exponent at its upper side (``plan_tilted.direction_upper_epsilon``:
the same masses, the round-off charged relative to the Chernoff bound, Keich 2005); both reads
are certified, so the smaller is.

A delta asked at epsilon is read again alike where the charge is more than
``CHARGED_EPSILON_SHARE`` of the upper delta (``low_charge_upper_delta``): the charged value less
the uncharged sum D(eps) is the charge itself.

How far the charge moves epsilon is bounded from the PMF itself: its uncharged curve D is convex and
non-increasing in eps, so where the charged upper epsilon u has D(u) <= delta,
u - eps_D(delta) <= (delta - D(u)) / (-D'(u)), with -D'(u) = sum_{l > u} p_l e^{u - l} (the
tangent at u lies below the curve).  The bound only chooses whether to read again.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..grid.distribution import PrivacyLossDistribution
from ..grid.pmf import GridPMF
from .plan_tilted import direction_upper_delta, direction_upper_epsilon

# A direction whose upper epsilon the charge moves by more than this share of it (relative; of 1
# below epsilon 1) is read again under the tilt (module docstring).
CHARGED_EPSILON_SHARE = 1e-9


def _uncharged(pmf: GridPMF, eps: float) -> tuple[float, float]:
    """The uncharged hockey-stick sum D(eps) of ``pmf``'s masses (its mass at +infinity included)
    and its slope -D'(eps) = sum_{l > eps} p_l e^{eps - l}; (nan, 0) where no mass lies above eps."""
    start = max(int(math.floor(eps / pmf.h)) + 1 - pmf.k_lo, 0)
    p = pmf.p[start:]
    if p.size == 0:
        return math.nan, 0.0
    gap = (pmf.k_lo + start + np.arange(p.size)) * pmf.h - eps  # l - eps > 0
    slope = float(np.sum(p * np.exp(-gap)))  # not np.dot: BLAS threads cost ms on a busy machine
    return float(np.sum(p) - slope) + pmf.p_inf, slope


def charge_shift(pmf: GridPMF, delta: float, upper: float) -> float:
    """A bound on how far the round-off charge moves ``pmf``'s upper epsilon ``upper`` at ``delta``
    (module docstring): (delta - D(upper)) / (-D'(upper)) over the uncharged curve D; 0 where D
    already reaches delta there, inf where no mass lies above ``upper``.

    Parameters
    ----------
    pmf : GridPMF
        A pessimistic composed PMF.
    delta : float
        The delta asked, in (0, 1).
    upper : float
        The PMF's certified upper epsilon at ``delta`` (finite).

    Returns
    -------
    float
        The bound, >= 0.
    """
    uncharged, slope = _uncharged(pmf, upper)
    if math.isnan(uncharged):
        return math.inf
    if uncharged >= delta:
        return 0.0
    return math.inf if slope <= 0.0 else (delta - uncharged) / slope


def low_charge_upper(pld: PrivacyLossDistribution, delta: float, upper: float) -> float:
    """``upper`` intersected with the tilted reads of the directions of ``pld`` whose round-off
    charge moves their upper epsilon at ``delta`` by more than ``CHARGED_EPSILON_SHARE`` (module
    docstring).

    Parameters
    ----------
    pld : PrivacyLossDistribution
        The composition read (its pessimistic side composed already).
    delta : float
        The delta asked, in (0, 1).
    upper : float
        A certified upper epsilon of ``pld`` at ``delta``.

    Returns
    -------
    float
        A certified upper epsilon, at most ``upper``.
    """
    if not (math.isfinite(upper) and upper > 0.0 and 0.0 < delta < 1.0):
        return upper
    at = np.array([delta], dtype=np.float64)

    def reread(i: int, pmf: GridPMF, own: float) -> float:
        if math.isfinite(own) and own > 0.0:
            if charge_shift(pmf, delta, own) > CHARGED_EPSILON_SHARE * max(own, 1.0):
                return min(own, direction_upper_epsilon(pld.directions[i], delta, own))
        return own

    best = _largest_binding(pld, lambda pmf: float(pmf.epsilon(at)[0]), reread)
    return min(upper, best)


def low_charge_upper_delta(pld: PrivacyLossDistribution, epsilon: float, upper: float) -> float:
    """``upper`` intersected with the tilted reads of the directions of ``pld`` whose round-off
    charge is more than ``CHARGED_EPSILON_SHARE`` of their upper delta at ``epsilon`` (module
    docstring).

    Parameters
    ----------
    pld : PrivacyLossDistribution
        The composition read (its pessimistic side composed already).
    epsilon : float
        The epsilon asked.
    upper : float
        A certified upper delta of ``pld`` at ``epsilon``.

    Returns
    -------
    float
        A certified upper delta, at most ``upper``.
    """
    if not (0.0 < upper < 1.0 and math.isfinite(epsilon)):
        return upper
    at = np.array([epsilon], dtype=np.float64)

    def reread(i: int, pmf: GridPMF, own: float) -> float:
        uncharged, _ = _uncharged(pmf, epsilon)
        if not uncharged >= own * (1.0 - CHARGED_EPSILON_SHARE):
            return min(own, direction_upper_delta(pld.directions[i], epsilon))
        return own

    best = _largest_binding(pld, lambda pmf: float(pmf.delta(at)[0]), reread)
    return min(upper, best)


def _largest_binding(
    pld: PrivacyLossDistribution,
    side: Callable[[GridPMF], float],
    reread: Callable[[int, GridPMF, float], float],
) -> float:
    """The largest over the directions of ``pld`` of each one's upper side ``side(pmf)`` lowered
    by ``reread(i, pmf, side)``, the directions taken from the largest side down: one at or below
    the largest lowered side so far cannot set the result, so it is not read again."""
    composed = pld.composed(True)
    best = -math.inf
    for own, i in sorted(((side(pmf), i) for i, pmf in enumerate(composed)), reverse=True):
        if own <= best:
            break
        best = max(best, reread(i, composed[i], own))
    return best
