"""Where an ``accuracy=`` refinement starts: a point's first grid, the grid ladder, the memory caps on a grid,
and the batches of points whose composed windows fit the budget."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from . import constants

# an evaluation point of SubsampledGaussianPLD: (sigma, sampling_rate, rounds, sensitivity)
Point = tuple[float, float, float, float]


def loss_span(sigma: float, q: float, rounds: float, sensitivity: float) -> float:
    """Estimated loss span of ``rounds`` composed rounds (memory and starting grid only, never accuracy).

    With s = sigma / sensitivity, one round's loss spans about
    log(1 - q + q e^{(1/2 + z s)/s^2}) - log(1 - q) (z = 8.5 standard deviations), and its
    variance is about q^2 (e^{1/s^2} - 1), so T rounds span about 2 z sqrt(T var) plus two
    rounds' spans (at most T rounds' spans).
    """
    z = 8.5
    s = min(max(sigma / sensitivity, 1e-100), 1e100)  # smaller s needs more cells, which discretization refuses
    one_round = float(np.logaddexp(math.log1p(-q), math.log(q) + (0.5 + z * s) / (s * s)) - math.log1p(-q))
    spread = 2 * z * math.sqrt(rounds * q * q * math.expm1(min(1.0 / (s * s), 700.0)))
    return min(spread + 2 * one_round, rounds * one_round)


def ladder_rung(h: float) -> float:
    """h rounded down to FINEST_INTERVAL 2^(k/2) (k an integer, no rung below ``LOWEST_INTERVAL``): the points of
    a grid block (every rounds value of one sigma and q) then share a few discretizations, not one each."""
    finest = constants.FINEST_INTERVAL
    lowest = math.floor(2.0 * math.log2(constants.LOWEST_INTERVAL / finest) + 0.5)
    k = math.floor(2.0 * math.log2(h / finest) + 1e-9)
    return float(finest * 2.0 ** (max(k, lowest) / 2.0))


def finest_interval(q: float | None = None) -> float:
    """The finest grid a refinement builds at sampling rate q: ``FINEST_INTERVAL``, or where q /
    ``BELOW_RATE_FINEST_DIVISOR`` is below it the ladder's rung at or below that (at least ``LOWEST_INTERVAL``): a
    grid at or above q is blind to the optimistic side, and a small q spans a small loss (``constants``).  None: no
    rate (a composition plan's grids), ``FINEST_INTERVAL``."""
    if q is None:
        return constants.FINEST_INTERVAL
    below = ladder_rung(max(q / constants.BELOW_RATE_FINEST_DIVISOR, constants.LOWEST_INTERVAL))
    return min(constants.FINEST_INTERVAL, below)


def within_window(point: Point, h: float) -> float:
    """h, or where the composed window of ``point`` (sigma, q, rounds, sensitivity) on it would exceed
    ``MAX_WINDOW`` points by ``loss_span``'s estimate, the finest ladder rung on which it does not: what memory
    allows (the bracket of a coarser grid is certified too, only wider), no coarser than
    ``COARSEST_START``: a span no such grid holds (sigma / sensitivity near 0) is left to the
    discretization's refusal, which names sigma."""
    least = min(loss_span(*point) / constants.MAX_WINDOW, max(h, constants.COARSEST_START))
    if h >= least:
        return h
    k = math.ceil(2.0 * math.log2(least / constants.FINEST_INTERVAL) - 1e-9)
    return float(constants.FINEST_INTERVAL * 2.0 ** (max(k, 0) / 2.0))


def windows_within_budget(sizes: list[tuple[int, float]], budget: float | None = None) -> list[list[int]]:
    """Consecutive runs of at most BATCH items (index, estimated window points) whose window points fit ``budget``
    (None: BUDGET)."""
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
    pending: list[tuple[Point, np.ndarray]], first_grid: Callable[[Point], float], budget: float | None = None
) -> list[list[tuple[Point, np.ndarray]]]:
    """The work units a thread evaluates: whole blocks (the points sharing sigma, sampling rate and sensitivity,
    in the order they first appear) packed into runs of at most BATCH points whose estimated composed grids
    (``loss_span`` over ``first_grid`` of the point) fit ``budget`` (None: BUDGET); a block larger than that is
    cut into such runs.  They depend on the points alone, never on the number of threads, so the values do not
    either."""
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
        self.relative_accuracy = relative_accuracy  # .epsilon: the tolerance max(accuracy, relative_accuracy eps)

    def default(self) -> float:
        """The h at which the bracket's h^2 scaling predicts 0.64 ``accuracy`` (between FINEST_INTERVAL and
        COARSEST_INTERVAL), from a reference bracket 4.2e-2 wide at h = 2e-3."""
        return max(
            constants.FINEST_INTERVAL,
            constants.COARSEST_INTERVAL * min(1.0, 0.8 * math.sqrt(self.accuracy / 4.2e-2)),
        )

    def first(self, point: Point | None = None, x: np.ndarray | None = None, method: str = "delta") -> float:
        """The grid ``accuracy`` starts from at ``point`` (sigma, q, rounds, sensitivity), evaluated at
        ``x`` by ``method``; one refinement step corrects a start that misses.  Without a point: ``default``.

        ``delta``: ``span_start``: a PLD spread over many loss units needs no fine grid for a bracket relative
        to delta; with ``delta_accuracy="epsilon"`` moved below the sampling rate by ``below_rate_start``.

        ``epsilon``: the h at which the connect-the-dots model predicts an epsilon bracket of 0.9 times the
        tolerance (``accuracy``, or with ``relative_accuracy`` max(accuracy, relative_accuracy eps) at the
        epsilon the model predicts), no finer than a quarter of the default.  Model:
        both sides' errors in composition come from the loss variance the grid adds, of order
        h^2/6 per round (h^2/12 per side for a law spread evenly across its cells), and the drift
        of the mean that comes with it (half that: E_P e^{-L} = 1 is kept); epsilon ~ mean +
        z spread with spread S = sqrt(T v), v = q^2 (e^{1/s^2} - 1) the one-round loss variance
        for small q (s = sigma / sensitivity) and z = sqrt(2 log(1/delta)), so the bracket is
        about (T h^2 / 7)(1 + z / S) wide, the 7 fitted to the split-tent lower side
        (pld/grid/connect_dots.hpp).  Where the sampling rate is below that grid, ``below_rate_start`` takes the
        rung below it instead: on a grid above q the optimistic side is blind (its lower epsilon 0, so the
        width the refinement fits is the upper side's alone).
        """
        default = self.default()
        if point is None:
            return default
        if method == "delta":
            start = self.span_start(point)
            return self.below_rate_start(start, point[1]) if self.delta_accuracy == "epsilon" else start
        if x is None or x.size == 0:  # the finest start the model can choose (memory estimates)
            return max(0.25 * default, constants.FINEST_INTERVAL)
        sigma, q, rounds, sensitivity = point
        s = min(max(sigma / sensitivity, 1e-100), 1e100)  # a start only: 1/s^2 neither overflows nor vanishes
        spread = math.sqrt(rounds * q * q * math.expm1(min(1.0 / (s * s), 700.0)))
        z = math.sqrt(-2.0 * math.log(float(np.min(x))))  # -log, not log(1 / x): 1 / 5e-324 overflows
        h = math.sqrt(7.0 * 0.9 * self.accuracy / (rounds * (1.0 + z / max(spread, 1e-300))))
        if self.relative_accuracy > 0:
            # the tolerance at each argument's epsilon as the central limit of the composed loss, N(S^2 / 2, S^2),
            # predicts it (S^2 / 2 + z S); the finest grid any argument asks
            zs = np.sqrt(-2.0 * np.log(x))
            with np.errstate(over="ignore"):  # an infinite tolerance asks the coarsest start (clipped below)
                tolerance = np.maximum(self.accuracy, self.relative_accuracy * (spread * spread / 2.0 + zs * spread))
                h = float(np.min(np.sqrt(7.0 * 0.9 * tolerance / (rounds * (1.0 + zs / max(spread, 1e-300))))))
        return self.below_rate_start(
            min(max(h, 0.25 * default, constants.FINEST_INTERVAL), constants.COARSEST_INTERVAL), q
        )

    def span_start(self, point: Point) -> float:
        """``first``'s ``delta`` grid before the epsilon rule's ``below_rate_start``: the h that puts the composed
        span (``loss_span``) on ``START_POINTS`` points (at most ``COARSEST_START``), no finer than the default,
        on the ladder."""
        span = loss_span(*point) / constants.START_POINTS
        return ladder_rung(max(self.default(), min(constants.COARSEST_START, span)))

    @staticmethod
    def below_rate(q: float) -> float:
        """The ladder's rung at or below q / ``BELOW_RATE_MARGIN``: the coarsest grid on which the optimistic
        side of a sampling rate q is not blind.  On a grid at or above q that side rounds the loss of the rounds
        that do not sample the record (most of them) onto 0 and -h, so the composed lower side is 0 or loose
        (``grid_rules.NextGrid.capped_without_chord``); just below q it is still loose."""
        return ladder_rung(q / constants.BELOW_RATE_MARGIN * (1.0 - 1e-9))

    def below_rate_start(self, start: float, q: float) -> float:
        """The first grid of ``.epsilon`` and of ``delta_accuracy="epsilon"``: ``start``, or where that is blind
        (the sampling rate q below it) the rung below q (``below_rate``), if q is at most
        ``BELOW_RATE_START_MAX_RATE`` and that rung at most ``BELOW_RATE_START_MAX_REFINEMENT`` times finer.
        A blind first grid only shows that a finer one is needed, and its optimistic side is the costliest
        composition of the block (at q < h its grid variance is ~0, so its Chernoff window spans the rounds'
        whole reach); the blind step after it jumps by the h^2 law of the widest cap eps, finer than the rung
        below q that meets most rounds values.  Above the rate limit a coarse grid already meets the blind
        rounds values (their deltas are large); past the refinement limit every rounds value would compose a
        large window, where the blind step after a coarse grid costs less."""
        if q >= start or q > constants.BELOW_RATE_START_MAX_RATE or q <= constants.LOWEST_INTERVAL:
            return start
        below = self.below_rate(q)
        return below if start <= constants.BELOW_RATE_START_MAX_REFINEMENT * below else start
