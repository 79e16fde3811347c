"""A grid part composed beside the plan's folded Gaussian read in closed form, not on the grid.

The privacy loss of a composition is the sum of independent losses, so for a grid part A (any
dominating or dominated PMF: masses p_k at losses l_k, p_inf at +infinity) beside a Gaussian pair of
radius r (its loss under P is N(r^2 / 2, r^2)),

    delta_{A x G}(eps) = E[(1 - e^{eps - L_A - L_G})_+] = sum_k p_k delta_G(eps - l_k) + p_inf,   (*)

delta_G extended to eps < 0 by the symmetry of its pair (``plan_sides.gaussian_side``; Zhu, Dong &
Wang 2022, Sec. 5 for the composition of dominating pairs).  (*) is a mixture, with weights in
[0, 1], of the grid part's own curve at shifted arguments, so a certified side of A gives a
certified side of the composition: the grid masses' round-off is charged as a weighted sum's
(``ChargedGrid.charge_of_weighted_sum``, weights delta_G in [0, 1]), A's loss shift moves the
argument, the Gaussian's radius is rounded outward (``CompositionPlan.gaussian_radius_bounds``)
and theta outward (``certified_theta``).  The Gaussian then costs no grid of its own: on the
default grid a Gaussian of radius r takes about ``GAUSSIAN_SPAN`` r / h points (its loss range to
the grid's 1e-15 tail) to discretize and compose, where (*) costs the grid part's points per
argument read (``beside_pays``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...base.accountant import Quantity
from ..compose import atoms_epsilon
from ..grid.distribution import PrivacyLossDistribution, compose_all
from ..grid.pmf import GridPMF
from ..mechanisms.mechanism import Mechanism
from .plan_beside_root import blocked_estimate, epsilon_near
from .plan_sides import gaussian_side, worst

UNIT_ROUNDOFF = 2.0**-53
# A Gaussian factor of radius r on grid h spans about this many radii (its loss N(r^2/2, r^2) to a
# tail of 1e-15 each side, with the cells' margin): about GAUSSIAN_SPAN r / h points.
GAUSSIAN_SPAN = 16.0
# (*) is read where the grid part's composed windows hold at most this share of the Gaussian
# factor's points: a bracket reads (*) at some 16 arguments (``plan_beside_root``), each one theta a
# grid point of each direction (~20 ns), where the Gaussian on the grid costs a discretized cell
# (~180 ns) and its share of two compositions, which it widens: even at about 0.8 to 1.4 of them,
# the less the cheaper the grid part's own compositions.
BESIDE_SHARE = 0.75
# A composed window spans about this many standard deviations of the composed loss (a tail of
# 1e-15 on each side is some 8 of them), plus one window of each factor.
WINDOW_DEVIATIONS = 17.0
# Arguments read at once: the (argument, grid point) table stays within a few MiB.
ROWS_ENTRIES = 1 << 19
# Each side's epsilon is narrowed to this width (``plan_beside_root.epsilon_near``), from an
# estimate found to this one.
SEARCH_TOLERANCE = 1e-13
ESTIMATE_TOLERANCE = 1e-10
# ... where the part's directions hold at least this many points; on fewer an argument read costs
# mostly the call's overhead, and the search from [0, top] narrows each side to 1e-9 instead.
ESTIMATED_POINTS = 8192
# The lower epsilon is first read at the upper one less these shares of max(1, upper), in one call
# (``lower_below``): the largest whose lower delta passes the target is a certified lower side
# within that share of the upper one, far inside the default tolerance, for one read.
LOWER_STEPS = (1e-9, 1e-8, 1e-7)


def beside_pays(points: int, radius: float, h: float) -> bool:
    """Whether a grid part of at most ``points`` points is read beside a Gaussian of ``radius`` in
    closed form (*) rather than with the Gaussian on grid ``h``: at most ``BESIDE_SHARE`` of the
    Gaussian factor's ``GAUSSIAN_SPAN`` r / h points."""
    return points <= BESIDE_SHARE * GAUSSIAN_SPAN * radius / h


def composed_points(factors: list[tuple[PrivacyLossDistribution, int]], h: float) -> int:
    """About how many points the composition of ``factors`` (each a PLD on grid h and its count)
    takes over its directions, from its factors alone: per direction the smaller of the summed
    windows (count times each factor's, a bound) and ``WINDOW_DEVIATIONS`` standard deviations of
    the composed loss (its variance the counts times each factor's) plus one window of each factor.

    Parameters
    ----------
    factors : list of (PrivacyLossDistribution, int)
        The factors on grid h and their counts.
    h : float
        The grid spacing.

    Returns
    -------
    int
        The estimated points, summed over the directions.
    """
    sides = [(pld.composed(True), count) for pld, count in factors]
    directions = max((len(pmfs) for pmfs, _ in sides), default=0)
    total = 0
    for d in range(directions):
        summed, one, variance = 0, 0, 0.0
        for pmfs, count in sides:
            pmf = pmfs[d % len(pmfs)]
            mass = float(pmf.p.sum())
            summed += count * pmf.p.size
            one += pmf.p.size
            if mass > 0.0:  # numpy's own loops, not BLAS: its threads would spin on the cores
                k = np.arange(pmf.p.size, dtype=np.float64)
                mean = float(np.einsum("i,i->", pmf.p, k)) / mass
                variance += count * float(np.einsum("i,i,i->", pmf.p, k - mean, k - mean)) / mass
        total += min(summed, int(WINDOW_DEVIATIONS * math.sqrt(variance)) + one)
    return total


