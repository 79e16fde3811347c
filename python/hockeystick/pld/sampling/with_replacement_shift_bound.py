"""A tighter upper bound for batches drawn WITH replacement, replace-one: the shift-constrained curve.

K indices drawn uniformly with replacement from n records, their contributions summed (each of
norm <= Delta) plus N(0, sigma^2 I), replace-one neighbours; units of Delta, s = sigma/Delta,
r_c = 2c/s, b_c = Binom(c; K, 1/n).  After the conditional coupling of Schuchardt, Stoian, Kosmala &
Guennemann (NeurIPS 2024, Sec. 3) the two outputs are b_c-mixtures of N(mu_c, s^2 I) and
N(nu_c, s^2 I) with mu_0 = nu_0 = 0 and three constraints per c >= 1:
|mu_c| <= 2c, |nu_c| <= 2c, |mu_c - nu_c| = c |a - a'| <= 2c.  For a set A put
alpha = Phi^-1(N(0)(A)) and beta_c = Phi^-1(N(nu_c)(A)); the Gaussian shift inequality
(Neyman-Pearson for two Gaussians) gives beta_c >= alpha - r_c, N(mu_c)(A) <= Phi(beta_c + r_c)
and N(mu_c)(A) <= Phi(alpha + r_c).  Maximising over beta_c (beyond alpha the bound only drops):

    delta(gamma) <= D(gamma) = sup_alpha  b_0 (1 - gamma) Phi(alpha)
                               + sum_{c>=1} b_c max_{alpha - r_c <= beta <= alpha} [Phi(beta +
                                 r_c) - gamma Phi(beta)]

for every gamma >= 0 and both orders of the pair.  beta = alpha for every c is the realizable
pair sum_c b_c N(2c) vs N(0), so D never falls below the certified lower side; D is below the
curve of the mirrored pair sum_c b_c N(2c) vs sum_c b_c N(-2c) (first Phi at alpha + r_c, second
at alpha - r_c, term by term), which uses the first two constraints only.

Computation (exact up to an explicit outward margin): the inner maximum is g_c at clip(beta*_c,
alpha - r_c, alpha), g_c(beta) = Phi(beta + r_c) - gamma Phi(beta) being unimodal with peak
beta*_c = -log(gamma)/r_c - r_c/2; J(alpha)/phi(alpha)'s derivative ratio F(alpha) = J'(alpha)/phi(alpha) is
non-increasing (each term is), so J is unimodal: its peak is bracketed by bisection on the sign of F
(to within 1e-9 (1 + |alpha|)), and the sup is bounded above on the bracket (widened by 1e-6 for the
rounding of F) by taking each term at its worst point in the bracket; floating-point error is
charged as 64 ulp of the sum of the terms' magnitudes.  D is evaluated at gamma_k = e^{k h}, k =
0..N (h the PLD grid), at every stride-th one, max(2e-3, N h / 4096) apart in log gamma (at least
every point), and read off its chords between (above the convex D; the cost stays that of 4096
points, or of a grid of 2e-3, as N grows): those chords lie above D, and they are the curve of a PMF
with Q-mass (slope change) at each loss k h; the PMF is mirrored below loss 0 (the bound holds for
both orders), the rest of the mass at loss 0, so it is a dominating pair (Zhu, Dong & Wang,
AISTATS 2022) and composes adaptively.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np

from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.pmf import GridPMF
from ..grid.tail import DEFAULT_TAIL
from ..mechanisms.constructors import (
    DEFAULT_INTERVAL,
    MAX_CELLS,
    _positive,
    checked_interval,
    checked_tail,
    with_replacement_subsampled_gaussian,
)
from ..mechanisms.mechanism import Mechanism

_BISECTIONS = 64
_EVALUATION_STEP = (
    2e-3  # D is evaluated this far apart in log gamma (at least every grid point); chords between
)
_EVALUATIONS = 4096  # ... or this many times over its range, if that is farther apart
_TOP_LOSS = 700.0  # e^loss stays finite; D beyond it (at most D(e^700)) goes to +infinity
_ULPS = 64 * np.finfo(float).eps
# The chords and their hull are built at the rounded G_k = fl(e^{k h}) (|G_k - e^{k h}| <= u e^{k
# h}, u = 2^-53); the PMF's curve sum_j q_j (e^{l_j} - gamma)_+ + p_inf has its knots at the exact
# e^{k h} and is read at exact gammas.  Moving the knots, the point read and the chords' ends (at
# most e^{max(2e-3, 700 / 4096)} < 1.2 times further out) to their exact places lowers the curve by
# at most u (1 + 1 + 2 * 1.2) sum_j q_j e^{l_j} (1 + u) < 4.5 u sum p (its slope times gamma is at
# most sum_j q_j e^{l_j} beyond gamma): charged at loss +infinity as 8 u sum p.  The relative error
# it covers is of order u / h where D falls within a cell (K = 1 at eps = 0: the first chord's slope
# is D / (G_1 - 1), and G_1 - 1 = e^h - 1 errs by u / h relative).
_KNOT_ULPS = 4 * np.finfo(float).eps


def copy_count_weights(batch_size: int, n: int, cut: float) -> tuple[np.ndarray, float]:
    """b_c = Binom(c; K, 1/n) for c = 0 .. c_max (the smallest c_max >= 1 whose upper tail is <=
    cut), and that tail's mass."""
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    # only the counts up to the binomial's (1 - cut)-quantile (plus a margin) are tabulated:
    # O(c_max), not O(K), so a batch of 10^12 draws costs what its few likely counts cost
    top = (
        batch_size
        if cut <= 0
        else min(batch_size, int(stats.binom.isf(cut, batch_size, 1.0 / n)) + 2)
    )
    while True:
        c = np.arange(top + 1)
        b = stats.binom.pmf(c, batch_size, 1.0 / n)
        tail = stats.binom.sf(c, batch_size, 1.0 / n)  # P(count > c)
        if top == batch_size or np.any(tail <= cut):
            break
        top = min(batch_size, 2 * top)
    c_max = int(max(1, np.argmax(tail <= cut) if np.any(tail <= cut) else batch_size))
    return b[: c_max + 1], float(tail[c_max]) if c_max < batch_size else 0.0


