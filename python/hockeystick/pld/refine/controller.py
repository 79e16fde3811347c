"""The refinement loop a Python ``accuracy=`` front end drives: per point, a bracket on its grid,
intersected with the brackets of its earlier grids, until the front end's rules ask no finer grid.

Every grid's bracket is certified, so a point keeps the intersection of the brackets of all its
grids (the largest lower side, the smallest upper side): a finer grid is not always tighter (at a
small delta the round-off charge of the larger window dominates).  What a front end computes on a
grid, how it measures a bracket's width and which grid it asks next are its own: the one
composition of a plan (``plan_refinement``, a Python ``FrontEnd`` run by ``refine``).

The loop is the core's (cpp/include/hockeystick/pld/refine/refinement_loop.hpp), one implementation
driven from here with a Python front end and from the core with its own front ends: the many points
of ``SubsampledGaussianPLD`` and its kin (``points.Refinement.core_deltas``,
pld/refine/points_delta_source.hpp), one point's delta at one epsilon to a relative accuracy and its
epsilon at one delta to an absolute accuracy (``points.Refinement.core_delta`` and
``core_refined``; the C library's calls run the same loops), their grids read there too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from ... import _core
from .grid_rules import Before

# one point's bracket on one grid: (point, h, lower, upper, what the front end's rules read besides)
Step = tuple[int, float, Any, Any, Any]


class FrontEnd(Protocol):
    """What a front end tells the loop (``refine``): the first grids, the brackets on a step's
    grids, the intersection of two brackets, a bracket's width, the next grid (None: done), and the
    record of a grid a point moves on from."""

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
    """Runs the refinement of ``front``'s points (module docstring) in the core's loop
    (``_core.pld_refine.refine``: cpp/include/hockeystick/pld/refine/refinement_loop.hpp, the loop
    the core's own one-point front end runs too): each step computes the brackets of every point
    still refining on its grid, intersects each with the record of the point's grid before, and asks
    the front end for the next grid; a point is done when it asks none."""
    _core.pld_refine.refine(front=front)
