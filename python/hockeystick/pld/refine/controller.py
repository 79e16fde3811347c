"""The ``accuracy=`` refinement loop of ``SubsampledGaussianPLD``: per point, grids from its first
(``grid_start``) through the next ones the rules ask (``grid_rules``), each step's brackets
(``step_brackets``) intersected over the grids, near delta = 1 with the affinity and complement bounds
(``near_one``), until every argument meets ``accuracy`` or no grid narrows it further."""

from __future__ import annotations

import warnings

import numpy as np

from ..grid.grid_start import Point, StartGrid, loss_span, windows_within_budget, within_window
from ..grid.near_one import NearOne
from ..reads.epsilon_width import LEFT_FRACTIONS, RIGHT_OFFSETS
from .bracket_width import bracket_width, epsilon_tolerance, offset_rows
from .grid_rules import NextGrid, least
from .step_brackets import Build, StepBrackets


class AccuracyNotMetWarning(UserWarning):
    """An ``accuracy=`` call returned brackets wider than the accuracy asked (certified still, only wider): their
    count is in the message, their positions in the accountant's ``unmet``."""


def unmet_flags(lower: np.ndarray, upper: np.ndarray, accuracy: float, relative_accuracy: float) -> np.ndarray:
    """True where the certified epsilon bracket [lower, upper] of an ``accuracy=`` call is wider than its tolerance,
    max(accuracy, relative_accuracy upper) (an infinite upper side included); where any is, one
    ``AccuracyNotMetWarning`` counting them, for the caller of ``.epsilon``.  The refinement stops short of the
    tolerance only where no grid it may build narrows the bracket further (its width set by what no grid removes,
    the round-off and truncation charges, or the finest grid within ``MAX_WINDOW``); such a bracket is certified
    all the same, only wider than asked."""
    with np.errstate(invalid="ignore"):  # inf - inf is nan: unmet too
        unmet = np.asarray(~(upper - lower <= epsilon_tolerance(accuracy, relative_accuracy, upper)))
    count = int(np.count_nonzero(unmet))
    if count:
        asked = (
            f"max(accuracy={accuracy:g}, relative_accuracy={relative_accuracy:g} x epsilon)"
            if relative_accuracy
            else f"accuracy={accuracy:g}"
        )
        warnings.warn(
            f"{count} of {unmet.size} epsilon brackets are wider than {asked} (certified, but no grid within reach "
            "narrowed them further); the accountant's .unmet flags them",
            AccuracyNotMetWarning,
            stacklevel=4,  # unmet_flags, the accountant's evaluation, its .epsilon, the caller
        )
    return unmet


