"""Accountants built on PLD composition.

``PLDAccountant`` composes rounds as training proceeds (sigma or sampling rate
may change between rounds); distinct round types are discretized once and
composed by one FFT each.  ``SubsampledGaussianPLD`` follows the library's
accountant contract: keyword parameters that broadcast (numpy arrays allowed),
``.delta(epsilon)`` and ``.epsilon(delta)`` returning certified upper bounds
(``bound="lower"``/``"both"`` for the other side), one PLD per distinct point.
"""

from __future__ import annotations

import functools
import math
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, cast

import numpy as np

from ... import _core, _validation, progress
from ..._elementwise import ArrayLike, broadcast_float_arrays, broadcast_shape
from ...certified_theta import (
    radius_down,
    radius_up,
    theta_epsilon_lower,
    theta_epsilon_upper,
    theta_lower,
    theta_upper,
)
from ..compose.distribution import (
    Bound,
    PrivacyLossDistribution,
    Result,
    bound_result,
    brackets,
    compose_all,
    delta_values,
    direction_uppers,
    epsilon_values,
    evaluate_into,
    undominated_lower_sides,
)
from ..compose.fft import DEFAULT_TAIL
from ..compose.pmf import GridPMF
from ..mechanisms.constructors import DEFAULT_INTERVAL, checked_interval, subsampled_gaussian
from ..reads import along_run, complement
from ..reads.affinity_ceiling import delta_lower_near_one, subsampled_gaussian_log_affinity
from ..reads.epsilon_width import LEFT_FRACTIONS, RIGHT_OFFSETS, epsilon_gap
from ..refine import dominated_direction, round_cache
from ..refine.calibration_start import calibration_grids, calibration_start
from ..refine.directional_delta import calibration_directions
from ..sampling import two_resolution

# an evaluation point of SubsampledGaussianPLD: (sigma, sampling_rate, rounds, sensitivity)
Point = tuple[float, float, float, float]
# a composed PLD's key: its point, its grid h, and whether its optimistic side was built
PLDKey = tuple[float, float, float, float, float, bool]

# guards SubsampledGaussianPLD's kept complement factors, which the threads of one call share
_COMPLEMENT_LOCK = threading.Lock()


class AccuracyNotMetWarning(UserWarning):
    """An ``accuracy=`` call returned brackets wider than the accuracy asked (certified still, only wider): their
    count is in the message, their positions in the accountant's ``unmet``."""


class PLDAccountant:
    """Accumulates rounds; ``delta``/``epsilon`` compose everything seen so far.

    acc = PLDAccountant(value_discretization_interval=1e-4)
    acc.compose_subsampled_gaussian(sigma=1.0, sampling_rate=0.01, rounds=5000)
    acc.compose_subsampled_gaussian(sigma=0.8, sampling_rate=0.02, rounds=5000)
    acc.epsilon(1e-5, bound="both")
    """

    def __init__(self, value_discretization_interval: float = DEFAULT_INTERVAL, tail: float = DEFAULT_TAIL):
        self.value_discretization_interval = checked_interval(value_discretization_interval)
        self.tail = float(tail)
        self._pld: PrivacyLossDistribution | None = None
        # the rounds composed so far, in order: (one round's PLD, rounds), for the curves along the run
        self._segments: list[tuple[PrivacyLossDistribution, int]] = []
        self._cache: dict[tuple[float, float, float], PrivacyLossDistribution] = {}

    @_validation.renamed_keywords(count="rounds")
    def compose(self, pld: PrivacyLossDistribution, rounds: int = 1) -> PLDAccountant:
        """Add ``rounds`` rounds of a mechanism given by its PLD (same discretization interval)."""
        if pld.value_discretization_interval != self.value_discretization_interval:
            raise ValueError("the PLD must use the accountant's value_discretization_interval")
        step = pld.self_compose(rounds)
        self._pld = step if self._pld is None else self._pld.compose(step)
        self._segments.append((pld, int(rounds)))
        return self

    @_validation.renamed_keywords(count="rounds")
    def compose_subsampled_gaussian(
        self, sigma: float, sampling_rate: float = 1.0, rounds: int = 1, sensitivity: float = 1.0
    ) -> PLDAccountant:
        """Add ``rounds`` rounds of the Poisson-subsampled Gaussian (rate 1: plain Gaussian)."""
        key = (float(sigma), float(sampling_rate), float(sensitivity))
        if key not in self._cache:
            self._cache[key] = subsampled_gaussian(
                sigma,
                sampling_rate,
                sensitivity=sensitivity,
                value_discretization_interval=self.value_discretization_interval,
                tail=self.tail,
            )
        return self.compose(self._cache[key], rounds)

    def delta(self, epsilon: ArrayLike, bound: Bound = "upper") -> Result:
        """Certified upper bound on delta(epsilon) of every round composed so far (``bound="lower"`` /
        ``"both"``: the certified lower side too). Before any round, nothing has been released:
        delta = 0, as dp_accounting's and Opacus's accountants answer."""
        if self._pld is None:
            eps = epsilon_values(epsilon)
            return _validation.exact_sides(bound, 0.0 if eps.ndim == 0 else np.zeros(eps.shape))
        return self._pld.delta(epsilon, bound)

    def epsilon(self, delta: ArrayLike, bound: Bound = "upper") -> Result:
        """Smallest epsilon >= 0 whose certified delta bound of the rounds so far is <= delta
        (``bound="lower"`` / ``"both"`` for the certified lower side). Before any round: 0."""
        if self._pld is None:
            dlt = delta_values(delta)
            return _validation.exact_sides(bound, 0.0 if dlt.ndim == 0 else np.zeros(dlt.shape))
        return self._pld.epsilon(delta, bound)

    def epsilon_curve(
        self, delta: float, *, every: int | None = None, steps: ArrayLike | None = None
    ) -> along_run.CurveAlongRun:
        """The certified bracket of epsilon at ``delta`` after every ``every``-th round composed so far (and the
        last), or after each of ``steps`` (strictly increasing, at most the rounds so far); every round by
        default.  Each point is ``epsilon(delta, bound="both")`` of an accountant given the same rounds up to
        that checkpoint, all checkpoints composed in shared batches (``along_run.prefix_curve``)."""
        return along_run.prefix_curve(self._segments, "epsilon", delta, self._checkpoints(every, steps))

    def delta_curve(
        self, epsilon: float, *, every: int | None = None, steps: ArrayLike | None = None
    ) -> along_run.CurveAlongRun:
        """``epsilon_curve``'s twin: the certified bracket of delta at ``epsilon`` after each checkpoint."""
        return along_run.prefix_curve(self._segments, "delta", epsilon, self._checkpoints(every, steps))

    def _checkpoints(self, every: int | None, steps: ArrayLike | None) -> np.ndarray:
        total = sum(rounds for _, rounds in self._segments)
        if total == 0:
            raise ValueError("no round composed yet: a curve along the run needs compose() first")
        return along_run.checkpoints(total, every, steps)


