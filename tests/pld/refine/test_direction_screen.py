"""The dominated-direction screen's decisions in the core (cpp/include/hockeystick/pld/refine/direction_screen.hpp,
``_core.pld_refine.screen_clears`` and ``settled_everywhere``) against the numpy formulas they stand for: the screen
clears a point where its upper side is at or below the remove direction's lower side, or below the floor, at every
argument (delta = max of the directions', Zhu, Dong & Wang 2022); a point settles where the larger of its upper sides
is below the settled delta everywhere.  NaN clears and settles nothing, as numpy's comparisons read it, and an empty
point clears and settles (np.all of nothing)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core

NAN = math.nan


def numpy_clears(bound: np.ndarray, lower: np.ndarray | None, floor: float) -> bool:
    return lower is None or bool(np.all((bound <= lower) | (bound < floor)))


def numpy_settled(upper: np.ndarray, screen: np.ndarray | None, settled: float) -> bool:
    return bool(np.all((upper if screen is None else np.maximum(upper, screen)) < settled))


CASES = [
    ([1e-12, 3e-11], [2e-12, 3e-11], 0.0),  # at or below everywhere
    ([1e-12, 4e-11], [2e-12, 3e-11], 0.0),  # above at one argument
    ([1e-12, 4e-11], [2e-12, 3e-11], 1e-10),  # above it there, but below the floor
    ([1e-12, 4e-11], [2e-12, 3e-11], -math.inf),
    ([NAN, 1e-12], [1.0, 1.0], 1.0),  # NaN clears nothing
    ([1e-12], [NAN], 1.0),  # NaN lower side: the floor alone decides
    ([], [], 0.0),
]


@pytest.mark.parametrize(("bound", "lower", "floor"), CASES)
def test_the_screen_clears_as_the_numpy_formula(bound, lower, floor):
    b, low = np.array(bound, dtype=np.float64), np.array(lower, dtype=np.float64)
    got = _core.pld_refine.screen_clears([b, b], [low, None], floor=floor)
    assert got == [numpy_clears(b, low, floor), True]


@pytest.mark.parametrize(
    ("upper", "screen", "settled"),
    [
        ([1e-12, 2e-12], [3e-12, 1e-13], 1e-11),
        ([1e-12, 2e-12], [3e-12, 2e-11], 1e-11),
        ([1e-12, NAN], [3e-12, 1e-13], 1.0),
        ([1e-12, 1e-13], [NAN, 1e-13], 1.0),  # np.maximum propagates the screen's NaN too
        ([1e-11], [1e-12], 1e-11),  # strictly below
        ([], [], 0.0),
    ],
)
def test_settled_everywhere_as_the_numpy_formula(upper, screen, settled):
    up, sc = np.array(upper, dtype=np.float64), np.array(screen, dtype=np.float64)
    assert _core.pld_refine.settled_everywhere([up], [sc], settled=settled) == [
        numpy_settled(up, sc, settled)
    ]
    assert _core.pld_refine.settled_everywhere([up], None, settled=settled) == [
        numpy_settled(up, None, settled)
    ]


def test_a_lower_side_of_another_size_is_refused():
    with pytest.raises(ValueError, match="must hold m values"):
        _core.pld_refine.screen_clears([np.zeros(2)], [np.zeros(3)], floor=0.0)
