"""The ``accuracy=`` refinement of ``SubsampledGaussianPLD`` and its kin: each point refined on its
own grid ladder until every argument meets ``accuracy`` or no grid narrows it further.  Epsilon: the
core's loop on its step reads, each point at each delta alone (``Refinement.core_refined``).  Delta:
one point at one epsilon through the core's one-point loop (``Refinement.core_delta``), many through
the core's many-points loop (``Refinement.core_deltas``: cpp/include/hockeystick/pld/refine/
points_delta_source.hpp, its first grids, units, screened steps and reads near delta = 1)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Literal, cast

import numpy as np

from ... import _core
from ...base.accountant import Quantity
from ...base.warning_site import outside_stacklevel
from ..compose import fft
from ..mechanisms.constructors import MAX_CELLS
from ..reads.epsilon_width import LEFT_FRACTIONS, RIGHT_OFFSETS
from . import constants, tuning
from .grid_rules import next_grid_tuning, points_rules
from .grid_start import (
    Point,
    StartGrid,
    grid_policy,
    within_window,
)
from .near_one import NearOne
from .unmet import AccuracyNotMetWarning


class Refinement:
    """Refines points to ``accuracy`` (``delta_accuracy``: the ``.delta`` criterion, "relative" or
    "epsilon"; ``relative_accuracy``: ``.epsilon``'s tolerance grows to relative_accuracy eps),
    truncations sized by ``tail``, delta near 1 read by ``near_one``."""

    def __init__(
        self,
        accuracy: float,
        delta_accuracy: str,
        tail: float,
        near_one: NearOne,
        relative_accuracy: float = 0.0,
    ):
        self.accuracy = accuracy
        self.relative_accuracy = (
            relative_accuracy  # .epsilon: the tolerance max(accuracy, relative_accuracy eps)
        )
        self.delta_accuracy = delta_accuracy
        self.start = StartGrid(accuracy, delta_accuracy, relative_accuracy)
        self.tail = tail
        self.near_one = near_one

    def refined(
        self,
        points: list[Point],
        xs: list[np.ndarray],
        method: Quantity,
        threads: int = 0,
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per point, the certified (lower, upper) at its arguments on a grid that meets
        ``accuracy`` (or on which the bracket stopped narrowing).

        Epsilon: each point at each delta through the core's loop (``core_refined``), as asked
        alone, to max(``accuracy``, ``relative_accuracy`` eps).  Delta: one point at one epsilon
        to a relative accuracy through the core's loop (``core_delta``); otherwise the core's
        many-points loop (``core_deltas``), which the rest of this docstring describes.

        Starts at ``StartGrid.first`` (of the point and its arguments); a point still too wide moves
        to h 0.9 sqrt(accuracy / width) (the bracket shrinks about like h^2), so it lands near the
        coarsest adequate grid in one or two steps instead of halving through every level; each step
        is at most 0.9 h (down to FINEST_INTERVAL), save one recomposition of the same grid with
        direct bins for charge-limited arguments (points_rules.hpp's next grid).

        A point keeps, per argument, the intersection of the brackets of all its grids
        (points_rules.hpp). An argument still too wide drives the next step only while its width keeps
        narrowing, each step below ``STALLED`` of the last: otherwise its width is set by what no
        grid removes (the window's round-off and tail charges, the mass at +infinity), so a finer
        grid would only cost time; the point is done when no argument drives it.  The points of one
        step are discretized and composed in units whose estimated windows fit ``BUDGET`` points;
        each unit is read and dropped at once, so memory stays bounded however fine a refinement
        goes.

        ``delta_accuracy="epsilon"``: each point's arguments are followed by the same arguments
        shifted by each of ``RIGHT_OFFSETS``, then by minus each of ``LEFT_FRACTIONS`` times
        ``accuracy`` (floored at 0): the upper bounds to the right and the lower bounds to the left
        certify the epsilon width (``bracket_width``, ``offset_rows``); only the point's own
        arguments drive the refinement and are returned.  ``threads``: the OpenMP and scipy.fft
        threads of the C++ calls (0: all cores).

        The first refinement of a process raises glibc's malloc thresholds to their ceilings
        (``malloc_thresholds``): its windows then reuse the memory their predecessors freed.
        """
        from .malloc_thresholds import raise_malloc_thresholds  # loaded by a refinement alone

        raise_malloc_thresholds()
        if method == "epsilon":
            return [self.core_epsilons(p, x, threads) for p, x in zip(points, xs)]
        if self.one_delta(points, xs, method):
            return [self.core_delta(points[0], xs[0], threads)]
        return self.core_deltas(points, xs, threads)

    def core_deltas(
        self, points: list[Point], xs: list[np.ndarray], threads: int
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """``refined`` of delta at many points or arguments through the core's many-points loop
        (``_core.pld_refine.refine_subsampled_gaussian_deltas``: cpp/include/hockeystick/pld/refine/
        points_delta_source.hpp over points_front.hpp): each point's first grid (``StartGrid.first``
        within ``MAX_WINDOW``, no finer than its ``coarsest_fit``), less the points that would start
        below their sampling rate and whose upper side alone settles them on their span grid
        (points_delta_start.hpp); every step's units (within ``BUDGET`` window points and ``BATCH``
        points), their discretizations, compositions, screened brackets and the reads near delta = 1
        (``NEAR_ONE``'s affinity bound, ``COMPLEMENT_ABOVE``'s complement) in the core without the
        interpreter lock, under this refinement's rules (``points_rules``: the loop's, and the steps'
        with no relative accuracy) at ``MAX_CELLS`` cells and ``DEFAULT_MAX_POINTS`` points (read at
        call time).  ``delta_accuracy="epsilon"`` screens at a tenth of ``DELTA_FLOOR``, takes no
        lower side where the upper one is below it at every argument, and sizes the truncations to it
        (``truncation.tails``).  One ``AccuracyNotMetWarning`` a point that stopped at its coarsest
        fit or at a window no memory holds."""
        kind = cast(Literal["relative", "epsilon"], self.delta_accuracy)
        by_epsilon = kind == "epsilon"
        own = [x.size for x in xs]
        floor = constants.DELTA_FLOOR
        chosen, gave_up, refused, _, _ = _core.pld_refine.refine_subsampled_gaussian_deltas(
            rules=points_rules(self.accuracy, self.relative_accuracy, "delta", kind),
            step_rules=points_rules(self.accuracy, 0.0, "delta", kind),
            points=[(float(s), float(q), float(t), float(c)) for s, q, t, c in points],
            xs=[
                np.ascontiguousarray(x, dtype=np.float64)
                for x in (with_offsets(xs, self.accuracy) if by_epsilon else xs)
            ],
            own=own,
            coarsest_fit=[coarsest_fit(p, self.tail) for p in points],
            policy=grid_policy(),
            start_policy=grid_policy(
                constants.EPSILON_CRITERION_BELOW_RATE_MAX_RATE if by_epsilon else None
            ),
            right_rows=len(RIGHT_OFFSETS),
            tail=self.tail,
            accuracy=self.accuracy,
            by_epsilon=by_epsilon,
            floor=0.1 * floor if by_epsilon else 0.0,
            settled=floor if by_epsilon else 0.0,
            same_grid_charge=tuning.SAME_GRID_DIRECT_CHARGE,
            budget=float(constants.BUDGET),
            batch=constants.BATCH,
            near_one=constants.NEAR_ONE,
            complement_above=constants.COMPLEMENT_ABOVE,
            max_cells=MAX_CELLS,
            max_points=fft.DEFAULT_MAX_POINTS,
            workers=threads or None,
        )
        for _ in range(gave_up + refused):
            warn_gave_up(1)
        found = {int(i): (lo, up) for i, lo, up in chosen}
        return [found[i] for i in range(len(points))]  # every point ends with a bracket

    def core_epsilons(
        self, point: Point, x: np.ndarray, threads: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``refined`` of one point (0 < q < 1) at its deltas ``x``, each delta through the core's
        loop alone (``core_refined``): the bracket it gets asked alone.  The core's loop runs the
        many-points rules of an epsilon question (its first and fitted steps, the width in the
        tolerance's units: the core's ``epsilon_width``; no charged, capped or offset-limited
        arguments, which are ``delta_accuracy="epsilon"``'s)."""
        flat = np.asarray(x, dtype=np.float64).reshape(-1)
        found = [self.core_refined(point, float(delta), threads) for delta in flat.tolist()]
        lower = np.array([float(lo[0]) for lo, _ in found]).reshape(np.shape(x))
        upper = np.array([float(up[0]) for _, up in found]).reshape(np.shape(x))
        return lower, upper

    def core_refined(
        self, point: Point, delta: float, threads: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``refined`` of one point at one delta through the core's loop on its step reads
        (cpp/include/hockeystick/pld/refine/steps_refinement.hpp, bound as
        ``_core.pld_refine.refined_subsampled_gaussian_epsilon``; the C library's epsilon call to an
        accuracy runs it too), to max(``accuracy``, ``relative_accuracy`` eps): each grid's bracket
        the core's step read
        (pld/refine/subsampled_gaussian_step.hpp) at the refinement's tail to its accuracy within
        ``MAX_CELLS`` cells on ``threads``, with direct DFT bins on
        every grid after the first, and on the first too where the delta is below
        ``DIRECT_FIRST_DELTA`` (``round_off_charge``, from its charge); stopped, with
        the brackets of the grids before intersected and one ``AccuracyNotMetWarning``, at a grid
        finer than the point's ``coarsest_fit`` or whose window passes ``DEFAULT_MAX_POINTS`` (read
        at call time)."""
        sigma, q, rounds, sensitivity = point
        lower, upper, gave_up, _ = _core.pld_refine.refined_subsampled_gaussian_epsilon(
            sigma=sigma,
            sampling_rate=q,
            rounds=int(rounds),
            sensitivity=sensitivity,
            delta=delta,
            accuracy=self.accuracy,
            tail=self.tail,
            coarsest_fit=coarsest_fit(point, self.tail),
            charge=round_off_charge(delta),
            policy=grid_policy(),
            tuning=next_grid_tuning(),
            max_cells=MAX_CELLS,
            workers=threads or None,
            max_points=fft.DEFAULT_MAX_POINTS,
            relative_accuracy=self.relative_accuracy,
        )
        if gave_up:  # a limit stopped it: the brackets of the grids before, intersected
            warn_gave_up(1)
        return np.array([lower]), np.array([upper])

    def default_plan(
        self,
        point: Point,
        delta: float,
        descent_start: float,
        cap: Callable[[], float] | None,
    ) -> _core.pld_refine.DefaultRefinementPlan:
        """The plan of the default's refinement and tilted descent of one point at one delta
        (cpp/include/hockeystick/pld/refine/default_epsilon.hpp, steps 2 and 3, which the core's
        ``TiltedPointReader.default_epsilon`` runs): its first grid ``StartGrid.first``'s within
        ``MAX_WINDOW``, no finer than the point's ``coarsest_fit``; the rules of this refinement
        (``points_rules``); the direct bins the core's rule asks (``round_off_charge`` on the
        first grid, ``SAME_GRID_DIRECT_CHARGE`` on a grid asked again); each grid's step read
        (pld/refine/subsampled_gaussian_step.hpp) at this refinement's tail to its accuracy, within
        ``MAX_CELLS`` cells and ``DEFAULT_MAX_POINTS`` points (read at call time); the descent from ``descent_start``, its upper
        side lowered to ``cap()`` where given (asked only where the descent is read).

        Parameters
        ----------
        point : (float, float, float, float)
            (sigma, q, rounds, sensitivity), 0 < q < 1.
        delta : float
            The delta asked.
        descent_start : float
            The tilted descent's first grid.
        cap : callable or None
            Gives a certified upper side known beside (the RDP conversion's), applied after the
            descent.

        Returns
        -------
        hockeystick._core.pld_refine.DefaultRefinementPlan
            The plan.

        Raises
        ------
        ValueError
            Where a grid is not finite and positive.
        """
        x = np.array([float(delta)])
        fit = coarsest_fit(point, self.tail)
        return _core.pld_refine.DefaultRefinementPlan(
            rules=points_rules(self.accuracy, self.relative_accuracy, "epsilon", "relative"),
            coarsest_fit=fit,
            first_grid=max(within_window(point, self.start.first(point, x, "epsilon")), fit),
            charge=round_off_charge(float(delta)),
            same_grid_charge=tuning.SAME_GRID_DIRECT_CHARGE,
            descent_start=descent_start,
            cap=cap,
            tail=self.tail,
            accuracy=self.accuracy,
            max_cells=MAX_CELLS,
            max_points=fft.DEFAULT_MAX_POINTS,
        )

    def one_delta(self, points: list[Point], xs: list[np.ndarray], method: Quantity) -> bool:
        """Whether the core's loop refines the call (``core_delta``): one point's
        ``.delta`` at one epsilon to a relative accuracy (``delta_accuracy="relative"``), 0 < q < 1.
        There the front end's rules are the core's first and fitted steps alone (no charged,
        capped or offset-limited arguments, and every grid fitted through), which the core's loop
        runs."""
        one = (
            method == "delta"
            and self.delta_accuracy == "relative"
            and len(points) == 1
            and xs[0].size == 1
        )
        return one and 0.0 < points[0][1] < 1.0

    def core_delta(
        self, point: Point, x: np.ndarray, threads: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``refined`` of one point at one epsilon through the core's loop on its delta step reads
        (cpp/include/hockeystick/pld/refine/steps_refinement.hpp's delta_steps_refinement, bound as
        ``_core.pld_refine.refined_subsampled_gaussian_delta``; the C library's delta call runs it
        too): each grid's bracket the core's delta step read
        (pld/refine/subsampled_gaussian_step.hpp: the many-points steps' bracket of one point) at the refinement's tail within ``MAX_CELLS`` cells on ``threads``, with
        direct DFT bins on every grid after the first; stopped, with the brackets of the grids before
        intersected and one ``AccuracyNotMetWarning``, at a grid after the first finer than the
        point's ``coarsest_fit`` or whose window passes ``DEFAULT_MAX_POINTS`` (read at call time).
        Then delta near 1 (``near_one_bracket``) on the last grid read."""
        sigma, q, rounds, sensitivity = point
        lower, upper, gave_up, h, _ = _core.pld_refine.refined_subsampled_gaussian_delta(
            sigma=sigma,
            sampling_rate=q,
            rounds=int(rounds),
            sensitivity=sensitivity,
            epsilon=float(np.reshape(x, -1)[0]),
            rules=points_rules(self.accuracy, 0.0, "delta", "relative"),
            tail=self.tail,
            coarsest_fit=coarsest_fit(point, self.tail),
            max_cells=MAX_CELLS,
            workers=threads or None,
            max_points=fft.DEFAULT_MAX_POINTS,
        )
        if gave_up:  # a limit stopped it: the brackets of the grids before, intersected
            warn_gave_up(1)
        return self.near_one_bracket(point, h, x, np.array([lower]), np.array([upper]), threads)

    def near_one_bracket(
        self,
        point: Point,
        h: float,
        x: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
        threads: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The certified bracket (``lower``, ``upper``) of ``point`` at ``x``, read on grids down to
        ``h``, near delta = 1: its lower side raised to the affinity bound (``NearOne.raised``, which
        no grid enters), then intersected with the complement's on grid ``h``
        (``NearOne.complement_brackets``), as the many-points steps read each grid's."""
        lower = self.near_one.raised(point, x, lower, upper)
        ((lower, upper),), _ = self.near_one.complement_brackets(
            [point], [h], [x], [(lower, upper)], threads
        )
        return lower, upper


def coarsest_fit(point: Point, tail: float) -> float:
    """The least grid on which one round's loss span at ``tail`` (``tail_span``) fits
    ``TAIL_WINDOW`` points: a composed window holds at least that span, and windows near the memory
    cap take minutes to compose (sigma 1.2038, q 1.148e-6, 79 rounds at delta 8.4e-289 reach grids
    of 6.8e7 points before the cap refuses them)."""
    sigma, q, _, sensitivity = point
    return _one_round_tail_span(sigma, q, sensitivity, tail) / TAIL_WINDOW


def tail_span(point: Point, tail: float) -> float:
    """One round's loss span in the remove direction up to where its discretization cuts ``tail`` of
    the mass: the core's (pld/refine/grid_policy.hpp's ``round_tail_span``, the C library's epsilon
    call's too), log(1 - q + q e^{(2 x c - c^2) / (2 sigma^2)}) - log(1 - q) at x the larger of sigma
    Qbar^-1(tail) (the unsampled part's cut) and c + sigma Qbar^-1(min(1/2, tail / q)) (the sampled
    part's).  A lower bound on a composed window's loss span, which ``loss_span`` (8.5 standard
    deviations) does not bound at small tails: at sigma 1.2, q 1.1e-6, 79 rounds and a tail of
    1e-300 one round spans ~17, not ~1.  0 where it is not a finite number (sigma / sensitivity out
    of the discretization's range, which refuses it by name)."""
    sigma, q, _, c = point
    return float(_core.pld_refine.round_tail_span(sigma, q, sensitivity=c, tail=tail))


@functools.lru_cache(maxsize=1024)
def _one_round_tail_span(sigma: float, q: float, sensitivity: float, tail: float) -> float:
    """``tail_span`` of one round of (sigma, q, sensitivity): the rounds do not enter it, so a grid
    block's rounds values, on each of their steps, read one value (the same double)."""
    return tail_span((sigma, q, 1.0, sensitivity), tail)


# the most grid points one round's loss span at the refinement's tail may take (``coarsest_fit``): a
# quarter of ``MAX_WINDOW``, so that the composed window (wider than one round's span) stays within
# it.  Ordinary points are far from it (the README's DP-SGD run at delta 1e-10 spans 2.9 at its
# tail, so grids down to 2.8e-6)
TAIL_WINDOW = constants.MAX_WINDOW / 4


def warn_gave_up(count: int) -> None:
    """One ``AccuracyNotMetWarning`` for ``count`` points whose refinement stopped at a grid no memory holds."""
    warnings.warn(
        f"{count} point(s) stopped refining where a finer grid's composed window passes what memory holds: their "
        "brackets are those of the coarser grids (certified, possibly wider than asked; later reads may narrow them)",
        AccuracyNotMetWarning,
        stacklevel=outside_stacklevel(),  # the user's line that asked
    )


def window_refused(error: ValueError) -> bool:
    """Whether ``error`` is the composition's refusal of a window past its cap
    (``fft.compose_many``), which a finer grid of the refinement meets where the loss spans far more
    than ``loss_span``'s estimate (a delta of 1e-289 cuts each round's loss ~37 standard deviations
    out, not 8.5)."""
    return "grid points" in str(error) and ("window" in str(error) or "spans" in str(error))


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


def with_offsets(xs: list[np.ndarray], accuracy: float) -> list[np.ndarray]:
    """Each point's arguments followed by the same shifted by each of ``RIGHT_OFFSETS``, then by
    minus each of ``LEFT_FRACTIONS`` times ``accuracy`` (floored at 0):
    ``delta_accuracy="epsilon"``'s rows (``offset_rows``)."""
    lefts = [f * accuracy for f in LEFT_FRACTIONS]
    return [
        np.concatenate(
            [x] + [x + d for d in RIGHT_OFFSETS] + [np.maximum(x - d, 0.0) for d in lefts]
        )
        for x in xs
    ]
