"""The grids a composition plan is read on for an ``accuracy``: the first one, the next one, when to stop.

The grid starts at ``PLAN_COARSEST_INTERVAL`` and shrinks by 0.9 (accuracy / width)^(1/k), k = 2 until
measured (the certified bracket narrows like h^2 for connect-the-dots PMFs), until the bracket at the
asked point is no wider than ``accuracy`` (absolute in epsilon, relative in delta) or the grid reaches
``PLAN_FINEST_INTERVAL`` or the composed grid would exceed ``PLAN_MAX_POINTS`` (finite pairs' brackets narrow only
like h, so a tight target can be out of reach) or the bracket stops narrowing (slower than
h^``PLAN_STALL_ORDER`` between two grids: what is left is no grid error).  The last grid's bounds are
reported, so they are certified either way.  Each grid is aligned by the caller (``grid_alignment``).
Beside exact atoms the first grid resolves a narrow grid part (``GridRefinement.resolving``); a first
jump of more than ``PLAN_PROBE_SHRINK``^2 to a grid past ``PLAN_PROBE_POINTS`` goes ``PLAN_PROBE_SHRINK`` times finer
first, so a width that is no grid error stalls on a cheap grid rather than on the budget's.

Its constants (``constants.PLAN_*``, with their reasons) are read when a refinement runs, so a test may patch one there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ... import _core
from ..compose.pmf import GridPMF
from . import constants


def loss_spread(pmf: GridPMF) -> float:
    """The standard deviation of a grid PMF's finite losses (masses normalised; 0 for no mass): the core's
    grid_loss_variance (pld_hockey_stick.hpp), which the composition's Chernoff windows take too."""
    return math.sqrt(max(_core.pld_loss_variance(np.ascontiguousarray(pmf.p, dtype=np.float64), pmf.h), 0.0))


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
        epsilon crossing just above an atom l_i reads the grid part's profile delta_G near loss 0, inside
        its bulk.  A grid part whose composed loss s.d. spans only a few cells is there a handful of
        masses (the optimistic side can collapse to one at loss 0, i.e. to no privacy loss at all), and
        its bracket narrows erratically until h is well below that s.d., so the width-aimed refinement
        would build grid after grid.  The grid part is composed at h (the grid builders are cheap next to
        an epsilon search) and, if its pessimistic loss s.d. is below ``RESOLVE_CELLS`` cells, the first
        search runs on s.d. / ``RESOLVE_CELLS`` instead (at most ``RESOLVE_SHRINK`` times finer, aligned
        as any grid).  This only chooses a grid: every grid's bounds are certified.
        """
        if not self.beside_atoms:
            return h
        spread = min(loss_spread(pmf) for pmf in self.composed(h))
        if not spread < constants.PLAN_RESOLVE_CELLS * h:
            return h
        finer = max(
            spread / constants.PLAN_RESOLVE_CELLS, h / constants.PLAN_RESOLVE_SHRINK, constants.PLAN_FINEST_INTERVAL
        )
        self.discard(h)  # not searched: only its spread was read
        return self.aligned(finer)

    def bracket(
        self,
        evaluate: Callable[[float, tuple[float, ...]], tuple[float, float]],
        relative: bool,
        target: float,
    ) -> tuple[float, float]:
        """The (lower, upper) ``evaluate(h, hints)`` gives on the last grid of the refinement (module docstring).

        ``relative``: the width is (upper - lower) / upper (delta) rather than upper - lower (epsilon);
        ``target``: the width asked for.  ``hints`` is the previous grid's bracket (empty on the first).
        """
        h = self.resolving(self.aligned(constants.PLAN_COARSEST_INTERVAL))
        previous: tuple[float, float] | None = None
        hints: tuple[float, ...] = ()
        while True:
            lo, up = evaluate(h, hints)
            hints = (lo, up)  # the next, finer grid's epsilon searches start from this bracket
            width = (up - lo) / max(up, 1e-300) if relative else up - lo
            if width <= target or h <= constants.PLAN_FINEST_INTERVAL:
                return lo, up
            # width ~ h^k: k = 2 for continuous laws (connect the dots), 1 for atoms; measured once two
            # grids are known, so the next grid is aimed at the target directly.
            k = 2.0
            if (
                previous is not None
                and math.isfinite(width)
                and width > previous[1] * (h / previous[0]) ** constants.PLAN_STALL_ORDER
            ):
                return (
                    lo,
                    up,
                )  # narrowing slower than h^constants.PLAN_STALL_ORDER: the rest of the width is no discretization
            if previous is not None and 0 < width < previous[1]:
                k = min(max(math.log(previous[1] / width) / math.log(previous[0] / h), 0.5), 2.0)
            measured = previous is not None
            previous = (h, width)
            shrink = 0.9 * (target / width) ** (1.0 / k) if math.isfinite(width) else 0.5
            # Budget: the composed grid grows like 1/h; stop where the next one would exceed constants.PLAN_MAX_POINTS.
            points = max(pmf.p.size for pmf in self.composed(h))
            floor = h * points / constants.PLAN_MAX_POINTS
            if (
                not measured
                and shrink < 1.0 / constants.PLAN_PROBE_SHRINK**2
                and points * constants.PLAN_PROBE_SHRINK**2 > constants.PLAN_PROBE_POINTS
            ):
                # A big first jump on the assumed h^2 law: probe a grid constants.PLAN_PROBE_SHRINK times finer first, whose
                # width measures the law (or shows a stall, a gap between a bound and a realizable pair).
                shrink = 1.0 / constants.PLAN_PROBE_SHRINK
            nxt = max(h * min(shrink, 0.9), constants.PLAN_FINEST_INTERVAL, floor)
            if nxt >= 0.95 * h:
                return lo, up
            aligned = self.aligned(nxt)
            h = aligned if aligned >= floor else nxt
