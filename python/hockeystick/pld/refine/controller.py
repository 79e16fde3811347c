"""The refinement loop every ``accuracy=`` front end drives: per point, a bracket on its grid, intersected with the
brackets of its earlier grids, until the front end's rules ask no finer grid.

Every grid's bracket is certified, so a point keeps the intersection of the brackets of all its grids (the
largest lower side, the smallest upper side): a finer grid is not always tighter (at a small delta the round-off
charge of the larger window dominates).  What a front end computes on a grid, how it measures a bracket's width and
which grid it asks next are its own (``FrontEnd``): the many points of ``SubsampledGaussianPLD`` and its kin, each
on its own grid ladder (``points.PointsRefinement``), and the one composition of a plan (``plan_refinement``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from .grid_rules import Before

# one point's bracket on one grid: (point, h, lower, upper, what the front end's rules read besides)
Step = tuple[int, float, Any, Any, Any]


class FrontEnd(Protocol):
    """What a front end tells the loop (``refine``): the first grids, the brackets on a step's grids, the
    intersection of two brackets, a bracket's width, the next grid (None: done), and the record of a grid a point
    moves on from."""

    def first(self) -> dict[int, float]:
        """The first grid of each point to refine."""
        ...

    def brackets(self, grids: dict[int, float], best: dict[int, Before]) -> Iterable[Step]:
        """Each point's bracket on its grid ``grids[i]`` (``best``: the records of the grids before)."""
        ...

    def intersect(self, lo: Any, up: Any, before: Before) -> tuple[Any, Any]:
        """The intersection of a bracket with the one recorded on an earlier grid."""
        ...

    def width(self, i: int, lo: Any, up: Any) -> Any:
        """The width of point i's bracket in the units of its accuracy."""
        ...

    def next_grid(self, step: Step, width: Any, before: Before | None) -> float | None:
        """The next grid of a point (None: its bracket stands)."""
        ...

    def record(self, h: float, lo: Any, up: Any, width: Any) -> Before:
        """What the rules read of a grid a point moves on from."""
        ...

    def done(self, i: int, lo: Any, up: Any) -> None:
        """Point i's bracket stands."""
        ...


def refine(front: FrontEnd) -> None:
    """Runs the refinement of ``front``'s points (module docstring): each step computes the brackets of every
    point still refining on its grid, intersects each with the brackets of the point's earlier grids, and asks the
    front end for the next grid; a point is done when it asks none."""
    grids = front.first()
    best: dict[int, Before] = {}
    while grids:
        finer: dict[int, float] = {}
        for step in front.brackets(grids, best):
            i, h, lo, up, _ = step
            before = best.get(i)
            if before is not None:  # both grids' brackets hold: keep their intersection
                lo, up = front.intersect(lo, up, before)
                step = (i, h, lo, up, step[4])
            width = front.width(i, lo, up)
            nxt = front.next_grid(step, width, before)
            if nxt is None:
                front.done(i, lo, up)
            else:
                best[i] = front.record(h, lo, up, width)
                finer[i] = nxt
        grids = finer