class SubsampledGaussianPLD(along_run.RoundsCurves):
    """T rounds of the Poisson-subsampled Gaussian, every round released.

    delta(eps) = max over add/remove of the T-fold composition of the
    discretized PLD (Doroshenko et al. 2022 connect-the-dots; Zhu, Dong, Wang
    2022 for the dominating pairs).  With ``sampling_rate == 1`` all rounds are
    Gaussian and the composition is exact in closed form,
    delta = theta(sqrt(T) sensitivity / sigma, eps) (paper 000 eq. 6, paper 004 eq. 8),
    and the two bounds are that closed form rounded outward (``hockeystick.certified_theta``).

    Parameters broadcast with each other and with the argument; one PLD is
    built per distinct (sigma, sampling_rate, rounds, sensitivity), discretized
    ``BATCH`` points per parallel C++ call.

    Grid: either a fixed ``value_discretization_interval`` h, or ``accuracy``:
    then, per distinct point, h starts where the bracket is predicted to meet it
    (``_first_interval``) and shrinks (down to 1e-5, by a factor predicted from
    the bracket's width, see ``_refined``) until the
    certified bracket is no wider than ``accuracy`` (in epsilon for
    ``.epsilon``; for ``.delta`` relative to the upper bound, or to ``DELTA_FLOOR`` = 1e-9
    where the upper bound is below it: every bound carries h-independent charges, such as
    the mass at +infinity of T rounds, T 5e-16, so a relative bracket on a delta of 1e-14
    is out of reach at any grid) at every requested argument, or until a refinement no
    longer narrows the bracket; the reported bounds are those of the final grid.
    With ``accuracy``, ``.epsilon(delta)`` also sizes its truncations to the smallest delta asked
    (``truncation.tails``): the remove direction's discretization and the composed windows drop up to
    0.05 accuracy x delta each, all of it charged, instead of ``tail`` (never less than ``tail``):
    shorter windows, so less round-off and fewer transform points (on W3 a narrower bracket, in less time);
    ``delta_accuracy="epsilon"`` sizes its truncations to ``DELTA_FLOOR`` the same way (the one-round tail
    the least over the rounds values of a (sigma, q), which share that discretization).

    ``delta_accuracy="epsilon"`` measures a ``.delta`` bracket in epsilon instead (G1's criterion,
    docs/references.md): [lo, up] at eps implies the certified
    epsilon bracket [eps1, eps] at delta = up, and an argument is done once that is no wider than
    ``accuracy``, or once up < ``DELTA_FLOOR``: the bracket then certifies delta < 1e-9 at eps, far
    below any delta a user targets, and no accountant defines an epsilon bracket there (the lower
    side is 0 and the upper one h-independent charges such as T x 5e-16 of round-off and the mass
    at +infinity, so refining could not help); symmetrically once lo >= ``DELTA_CEILING`` = 1 - 1e-9:
    the bracket certifies delta > 1 - 1e-9 at eps, so no (eps, delta) guarantee holds there for any
    delta a user targets (the lower side near 1 comes from the rounds' Renyi affinity where the
    composition's round-off charge would leave it 1e-9 low: ``affinity_ceiling``).  Its width is the
    least of two certified ones: from convexity of delta in e^eps through a certified upper bound at
    eps + d, d in ``epsilon_width.RIGHT_OFFSETS`` (``epsilon_width.certified_epsilon_width``), and from
    monotonicity through a certified lower bound at eps - d, d in ``epsilon_width.LEFT_FRACTIONS`` times
    ``accuracy`` (``epsilon_width.left_epsilon_width``: d once that lower bound exceeds up; where delta falls
    steeply, near 1e-9, the chord's width is 10-20x the left one's, so with the chord alone such points
    refine no further: sigma 3.13, q 8.9e-4, 10^5 rounds, eps 0.5 would stop at [2.8e-10, 1.3e-9], chord
    width 0.39, and meets at h 8e-5, [5.0e-10, 7.5e-10]); the lower side at eps is also raised to the certified lower
    sides at eps + d (delta does not increase; never to those at eps - d); the returned delta bounds are
    certified either way, only the stopping rule differs.
    Every ``.epsilon`` grid, a point's first included, composes with the direct DFT bins: the plain transform's
    round-off charge, T x ~5e-16, is what leaves an epsilon at delta ~1e-10 wide after many rounds, and the h^2
    law then reads it as a grid's error and jumps to the finest grid (sigma 0.5, q 1e-4, 18421 rounds, delta
    1e-10: 9.1 wide at h = 8e-5 without them, 0.016 with them); its first grid starts below a small sampling rate
    (``_unblinded_start``) as the epsilon rule's does, and no law is fitted through a grid whose lower epsilon
    was 0 where too wide (blind: the width was the upper side's alone).  An
    ``.epsilon`` call whose brackets are not all within ``accuracy`` flags them in ``unmet`` (a boolean array
    of the result's shape, 0-d for a scalar call; None before any such call or without ``accuracy``) and counts them in one
    ``AccuracyNotMetWarning``: certified brackets, wider than asked where no grid within ``MAX_WINDOW`` and
    ``FINEST_INTERVAL`` narrows them (deltas near 1e-10 after few rounds at sigma 0.5).
    Its grids: a point whose sampling rate is small and below its first grid starts just below the rate
    instead (``_unblinded_start``: a grid above q leaves the lower side 0), and the add direction is
    screened on a coarser grid (``dominated_direction.delta_sides``).  A point whose upper side is below
    ``DELTA_FLOOR`` at every argument is done on that side alone, its lower bound 0 (``_settled_uppers``,
    ``delta_sides``' ``settled``: no optimistic composition is asked of it).
    The default ``"relative"`` keeps the relative rule above.

    ``workers`` (scipy's convention): threads evaluating disjoint blocks of points at once, a
    block being the points that share (sigma, sampling_rate, sensitivity) (one discretization,
    every rounds value a power of its transform, every argument a scan); None (default): every
    core this process may use, at most ``OMP_NUM_THREADS`` where that is set (Dask's worker
    processes set it to 1); -1 every core, -2 all but one; 1: one thread throughout.  The blocks and each point's
    grids do not depend on it, so the values are the same bit for bit for any ``workers``.
    ``workers`` may also be a map-like callable (scipy.optimize.differential_evolution's convention:
    ``workers=pool.map`` of a ``concurrent.futures.ProcessPoolExecutor``, a ``multiprocessing.Pool``,
    or ``client.get_executor().map`` of a Dask client): the blocks are then evaluated as
    ``workers(task, units)``, one thread each, in whatever processes the pool owns (no GIL shared
    between blocks: 2 processes take G1's million points in about 0.82x the wall time of 2 threads),
    with the same values bit for bit; the tasks and their results are pickled.
    """

    CURVE_PARAMETERS = ("sigma", "sampling_rate", "sensitivity")

    COARSEST_INTERVAL = 2e-3
    DIRECT_FIRST_DELTA = 1e-8  # .epsilon: below it a point's first grid takes the direct bins (_near_round_off)
    FINEST_INTERVAL = 1e-5
    COARSEST_START = 1.0
    DELTA_FLOOR = 1e-9
    DELTA_CEILING = 1.0 - DELTA_FLOOR
    NEAR_ONE = 1.0 - 1e-6
    # above this upper delta the complement's bracket is taken too (``_complement_near_one``): the composed
    # PMFs' gap there is absolute (T rounds of relative errors per mass, ~1e-8 after 68665 rounds at sigma
    # 0.5, q 0.0078), 2-5 % of 1 - delta ~ 1e-6
    COMPLEMENT_ABOVE = 1.0 - 1e-3
    STALLED = 0.9
    SLOWEST_POWER = 0.5
    NEAR_CAPPED = 4.0
    SLOW_REACH = 1 / 8
    BLIND_MARGIN = 1.2
    BLIND_START_RATE = 4e-3
    BLIND_START_REACH = 16.0
    CAPPED_STEP = 1 / 32
    NO_LOWER_STEP = 1 / 4
    GAP_TARGET = 1.0
    OFFSET_LIMITED = 2.0
    OFFSET_GAP_TARGET = 0.5
    START_POINTS = 1 << 13
    # At most this many points are discretized per C++ call and composed per batch of FFTs
    # (compose_all), fewer when their composed grids would exceed BUDGET points in total:
    # the composed PLDs are kept for the current chunk only, so memory stays bounded.
    BATCH = 64
    BUDGET = 1 << 21
    # accuracy= never builds a grid whose estimated composed window (``loss_span`` / h) exceeds this many points
    # (``_affordable``; ``loss_span`` overestimates such windows ~1.4x): G1's in-process call peaked at 2.1 GB
    # resident without it (sigma 0.5, q 0.011, 15264 rounds refined to h = 1e-5: a window of 17.3e6 points),
    # 0.97 GB at 2^23, 0.83 GB at 2^22, with the same points met at each.
    MAX_WINDOW = 1 << 22

    # calibrate() starts its bracketing here (the central-limit estimate, calibration_start.py)
    calibration_start = staticmethod(calibration_start)
    # ... and solves on coarser grids first (calibration_start.py), to start near the answer
    calibration_grids = staticmethod(calibration_grids)
    # ... and composes the add direction only where the remove direction alone does not decide (directional_delta.py)
    calibration_directions = staticmethod(calibration_directions)

    def __init__(
        self,
        sigma: ArrayLike,
        sampling_rate: ArrayLike,
        rounds: ArrayLike,
        *,
        sensitivity: ArrayLike = 1.0,
        value_discretization_interval: float | None = None,
        accuracy: float | None = None,
        tail: float = DEFAULT_TAIL,
        delta_accuracy: Literal["relative", "epsilon"] = "relative",
        workers: int | Callable[..., Iterable[Any]] | None = None,
    ):
        (s, q, t, c), _, _ = broadcast_float_arrays(
            sigma=_validation.positive(sigma, "sigma"),
            sampling_rate=_validation.in_interval(
                sampling_rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False
            ),
            rounds=_validation.positive_integer(rounds, "rounds", maximum=_validation.MAX_EXACT_INTEGER),
            sensitivity=_validation.positive(sensitivity, "sensitivity"),
        )
        self.sigma, self.sampling_rate, self.rounds, self.sensitivity = s, q, t, c
        if accuracy is not None and value_discretization_interval is not None:
            raise ValueError("give either value_discretization_interval or accuracy, not both")
        self.accuracy = (
            None
            if accuracy is None
            else float(_validation.positive(_validation.single(accuracy, "accuracy"), "accuracy"))
        )
        self.value_discretization_interval = checked_interval(
            DEFAULT_INTERVAL if value_discretization_interval is None else value_discretization_interval
        )
        self.tail = float(_validation.real(_validation.single(tail, "tail"), "tail"))
        self.delta_accuracy = _validation.choice(delta_accuracy, "delta_accuracy", ("relative", "epsilon"))
        if not callable(workers) and callable(getattr(workers, "map", None)):
            raise _validation.ParameterTypeError(
                f"workers must be a count, None or a map-like callable; got a "
                f"{type(workers).__name__}: pass its map (workers=pool.map)"
            )
        self._map = workers if callable(workers) else None
        self.workers = 1 if self._map is not None else _validation.workers(workers)
        self._plds: dict[PLDKey, PrivacyLossDistribution] = {}
        # the last ``.epsilon`` call's flags with ``accuracy``: True where its bracket is wider than ``accuracy``
        self.unmet: np.ndarray | None = None
        self._log_affinities: dict[tuple[float, float, float], np.ndarray] = {}
        self._complement_factors: OrderedDict[tuple[float, float, float], list[complement.DirectionFactors]] = (
            OrderedDict()
        )

    def _raised_near_one(self, point: Point, eps: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """``lower`` (certified lower deltas of ``point`` = (sigma, q, rounds, sensitivity) at ``eps``) raised,
        where the upper side is above ``NEAR_ONE`` (1 - 1e-6), to the affinity bound
        1 - min_lam e^{lam eps} A(lam)^T (``affinity_ceiling``: the composed lower side is charged the
        FFT's round-off, about 1e-9 at delta ~ 1, far above 1 - delta there; elsewhere the affinity
        bound is looser than the composition).  One affinity table per (sigma, q, sensitivity),
        kept on the accountant (a few ms; threads computing the same one write the same values)."""
        near = upper > self.NEAR_ONE
        if not near.any():
            return lower
        sigma, q, rounds, sensitivity = point
        key = (sigma, q, sensitivity)
        if key not in self._log_affinities:
            self._log_affinities[key] = subsampled_gaussian_log_affinity(sigma / sensitivity, q)
        raised = np.array(lower, dtype=np.float64)
        raised[near] = np.maximum(raised[near], delta_lower_near_one(self._log_affinities[key], rounds, eps[near]))
        return raised

    # a step to the grid a point was on takes direct bins in every row whose estimated charge reaches this, a
    # 10^4th of the floor's delta (``_step_batches``; 0 would do as well: the cost is the same within noise)
    SAME_GRID_DIRECT_CHARGE = 1e-13

    # complement factors kept for the last few (sigma / sensitivity, q, h): a refinement step's rows share them
    COMPLEMENT_KEPT = 4

    def _complement_near_one(
        self,
        points: list[Point],
        hs: list[float],
        xs: list[np.ndarray],
        brackets: list[tuple[np.ndarray, np.ndarray]],
        threads: int,
        adds: list[np.ndarray | None] | None = None,
    ) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[np.ndarray | None]]:
        """Each bracket (certified lower and upper deltas of ``points[i]`` = (sigma, q, rounds, sensitivity) at
        ``xs[i]`` on grid ``hs[i]``) intersected, where its upper side is above ``COMPLEMENT_ABOVE`` (1 - 1e-3), with
        the complement's (``complement.delta_brackets``: 1 - delta bounded with relative accuracy, from a
        dominating PMF with masses taken from below and a test on the cells' labels; there the composed
        PMFs' relative errors per mass, T-fold, leave a gap of a few 1e-10 while 1 - delta is ~1e-8: sigma
        0.5, q 0.1, 1600 rounds, eps 0.5, h 1e-3: 1 - delta in [8.546e-9, 9.065e-9] from the composed PMFs,
        [8.7878e-9, 8.7885e-9] from the complement).  The lower side comes from the remove direction's test
        (it sets delta near 1 in G1: the add direction's complement is the larger there), the upper side from
        both directions, the add one's composed only where ``adds[i]`` (its certified upper side from the composed PMFs, where known) is
        not already below the remove direction's.
        Points sharing (sigma / sensitivity, q, h) are composed together; a group whose factors or
        compositions cannot be built (ValueError: too many cells, a window above the cap) is left as it is.
        Also returns, per point, where the complement's bracket was taken (None: nowhere)."""
        out = list(brackets)
        taken: list[np.ndarray | None] = [None] * len(brackets)
        groups: dict[tuple[float, float, float], list[int]] = {}
        for i, (point, h, (_, up)) in enumerate(zip(points, hs, brackets)):
            if h <= complement.MAX_INTERVAL and np.any(up > self.COMPLEMENT_ABOVE):
                groups.setdefault((point[0] / point[3], point[1], h), []).append(i)
        given = adds if adds is not None else [None] * len(brackets)
        for key, members in groups.items():
            factors = self._complement_factors_of(key)
            if not factors:
                continue
            near = [brackets[i][1] > self.COMPLEMENT_ABOVE for i in members]
            try:
                known = [None if (add := given[i]) is None else add[n] for i, n in zip(members, near)]
                found = complement.delta_brackets(
                    factors,
                    [int(points[i][2]) for i in members],
                    [xs[i][n] for i, n in zip(members, near)],
                    workers=threads or None,
                    others=known,
                )
            except ValueError:
                continue
            for i, n, (lo, up) in zip(members, near, found):
                lower, upper = (np.array(side, dtype=np.float64) for side in brackets[i])
                lower[n] = np.maximum(lower[n], lo)
                upper[n] = np.minimum(upper[n], up)
                out[i] = (lower, upper)
                taken[i] = n
        return out, taken

    def _complement_factors_of(self, key: tuple[float, float, float]) -> list[complement.DirectionFactors]:
        """Both directions' complement factors at key = (sigma / sensitivity, q, h) (the test's for the remove
        direction only), kept for the last ``COMPLEMENT_KEPT`` keys; [] where they cannot be built."""
        with _COMPLEMENT_LOCK:
            factors = self._complement_factors.get(key)
        if factors is None:
            s, q, h = key
            try:
                factors = [
                    complement.subsampled_gaussian_factors(s, q, True, h),
                    complement.subsampled_gaussian_factors(s, q, False, h, test=False),
                ]
            except ValueError:
                factors = []
            with _COMPLEMENT_LOCK:
                self._complement_factors[key] = factors
                while len(self._complement_factors) > self.COMPLEMENT_KEPT:
                    self._complement_factors.popitem(last=False)
        return factors

    def _build(
        self,
        store: dict[PLDKey, PrivacyLossDistribution],
        points: list[Point],
        h: float,
        optimistic: bool = True,
        threads: int = 0,
        blocks: bool = False,
    ) -> None:
        """Discretizes every point not in ``store`` at grid h in one C++ call (``threads`` OpenMP threads
        over the points, 0: all cores) and puts its PLD there.

        ``optimistic=False`` (an upper bound is all that is asked) skips the optimistic PMFs;
        such PLDs are kept under their own key, so a later lower bound rebuilds them.
        ``blocks``: where q < h (``two_resolution.applies``), the lower side is composed from blocks of
        rounds built on a grid finer than q and merged onto h (``two_resolution``): on the fixed grid a
        user picked, it is within ~1 % of the fine-grid delta where the one-round lower side is 0
        (sigma 0.5, q 1e-4, 10^4 rounds, eps 1, h = 1e-3: 1.778e-5 against 0, truth 1.781e-5), at the cost
        of composing on the fine grid; where the fine grid's one-round PMF would pass
        ``two_resolution.FINE_CELLS`` (small sigma reaches far in loss) the one-round lower side is
        kept.  The ``accuracy=`` refinement does not ask for it: its grids are driven by the upper side
        and by the round-off charges (direct bins), so the blocks would cost more for the same points met.
        """
        missing = [p for p in points if (*p, h, optimistic) not in store]
        if not missing:
            return
        # One discretization per (sigma, q, sensitivity): every rounds value of a pair composes the
        # same factors (and a batch of compositions transforms a shared factor once).
        # Kept between calls (round_cache): calibrating the rounds discretizes each pair once.
        pairs = list(dict.fromkeys((p[0], p[1], p[3]) for p in missing))
        dists = dict(zip(pairs, round_cache.discretized(pairs, h, self.tail, optimistic, threads)))
        # q < h: the lower side from blocks of rounds composed on a grid finer than q (two_resolution)
        for pair in pairs if optimistic and blocks else ():
            cells = max(factor.upper.p.size for direction in dists[pair].directions for factor in direction)
            if two_resolution.applies(*pair, h, cells):
                dists[pair] = two_resolution.with_block_lowers(
                    dists[pair], round_cache.block_lowers(pair, h, self.tail, threads)
                )
        for p in missing:
            store[(*p, h, optimistic)] = dists[(p[0], p[1], p[3])].self_compose(int(p[2]))

    def _refined(
        self, points: list[Point], xs: list[np.ndarray], method: str, threads: int = 0
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per point, the certified (lower, upper) at its arguments on a grid that meets ``accuracy``
        (or on which the bracket stopped narrowing).

        Starts at ``_first_interval`` (of the point and its arguments); a point still too wide moves to h 0.9 sqrt(accuracy / width)
        (the bracket shrinks about like h^2: 4.2e-2 -> 6.6e-4 from h = 2e-3 to 2.5e-4 on W2),
        so it lands near the coarsest adequate grid in one or two steps instead of halving
        through every level; each step is at most 0.9 h (down to 1e-5), save one recomposition of the same
        grid with direct bins for charge-limited arguments (``_next_interval``).

        Every grid's bracket is certified, so a point keeps, per argument, the intersection of
        the brackets of all its grids (the largest lower side, the smallest upper side): a finer
        grid is not always tighter (at a delta of 1e-10 the round-off charge of the larger
        window dominates: 10^4 rounds, q = 1.3e-3, sigma 1, eps 1: relative width 0.23 at
        h = 6.4e-4, 0.30 at 8e-5, 0.35 at 1e-5).  An argument still too wide drives the next
        step only while its width keeps narrowing, each step below ``STALLED`` (0.9) of the
        last: otherwise its width is set by what no grid removes (the window's round-off and
        tail charges, the mass at +infinity), so a finer grid would only cost time (a delta
        of 1e-14 bracketed by [0, 5e-15]); the point is done when no argument drives it.
        The points of one step are discretized in one batch and composed in batches whose
        estimated windows fit ``BUDGET`` points; each batch is evaluated and dropped at once,
        so memory stays bounded however fine a refinement goes.

        ``delta_accuracy="epsilon"``: each point's arguments are followed by the same arguments
        shifted by each of ``RIGHT_OFFSETS``, then by minus each of ``LEFT_FRACTIONS`` times ``accuracy``
        (floored at 0): the upper bounds to the right and the lower bounds to the left certify the epsilon width
        (``_width``, ``_offset_rows``); only the point's own arguments drive the refinement and are returned.
        ``threads``: the OpenMP and scipy.fft threads of the C++ calls (0: all cores).
        """
        assert self.accuracy is not None  # _refined runs only with accuracy=
        by_epsilon = method == "delta" and self.delta_accuracy == "epsilon"
        own = [x.size for x in xs]
        if by_epsilon:
            lefts = [f * self.accuracy for f in LEFT_FRACTIONS]
            xs = [
                np.concatenate([x] + [x + d for d in RIGHT_OFFSETS] + [np.maximum(x - d, 0.0) for d in lefts])
                for x in xs
            ]
        chosen: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(points)
        step = {
            i: self._affordable(points[i], self._first_interval(points[i], xs[i], method)) for i in range(len(points))
        }
        # points that start below their sampling rate instead of on a blind grid (``_unblinded_start``)
        unblinded = {i for i, h in step.items() if by_epsilon and h < self._span_start(points[i])}
        # settled by their own arguments (delta is larger at the left ones, smaller at the right ones)
        right_xs = [x[: _offset_rows(x.size, n)[0].stop] for x, n in zip(xs, own)]
        for i, up in self._settled_uppers(sorted(unblinded), points, right_xs, threads).items():
            chosen[i] = (np.zeros(own[i]), up[: own[i]])
            del step[i]
        best: dict[int, tuple[float, np.ndarray, np.ndarray, np.ndarray]] = {}  # i: (h, lo, up, width)
        # points whose arguments still too wide all took the complement's bracket (``_complement_near_one``):
        # their next grid recomposes the complement alone, the composed PMFs' bracket standing from ``best``
        only: set[int] = set()
        add_upper: dict[int, np.ndarray] = {}  # the least add-direction upper side over a point's grids
        while step:
            next_step: dict[int, float] = {}
            next_only: set[int] = set()
            units = [
                (batch, direct, charge, False)
                for batch, direct, charge in self._step_batches(
                    {i: h for i, h in step.items() if i not in only},
                    points,
                    best,
                    unblinded if method == "delta" else unblinded | self._near_round_off(step, xs, own),
                )
            ]
            units += [
                (batch, True, None, True)
                for batch in self._windows_within_budget([(i, loss_span(*points[i]) / step[i]) for i in sorted(only)])
            ]
            for batch, direct, charge, complement_only in units:
                if complement_only:
                    found = [(best[i][1], best[i][2], np.zeros((2, xs[i].size)), add_upper.get(i)) for i in batch]
                else:
                    found = self._step_brackets(batch, points, step, xs, method, best, own, threads, direct, charge)
                for i, (_, _, _, add) in zip(batch, found):  # every grid's add-direction upper side holds
                    if add is not None:
                        add_upper[i] = add if i not in add_upper else np.minimum(add, add_upper[i])
                sides = [(np.asarray(lo, dtype=np.float64), np.asarray(up, dtype=np.float64)) for lo, up, _, _ in found]
                taken: list[np.ndarray | None] = [None] * len(batch)
                if method == "delta":
                    if not complement_only:
                        sides = [
                            (self._raised_near_one(points[i], xs[i], lo, up), up) for i, (lo, up) in zip(batch, sides)
                        ]
                    sides, taken = self._complement_near_one(
                        [points[i] for i in batch],
                        [step[i] for i in batch],
                        [xs[i] for i in batch],
                        sides,
                        threads,
                        [add_upper.get(i) for i in batch],
                    )
                    # where the complement's bracket was taken, the composed PMFs' fixed parts no longer bound
                    # the gap: it narrows with the grid (``_charge_width`` then leaves those arguments to it)
                    found = [
                        (lo, up, fixed if n is None else np.where(n, 0.0, fixed), add)
                        for (lo, up, fixed, add), n in zip(found, taken)
                    ]
                for i, (lo, up), (_, _, fixed, _), near in zip(batch, sides, found, taken):
                    h = step[i]
                    if i in best:  # both grids' brackets hold: keep their intersection
                        lo, up = np.maximum(lo, best[i][1]), np.minimum(up, best[i][2])
                    width = self._width(method, xs[i], lo, up, own[i])
                    alone = self._charge_width(by_epsilon, xs[i], lo, up, fixed, own[i], points[i][1], h)
                    charged = self._charged(width, alone)
                    capped, blind = self._no_chord(by_epsilon, xs[i], lo, width, points[i][1], h, own[i], charged)
                    capped_h = self._capped_interval(h, xs[i], lo, up, width, own[i], capped, blind, points[i][1])
                    if by_epsilon and (i not in best or best[i][0] <= h):  # a first step: the widths' rule
                        limited, limited_h = self._offset_limited(h, xs[i], lo, up, width, own[i], capped | charged)
                        capped, capped_h = capped | limited, _least(capped_h, limited_h)
                    before = best.get(i)
                    if method == "epsilon" and before is not None and np.any(before[1][before[3] > self.accuracy] == 0):
                        # the grid before left a lower epsilon 0 where too wide (blind: its width was the upper
                        # side's alone), so no law is fitted through it: the next grid is asked as a first one's
                        before = None
                    finer = self._next_interval(
                        h, width, before, capped, capped_h, alone, xs[i][: own[i]], points[i][1]
                    )
                    if finer is not None and finer < h:
                        finer = self._affordable(points[i], finer)
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

    def _settled_uppers(
        self, pending: list[int], points: list[Point], xs: list[np.ndarray], threads: int
    ) -> dict[int, np.ndarray]:
        """The points of ``pending`` (indices into ``points``, arguments ``xs[i]``) whose upper side on their span
        grid (``_span_start``; ``dominated_direction.delta_uppers``: pessimistic sides only, no direct bins) is
        below ``DELTA_FLOOR`` at every argument, with those upper values: done (``_width``), with 0 for a
        lower bound.  ``_refined`` asks it of the points that would start below their sampling rate
        (``_unblinded_start``): that grid is fine and composed with direct bins, and many of G1's rows lie
        below the floor at every eps (about half of them), which the span grid shows for a few per cent of the
        fine grid's cost.

        Delta grows with the rounds, so per (sigma, q, sensitivity) the points that settle are those with the
        fewest rounds: the fewest-rounds point is tried alone, and where it settles a bisection over the rounds
        finds the last that does; the points below it are then tried in batches, those above it not at all
        (the span grid's composition is wasted where a point does not settle: +3 % CPU on G1's sigma 0.5 blocks
        when every point was tried)."""
        hs = {i: self._span_start(points[i]) for i in pending}
        tried: dict[int, np.ndarray] = {}

        def uppers(batch: list[int]) -> list[np.ndarray]:
            out = dominated_direction.delta_uppers(
                [points[i] for i in batch],
                [hs[i] for i in batch],
                [xs[i] for i in batch],
                self.tail,
                threads,
                self.accuracy,
                self.DELTA_FLOOR,
            )
            tried.update(zip(batch, out))
            return out

        def settles(i: int) -> bool:
            return bool(np.all((tried[i] if i in tried else uppers([i])[0]) < self.DELTA_FLOOR))

        pairs: dict[tuple[float, float, float], list[int]] = {}
        for i in pending:
            pairs.setdefault((points[i][0], points[i][1], points[i][3]), []).append(i)
        candidates: list[int] = []
        for group in pairs.values():
            group.sort(key=lambda i: points[i][2])
            if not settles(group[0]):
                continue
            low, high = 1, len(group)  # group[:low] ends with a point that settles; group[high:] with none
            while low < high:
                mid = (low + high) // 2
                low, high = (mid + 1, high) if settles(group[mid]) else (low, mid)
            candidates.extend(i for i in group[:low] if i not in tried)
        for batch in self._windows_within_budget([(i, loss_span(*points[i]) / hs[i]) for i in candidates]):
            uppers(batch)
        return {i: up for i, up in tried.items() if np.all(up < self.DELTA_FLOOR)}

    def _near_round_off(self, step: dict[int, float], xs: list[np.ndarray], own: list[int]) -> set[int]:
        """The ``.epsilon`` points whose least delta asked is below ``DIRECT_FIRST_DELTA``: their first grid too
        is composed with the direct DFT bins, the plain transform's round-off charge (T x ~5e-16) being a part of
        such a delta that a finer grid would only raise; above it the charge is negligible and the plain
        transform is the cheaper (W3 at delta 1e-5)."""
        return {i for i in step if float(np.min(xs[i][: own[i]])) < self.DIRECT_FIRST_DELTA}

    def _step_batches(
        self,
        step: dict[int, float],
        points: list[Point],
        best: dict[int, tuple[float, np.ndarray, np.ndarray, np.ndarray]],
        unblinded: set[int],
    ) -> list[tuple[list[int], bool, float | None]]:
        """The batches of one refinement step (``_windows_within_budget``), each with whether it recomposes the
        low-frequency bins directly (``compose_all``'s direct_bins) and from what estimated charge
        (``direct_min_charge``; ``.epsilon`` passes its points asked at small deltas as ``unblinded``,
        ``_near_round_off``): a refinement's grids (a point's second and later) do, since after many rounds
        the FFT's round-off charge, not the grid, is what leaves a delta near the floor wide, and a finer grid
        alone only raises it; so does the first grid of a point that starts below its sampling rate
        (``unblinded``): that grid is already as fine as a refinement's, and composing it without direct bins
        first mostly led to the same grid again with them (sigma 0.5, q 2.1e-4: every rounds value composed
        twice at h = 1.6e-4).  Both from the core's kDirectMinCharge (None); a point stepping to the grid it
        was on (``_next_interval``: its charges, not the grid, left it wide) from a charge 100x lower
        (``SAME_GRID_DIRECT_CHARGE``): below 1e-11 a row's charge still left G1's sigma 0.603, q 0.0113, 168
        rounds, eps 8.5 at [1.0143e-9, 1.0406e-9], an epsilon width of 0.015."""
        kinds: dict[tuple[bool, float | None], list[tuple[int, float]]] = {}
        for i, h in step.items():
            same = i in best and best[i][0] == h
            kind = (True, self.SAME_GRID_DIRECT_CHARGE) if same else (i in best or i in unblinded, None)
            kinds.setdefault(kind, []).append((i, loss_span(*points[i]) / h))
        order = ((False, None), (True, None), (True, self.SAME_GRID_DIRECT_CHARGE))
        return [(batch, *kind) for kind in order for batch in self._windows_within_budget(kinds.get(kind, []))]

    def _width(self, method: str, x: np.ndarray, lo: np.ndarray, up: np.ndarray, own: int) -> np.ndarray:
        """How wide the bracket [lo, up] at the point's own ``own`` arguments is, in ``accuracy``'s units:
        epsilon for ``.epsilon``; for ``.delta`` relative to max(up, DELTA_FLOOR), or with
        ``delta_accuracy="epsilon"`` the certified epsilon width at delta = up
        (``epsilon_width.certified_epsilon_width``, the least over the shifted arguments that follow
        the own ones in ``x``), and 0 (done) where up < DELTA_FLOOR: the bracket then certifies
        delta < 1e-9 at that eps, which is G1's floor rule (docs/references.md), and no grid certifies an
        epsilon bracket there (the lower side is 0 and the upper one h-independent charges, such as
        T x 5e-16 of round-off and the mass at +infinity), so refining could not help; 0 too where
        lo >= DELTA_CEILING = 1 - 1e-9, the same rule at the other end (the bracket certifies delta >
        1 - 1e-9: no (eps, delta) guarantee at that eps for any delta a user targets, and no epsilon
        width either, the upper side being 1 or as flat); capped at 1e100 so the refinement's fits stay finite."""
        if method == "epsilon":
            return cast(np.ndarray, up - lo)
        if self.delta_accuracy == "relative":
            return cast(np.ndarray, (up - lo) / np.maximum(up, self.DELTA_FLOOR))
        done = (up[:own] < self.DELTA_FLOOR) | (lo[:own] >= self.DELTA_CEILING)
        return np.where(done, 0.0, np.minimum(_least_epsilon_width(x, own, lo, up), 1e100))

    def _step_brackets(
        self,
        batch: list[int],
        points: list[Point],
        step: dict[int, float],
        xs: list[np.ndarray],
        method: str,
        best: dict[int, tuple[float, np.ndarray, np.ndarray, np.ndarray]],
        own: list[int],
        threads: int,
        direct: bool,
        charge: float | None = None,
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]:
        """The certified (lower, upper) of each point of ``batch`` on its grid ``step[i]``, and the part of
        their gap no grid removes (``_delta_bracket``; zeros for epsilon, whose refinement does not use
        it), and the add direction's certified upper side (delta only; None for one direction).  Epsilon
        screens the add direction on a coarse grid first (``dominated_direction``: the same bracket, the add
        direction's fine composition only where it may be the larger one); so does delta with
        ``delta_accuracy="epsilon"`` (``dominated_direction.delta_sides``: below a tenth of DELTA_FLOOR the
        screen's upper side stands for the add direction's); delta composes the batch together and takes the
        lower envelope only where the bracket needs it (``_delta_bracket``; ``best`` holds the points' brackets
        on earlier grids, ``own[i]`` is how many of ``xs[i]`` are the point's own arguments).  ``direct``: the
        compositions recompute their low-frequency bins directly, in rows from an estimated charge of ``charge``
        (``_step_batches``)."""
        if method == "epsilon":
            return [
                (lo, up, np.zeros((2,) + lo.shape), None)
                for lo, up in dominated_direction.epsilon_brackets(
                    [points[i] for i in batch],
                    [step[i] for i in batch],
                    [xs[i] for i in batch],
                    self.tail,
                    threads,
                    self.accuracy,
                    direct,
                    charge,
                )
            ]
        if self.delta_accuracy == "epsilon":
            # the add direction screened on a coarse grid (``dominated_direction.delta_sides``)
            parts = dominated_direction.delta_sides(
                [points[i] for i in batch],
                [step[i] for i in batch],
                [xs[i] for i in batch],
                self.tail,
                threads,
                direct,
                0.1 * self.DELTA_FLOOR,
                self.DELTA_FLOOR,
                self.accuracy,
                charge,
            )
        else:
            store: dict[PLDKey, PrivacyLossDistribution] = {}
            for h in sorted({step[i] for i in batch}, reverse=True):
                self._build(store, [points[i] for i in batch if step[i] == h], h, threads=threads)
            dists = [store[(*points[i], step[i], True)] for i in batch]
            compose_all(dists, True, workers=threads or None, direct_bins=direct, direct_min_charge=charge)
            uppers = [[pmf.delta(xs[i], threads) for pmf in dist.composed(True)] for i, dist in zip(batch, dists)]
            # The optimistic sides that can raise the lower bound (``undominated_lower_sides``), each with its
            # charged lower value at the point's arguments (no suffix maxima: ``_delta_bracket`` adds them).
            sides = undominated_lower_sides(
                dists,
                uppers,
                lambda pmf, k: pmf.delta(xs[batch[k]], threads, envelope=False),
                threads or None,
                direct,
                charge,
            )
            parts = [(dist.composed(True), ups, side) for dist, ups, side in zip(dists, uppers, sides)]
        # per argument, the fixed part of the direction whose upper side is the bound (not the largest over
        # directions: one direction's mass at +infinity is no part of a bound the other one sets)
        return [
            (
                *self._delta_bracket(
                    side,
                    xs[i],
                    best.get(i),
                    own[i],
                    ups,
                    _of_largest([_fixed_part(pmf, xs[i], up) for pmf, up in zip(pess, ups)], ups),
                    threads,
                ),
                np.max(ups[1:], axis=0) if len(ups) > 1 else None,
            )
            for i, (pess, ups, side) in zip(batch, parts)
        ]

    def _delta_bracket(
        self,
        sides: dict[int, tuple[GridPMF, np.ndarray]],
        eps: np.ndarray,
        before: tuple[float, np.ndarray, np.ndarray, np.ndarray] | None,
        own: int,
        uppers: list[np.ndarray],
        charges: np.ndarray,
        threads: int = 0,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The PLD's ``delta(eps, bound="both")``, with the lower side's suffix maxima (``GridPMF.delta``,
        an O(n) pass over the composed window) only where the bracket is wider than ``accuracy``
        without them: elsewhere the charged lower value at eps already meets the tolerance.
        Each side is the largest over the neighbouring directions; ``before`` (an earlier grid's
        bracket) narrows the test, not the values.  Only the first ``own`` arguments are tested
        (the others, with ``delta_accuracy="epsilon"``, the same eps shifted by ``RIGHT_OFFSETS``, serve
        for their upper side, and their lower values, lower bounds on delta at eps too since delta does not
        increase, raise the own lower side where the round-off charge at eps exceeds theirs).
        ``uppers``: each direction's certified upper bound at ``eps``; ``sides``: per direction whose
        optimistic side can raise the lower one (``distribution.undominated_lower_sides``), its composed
        optimistic PMF and charged lower value at ``eps``; ``charges``: the upper side's h-independent part
        at ``eps`` (``_fixed_part`` of the direction whose upper side is the bound), returned beside the bracket with the
        lower side's added (the third array, two rows: the part of up - lo no grid removes and the cells'
        edge factor, ``_charge_width``)."""
        assert self.accuracy is not None
        upper = np.max(uppers, axis=0)
        if not sides:  # no lower side composed (``delta_sides``' settled points): 0 bounds delta below
            return np.zeros(eps.shape), upper, charges
        charges = charges + _of_largest(
            [_fixed_part(pmf, eps, low) for pmf, low in sides.values()], [low for _, low in sides.values()]
        )
        optimistic = [sides[d][0] for d in sorted(sides)]
        lower = np.max([sides[d][1] for d in sorted(sides)], axis=0)
        right, left = _offset_rows(eps.size, own)
        # delta_accuracy="epsilon": eps + d follow; delta does not increase, so each bounds it (not eps - d)
        for k in range(right.start // own, right.stop // own):
            lower[:own] = np.maximum(lower[:own], lower[k * own : (k + 1) * own])
        best_lo = lower if before is None else np.maximum(lower, before[1])
        best_up = upper if before is None else np.minimum(upper, before[2])
        wide = np.zeros(eps.shape, dtype=bool)
        wide[:own] = self._width("delta", eps, best_lo, best_up, own) > self.accuracy
        wide[left] = np.tile(wide[:own], (left.stop - left.start) // own)  # their lower sides certify the width
        if wide.any():
            lower[wide] = np.maximum(lower[wide], np.max([pmf.delta(eps[wide], threads) for pmf in optimistic], axis=0))
        return lower, upper, charges

    def _no_chord(
        self,
        by_epsilon: bool,
        x: np.ndarray,
        lo: np.ndarray,
        width: np.ndarray,
        q: float,
        h: float,
        own: int,
        charged: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``delta_accuracy="epsilon"`` (else nothing): the own arguments still too wide, not ``charged``
        (``_charged``: no grid narrows those), whose epsilon width
        is its cap eps (no certified chord: the lower side at eps is at most the upper one at eps + d),
        and among them the ``blind`` ones, whose lower side is 0 while the sampling rate q is below h
        (the optimistic side is loose until h nears q, so they need a much finer grid)."""
        if not by_epsilon:
            none = np.zeros(width.shape, dtype=bool)
            return none, none
        assert self.accuracy is not None
        capped = (width > self.accuracy) & (width >= x[:own] * (1.0 - 1e-9)) & ~charged
        return capped, capped & (lo[:own] == 0.0) & (q < h)

    def _capped_interval(
        self,
        h: float,
        x: np.ndarray,
        lo: np.ndarray,
        up: np.ndarray,
        width: np.ndarray,
        own: int,
        capped: np.ndarray,
        blind: np.ndarray,
        q: float,
    ) -> float | None:
        """The grid the ``capped`` arguments of a point on grid h ask for (``_no_chord``; None if none is).
        Their epsilon width is stuck at its cap eps, which says nothing of the grid they need, so:

        - those whose epsilon gap G is read (``epsilon_width.epsilon_gap``: how far right the upper curve
          falls to the lower side at eps) ask h sqrt(GAP_TARGET accuracy / G), at least ``CAPPED_STEP`` h:
          a width is certified once G is well below the offsets of ``RIGHT_OFFSETS``, and G shrinks about
          like h^2 (sigma 2.05, q 0.048, 56899 rounds, eps 8: G = 0.69, 0.16, 0.04, 0.01 at h = 1.02e-2,
          5.1e-3, 2.6e-3, 1.3e-3; 4-5x per halving at the three other points measured), so one step
          lands near the coarsest grid that certifies; GAP_TARGET 1 met the same points as 0.25 and 0.5
          on G1's 20 blocks (2: one fewer, 4: 22 fewer);
        - where no gap is read because the upper side is flat (a delta of 1 - 1e-7 at every eps),
          ``CAPPED_STEP`` h (h / 32);
        - where no gap is read because the lower side is 0 at q >= h (an upper delta of 1e-9 to 1e-8, whose
          optimistic side the round-off charge took to 0), ``NO_LOWER_STEP`` h (h / 4): h / 32 went 4-8x finer
          than the grid that meets them (sigma 2.05, q 7.8e-3, 10^4-10^5 rounds: from h = 1.8e-3 to 5.7e-5,
          where a single grid of 2.3e-4 to 4.5e-4 meets every eps), so h / 4 costs less and meets more;
        - ``blind`` ones (lower side 0 at the sampling rate ``q`` < h: the optimistic side is loose while h is
          near q or above) keep the h^2 jump of their cap eps, h 0.9 sqrt(accuracy / eps) (h / 35 to h / 45
          at eps 10), or the ladder's rung below q where that jump stays above it and q > FINEST_INTERVAL (sigma 0.5, q 1e-4, 1600
          rounds: from h = 1.8e-3 the jump of eps 2 is 1.15e-4 > q, still blind; 8e-5 meets eps 0.5-2).
          Where q is small, ``delta_accuracy="epsilon"`` starts below q instead (``_unblinded_start``): that
          jump went 4-10x finer than the rung below q that meets most of G1's blind rounds values; where q is
          larger it is still taken (the rung below q / 1.2 instead lost 200 of 1000 points at sigma 0.576,
          q 5.5e-3, whose widths then fell too slowly to be followed).
          Alternatives that do worse: h = q, q / 2, q / 4 on the ladder (lose up to
          200 of 1000 G1 points: sigma 0.58, q 5.5e-3 needs h ~ q / 17); the rung below q, then
          one more step by the gap or the h^2 rule where the lower side rises (better at sigma 0.5,
          q = 1e-4, where the bracket turns tight between h = 1.13e-4 and 8e-5, but ~100 fewer points met
          at q 6e-4 to 1.3e-3, and up to 5x the CPU where the lower side is round-off).

        The finest of those, at most 0.9 h.
        """
        if not capped.any():
            return None
        assert self.accuracy is not None
        wanted = [0.9 * h]
        if blind.any():
            jump = h * 0.9 * math.sqrt(self.accuracy / float(np.max(width[blind])))
            # the rung below q, where there is one (below FINEST_INTERVAL no grid unblinds: the jump alone)
            wanted.append(min(jump, self._on_ladder(q * (1.0 - 1e-6))) if q > self.FINEST_INTERVAL else jump)
        seen = capped & ~blind
        if seen.any():
            gap = epsilon_gap(x[:own][seen], lo[:own][seen], up[:own][seen], x[own:], up[own:])
            no_lower = lo[:own][seen] == 0.0
            with np.errstate(divide="ignore"):
                ratio = np.where(
                    np.isfinite(gap),
                    np.sqrt(self.GAP_TARGET * self.accuracy / gap),
                    np.where(no_lower, self.NO_LOWER_STEP, 0.0),
                )
            wanted.append(h * max(float(np.min(ratio)), self.CAPPED_STEP))
        return min(wanted)

    def _offset_limited(
        self, h: float, x: np.ndarray, lo: np.ndarray, up: np.ndarray, width: np.ndarray, own: int, skip: np.ndarray
    ) -> tuple[np.ndarray, float | None]:
        """``delta_accuracy="epsilon"``: the own arguments still too wide (not ``skip``: capped or charge-limited)
        whose certified epsilon width says little of the grid they need, being more than ``OFFSET_LIMITED`` (2)
        times their epsilon gap G (``epsilon_width.epsilon_gap``), and the grid they ask for,
        h sqrt(OFFSET_GAP_TARGET accuracy / G) for the largest G among them, at most 0.9 h (None if there are none).

        A width is certified through a few offsets (``RIGHT_OFFSETS``, ``LEFT_FRACTIONS``): while the gap is not
        well below them it is a step of the offsets, far above G (G1's sigma 4.34, q 0.0113, 82864 rounds at
        h = 1.28e-3: width 2.31 at eps 3 for G = 0.132), and its h^2 law asked 5.66e-5 where 2.26e-4 meets every
        eps.  G itself shrinks like h^2 and foretells the next grid's width: over the wide arguments of G1's 40
        sample blocks' first grids, the width on the next grid was G (h_next / h)^2 times 10^(-0.10 .. 0.04)
        (quartiles; 95 % below 1.6x), where the width's own h^2 law overestimated it 3.3x at the median.  Those
        arguments therefore step by G, to half the tolerance (OFFSET_GAP_TARGET), to coarser refined grids than
        the width's law asks, meeting G1's criterion at the same points; the others keep the h^2 law of their
        width (``_next_interval``)."""
        assert self.accuracy is not None
        wide = (width > self.accuracy) & ~skip
        if not wide.any():
            return wide, None
        gap = np.full(width.shape, np.inf)
        gap[wide] = epsilon_gap(x[:own][wide], lo[:own][wide], up[:own][wide], x[own:], up[own:])
        limited = wide & np.isfinite(gap) & (gap > 0.0) & (width > self.OFFSET_LIMITED * gap)
        if not limited.any():
            return limited, None
        return limited, h * min(0.9, math.sqrt(self.OFFSET_GAP_TARGET * self.accuracy / float(np.max(gap[limited]))))

    def _next_interval(
        self,
        h: float,
        width: np.ndarray,
        before: tuple[float, np.ndarray, np.ndarray, np.ndarray] | None,
        capped: np.ndarray,
        capped_h: float | None,
        alone: np.ndarray | None,
        cap: np.ndarray,
        q: float = 0.0,
    ) -> float | None:
        """The next grid of a point whose brackets at its arguments are ``width`` wide on grid h
        (``before``: its previous grid and widths), or None when no other grid is worth building.
        Every grid after the first recomposes with the direct DFT bins (``_step_brackets``), so the
        next grid may be h itself.

        First step (and the step after a recomposition of the same grid, where no fit through two
        grids exists): h 0.9 sqrt(accuracy / widest), from the bracket's h^2 scaling, the widest among
        the arguments whose width scales so, and ``capped_h`` where some are ``capped``
        (``_capped_interval``: an epsilon width stuck at its cap eps says nothing of the grid needed;
        g1 asked the h^2 jump of the cap, h / 45 at eps 10, g1c a flat h / 32; with ``delta_accuracy="epsilon"``
        the caller also counts as capped, with their ask in ``capped_h``, the arguments whose width is a step of its
        offsets, ``_offset_limited``); the finest of those.
        The charge-limited arguments (``_charged``: what no grid removes, ``alone``, leaves them wider than
        0.9 of the tolerance) do not scale so: on the first grid, where they are all that is too wide,
        the next grid is h again, recomposed with the direct bins that cut those charges ~100x (G1's
        sigma 1.012, q 3.8e-3, 10^4 rounds, eps 3: width 0.32 at every h from 1.28e-3 to 8e-5, all
        charge; the h^2 jump took it ~6x finer); after that recomposition no grid brings them within 0.9 of it.
        A charge-limited argument whose width was its cap on the grid before and is now within ``NEAR_CAPPED`` times
        the tolerance asks for one rung finer: its charges are known on one grid only, and they need not stay as
        the grid shrinks (G1's sigma 3.13, q 0.0162, 82864 rounds, eps 10: capped at h = 2.56e-3, charges alone
        0.0099 wide in epsilon at 2.26e-4, [9.96e-10, 1.036e-9]; at 1.6e-4 its round-off charge above eps is 8x
        smaller, all its charges 4x, 0.0022 wide, and it meets G1).
        Later steps: with ``delta_accuracy="epsilon"``, where ``alone`` is known, ``_power_step`` (``cap``:
        the arguments' eps, a width's cap); otherwise a fit,
        per argument still too wide, of width = c h^2 + f through the two grids: an argument
        whose width did not fall below ``STALLED`` of the last, or whose floor f (what no grid
        removes: round-off and tail charges, the mass at +infinity) is half the tolerance or
        more, cannot be brought within it by refining; the others ask for
        h = sqrt((0.9 accuracy - f) / c), and the finest of those (at most 0.9 h) is taken.
        """
        assert self.accuracy is not None
        accuracy = self.accuracy
        wide = width > accuracy
        if not wide.any():
            return None
        charged = self._charged(width, alone)
        if before is None or before[0] <= h:
            asked: list[float] = [] if capped_h is None else [capped_h]
            scaling = wide & ~capped & ~charged
            if scaling.any():
                worst = float(np.max(width[scaling]))
                asked.append(h * (0.9 * math.sqrt(accuracy / worst) if math.isfinite(worst) else 0.5))
            if asked and h > self.FINEST_INTERVAL:
                return self._on_ladder(max(min(asked), self.FINEST_INTERVAL))
            return h if before is None and (wide & charged).any() else None
        if h <= self.FINEST_INTERVAL:
            return None
        h0, _, _, width0 = before
        if alone is not None:
            was_capped = width0 >= cap * (1.0 - 1e-9)
            finer = self._power_step(h, h0, width, width0, alone, wide & ~charged, was_capped, h0 > 0.5 * q)
            # charge-limited arguments whose width fell from its cap to near the tolerance: one rung finer, their
            # charges being known on one grid only (they need not stay as the grid shrinks)
            if (wide & charged & was_capped & (width < self.NEAR_CAPPED * accuracy)).any():
                rung = self._on_ladder(max(0.9 * h, self.FINEST_INTERVAL))
                finer = rung if finer is None else min(finer, rung)
            return finer
        hopeful = wide & (width < self.STALLED * width0)
        if not hopeful.any():
            return None
        w, w0 = width[hopeful], width0[hopeful]
        slope = (w0 - w) / (h0 * h0 - h * h)
        floor = w - slope * h * h
        reachable = floor < 0.5 * accuracy
        if not reachable.any():
            return None
        wanted = float(np.min(np.sqrt((0.9 * accuracy - floor[reachable]) / slope[reachable])))
        return self._on_ladder(max(min(wanted, 0.9 * h), self.FINEST_INTERVAL))

    def _power_step(
        self,
        h: float,
        h0: float,
        width: np.ndarray,
        width0: np.ndarray,
        alone: np.ndarray,
        wide: np.ndarray,
        was_capped: np.ndarray,
        near_rate: bool = False,
    ) -> float | None:
        """The next grid after grids h0 > h, where the part of each width no grid removes is known (``alone``,
        ``_charge_width``): the rest, e = width - alone, is fitted as c h^p through the two grids, p clipped
        to [1, 2], and each ``wide`` argument whose e fell below ``STALLED`` of the last asks for
        h (e* / e)^(1/p), e* = 0.9 accuracy - alone; the finest (at most 0.9 h) is taken.  The h^2 law (p = 2)
        holds for the upper side; the optimistic side's convex minorant may shrink like h (sigma 0.576,
        q 5.5e-3, 1600 rounds: 0.022 -> 0.011 from h = 3.6e-3 to 1.8e-3), which a fit of c h^2 + f reads as
        a floor f of 0.007 and stops, 0.001 short of the tolerance.  A width falling slower than
        h^``SLOWEST_POWER`` is not followed, unless the coarser grid h0 was ``near_rate`` (above half the
        sampling rate, where the optimistic side is not yet in its h^p regime) and the width's own law h^p
        reaches the tolerance within ``SLOW_REACH`` of h: then p is clipped to 1 and the next grid refits it
        (sigma 0.5, q 3.8e-3, 2330-4095 rounds, started just below q: 0.03 -> 0.022 from h = 2.56e-3 to
        1.28e-3, p = 0.45, met at 2.3e-4).  Far below the rate a slow width is stalled (sigma 2.05, q 0.07:
        widths of 0.011-0.016 falling like h^0.2-0.4 from h = 9e-4; following them doubled the block's CPU
        for no point met).  Where the width on grid h0 was its cap eps (``was_capped``)
        no law is read from it: the h^2 law is assumed where the width is now within ``NEAR_CAPPED`` times
        the tolerance (sigma 0.549, q 0.048, 5964 rounds, eps 1.5-3.5: capped at 4.1e-2, 0.011-0.014 at
        3.6e-3, met one rung finer), and the argument is not followed otherwise (sigma 0.728, q 0.023,
        68665 rounds, eps 6.5 capped at h = 2.9e-2, 0.43 wide at 9e-4: a fit through the cap asks for
        h = 1.4e-5, and the h^2 law for a grid 5x cheaper, neither meeting the point)."""
        assert self.accuracy is not None
        rest, rest0 = width - alone, width0 - alone
        target = 0.9 * self.accuracy - alone
        with np.errstate(divide="ignore", invalid="ignore"):
            power = np.where(wide & (rest > 0.0) & (rest0 > rest), np.log(rest0 / rest) / math.log(h0 / h), 0.0)
        near = was_capped & wide & (rest > 0.0) & (width < self.NEAR_CAPPED * self.accuracy)
        power = np.where(was_capped, np.where(near, 2.0, 0.0), power)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            reach = np.where((power > 0.0) & (target > 0.0), (target / rest) ** (1.0 / np.maximum(power, 1e-300)), 0.0)
        close = near_rate & ~was_capped & (power > 0.0) & (reach >= self.SLOW_REACH)
        hopeful = wide & (rest < self.STALLED * rest0) & (target > 0.0) & ((power >= self.SLOWEST_POWER) | close)
        if not hopeful.any():
            return None
        power = np.clip(power[hopeful], 1.0, 2.0)
        wanted = float(np.min(h * (target[hopeful] / rest[hopeful]) ** (1.0 / power)))
        return self._on_ladder(max(min(wanted, 0.9 * h), self.FINEST_INTERVAL))

    def _charge_width(
        self,
        by_epsilon: bool,
        x: np.ndarray,
        lo: np.ndarray,
        up: np.ndarray,
        fixed: np.ndarray,
        own: int,
        q: float,
        h: float,
    ) -> np.ndarray | None:
        """``delta_accuracy="epsilon"`` (else None): the certified epsilon width at each own argument that the
        gap's h-independent part (``_fixed_part``: ``fixed[0]`` the round-off charges, slack and mass at
        +infinity, plus where the upper side is above ``NEAR_ONE`` the cells' edge factor ``fixed[1]``) alone
        would leave: that of [up - fixed, up] (``certified_epsilon_width`` through the shifted
        arguments' upper sides, the least over ``RIGHT_OFFSETS``; inf where the charges exceed the
        curve's drop to eps + d, as where they push the lower side to 0); 0 where they are less than half
        the gap up - lo (the grid's part is the larger: sigma 1.778, q 6.2e-4, 56899 rounds, eps 0.5, h
        6.4e-4: the optimistic side's charge 1.6e-7 beside a gap of 1.2e-6, met at h 4.5e-4), where the lower
        side is 0 at the sampling rate q < h (blind, ``_no_chord``: the optimistic side is loose whatever its
        charge; sigma 1.012, q 2.1e-4, 82864 rounds, eps 0.5: its charge 6.4e-7 beside an upper side of
        2.3e-8 at h = 6.4e-4, met on a grid below q), and where the upper side is above ``NEAR_ONE`` while
        the cells' edge factor is less than half the gap (a flat upper side drops by nothing, and what decides
        there is the lower side reaching ``DELTA_CEILING``: sigma 0.728, q 0.023, 82864 rounds, met at h / 32;
        without this rule a block such as sigma 0.8, q 0.034 costs about 6x more in same-grid
        recompositions with direct bins).  Where the edge factor is half the gap or more, no grid narrows it:
        followed, it takes a block such as sigma 0.549, q 0.048 to h = 1.4e-5 at 5964 rounds, at about 17x
        the cost, for no point met.  A finer grid does not narrow that part (it only adds to the round-off); the
        direct DFT bins narrow the round-off part (``_next_interval``)."""
        if not by_epsilon:
            return None
        top = up[:own]
        near = top > self.NEAR_ONE
        excess = fixed[1, :own]
        fixed_part = fixed[0] + np.where(up > self.NEAR_ONE, fixed[1], 0.0)  # at every argument
        total = fixed_part[:own]
        # the lower side at every argument as close to the upper one as the fixed part lets it be
        alone = _least_epsilon_width(x, own, up - fixed_part, up)
        grid_led = (
            (top - lo[:own] >= 2.0 * total) | (near & (top - lo[:own] >= 2.0 * excess)) | ((lo[:own] == 0.0) & (q < h))
        )
        return np.where(grid_led, 0.0, alone)

    def _charged(self, width: np.ndarray, alone: np.ndarray | None) -> np.ndarray:
        """The arguments still too wide that are charge-limited: ``alone`` (``_charge_width``: what no grid
        removes) already exceeds 0.9 of the tolerance, the least a finer grid must leave for the grid's part
        (none without ``alone``; at half the tolerance points a finer grid meets were stopped)."""
        assert self.accuracy is not None
        if alone is None:
            return np.zeros(width.shape, dtype=bool)
        return (width > self.accuracy) & (alone > 0.9 * self.accuracy)

    def _windows_within_budget(self, sizes: list[tuple[int, float]]) -> list[list[int]]:
        """Consecutive runs of at most BATCH items whose estimated window points fit BUDGET."""
        batches: list[list[int]] = [[]]
        used = 0.0
        for i, size in sizes:
            if batches[-1] and (len(batches[-1]) >= self.BATCH or used + size > self.BUDGET):
                batches.append([])
                used = 0.0
            batches[-1].append(i)
            used += size
        return [b for b in batches if b]

    def _first_interval(self, point: Point | None = None, x: np.ndarray | None = None, method: str = "delta") -> float:
        """The grid ``accuracy`` starts from at ``point`` (sigma, q, rounds, sensitivity), evaluated at
        ``x`` by ``method``; one step of ``_refined`` corrects a start that misses.

        Default: the h at which the bracket's h^2 scaling on W2 (4.2e-2 wide at h = 2e-3) predicts
        0.64 ``accuracy`` (between 1e-5 and 2e-3).

        ``delta``: where the composed PLD is wide, the h that puts its estimated span (``loss_span``)
        on ``START_POINTS`` grid points (at most ``COARSEST_START``), on the ladder: a PLD spread
        over hundreds of loss units (sigma 0.5, q 0.1, 1e5 rounds: delta(eps <= 10) ~ 1) needs no
        fine grid for a bracket relative to delta, and the grid a W2-sized one needs would take
        4.4e8 points.

        ``epsilon`` (its bracket is absolute): the h at which the connect-the-dots model predicts
        an epsilon bracket of 0.9 ``accuracy``, no finer than a quarter of the default.  Model:
        both sides' errors in composition come from the loss variance the grid adds, of order
        h^2/6 per round (h^2/12 per side for a law spread evenly across its cells), and the drift
        of the mean that comes with it (half that: E_P e^{-L} = 1 is kept); epsilon ~ mean +
        z spread with spread S = sqrt(T v), v = q^2 (e^{1/s^2} - 1) the one-round loss variance
        for small q (s = sigma / sensitivity) and z = sqrt(2 log(1/delta)), so the bracket is
        about (T h^2 / 7)(1 + z / S) wide, the 7 fitted to the split-tent lower side
        (pld_connect_dots.hpp): W3 (q = 1e-3, sigma = 0.8, T = 10^5) 1.26e-3 at h = 1e-4,
        measured 1.23e-3; W2 6.0e-4 at h = 3e-4, measured 4.8e-4.  Where the sampling rate is below that
        grid, ``_unblinded_start`` takes the rung below it instead: on a grid above q the optimistic side is
        blind (its lower epsilon 0, so the width the refinement fits is the upper side's and it stops there:
        sigma 4.14, q 1e-4, 2812 rounds, delta 1e-10: [0, 0.0127] starting from h = 2e-4, [4.9e-4, 8.9e-3]
        starting from 8e-5).
        """
        assert self.accuracy is not None
        default = max(self.FINEST_INTERVAL, self.COARSEST_INTERVAL * min(1.0, 0.8 * math.sqrt(self.accuracy / 4.2e-2)))
        if point is None:
            return default
        if method == "delta":
            start = self._span_start(point)
            return self._unblinded_start(start, point[1]) if self.delta_accuracy == "epsilon" else start
        if x is None or x.size == 0:  # the finest start the model can choose (memory estimates)
            return max(0.25 * default, self.FINEST_INTERVAL)
        sigma, q, rounds, sensitivity = point
        s = min(max(sigma / sensitivity, 1e-100), 1e100)  # a start only: 1/s^2 neither overflows nor vanishes
        spread = math.sqrt(rounds * q * q * math.expm1(min(1.0 / (s * s), 700.0)))
        z = math.sqrt(2.0 * math.log(1.0 / float(np.min(x))))
        h = math.sqrt(7.0 * 0.9 * self.accuracy / (rounds * (1.0 + z / max(spread, 1e-300))))
        return self._unblinded_start(min(max(h, 0.25 * default, self.FINEST_INTERVAL), self.COARSEST_INTERVAL), q)

    def _span_start(self, point: Point) -> float:
        """``_first_interval``'s ``delta`` grid before the epsilon rule's ``_unblinded_start``: the h that puts
        the composed span (``loss_span``) on ``START_POINTS`` points, no finer than the default, on the ladder."""
        default = self._first_interval()
        return self._on_ladder(max(default, min(self.COARSEST_START, loss_span(*point) / self.START_POINTS)))

    def _below_rate(self, q: float) -> float:
        """The ladder's rung at or below q / ``BLIND_MARGIN``: the coarsest grid on which the optimistic side
        of a sampling rate q is not blind.  On a grid at or above q that side rounds the loss of the rounds
        that do not sample the record (most of them) onto 0 and -h, so the composed lower side is 0 or loose
        (``_no_chord``); just below q it is still loose (sigma 0.632, q 1.83e-3: no rounds value of G1's
        block met at h = 1.81e-3 = q / 1.01, 24 of 50 at 1.28e-3 = q / 1.43)."""
        return self._on_ladder(q / self.BLIND_MARGIN * (1.0 - 1e-9))

    def _unblinded_start(self, start: float, q: float) -> float:
        """The first grid of ``.epsilon`` and of ``delta_accuracy="epsilon"``: ``start``, or where that is blind (the sampling rate q
        below it) the rung below q (``_below_rate``), if q is at most ``BLIND_START_RATE`` and that rung at
        most ``BLIND_START_REACH`` times finer.  A blind first grid only shows that a finer one is needed,
        and its optimistic side is the costliest composition of the block (at q < h its grid variance is ~0,
        so its Chernoff window spans the rounds' whole reach: sigma 0.8, q 8.9e-4, first grids 1.8e-3 to
        9e-4: two thirds of the block's CPU); the blind step then jumps to the h^2 rung of the widest cap
        eps, 4-10x finer than the rung below q that meets most rounds values, so starting below q costs less
        and meets more points.  Above ``BLIND_START_RATE`` the deltas of
        the blind rounds values are large (q 0.016 from ~5000 rounds: delta ~ 1 at small eps), a coarse
        grid already meets them and the rung below q costs more (about 1.4x at sigma 0.5, q 0.016); past
        ``BLIND_START_REACH`` (sigma 0.5-0.6, q 1e-4: 2.6e-3 against 8e-5) every rounds value would compose
        a window of ~10^6 points, where the blind step after a coarse grid costs less."""
        if q >= start or q > self.BLIND_START_RATE or q <= self.FINEST_INTERVAL:
            return start
        below = self._below_rate(q)
        return below if start <= self.BLIND_START_REACH * below else start

    def _affordable(self, point: Point, h: float) -> float:
        """h, or where the composed window of ``point`` (sigma, q, rounds, sensitivity) on it would exceed
        ``MAX_WINDOW`` points by ``loss_span``'s estimate, the finest ladder rung on which it does not: what memory
        allows (the bracket of a coarser grid is certified too, only wider), no coarser than
        ``COARSEST_START``: a span no such grid holds (sigma / sensitivity near 0) is left to the
        discretization's refusal, which names sigma."""
        least = min(loss_span(*point) / self.MAX_WINDOW, max(h, self.COARSEST_START))
        if h >= least:
            return h
        k = math.ceil(2.0 * math.log2(least / self.FINEST_INTERVAL) - 1e-9)
        return float(self.FINEST_INTERVAL * 2.0 ** (max(k, 0) / 2.0))

    def _on_ladder(self, h: float) -> float:
        """h rounded down to FINEST_INTERVAL 2^(k/2) (k >= 0 an integer): the points of a grid block
        (every rounds value of one sigma and q) then share a few discretizations, not one each."""
        k = math.floor(2.0 * math.log2(h / self.FINEST_INTERVAL) + 1e-9)
        return float(self.FINEST_INTERVAL * 2.0 ** (max(k, 0) / 2.0))

    def _units(self, pending: list[tuple[Point, np.ndarray]], method: str) -> list[list[tuple[Point, np.ndarray]]]:
        """The work units a thread evaluates: whole blocks (the points sharing sigma, sampling rate and
        sensitivity, in the order they first appear) packed into runs of at most BATCH points whose
        estimated composed grids (``loss_span`` over the grid each starts on) fit BUDGET; a block larger
        than that is cut into such runs.  They depend on the points alone, never on ``workers``."""
        blocks: dict[tuple[float, float, float], list[tuple[Point, np.ndarray, float]]] = {}
        for point, sel in pending:
            h = (
                self.value_discretization_interval
                if self.accuracy is None
                else self._first_interval(point, None, method)
            )
            blocks.setdefault((point[0], point[1], point[3]), []).append((point, sel, loss_span(*point) / h + 1.0))
        units: list[list[tuple[Point, np.ndarray]]] = []
        used: tuple[int, float] = (self.BATCH, float(self.BUDGET))  # the first block opens a unit
        for block in blocks.values():
            size = sum(w for _, _, w in block)
            if len(block) > self.BATCH or size > self.BUDGET:
                runs = self._windows_within_budget([(i, w) for i, (_, _, w) in enumerate(block)])
                units.extend([[block[i][:2] for i in run] for run in runs])
                used = (self.BATCH, float(self.BUDGET))
            elif used[0] + len(block) > self.BATCH or used[1] + size > self.BUDGET:
                units.append([b[:2] for b in block])
                used = (len(block), size)
            else:
                units[-1].extend(b[:2] for b in block)
                used = (used[0] + len(block), used[1] + size)
        return units

    def _unit_brackets(
        self, pts: list[Point], xs: list[np.ndarray], bound: Bound, method: str, threads: int, keep: bool
    ) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[PLDKey, PrivacyLossDistribution]]:
        """The (lower, upper) of each point of a unit at its arguments ``xs`` (only the sides ``bound`` asks
        for are meaningful), and, if ``keep``, the PLDs it composed (fixed grid only; with ``accuracy``
        each refinement step drops its own; only the last unit keeps them, so that units finished
        ahead of their turn hold no PLDs).  Reads shared state only, so units run in parallel threads."""
        if self.accuracy is not None:
            return self._refined(pts, xs, method, threads), {}
        h, optimistic = self.value_discretization_interval, bound != "upper"
        wanted = set(pts)
        store = {k: v for k, v in self._plds.items() if k[:4] in wanted}
        self._build(store, pts, h, optimistic, threads, blocks=True)
        dists = [store[(*p, h, optimistic)] for p in pts]
        # The upper side needs no composed PMF: read from the spectra where few frequencies live
        # (direction_uppers), the same numbers alone and in a bracket.
        workers = threads or None
        if bound == "lower":
            compose_all(dists, False, workers=workers)
            sides = None
        else:
            uppers = direction_uppers(dists, method, xs, workers)
            sides = (
                [(None, functools.reduce(np.maximum, u)) for u in uppers]
                if bound == "upper"
                else brackets(dists, method, xs, workers, uppers=uppers)
            )
        out = []
        for j, (point, x, dist) in enumerate(zip(pts, xs, dists)):
            lo, up = np.empty(x.size), np.empty(x.size)
            if sides is None:
                evaluate_into(dist, method, x, bound, lo, up, np.arange(x.size))
            else:
                low, up[:] = sides[j]
                if low is not None:
                    lo[:] = low
            if method == "delta" and bound != "upper":  # bound="lower": no upper side to test, raise everywhere
                lo = self._raised_near_one(point, x, lo, up if bound == "both" else np.ones(x.size))
            if method == "delta":  # the complement's bracket near 1 (bound="lower": where the lower side is)
                select = up if bound != "lower" else np.where(lo > self.COMPLEMENT_ABOVE, 1.0, lo)
                ((low, high),) = self._complement_near_one([point], [h], [x], [(lo, select)], threads)[0]
                lo, up = (low if bound != "upper" else lo), (high if bound != "lower" else up)
            out.append((lo, up))
        return out, store if keep else {}

    def _pool_copy(self) -> SubsampledGaussianPLD:
        """What a pool's task needs (``_pool_task``): the settings, without the broadcast parameters,
        the kept PLDs, the affinity tables, the last call's ``unmet`` flags and the pool itself (each would be
        pickled with every task)."""
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy.sigma = copy.sampling_rate = copy.rounds = copy.sensitivity = np.empty(0)
        copy.unmet = None
        copy._plds, copy._log_affinities, copy._map, copy.workers = {}, {}, None, 1
        copy._complement_factors = OrderedDict()
        return copy

    def _evaluate(
        self,
        x: ArrayLike,
        name: str,
        bound: Bound,
        gaussian: Callable[[float, np.ndarray], tuple[np.ndarray, np.ndarray]],
        method: str,
    ) -> Result:
        # The points are found among the parameters' own broadcast (self.sigma's shape), not over the full
        # shape with the arguments' axes: a 10^6-point grid asked at 80 arguments each would stack 3e6 rows of
        # four parameters (96 MB) and sort them, ~0.3 GB held for the whole call.
        (xa, _, _, _, _), shape, scalar = broadcast_shape(
            **{name: x},
            sigma=self.sigma,
            sampling_rate=self.sampling_rate,
            rounds=self.rounds,
            sensitivity=self.sensitivity,
        )
        _validation.bound_side(bound)
        lower = np.empty(shape)
        upper = np.empty(shape)
        points = np.stack([a.ravel() for a in (self.sigma, self.sampling_rate, self.rounds, self.sensitivity)], axis=1)
        unique, inverse = np.unique(points, axis=0, return_inverse=True)
        own = (1,) * (len(shape) - self.sigma.ndim) + self.sigma.shape
        point_of = np.broadcast_to(inverse.reshape(own), shape).ravel()  # each element's point
        order = np.argsort(point_of, kind="stable")
        bounds = np.searchsorted(point_of[order], np.arange(unique.shape[0] + 1))
        del points, inverse, point_of
        flat_x, flat_lo, flat_up = np.broadcast_to(xa, shape).ravel(), lower.reshape(-1), upper.reshape(-1)
        pending: list[tuple[Point, np.ndarray]] = []
        closed = 0
        for i, (si, qi, ti, ci) in enumerate(unique):
            sel = order[bounds[i] : bounds[i + 1]]
            if sel.size == 0:  # no argument asks for this point (an empty argument array)
                continue
            if qi == 1.0:
                flat_lo[sel], flat_up[sel] = gaussian(math.sqrt(ti) * ci / si, flat_x[sel])
                closed += sel.size
                continue
            pending.append(((float(si), float(qi), float(ti), float(ci)), sel))
        progress.advance(closed)
        units = self._units(pending, method)
        # Several units at once: one thread each, their C++ calls single-threaded (the C++ loops and
        # scipy.fft release the GIL); one at a time: its calls use the threads instead.
        pool = min(self.workers, len(units))
        threads = 1 if pool > 1 else self.workers

        def points_and_arguments(unit: list[tuple[Point, np.ndarray]]) -> tuple[list[Point], list[np.ndarray]]:
            return [p for p, _ in unit], [flat_x[sel] for _, sel in unit]

        def run(
            unit: list[tuple[Point, np.ndarray]],
        ) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[PLDKey, PrivacyLossDistribution]]:
            return self._unit_brackets(*points_and_arguments(unit), bound, method, threads, unit is units[-1])

        executor = ThreadPoolExecutor(pool) if pool > 1 else None
        try:
            if self._map is not None:  # a pool of the caller's: one thread per task, nothing kept
                settings = self._pool_copy()
                results = _in_order(
                    units,
                    self._map(_pool_task, [(settings, *points_and_arguments(unit), bound, method) for unit in units]),
                )
            else:
                results = executor.map(run, units) if executor is not None else map(run, units)
            for unit, (brackets, store) in zip(units, results):  # in order, in this thread
                for (_, sel), (lo, up) in zip(unit, brackets):
                    flat_lo[sel], flat_up[sel] = lo, up
                if unit is units[-1]:
                    self._plds = store  # memory: the last unit's PLDs only
                progress.advance(sum(sel.size for _, sel in unit))
        finally:
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)
        if method == "epsilon" and self.accuracy is not None:
            self._flag_unmet(lower, upper)
        return bound_result(lower, upper, bound, scalar)

    def _flag_unmet(self, lower: np.ndarray, upper: np.ndarray) -> None:
        """``unmet``: True where the certified epsilon bracket [lower, upper] of an ``accuracy=`` call is wider than
        ``accuracy`` (an infinite upper side included), whatever ``bound`` returns of it; and, where any is, one
        ``AccuracyNotMetWarning`` counting them.  The refinement stops short of ``accuracy`` only where no grid it
        may build narrows the bracket further (its width set by what no grid removes: the round-off and truncation
        charges, at deltas near 1e-10 after many rounds; or the finest grid within ``MAX_WINDOW``); such a
        bracket is certified all the same, only wider than asked."""
        assert self.accuracy is not None
        with np.errstate(invalid="ignore"):
            unmet = np.asarray(~(upper - lower <= self.accuracy))  # inf - inf is nan: unmet too
        self.unmet = unmet
        count = int(np.count_nonzero(unmet))
        if count:
            warnings.warn(
                f"{count} of {unmet.size} epsilon brackets are wider than accuracy={self.accuracy:g} (certified, "
                "but no grid within reach narrowed them further); the accountant's .unmet flags them",
                AccuracyNotMetWarning,
                stacklevel=4,  # the caller of .epsilon
            )

    def delta(self, epsilon: ArrayLike, bound: Bound = "upper") -> Result:
        """Certified upper bound on delta(epsilon) (``bound="lower"``: certified lower bound)."""
        return self._evaluate(epsilon_values(epsilon), "epsilon", bound, _gaussian_delta_bracket, "delta")

    def epsilon(self, delta: ArrayLike, bound: Bound = "upper") -> Result:
        """Smallest epsilon >= 0 whose delta bound is <= delta (upper: certified)."""
        return self._evaluate(delta_values(delta), "delta", bound, _gaussian_epsilon_bracket, "epsilon")


