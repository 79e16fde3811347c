"""The grids a composition plan is read on for an ``accuracy``: the first one, the next one, when to stop.

The grid starts at ``PLAN_COARSEST_INTERVAL`` (a plan is any mix of mechanisms, so no start is
predicted) and each next grid is the one the grid evaluation's rules ask (the core's
cpp/include/hockeystick/pld/refine/plan_grid.hpp over next_grid.hpp:
0.9 (accuracy / width)^(1/2) on the first step, then the width's power law measured through two
grids, clipped to [1, 2]: connect-the-dots PMFs narrow like h^2, finite pairs like h), until the
bracket at the asked point is no wider than ``accuracy`` (absolute in epsilon, relative in delta),
or the grid reaches ``PLAN_FINEST_INTERVAL``, or the composed grid would exceed ``PLAN_MAX_POINTS``,
or the rules see the width stop narrowing (what is left is no grid error). Every grid's bracket is
certified, so their intersection is reported either way.  Each grid is aligned by the caller
(``grid_alignment``).  Beside exact atoms the first grid resolves a narrow grid part
(``GridRefinement.resolving``); a first jump of more than ``PLAN_PROBE_SHRINK``^2 to a grid past
``PLAN_PROBE_POINTS`` goes ``PLAN_PROBE_SHRINK`` times finer first, so a width that is no grid error
stalls on a cheap grid rather than on the budget's.

Its constants (``tuning.PLAN_*``, with their reasons) are read when a refinement runs, so a test may
patch one there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ... import _core
from ..grid.pmf import GridPMF
from . import tuning
from .controller import Step, refine
from .grid_rules import Before, next_grid_tuning
from .grid_start import grid_policy


def loss_spread(pmf: GridPMF) -> float:
    """The standard deviation of a grid PMF's finite losses (masses normalised; 0 for no mass): the
    core's grid_loss_variance (pld/grid/moments.hpp), which the composition's Chernoff windows take
    too."""
    return math.sqrt(
        max(
            _core.pld_grid.loss_variance(np.ascontiguousarray(pmf.p, dtype=np.float64), h=pmf.h),
            0.0,
        )
    )


@dataclass
class GridRefinement:
    """The grid part of a composition, as the refinement sees it.

    ``composed(h)``: the grid part composed on grid h, one PMF per direction (pessimistic side).
    ``aligned(h)``: a grid at most h the caller prefers (``grid_alignment.aligned``).
    ``discard(h)``: forget the composition at h (``resolving`` reads only its spread).
    ``beside_atoms``: whether exact atoms are combined with the grid part.
    """

    composed: Callable[[float], Sequence[GridPMF]]
    aligned: Callable[[float], float]
    discard: Callable[[float], None]
    beside_atoms: bool

    def resolving(self, h: float) -> float:
        """The first grid: h, or (beside exact atoms) a finer one resolving a narrow grid part.

        Beside the atoms of the finite mechanisms, delta(eps) = sum_i m_i delta_G(eps - l_i), so an
        epsilon crossing just above an atom l_i reads the grid part's profile delta_G near loss 0,
        inside its bulk.  A grid part whose composed loss s.d. spans only a few cells is there a
        handful of masses (the optimistic side can collapse to one at loss 0, i.e. to no privacy
        loss at all), and its bracket narrows erratically until h is well below that s.d., so the
        width-aimed refinement would build grid after grid.  The grid part is composed at h (the
        grid builders are cheap next to an epsilon search) and, if its pessimistic loss s.d. is
        below ``RESOLVE_CELLS`` cells, the first search runs on s.d. / ``RESOLVE_CELLS`` instead (at
        most ``RESOLVE_SHRINK`` times finer, aligned as any grid).  This only chooses a grid: every
        grid's bounds are certified.
        """
        if not self.beside_atoms:
            return h
        spread = min(loss_spread(pmf) for pmf in self.composed(h))
        if not spread < tuning.PLAN_RESOLVE_CELLS * h:
            return h
        finer = max(
            spread / tuning.PLAN_RESOLVE_CELLS,
            h / tuning.PLAN_RESOLVE_SHRINK,
            tuning.PLAN_FINEST_INTERVAL,
        )
        self.discard(h)  # not searched: only its spread was read
        return self.aligned(finer)

    def bracket(
        self,
        evaluate: Callable[[float, tuple[float, ...]], tuple[float, float]],
        relative: bool,
        target: float,
    ) -> tuple[float, float]:
        """The (lower, upper) ``evaluate(h, hints)`` gives, intersected over the grids of the
        refinement (module docstring; the loop is ``controller.refine``): every grid's bracket is
        certified, so their intersection is.

        ``relative``: the width is (upper - lower) / upper (delta) rather than upper - lower
        (epsilon); ``target``: the width asked for.  ``hints`` is the bracket so far (empty on the
        first grid).
        """
        front = PlanFront(self, evaluate, relative, target)
        refine(front)
        return front.result


class PlanFront:
    """A plan's refinement as the refinement loop sees it (``controller.FrontEnd``): one point (0),
    its bracket a pair of floats, aimed by the core's plan rule (``next_grid``) with the plan's
    first grid, finest grid, budget and probe."""

    def __init__(
        self,
        grid: GridRefinement,
        evaluate: Callable[[float, tuple[float, ...]], tuple[float, float]],
        relative: bool,
        target: float,
    ):
        self.grid = grid
        self.evaluate = evaluate
        self.relative = relative
        self.target = target
        self.hints: tuple[
            float, ...
        ] = ()  # the next, finer grid's epsilon searches start from this bracket
        self.result: tuple[float, float] = (0.0, 0.0)

    def first(self) -> dict[int, float]:
        return {0: self.grid.resolving(self.grid.aligned(tuning.PLAN_COARSEST_INTERVAL))}

    def brackets(self, grids: dict[int, float], best: dict[int, Before]) -> Iterator[Step]:
        h = grids[0]
        lo, up = self.evaluate(h, self.hints)
        yield 0, h, lo, up, None

    @staticmethod
    def intersect(lo: float, up: float, before: Before) -> tuple[float, float]:
        return max(lo, float(before[1][0])), min(up, float(before[2][0]))

    def width(self, i: int, lo: float, up: float) -> float:
        self.hints = (lo, up)
        return (up - lo) / max(up, 1e-300) if self.relative else up - lo

    @staticmethod
    def record(h: float, lo: float, up: float, width: float) -> Before:
        return (h, np.array([lo]), np.array([up]), np.array([width]))

    def done(self, i: int, lo: float, up: float) -> None:
        self.result = (lo, up)

    def next_grid(self, step: Step, width: float, before: Before | None) -> float | None:
        """The next grid (None: the bracket stands): the core's rule
        (``_core.pld_refine.plan_next_grid``, cpp/include/hockeystick/pld/refine/plan_grid.hpp: none
        once the width meets the target or the grid is ``PLAN_FINEST_INTERVAL``; else the next-grid
        rules' ask with no charge known apart, the whole width following the grid's law; a big
        first jump probed ``PLAN_PROBE_SHRINK`` times finer first; at least the finest grid and the
        budget's floor, and only if at most 0.95 h), aligned (``GridRefinement.aligned``) unless
        that falls below the budget's floor."""
        h = step[1]
        if width <= self.target or h <= tuning.PLAN_FINEST_INTERVAL:
            return None
        found = _core.pld_refine.plan_next_grid(
            h=h,
            width=width,
            before=None if before is None else (before[0], float(before[3][0])),
            # the budget: the composed grid grows like 1/h
            points=float(max(pmf.p.size for pmf in self.grid.composed(h))),
            target=self.target,
            finest=tuning.PLAN_FINEST_INTERVAL,
            max_points=float(tuning.PLAN_MAX_POINTS),
            probe_shrink=tuning.PLAN_PROBE_SHRINK,
            probe_points=float(tuning.PLAN_PROBE_POINTS),
            tuning=next_grid_tuning(),
            policy=grid_policy(),
        )
        if found is None:
            return None
        nxt, floor = found
        aligned = self.grid.aligned(nxt)
        return aligned if aligned >= floor else nxt
