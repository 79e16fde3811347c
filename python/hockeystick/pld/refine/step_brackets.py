"""One delta refinement step's brackets: the points of a step batched by window budget and direct-bin
mode, each point's certified (lower, upper) on its grid with the part of its gap no grid removes,
and the points that the upper side alone settles below the delta floor; and the direct-bins charge of
an epsilon refinement's first grid (``round_off_charge``), whose steps are the core's step read's."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal, cast

import numpy as np

from ... import _core
from ..grid.distribution import PrivacyLossDistribution, compose_all, undominated_lower_sides
from ..grid.pmf import GridPMF
from . import constants, dominated_direction, tuning
from .grid_rules import points_rules
from .grid_start import Point, StartGrid, loss_span, windows_within_budget

# a composed PLD's key: its point, its grid h, and whether its optimistic side was built
PLDKey = tuple[float, float, float, float, float, bool]
# builds the PLDs of points on grid h into a store: build(store, points, h, threads=...)
Build = Callable[..., None]
# a point's bracket on an earlier grid: (h, lower, upper, width)
Best = dict[int, tuple[float, np.ndarray, np.ndarray, np.ndarray]]
# what a point's delta bracket on one grid is made of: each direction's composed pessimistic PMF and certified upper
# values, and the directions whose optimistic side can raise the lower bound, each with its composed optimistic PMF
# and charged lower values (no suffix maxima), as ``undominated_lower_sides`` gives them
DeltaSides = tuple[list[GridPMF], list[np.ndarray], dict[int, tuple[GridPMF, np.ndarray]]]


class StepBrackets:
    """The brackets of one refinement step to ``accuracy`` (``delta_accuracy`` the ``.delta``
    criterion), truncations sized by ``tail``, the relative ``.delta`` rule's PLDs built by
    ``build``."""

    def __init__(self, accuracy: float, delta_accuracy: str, tail: float, build: Build):
        self.accuracy = accuracy
        self.delta_accuracy = delta_accuracy
        # the delta rule's width (the core's PointsRules kind)
        self.kind = cast(Literal["relative", "epsilon"], delta_accuracy)
        self.tail = tail
        self.build = build

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
        the part of their gap no grid removes (``assembled``), and the add direction's certified
        upper side (None for one direction).  With ``delta_accuracy="epsilon"`` the add direction is
        screened on a coarse grid first (``dominated_direction.delta_sides``: the same bracket, the
        add direction's fine composition only where it may be the larger one; below a tenth of
        DELTA_FLOOR the screen's upper side stands for the add direction's); otherwise the batch is
        composed together and the lower envelope taken only where the bracket needs it
        (``assembled``; ``best`` holds the points' brackets on earlier grids, ``own[i]`` is how
        many of ``xs[i]`` are the point's own arguments).  ``direct``: the compositions recompute
        their low-frequency bins directly, in rows from an estimated charge of ``charge``
        (``batches``).  An epsilon question is the core's step read's, point by point
        (``points.Refinement.core_refined``)."""
        if self.delta_accuracy == "epsilon":
            return self.screened_brackets(
                batch, points, step, xs, best, own, threads, direct, charge
            )
        parts = self.composed_parts(batch, points, step, xs, threads, direct, charge)
        return self.assembled(batch, parts, xs, best, own)

    def assembled(
        self,
        batch: list[int],
        parts: list[DeltaSides],
        xs: list[np.ndarray],
        best: Best,
        own: list[int],
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]:
        """Each point's delta bracket from its directions' composed PMFs and reads, in one core call
        (``_core.pld_refine.delta_step_sides``, cpp/include/hockeystick/pld/refine/step_sides.hpp,
        without the interpreter lock): each side the largest over the neighbouring directions (Zhu,
        Dong & Wang, AISTATS 2022, Sec. 5), the own lower side raised by the right offsets' rows
        (delta does not increase in eps), the part of the gap no grid removes (pld/refine/fixed_part.hpp
        of the direction that sets each side: one direction's mass at +infinity is no part of a bound
        the other one sets), and the add direction's upper side; then, where the bracket
        intersected with ``best``'s record is still wider than ``accuracy``, the lower side raised
        to its sides' suffix maxima (pld/reads/lower_envelope.hpp, ``GridPMF.delta``'s optimistic side's
        doubles: an O(n) pass over each composed window that the other arguments do without)."""
        return _core.pld_refine.delta_step_sides(
            rules=points_rules(self.accuracy, 0.0, "delta", self.kind),
            xs=[xs[i] for i in batch],
            own=[own[i] for i in batch],
            uppers=[pess for pess, _, _ in parts],
            upper_values=[ups for _, ups, _ in parts],
            lowers=[[pmf for pmf, _ in side.values()] for _, _, side in parts],
            lower_values=[[low for _, low in side.values()] for _, _, side in parts],
            before=[None if (b := best.get(i)) is None else (b[1], b[2]) for i in batch],
        )

    def screened_brackets(
        self,
        batch: list[int],
        points: list[Point],
        step: dict[int, float],
        xs: list[np.ndarray],
        best: Best,
        own: list[int],
        threads: int,
        direct: bool,
        charge: float | None,
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]:
        """``delta_accuracy="epsilon"``: the add direction screened on a coarse grid, every composition, read and
        bracket in one core call (``dominated_direction.delta_sides``; below a tenth of DELTA_FLOOR the screen's upper
        side stands for the add direction's), the brackets as ``assembled`` gives them."""
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
            0.1 * constants.DELTA_FLOOR,
            constants.DELTA_FLOOR,
            self.accuracy,
            charge,
        )
        return [(lo, up, fixed, add) for lo, up, fixed, add, _ in found]

    def composed_parts(
        self,
        batch: list[int],
        points: list[Point],
        step: dict[int, float],
        xs: list[np.ndarray],
        threads: int,
        direct: bool,
        charge: float | None,
    ) -> list[DeltaSides]:
        """The relative ``.delta`` rule: the batch's PLDs built (``build``, coarsest grid first) and
        composed together, each direction's pessimistic PMF and certified upper values, and the
        optimistic sides that can raise the lower bound (``undominated_lower_sides``), each with its
        charged lower value at the point's arguments (no suffix maxima: ``assembled`` adds
        them)."""
        store: dict[PLDKey, PrivacyLossDistribution] = {}
        for h in sorted({step[i] for i in batch}, reverse=True):
            self.build(store, [points[i] for i in batch if step[i] == h], h, threads=threads)
        dists = [store[(*points[i], step[i], True)] for i in batch]
        compose_all(
            dists, True, workers=threads or None, direct_bins=direct, direct_min_charge=charge
        )
        uppers = [
            [pmf.delta(xs[i], threads) for pmf in dist.composed(True)]
            for i, dist in zip(batch, dists)
        ]
        sides = undominated_lower_sides(
            dists,
            uppers,
            lambda pmf, k: pmf.delta(xs[batch[k]], threads, envelope=False),
            threads or None,
            direct,
            charge,
        )
        return [
            (list(dist.composed(True)), ups, side) for dist, ups, side in zip(dists, uppers, sides)
        ]


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
