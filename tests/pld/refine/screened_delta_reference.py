"""The screened delta step over the package's one-round factors (``delta_sides``): the core's
``screened_delta_step`` (cpp/include/hockeystick/pld/refine/screened_step.hpp) given the factors the
package's round cache discretizes (``dominated_direction._one_round``), the tails
``dominated_direction._shared_tails`` sizes and the add direction on demand.  The package's
many-points loop reads its steps in the core (pld/refine/points_delta_source.hpp, over factors the
core discretizes); the tests read the step through this reference, which states the screen's
contract (dominated_direction's module docstring) over factors they can build, patch and inspect."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from hockeystick import _core
from hockeystick.pld.compose.fft import DEFAULT_MAX_POINTS
from hockeystick.pld.grid.distribution import PrivacyLossDistribution, _side_terms, _with_every_side
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.refine import dominated_direction

Point = tuple[float, float, float, float]  # sigma, sampling rate (< 1), rounds, sensitivity


def fine_add_rounds(
    points: Sequence[Point],
    hs: Sequence[float],
    rest: list[int],
    tail: float,
    threads: int,
    windows: Sequence[float],
) -> list[PrivacyLossDistribution]:
    """The add direction of the points ``rest`` (whose screen did not clear) on their fine grids, both sides,
    composed ``rounds`` times at their windows' tails (``_one_round``)."""
    return dominated_direction._one_round(
        [points[i] for i in rest],
        [hs[i] for i in rest],
        tail,
        "add",
        True,
        threads=threads,
        windows=[windows[i] for i in rest],
    )


# a point's delta bracket on its grid (lower, upper, the fixed part's two rows, the add direction's upper side) and
# what decided its sides (whether the screen cleared it, whether it settled, whether the add direction's optimistic
# side was composed)
ScreenedBracket = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[bool, bool, bool]]
# one direction's (PMF, count) terms on its pessimistic side, then on its optimistic side
Terms = list[tuple[GridPMF, int]]


def sides(pld: PrivacyLossDistribution) -> tuple[Terms, Terms]:
    """A one-direction PLD's (PMF, count) terms on both sides (``compose_all``'s items)."""
    direction = pld.directions[0]
    return (
        _with_every_side([_side_terms(direction, True)])[0],
        _with_every_side([_side_terms(direction, False)])[0],
    )


def delta_sides(
    points: Sequence[Point],
    hs: Sequence[float],
    xs: Sequence[np.ndarray],
    tail: float,
    rules: _core.pld_refine.PointsRules,
    own: Sequence[int],
    before: Sequence[tuple[np.ndarray, np.ndarray] | None],
    threads: int = 0,
    direct_bins: bool = False,
    floor: float = 0.0,
    settled: float = 0.0,
    accuracy: float | None = None,
    direct_min_charge: float | None = None,
) -> list[ScreenedBracket]:
    """Per point (sampling rate below 1) on its grid ``hs[i]``, the two-direction PLD's delta bracket at ``xs[i]``
    (``own[i]`` of them its own, ``before[i]`` its record of earlier grids, under the step's ``rules``: the
    refinement's screened step, points_delta_source.hpp), its add direction screened; ``direct_bins`` and ``direct_min_charge`` as
    ``compose_all``'s, ``threads`` the OpenMP threads of the C++ calls (0: all cores).

    The add direction is screened first (module docstring): where its coarse upper bound is at or below the remove
    direction's lower values, or below ``floor``, at every argument, the point's directions are the remove one and
    the screen (an upper side only: the bracket's upper side is the larger of the two); elsewhere the add direction
    is discretized and composed on the fine grid, and its optimistic side where its upper values are not all at or
    below the remove direction's lower ones.  A point whose upper side (the larger of the remove direction's and the
    screen's) is below ``settled`` at every argument gets no lower side at all (its lower bound is 0): the caller asks
    no more of it there.  Given the ``accuracy`` the caller refines for, the truncations are sized to ``settled``
    (``truncation.tails``: a delta below it needs no resolving, so each truncation's charge stays within 0.05
    accuracy x ``settled``); the remove direction's one-round tail is the least over the points of its (sigma, q,
    sensitivity) in the call, so that one discretization still serves every rounds value of the pair (a tail per
    rounds value would split it into one discretization per rounds value, costing more than the shorter windows
    save).

    The one-round factors are discretized here (``round_cache``); every composition, read, decision and the bracket
    are the core's, in one call without the interpreter lock (``_core.pld_refine.screened_delta_step``,
    cpp/include/hockeystick/pld/refine/screened_step.hpp), which takes it again only to ask for the add direction's
    factors of the points whose screen did not clear.  Each bracket comes with its decisions (cleared, settled,
    add_lower)."""
    rounds_tails, windows = dominated_direction._shared_tails(points, settled, tail, accuracy)
    removes = dominated_direction._one_round(
        points, hs, rounds_tails, "remove", True, threads=threads, windows=windows
    )
    screens = dominated_direction._one_round(
        points, hs, tail, "add", False, dominated_direction.COARSENING, threads, windows
    )

    def add_direction(rest: list[int]) -> list[tuple[Terms, Terms]]:
        return [sides(add) for add in fine_add_rounds(points, hs, rest, tail, threads, windows)]

    return cast(
        list[ScreenedBracket],
        _core.pld_refine.screened_delta_step(
            rules=rules,
            xs=list(xs),
            own=list(own),
            before=list(before),
            windows=windows,
            removes=[sides(remove) for remove in removes],
            screens=[_side_terms(screen.directions[0], True) for screen in screens],
            add_direction=add_direction,
            floor=floor,
            settled=settled,
            direct_bins=direct_bins,
            direct_min_charge=float(
                _core.pld_compose.direct_min_charge
                if direct_min_charge is None
                else direct_min_charge
            ),
            workers=threads or None,
            max_points=DEFAULT_MAX_POINTS,
        ),
    )