def shift_constrained_curve(log_gamma: np.ndarray, weights: np.ndarray, s: float) -> np.ndarray:
    """An upper bound on D(gamma) at gamma = e^log_gamma >= 1 (formula in the module docstring)."""
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    lg = np.asarray(log_gamma, dtype=float)
    gamma = np.exp(lg)
    cs = np.arange(1, weights.size)
    b0, bc, r = float(weights[0]), weights[1:, None], (2.0 * cs / s)[:, None]
    peak = -lg[None, :] / r - r / 2  # beta*_c, shape (c, gamma)

    with np.errstate(divide="ignore"):  # b_c = 0 (n = 1: every draw is the record) has log -inf
        log_b0, log_bc = np.log(b0), np.log(bc)

    def slope_sign(alpha: np.ndarray) -> np.ndarray:
        """The sign of F(alpha) = J'(alpha)/phi(alpha) (non-increasing in alpha), from the logs of
        its positive and negative parts divided by gamma (no overflow for any gamma <= e^700):
        F/gamma = [b_0/gamma + sum_rising b_c expm1(x_c - log gamma)] - [b_0 + sum_falling b_c
        (e^y_c - 1/gamma)], x_c = -alpha r_c - r_c^2/2 (> log gamma when rising), y_c = alpha r_c -
        r_c^2/2 (> -log gamma when falling)."""
        a = alpha[None, :]
        x, y = -a * r - r * r / 2, a * r - r * r / 2
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            z = np.maximum(x - lg[None, :], 0.0)
            log_rise = log_bc + np.where(z > 1.0, z + np.log1p(-np.exp(-z)), np.log(np.expm1(z)))
            w = np.maximum(y + lg[None, :], 0.0)
            log_fall = log_bc + y + np.log1p(-np.exp(-w))
        log_rise = np.where(a < peak, log_rise, -np.inf)
        log_fall = np.where(a > peak + r, log_fall, -np.inf)
        positive = np.logaddexp(log_b0 - lg, np.logaddexp.reduce(log_rise, axis=0))
        negative = np.logaddexp(log_b0, np.logaddexp.reduce(log_fall, axis=0))
        with np.errstate(invalid="ignore"):
            return cast(
                np.ndarray, np.nan_to_num(positive - negative, nan=0.0)
            )  # both parts empty: F = 0

    lo = np.min(peak, axis=0) - 40.0
    hi = np.max(peak + r, axis=0) + 40.0
    lo = np.where(slope_sign(lo) >= 0, lo, -np.inf)  # F(-inf) = +inf: the peak is above lo
    finite_lo = np.where(np.isfinite(lo), lo, np.min(peak, axis=0) - 80.0)
    for _ in range(
        _BISECTIONS
    ):  # until the bracket is a thousandth of its widening below (or 64 halvings)
        mid = 0.5 * (finite_lo + hi)
        up = slope_sign(mid) >= 0
        finite_lo, hi = np.where(up, mid, finite_lo), np.where(up, hi, mid)
        if np.all(hi - finite_lo <= 1e-9 * (1.0 + np.abs(hi))):
            break
    widen = 1e-6 * (1.0 + np.abs(hi))
    a_lo = np.where(np.isfinite(lo), finite_lo - widen, -np.inf)
    a_hi = hi + widen
    zero = b0 * (1.0 - gamma) * special.ndtr(a_lo)  # c = 0: largest at a_lo (gamma >= 1)
    beta = np.clip(peak, a_lo[None, :] - r, a_hi[None, :])
    first, second = special.ndtr(beta + r), gamma[None, :] * special.ndtr(beta)
    value = zero + np.sum(bc * (first - second), axis=0)
    magnitude = np.abs(zero) + np.sum(bc * (first + second), axis=0)
    return cast(np.ndarray, np.maximum(value, 0.0) + _ULPS * magnitude + 1e-300)


