"""``tilted_question.LowerWindows``: the optimistic windows of the fine delta read held by direction and key
(grid, tails, tilt) from call to call, a window asked again given back without composing it, and within the
budget: before a window is composed, the least recently used are forgotten until those held fit."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from hockeystick.pld.refine.tilted_question import LowerWindows


def window(points: int) -> Any:
    return SimpleNamespace(window=SimpleNamespace(p=np.zeros(points)))


def held() -> Any:
    raise AssertionError("composed again: the window was not held")


def test_windows_are_held_by_key_and_the_least_recently_used_forgotten_first() -> None:
    windows = LowerWindows(10)
    key = (1e-3, 1e-6, 1.0)
    a = windows.window("remove", key, lambda: window(6))
    assert windows.window("remove", key, held) is a
    b = windows.window("remove", (1e-3, 1e-6, 2.0), lambda: window(4))  # 6 held: both kept
    assert windows.window("remove", key, held) is a  # a now the most recently used
    c = windows.window("add", key, lambda: window(5))  # 10 held, within the budget: none forgotten
    assert windows.window("remove", (1e-3, 1e-6, 2.0), held) is b
    assert windows.window("add", key, held) is c
    # 15 held before the next is composed: the least recently used (a, then b) forgotten to fit
    windows.window("add", (1e-3, 1e-6, 3.0), lambda: window(1))
    assert windows.window("add", key, held) is c
    with pytest.raises(AssertionError, match="composed again"):
        windows.window("remove", key, held)
    windows.keep(0)
    with pytest.raises(AssertionError, match="composed again"):
        windows.window("add", key, held)