class Refinement:
    """Refines points to ``accuracy`` (``delta_accuracy``: the ``.delta`` criterion, "relative" or "epsilon";
    ``relative_accuracy``: ``.epsilon``'s tolerance grows to relative_accuracy eps), truncations sized by ``tail``,
    PLDs built by ``build`` (the accountant's), delta near 1 read by ``near_one``."""

    def __init__(
        self,
        accuracy: float,
        delta_accuracy: str,
        tail: float,
        build: Build,
        near_one: NearOne,
        relative_accuracy: float = 0.0,
    ):
        self.accuracy = accuracy
        self.relative_accuracy = relative_accuracy  # .epsilon: the tolerance max(accuracy, relative_accuracy eps)
        self.delta_accuracy = delta_accuracy
        self.start = StartGrid(accuracy, delta_accuracy, relative_accuracy)
        self.rules = NextGrid(accuracy)
        self.steps = StepBrackets(accuracy, delta_accuracy, tail, build)
        self.near_one = near_one

    def refined(
        self, points: list[Point], xs: list[np.ndarray], method: str, threads: int = 0
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per point, the certified (lower, upper) at its arguments on a grid that meets ``accuracy``
        (or on which the bracket stopped narrowing).

        Starts at ``StartGrid.first`` (of the point and its arguments); a point still too wide moves to
        h 0.9 sqrt(accuracy / width) (the bracket shrinks about like h^2), so it lands near the coarsest
        adequate grid in one or two steps instead of halving through every level; each step is at most 0.9 h
        (down to FINEST_INTERVAL), save one recomposition of the same grid with direct bins for charge-limited
        arguments (``NextGrid.next_interval``).

        Every grid's bracket is certified, so a point keeps, per argument, the intersection of
        the brackets of all its grids (the largest lower side, the smallest upper side): a finer
        grid is not always tighter (at a small delta the round-off charge of the larger window dominates).
        An argument still too wide drives the next step only while its width keeps narrowing, each step below
        ``STALLED`` of the last: otherwise its width is set by what no grid removes (the window's round-off and
        tail charges, the mass at +infinity), so a finer grid would only cost time; the point is done when no
        argument drives it.  The points of one step are discretized in one batch and composed in batches whose
        estimated windows fit ``BUDGET`` points; each batch is evaluated and dropped at once, so memory stays
        bounded however fine a refinement goes.

        ``delta_accuracy="epsilon"``: each point's arguments are followed by the same arguments
        shifted by each of ``RIGHT_OFFSETS``, then by minus each of ``LEFT_FRACTIONS`` times ``accuracy``
        (floored at 0): the upper bounds to the right and the lower bounds to the left certify the epsilon width
        (``bracket_width``, ``offset_rows``); only the point's own arguments drive the refinement and are
        returned.  ``threads``: the OpenMP and scipy.fft threads of the C++ calls (0: all cores).
        """
        start, rules, steps, near_one = self.start, self.rules, self.steps, self.near_one
        by_epsilon = method == "delta" and self.delta_accuracy == "epsilon"
        own = [x.size for x in xs]
        if by_epsilon:
            lefts = [f * self.accuracy for f in LEFT_FRACTIONS]
            xs = [
                np.concatenate([x] + [x + d for d in RIGHT_OFFSETS] + [np.maximum(x - d, 0.0) for d in lefts])
                for x in xs
            ]
        chosen: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(points)
        step = {i: within_window(points[i], start.first(points[i], xs[i], method)) for i in range(len(points))}
        # points that start below their sampling rate instead of on a blind grid (``StartGrid.below_rate_start``)
        below_rate = {i for i, h in step.items() if by_epsilon and h < start.span_start(points[i])}
        # settled by their own arguments (delta is larger at the left ones, smaller at the right ones)
        right_xs = [x[: offset_rows(x.size, n)[0].stop] for x, n in zip(xs, own)]
        for i, up in steps.settled_uppers(sorted(below_rate), points, right_xs, threads).items():
            chosen[i] = (np.zeros(own[i]), up[: own[i]])
            del step[i]
        best: dict[int, tuple[float, np.ndarray, np.ndarray, np.ndarray]] = {}  # i: (h, lo, up, width)
        # points whose arguments still too wide all took the complement's bracket (``NearOne.complement_brackets``):
        # their next grid recomposes the complement alone, the composed PMFs' bracket standing from ``best``
        only: set[int] = set()
        add_upper: dict[int, np.ndarray] = {}  # the least add-direction upper side over a point's grids
        while step:
            next_step: dict[int, float] = {}
            next_only: set[int] = set()
            units = [
                (batch, direct, charge, False)
                for batch, direct, charge in steps.batches(
                    {i: h for i, h in step.items() if i not in only},
                    points,
                    best,
                    below_rate,
                    {} if method == "delta" else steps.round_off_charges(step, xs, own),
                )
            ]
            units += [
                (batch, True, None, True)
                for batch in windows_within_budget([(i, loss_span(*points[i]) / step[i]) for i in sorted(only)])
            ]
            for batch, direct, charge, complement_only in units:
                if complement_only:
                    found = [(best[i][1], best[i][2], np.zeros((2, xs[i].size)), add_upper.get(i)) for i in batch]
                else:
                    found = steps.brackets(batch, points, step, xs, method, best, own, threads, direct, charge)
                for i, (_, _, _, add) in zip(batch, found):  # every grid's add-direction upper side holds
                    if add is not None:
                        add_upper[i] = add if i not in add_upper else np.minimum(add, add_upper[i])
                sides = [(np.asarray(lo, dtype=np.float64), np.asarray(up, dtype=np.float64)) for lo, up, _, _ in found]
                taken: list[np.ndarray | None] = [None] * len(batch)
                if method == "delta":
                    if not complement_only:
                        sides = [(near_one.raised(points[i], xs[i], lo, up), up) for i, (lo, up) in zip(batch, sides)]
                    sides, taken = near_one.complement_brackets(
                        [points[i] for i in batch],
                        [step[i] for i in batch],
                        [xs[i] for i in batch],
                        sides,
                        threads,
                        [add_upper.get(i) for i in batch],
                    )
                    # where the complement's bracket was taken, the composed PMFs' fixed parts no longer bound
                    # the gap: it narrows with the grid (``NextGrid.charge_width`` then leaves those arguments to it)
                    found = [
                        (lo, up, fixed if n is None else np.where(n, 0.0, fixed), add)
                        for (lo, up, fixed, add), n in zip(found, taken)
                    ]
                for i, (lo, up), (_, _, fixed, _), near in zip(batch, sides, found, taken):
                    h = step[i]
                    if i in best:  # both grids' brackets hold: keep their intersection
                        lo, up = np.maximum(lo, best[i][1]), np.minimum(up, best[i][2])
                    width = bracket_width(
                        self.delta_accuracy, method, xs[i], lo, up, own[i], self.accuracy, self.relative_accuracy
                    )
                    q = points[i][1]
                    alone = rules.charge_width(by_epsilon, xs[i], lo, up, fixed, own[i], q, h)
                    charged = rules.charged(width, alone)
                    capped, blind = rules.capped_without_chord(by_epsilon, xs[i], lo, width, q, h, own[i], charged)
                    capped_h = rules.capped_interval(h, xs[i], lo, up, width, own[i], capped, blind, q)
                    if by_epsilon and (i not in best or best[i][0] <= h):  # a first step: the widths' rule
                        limited, limited_h = rules.offset_limited(h, xs[i], lo, up, width, own[i], capped | charged)
                        capped, capped_h = capped | limited, least(capped_h, limited_h)
                    before = best.get(i)
                    if method == "epsilon" and before is not None and np.any(before[1][before[3] > self.accuracy] == 0):
                        # the grid before left a lower epsilon 0 where too wide (blind: its width was the upper
                        # side's alone), so no law is fitted through it: the next grid is asked as a first one's
                        before = None
                    finer = rules.next_interval(h, width, before, capped, capped_h, alone, xs[i][: own[i]], q)
                    if finer is not None and finer < h:
                        finer = within_window(points[i], finer)
                        finer = finer if finer < h else None  # no finer grid fits MAX_WINDOW: this bracket stands
                    if finer == h and direct:
                        finer = None  # the same grid again only adds the direct bins this one had
                    if finer is None:
                        chosen[i] = (lo[: own[i]], up[: own[i]])
                    else:
                        best[i] = (h, lo, up, width)
                        next_step[i] = finer
                        if near is not None and np.all(near[: own[i]][width > self.accuracy]):
                            next_only.add(i)
            step, only = next_step, next_only
        return [c for c in chosen if c is not None]  # every point ends with a bracket
