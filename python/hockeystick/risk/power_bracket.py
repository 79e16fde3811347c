"""The power's certified bracket at every alpha: min over t of D(t) + alpha t from a bracket of the
profile D at nodes t_k = e^eps_k, refined where the minimum may lie (the construction is
``hockeystick.risk``'s docstring)."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..base import validation as _validation
from ..base.accountant import Bound
from .directions import direction_profiles
from .profile import DeltaSides, profiled

COARSE_SPACING = 2.0**-3  # the first grid's spacing in eps
DEFAULT_SPACING = 2.0**-9  # every alpha's intervals are refined to this spacing at least ...
FINEST_SPACING = 2.0**-24  # ... and halved further until settled (rtol), down to this
DEFAULT_RTOL = 1e-6  # the power bracket's relative width asked for
WIDTH_SHARE = (
    2.0**-6
)  # a refinement moving each side by at most this share of the power's bracket is quiet
FIRST_REACH = (
    4.0  # the first grid's largest eps; doubled while an end interval can hold the minimum
)
MAX_REACH = 704.0  # e^704 ~ 1.9e305: the largest reach whose t is a double
UNIT_ROUNDOFF = 2.0**-53  # unit round-off
_U = UNIT_ROUNDOFF
_CHUNK = 1 << 20  # (interval, alpha) pairs per vectorized block


class _Nodes:
    """The bracket of D(t) at t = e^s for an ascending signed grid s (s >= 0: delta_{H1||H0}(s);
    s < 0: 1 - e^s + e^s delta_{H0||H1}(-s)), and of D(inf) = delta_{H1||H0}(inf)."""

    def __init__(self, forward: DeltaSides, backward: DeltaSides | None) -> None:
        self.forward, self.backward = forward, backward
        self.eps = np.zeros(0)  # the evaluated eps >= 0, ascending, 0 first
        self.f_low = self.f_up = self.b_low = self.b_up = np.zeros(0)
        self.inf_low, self.inf_up = (float(v[0]) for v in forward(np.array([np.inf])))

    def add(self, eps: np.ndarray) -> None:
        """Evaluates both directions at the new eps >= 0 (finite) and merges them in."""
        new = np.setdiff1d(eps, self.eps)
        if new.size == 0:
            return
        f_low, f_up = self.forward(new)
        b_low, b_up = (f_low, f_up) if self.backward is None else self.backward(new)
        merged = np.concatenate([self.eps, new])
        order = np.argsort(merged, kind="stable")
        self.eps = merged[order]
        self.f_low, self.f_up, self.b_low, self.b_up = (
            np.concatenate([old, fresh])[order]
            for old, fresh in (
                (self.f_low, f_low),
                (self.f_up, f_up),
                (self.b_low, b_low),
                (self.b_up, b_up),
            )
        )

    def flat(self) -> np.ndarray:
        """Per finite interval of the signed nodes (``signed``), whether D's bracket is the same at
        both of its ends.  D is non-increasing in t, so inside such an interval it lies in that same
        bracket: a node there only repeats it (its term D + alpha t at least the left end's), and
        the interval's lower bound, the monotone minorant lo + alpha t_k, rises by no more than its
        rounding allowance.  Refining it moves neither side of the power: past a certified curve's
        round-off floor (its upper delta one constant, its lower delta 0, out to eps ~ 700 where
        alpha is tiny) it would ask for ~3e5 epsilons to no effect."""
        _, low, up = self.signed()
        flat: np.ndarray = (low[:-1] == low[1:]) & (up[:-1] == up[1:])
        return flat

    @property
    def reach(self) -> float:
        return float(self.eps[-1])

    def signed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(s, lo, up): the signed nodes ascending and D's bracket there.  At s = 0 both directions
        give the total variation: the bracket is their intersection."""
        pos = self.eps[1:]
        t_neg = np.exp(-pos[::-1])
        gap = -np.expm1(-pos[::-1])  # 1 - t, without cancellation
        # non-negative terms: each rounded value is within 3 u relative, so 4 u outward covers it
        neg_low = (gap + t_neg * self.b_low[1:][::-1]) * (1.0 - 4 * _U)
        neg_up = np.minimum((gap + t_neg * self.b_up[1:][::-1]) * (1.0 + 4 * _U), 1.0)
        zero_low = max(self.f_low[0], self.b_low[0])
        zero_up = min(self.f_up[0], self.b_up[0])
        s = np.concatenate([-pos[::-1], [0.0], pos])
        low = np.concatenate([neg_low, [zero_low], self.f_low[1:]])
        up = np.concatenate([neg_up, [zero_up], self.f_up[1:]])
        return s, low, up


def power_bracket(
    accountant: Any, alpha: np.ndarray, side: Bound, direction: Any, rtol: Any
) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) power at every ``alpha`` (its shape), a side not asked trivial (alpha below, 1 above)."""
    profiled(accountant)
    tolerance = float(
        _validation.in_interval(
            _validation.single(rtol, "rtol"), "rtol", 0.0, 1.0, open_low=True, open_high=True
        )
    )
    # the lower side's minorants need upper deltas too (the chords' slopes): an accountant giving a
    # lower side gives both, so the lower side is computed with its upper one
    side = "both" if side == "lower" else side
    forward, backward = direction_profiles(accountant, direction, side)
    flat = alpha.ravel()
    want_lower, want_upper = side != "upper", True
    nodes = _Nodes(forward, backward)
    reach = FIRST_REACH
    nodes.add(np.arange(0.0, reach + COARSE_SPACING / 2, COARSE_SPACING))
    while True:
        bounds = _Bounds(nodes, flat, want_lower, want_upper)
        if not bounds.end_may_hold_minimum().any() or reach >= MAX_REACH:
            break
        more = min(2 * reach, MAX_REACH)
        nodes.add(np.arange(reach + COARSE_SPACING, more + COARSE_SPACING / 2, COARSE_SPACING))
        reach = more
    lower, upper = bounds.lower, bounds.upper
    # refine, halving the spacing, the finite intervals that can hold the minimum of an alpha not
    # yet settled
    step = COARSE_SPACING
    open_ = np.ones(flat.size, dtype=bool)
    quiet = np.zeros(flat.size, dtype=np.int64)
    while open_.any() and step > FINEST_SPACING:
        step /= 2
        s = bounds.s
        wide = np.diff(s) > step * 1.5
        fine = [
            np.arange(s[k] + step, s[k + 1] - step / 2, step)
            for k in np.flatnonzero(bounds.may_hold_minimum() & wide & ~nodes.flat())
        ]
        if not fine:
            continue
        nodes.add(np.unique(np.abs(np.concatenate(fine))))
        bounds = _Bounds(nodes, flat[open_], want_lower, want_upper)
        new_lower, new_upper = lower.copy(), upper.copy()
        new_lower[open_] = np.maximum(
            lower[open_], bounds.lower
        )  # every grid's sides are certified: keep the best
        new_upper[open_] = np.minimum(upper[open_], bounds.upper)
        # settled: the bracket within rtol, or two refinements in a row moving neither side by rtol
        # (the accountant's own bracket, or a kink of the curve, limits it; one quiet refinement may
        # only mean the minimum lies between the new nodes) nor by WIDTH_SHARE of the bracket (the
        # grid's share of its width: the sides converge at least linearly in the spacing, halved
        # each time, so what further halvings can still move a side is about its last move, a small
        # part of a bracket the accountant's own sides keep wide)
        slack = WIDTH_SHARE * (new_upper - new_lower) if want_lower else 0.0
        still = (new_lower - lower <= np.maximum(tolerance * new_lower, slack)) & (
            upper - new_upper <= np.maximum(tolerance * new_upper, slack)
        )
        quiet = np.where(still, quiet + 1, 0)
        settled = quiet >= 2
        if want_lower:
            settled |= new_upper - new_lower <= tolerance * new_upper
        lower, upper = new_lower, new_upper
        if step > DEFAULT_SPACING:  # every alpha is refined down to the default spacing at least
            settled[:] = False
        keep = ~settled[open_]
        open_ &= ~settled
        bounds = bounds.subset(keep)
    return lower.reshape(alpha.shape), upper.reshape(alpha.shape)


class _Bounds:
    """The power's sides at every alpha from the nodes' bracket of D, and where its minimum may lie.

    ``upper``: the least node term up_k + alpha t_k (t's rounding and the sum: within 3 u relative,
    raised 4 u); ``intervals``: per alpha, the lower bound on each interval ([0, t_0], the finite
    [t_k, t_k+1], [t_last, inf); none where only the upper side is asked); ``lower``: their least.
    ``reference``: the least node term of the upper side, or of the lower side where only that is
    asked (an estimate of the minimum, to choose where to refine, never a bound), and ``best_node``
    the node attaining it."""

    def __init__(
        self, nodes: _Nodes, alpha: np.ndarray, want_lower: bool, want_upper: bool
    ) -> None:
        self.s, low, up = nodes.signed()
        self.alpha, self.want_lower = alpha, want_lower
        t = np.exp(self.s)
        n = self.s.size
        guide = up if want_upper else low
        self.reference = np.empty(alpha.size)
        self.best_node = np.empty(alpha.size, dtype=np.int64)
        rows = max(1, _CHUNK // n)
        for a in range(0, alpha.size, rows):
            terms = (guide[None, :] + alpha[a : a + rows, None] * t[None, :]) * (1.0 + 4 * _U)
            self.best_node[a : a + rows] = np.argmin(terms, axis=1)
            self.reference[a : a + rows] = terms[
                np.arange(terms.shape[0]), self.best_node[a : a + rows]
            ]
        if want_upper:
            at_inf = np.where(
                alpha == 0.0, nodes.inf_up, np.inf
            )  # t -> inf: the mass at +infinity, alpha = 0 only
            # the power is at least alpha: an upper side below it is round-off, raised to it
            self.upper = np.maximum(np.minimum(np.minimum(self.reference, at_inf), 1.0), alpha)
        else:
            self.upper = np.ones(alpha.size)
        if want_lower:
            self.intervals = _interval_bounds(self.s, t, low, up, nodes.inf_low, alpha)
            self.lower = np.minimum(np.maximum(self.intervals.min(axis=1), alpha), 1.0)
        else:
            self.intervals = np.empty((alpha.size, 0))  # the upper side reads no interval bound
            self.lower = alpha.copy()

    def subset(self, keep: np.ndarray) -> _Bounds:
        """The same bounds for the alphas ``keep`` selects (where the next refinement looks)."""
        out = object.__new__(_Bounds)
        out.s, out.want_lower = self.s, self.want_lower
        for name in ("alpha", "reference", "best_node", "upper", "lower", "intervals"):
            setattr(out, name, getattr(self, name)[keep])
        return out

    def end_may_hold_minimum(self) -> np.ndarray:
        """Per alpha, whether the minimum may lie beyond the reach: at t -> 0 or t -> inf (alpha = 0
        has its minimum at inf, where the mass at +infinity is read directly; a power of 1 is
        settled)."""
        last = self.s.size - 1
        open_ = self.reference < 1.0
        by_node = (self.best_node == 0) | ((self.best_node == last) & (self.alpha > 0.0))
        if self.want_lower:
            by_node |= (self.intervals[:, 0] < self.reference) | (
                (self.intervals[:, -1] < self.reference) & (self.alpha > 0.0)
            )
        return cast(np.ndarray, open_ & by_node)

    def may_hold_minimum(self) -> np.ndarray:
        """Per finite interval, whether the minimum may lie in it for some alpha: its lower bound
        below the reference, or next to the node attaining the reference."""
        marked = np.zeros(self.s.size - 1, dtype=bool)
        if self.want_lower:
            marked |= (self.intervals[:, 1:-1] < self.reference[:, None]).any(axis=0)
        for k in (self.best_node - 1, self.best_node):
            marked[np.clip(k, 0, self.s.size - 2)] = True
        return cast(np.ndarray, marked)


def _interval_bounds(
    s: np.ndarray, t: np.ndarray, low: np.ndarray, up: np.ndarray, inf_low: float, alpha: np.ndarray
) -> np.ndarray:
    """Per alpha (rows) and interval (columns: [0, t_0], the n - 1 finite ones, [t_last, inf)), a
    certified lower bound on min over the interval of D(t) + alpha t (the module docstring's three
    minorants)."""
    n = s.size
    d = np.diff(s)
    grow = np.expm1(d)  # (t_k+1 - t_k) / t_k
    # rho_k = (t_k+1 - t_k) / (t_k - t_k-1) for k = 0..n-2; k = 0's left neighbour is t = 0 (D = 1
    # exactly)
    rho = np.empty(n - 1)
    rho[0] = grow[0]
    rho[1:] = np.exp(d[:-1]) * grow[1:] / grow[:-1]
    up_left = np.concatenate([[1.0], up[:-2]])  # up_k-1, k = 0..n-2 (D(0) = 1)
    lo_k, lo_next = low[:-1], low[1:]
    # (b) the left chord at t_k (lo_k) and t_k+1
    left_end = lo_k - rho * (up_left - lo_k)
    left_mag = np.abs(lo_k) + rho * (np.abs(up_left) + np.abs(lo_k))
    # (c) the right chord at t_k and t_k+1 (lo_k+1); none on the last finite interval
    right_start = np.full(n - 1, -np.inf)
    right_mag = np.zeros(n - 1)
    right_start[:-1] = lo_next[:-1] + (lo_next[:-1] - up[2:]) / rho[1:]
    right_mag[:-1] = np.abs(lo_next[:-1]) + (np.abs(lo_next[:-1]) + np.abs(up[2:])) / rho[1:]
    # affine minorants of D on each interval, by their values at its two ends (without alpha t)
    starts = np.stack([lo_next, lo_k, right_start])  # (a) monotone, (b) left chord, (c) right chord
    ends = np.stack([lo_next, left_end, lo_next])
    magnitude = np.maximum.reduce([np.abs(lo_next), left_mag, right_mag])
    out = np.empty((alpha.size, n + 1))
    rows = max(1, _CHUNK // (3 * n))
    for a in range(0, alpha.size, rows):
        al = alpha[a : a + rows, None]
        with np.errstate(invalid="ignore", over="ignore"):
            at_start = starts[:, None, :] + al[None] * t[None, None, :-1]
            at_end = ends[:, None, :] + al[None] * t[None, None, 1:]
        best = np.minimum(at_start, at_end).max(axis=0)  # one minorant: its least end value
        with np.errstate(invalid="ignore"):
            falls = at_start - at_end
            rises = at_end - at_start
            falling = (falls > 0) & np.isfinite(falls)
            rising = (rises > 0) & np.isfinite(rises)
        for i in range(3):
            for j in range(3):
                if i == j:  # a minorant's rise is its fall negated exactly: never both positive
                    continue
                # minorant i falls, j rises: the mean weighting i by lam is flat, its value a lower
                # bound (computed where they cross only)
                crossing = falling[i] & rising[j]
                if not crossing.any():
                    continue
                fall, rise = falls[i][crossing], rises[j][crossing]
                lam = rise / (fall + rise)
                mean = np.minimum(
                    lam * at_start[i][crossing] + (1.0 - lam) * at_start[j][crossing],
                    lam * at_end[i][crossing] + (1.0 - lam) * at_end[j][crossing],
                )
                best[crossing] = np.maximum(best[crossing], mean)
        scale = magnitude[None, :] + al * t[None, 1:]
        out[a : a + rows, 1:n] = best - 32 * _U * scale
    out[:, 0] = low[0] * (1.0 - 4 * _U)  # [0, t_0]: D >= D(t_0), alpha t >= 0
    out[:, n] = (inf_low + alpha * t[-1]) * (
        1.0 - 4 * _U
    )  # [t_last, inf): D >= D(inf), alpha t >= alpha t_last
    return out
