"""epsilon(delta) on one certified side: a root search on any non-increasing side curve
(``epsilon_search``), and the exact roots of atoms alone, interval by interval between their losses
(``pure_epsilon``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from ..grid import atoms
from ..grid.atoms import Atoms, _side
from .atoms_delta import _lean_delta, delta

_ONE_PASS_POINTS = (
    64  # pure_epsilon evaluates up to this many loss points at once instead of bisecting
)
INNER = 0.45  # a search's cluster puts points at x +- INNER tolerance r^i, r >= 2: neighbours < tolerance apart


def epsilon_search(
    delta_of: Callable[[np.ndarray], np.ndarray],
    target: float,
    upper: bool,
    top: float,
    tolerance: float,
    hints: Sequence[float] = (),
    first_pass: int = 0,
    cluster: int = 0,
) -> float:
    """A certified epsilon from a certified side of delta(eps), by a bracketing root search.

    Keeps lo with delta(lo) > target and hi with delta(hi) <= target, both evaluated: on the upper
    side the true epsilon is at most hi (delta_up(hi) <= target; inf if even ``top``, above every
    finite loss, fails); on the lower side at least lo (the true delta exceeds the target there).
    Neither needs the computed side to be monotone.  The next point is the Illinois false position
    on log delta (nearly linear in eps), with a bisection whenever two steps have not halved the
    interval, until it is no wider than ``tolerance``.  ``hints`` (points expected near the answer:
    a coarser grid's bracket, the other side's epsilon) are evaluated with the two ends, in one
    call, and the search starts from the narrowest bracket they give (any evaluated pair qualifies);
    without hints, ``first_pass`` evenly spaced points play their part (worth it where one call's
    cost is mostly overhead: few atoms).  ``cluster`` > 0 evaluates, in the same call as each false
    position x, the points x +- ``INNER`` tolerance r^i (i < ``cluster`` / 2, r >= 2 reaching the
    even spacing below) inside the bracket: where a call costs mostly overhead, one call then
    usually lands the answer within the tolerance (the false position on the nearly linear log delta
    is that close), instead of one call per step; ``cluster`` more points spread evenly over the
    bracket shrink it at least cluster + 1 times a call where the false position is off; the first
    call puts such a cluster around every hint.
    """
    # the distinct points in increasing order (a sorted set: numpy's unique imports numpy.ma, which
    # a first answer need not load)
    points = np.array(
        sorted(
            {
                0.0,
                float(top),
                *(x for x in _guesses(hints, first_pass, cluster, top, tolerance) if 0.0 < x < top),
            }
        ),
        dtype=np.float64,
    )
    values = np.asarray(delta_of(points), dtype=np.float64)
    settled = _settled_end(points, values, target, upper)
    if settled is not None:
        return settled
    first = int(
        np.argmax(values <= target)
    )  # >= 1: the first evaluated point at or below the target
    log_target = math.log(target)
    b = _Bracket(
        float(points[first - 1]),
        float(points[first]),
        _log_gap(float(values[first - 1]), log_target),
        _log_gap(float(values[first]), log_target),
    )
    width_before = b.hi - b.lo
    steps = 0
    # cluster mode: the evaluated points beside the bracket, for the inverse cubic interpolation
    seen_x, seen_v = (points, values) if cluster > 0 else (np.empty(0), np.empty(0))
    while b.hi - b.lo > max(
        tolerance, 4.0 * math.ulp(b.hi)
    ):  # an answer near 1e10 has a spacing above tolerance
        steps += 1
        x = b.false_position()
        if cluster > 0 and steps % 3 != 0:
            x = _inverse_cubic(seen_x, seen_v, b.lo, b.hi, log_target, x)
        if steps % 3 == 0:  # a bisection whenever two steps have not halved the interval
            if b.hi - b.lo > 0.5 * width_before:
                x = 0.5 * (b.lo + b.hi)
            width_before = b.hi - b.lo
        margin = 0.25 * tolerance
        x = min(max(x, b.lo + margin), b.hi - margin)
        if cluster > 0:
            trial = _cluster_points(b.lo, b.hi, x, cluster, tolerance)
            tried_v = np.asarray(delta_of(trial), dtype=np.float64)
            seen_x, seen_v = np.concatenate([seen_x, trial]), np.concatenate([seen_v, tried_v])
            b.narrow_to(trial, tried_v.tolist(), target, log_target)
            continue
        value = float(delta_of(np.array([x]))[0])
        gx = _log_gap(value, log_target)
        if (
            value > target
        ):  # the side from the value itself: the gap is floored (a target below 1e-300)
            b.move((x, gx), None)
        else:
            b.move(None, (x, gx))
    return b.hi if upper else b.lo


def _log_gap(value: float, log_target: float) -> float:
    """g = log delta - log target (delta floored at 1e-300): nearly linear in eps, where the false position aims."""
    return math.log(max(value, 1e-300)) - log_target


def _spread(half: int, reach: float, tolerance: float) -> np.ndarray:
    """INNER tolerance r^i, i < half, with r >= 2 reaching ``reach`` at i = half - 1."""
    ratio = max(2.0, (reach / (INNER * tolerance)) ** (1.0 / max(half - 1, 1)))
    return cast(np.ndarray, INNER * tolerance * ratio ** np.arange(half))


def _guesses(
    hints: Sequence[float], first_pass: int, cluster: int, top: float, tolerance: float
) -> list[float]:
    """The points ``epsilon_search`` evaluates with the two ends: the hints, each with a cluster
    around it reaching the others (the answer is near one) where ``cluster`` > 0; without hints,
    ``first_pass`` evenly spaced points."""
    if not hints:
        return cast("list[float]", np.linspace(0.0, float(top), first_pass + 2)[1:-1].tolist())
    if cluster <= 0:
        return list(hints)
    spread = _spread(max(cluster // 2, 1), max(max(hints) - min(hints), 2.0 * tolerance), tolerance)
    centres = np.asarray(hints, dtype=np.float64)[:, None]
    around = np.concatenate([centres + np.concatenate([-spread, spread])[None, :], centres], axis=1)
    return around.ravel().tolist()


def _settled_end(
    points: np.ndarray, values: np.ndarray, target: float, upper: bool
) -> float | None:
    """The answer where the evaluated ends settle it: inf (upper side above the target even at
    ``top``), 0 (at or below the target at eps = 0), ``top`` (lower side above the target there);
    None otherwise."""
    if upper and values[-1] > target:
        return math.inf
    if values[0] <= target:
        return 0.0
    if not upper and values[-1] > target:
        return float(points[-1])
    return None


def _cluster_points(lo: float, hi: float, x: float, cluster: int, tolerance: float) -> np.ndarray:
    """``cluster`` points evenly over (lo, hi) (the bracket shrinks at least cluster + 1 times) and
    x +- INNER tolerance r^i, i < cluster / 2, r >= 2 reaching the even spacing: those inside (lo,
    hi), sorted."""
    even = lo + (hi - lo) * np.arange(1, cluster + 1) / (cluster + 1)
    spread = _spread(max(cluster // 2, 1), (hi - lo) / (cluster + 1), tolerance)
    around = np.sort(np.concatenate([even, x - spread, [x], x + spread]))
    return around[(around > lo) & (around < hi)]


class _Bracket:
    """lo with delta(lo) > target and hi with delta(hi) <= target, both evaluated, with g
    (``_log_gap``) at each; ``kept`` is -1 where the last step moved lo only, +1 where it moved hi
    only, 0 otherwise (Illinois: a side moved twice in a row halves the other side's g)."""

    __slots__ = ("g_hi", "g_lo", "hi", "kept", "lo")

    def __init__(self, lo: float, hi: float, g_lo: float, g_hi: float):
        self.lo, self.hi, self.g_lo, self.g_hi = lo, hi, g_lo, g_hi
        self.kept = 0

    def false_position(self) -> float:
        """The false position of g = 0 on (lo, hi); the midpoint where g does not fall across it."""
        lo, hi, g_lo, g_hi = self.lo, self.hi, self.g_lo, self.g_hi
        return hi - g_hi * (hi - lo) / (g_hi - g_lo) if g_hi < g_lo else 0.5 * (lo + hi)

    def move(self, lo: tuple[float, float] | None, hi: tuple[float, float] | None) -> None:
        """Moves lo and/or hi (each a point and its g), then the Illinois halving."""
        if lo is not None:
            self.lo, self.g_lo = lo
        if hi is not None:
            self.hi, self.g_hi = hi
        if lo is not None and hi is not None:
            self.kept = 0
        elif lo is not None:
            self.g_hi, self.kept = (0.5 * self.g_hi if self.kept == -1 else self.g_hi), -1
        else:
            self.g_lo, self.kept = (0.5 * self.g_lo if self.kept == 1 else self.g_lo), 1

    def narrow_to(
        self, trial: np.ndarray, tried: list[float], target: float, log_target: float
    ) -> None:
        """Moves the ends to the sorted trial points either side of the first one at or below the target."""
        at_or_below = [i for i, v in enumerate(tried) if v <= target]
        first = at_or_below[0] if at_or_below else trial.size  # the first trial point at or below
        self.move(
            (float(trial[first - 1]), _log_gap(tried[first - 1], log_target))
            if first > 0
            else None,
            (float(trial[first]), _log_gap(tried[first], log_target))
            if first < trial.size
            else None,
        )


def _inverse_cubic(
    xs: np.ndarray, values: np.ndarray, lo: float, hi: float, log_target: float, fallback: float
) -> float:
    """Where log delta crosses the target, by inverse interpolation (x as a cubic in log delta - log
    target) through lo, hi and the nearest evaluated points beyond each (fewer where there is none);
    ``fallback`` (the false position) where the points are not strictly decreasing in delta or the
    estimate leaves (lo, hi).  Only where the search looks next: every answer is evaluated."""
    left = np.flatnonzero((xs <= lo) & (values > 0.0))
    right = np.flatnonzero((xs >= hi) & (values > 0.0))
    if left.size == 0 or right.size == 0:
        return fallback
    take_left = left[np.argsort(xs[left])[-2:]]
    take_right = right[np.argsort(xs[right])[:2]]
    px = np.concatenate([xs[take_left], xs[take_right]])
    pg = np.log(np.concatenate([values[take_left], values[take_right]])) - log_target
    if px.size < 3 or not (np.all(np.diff(px) > 0.0) and np.all(np.diff(pg) < 0.0)):
        return fallback
    estimate = 0.0
    for i in range(px.size):  # Lagrange form at g = 0
        weight = 1.0
        for j in range(px.size):
            if j != i:
                weight *= pg[j] / (pg[j] - pg[i])
        estimate += float(px[i]) * weight
    return estimate if lo < estimate < hi else fallback


def _crossing_guess(a: Atoms, points: list[float], target: float, shift: float) -> int | None:
    """The first point index i with delta(points[i]) <= target < delta(points[i - 1]) (points[-1]
    read as eps = 0), from suffix sums (S - e^eps T at every point + ``shift`` in one pass: an
    estimate, not certified); None if delta(0) <= target or delta(points[-1]) > target by the
    estimate."""
    loss, mass = a.loss_list, a.mass_list
    s, t = (
        a.p_inf,
        0.0,
    )  # t = e^eps sum_{l_j > eps} p_j e^{-l_j}, rescaled as eps falls (no e^eps: no overflow)
    j = len(loss)
    values = []
    previous = math.inf
    for x in reversed([0.0] + points):
        e = x + shift
        if previous < math.inf:
            t *= math.exp(e - previous)
        previous = e
        while j > 0 and loss[j - 1] > e:
            j -= 1
            s += mass[j]
            t += mass[j] * math.exp(e - loss[j])
        values.append(s - t)
    values.reverse()  # values[0] at eps = 0, values[i + 1] at points[i]
    if values[0] <= target or values[-1] > target:
        return None
    return next(i for i in range(len(points)) if values[i + 1] <= target)


def _interval_root(
    a: Atoms, left: float, right: float, target: float, upper: bool, lean: bool
) -> float:
    """On [left, right] (no loss strictly between), delta(eps) = S - e^eps T with S = p_inf +
    sum_{l_j >= right} p_j and T = sum_{l_j >= right} p_j e^{-l_j}: its root log((S - target) / T)
    (at the side's shifted eps; the shifted left end where S <= target, as where the target is the
    mass at +infinity itself), moved outward by 1e-12 relative and clamped to the interval.  T is
    summed as e^-right sum p_j e^{right - l_j} (each term at most p_j: no overflow or underflow of
    e^{-l} at losses beyond 700)."""
    if lean:
        active = [(x, m) for x, m in zip(a.loss_list, a.mass_list) if x >= right]
        s = a.p_inf + sum(m for _, m in active)
        t = sum(m * math.exp(right - x) for x, m in active)
    else:
        on = a.loss >= right
        s = a.p_inf + float(a.mass[on].sum())
        t = float((a.mass[on] * np.exp(right - a.loss[on])).sum())
    shift = -a.loss_error if upper else a.loss_error
    if s > target and t > 0:
        guess = right + math.log((s - target) / t) - shift
    else:  # S <= target: delta is at most target as soon as the atom at left is passed (S > target, T = 0: never)
        guess = left - shift if s <= target else right
    step = 1e-12 * max(abs(guess), 1.0)
    return min(max(guess + (step if upper else -step), left), right)


def pure_epsilon(a: Atoms, target: float, upper: bool) -> float:
    """The certified epsilon of the atoms alone: exact on the interval between two losses.

    For at most ``atoms.LEAN_ATOMS`` atoms (each evaluation in plain floats), suffix sums estimate
    delta at every positive loss in one pass; on the estimated interval the root
    (``_interval_root``) is accepted if the certified side confirms it (upper: delta_up(root) <=
    target, and delta_up at the interval's left end > target, so no earlier crossing was missed;
    lower: delta_lo(root) > target, and delta_lo at the right end <= target, so no later one).
    Otherwise a bisection over the positive losses (each delta a direct certified sum; for at most
    ``_ONE_PASS_POINTS`` of them, one evaluation at all of them) finds consecutive points left <
    right with delta(left) > target >= delta(right), whose root is checked against the certified
    side (else the checked end of the interval is reported).
    """
    a = _side(a, upper)
    lean = a.mass.size <= atoms.LEAN_ATOMS
    points = _positive_losses(a)
    crossing = (
        _crossing_guess(a, points, target, -a.loss_error if upper else a.loss_error)
        if lean
        else None
    )
    return _pure_side(a, target, upper, points, crossing)


def pure_epsilon_bracket(a: Atoms, target: float) -> tuple[float, float]:
    """(lower, upper) ``pure_epsilon`` of the atoms, both sides from one crossing estimate (at the
    unshifted losses: the sides' shifts are round-off, so it is almost always both sides' interval;
    where it is not, a side's check fails and that side bisects, as ``pure_epsilon``); each side on
    its own atoms where they differ."""
    if a.lower_of is not None:
        return pure_epsilon(a, target, False), pure_epsilon(a, target, True)
    points = _positive_losses(a)
    crossing = _crossing_guess(a, points, target, 0.0) if a.mass.size <= atoms.LEAN_ATOMS else None
    return _pure_side(a, target, False, points, crossing), _pure_side(
        a, target, True, points, crossing
    )


def _positive_losses(a: Atoms) -> list[float]:
    """The positive losses, then a point beyond every loss (delta is constant there)."""
    loss = a.loss_list
    return [x for x in loss if x > 0.0] + [(loss[-1] if loss else 0.0) + 2.0 * a.loss_error + 1.0]


def _pure_side(
    a: Atoms, target: float, upper: bool, points: list[float], crossing: int | None
) -> float:
    """``pure_epsilon``'s search on one side, from the points and (if any) the estimated crossing."""
    lean = a.mass.size <= atoms.LEAN_ATOMS

    def at(x: float) -> float:
        return _lean_delta(a, x, upper) if lean else float(delta(a, np.array([x]), upper)[0])

    if crossing is not None:
        root = _confirmed_crossing(a, target, upper, points, crossing, at, lean)
        if root is not None:
            return root
    if (
        not lean and len(points) <= _ONE_PASS_POINTS
    ):  # few points (a lone pair): all in one evaluation
        found = _crossing_in_one_pass(a, target, upper, points)
    else:
        found = _crossing_by_bisection(at, target, points)
    if not isinstance(found, tuple):
        return found
    lo, hi = found
    left = points[lo] if lo >= 0 else 0.0
    right = points[hi]
    candidate = _interval_root(a, left, right, target, upper, lean)
    if upper:
        return candidate if at(candidate) <= target else right
    return candidate if at(candidate) > target else left


def _confirmed_crossing(
    a: Atoms,
    target: float,
    upper: bool,
    points: list[float],
    crossing: int,
    at: Callable[[float], float],
    lean: bool,
) -> float | None:
    """The root on the estimated crossing's interval where the certified side confirms it (upper:
    delta above the target at the interval's left end and at most the target at the root; lower: at
    most the target at the right end and above it at the root); None otherwise."""
    left, right = points[crossing - 1] if crossing > 0 else 0.0, points[crossing]
    if (at(left) > target) if upper else (at(right) <= target):
        root = _interval_root(a, left, right, target, upper, lean)
        if (at(root) <= target) if upper else (at(root) > target):
            return root
    return None


def _crossing_in_one_pass(
    a: Atoms, target: float, upper: bool, points: list[float]
) -> float | tuple[int, int]:
    """(lo, hi), consecutive point indices (lo = -1: eps = 0) with delta(points[lo]) > target >=
    delta(points[hi]), from one evaluation at every point; the answer itself (0 or inf) where the
    ends settle it."""
    values = delta(a, np.array([0.0] + points), upper)
    if values[0] <= target:
        return 0.0
    if values[-1] > target:  # delta >= p_inf > target for every eps
        return math.inf
    hi = int(
        np.argmax(values[1:] <= target)
    )  # the first crossing: values[hi] > target >= values[hi + 1]
    return hi - 1, hi


def _crossing_by_bisection(
    at: Callable[[float], float], target: float, points: list[float]
) -> float | tuple[int, int]:
    """``_crossing_in_one_pass``'s answer by bisection over the points, one evaluation at a time."""
    if at(0.0) <= target:
        return 0.0
    if at(points[-1]) > target:  # delta >= p_inf > target for every eps
        return math.inf
    lo, hi = (
        -1,
        len(points) - 1,
    )  # delta(points[lo]) > target (lo = -1: eps = 0), delta(points[hi]) <= target
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at(points[mid]) > target:
            lo = mid
        else:
            hi = mid
    return lo, hi
