"""Where an ``accuracy=`` refinement starts: a point's first grid, the grid ladder, the memory caps
on a grid, and the batches of points whose composed windows fit the budget.

The grid policy (the loss span, the ladder, the memory cap, the starts) is the core's
(cpp/include/hockeystick/pld/refine/grid_policy.hpp, ``_core.pld_refine``), called with the
constants of ``constants`` as they are at call time, so that the C interface's refinement and this
package start from the same grids."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ... import _core
from ...base.accountant import Quantity
from . import constants

# an evaluation point of SubsampledGaussianPLD: (sigma, sampling_rate, rounds, sensitivity)
Point = tuple[float, float, float, float]

_POLICIES: dict[tuple[float, ...], _core.pld_refine.GridPolicy] = {}


def grid_policy(below_rate_max_rate: float | None = None) -> _core.pld_refine.GridPolicy:
    """The core's GridPolicy holding ``constants``' values now (one object per set of values).

    Parameters
    ----------
    below_rate_max_rate : float, optional
        The largest sampling rate whose first grid starts below it, in place of
        ``BELOW_RATE_START_MAX_RATE`` (``StartGrid.first``'s ``.delta`` start under
        ``delta_accuracy="epsilon"``: ``EPSILON_CRITERION_BELOW_RATE_MAX_RATE``).

    Returns
    -------
    _core.pld_refine.GridPolicy
        The policy's constants.
    """
    c = constants
    key = (
        c.FINEST_INTERVAL,
        c.LOWEST_INTERVAL,
        c.COARSEST_INTERVAL,
        c.COARSEST_START,
        float(c.START_POINTS),
        c.BELOW_RATE_MARGIN,
        c.BELOW_RATE_START_MAX_RATE if below_rate_max_rate is None else below_rate_max_rate,
        c.BELOW_RATE_START_MAX_REFINEMENT,
        c.BELOW_RATE_FINEST_DIVISOR,
        float(c.MAX_WINDOW),
    )
    found = _POLICIES.get(key)
    if found is None:
        names = (
            "finest_interval",
            "lowest_interval",
            "coarsest_interval",
            "coarsest_start",
            "start_points",
            "below_rate_margin",
            "below_rate_start_max_rate",
            "below_rate_start_max_refinement",
            "below_rate_finest_divisor",
            "max_window",
        )
        found = _POLICIES.setdefault(key, _core.pld_refine.GridPolicy(**dict(zip(names, key))))
    return found


def loss_span(sigma: float, q: float, rounds: float, sensitivity: float) -> float:
    """Estimated loss span of ``rounds`` composed rounds (memory and starting grid only, never accuracy).

    With s = sigma / sensitivity, one round's loss spans about
    log(1 - q + q e^{(1/2 + z s)/s^2}) - log(1 - q) (z = 8.5 standard deviations), and its
    variance is about q^2 (e^{1/s^2} - 1), so T rounds span about 2 z sqrt(T var) plus two
    rounds' spans (at most T rounds' spans).  Raises ValueError unless 0 < q < 1.
    """
    return float(_core.pld_refine.loss_span(sigma, q, rounds, sensitivity))


def ladder_rung(h: float) -> float:
    """h rounded down to FINEST_INTERVAL 2^(k/2) (k an integer, no rung below ``LOWEST_INTERVAL``):
    the points of a grid block (every rounds value of one sigma and q) then share a few
    discretizations, not one each."""
    return float(_core.pld_refine.ladder_rung(h, grid_policy()))


def finest_interval(q: float | None = None) -> float:
    """The finest grid a refinement builds at sampling rate q: ``FINEST_INTERVAL``, or where q /
    ``BELOW_RATE_FINEST_DIVISOR`` is below it the ladder's rung at or below that (at least
    ``LOWEST_INTERVAL``): a grid at or above q is blind to the optimistic side, and a small q spans
    a small loss (``constants``).  None: no rate (a composition plan's grids),
    ``FINEST_INTERVAL``."""
    if q is None:
        return constants.FINEST_INTERVAL
    return float(_core.pld_refine.finest_interval(q, grid_policy()))


def within_window(point: Point, h: float) -> float:
    """h, or where the composed window of ``point`` (sigma, q, rounds, sensitivity) on it would
    exceed ``MAX_WINDOW`` points by ``loss_span``'s estimate, the finest ladder rung on which it
    does not: what memory allows (the bracket of a coarser grid is certified too, only wider), no
    coarser than ``COARSEST_START``: a span no such grid holds (sigma / sensitivity near 0) is left
    to the discretization's refusal, which names sigma."""
    sigma, q, rounds, sensitivity = point
    return float(
        _core.pld_refine.within_window(
            sigma=sigma, q=q, rounds=rounds, sensitivity=sensitivity, h=h, policy=grid_policy()
        )
    )


def windows_within_budget(
    sizes: list[tuple[int, float]], budget: float | None = None
) -> list[list[int]]:
    """Consecutive runs of at most BATCH items (index, estimated window points) whose window points
    fit ``budget`` (None: BUDGET)."""
    budget = constants.BUDGET if budget is None else budget
    batches: list[list[int]] = [[]]
    used = 0.0
    for i, size in sizes:
        if batches[-1] and (len(batches[-1]) >= constants.BATCH or used + size > budget):
            batches.append([])
            used = 0.0
        batches[-1].append(i)
        used += size
    return [b for b in batches if b]


def work_units(
    pending: list[tuple[Point, np.ndarray]],
    first_grid: Callable[[Point], float],
    budget: float | None = None,
) -> list[list[tuple[Point, np.ndarray]]]:
    """The work units a thread evaluates: whole blocks (the points sharing sigma, sampling rate and
    sensitivity, in the order they first appear) packed into runs of at most BATCH points whose
    estimated composed grids (``loss_span`` over ``first_grid`` of the point) fit ``budget`` (None:
    BUDGET); a block larger than that is cut into such runs.  They depend on the points alone, never
    on the number of threads, so the values do not either."""
    budget = constants.BUDGET if budget is None else budget
    blocks: dict[tuple[float, float, float], list[tuple[Point, np.ndarray, float]]] = {}
    for point, sel in pending:
        size = loss_span(*point) / first_grid(point) + 1.0
        blocks.setdefault((point[0], point[1], point[3]), []).append((point, sel, size))
    units: list[list[tuple[Point, np.ndarray]]] = []
    used: tuple[int, float] = (constants.BATCH, float(budget))  # the first block opens a unit
    for block in blocks.values():
        size = sum(w for _, _, w in block)
        if len(block) > constants.BATCH or size > budget:
            runs = windows_within_budget([(i, w) for i, (_, _, w) in enumerate(block)], budget)
            units.extend([[block[i][:2] for i in run] for run in runs])
            used = (constants.BATCH, float(budget))
        elif used[0] + len(block) > constants.BATCH or used[1] + size > budget:
            units.append([b[:2] for b in block])
            used = (len(block), size)
        else:
            units[-1].extend(b[:2] for b in block)
            used = (used[0] + len(block), used[1] + size)
    return units


class StartGrid:
    """The first grid of a point under ``accuracy`` (and ``delta_accuracy``, the ``.delta`` criterion)."""

    def __init__(self, accuracy: float, delta_accuracy: str, relative_accuracy: float = 0.0):
        self.accuracy = accuracy
        self.delta_accuracy = delta_accuracy
        self.relative_accuracy = (
            relative_accuracy  # .epsilon: the tolerance max(accuracy, relative_accuracy eps)
        )

    def default(self) -> float:
        """The h at which the bracket's h^2 scaling predicts 0.64 ``accuracy`` (between
        FINEST_INTERVAL and COARSEST_INTERVAL), from a reference bracket 4.2e-2 wide at h = 2e-3."""
        return float(_core.pld_refine.start_default(self.accuracy, grid_policy()))

    def first(
        self, point: Point | None = None, x: np.ndarray | None = None, method: Quantity = "delta"
    ) -> float:
        """The grid ``accuracy`` starts from at ``point`` (sigma, q, rounds, sensitivity), evaluated
        at ``x`` by ``method``; one refinement step corrects a start that misses.  Without a point:
        ``default``.

        ``delta``: ``span_start``: a PLD spread over many loss units needs no fine grid for a
        bracket relative to delta; with ``delta_accuracy="epsilon"`` moved below the sampling rate
        by ``below_rate_start``'s rule at sampling rates up to
        ``EPSILON_CRITERION_BELOW_RATE_MAX_RATE`` (``constants``: the step after a blind grid lands
        finer than the rung below q).  The start chooses grids, never bounds: every grid's bracket
        is certified on its own, so another first grid changes which brackets are intersected, not
        that the result contains the truth.

        ``epsilon``: the h at which the connect-the-dots model predicts an epsilon bracket of 0.9
        times the tolerance (``accuracy``, or with ``relative_accuracy`` max(accuracy,
        relative_accuracy eps) at the epsilon the model predicts), no finer than a quarter of the
        default.  Model: both sides' errors in composition come from the loss variance the grid
        adds, of order h^2/6 per round (h^2/12 per side for a law spread evenly across its cells),
        and the drift of the mean that comes with it (half that: E_P e^{-L} = 1 is kept); epsilon ~
        mean + z spread with spread S = sqrt(T v), v = q^2 (e^{1/s^2} - 1) the one-round loss
        variance for small q (s = sigma / sensitivity) and z = sqrt(2 log(1/delta)), so the bracket
        is about (T h^2 / 7)(1 + z / S) wide, the 7 fitted to the split-tent lower side
        (pld/grid/connect_dots.hpp); with ``relative_accuracy`` the tolerance at each argument's
        epsilon as the central limit of the composed loss, N(S^2 / 2, S^2), predicts it (S^2 / 2 + z
        S), the finest grid any argument asks.  Where the sampling rate is below that grid,
        ``below_rate_start`` takes the rung below it instead: on a grid above q the optimistic side
        is blind (its lower epsilon 0, so the width the refinement fits is the upper side's alone).
        The core's ``epsilon_start`` and ``delta_start`` (pld/refine/grid_policy.hpp) compute both.
        """
        if point is None:
            return self.default()
        policy = grid_policy()
        sigma, q, rounds, sensitivity = point
        if method == "delta":
            criterion = self.delta_accuracy == "epsilon"
            return float(
                _core.pld_refine.delta_start(
                    sigma=sigma,
                    q=q,
                    rounds=rounds,
                    sensitivity=sensitivity,
                    accuracy=self.accuracy,
                    epsilon_criterion=criterion,
                    policy=(
                        grid_policy(constants.EPSILON_CRITERION_BELOW_RATE_MAX_RATE)
                        if criterion
                        else policy
                    ),
                )
            )
        deltas = np.empty(0) if x is None else x
        return float(
            _core.pld_refine.epsilon_start(
                sigma=sigma,
                q=q,
                rounds=rounds,
                sensitivity=sensitivity,
                delta=deltas,
                accuracy=self.accuracy,
                relative_accuracy=self.relative_accuracy,
                policy=policy,
            )
        )

    def span_start(self, point: Point) -> float:
        """``first``'s ``delta`` grid before the epsilon rule's ``below_rate_start``: the h that
        puts the composed span (``loss_span``) on ``START_POINTS`` points (at most
        ``COARSEST_START``), no finer than the default, on the ladder."""
        sigma, q, rounds, sensitivity = point
        return float(
            _core.pld_refine.span_start(
                sigma=sigma,
                q=q,
                rounds=rounds,
                sensitivity=sensitivity,
                accuracy=self.accuracy,
                policy=grid_policy(),
            )
        )

    @staticmethod
    def below_rate(q: float) -> float:
        """The ladder's rung at or below q / ``BELOW_RATE_MARGIN``: the coarsest grid on which the
        optimistic side of a sampling rate q is not blind.  On a grid at or above q that side rounds
        the loss of the rounds that do not sample the record (most of them) onto 0 and -h, so the
        composed lower side is 0 or loose (points_rules.hpp's capped arguments); just below
        q it is still loose."""
        return float(_core.pld_refine.below_rate(q, grid_policy()))

    def below_rate_start(self, start: float, q: float) -> float:
        """The first grid of ``.epsilon`` and of ``delta_accuracy="epsilon"``: ``start``, or where
        that is blind (the sampling rate q below it) the rung below q (``below_rate``), if q is at
        most ``BELOW_RATE_START_MAX_RATE`` (``.delta``'s start, ``first``: at most
        ``EPSILON_CRITERION_BELOW_RATE_MAX_RATE``) and that rung at most
        ``BELOW_RATE_START_MAX_REFINEMENT`` times finer. A blind first grid only shows that a finer
        one is needed, and its optimistic
        side is the costliest composition of the block (at q < h its grid variance is ~0, so its
        Chernoff window spans the rounds' whole reach); the blind step after it jumps by the h^2 law
        of the widest cap eps, finer than the rung below q that meets most rounds values.  Above the
        rate limit a coarse grid already meets the blind rounds values (their deltas are large);
        past the refinement limit every rounds value would compose a large window, where the blind
        step after a coarse grid costs less."""
        return float(_core.pld_refine.below_rate_start(start, q, grid_policy()))
