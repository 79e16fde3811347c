"""The Poisson-sampled Gaussian under replace-one (substitution): a proved upper side, a realizable lower side.

Setting.  Each record's contribution has norm at most 1 (the add/remove sensitivity), each record is
in the batch with probability q, independently, and N(0, sigma^2 I) is added to the batch's sum.
Neighbours D = D0 + {x}, D' = D0 + {y}.  Coupling the batches (the slot of x in D and of y in D' drawn
together, the others alike), with S the others' batch:
    M(D) = E_S[(1 - q) mu_0 + q mu_1],  M(D') = E_S[(1 - q) mu_0 + q mu_1'],
mu_0 = N(f(S)), mu_1 = N(f(S) + x), mu_1' = N(f(S) + y).

Upper side.  For alpha' = e^eps >= 1, by joint convexity over S, then Balle, Barthe & Gaboardi 2018,
Thm 2 (advanced joint convexity; alpha = 1 + (alpha' - 1)/q, beta = alpha'/alpha = q + (1 - q)/alpha),
then convexity of H_alpha in its second argument:
    H_alpha'(M(D) || M(D')) <= q H_alpha(mu_1 || (1 - beta) mu_0 + beta mu_1')
                            <= q [(1 - beta) theta(1/sigma, log alpha) + beta theta(2/sigma, log alpha)],
since (mu_1, mu_0) are Gaussians ||x|| <= 1 apart and (mu_1, mu_1') ||x - y|| <= 2 apart (theta(r, .):
the Gaussian pair of radius r, which dominates every smaller radius).  G(alpha) = (1 - beta) theta_1 +
beta theta_2 is non-increasing in alpha (theta_1, theta_2 and beta are, and theta_2 >= theta_1), so
``subsampled_pair.poisson_remove_curve`` carries its certified side through; below eps = 0 the bound is
mirrored (the relation is symmetric: every ordered pair's swap is a pair too; ``mirrored_curve``).  Any
pair whose profile lies above this curve dominates the sampled mechanism, hence composes adaptively
(Zhu, Dong & Wang 2022, Thm 10); ``subsampled_pair.grid_factor`` builds one on the grid.  The bound
lies below q theta(2/sigma, log alpha), the shift-2 bound of a sample without replacement.

Lower side.  Scalar contributions x = +1, y = -1 and the others 0 realize the pair
    P = (1 - q) N(0, sigma^2) + q N(1, sigma^2),  Q = (1 - q) N(0, sigma^2) + q N(-1, sigma^2),
whose loss log P/Q is increasing in the output (numerator increasing, denominator decreasing):
``monotone`` gives its optimistic PMF, a certified lower side.  It is symmetric (reflection swaps P
and Q): one direction.  This is the pair dp_accounting composes under replace-one as if it dominated;
whether it does (every x, y in the unit ball, any dimension) is not proved here, so the true worst
case lies between the two sides.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from ..certified_theta import theta_upper
from ..gaussian import gaussian_tail_inverse
from .compose import DEFAULT_TAIL
from .distribution import Factor, PrivacyLossDistribution
from .gaussian_mixture import normal_interval
from .mechanisms import DEFAULT_INTERVAL, _check_tail, _positive, checked_interval
from .monotone import MonotonePair, log_sum_exp_rows, monotone_factors
from .subsampled_pair import UNIT_ROUNDOFF, Curve, grid_factor, mirrored_curve, poisson_remove_curve

COEFFICIENT_MARGIN = 8.0 * UNIT_ROUNDOFF  # beta = q + (1 - q) e^{-x}: four rounded operations, doubled
FLAT = 1e-18  # the upper curve within this of its value at the top loss counts as flat (the grid stops there)
FLAT_POINTS = 4096  # where it is read to find that point


def realizable_pair(sigma: float, q: float, tail: float) -> MonotonePair:
    """(1 - q) N(0) + q N(1) against (1 - q) N(0) + q N(-1), noise sigma, as a ``MonotonePair`` on
    [-1 - z sigma, 1 + z sigma], z = Q^{-1}(tail / 4) (all but tail / 4 of each law per side)."""
    z = float(gaussian_tail_inverse(tail / 4.0))
    log_w = np.array([math.log1p(-q), math.log(q)])
    s2 = sigma * sigma

    def terms(x: np.ndarray, sign: float) -> np.ndarray:
        xs = np.asarray(x, dtype=np.float64)[..., None]
        return log_w + np.array([0.0, 1.0]) * (sign * xs - 0.5) / s2

    def loss(x: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, log_sum_exp_rows(terms(x, 1.0))[0] - log_sum_exp_rows(terms(x, -1.0))[0])

    def slope(x: np.ndarray) -> np.ndarray:
        return cast(
            np.ndarray, (log_sum_exp_rows(terms(x, 1.0))[1][..., 1] + log_sum_exp_rows(terms(x, -1.0))[1][..., 1]) / s2
        )

    def p_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return cast(
            np.ndarray,
            (1.0 - q) * normal_interval(a / sigma, b / sigma)
            + q * normal_interval((a - 1.0) / sigma, (b - 1.0) / sigma),
        )

    def q_mass(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return cast(
            np.ndarray,
            (1.0 - q) * normal_interval(a / sigma, b / sigma)
            + q * normal_interval((a + 1.0) / sigma, (b + 1.0) / sigma),
        )

    return MonotonePair(loss, slope, p_mass, q_mass, -1.0 - z * sigma, 1.0 + z * sigma)


def upper_inner_curve(sigma: float, q: float) -> Curve:
    """G(e^x) = (1 - beta) theta(1/sigma, x) + beta theta(2/sigma, x), beta = q + (1 - q) e^{-x}, from above
    at x >= 0 (module docstring): each theta rounded up (``certified_theta``), 1 - beta and beta each taken
    at their larger value within the margin, the sum raised by it again."""

    def curve(x: np.ndarray) -> np.ndarray:
        e = np.maximum(np.asarray(x, dtype=np.float64), 0.0)  # G is non-increasing: x < 0 read at 0 is larger
        beta = q + (1.0 - q) * np.exp(-e)
        beta_hi = np.minimum(beta * (1.0 + COEFFICIENT_MARGIN), 1.0)
        keep_hi = np.minimum((1.0 - beta) + COEFFICIENT_MARGIN, 1.0)
        t1 = np.asarray(theta_upper(1.0 / sigma, e), dtype=np.float64)
        t2 = np.asarray(theta_upper(2.0 / sigma, e), dtype=np.float64)
        return np.minimum((keep_hi * t1 + beta_hi * t2) * (1.0 + COEFFICIENT_MARGIN), 1.0)

    return curve


def _floor(eps: np.ndarray) -> np.ndarray:
    """(1 - e^eps)_+: every pair's profile lies above it."""
    return np.maximum(-np.expm1(np.minimum(np.asarray(eps, dtype=np.float64), 0.0)), 0.0)


