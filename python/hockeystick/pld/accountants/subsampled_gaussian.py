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
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal, cast

import numpy as np

from ...base import progress
from ...base import validation as _validation
from ...base.accountant import Quantity
from ...base.accountant_docs import accountant_docs
from ...base.elementwise import ArrayLike, broadcast_float_arrays, broadcast_shape
from ...base.keyword_only import positional_deprecated
from ...numerics.certified_theta import (
    radius_down,
    radius_up,
    theta_epsilon_lower,
    theta_epsilon_upper,
    theta_lower,
    theta_upper,
)
from ..compose import two_resolution
from ..compose.fft import DEFAULT_TAIL
from ..grid.distribution import (
    Bound,
    PrivacyLossDistribution,
    Result,
    bound_result,
    delta_values,
    epsilon_values,
    install_question_reader,
)
from ..mechanisms.constructors import DEFAULT_INTERVAL, checked_interval, checked_tail
from ..question import default_reads
from ..question.default_reads import Bracket, by_value
from ..question.described_run import subsampled_segments
from ..question.reader import RunReader
from ..reads import along_run
from ..refine import constants, question, round_cache
from ..refine.calibration_start import calibration_grids, calibration_start
from ..refine.directional_delta import calibration_directions
from ..refine.grid_start import StartGrid, loss_span, work_units
from ..refine.near_one import NearOne
from ..refine.unmet import AccuracyNotMetWarning, unmet_flags
from .fixed_grid import fixed_bracket, fixed_sides

# an evaluation point of SubsampledGaussianPLD: (sigma, sampling_rate, rounds, sensitivity)
Point = tuple[float, float, float, float]
# a composed PLD's key: its point, its grid h, and whether its optimistic side was built
PLDKey = tuple[float, float, float, float, float, bool]

