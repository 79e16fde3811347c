"""Subsampling of ANY mechanism given by certified sides of its privacy profile: both PMFs on the grid.

Notation.  For a pair (P, Q) of output laws (P: the record in the data, Q: not), g = e^eps >= 0,
    H(g) = int (dP - g dQ)_+   (its profile, delta(eps) = H(e^eps) at every real eps),
    A(g) = int (dQ - g dP)_+   (the swapped pair's, A(g) = 1 - g + g H(1/g)).
H and A are convex and non-increasing in g, H(0) = 1 and H(g) >= (1 - g)_+.

Poisson sampling at rate q, add/remove neighbours.  The sampled mechanism is dominated by
(qP + (1-q)Q, Q) for remove and by (Q, qP + (1-q)Q) for add (Zhu, Dong & Wang, "Optimal accounting
of differential privacy via characteristic function", AISTATS 2022, Thm 11); expanding the
integrands gives their curves exactly from H and A (for remove this is Balle, Barthe & Gaboardi,
"Privacy amplification by subsampling", NeurIPS 2018, Thm 2, with equality for this pair):
    remove:  H_r(g) = int (q dP - (g - 1 + q) dQ)_+ = q H(1 + (g - 1)/q)   if g > 1 - q,  else 1 - g;
    add:     H_a(g) = int (a dQ - g q dP)_+ = a A(g q / a),  a = 1 - g (1 - q)   if a > 0,  else 0.

Fixed-size samples without replacement (m of n, q = m/n), replace-one neighbours.  If H bounds
every ordered replace-one pair of M, then for eps >= 0 and both orders the sampled mechanism has
delta(eps) <= q H(1 + (e^eps - 1)/q): Balle, Barthe & Gaboardi 2018, Thm 2 (advanced joint
convexity) with the sample without the record as the common part mu_0, then joint convexity of
the divergence over (mu_1 || (1 - beta) mu_0 + beta mu_1'), both of whose pairs are replace-one
pairs of M (Zhu, Dong & Wang 2022 state the same pair (qP + (1-q)Q, Q) for this relation).  Below
eps = 0 the bound is mirrored, H_s(g) = 1 - g + g H_r(1/g): every ordered pair obeys
H_{XY}(g) = 1 - g + g H_{YX}(1/g), and (Y, X) is a neighbouring pair too, so H_s bounds both
orders at every g and composes adaptively (as ``fixed_size_subsampled_gaussian`` does).

Certified sides and monotonicity.  Each formula is non-decreasing in H (resp. A) at every point
(the coefficients q, a >= 0), so an upper side of H gives an upper side of the sampled curve and a
lower side a lower one, at every real eps: the sampling map is monotone in the pointwise order of
curves (the dominance order of pairs).  That order is all composition needs: for two rounds
delta(eps) = E_{P_2}[H_1(e^{eps - L_2})] = E_{P_1}[H_2(e^{eps - L_1})] (``finite_atoms``, (*)),
non-decreasing in each curve, so the transform of a pessimistic PLD stays pessimistic, also
composed, and that of an optimistic one optimistic.  The upper side takes the inner's curve in
the remove direction (``remove``: the pair with the record first) and in the add direction
(``add``: the swapped pair).  The lower side is a certified lower bound on the composition of the
same dominating pair (qP + (1-q)Q, Q) built from the inner's lower side; it bounds the mechanism
itself wherever that pair is attained (the Gaussian, with the other records' contributions zero
or, without replacement, at -L; a finite inner released on its own), as for dp_accounting's
optimistic estimate.

To the grid (``grid_factor``).  The sampled curve is evaluated at the grid points g_k = e^{k h}
(arguments moved towards the side asked for by a bound on their round-off plus 1e-12 (1 + |x|),
values by 8 ulp; see ``poisson_remove_curve`` and ``poisson_add_curve``):
- upper side: values U_k >= H*(g_k) (raised to their suffix maximum, a non-increasing sequence;
  U(0) = 1), then their greatest convex minorant.  The true curve H* is convex and below every
  point, so it lies below the minorant; the PMF with a mass g_k (slope change) at each kink and
  U_N at +infinity has exactly that polyline as its curve (flat beyond g_N, where H* <= U_N).
- lower side: values L_k <= H*(g_k) alone do not bound H* between grid points (a convex curve lies
  below its chords).  Convexity does: the secant through (g_{k-1}, U_{k-1}) and (g_k, L_k), extended
  beyond g_k, and the one through (g_{k+1}, L_{k+1}) and (g_{k+2}, U_{k+2}), extended below g_{k+1},
  lie below H* on the cell [g_k, g_{k+1}] (the first cell uses 1 - g, the last the lower bound of
  H*(infinity)).  The chord through the L's minus the larger of the two lines is concave on the
  cell, largest at their crossing: that excess is the cell's gap, and lowering each L_k by the
  larger gap of its two cells (the tent rule of pld/grid/connect_dots.hpp) puts every chord below
  H*.  A cell whose tent would be deeper than one grid step (or below 0) takes the other sufficient
  condition instead: both ends at most L at its right end, the curve's least value on the cell.  v_0
  <= 1 - g_0 (the segment from (0, 1)), running minima and the greatest convex minorant only lower
  the points: a convex, non-increasing polyline below H*, i.e. a PMF.
- round-off of the masses: the upper PMF's own curve is read from below at every grid loss with
  compensated sums and its shortfall covered by raising its masses by a relative few ulps (mass at
  +infinity only where that cannot cover it: ``grid_readback``); the lower PMF's is read from above
  with the suffix-sum slack and an excess removed by scaling its masses.
The bracket is the inner bracket carried through plus the tent gaps, O(h^2) where the curve is
smooth, O(h) at the kinks of a finite pair's curve. Both PMFs have their mass at loss +infinity: U_N
(upper), the lower bound of q p_inf (lower).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.pmf import GridPMF
from ..mechanisms.constructors import MAX_CELLS, checked_interval
from .grid_readback import covering_upper_pmf
from .with_replacement_shift_bound import copy_count_weights

Curve = Callable[
    [np.ndarray], np.ndarray
]  # a certified side of delta(eps), at a flat array of real eps

UNIT_ROUNDOFF = np.finfo(np.float64).eps / 2
ARGUMENT_MARGIN = 1e-12
LOSS_LIMIT = 700.0  # grid_factor's losses stay within +-this (e^loss a normal double)
CHUNK = 1024
NEAR = 1e-9  # closer than this to a formula's singular end, its safe end value is used
VALUE_MARGIN = 8.0 * UNIT_ROUNDOFF
# vectorised pruning passes before the monotone chain (convex_minorant): a pass tests only the
# dropped points' neighbours, so the ~20 passes a sampled curve's hull takes cost less than the chain
PRUNING_PASSES = 64
TINY = 1e-280  # lower-side targets below this are set to 0 (only lowers the curve)


def _rate(rate: float) -> float:
    q = float(rate)
    if not 0.0 < q < 1.0:
        raise ValueError(
            f"sampling_rate must lie in (0, 1) (0 releases nothing, 1 is the mechanism itself), got {rate!r}"
        )
    return q


def _at(curve: Curve, x: np.ndarray, error: np.ndarray, upper: bool) -> np.ndarray:
    """curve at x moved by ``error`` (a bound on x's round-off) plus ARGUMENT_MARGIN (1 + |x|),
    towards larger delta (upper) or smaller (lower), and the value moved by VALUE_MARGIN the same
    way."""
    # at x = +-inf the curve's limit is read as is (inf - inf would be NaN; no round-off moves it)
    with np.errstate(invalid="ignore"):
        margin = np.where(np.isfinite(x), ARGUMENT_MARGIN * (1.0 + np.abs(x)) + error, 0.0)
    value = np.asarray(
        curve(np.ascontiguousarray(x - margin if upper else x + margin)), dtype=np.float64
    )
    return value * (1.0 + VALUE_MARGIN) if upper else value * (1.0 - VALUE_MARGIN)


def poisson_remove_curve(remove: Curve, rate: float, upper: bool) -> Curve:
    """H_r(e^eps) = q H(1 + (e^eps - 1)/q) above eps = log(1 - q), 1 - e^eps below (module docstring).

    The argument is log((1 - q) expm1(eps - log(1 - q)) / q) (for eps - log(1 - q) > 30 as d +
    log1p(-e^-d), d = eps - log(1 - q), which stays finite where expm1 overflows), accurate to 8u +
    4u (|eps| + |log(1-q)|) / (eps - log(1 - q)); within NEAR of log(1 - q) the safe ends q (upper:
    H <= 1) and 1 - e^eps (lower: every curve is >= 1 - g) are used instead.
    """
    q = _rate(rate)
    floor = math.log1p(-q)

    def curve(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=np.float64)
        out = -np.expm1(np.minimum(e, 0.0)) * (1.0 + VALUE_MARGIN if upper else 1.0 - VALUE_MARGIN)
        gap = e - floor
        near = (gap > 0) & (gap <= NEAR)
        if upper:
            out[near] = q
        above = gap > NEAR
        if np.any(above):
            d = gap[above]
            # log(expm1(d)) as d + log1p(-e^-d) where expm1 would overflow (d > 700: e^d is inf)
            with np.errstate(divide="ignore"):
                log_expm1 = np.where(
                    d > 30.0, d + np.log1p(-np.exp(-d)), np.log(np.expm1(np.minimum(d, 30.0)))
                )
            inner = floor + log_expm1 - math.log(q)
            with np.errstate(
                invalid="ignore"
            ):  # eps = inf: inf / inf, a margin _at does not use there
                error = (
                    8.0 * UNIT_ROUNDOFF * (1.0 + np.abs(inner))
                    + 4.0 * UNIT_ROUNDOFF * (np.abs(e[above]) - floor) / d
                )
            out[above] = np.minimum(q * _at(remove, inner, error, upper), 1.0)
        return np.clip(out, 0.0, 1.0)

    return curve


def poisson_add_curve(add: Curve, rate: float, upper: bool) -> Curve:
    """H_a(e^eps) = a A(e^eps q / a), a = 1 - e^eps (1 - q), 0 where a <= 0 (module docstring).

    a = -expm1(y), y = eps + log(1 - q), has relative error <= 4u (|eps| + 1) / |y| + 2u, and so has
    the argument log(q) + eps - log(a) in absolute terms; within NEAR of the root a = 0 the safe
    ends a (upper: A <= 1) and 0 (lower) are used instead.
    """
    q = _rate(rate)
    log_keep = math.log1p(-q)

    def curve(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=np.float64)
        out = np.zeros(e.shape)
        y = e + log_keep
        near = (y < 0) & (y >= -NEAR)
        if upper:
            out[near] = -np.expm1(y[near] - 4.0 * UNIT_ROUNDOFF * (np.abs(e[near]) + 1.0)) * (
                1.0 + VALUE_MARGIN
            )
        live = y < -NEAR
        if np.any(live):
            a = -np.expm1(y[live])
            with np.errstate(invalid="ignore"):  # eps = -inf: a = 1 exactly
                rel = (
                    np.where(
                        np.isfinite(y[live]),
                        4.0 * UNIT_ROUNDOFF * (np.abs(e[live]) + 1.0) / np.abs(y[live]),
                        0.0,
                    )
                    + 2.0 * UNIT_ROUNDOFF
                )
            inner = e[live] + math.log(q) - np.log(a)
            error = rel + 8.0 * UNIT_ROUNDOFF * (1.0 + np.abs(inner))
            a = a * (1.0 + rel + VALUE_MARGIN) if upper else a * (1.0 - rel - VALUE_MARGIN)
            out[live] = a * _at(add, inner, error, upper)
        return np.clip(out, 0.0, 1.0)

    return curve


def mirrored_curve(curve: Curve, upper: bool) -> Curve:
    """curve at eps >= 0, its perspective 1 - e^eps + e^eps curve(-eps) below 0 (module docstring)."""

    def mirrored(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=np.float64)
        out = np.empty(e.shape)
        high = e >= 0
        out[high] = curve(e[high])
        x = e[~high]
        value = -np.expm1(x) + np.exp(x) * curve(-x)
        error = (
            4.0 * UNIT_ROUNDOFF * (1.0 + value)
        )  # a sum of two terms in [0, 1], each a few ulp off
        out[~high] = value + error if upper else value - error
        return np.clip(out, 0.0, 1.0)

    return mirrored


def convex_minorant(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The greatest convex minorant of the points (g_k, y_k) (g increasing), at every g_k.

    A point lying above the segment between two others cannot be a vertex of the lower hull.  Up to
    PRUNING_PASSES vectorised passes drop every point above the segment between its live neighbours
    (on a smooth curve this leaves the hull); Andrew's monotone chain then finishes in O(N) whatever
    is left (each point pushed once, popped while above the segment from the one before it to the
    new point), so a curve needing many passes (long flat or staircase runs) stays linear.  The
    minorant is the polyline through the points left.

    A pass tests only the points next to one the pass before dropped: any other point has the
    neighbours it had then, so the same product of the same doubles, found not above, is not
    computed again (each pass drops what a pass over every live point would).
    """
    live = np.arange(g.size)
    check = np.arange(1, g.size - 1)  # positions in ``live`` whose neighbours changed
    for _ in range(PRUNING_PASSES):
        if check.size == 0:
            return cast(np.ndarray, np.interp(g, g[live], y[live]))
        # each tested point b between its live neighbours a and c
        a, b, c = live[check - 1], live[check], live[check + 1]
        above = check[(y[b] - y[a]) * (g[c] - g[a]) > (y[c] - y[a]) * (g[b] - g[a])]
        if above.size == 0:
            return cast(np.ndarray, np.interp(g, g[live], y[live]))
        near = np.zeros(live.size, dtype=bool)
        near[above - 1] = True
        near[above + 1] = True
        near = np.delete(near, above)
        live = np.delete(live, above)
        near[0] = near[-1] = False  # an end has no neighbour on one side: never tested
        check = np.flatnonzero(near)
    xs, vs = g[live].tolist(), y[live].tolist()
    hull: list[int] = []
    for k in range(len(xs)):
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            if (vs[j] - vs[i]) * (xs[k] - xs[i]) > (vs[k] - vs[i]) * (xs[j] - xs[i]):
                hull.pop()
            else:
                break
        hull.append(k)
    keep = live[hull]
    return cast(np.ndarray, np.interp(g, g[keep], y[keep]))


def _masses(g: np.ndarray, w: np.ndarray, at_zero: float) -> tuple[np.ndarray, float]:
    """PMF masses (g_k times the slope change) of the polyline through (0, at_zero), (g_k, w_k), flat after."""
    slopes = np.diff(np.concatenate([[at_zero], w])) / np.diff(np.concatenate([[0.0], g]))
    slopes = np.append(slopes, 0.0)
    return np.maximum(g * np.diff(slopes), 0.0), float(w[-1])


def _upper_pmf(k_lo: int, h: float, upper: np.ndarray) -> GridPMF:
    g = np.exp((k_lo + np.arange(upper.size)) * h)
    u = np.clip(np.maximum.accumulate(upper[::-1])[::-1], 0.0, 1.0)
    w = convex_minorant(np.concatenate([[0.0], g]), np.concatenate([[1.0], u]))[1:]
    p, p_inf = _masses(g, w, 1.0)
    return covering_upper_pmf(
        k_lo, h, p, p_inf, w
    )  # the masses' round-off covered (``grid_readback``)


def _cell_gaps(g: np.ndarray, lower: np.ndarray, upper: np.ndarray, top: float) -> np.ndarray:
    """Per cell [g_k, g_{k+1}]: how far the chord through (g_k, L_k), (g_{k+1}, L_{k+1}) can rise
    above the curve, bounded by the larger of the two secant lines (module docstring).

    E - chord (E the larger line) is the larger of two lines, so its least value on the cell is at
    their crossing (or at an end, where it is >= 0): the gap is the chord minus E there.
    """
    n = g.size
    x0, x1 = g[:-1], g[1:]
    # left secant through (g_{k-1}, U_{k-1}), (g_k, L_k); the first cell uses the line 1 - g instead
    # each end's slope is set before the intercepts are computed from it (np.empty holds arbitrary bits)
    s_left = np.empty(n - 1)
    s_left[0] = -1.0
    s_left[1:] = (lower[1:-1] - upper[:-2]) / (g[1:-1] - g[:-2])
    b_left = lower[:-1] - s_left * x0
    b_left[0] = 1.0
    # right secant through (g_{k+1}, L_{k+1}), (g_{k+2}, U_{k+2}); the last cell uses the flat top
    s_right = np.empty(n - 1)
    s_right[-1] = 0.0
    s_right[:-1] = (upper[2:] - lower[1:-1]) / (g[2:] - g[1:-1])
    b_right = lower[1:] - s_right * x1
    b_right[-1] = top
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = (b_right - b_left) / (s_left - s_right)
    inside = np.isfinite(cross) & (cross > x0) & (cross < x1)
    at = np.where(inside, cross, x0)
    theta = (at - x0) / (x1 - x0)
    chord = lower[:-1] + theta * (lower[1:] - lower[:-1])
    floor = np.maximum(s_left * at + b_left, s_right * at + b_right)
    return np.where(inside, np.maximum(chord - floor, 0.0), 0.0)


def _lower_pmf(k_lo: int, h: float, lower: np.ndarray, upper: np.ndarray, top: float) -> GridPMF:
    g = np.exp((k_lo + np.arange(lower.size)) * h)
    lo = np.minimum.accumulate(np.clip(lower, 0.0, 1.0))  # the curve does not increase: only lowers
    lo[lo < TINY] = 0.0  # no subnormal targets: the masses' round-off is relative to them
    gap = _cell_gaps(g, lo, np.clip(upper, 0.0, 1.0), max(top, 0.0))
    # Per cell, the chord lies below the curve if both ends sit below the tent (L - gap), or if both
    # sit below L at the cell's right end (the curve's least value on the cell); the second is taken
    # where it is the weaker constraint or the tent would go below 0.
    step = (gap >= lo[:-1] - lo[1:]) | (gap > lo[1:])
    left_cap = np.where(step, lo[1:], lo[:-1] - gap)
    right_cap = np.where(step, lo[1:], lo[1:] - gap)
    v = lo.copy()
    v[:-1] = np.minimum(v[:-1], left_cap)
    v[1:] = np.minimum(v[1:], right_cap)
    v[0] = min(v[0], 1.0 - g[0])
    v[-1] = min(v[-1], max(top, 0.0))
    v = np.maximum(np.minimum.accumulate(v), 0.0)
    w = convex_minorant(np.concatenate([[0.0], g]), np.concatenate([[1.0], v]))[1:]
    p, p_inf = _masses(g, w, 1.0)
    check = GridPMF(k_lo, h, p, p_inf, 0.0, True)  # the PMF's curve from above
    have = np.concatenate([[(float(p.sum()) + p_inf) * (1.0 + 1e-12)], check.delta(np.log(g))])
    mass_above = np.append(np.cumsum(p[::-1])[::-1][1:], 0.0) + p_inf
    have[1:][mass_above == 0.0] = 0.0  # no mass above a grid point: the curve is exactly 0 there
    want = np.concatenate([[1.0], w])
    excess = have > want
    scale = float(np.min(np.where(excess, want / np.where(have > 0, have, 1.0), 1.0), initial=1.0))
    if scale < 1.0 - 1e-6 and k_lo <= 0 < k_lo + g.size:
        # more than round-off (never seen): the trivial lower side (1 - g)_+, mass 1 at loss 0
        p = np.zeros(g.size)
        p[-k_lo] = 1.0
        return GridPMF(k_lo, h, p, 0.0, 0.0, False)
    return GridPMF(k_lo, h, p * scale, p_inf * scale, 0.0, False)


def _in_chunks(curve: Curve, eps: np.ndarray) -> np.ndarray:
    """curve(eps) in pieces of CHUNK points (a curve of finite atoms builds a points x atoms table)."""
    return np.concatenate([curve(eps[i : i + CHUNK]) for i in range(0, eps.size, CHUNK)])


def grid_factor(
    name: str,
    upper: Curve,
    lower: Curve,
    loss_lo: float,
    loss_hi: float,
    h: float,
    top_lower: float,
    lower_pair_upper: Curve | None = None,
) -> Factor:
    """The factor of a curve given by certified sides, on the grid k h covering [loss_lo, loss_hi].

    ``loss_lo`` should lie at or below the pair's smallest finite loss and ``loss_hi`` at or above
    its largest (for tightness only: the upper curve is flat beyond g_N and the chord from (0, 1),
    both above a convex non-increasing curve; the lower side takes 1 - g below g_0 and
    ``top_lower``, a lower bound on the mass at +infinity, above g_N).  ``lower_pair_upper``: an
    upper side of the curve that ``lower`` bounds, for the secants, when that is another curve than
    ``upper``'s (the one-order pair below a symmetrised bound); the secants need it tight.
    The grid stops at |loss| = ``LOSS_LIMIT`` (700: e^loss stays a normal double), which the
    rules above make valid, only looser, for a pair whose losses reach beyond it.
    """
    k_lo, eps = _grid_points(loss_lo, loss_hi, h)
    up = _in_chunks(upper, eps)
    return _lower_factor(
        name, k_lo, h, eps, up, _upper_pmf(k_lo, h, up), lower, top_lower, lower_pair_upper
    )


def _grid_points(loss_lo: float, loss_hi: float, h: float) -> tuple[int, np.ndarray]:
    """The first index k_lo and the losses k h of the grid covering [loss_lo, loss_hi] within
    +-``LOSS_LIMIT`` (``grid_factor``), refused past ``MAX_CELLS`` points."""
    loss_lo, loss_hi = max(loss_lo, -LOSS_LIMIT), min(loss_hi, LOSS_LIMIT)
    # a subnormal h puts loss / h past the largest double: more points than any count
    if not (math.isfinite(loss_lo / h) and math.isfinite(loss_hi / h)):
        raise ValueError(
            f"the loss range [{loss_lo:.4g}, {loss_hi:.4g}] needs more than {MAX_CELLS} grid points of "
            f"width {h:g}: use a coarser value_discretization_interval"
        )
    k_lo = int(math.floor(loss_lo / h))
    k_hi = int(math.ceil(loss_hi / h)) + 1
    if k_hi - k_lo + 1 > MAX_CELLS:
        raise ValueError(
            f"the loss range [{loss_lo:.4g}, {loss_hi:.4g}] needs {k_hi - k_lo + 1} grid points of "
            f"width {h:g} (more than {MAX_CELLS}): use a coarser value_discretization_interval"
        )
    return k_lo, (k_lo + np.arange(k_hi - k_lo + 1)) * h


def _lower_factor(
    name: str,
    k_lo: int,
    h: float,
    eps: np.ndarray,
    up: np.ndarray,
    upper_pmf: GridPMF,
    lower: Curve,
    top_lower: float,
    lower_pair_upper: Curve | None,
) -> Factor:
    """``grid_factor``'s factor from the upper side's values ``up`` at the grid's losses ``eps`` and
    its PMF: the lower side's PMF built beside it (one upper PMF may serve several lower sides on
    one grid)."""
    secant_up = up if lower_pair_upper is None else _in_chunks(lower_pair_upper, eps)
    lo = np.minimum(_in_chunks(lower, eps), secant_up)
    return Factor(name, upper_pmf, _lower_pmf(k_lo, h, lo, secant_up, top_lower), True)


def _sampled_top(top_loss: float, q: float) -> float:
    """log(1 - q + q e^top): the largest finite loss of the remove pair when the inner's is ``top_loss``."""
    return float(np.logaddexp(math.log1p(-q), math.log(q) + top_loss))


def poisson_subsampled_curves(
    remove: tuple[Curve, Curve],
    add: tuple[Curve, Curve],
    rate: float,
    top_loss: float,
    inner_inf_lower: float,
    *,
    value_discretization_interval: float,
) -> PrivacyLossDistribution:
    """Remove and add PLDs of Poisson sampling at ``rate`` of a mechanism given by its curves.

    ``remove`` = (upper, lower) sides of the inner curve H (pair with the record first), ``add``
    the same for A (swapped pair), each at any real eps; ``top_loss`` is where the inner curves
    stop changing (above every finite loss; a cut for unbounded losses, which costs tightness
    only) and ``inner_inf_lower`` bounds the inner's mass at loss +infinity from below.
    """
    q = _rate(rate)
    h = checked_interval(value_discretization_interval)
    top = _sampled_top(float(top_loss), q) + h
    bottom = math.log1p(-q) - h
    up_r, lo_r = (
        poisson_remove_curve(remove[0], q, True),
        poisson_remove_curve(remove[1], q, False),
    )
    up_a, lo_a = (poisson_add_curve(add[0], q, True), poisson_add_curve(add[1], q, False))
    remove_factor = grid_factor(
        f"poisson_subsampled(q={q}, remove)",
        up_r,
        lo_r,
        bottom,
        top,
        h,
        q * max(inner_inf_lower, 0.0),
    )
    add_factor = grid_factor(f"poisson_subsampled(q={q}, add)", up_a, lo_a, -top, -bottom, h, 0.0)
    return PrivacyLossDistribution([{remove_factor: 1}, {add_factor: 1}])


def without_replacement_curves(
    curve: tuple[Curve, Curve],
    rate: float,
    top_loss: float,
    inner_inf_lower: float,
    *,
    value_discretization_interval: float,
) -> PrivacyLossDistribution:
    """The PLD of fixed-size samples without replacement (q = m/n) of a replace-one mechanism.

    ``curve`` = (upper, lower) sides of the inner curve H: above every ordered replace-one pair
    (upper), below one realizable pair (lower).  Upper side: q H(1 + (e^eps - 1)/q) at eps >= 0,
    mirrored below (module docstring); lower side: the realizable pair sampled, (qP + (1-q)Q, Q).
    One direction.
    """
    q = _rate(rate)
    h = checked_interval(value_discretization_interval)
    top = _sampled_top(float(top_loss), q) + h
    bottom = min(math.log1p(-q), -top) - h
    one_order = poisson_remove_curve(curve[0], q, True)
    upper = mirrored_curve(one_order, True)
    lower = poisson_remove_curve(curve[1], q, False)
    f = grid_factor(
        f"without_replacement_subsampled(q={q}, replace-one)",
        upper,
        lower,
        bottom,
        top,
        h,
        q * max(inner_inf_lower, 0.0),
        one_order,
    )
    return PrivacyLossDistribution([{f: 1}])


def with_replacement_curves(
    group: Callable[[int], tuple[Curve, Curve]],
    batch_size: int,
    n: int,
    top_loss: float,
    *,
    value_discretization_interval: float,
    cut: float = 1e-14,
    realizable: list[tuple[Curve, Curve | None]] | None = None,
) -> PrivacyLossDistribution:
    """The upper PLD of batches of K draws WITH replacement from n records, replace-one, any mechanism.

    ``group(c)`` = (upper, lower) sides of H_c, the curve bounding every pair in which c batch slots
    change (a group of c; for Gaussian noise on a sum, shift 2c).  The record is drawn c ~ Binom(K,
    1/n) times (b_c, eta = 1 - b_0).  With mu_c the output law given c draws, Balle, Barthe &
    Gaboardi 2018, Thm 2 around the common mu_0 and joint convexity over c (both mu_c vs mu_0 and
    mu_c vs mu_c' are pairs of c changed slots) give, for eps >= 0 and both orders,
        delta(eps) <= sum_{c >= 1} b_c H_c(1 + (e^eps - 1)/eta)
    (for the Gaussian this is ``with_replacement_subsampled_gaussian``'s pair (*); Schuchardt et
    al., NeurIPS 2024, treat the same setting), mirrored below 0 as for samples without replacement.
    The counts beyond the first c_max whose tail is <= ``cut``, and those below it whose chance is
    at most ``cut`` / c_max, add their mass (H_c <= 1; ``group`` is never asked for them).  The
    lower side bounds that curve's one-order pair from below: a bracket on the bound, not on the
    mechanism, unless each H_c is attained by one pair of inputs for every c (input-oblivious pairs
    such as randomized response: then the bound is the realizable pair ((1 - eta) Q + eta P, Q)).
    ``realizable``: instead, per order of a realizable pair of the sampled mechanism, (lower side of
    its curve, an upper side of that same curve or None to use the bound's, for the secants); the
    PLD then has one direction per order, each with the symmetrised bound as its upper side
    (``pld.with_replacement_realizable`` builds them around additive noise). ``top_loss``: where the
    curve of the largest group stops changing.
    """
    k, size = batch_size, n
    _check_batches(k, size)
    h = checked_interval(value_discretization_interval)
    weights, tail = copy_count_weights(int(k), int(size), float(cut))
    eta = _drawn_chance(int(k), int(size))
    counts, tail = _kept_counts(weights, tail, cut)
    floor = math.log1p(-eta)
    ups = [poisson_remove_curve(group(c)[0], eta, True) for c in counts]
    los = (
        [poisson_remove_curve(group(c)[1], eta, False) for c in counts]
        if realizable is None
        else []
    )
    mix = _CountMixture(counts, weights, eta, tail, floor)
    one_order = mix.curve(ups, True)
    top = _sampled_top(float(top_loss), eta) + h
    bottom = min(math.log1p(-eta), -top) - h
    name = f"with_replacement_subsampled(K={k}, n={n}, replace-one)"
    upper = mirrored_curve(one_order, True)
    if realizable is None:
        return PrivacyLossDistribution(
            [{grid_factor(name, upper, mix.curve(los, False), bottom, top, h, 0.0, one_order): 1}]
        )
    # both orders share the symmetrised bound: its values and its PMF on the grid are built once.
    # The realizable pair's curve lies below that bound in both orders: the bound (None: its values
    # ``up``) may serve the secants
    k_lo, eps = _grid_points(bottom, top, h)
    up = _in_chunks(upper, eps)
    upper_pmf = _upper_pmf(k_lo, h, up)
    return PrivacyLossDistribution(
        [
            {
                _lower_factor(
                    f"{name}, realizable order {i}",
                    k_lo,
                    h,
                    eps,
                    up,
                    upper_pmf,
                    lower,
                    0.0,
                    secant,
                ): 1
            }
            for i, (lower, secant) in enumerate(realizable)
        ]
    )


def _check_batches(k: Any, size: Any) -> None:
    """batch_size a positive integer and n an integer >= 2 (bools refused)."""
    if (
        isinstance(k, bool)
        or isinstance(size, bool)
        or not isinstance(k, (int, np.integer))
        or not isinstance(size, (int, np.integer))
        or k < 1
        or size < 2
    ):
        raise ValueError(
            f"batch_size must be a positive integer and n an integer >= 2, got {k!r}, {size!r}"
        )


def _drawn_chance(k: int, size: int) -> float:
    """eta = 1 - (1 - 1/n)^K, the chance that the record is drawn at least once, refused outside (0, 1)."""
    eta = -math.expm1(k * math.log1p(-1.0 / size))
    if not 0.0 < eta < 1.0:
        raise ValueError(
            f"the chance {eta!r} that the record is drawn must lie in (0, 1) (batch_size and n)"
        )
    return eta


def _kept_counts(weights: np.ndarray, tail: float, cut: float) -> tuple[list[int], float]:
    """The counts c >= 1 kept, and the tail with the mass of those too rare to matter added (each at
    most ``cut`` / the number of counts: all of them together below ``cut``)."""
    rare = weights[1:] <= cut / weights.size
    counts = [c for c in range(1, weights.size) if not rare[c - 1]]
    return counts, tail + float(weights[1:][rare].sum())


class _CountMixture:
    """sum over the kept counts c of (b_c / eta) H_c, each side's H_c given, with the missing
    counts' mass added on the upper side."""

    def __init__(
        self, counts: list[int], weights: np.ndarray, eta: float, tail: float, floor: float
    ):
        self.counts, self.weights, self.eta, self.tail, self.floor = (
            counts,
            weights,
            eta,
            tail,
            floor,
        )

    def curve(self, curves: list[Curve], upper: bool) -> Curve:
        """The mixture of ``curves`` (one per kept count) on one side."""
        counts, weights, eta, tail, floor = (
            self.counts,
            self.weights,
            self.eta,
            self.tail,
            self.floor,
        )

        def mixed(eps: np.ndarray) -> np.ndarray:
            total = np.zeros(
                np.shape(eps)
            )  # stays 0 when every count is rare (n huge: only the tail)
            for c, f in zip(counts, curves):
                total += weights[c] / eta * f(eps)
            if not upper:
                return total * (1.0 - 1e-12)
            # a missing count c adds at most (b_c / eta) times its term: <= eta above log(1 - eta),
            # <= 1 below
            missing = np.where(np.asarray(eps) > floor, tail, tail / eta)
            return np.minimum(total * (1.0 + 1e-12) + missing, 1.0)

        return mixed
