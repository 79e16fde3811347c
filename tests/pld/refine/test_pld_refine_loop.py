"""The refinement loop (cpp/include/hockeystick/pld/refine/refinement_loop.hpp) driven from Python
(``controller.refine``): a front end's methods called as its contract says, brackets intersected with the record of
the grid before, and the front end's errors passed through."""

from __future__ import annotations

from typing import Any

import pytest

from hockeystick.pld.refine.controller import refine


class Toy:
    """Two points halving their grids from 1 and 0.5 until below 0.2; point 1's bracket on its second grid is wider
    on the lower side than on its first (a finer grid is not always tighter), so the loop must keep the first's."""

    def __init__(self, fail_at: float | None = None):
        self.fail_at = fail_at
        self.seen_best: list[dict[int, Any]] = []
        self.befores: list[tuple[int, Any]] = []
        self.finished: dict[int, tuple[float, float]] = {}

    def first(self) -> dict[int, float]:
        return {0: 1.0, 1: 0.5}

    def brackets(self, grids: dict[int, float], best: dict[int, Any]):
        self.seen_best.append(dict(best))
        for i, h in sorted(grids.items()):
            if self.fail_at is not None and h < self.fail_at:
                raise ValueError(f"no bracket on grid {h}")
            lower = 1.0 - (3.0 * h if (i == 1 and h == 0.25) else h)
            yield i, h, lower, 1.0 + h, f"extra {i}"

    def intersect(self, lo: float, up: float, before: Any) -> tuple[float, float]:
        return max(lo, before[1]), min(up, before[2])

    def width(self, i: int, lo: float, up: float) -> float:
        return up - lo

    def next_grid(self, step: tuple, width: float, before: Any) -> float | None:
        i, h, _, _, extra = step
        assert extra == f"extra {i}"
        self.befores.append((i, None if before is None else before[0]))
        return h / 2 if h / 2 >= 0.2 else None

    def record(self, h: float, lo: float, up: float, width: float) -> Any:
        return (h, lo, up, width)

    def done(self, i: int, lo: float, up: float) -> None:
        self.finished[i] = (lo, up)


def test_the_loop_keeps_the_intersection_and_hands_each_point_its_record():
    toy = Toy()
    refine(toy)
    # point 0: grids 1, 0.5, 0.25 (done there); point 1: grids 0.5, 0.25 (done there)
    assert toy.befores == [(0, None), (1, None), (0, 1.0), (1, 0.5), (0, 0.5)]
    assert toy.seen_best[0] == {}
    assert set(toy.seen_best[1]) == {0, 1} and toy.seen_best[1][0][0] == 1.0
    assert toy.finished[0] == (0.75, 1.25)
    # point 1's second grid reads [0.25, 1.25]; its first grid's [0.5, 1.5] holds too: the intersection stands
    assert toy.finished[1] == (0.5, 1.25)


def test_a_front_ends_error_passes_through_the_loop():
    with pytest.raises(ValueError, match="no bracket on grid 0.25"):
        refine(Toy(fail_at=0.3))