__all__ = ["AccuracyNotMetWarning", "PLDAccountant", "SubsampledGaussianPLD"]


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class PLDAccountant:
    """Certified epsilon and delta of the rounds composed so far, each round given as it runs.

    Rounds are added with ``compose`` (any PLD on the accountant's grid) or
    ``compose_subsampled_gaussian`` (sigma, sampling rate and sensitivity may change between calls);
    ``delta`` and ``epsilon`` bound the composition of every round added so far, on the certified
    upper side, the certified lower side or both. A round type seen before (the same sigma, sampling
    rate and sensitivity) is discretized once and reused.

    Parameters
    ----------
    value_discretization_interval : float, optional
        Spacing h of the privacy-loss grid every round is discretized on, 0 < h <= 100 (default
        1e-4); smaller is tighter and slower.
    tail : float, optional
        Probability mass of each round's loss cut from a continuous mechanism's tails (sent to
        +infinity on the upper side, dropped on the lower side), 1e-300 <= tail < 1e-3 (default
        1e-15).  Rounds of subsampled Gaussians (``compose_subsampled_gaussian``, or PLDs of
        ``pld.subsampled_gaussian``) are read per question (pld/question: the grid, tail and tilt
        chosen from the delta or epsilon asked, intersected with this grid's bracket), so the answer
        is ``SubsampledGaussianPLD``'s default for one kind of round; no
        ``value_discretization_interval`` given and one kind of round, ``epsilon`` is that default
        alone, at the tail given if one is.

    Raises
    ------
    ValueError
        If ``value_discretization_interval`` is outside (0, 100], or ``tail`` is outside [1e-300,
        1e-3).
    ParameterTypeError
        If ``value_discretization_interval`` or ``tail`` is a string, a boolean or an array.

    See Also
    --------
    SubsampledGaussianPLD : The same rounds with fixed parameters, broadcasting over arrays of them.

    Notes
    -----
    Before any round, nothing has been released: ``delta`` and ``epsilon`` return 0 (as
    dp_accounting's and Opacus's accountants answer).

    References
    ----------
    Zhu, Dong & Wang 2022 (dominating pairs of the Poisson-subsampled Gaussian, adaptive
    composition); Doroshenko et al. 2022 (the discretization).

    Examples
    --------
    >>> from hockeystick.pld import PLDAccountant
    >>> acc = PLDAccountant(value_discretization_interval=1e-4)
    >>> acc = acc.compose_subsampled_gaussian(sigma=1.0, sampling_rate=0.01, rounds=500)
    >>> acc = acc.compose_subsampled_gaussian(sigma=0.8, sampling_rate=0.02, rounds=500)
    >>> [round(e, 4) for e in acc.epsilon(1e-5, bound="both")]
    [4.8421, 4.8421]
    """

    def __init__(
        self, value_discretization_interval: float | None = None, tail: float | None = None
    ):
        # no grid given: rounds of one subsampled Gaussian are answered by SubsampledGaussianPLD's
        # default, its grid chosen when the delta is asked (refine.question), at the tail given if
        # one is
        self._from_question = value_discretization_interval is None
        self._tail_given = tail is not None
        self.value_discretization_interval = checked_interval(
            DEFAULT_INTERVAL
            if value_discretization_interval is None
            else value_discretization_interval
        )
        self.tail = DEFAULT_TAIL if tail is None else checked_tail(tail)
        self._pld: PrivacyLossDistribution | None = None
        # the rounds composed so far, in order: (one round's PLD, rounds), for the curves along the
        # run
        self._segments: list[tuple[PrivacyLossDistribution, int]] = []
        self._cache: dict[tuple[float, float, float], PrivacyLossDistribution] = {}

    @property
    def composed_pld(self) -> PrivacyLossDistribution | None:
        """The PLD of every round composed so far, the one ``delta`` and ``epsilon`` read.

        Returns
        -------
        PrivacyLossDistribution or None
            The composition of the rounds in order (PLDs compose by convolving their privacy loss
            distributions, Koskela et al. 2020), or None before any round: nothing released.
        """
        return self._pld

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
        """Add ``rounds`` rounds of the Poisson-subsampled Gaussian (rate 1: plain Gaussian).

        The one-round PLD comes from the process's round cache (``pld.refine.round_cache``) when an
        earlier accountant built it on the same grid and tail: a ledger's checkpoints, each a new
        accountant over the same distinct rounds, discretize each round once."""
        # each one number (refusals name the value as given); their ranges are checked where they
        # are discretized
        key = (
            _validation.single(sigma, "sigma"),
            _validation.single(sampling_rate, "sampling_rate"),
            _validation.single(sensitivity, "sensitivity"),
        )
        if key not in self._cache:
            self._cache[key] = round_cache.discretized(
                [key], self.value_discretization_interval, self.tail, True
            )[0]
        return self.compose(self._cache[key], rounds)

    def _one_subsampled_gaussian(self) -> tuple[float, float, int] | None:
        """(sigma / sensitivity, q, rounds) where the rounds composed so far describe rounds of one
        Poisson-subsampled Gaussian (``question.described_run``, read from the composed PLD's
        factors) cut at this accountant's tail, else None (a PLD cut at another tail is read with
        its own bracket, ``PrivacyLossDistribution.epsilon``)."""
        if self._pld is None or self._pld.tail != self.tail:
            return None
        segments = subsampled_segments(self._pld)
        if segments is None or len(segments) != 1:
            return None
        ((noise, q, _), rounds) = segments[0]
        return noise, q, rounds

    @positional_deprecated("bound")
    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on delta(epsilon) of every round composed so far.

        Parameters
        ----------
        epsilon : array_like
            Epsilon >= 0 (``inf`` allowed) before any round; after it, any real but NaN, as
            ``PrivacyLossDistribution.delta`` takes it (a negative epsilon's delta is the profile's
            there).

        Returns
        -------
        float, numpy.ndarray or tuple
            Before any round, nothing has been released: 0 (as dp_accounting's and Opacus's
            accountants answer).
        """
        if self._pld is None:
            eps = epsilon_values(epsilon)
            return _validation.exact_sides(bound, 0.0 if eps.ndim == 0 else np.zeros(eps.shape))
        return self._pld.delta(epsilon, bound=bound)

    @positional_deprecated("bound")
    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on epsilon(delta) of every round composed so far.

        The upper side is the smallest epsilon >= 0 whose certified upper delta is at most
        ``delta``.

        Returns
        -------
        float, numpy.ndarray or tuple
            The upper side is ``inf`` where ``delta`` is below the mass the upper side puts at
            infinite loss. Before any round: 0.
        """
        run = self._one_subsampled_gaussian() if self._from_question else None
        if run is not None:  # (a Gaussian's rounds stay on the grid they were composed on)
            noise, q, rounds = run
            tail = self.tail if self._tail_given else None
            return SubsampledGaussianPLD(noise, q, rounds, tail=tail).epsilon(delta, bound=bound)
        if self._pld is None:
            dlt = delta_values(delta)
            return _validation.exact_sides(bound, 0.0 if dlt.ndim == 0 else np.zeros(dlt.shape))
        return self._pld.epsilon(
            delta, bound=bound
        )  # read per question (pld/question) where its rounds are described

    def epsilon_curve(
        self, delta: float, *, every: int | None = None, steps: ArrayLike | None = None
    ) -> along_run.CurveAlongRun:
        """The certified bracket of epsilon at ``delta`` after every ``every``-th round composed so
        far (and the last), or after each of ``steps`` (strictly increasing, at most the rounds so
        far); every round by default.  Each point is ``epsilon(delta, bound="both")`` of an
        accountant given the same rounds up to that checkpoint, all checkpoints composed in shared
        batches (``along_run.prefix_curve``)."""
        return along_run.prefix_curve(
            self._segments, "epsilon", delta, self._checkpoints(every, steps)
        )

    def delta_curve(
        self, epsilon: float, *, every: int | None = None, steps: ArrayLike | None = None
    ) -> along_run.CurveAlongRun:
        """``epsilon_curve``'s twin: the certified bracket of delta at ``epsilon`` after each checkpoint."""
        return along_run.prefix_curve(
            self._segments, "delta", epsilon, self._checkpoints(every, steps)
        )

    def _checkpoints(self, every: int | None, steps: ArrayLike | None) -> np.ndarray:
        total = sum(rounds for _, rounds in self._segments)
        if total == 0:
            raise ValueError("no round composed yet: a curve along the run needs compose() first")
        return along_run.checkpoints(total, every, steps)


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class SubsampledGaussianPLD(along_run.RoundsCurves):
    r"""Certified epsilon and delta of T rounds of the Poisson-subsampled Gaussian, every round released.

    Each round includes each record independently with probability ``sampling_rate`` = q and
    releases the sum of the included contributions (each of norm at most ``sensitivity`` = Delta)
    plus N(0, sigma^2 I); neighbours add or remove one record. One round's dominating pair is

    .. math::

        P = (1 - q)\, N(0, \sigma^2) + q\, N(\Delta, \sigma^2) \quad\text{vs}\quad Q = N(0, \sigma^2)

    (remove; add: the pair swapped), and delta(epsilon) is the larger, over the two directions, of
    the T-fold composition of its discretized PLD, both sides certified. With ``sampling_rate == 1``
    the rounds are Gaussian and compose exactly,

    .. math::

        \delta(\varepsilon) = \theta_{\varepsilon}(\sqrt{T}\, \Delta / \sigma), \qquad
        \theta_{\varepsilon}(r) = \Phi(r/2 - \varepsilon/r) - e^{\varepsilon}\Phi(-r/2 - \varepsilon/r),

    bracketed by that closed form rounded outward (``hockeystick.numerics.certified_theta``).

    Parameters
    ----------
    sigma : array_like
        Standard deviation of the Gaussian noise, > 0, in the units of ``sensitivity``; broadcasts.
    sampling_rate : array_like
        Poisson sampling rate q, 0 < q <= 1; broadcasts.
    rounds : array_like
        Number of rounds T, an integer with 1 <= T <= 2**53; broadcasts.
    sensitivity : array_like, optional
        Norm bound Delta of one record's contribution, > 0 (default 1); broadcasts.
    value_discretization_interval : float, optional
        A fixed spacing h of the privacy-loss grid, 0 < h <= 100 (1e-4, dp_accounting's, for
        dp_accounting's numbers); not with ``accuracy``.  Where the composition on h cannot answer
        however fine h is (a delta below ``DELTA_FLOOR``, the tails cut from T rounds past 1e-3 of
        it, or q below h), its bracket is intersected with the default's
        (``question.default_reads.grid_sides``), so a grid is never looser there than the default;
        elsewhere it is the grid's own.  Default (neither it nor ``accuracy``
        given): ``.delta`` reads the 1e-4 grid; ``.epsilon`` chooses the grid from the question
        (``refine.question``): the 1e-4 grid where it fits the delta, rounds and sampling rate asked
        and its bracket is within max(1e-3, 0.025 % epsilon), else a refinement to that width, with
        the ``tail`` given or else a tail of at most 1e-3 delta over the rounds; a bracket left
        wider than max(1e-2, 1e-2 epsilon) warns (``AccuracyNotMetWarning``, naming ``accuracy=``),
        and there, where no ``tail`` was given, the upper side is at most the RDP conversion's.
    accuracy : float, optional
        Instead of a fixed grid: the bracket width asked for, > 0. Each distinct point's grid is
        then refined (``refine.points``) until its certified bracket is no wider than the tolerance
        at every argument, or no grid within reach narrows it further (``.epsilon`` then sets
        ``unmet`` and warns once with an ``AccuracyNotMetWarning``). The bounds are certified either
        way. An accuracy finer than the default's tolerance max(1e-3, 2.5e-4 epsilon) (below 1e-3,
        or 1e-3 above epsilon 4) intersects each bracket with the default's, so it is never looser
        than the default (``question.default_reads.accuracy_sides``, ``accuracy_delta_sides``); an
        accuracy as coarse as the default's tolerance or coarser is read to that width alone, without
        the default's further reads: faster, within the width asked, and possibly wider than the
        default's bracket.  ``.delta`` at an accuracy at most 1e-3 is the default's bracket where
        within it, else refined and intersected with it (``accuracy_delta_brackets``).
    tail : float, optional
        Probability mass of each round's loss cut from the Gaussian's tails (sent to +infinity on
        the upper side, dropped on the lower side), 1e-300 <= tail < 1e-3, used as given by every
        discretization (default 1e-15, or by the question as ``value_discretization_interval``
        says).
    delta_accuracy : {"relative", "epsilon"}, optional
        What ``accuracy`` means for ``.delta``: the bracket's width relative to max(upper,
        ``DELTA_FLOOR`` = 1e-9) (default), or the width of the epsilon bracket the delta bracket
        implies (an argument is also done once its upper delta is below ``DELTA_FLOOR`` or its lower
        delta at least ``DELTA_CEILING`` = 1 - 1e-9).
    relative_accuracy : float, optional
        For ``.epsilon`` with ``accuracy``: the tolerance is max(accuracy, relative_accuracy *
        epsilon), >= 0 (default 0: ``accuracy`` absolute).
    workers : int or callable, optional
        Threads evaluating disjoint blocks of points at once (a block: the points sharing sigma,
        sampling_rate and sensitivity). None (default): every core this process may use, at most
        ``OMP_NUM_THREADS`` where that is set; -1 every core, -2 all but one; 1 one thread. A
        map-like callable (``pool.map`` of a ProcessPoolExecutor or a ``multiprocessing.Pool``,
        ``client.get_executor().map`` of a Dask client) evaluates the blocks in the pool's
        processes. The values are the same bit for bit for any ``workers``.

    Raises
    ------
    ValueError
        If ``sigma`` or ``sensitivity`` is not finite and > 0, ``sampling_rate`` is outside (0, 1],
        ``rounds`` is not an integer in [1, 2**53], both ``value_discretization_interval`` and
        ``accuracy`` are given, ``accuracy`` is not > 0, ``value_discretization_interval`` is
        outside (0, 100], ``tail`` is outside [1e-300, 1e-3), ``delta_accuracy`` is neither
        "relative" nor "epsilon", ``relative_accuracy`` is negative or is given without
        ``accuracy``, or ``workers`` is 0.
    ParameterTypeError
        If a parameter is a string, a boolean or None (but the optional ones' None), or ``workers``
        is neither an integer, None nor a callable (a pool rather than its map included).

    See Also
    --------
    PLDAccountant : Rounds whose parameters change as training proceeds.
    FixedBatchGaussianPLD : Fixed-size batches under replace-one neighbours.

    Notes
    -----
    Parameters broadcast with each other and with the argument of ``delta`` and ``epsilon``; one PLD
    is built per distinct (sigma, sampling_rate, rounds, sensitivity), ``BATCH`` points per parallel
    C++ call.

    References
    ----------
    Zhu, Dong & Wang 2022 (the dominating pairs); Doroshenko et al. 2022 (the connect-the-dots
    discretization); paper 000, eq. 6 and paper 004, eq. 8 (the Gaussian case in closed form).

    Examples
    --------
    >>> from hockeystick.pld import SubsampledGaussianPLD
    >>> acc = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=1000)
    >>> [round(e, 4) for e in acc.epsilon(1e-5, bound="both")]
    [1.8282, 1.8282]
    >>> round(acc.delta(1.0), 6)
    0.002612
    """

    CURVE_PARAMETERS = ("sigma", "sampling_rate", "sensitivity")

    # read by callers (meaning and reason of each: refine/constants.py)
    DELTA_FLOOR = constants.DELTA_FLOOR
    DELTA_CEILING = constants.DELTA_CEILING
    BATCH = constants.BATCH
    BUDGET = constants.BUDGET

    # calibrate()'s start (the central-limit estimate), its coarser grids first, its directions one
    # at a time
    calibration_start = staticmethod(calibration_start)
    calibration_grids = staticmethod(calibration_grids)
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
        tail: float | None = None,
        delta_accuracy: Literal["relative", "epsilon"] = "relative",
        relative_accuracy: float = 0.0,
        workers: int | Callable[..., Iterable[Any]] | None = None,
    ):
        (s, q, t, c), _, _ = broadcast_float_arrays(
            sigma=_validation.positive(sigma, "sigma"),
            sampling_rate=_validation.in_interval(
                sampling_rate, "sampling_rate", 0.0, 1.0, open_low=True, open_high=False
            ),
            rounds=_validation.positive_integer(
                rounds, "rounds", maximum=_validation.MAX_EXACT_INTEGER
            ),
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
            DEFAULT_INTERVAL
            if value_discretization_interval is None
            else value_discretization_interval
        )
        # neither a grid nor an accuracy given: ``.epsilon`` takes them from the question
        # (refine.question), and the tail too unless one is given
        self._from_question = value_discretization_interval is None and accuracy is None
        self._tail_given = tail is not None
        self.tail = DEFAULT_TAIL if tail is None else checked_tail(tail)
        self.delta_accuracy = _validation.choice(
            delta_accuracy, "delta_accuracy", ("relative", "epsilon")
        )
        self.relative_accuracy = float(
            _validation.nonnegative(
                _validation.single(relative_accuracy, "relative_accuracy"), "relative_accuracy"
            )
        )
        if self.relative_accuracy > 0 and self.accuracy is None:
            raise ValueError(
                "relative_accuracy widens the tolerance of accuracy=: give accuracy too"
            )
        if not callable(workers) and callable(getattr(workers, "map", None)):
            raise _validation.ParameterTypeError(
                f"workers must be a count, None or a map-like callable; got a "
                f"{type(workers).__name__}: pass its map (workers=pool.map)"
            )
        self._map = workers if callable(workers) else None
        self.workers = 1 if self._map is not None else _validation.workers(workers)
        self._plds: dict[PLDKey, PrivacyLossDistribution] = {}
        # the last ``.epsilon`` call's flags with ``accuracy``: True where its bracket is wider than
        # ``accuracy``
        self.unmet: np.ndarray | None = None
        # delta near 1: the affinity tables and complement factors this accountant keeps
        self._near_one = NearOne()

    def _build(
        self,
        store: dict[PLDKey, PrivacyLossDistribution],
        points: list[Point],
        h: float,
        optimistic: bool = True,
        threads: int = 0,
        blocks: bool = False,
    ) -> None:
        """Discretizes every point not in ``store`` at grid h in one C++ call (``threads`` OpenMP
        threads over the points, 0: all cores) and puts its PLD there.

        ``optimistic=False`` (an upper bound is all that is asked) skips the optimistic PMFs; such
        PLDs are kept under their own key, so a later lower bound rebuilds them. ``blocks``: where q
        < h (``two_resolution.applies``), the lower side is composed from blocks of rounds built on
        a grid finer than q and merged onto h (``two_resolution``): on the fixed grid a user picked,
        it is within ~1 % of the fine-grid delta where the one-round lower side is 0 (sigma 0.5, q
        1e-4, 10^4 rounds, eps 1, h = 1e-3: 1.778e-5 against 0, truth 1.781e-5), at the cost of
        composing on the fine grid; where the fine grid's one-round PMF would pass
        ``two_resolution.FINE_CELLS`` (small sigma reaches far in loss) the one-round lower side is
        kept.  The ``accuracy=`` refinement does not ask for it: its grids are driven by the upper
        side and by the round-off charges (direct bins), so the blocks would cost more for the same
        points met.
        """
        missing = [p for p in points if (*p, h, optimistic) not in store]
        if not missing:
            return
        # One discretization per (sigma, q, sensitivity): every rounds value of a pair composes the
        # same factors (and a batch of compositions transforms a shared factor once).
        # Kept between calls (round_cache): calibrating the rounds discretizes each pair once.
        pairs = list(dict.fromkeys((p[0], p[1], p[3]) for p in missing))
        dists = dict(zip(pairs, round_cache.discretized(pairs, h, self.tail, optimistic, threads)))
        # q < h: the lower side from blocks of rounds composed on a grid finer than q
        # (two_resolution)
        for pair in pairs if optimistic and blocks else ():
            cells = max(
                factor.upper.p.size for direction in dists[pair].directions for factor in direction
            )
            if two_resolution.applies(*pair, h, cells):
                dists[pair] = two_resolution.with_block_lowers(
                    dists[pair], round_cache.block_lowers(pair, h, self.tail, threads)
                )
        for p in missing:
            store[(*p, h, optimistic)] = dists[(p[0], p[1], p[3])].self_compose(int(p[2]))

    def _unit_brackets(
        self,
        pts: list[Point],
        xs: list[np.ndarray],
        bound: Bound,
        method: Quantity,
        threads: int,
        keep: bool,
    ) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[PLDKey, PrivacyLossDistribution]]:
        """The (lower, upper) of each point of a unit at its arguments ``xs`` (only the sides
        ``bound`` asks for are meaningful), and, if ``keep``, the PLDs it composed (fixed grid only;
        with ``accuracy`` each refinement step drops its own; only the last unit keeps them, so that
        units finished ahead of their turn hold no PLDs).  Reads shared state only, so units run in
        parallel threads."""
        if self.accuracy is not None:
            from ..refine.points import Refinement  # loaded on use: only accuracy= refines here

            def refinement(pts: list[Point], xs: list[np.ndarray]) -> list[Bracket]:
                return Refinement(
                    cast(float, self.accuracy),
                    self.delta_accuracy,
                    self.tail,
                    self._near_one,
                    self.relative_accuracy,
                ).refined(pts, xs, method, threads)

            if method == "delta":
                reads = default_reads.accuracy_delta_brackets
                return reads(self, pts, xs, refinement, bound, threads), {}
            # epsilon: each delta asked on its own (the points asking it together), as alone
            sides = functools.partial(default_reads.accuracy_sides, self, threads=threads)
            return by_value(pts, xs, lambda p, x: sides(p, x, refinement(p, x))), {}
        if self._from_question and method == "epsilon":
            return default_reads.each_epsilon_bracket(self, pts, xs, threads, keep)
        asked = default_reads.delta_sides_asked(bound) if method == "delta" else bound
        found, store = self._fixed_brackets(pts, xs, asked, method, threads, keep)
        if self._from_question:
            found = default_reads.delta_brackets(self, pts, xs, found, asked == "both", threads)
        else:
            # the caller's grid: the default's reads where its composition cannot answer
            found = default_reads.grid_sides(self, pts, xs, found, asked, method, threads)
        return found, store

    def _fixed_brackets(
        self,
        pts: list[Point],
        xs: list[np.ndarray],
        bound: Bound,
        method: Quantity,
        threads: int,
        keep: bool,
        add_uppers: list[np.ndarray | None] | None = None,
    ) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[PLDKey, PrivacyLossDistribution]]:
        """``_unit_brackets`` on the fixed grid ``value_discretization_interval``; with
        ``bound="both"`` and a list ``add_uppers``, each point's certified upper side of the add
        direction alone appended to it (None where the PLD has one direction), read from the same
        compositions as the bracket (``fixed_grid.fixed_sides``: a bracket's add direction's
        optimistic side discretized only where it can raise the lower side)."""
        h, optimistic = self.value_discretization_interval, bound != "upper"
        wanted = set(pts)
        store = {k: v for k, v in self._plds.items() if k[:4] in wanted}

        def full(points: list[Point]) -> list[PrivacyLossDistribution]:
            self._build(store, points, h, optimistic, threads, blocks=True)
            return [store[(*p, h, optimistic)] for p in points]

        sides = fixed_sides(
            pts, xs, (h, self.tail), bound, method, threads, self._along_run, full, add_uppers
        )
        out = [
            fixed_bracket(self._near_one, point, x, side_low, side_high, bound, method, h, threads)
            for (point, x), (side_low, side_high) in zip(zip(pts, xs), sides)
        ]
        return out, store if keep else {}

    def _evaluate(
        self,
        x: ArrayLike,
        name: str,
        bound: Bound,
        gaussian: Callable[[float, np.ndarray], tuple[np.ndarray, np.ndarray]],
        method: Quantity,
    ) -> Result:
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
        flat_x, flat_lo, flat_up = (
            np.broadcast_to(xa, shape).ravel(),
            lower.reshape(-1),
            upper.reshape(-1),
        )
        pending: list[tuple[Point, np.ndarray]] = []
        closed = 0
        for point, sel in point_rows(
            (self.sigma, self.sampling_rate, self.rounds, self.sensitivity), shape
        ):
            if point[1] == 1.0:  # q = 1: the Gaussian mechanism, in closed form
                flat_lo[sel], flat_up[sel] = gaussian(
                    math.sqrt(point[2]) * point[3] / point[0], flat_x[sel]
                )
                closed += sel.size
                continue
            pending.append((point, sel))
        progress.advance(closed)
        self._run_units(pending, flat_x, flat_lo, flat_up, bound, method)
        if method == "epsilon" and self.accuracy is not None:
            self.unmet = unmet_flags(lower, upper, self.accuracy, self.relative_accuracy)
        elif method == "epsilon" and self._from_question:
            self.unmet = question.warn_unreadable(lower, upper)
        return bound_result(lower, upper, bound, scalar)

    def _run_units(
        self,
        pending: list[tuple[Point, np.ndarray]],
        flat_x: np.ndarray,
        flat_lo: np.ndarray,
        flat_up: np.ndarray,
        bound: Bound,
        method: Quantity,
    ) -> None:
        """The brackets of the ``pending`` points (each with the flat positions asking for it) into
        ``flat_lo`` and ``flat_up``, unit by unit (``work_units``: the points sharing a
        discretization), in this accountant's threads or its caller's pool; the last unit's PLDs are
        kept.  Several points compose window after window (each point's fixed grid and tilted
        reads, 10^5 to 10^6 points each, far above glibc's initial mmap threshold), so glibc's
        thresholds are first raised as a refinement raises them (``malloc_thresholds``: each window's
        memory then comes from the heap the process holds, not from pages the kernel maps and zeroes
        anew; no value changes)."""
        if len(pending) > 1:
            from ..refine.malloc_thresholds import raise_malloc_thresholds  # several points only

            raise_malloc_thresholds()
        units = work_units(
            pending,
            lambda point: (
                self.value_discretization_interval
                if self.accuracy is None
                else StartGrid(self.accuracy, self.delta_accuracy, self.relative_accuracy).first(
                    point, None, method
                )
            ),
            constants.CURVE_BUDGET if self._along_run and self.accuracy is None else None,
        )
        # Several units at once: one thread each, their C++ calls single-threaded (the C++ loops and
        # scipy.fft release the GIL); one at a time: its calls use the threads instead, unless it is
        # one small point (``one_thread``).
        pool = min(self.workers, len(units))
        threads = 1 if pool > 1 or _one_thread(self, pending) else self.workers

        def points_and_arguments(
            unit: list[tuple[Point, np.ndarray]],
        ) -> tuple[list[Point], list[np.ndarray]]:
            return [p for p, _ in unit], [flat_x[sel] for _, sel in unit]

        def run(
            unit: list[tuple[Point, np.ndarray]],
        ) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[PLDKey, PrivacyLossDistribution]]:
            return self._unit_brackets(
                *points_and_arguments(unit), bound, method, threads, unit is units[-1]
            )

        if pool > 1:
            # loaded on use: concurrent.futures imports logging, and one thread needs neither
            from concurrent.futures import ThreadPoolExecutor

        executor = ThreadPoolExecutor(pool) if pool > 1 else None
        try:
            if self._map is not None:  # a pool of the caller's: one thread per task, nothing kept
                settings = _pool_copy(self)
                results = _in_order(
                    units,
                    self._map(
                        _pool_task,
                        [(settings, *points_and_arguments(unit), bound, method) for unit in units],
                    ),
                )
            else:
                results = executor.map(run, units) if executor is not None else map(run, units)
            self._plds = _write_units(
                units, results, flat_lo, flat_up, self._plds
            )  # in order, in this thread
        finally:
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)

    @positional_deprecated("bound")
    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on delta(epsilon), the larger over the add and remove directions."""
        return self._evaluate(
            epsilon_values(epsilon), "epsilon", bound, _gaussian_delta_bracket, "delta"
        )

    @positional_deprecated("bound")
    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on epsilon(delta), the smallest epsilon >= 0 with delta(epsilon) <= delta.

        Returns
        -------
        float, numpy.ndarray or tuple
            The upper side is ``inf`` where ``delta`` is below the mass the upper side puts at
            infinite loss. With ``accuracy``, ``unmet`` then flags the brackets left wider than the
            tolerance.
        """
        return self._evaluate(
            delta_values(delta), "delta", bound, _gaussian_epsilon_bracket, "epsilon"
        )