def reads_beside(
    factors: list[tuple[Mechanism, PrivacyLossDistribution, int]], radius2: float, h: float
) -> bool:
    """Whether grid mechanisms (each with its PLD on grid h and its count) are read beside a
    Gaussian of squared radius ``radius2`` in closed form (*): where their composed windows
    (``composed_points``) are few enough (``beside_pays``).  Either way the bracket is the
    composition's own: a grid part beside a Gaussian is no run the question reader reads (rounds of
    Poisson-subsampled Gaussians alone, or of Gaussians alone: ``question.described_run``).

    Parameters
    ----------
    factors : list of (Mechanism, PrivacyLossDistribution, int)
        The grid mechanisms, their PLDs on grid h and their counts.
    radius2 : float
        The Gaussian's squared radius, > 0.
    h : float
        The grid spacing.

    Returns
    -------
    bool
        True where (*) is read.
    """
    points = composed_points([(pld, c) for _, pld, c in factors], h)
    return beside_pays(points, math.sqrt(radius2), h)


def grid_beside_gaussian(
    pmf: GridPMF, radius: float, upper: bool
) -> Callable[[np.ndarray], np.ndarray]:
    """One certified side of (*): delta(eps) of the grid part ``pmf`` (pessimistic for ``upper``,
    optimistic otherwise) composed with the Gaussian pair of ``radius`` (rounded outward to that
    side by the caller), at a flat array of any real eps.

    Upper side: sum_k p_k delta_G^up(eps - s - l_k) (1 + (n + 2) u) + p_inf + shift + the masses'
    charge, times 1 + 4 u; lower side the same with delta_G^lo at eps + s + l_k, each term taken
    away, times 1 - 4 u.  s is the grid's loss shift plus 4 u (|eps| + max |l_k|), covering the
    rounding of the grid losses (k_lo + k) h and of each difference; the masses' charge is that of
    a sum weighted by delta_G in [0, 1] (their sum and Euclidean norm, rounded up)."""
    losses = pmf.losses
    p = pmf.p
    n = p.size
    reach = float(np.max(np.abs(losses))) if n else 0.0
    relative = (n + 2) * UNIT_ROUNDOFF

    def side(eps: np.ndarray) -> np.ndarray:
        eps = np.asarray(eps, dtype=np.float64).ravel()
        out = np.empty(eps.size, dtype=np.float64)
        rows = max(1, ROWS_ENTRIES // max(n, 1))
        for start in range(0, eps.size, rows):
            e = eps[start : start + rows]
            margin = pmf.loss_shift + 4.0 * UNIT_ROUNDOFF * (np.abs(e) + reach)
            moved = e - margin if upper else e + margin
            # one thread: theta's parallel loop over some 10^4 arguments costs more than it saves
            shifted = (moved[:, None] - losses[None, :]).ravel()
            weights = gaussian_side(radius, shifted, upper, threads=1)
            weights = weights.reshape(e.size, n)
            # a sum of products in numpy's own loop, not a BLAS matrix-vector product: a long one
            # wakes OpenBLAS's threads, which then spin on cores the core's own loops need
            total = np.einsum("ij,j->i", weights, p)
            grow = 1.0 + relative
            # the squares written over the arguments, read no more
            squares = np.multiply(weights, weights, out=shifted.reshape(weights.shape))
            charge = pmf.charge_of_weighted_sum(
                weights.sum(axis=1) * grow, np.sqrt(squares.sum(axis=1) * grow) * grow
            )
            if upper:
                value = (total * grow + pmf.p_inf + pmf.shift + charge) * (
                    1.0 + 4.0 * UNIT_ROUNDOFF
                )
                out[start : start + rows] = np.minimum(value, 1.0)
            else:
                value = (total * (1.0 - relative) + pmf.p_inf - pmf.shift - charge) * (
                    1.0 - 4.0 * UNIT_ROUNDOFF
                )
                out[start : start + rows] = np.clip(value, 0.0, 1.0)
        return out

    return side


def beside_bracket(
    part: PrivacyLossDistribution,
    radius: tuple[float, float],
    method: Quantity,
    x: float,
    hints: tuple[float, ...] = (),
) -> tuple[float, float]:
    """Certified (lower, upper) of ``method`` at x of the grid part ``part`` composed with the
    Gaussian pair whose radius lies in ``radius`` = (r_lo, r_hi): each side of (*) the maximum over
    the neighbouring directions (Zhu, Dong & Wang 2022, Sec. 5), epsilon on each certified side
    from a few reads near the root estimated on the part's masses merged in blocks
    (``plan_beside_root``, narrowed to ``SEARCH_TOLERANCE``), or, on a part of fewer than
    ``ESTIMATED_POINTS`` points, by a root search (``atoms_epsilon.epsilon_search``, tolerance
    1e-9); ``hints`` where each starts.

    Parameters
    ----------
    part : PrivacyLossDistribution
        The grid mechanisms composed, without the Gaussian.
    radius : tuple of float
        The Gaussian's radius rounded down and up (``CompositionPlan.gaussian_radius_bounds``).
    method : {"epsilon", "delta"}
        Epsilon at delta x, or delta at epsilon x.
    x : float
        The delta in (0, 1), or the epsilon, asked.
    hints : tuple of float
        Epsilons expected near the answer.

    Returns
    -------
    tuple of float
        (lower, upper), lower <= the true value <= upper.
    """

    def side(upper: bool) -> Callable[[np.ndarray], np.ndarray]:
        r = radius[1 if upper else 0]
        return worst([grid_beside_gaussian(p, r, upper) for p in part.composed(upper)])

    if method == "delta":
        at = np.array([x], dtype=np.float64)
        return float(side(False)(at)[0]), float(side(True)(at)[0])
    r = radius[1]
    # past the grid's top loss and the Gaussian's r^2 / 2 + 40 r (theta < 1e-300 beyond) both
    # sides are constant
    top = max((p.k_lo + p.p.size) * p.h for p in part.composed(True)) + r * r / 2 + 40 * r + 1

    def certified(upper: bool, near: tuple[float, ...]) -> float:
        if sum(p.p.size for p in part.composed(upper)) < ESTIMATED_POINTS:
            return atoms_epsilon.epsilon_search(side(upper), x, upper, top, 1e-9, near)
        # where the root lies, from the masses merged in blocks; then a few reads of the side there
        rough = blocked_estimate(part.composed(upper), radius[1 if upper else 0], upper)
        estimate = atoms_epsilon.epsilon_search(rough, x, upper, top, ESTIMATE_TOLERANCE, near)
        return epsilon_near(side(upper), x, upper, top, SEARCH_TOLERANCE, estimate, near)

    upper = certified(True, hints)
    lower = lower_below(lower_passes(part, radius, x), upper)
    if lower is None:  # the lower side's root lies further below: its own search
        lower = certified(False, hints + (upper,))
    return min(lower, upper), upper


def lower_passes(
    part: PrivacyLossDistribution, radius: tuple[float, float], delta: float
) -> Callable[[np.ndarray], np.ndarray]:
    """Where the certified lower side of (*) (the maximum over the neighbouring directions, Zhu,
    Dong & Wang 2022, Sec. 5) exceeds ``delta``, at a flat array of eps: the first direction's lower
    side is read, then each other direction's only where its certified upper side exceeds ``delta``
    at an eps not passed yet (its lower side, at most its upper one, passes nowhere else), so a
    direction its upper side clears costs no optimistic composition; the answer is the same, bit
    for bit, as that of the maximum over every direction.

    Parameters
    ----------
    part : PrivacyLossDistribution
        The grid mechanisms composed, without the Gaussian (its pessimistic side composed).
    radius : tuple of float
        The Gaussian's radius rounded down and up.
    delta : float
        The delta asked.

    Returns
    -------
    callable
        eps (a flat float64 array) to a boolean array: the lower side exceeds ``delta`` there.
    """
    uppers = part.composed(True)

    def lower(d: int, eps: np.ndarray) -> np.ndarray:
        compose_all([part], False, [[d]])
        pmf = part._composed[False][d]  # composed just above
        assert pmf is not None
        return grid_beside_gaussian(pmf, radius[0], False)(eps) > delta

    def passes(eps: np.ndarray) -> np.ndarray:
        passed = lower(0, eps)
        for d in range(1, len(uppers)):
            if not np.all(passed):
                clears = grid_beside_gaussian(uppers[d], radius[1], True)(eps) <= delta
                if not np.all(passed | clears):
                    passed = passed | lower(d, eps)
        return passed

    return passes


def lower_below(passes: Callable[[np.ndarray], np.ndarray], upper: float) -> float | None:
    """A certified lower epsilon read just below a certified ``upper`` one at the delta asked: the
    largest of upper - s max(1, upper), s in ``LOWER_STEPS``, at which the certified lower side
    still exceeds that delta (``passes``; the true delta(eps) is at least that side and
    non-increasing, so the true epsilon lies above it); None where none does, or none is >= 0.

    Parameters
    ----------
    passes : callable
        A flat array of eps to a boolean array: whether a certified lower side of delta(eps)
        exceeds the delta asked there (``lower_passes``).
    upper : float
        A certified upper epsilon at the delta asked.

    Returns
    -------
    float or None
        The lower epsilon, or None.
    """
    if not (math.isfinite(upper) and upper > 0.0):
        return None
    at = upper - np.array(LOWER_STEPS, dtype=np.float64) * max(1.0, upper)
    at = at[at >= 0.0]
    if at.size == 0:
        return None
    passed = at[passes(at)]
    return float(passed.max()) if passed.size else None
