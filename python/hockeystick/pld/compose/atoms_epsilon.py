"""epsilon(delta) on one certified side: a root search on any non-increasing side curve
(``epsilon_search``), and the exact roots of atoms alone, interval by interval between their losses
(``pure_epsilon``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ... import _core
from ..grid import atoms
from ..grid.atoms import Atoms, _side
from .atoms_delta import _lean_delta, delta

_ONE_PASS_POINTS = (
    64  # pure_epsilon evaluates up to this many loss points at once instead of bisecting
)


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
    call, and the search starts from the narrowest bracket they give; without hints,
    ``first_pass`` evenly spaced points play their part (worth it where one call's cost is mostly
    overhead: few atoms).  ``cluster`` > 0 evaluates, in the same call as each false position x
    (aimed by inverse cubic interpolation), points around x and ``cluster`` points spread evenly
    over the bracket, so that one call usually lands the answer within the tolerance; the first
    call puts such a cluster around every hint.  The search runs in the core
    (``_core.pld_reads.epsilon_search``, cpp/include/hockeystick/pld/reads/epsilon_root_search.hpp),
    calling ``delta_of`` with a 1-d float64 array of eps at each step.

    Parameters
    ----------
    delta_of : callable
        The certified side: a 1-d float64 array of eps to delta at each (the same length, no NaN).
    target : float
        The delta asked for (> 0 unless the ends settle the answer).
    upper : bool
        Whether ``delta_of`` is the upper side (the answer an upper bound on epsilon) or the lower.
    top : float
        A finite point >= 0 above every finite loss (delta is constant beyond it).
    tolerance : float
        The final bracket's width (>= 0; at least 4 ulps of its upper end).
    hints : sequence of float, optional
        Points expected near the answer.
    first_pass : int, optional
        Evenly spaced points evaluated with the ends where there are no hints.
    cluster : int, optional
        Points evenly over the bracket evaluated with each step's aim (0: one point a step).

    Returns
    -------
    float
        Upper side: an eps with delta_of(eps) <= target (0 where eps = 0 qualifies, inf where
        ``top`` does not); lower side: an eps with delta_of(eps) > target (``top`` where ``top``
        still exceeds the target).

    Raises
    ------
    ValueError
        Where ``delta_of`` returns NaN or a wrong number of values, ``top`` is not finite and >= 0,
        ``tolerance`` is not >= 0, or ``target`` is not > 0 with the ends unsettled.
    """
    return float(
        _core.pld_reads.epsilon_search(
            delta_of,
            float(target),
            upper=bool(upper),
            top=float(top),
            tolerance=float(tolerance),
            hints=[float(h) for h in hints],
            first_pass=int(first_pass),
            cluster=int(cluster),
        )
    )


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