def _one_thread(accountant: SubsampledGaussianPLD, pending: list[tuple[Point, np.ndarray]]) -> bool:
    """Whether a call of ``pending`` points runs its C++ calls on one thread: one point, no
    ``accuracy`` (whose grids may be far finer), and its estimated window on the finer of the fixed
    grid and the default's fine read's grid at most ``constants.ONE_THREAD_WINDOW`` points (the
    values are the same on any threads)."""
    if len(pending) != 1 or accountant.accuracy is not None or not 0.0 < pending[0][0][1] < 1.0:
        return False
    h = min(accountant.value_discretization_interval, question.FINE_INTERVAL)
    return loss_span(*pending[0][0]) / h <= constants.ONE_THREAD_WINDOW


def _pool_copy(accountant: SubsampledGaussianPLD) -> SubsampledGaussianPLD:
    """What a pool's task needs (``_pool_task``): the settings, without the broadcast parameters,
    the kept PLDs, the affinity tables, the last call's ``unmet`` flags and the pool itself (each
    would be pickled with every task)."""
    copy = object.__new__(type(accountant))
    copy.__dict__.update(accountant.__dict__)
    copy.sigma = copy.sampling_rate = copy.rounds = copy.sensitivity = np.empty(0)
    copy.unmet = None
    copy._plds, copy._near_one, copy._map, copy.workers = {}, NearOne(), None, 1
    return copy


