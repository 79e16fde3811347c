"""What a delta refinement reads before its loop: the points that the upper side alone settles below
the delta floor (``StepBrackets.settled_uppers``); and the direct-bins charge of an epsilon
refinement's first grid (``round_off_charge``).  Every step's brackets are the core's
(cpp/include/hockeystick/pld/refine/points_delta_source.hpp, subsampled_gaussian_step.hpp)."""

from __future__ import annotations

import numpy as np

from ... import _core
from . import constants, dominated_direction, tuning
from .grid_start import Point, StartGrid, loss_span, windows_within_budget


class StepBrackets:
    """A refinement to ``accuracy`` (``delta_accuracy`` the ``.delta`` criterion), truncations sized
    by ``tail``: the points its upper side alone settles."""

    def __init__(self, accuracy: float, delta_accuracy: str, tail: float):
        self.accuracy = accuracy
        self.delta_accuracy = delta_accuracy
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
