"""One delta refinement step's brackets: the points of a step batched by window budget and direct-bin
mode, each point's certified (lower, upper) on its grid with the part of its gap no grid removes,
and the points that the upper side alone settles below the delta floor; and the direct-bins charge of
an epsilon refinement's first grid (``round_off_charge``), whose steps are the core's step read's."""

from __future__ import annotations

import math
from typing import Literal, cast

import numpy as np

from ... import _core
from . import constants, dominated_direction, tuning
from .grid_rules import points_rules
from .grid_start import Point, StartGrid, loss_span, windows_within_budget

# a point's bracket on an earlier grid: (h, lower, upper, width)
Best = dict[int, tuple[float, np.ndarray, np.ndarray, np.ndarray]]


class StepBrackets:
    """The brackets of one refinement step to ``accuracy`` (``delta_accuracy`` the ``.delta``
    criterion), truncations sized by ``tail``."""

    def __init__(self, accuracy: float, delta_accuracy: str, tail: float):
        self.accuracy = accuracy
        self.delta_accuracy = delta_accuracy
        # the delta rule's width (the core's PointsRules kind)
        self.kind = cast(Literal["relative", "epsilon"], delta_accuracy)
        self.tail = tail

    def settled_uppers(
        self, pending: list[int], points: list[Point], xs: list[np.ndarray], threads: int
    ) -> dict[int, np.ndarray]:
        """The points of ``pending`` (indices into ``points``, arguments ``xs[i]``) whose upper side
        on their span grid (``StartGrid.span_start``; ``dominated_direction.delta_uppers``:
        pessimistic sides only, no direct bins) is below ``DELTA_FLOOR`` at every argument, with
        those upper values: done (``bracket_width``), with 0 for a lower bound.  The refinement asks
        it of the points that would start below their sampling rate
        (``StartGrid.below_rate_start``): that grid is fine and composed with direct bins, while
        many rows of a grid lie below the floor at every eps, which the span grid shows at a small
        part of the fine grid's cost.

        Delta grows with the rounds, so per (sigma, q, sensitivity) the points that settle are those
        with the fewest rounds: the fewest-rounds point is tried alone, and where it settles a
        bisection over the rounds finds the last that does; the points below it are then tried in
        batches, those above it not at all (the span grid's composition is wasted where a point does
        not settle)."""
        start = StartGrid(self.accuracy, self.delta_accuracy)
        hs = {i: start.span_start(points[i]) for i in pending}
        tried: dict[int, np.ndarray] = {}

        def uppers(batch: list[int]) -> list[np.ndarray]:
            out = dominated_direction.delta_uppers(
                [points[i] for i in batch],
                [hs[i] for i in batch],
                [xs[i] for i in batch],
                self.tail,
                threads,
                self.accuracy,
                constants.DELTA_FLOOR,
            )
            tried.update(zip(batch, out))
            return out

        def below_floor(ups: list[np.ndarray]) -> list[bool]:
            return _core.pld_refine.settled_everywhere(ups, None, settled=constants.DELTA_FLOOR)

        def settles(i: int) -> bool:
            return below_floor([tried[i] if i in tried else uppers([i])[0]])[0]

        pairs: dict[tuple[float, float, float], list[int]] = {}
        for i in pending:
            pairs.setdefault((points[i][0], points[i][1], points[i][3]), []).append(i)
        candidates: list[int] = []
        for group in pairs.values():
            group.sort(key=lambda i: points[i][2])
            if not settles(group[0]):
                continue
            low, high = (
                1,
                len(group),
            )  # group[:low] ends with a point that settles; group[high:] with none
            while low < high:
                mid = (low + high) // 2
                low, high = (mid + 1, high) if settles(group[mid]) else (low, mid)
            candidates.extend(i for i in group[:low] if i not in tried)
        for batch in windows_within_budget(
            [(i, loss_span(*points[i]) / hs[i]) for i in candidates]
        ):
            uppers(batch)
        return {
            i: up
            for (i, up), below in zip(tried.items(), below_floor(list(tried.values())))
            if below
        }

    @staticmethod
    def batches(
        step: dict[int, float],
        points: list[Point],
        best: Best,
        below_rate: set[int],
    ) -> list[tuple[list[int], bool, float | None]]:
        """The batches of one refinement step (``windows_within_budget``), each with whether it
        recomposes the low-frequency bins directly (``compose_all``'s direct_bins) and from what
        estimated charge (``direct_min_charge``): a refinement's grids (a point's second and later)
        do, since after many rounds the FFT's round-off charge, not the grid, is what leaves a delta
        near the floor wide, and a finer grid alone only raises it; so does the first grid of a
        point that starts below its sampling rate (``below_rate``): that grid is already as fine as
        a refinement's, and composing it without direct bins first mostly leads to the same grid
        again with them.  From the core's kDirectMinCharge (None); a point stepping to the grid it
        was on (points_rules.hpp's next grid: its charges, not the grid, left it wide) from
        ``SAME_GRID_DIRECT_CHARGE``."""
        same_grid = tuning.SAME_GRID_DIRECT_CHARGE
        kinds: dict[tuple[bool, float | None], list[tuple[int, float]]] = {}
        for i, h in step.items():
            if i in best and best[i][0] == h:
                kind: tuple[bool, float | None] = (True, same_grid)
            else:
                kind = (i in best or i in below_rate, None)
            kinds.setdefault(kind, []).append((i, loss_span(*points[i]) / h))
        order = sorted(kinds, key=lambda k: (k[0], -math.inf if k[1] is None else -k[1]))
        return [(batch, *kind) for kind in order for batch in windows_within_budget(kinds[kind])]

    def brackets(
        self,
        batch: list[int],
        points: list[Point],
        step: dict[int, float],
        xs: list[np.ndarray],
        best: Best,
        own: list[int],
        threads: int,
        direct: bool,
        charge: float | None = None,
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]:
        """The certified delta (lower, upper) of each point of ``batch`` on its grid ``step[i]``,
        the part of their gap no grid removes, and the add direction's certified upper side: every
        composition, read and bracket in one core call (``dominated_direction.delta_sides``: the add
        direction screened on a coarse grid, composed on the fine one only where the screen does not
        clear; ``best`` holds the points' brackets on earlier grids, ``own[i]`` is how many of
        ``xs[i]`` are the point's own arguments).  ``delta_accuracy="epsilon"``: below a tenth of
        DELTA_FLOOR the screen's upper side stands for the add direction's, a point whose upper side
        is below DELTA_FLOOR at every argument takes no lower side, and the truncations are sized to
        that floor (``truncation.tails``); ``"relative"``: none of the three, since that rule reads
        a bracket below the floor to its own width, so the screen clears only where it is at or
        below the remove direction's lower side (there the bracket is never wider than the one
        both directions on the fine grid give: the add direction's sides are at most that lower
        side).  ``direct``: the
        compositions recompute their low-frequency bins directly, in rows from an estimated charge
        of ``charge`` (``batches``).  An epsilon question is the core's step read's, point by point
        (``points.Refinement.core_refined``)."""
        by_epsilon = self.delta_accuracy == "epsilon"
        found = dominated_direction.delta_sides(
            [points[i] for i in batch],
            [step[i] for i in batch],
            [xs[i] for i in batch],
            self.tail,
            points_rules(self.accuracy, 0.0, "delta", self.kind),
            [own[i] for i in batch],
            [None if (b := best.get(i)) is None else (b[1], b[2]) for i in batch],
            threads,
            direct,
            0.1 * constants.DELTA_FLOOR if by_epsilon else 0.0,
            constants.DELTA_FLOOR if by_epsilon else 0.0,
            self.accuracy if by_epsilon else None,
            charge,
        )
        return [(lo, up, fixed, add) for lo, up, fixed, add, _ in found]


def round_off_charge(delta: float) -> float | None:
    """The estimated charge from which an epsilon question at least ``delta`` composes its first
    grid's low-frequency bins directly, None where it does not (the core's rule,
    cpp/include/hockeystick/pld/refine/direct_bins.hpp: below ``DIRECT_FIRST_DELTA``,
    ``DIRECT_CHARGE_SHARE`` of delta, at most the core's kDirectMinCharge, rounded down to a power of
    ten): the plain transform's round-off charge (T x ~5e-16) is then a part of such a delta that
    no grid removes and a finer grid only raises."""
    charge = _core.pld_refine.direct_bins_charge(
        float(delta),
        first_delta=tuning.DIRECT_FIRST_DELTA,
        charge_share=tuning.DIRECT_CHARGE_SHARE,
        min_charge=float(_core.pld_compose.direct_min_charge),
    )
    return None if charge is None else float(charge)