def _pool_task(
    task: tuple[SubsampledGaussianPLD, list[Point], list[np.ndarray], Bound, str],
) -> tuple[list[Point], list[tuple[np.ndarray, np.ndarray]]]:
    """One unit of ``SubsampledGaussianPLD._evaluate`` in a caller's pool (a module-level function, so
    that it pickles by name): its points and their brackets, on one thread."""
    accountant, pts, xs, bound, method = task
    return pts, accountant._unit_brackets(pts, xs, bound, method, 1, False)[0]


def _in_order(
    units: list[list[tuple[Point, np.ndarray]]],
    results: Iterable[tuple[list[Point], list[tuple[np.ndarray, np.ndarray]]]],
) -> Iterable[tuple[list[tuple[np.ndarray, np.ndarray]], dict[PLDKey, PrivacyLossDistribution]]]:
    """The pool's results as ``_unit_brackets`` gives them, each checked to answer its own unit: a map
    that reorders (``imap_unordered``) or drops results would put brackets on the wrong points."""
    count = 0
    for unit, (pts, unit_brackets) in zip(units, results):
        if pts != [p for p, _ in unit] or len(unit_brackets) != len(unit):
            raise RuntimeError(
                "workers' map returned a result for another block: pass a map that keeps the "
                "order of its inputs (pool.map, not imap_unordered)"
            )
        count += 1
        yield unit_brackets, {}
    if count != len(units):
        raise RuntimeError(f"workers' map returned {count} results for {len(units)} blocks")


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