def _convex_majorant(x: np.ndarray, y: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The lower convex hull of the points (x, y) (Andrew's monotone chain, x increasing), read at ``at``."""
    # Python floats: the same IEEE double arithmetic as numpy scalars, without their per-index
    # overhead
    xs, ys = x.tolist(), y.tolist()
    hull: list[int] = []
    for i in range(len(xs)):
        xi, yi = xs[i], ys[i]
        while len(hull) >= 2:
            i0, i1 = hull[-2], hull[-1]
            if (ys[i1] - ys[i0]) * (xi - xs[i0]) >= (yi - ys[i0]) * (xs[i1] - xs[i0]):
                hull.pop()
            else:
                break
        hull.append(i)
    return cast(np.ndarray, np.interp(at, x[hull], y[hull]))


def with_replacement_shift_bound(
    sigma: float,
    batch_size: int,
    n: int,
    *,
    sensitivity: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    """The PLD whose curve is the chords of D (module docstring), pessimistic side only.

    ``sensitivity`` = Delta (L/K for the mean of K gradients clipped to L).  The PMF spans losses
    up to the first grid point where D <= tail/4, or 700 (e^loss must stay finite), whichever comes
    first; D there goes to +infinity, as do copy counts beyond the kept ones (mass <= tail/4), whose
    terms are at most their mass.
    """
    s = _positive("sigma", sigma) / _positive("sensitivity", sensitivity)
    if (
        isinstance(batch_size, bool)
        or isinstance(n, bool)
        or not isinstance(batch_size, (int, np.integer))
        or not isinstance(n, (int, np.integer))
        or batch_size < 1
        or n < 1
    ):
        raise ValueError(
            f"batch_size and n must be positive integers (batch_size may exceed "
            f"n: draws are with replacement), got {batch_size!r}, {n!r}"
        )
    h = checked_interval(value_discretization_interval)
    t = checked_tail(tail)
    weights, cut = copy_count_weights(int(batch_size), int(n), 0.25 * t)
    # the loss range: the first of h, 2h, 4h, ... (below 700) where D + cut <= tail/4, else 700; D
    # is non-increasing and computed column by column, so the candidates are evaluated in one call
    doublings = h * 2.0 ** np.arange(int(np.ceil(np.log2(_TOP_LOSS / h))) + 1)
    doublings = doublings[doublings < _TOP_LOSS]
    reached = np.flatnonzero(shift_constrained_curve(doublings, weights, s) + cut <= 0.25 * t)
    top = float(doublings[reached[0]]) if reached.size else _TOP_LOSS
    if top / h > MAX_CELLS:
        raise ValueError(
            "the loss grid would need more cells than max_cells; use a coarser value_discretization_interval"
        )
    count = int(np.ceil(top / h))
    log_gamma = np.arange(count + 1) * h
    # D is convex in gamma, so its chords between evaluated points lie above it: D is evaluated
    # every _EVALUATION_STEP in log gamma, or _EVALUATIONS times over the whole range if that is
    # farther apart (every stride-th grid point, and the last) and the grid points between read off
    # the chords (each evaluation costs up to 64 bisections over the copy counts)
    stride = max(1, int(max(_EVALUATION_STEP, count * h / _EVALUATIONS) / h))
    at = np.unique(np.append(np.arange(0, count + 1, stride), count))
    values = np.empty(at.size)
    for start in range(0, at.size, 1 << 14):  # bounded memory: (copy counts) x (block) arrays
        stop = min(start + (1 << 14), at.size)
        values[start:stop] = shift_constrained_curve(log_gamma[at[start:stop]], weights, s)
    gamma = np.exp(log_gamma)
    curve = np.interp(gamma, gamma[at], values) * (1.0 + _ULPS) + cut  # the chords, rounded up
    curve = np.maximum.accumulate(curve[::-1])[::-1]  # non-increasing, still above D
    # the lower convex hull of the knots (the evaluated points; the curve is linear in gamma between
    # them but where the running maximum flattens it), read at every grid point; what the curve
    # exceeds it by anywhere on the grid is charged at loss +infinity
    hull = _convex_majorant(gamma[at], curve[at], gamma)
    gap = float(np.max(curve - hull))
    slopes = np.diff(hull) / np.diff(gamma)
    q = np.maximum(np.diff(np.append(slopes, 0.0)), 0.0)  # Q-mass at losses k h, k = 1 .. count
    p = q * gamma[1:]
    p_inf = float(hull[-1] + gap) + _KNOT_ULPS * float(p.sum())
    at_zero = max(1.0 - float(p.sum() + q.sum()) - p_inf, 0.0)
    masses = np.concatenate([q[::-1], [at_zero], p])
    pmf = GridPMF(-count, h, masses, p_inf, 0.0, True)
    return PrivacyLossDistribution(
        [
            {
                Factor(
                    f"with_replacement_shift_bound(sigma={s}, K={batch_size}, n={n})",
                    pmf,
                    None,
                    True,
                ): 1
            }
        ],
        t,
    )


@dataclass(frozen=True)
class WithReplacementGaussian(Mechanism):
    """Batches of k indices drawn with replacement from n records, Gaussian noise sigma,
    replace-one: the record is drawn c ~ Binom(k, 1/n) times and moves the sum by up to 2c
    (``with_replacement_subsampled_gaussian``, Balle, Barthe & Gaboardi 2018, Thm 2, and joint
    convexity).  A second proved upper side: the shift-constrained curve of the module docstring
    (Schuchardt et al. 2024, Sec. 3); the smaller is reported."""

    name: ClassVar[str] = "with_replacement_gaussian"
    stage_name: ClassVar[str | None] = "with_replacement_subsampled_gaussian"
    sigma: float
    k: int
    n: int

    @classmethod
    def from_stage(cls, **parameters: Any) -> WithReplacementGaussian | None:
        """A ``with_replacement_subsampled_gaussian`` stage of sensitivity 1 (its default):
        ``WithReplacementGaussian(sigma, batch_size, n)`` (``grid_pld`` is that stage's
        constructor)."""
        given = dict(parameters)
        n = given.pop("n", None)
        if (
            given.pop("sensitivity", 1.0) != 1.0
            or n is None
            or set(given) != {"sigma", "batch_size"}
        ):
            return None
        return cls(given["sigma"], given["batch_size"], n)

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return with_replacement_subsampled_gaussian(
            self.sigma, self.k, self.n, value_discretization_interval=h
        )

    def upper_alternative(self, h: float) -> PrivacyLossDistribution | None:
        return with_replacement_shift_bound(
            self.sigma, self.k, self.n, value_discretization_interval=h
        )

    def top_loss_floor(self) -> float:
        """A lower bound on the top loss of ``grid_pld``'s upper PMF on any grid, known without
        building it: that PMF, symmetrised, spans at least twice this over h in points.

        The core's upper cells (cpp/include/hockeystick/pld/sampling/replace_one.hpp,
        ``replace_one_upper_cells``) are the union of the Poisson-remove pairs of rate eta = 1 - b_0
        and noise sigma_c = s / (2c) for every copy count c = 1 .. c_max of positive weight, c_max the
        least c >= 1 whose upper binomial tail is at most tail eta / 4; each pair's cells reach up to
        loss L_c = log(1 - eta + eta e^t), t = (1/2 + z sigma_c) / sigma_c^2 at its integration end
        x = 1 + z sigma_c, z = Q^-1(tail / 8), and the symmetrised PMF mirrors them below loss 0
        with a point at every grid loss between.  L_c >= log(eta) + t, and t grows with c, so the
        bound is taken at a count c <= c_max: the least whose tail is at most twice the core's
        budget (``copy_count_weights``; scipy's tail and the core's suffix sums agree far closer
        than 2x), with z and the bound lowered by 1e-6 and 1e-9 relative for the round-off of both
        computations.  b_c > 0 at every c <= c_max for n > 1 and at c = K = c_max for n = 1.

        Returns
        -------
        float
            The floor, in loss; 0 where the bound is not positive.

        Raises
        ------
        ValueError
            Where the sampling or the noise is not a valid pair (``copy_count_weights``).
        """
        from scipy import special  # lazy: scipy loads at its first use, not with the package

        k, n = int(self.k), int(self.n)
        eta = 1.0 if n == 1 else -math.expm1(k * math.log1p(-1.0 / n))
        weights, _ = copy_count_weights(k, n, 2.0 * 0.25 * DEFAULT_TAIL * eta)
        c = weights.size - 1
        sigma_c = float(self.sigma) / (2.0 * c)
        z = -float(special.ndtri(0.125 * DEFAULT_TAIL)) * (1.0 - 1e-6)  # Q^-1(tail / 8)
        t = (0.5 + z * sigma_c) / (sigma_c * sigma_c)
        bound = math.log(eta) + t
        return max(bound - 1e-9 * (1.0 + abs(math.log(eta)) + t), 0.0)