def poisson_replace_one_gaussian(
    sigma: float,
    sampling_rate: float,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    """The Poisson-sampled Gaussian (noise multiplier sigma, rate q in (0, 1)) under replace-one: the
    proved upper side, the realizable pair's lower side (module docstring); one direction."""
    sd = _positive("sigma", sigma)
    q = float(sampling_rate)
    if not 0.0 < q < 1.0:
        raise ValueError(
            f"sampling_rate must lie in (0, 1) (0 releases nothing, 1 is the Gaussian of shift 2), got {sampling_rate!r}"
        )
    h = checked_interval(value_discretization_interval)
    t = _check_tail(tail)
    r = 2.0 / sd
    upper = mirrored_curve(poisson_remove_curve(upper_inner_curve(sd, q), q, True), True)
    # The grid stops where the bound is within FLAT of its value at the sampled Gaussian's top loss
    # (theta(r, .) < 1e-300 beyond): the upper PMF is flat from there, at most FLAT above the bound, and a
    # shorter grid carries less of the masses' round-off charge (``grid_factor``: put at +infinity).
    reach = float(np.logaddexp(math.log1p(-q), math.log(q) + r * r / 2.0 + 40.0 * r + 1.0))
    x = np.linspace(0.0, reach, FLAT_POINTS + 1)[1:]
    values = upper(x)
    top = float(x[np.argmax(values <= values[-1] + FLAT)]) + h
    bottom = min(math.log1p(-q), -top) - h
    name = f"poisson_replace_one_gaussian(sigma={sd}, q={q})"
    bound = grid_factor(name, upper, _floor, bottom, top, h, 0.0)  # its lower side is replaced below
    realizable, _ = monotone_factors(f"{name}, realizable", realizable_pair(sd, q, t), h)
    return PrivacyLossDistribution([{Factor(name, bound.upper, realizable.lower, True): 1}], t)