def _write_units(
    units: list[list[tuple[Point, np.ndarray]]],
    results: Iterable[
        tuple[list[tuple[np.ndarray, np.ndarray]], dict[PLDKey, PrivacyLossDistribution]]
    ],
    flat_lo: np.ndarray,
    flat_up: np.ndarray,
    kept: dict[PLDKey, PrivacyLossDistribution],
) -> dict[PLDKey, PrivacyLossDistribution]:
    """Each unit's brackets into ``flat_lo`` and ``flat_up`` at the flat positions asking for them,
    in the units' order, the progress advanced unit by unit; the last unit's PLDs (the only ones
    kept, for memory), or ``kept`` where there is no unit."""
    for unit, (unit_brackets, store) in zip(units, results):
        for (_, sel), (lo, up) in zip(unit, unit_brackets):
            flat_lo[sel], flat_up[sel] = lo, up
        if unit is units[-1]:
            kept = store
        progress.advance(sum(sel.size for _, sel in unit))
    return kept


def point_rows(
    parameters: tuple[np.ndarray, ...], shape: tuple[int, ...]
) -> Iterator[tuple[Point, np.ndarray]]:
    """Each distinct point (sigma, q, rounds, sensitivity) of the broadcast ``parameters`` with the
    flat positions of the result of ``shape`` that ask for it (a point no argument asks for, as with
    an empty argument array, left out).  The points are found among the parameters' own broadcast,
    not over the full shape with the arguments' axes: a 10^6-point grid asked at 80 arguments each
    would stack 3e6 rows of four parameters (96 MB) and sort them, ~0.3 GB held for the whole
    call."""
    points = np.stack([a.ravel() for a in parameters], axis=1)
    unique, inverse = np.unique(points, axis=0, return_inverse=True)
    own = (1,) * (len(shape) - parameters[0].ndim) + parameters[0].shape
    point_of = np.broadcast_to(inverse.reshape(own), shape).ravel()  # each element's point
    order = np.argsort(point_of, kind="stable")
    bounds = np.searchsorted(point_of[order], np.arange(unique.shape[0] + 1))
    del points, inverse, point_of
    for i, (si, qi, ti, ci) in enumerate(unique):
        sel = order[bounds[i] : bounds[i + 1]]
        if sel.size:
            yield (float(si), float(qi), float(ti), float(ci)), sel


