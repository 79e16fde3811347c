"""The certified lower side of a plan's delta(eps) beside exact atoms (the maximum over the
neighbouring directions, Zhu, Dong & Wang 2022, Sec. 5), each direction's optimistic composition
built only where that direction can raise it.

For directions d with certified sides lower_d <= delta_d <= upper_d, the lower side is L = max_d
lower_d.  Where the directions read so far give m = max_{d' < d} lower_d' >= upper_d, lower_d <= m
and max(m, lower_d) = m, bit for bit: direction d's optimistic side (one FFT composition of its
grid part) is composed only where upper_d exceeds m at some eps read (``undominated_lower``).  The
upper sides are the pessimistic compositions the plan's upper side reads anyway.

An epsilon search's first call (``atoms_epsilon.epsilon_search``: 0, ``top`` and the points
between, sorted) reads eps = 0, where both directions' true delta is the total variation of the
same pair, so upper_d exceeds the other direction's lower side there, and points near ``top``,
where every lower side is 0 and upper_d its round-off charge.  The search
(cpp/include/hockeystick/pld/reads/epsilon_root_search.hpp) reads that call's values only through
(a) their comparison with the target (where the ends settle the answer, and where the first
bracket lies: the first point after 0 at or below the target, ``first``), (b) the values at the
bracket's ends, points ``first`` - 1 and ``first``, and (c) on its cluster steps, the inverse
interpolation through the two positive-valued points nearest the bracket on each side, from all
points read; every later point lies strictly inside the bracket, whose ends only move inward.  So
where each point of the first call is decided against the target by m and upper_d (m > target, or
max(m, upper_d) <= target), and points ``first`` - 2 to ``first`` and the points from ``first`` up
to the second of positive value are read exactly (m >= upper_d there; the points between known
positive or 0), the search answers the same double from m as from L at the other points
(``first_call_settles``).  m <= L everywhere, so every value read is a certified lower side
either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from ..compose import atoms_delta
from ..grid.atoms import Atoms
from ..grid.distribution import PrivacyLossDistribution, compose_all
from ..mechanisms.mechanism import Spec
from .plan_sides import worst

Curve = Callable[[np.ndarray], np.ndarray]


class SidedProfile(Protocol):
    """What ``side_curve`` reads of a plan's profile (``plan.PlanProfile``, which imports this
    module): its grid mechanisms, its per-direction sides, exact atoms and grid part."""

    _grid: dict[Spec, int]

    def _sides(self, h: float | None, upper: bool, variant: int = 0) -> list[Curve]: ...

    def _atom_directions(self) -> list[Atoms]: ...

    def _pld(self, h: float, variant: int = 0) -> PrivacyLossDistribution: ...


def side_curve(
    profile: SidedProfile, h: float | None, upper: bool, variant: int, target: float | None
) -> Curve:
    """One certified side of ``profile``'s delta(eps) beside its exact atoms (grid h, ``variant``
    of its grid part): the maximum over the directions (``PlanProfile._sides``), the lower side of
    a plan with a grid part read by ``undominated_lower`` on the pessimistic sides of the same
    variant (``target``: the delta of the epsilon search reading it, None for a delta).

    Parameters
    ----------
    profile : SidedProfile
        The plan's profile.
    h : float or None
        The grid (None: nothing on a grid).
    upper : bool
        The side.
    variant : int
        The grid part's variant (``PlanProfile._pld``).
    target : float or None
        As ``undominated_lower``'s.

    Returns
    -------
    callable
        A flat float64 array of eps to the side there.
    """
    if upper or not profile._grid:
        return worst(profile._sides(h, upper, variant))
    assert h is not None
    lower_of = direction_lower(profile._atom_directions(), profile._pld(h, variant))
    return undominated_lower(lower_of, profile._sides(h, True, variant), target)


def direction_lower(atoms: list[Atoms], part: PrivacyLossDistribution) -> Callable[[int], Curve]:
    """Direction d's certified lower side of the atoms beside the grid part
    (``atoms_delta.delta_with`` on the part's optimistic composition of direction d, composed on
    the first call for d alone): the directions are max(len(atoms), len(part.directions)), each
    reading atoms[d % len(atoms)] and the part's direction d % len(part.directions), as
    ``PlanProfile._sides`` pairs them.

    Parameters
    ----------
    atoms : list of Atoms
        The exact atoms per direction.
    part : PrivacyLossDistribution
        The grid part.

    Returns
    -------
    callable
        d to direction d's lower side (a flat float64 array of eps to delta there).
    """

    def lower_of(d: int) -> Curve:
        k = d % len(part.directions)
        compose_all([part], False, [[k]])
        pmf = part._composed[False][k]  # composed just above
        assert pmf is not None
        side = atoms_delta.grid_side(pmf)
        a = atoms[d % len(atoms)]
        return lambda eps: atoms_delta.delta_with(a, side, eps, upper=False)

    return lower_of


def first_call_settles(
    eps: np.ndarray, known: np.ndarray, ceiling: np.ndarray, target: float
) -> bool:
    """Whether an epsilon search's first call answers the same from ``known`` (m, the directions
    read) as from the lower side L (module docstring): L lies in [m, max(m, ``ceiling``)], exact
    where ``ceiling`` <= m.

    Parameters
    ----------
    eps : numpy.ndarray
        The first call's points, sorted (0 first, ``top`` last).
    known : numpy.ndarray
        m at each point.
    ceiling : numpy.ndarray
        The upper sides of the directions not read, their maximum at each point.
    target : float
        The delta asked.

    Returns
    -------
    bool
        True where the search's answer is the same.
    """
    exact = ceiling <= known
    above = known > target
    below = np.maximum(known, ceiling) <= target
    if not np.all(exact | above | below):
        return False
    n = eps.size
    if not above[0] or above[n - 1]:  # settled at 0 or at top: comparisons alone
        return True
    first = 1 + int(np.argmax(below[1:]))  # every point is decided: the first at or below target
    if not np.all(exact[max(first - 2, 0) : first + 1]):
        return False
    positives = 0
    for i in range(first, n):  # up to the second positive-valued point from the bracket's upper end
        if not exact[i]:
            return False
        positives += bool(known[i] > 0.0)
        if positives == 2:
            break
    return True


def undominated_lower(
    lower_of: Callable[[int], Curve], uppers: list[Curve], target: float | None = None
) -> Curve:
    """The lower side max_d lower_d at a flat array of eps, direction d >= 1 read only where its
    upper side exceeds the maximum of those before it (module docstring), and with ``target`` (an
    epsilon search's delta) not on the search's first call where ``first_call_settles``: the
    same double as the maximum over every direction, or the same search answer.

    Parameters
    ----------
    lower_of : callable
        d to direction d's certified lower side (``direction_lower``; called once per direction
        read).
    uppers : list of callable
        Each direction's certified upper side.
    target : float, optional
        The delta of the epsilon search the curve is read by; None: every read exact.

    Returns
    -------
    callable
        A flat float64 array of eps to the lower side there.
    """
    lowers: dict[int, Curve] = {}
    calls = [0]

    def read(d: int) -> Curve:
        if d not in lowers:
            lowers[d] = lower_of(d)
        return lowers[d]

    def curve(eps: np.ndarray) -> np.ndarray:
        first_call = calls[0] == 0
        calls[0] += 1
        value = read(0)(eps)
        unread = {d: uppers[d](eps) for d in range(1, len(uppers)) if d not in lowers}
        if first_call and unread and target is not None:
            ceiling = np.max(list(unread.values()), axis=0)
            if first_call_settles(eps, value, ceiling, target):
                return value
        for d in range(1, len(uppers)):
            if d not in unread or np.any(unread[d] > value):
                value = np.maximum(value, read(d)(eps))
        return value

    return curve
