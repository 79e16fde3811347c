r"""An upper PMF made to cover its targets at its grid points: the read-back of ``subsampled_pair.grid_factor``.

``grid_factor`` turns an upper side of a convex, non-increasing curve H* (H*(0) = 1) into masses p_k
at the grid losses l_k = (k_lo + k) h and p_inf at +infinity whose curve

.. math::

    D(g) = p_\infty + F(g), \qquad F(g) = \sum_k p_k \big(1 - g e^{-l_k}\big)_+

is the polyline through targets w_j at g_j, the doubles near G_j = e^{l_j}.  Each w_j is at least
H*(G_j): the upper side's values were taken at arguments moved down by ``ARGUMENT_MARGIN`` (1 +
|l_j|), far more than the 2u (|l_j| + 1) by which g_j may lie above G_j.  D is linear in g between
its kinks G_k and H* is convex, so D(G_j) >= w_j at every j gives D >= H* everywhere: on [G_j,
G_{j+1}] H* lies below its chord, which lies below D; beyond G_N, H* <= H*(G_N) <= D(G_N), the
constant value there; below G_0, H*(0) = 1 and D(0) is the total mass, which is checked too.  The
masses' round-off leaves D a few ulps off the targets; this module finds how far and covers it.

Reading F(G_j) from below.  With S_j = sum_{k > j} p_k and T_j = sum_{k > j} p_k e^{-l_k}, F(G_j) =
S_j - G_j T_j exactly (the term k = j has weight 0).  A read with recursive suffix sums carries a
relative error up to 4 (n + 4) u over n points (``_core.pld_reads.suffix_sum_slack``): at n ~ 10^5
points 5e-11 of the curve, added at +infinity once a round, which keeps a composition of 100 rounds
from reading delta near 1e-10.  Here:

- the suffix sums are numpy's recursive sums with each step's rounding error recovered by an
  error-free two-sum (Knuth, TAOCP vol. 2, 4.2.2, Thm. B; the core's ``two_sum``,
  cpp/include/hockeystick/numerics/error_free.hpp) and added back: Ogita, Rump & Oishi's Sum2
  ("Accurate sum and dot product", SIAM J. Sci. Comput. 26, 2005, Prop. 4.5), each suffix sum of n
  terms >= 0 within (u + gamma_n^2) of its value, gamma_n = n u / (1 - n u);
- a term p_k e^{-l_k} is within u (|l_k| + 10) of itself (the product (k_lo + k) h within u |l_k|
  absolute, numpy's exp within 4 ulps, the product with p_k within u), one that underflows within
  2^-1074; so is G_j;
- G_j T_j <= S_j (each weight e^{l_j - l_k} < 1): the product and the subtraction add 2 u of S_j.

So with L = max |l_k|, :math:`|\hat F_j - F(G_j)| \le 2u (L + 20) S_j + 2 G_j (n + 1) 2^{-1074}`
(the factor 2 covers the second-order terms), bounded from below by the computed value minus this.
The plain read (``GridPMF.delta`` of the optimistic reading, at the grid losses rounded up, where D
is no larger) is a lower bound too; the larger of the two is taken.

Covering the shortfall.  That bound is a few ulps of S_j, the mass above G_j, which near the grid's
bottom is about 1 while F itself may be 1e-2: as an absolute mass at +infinity it would cost some
1e-14 a round at every eps.  A relative raise costs nothing at small delta: masses scaled by 1 + c
raise F by c F.  So c is the largest shortfall (w_j - p_inf - F_low_j, raised by 4 u of its terms
for its own round-off) relative to F_low_j over the points where that ratio is at most ``SCALE_CAP``
(where F_low_j >= S_j (1 - e^{-h}) it is at most about 2u (L + 20) / h), widened for the round-off
of the scaling; the points left (F_low_j <= 0, or a ratio above the cap) add their shortfall at
+infinity, as does the total mass's at g = 0 (``math.fsum``, correctly rounded). Where numpy's
cumulative sum is not the recursive one the two-sum assumes, the plain read alone is used.
"""

from __future__ import annotations

import math

import numpy as np

from ..grid.pmf import GridPMF

UNIT_ROUNDOFF = np.finfo(np.float64).eps / 2
LEAST_SUBNORMAL = math.ldexp(1.0, -1074)
# relative raises up to this cover a point's shortfall by scaling every mass (module docstring);
# above it, at +infinity (a relative 1e-6 changes no reported digit, an absolute one would)
SCALE_CAP = 1e-6