def _offset_rows(size: int, own: int) -> tuple[slice, slice]:
    """Where, in a point's arguments under ``delta_accuracy="epsilon"`` (``own`` of its own, then one row of
    ``own`` per offset of ``RIGHT_OFFSETS``, then one per fraction of ``LEFT_FRACTIONS``), the right and the
    left rows lie (empty slices for arguments without them)."""
    rows = size // own - 1 if own else 0
    right_rows = min(rows, len(RIGHT_OFFSETS))
    end = own * (1 + right_rows)
    return slice(own, end), slice(end, own * (1 + rows))


def _least_epsilon_width(x: np.ndarray, own: int, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """The certified epsilon width at each of a point's ``own`` arguments, the least of the chords to the right
    rows' upper sides (``certified_epsilon_width``) and of the left rows' lower sides (``left_epsilon_width``);
    ``lower`` and ``upper`` give both sides at every argument of ``x`` (layout: ``_offset_rows``).  One call of
    the core's ``least_epsilon_width`` (pld_epsilon_width.hpp): per refinement step and point, the numpy
    version's dozen array operations were about a tenth of G1's profiled time."""
    return _core.pld_least_epsilon_width(x, own, lower, upper, len(RIGHT_OFFSETS))


def _fixed_part(pmf: GridPMF, eps: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The part of ``pmf``'s certified delta at ``eps`` (``values``) that no grid removes: its round-off
    charge there (``GridPMF.charge_at``, twice on the optimistic side, as ``GridPMF.delta`` applies it), the
    suffix sums' relative slack on the value, and the mass at +infinity (pessimistic) or the truncated tail
    (optimistic ``shift``), and the cells' edge factor: each round's masses are scaled by about e^{+-e}
    (pld_connect_dots.hpp's ``edge_factor``, e = pld_cells.hpp's ``edge_error``, reported in the loss shift),
    so the composed curve carries a relative excess of about ``loss_shift`` (the optimistic side's), or
    what the pessimistic finite mass exceeds 1 by (it adds the cells' round-off: measured 1.09-1.14
    loss_shift, 3.9e-9 after 47149 rounds at sigma 0.73, q 0.023, at every h), which near delta = 1 is most
    of the gap.  These stay as the grid shrinks (the charge even grows with the window); the
    direct DFT bins (``compose_all``'s ``direct_bins``) cut the round-off charge ~100x.  Two rows: the
    part without the edge factor, and the edge factor (which ``_charge_width`` counts near delta = 1 only:
    counted everywhere, it would send blocks such as sigma 2.05, q 0.1 into same-grid recompositions with
    direct bins at over twice the cost).  A model for sizing the next grid
    (``SubsampledGaussianPLD._charge_width``), not a bound."""
    at = pmf.curve_argument(np.asarray(eps, dtype=np.float64))
    if pmf.pessimistic:
        excess = max(pmf.finite_mass + pmf.p_inf - 1.0, pmf.loss_shift) * values
        return np.stack([pmf.charge_at(at) + pmf.suffix_sum_slack() * values + pmf.p_inf, excess])
    excess = pmf.loss_shift * values
    return np.stack([2.0 * pmf.charge_at(at) + pmf.suffix_sum_slack() * values + abs(pmf.shift), excess])


def _of_largest(parts: list[np.ndarray], values: list[np.ndarray]) -> np.ndarray:
    """Per argument (the last axis), ``parts`` of the direction whose ``values`` is the largest there (the one
    that sets the bound: the maximum over the neighbouring directions)."""
    stacked = np.array(parts)
    pick = np.argmax(values, axis=0).reshape((1,) * (stacked.ndim - 1) + (-1,))
    return cast(np.ndarray, np.take_along_axis(stacked, pick, axis=0)[0])


def _least(a: float | None, b: float | None) -> float | None:
    """The smaller of two grids asked for, None standing for no ask."""
    return b if a is None else a if b is None else min(a, b)


def _gaussian_delta_bracket(r: float, epsilon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """theta(r, eps) rounded outward, r = sqrt(T) sensitivity / sigma rounded outward first (certified_theta)."""
    return (np.asarray(theta_lower(radius_down(r), epsilon)), np.asarray(theta_upper(radius_up(r), epsilon)))


def _gaussian_epsilon_bracket(r: float, delta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The inverse of theta at delta rounded outward (a lower and an upper bound on the exact epsilon)."""
    return (
        np.asarray(theta_epsilon_lower(radius_down(r), delta)),
        np.asarray(theta_epsilon_upper(radius_up(r), delta)),
    )