def _pool_task(
    task: tuple[SubsampledGaussianPLD, list[Point], list[np.ndarray], Bound, Quantity],
) -> tuple[list[Point], list[tuple[np.ndarray, np.ndarray]]]:
    """One unit of ``SubsampledGaussianPLD._evaluate`` in a caller's pool (a module-level function,
    so that it pickles by name): its points and their brackets, on one thread."""
    accountant, pts, xs, bound, method = task
    return pts, accountant._unit_brackets(pts, xs, bound, method, 1, False)[0]


def _in_order(
    units: list[list[tuple[Point, np.ndarray]]],
    results: Iterable[tuple[list[Point], list[tuple[np.ndarray, np.ndarray]]]],
) -> Iterable[tuple[list[tuple[np.ndarray, np.ndarray]], dict[PLDKey, PrivacyLossDistribution]]]:
    """The pool's results as ``_unit_brackets`` gives them, each checked to answer its own unit: a
    map that reorders (``imap_unordered``) or drops results would put brackets on the wrong
    points."""
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


def _gaussian_delta_bracket(r: float, epsilon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """theta(r, eps) rounded outward, r = sqrt(T) sensitivity / sigma rounded outward first (certified_theta)."""
    return (
        np.asarray(theta_lower(radius_down(r), epsilon)),
        np.asarray(theta_upper(radius_up(r), epsilon)),
    )


def _gaussian_epsilon_bracket(r: float, delta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The inverse of theta at delta rounded outward (a lower and an upper bound on the exact epsilon)."""
    return (
        np.asarray(theta_epsilon_lower(radius_down(r), delta)),
        np.asarray(theta_epsilon_upper(radius_up(r), delta)),
    )


# every PrivacyLossDistribution reads rounds of one subsampled Gaussian through this front door
# (pld/question)
install_question_reader(RunReader(SubsampledGaussianPLD))