def suffix_sums_above(x: np.ndarray) -> np.ndarray | None:
    """sum_{k > j} x_k at each j (0 at the last), x >= 0, within (u + gamma_n^2) of each sum (module
    docstring); None where numpy's cumulative sum is not the recursive sum the error-free transform
    assumes."""
    reversed_terms = np.ascontiguousarray(x[::-1], dtype=np.float64)
    partial = np.cumsum(reversed_terms)
    previous, term = partial[:-1], reversed_terms[1:]
    rounded = previous + term
    if not np.array_equal(rounded, partial[1:]):
        return None
    back = rounded - previous
    error = (previous - (rounded - back)) + (
        term - back
    )  # previous + term = rounded + error, exactly
    compensated = partial + np.concatenate([[0.0], np.cumsum(error)])
    return np.concatenate([compensated[::-1][1:], [0.0]])


def finite_curve_from_below(k_lo: int, h: float, p: np.ndarray) -> np.ndarray | None:
    r"""A lower bound on F(G_j) = sum_{k > j} p_k (1 - e^{l_j - l_k}) at each grid loss l_j =
    (k_lo + j) h, the compensated read of the module docstring.

    Parameters
    ----------
    k_lo : int
        The grid index of the first mass.
    h : float
        The grid spacing, > 0.
    p : numpy.ndarray
        The masses, >= 0, one per grid point.

    Returns
    -------
    numpy.ndarray or None
        :math:`\hat F_j - 2u (L + 20) S_j - 2 G_j (n + 1) 2^{-1074}` at each j; None where the
        compensated sums cannot be certified (``suffix_sums_above``) or overflow.

    Raises
    ------
    ValueError
        A negative or NaN mass.
    """
    if not np.all(p >= 0.0):
        raise ValueError("the masses must be >= 0 (a grid PMF's)")
    losses = (k_lo + np.arange(p.size)) * h
    spread = float(np.max(np.abs(losses), initial=0.0))
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        above = suffix_sums_above(p)
        weighted = suffix_sums_above(p * np.exp(-losses))
        if above is None or weighted is None or not np.all(np.isfinite(weighted)):
            return None
        kinks = np.exp(losses)  # past a loss of ~709 this overflows: no certified curve then
        value = above - kinks * weighted
        error = (
            2.0 * UNIT_ROUNDOFF * (spread + 20.0) * above
            + 2.0 * kinks * (p.size + 1) * LEAST_SUBNORMAL
        )
    if not (np.all(np.isfinite(value)) and np.all(np.isfinite(error))):
        return None
    return np.asarray(value - error, dtype=np.float64)


def covering_upper_pmf(
    k_lo: int, h: float, p: np.ndarray, p_inf: float, targets: np.ndarray
) -> GridPMF:
    r"""The pessimistic PMF of masses ``p`` (scaled by 1 + c) and ``p_inf`` (raised by the remaining
    shortfall) whose curve is at least ``targets`` at every grid loss and whose total mass is at
    least 1 (module docstring).

    Parameters
    ----------
    k_lo : int
        The grid index of the first mass.
    h : float
        The grid spacing, > 0.
    p : numpy.ndarray
        The masses, >= 0, one per grid point.
    p_inf : float
        The mass at +infinity, in [0, 1].
    targets : numpy.ndarray
        w_j, the value the curve must reach at each grid loss.

    Returns
    -------
    GridPMF
        The pessimistic PMF: masses p (1 + c), p_inf + d (at most 1).

    Raises
    ------
    ValueError
        A negative or NaN mass, or ``targets`` of another size than ``p``.
    """
    if targets.size != p.size:
        raise ValueError(f"one target per grid point: got {targets.size} for {p.size} masses")
    losses = (k_lo + np.arange(p.size)) * h
    plain = GridPMF(k_lo, h, p, p_inf, 0.0, False)  # the optimistic read (slack on the unsafe side)
    low = (
        plain.delta(np.nextafter(losses, math.inf)) - p_inf
    )  # at or above each exact loss: D no larger there
    compensated = finite_curve_from_below(k_lo, h, p)
    if compensated is not None:
        low = np.maximum(low, compensated)
    short = (targets - p_inf - low) + 4.0 * UNIT_ROUNDOFF * (np.abs(targets) + p_inf + np.abs(low))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(low > 0.0, short / low, math.inf)
    scaled = ratio <= SCALE_CAP
    c = float(np.max(ratio[scaled], initial=0.0)) * (1.0 + 1e-6) + 8.0 * UNIT_ROUNDOFF
    masses = p * (1.0 + c)  # each product rounded by at most u: the 8 u above covers it
    rest = float(np.max(short[~scaled], initial=0.0))
    total = (
        math.fsum(masses.tolist()) + p_inf
    )  # at g = 0 the curve is the total mass: within u, widened to 4 u
    deficit = max(rest, 1.0 - total * (1.0 - 4.0 * UNIT_ROUNDOFF), 0.0)
    raised = (
        math.nextafter(p_inf + deficit, math.inf) if deficit > 0.0 else p_inf
    )  # the sum rounded up
    return GridPMF(k_lo, h, masses, min(raised, 1.0), 0.0, True)
