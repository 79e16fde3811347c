"""The extreme value of a registered accountant's parameter within a target (eps, delta): the
calibration problem (which accountant, which parameter, which targets, which side) laid out in
blocks of targets and searched."""

from __future__ import annotations

import contextvars
import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import registry
from ..base import progress as progress_hook
from ..base import validation as _validation
from ..base.accountant import Bound
from ..base.elementwise import ArrayLike
from ..base.validation import as_real_array, bound_side, delta_values, epsilon_values, in_interval
from ..registry import AccountantEntry, Calibratable
from ..registry.calibration_hooks import CalibrationDirections, CalibrationGrids, CalibrationStart
from .coarse_grids import from_coarse_grids
from .directions import SCREEN_MARGIN, Directions
from .problem import NEAR_STEP, STEP, Problem
from .progress_bar import ProgressBar
from .vocabulary import calibrated_spec, one_vocabulary

_BLOCKS = 16  # targets are solved in this many interleaved blocks (fewer if fewer targets)


def calibrate(
    accountant: str | AccountantEntry,
    parameter: str,
    *,
    epsilon: ArrayLike | None = None,
    delta: ArrayLike | None = None,
    rtol: float = 1e-10,
    start: float | None = None,
    bound: Bound = "upper",
    progress: bool = False,
    workers: int | None = None,
    **params: Any,
) -> Any:
    r"""Smallest (or largest) value of an accountant's ``parameter`` whose certified delta meets (epsilon, delta).

    For a parameter the bound falls with (``"decreasing"`` in the registry: sigma, the noise
    multiplier) the answer is the smallest value, for one it grows with (``"increasing"``: rounds,
    the sampling rate, the batch size) the largest:

    .. math::

        x^\star = \min\{x \in R : \delta_x(\varepsilon) \le \delta\} \ \text{(decreasing)},\qquad
        x^\star = \max\{x \in R : \delta_x(\varepsilon) \le \delta\} \ \text{(increasing)},

    with :math:`\delta_x` the accountant's certified upper bound at parameter value x
    (``bound="upper"``), as the accountant built from ``params`` reads it (on its own default grid
    where ``params`` choose none: the Poisson-sampled PLD accountants choose it from the question,
    so the answer is the extreme value whose default read meets the target), and R the parameter's
    search range (``registry.Calibratable``). The search brackets the answer by geometric steps from
    a start, then refines it (Chandrupatla's method, ``scipy.optimize.elementwise.find_root``, on
    log delta against log x; integers by bisection to adjacent values); the module docstring gives
    the steps. The value returned was evaluated and met the target, so it is valid even where the
    bound is not monotone (then it may not be the extreme one). The targets and ``params`` broadcast
    together.

    Parameters
    ----------
    accountant : str or AccountantEntry
        A registered name (``hockeystick.registry.names()``, or a configured family's name) or
        entry.
    parameter : str
        A calibratable parameter of that accountant ("sigma", "rounds", "noise_multiplier", ...);
        not also given in ``params``. For a training run (``dp_sgd``, ``dp_fedavg``)
        ``sampling_probability`` / ``sampling_rate`` name ``sample_rate``.
    epsilon : array_like
        Target epsilon >= 0 (inf allowed); Opacus's and dp_accounting's ``target_epsilon`` is
        accepted instead.
    delta : array_like
        Target delta in (0, 1); ``target_delta`` is accepted instead.
    rtol : float, default 1e-10
        Relative width of the final bracket for a continuous parameter, in (0, 1).
    start : float, optional
        Where bracketing starts, > 0 (clipped to the parameter's range). Default: the accountant's
        estimate where its class has one (``calibration_start(parameter, epsilon, delta, params)``,
        per target), bracketed by factors 1.2, 1.44, 2.07, ...; otherwise 1, bracketed by factors 4,
        16, 256, ... Given a start, no coarse grids are used either (the module docstring).
    bound : {"upper", "lower", "both"}, default "upper"
        Which side of the accountant's delta the calibration uses. "upper": the value the certified
        upper bound allows, safe to use. "lower": the value from the certified lower bound, beyond
        which the target is certainly missed (for sigma: every sigma at or below it breaks the
        target; for rounds: every count above it does), so the true extreme lies between the two;
        "both": the tuple (lower side, upper side). For a continuous parameter the lower side is the
        infeasible end of the final bracket, for an integer one the last integer the lower bound
        accepts; a sigma whose lower bound meets the target even at the smallest value searched gets
        0 (nothing is certain above it).
    progress : bool, default False
        A tqdm bar on stderr counting the points evaluated (moved per block of work an accountant
        reports, ``hockeystick.base.progress``: a PLD batch) and the targets still open. Whatever
        ``progress``, a listener the caller installed (``hockeystick.base.progress.reporting``: a
        sweep's bar) is moved by each block of targets as it is solved, in targets.
    workers : int, optional
        Threads solving blocks of targets at once (scipy's convention: a positive count; -1 every
        core, -2 all but one; None, the default, every core but at most ``OMP_NUM_THREADS`` where
        that is set). The answers are bit-identical for any count: the blocks are the same, only who
        solves them changes.
    **params
        The accountant's other parameters (array_like, broadcast together with the targets); for a
        training run also ``steps_per_epoch`` ("ceil" or "opacus", see ``hockeystick.training``).

    Returns
    -------
    float, int, numpy.ndarray or tuple
        The calibrated value at each broadcast point (a float for scalar input; an integer parameter
        such as rounds as int / an int64 array, unless some point is unbounded, inf); with
        ``bound="both"`` the tuple (lower side, upper side). Edge cases:

        - a "decreasing" parameter (sigma) whose every value meets the target: the smallest value
          searched (``tiny ** 0.25``, about 1.2e-77, for a parameter whose range starts at 0), a
          value the accountant accepts, unlike 0; where the accountant refuses values that small (a
          PLD whose loss grid would exceed its cells), the search range ends there, and the result
          is the last value the bracketing evaluated before the refusal (it met the target);
        - the noise multiplier of a Poisson-sampled training run (``dp_sgd``, ``dp_fedavg``) whose
          RDP bound at that smallest value is within the target (every noise meets it: epsilon 1e308
          or inf): its start (``start``, the estimate, or 1), evaluated and meeting the target; its
          lower side is 0;
        - an "increasing" parameter (rounds): the parameter's cap when the cap still meets the
          target (rounds = n / batch_size, however large), and inf when there is no cap and no value
          breaks it.

    Raises
    ------
    ValueError
        An unknown accountant name; ``parameter`` not calibratable, or also given a value; a
        parameter the accountant does not take, or a required one missing; ``delta`` outside (0, 1),
        ``epsilon`` negative or either NaN; shapes that do not broadcast; ``rtol`` outside (0, 1);
        ``start`` not finite and > 0; an unknown ``bound``; ``workers`` 0; a target no value in the
        parameter's range meets (naming the point and what the bound reaches there); what the
        accountant refuses.
    ParameterTypeError
        ``accountant`` neither a name nor an entry; ``parameter`` not a string; a target missing or
        given twice (under its name and its synonym); a target or parameter a string, bool or None.
    TypeError
        ``progress`` not a bool.

    See Also
    --------
    hockeystick.risk.calibrate_tpr : The same search for a target TPR at an FPR.
    calibrate_batch_size : The largest batch size of a DP-SGD run.

    Examples
    --------
    >>> from hockeystick.calibrate import calibrate
    >>> round(calibrate("gaussian", "sigma", epsilon=1, delta=1e-5), 6)
    3.730632
    >>> calibrate("gaussian", "sigma", epsilon=1, delta=1e-5, rounds=[10, 100]).round(4)
    array([11.7973, 37.3063])
    >>> calibrate("gaussian", "rounds", epsilon=1, delta=1e-5, sigma=10)
    7
    """
    entry = _entry(accountant)
    entry, parameter, epsilon, delta, params = one_vocabulary(
        entry, parameter, epsilon, delta, params
    )
    spec = calibrated_spec(entry, parameter, params)
    if start is not None:
        start = float(_validation.positive(_validation.single(start, "start"), "start"))
    side = bound_side(bound)
    if side == "both":
        with progress_hook.shared(2):  # each side reports every target: the caller counts it once
            return tuple(
                calibrate(
                    entry,
                    parameter,
                    epsilon=epsilon,
                    delta=delta,
                    rtol=rtol,
                    start=start,
                    bound=s,
                    progress=progress,
                    workers=workers,
                    **params,
                )
                for s in ("lower", "upper")
            )
    rtol = float(in_interval(rtol, "rtol", 0.0, 1.0, open_low=True, open_high=True))
    targets = _targets(epsilon, delta, params)
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    threads = _validation.workers(workers)
    first, estimated = _first(entry, parameter, start, targets)
    flat_result = np.empty(targets.eps.size)
    # targets every noise multiplier meets (a run's RDP bound at the search floor within them): the
    # start, evaluated (loaded on use: it reads RDP, which a sweep of epsilons never asks)
    from .every_noise import every_noise_meets

    settled, settled_at = every_noise_meets(
        entry, parameter, spec, side, targets.eps, targets.dlt, targets.flat, first
    )
    flat_result[settled] = settled_at[settled]
    progress_hook.advance(int(settled.sum()))
    blocks = _blocks(entry, np.flatnonzero(~settled))
    search = _BlockSearch.of(
        entry, parameter, spec, side, targets, first, estimated, start, threads, len(blocks)
    )
    # the caller's progress listener (a sweep's bar) counts targets: each block solved moves it by
    # its size, from this thread (the accountant's own reports inside a block go to ``ProgressBar``
    # or nowhere)
    with ProgressBar(progress, entry.name, parameter) as bar:
        _solve_blocks(lambda block: search.solve(bar, block, rtol), blocks, threads, flat_result)
    return _answer(flat_result, targets, spec)


def _entry(accountant: Any) -> AccountantEntry:
    """The entry of a registered name, or the entry given (ParameterTypeError for anything else)."""
    if not isinstance(accountant, (str, AccountantEntry)):
        raise _validation.ParameterTypeError(
            f"accountant must be a registered name (see hockeystick.registry.names()) "
            f"or an AccountantEntry, got {_validation.describe(accountant)} "
            f"({type(accountant).__name__})"
        )
    return registry.get(accountant) if isinstance(accountant, str) else accountant


@dataclasses.dataclass(frozen=True)
class _Targets:
    """The targets and the accountant's other parameters broadcast together and flattened (a
    parameter given as a scalar stays one: some accountants take scalar-only options), their shape,
    and whether every input was a scalar."""

    eps: np.ndarray
    dlt: np.ndarray
    flat: dict[str, float | np.ndarray]
    shape: tuple[int, ...]
    scalar: bool


def _targets(epsilon: ArrayLike, delta: ArrayLike, params: dict[str, Any]) -> _Targets:
    """The targets (epsilon, delta) and ``params`` checked and broadcast (a ValueError names the shapes)."""
    named = {
        k: as_real_array(v, k) for k, v in dict(epsilon=epsilon, delta=delta, **params).items()
    }
    epsilon_values(named["epsilon"])
    delta_values(named["delta"])
    try:
        shape = np.broadcast_shapes(*(a.shape for a in named.values()))
    except ValueError:
        given = ", ".join(f"{k} {a.shape}" for k, a in named.items())
        raise ValueError(f"shapes do not broadcast together: {given}") from None
    scalar = all(a.ndim == 0 for a in named.values())
    eps = np.broadcast_to(named.pop("epsilon"), shape).ravel()
    dlt = np.broadcast_to(named.pop("delta"), shape).ravel()
    flat: dict[str, float | np.ndarray] = {
        k: float(a) if a.ndim == 0 else np.broadcast_to(a, shape).ravel() for k, a in named.items()
    }
    return _Targets(eps, dlt, flat, shape, scalar)


def _first(
    entry: AccountantEntry, parameter: str, start: float | None, targets: _Targets
) -> tuple[np.ndarray, bool]:
    """Per target, where bracketing starts, and whether that is the accountant's own estimate (its
    ``calibration_start``, unless a ``start`` is given); otherwise ``start``, or 1."""
    estimate = (
        entry.factory if start is None and isinstance(entry.factory, CalibrationStart) else None
    )
    first = (
        None
        if estimate is None
        else estimate.calibration_start(parameter, targets.eps, targets.dlt, targets.flat)
    )
    if first is None:
        return np.full(targets.eps.size, 1.0 if start is None else float(start)), False
    return first, True


def _blocks(entry: AccountantEntry, rest: np.ndarray) -> list[np.ndarray]:
    """The targets ``rest`` in interleaved blocks: ``_BLOCKS`` where a point is real work (the
    registry's ``max_chunk``: compositions, RDP orders, schedules), one where the accountant is a
    closed form (one vectorized call costs it less than many)."""
    count = min(_BLOCKS, rest.size) if entry.max_chunk is not None else min(1, rest.size)
    return [rest[b::count] for b in range(count)]


@dataclasses.dataclass(frozen=True)
class _BlockSearch:
    """How each block of targets is searched, from what the accountant's class offers: its coarse
    grids (a start extrapolated from them, ``calibration_grids``), its directions apart (the upper
    side, ``calibration_directions``) and its own threads (``workers``: one per block when blocks
    run side by side)."""

    entry: AccountantEntry
    parameter: str
    spec: Calibratable
    side: Bound
    targets: _Targets
    first: np.ndarray
    step: float
    ladder: list[tuple[float, dict[str, float]]]
    split: CalibrationDirections | None
    inner: int | None

    @classmethod
    def of(
        cls,
        entry: AccountantEntry,
        parameter: str,
        spec: Calibratable,
        side: Bound,
        targets: _Targets,
        first: np.ndarray,
        estimated: bool,
        start: float | None,
        threads: int,
        blocks: int,
    ) -> _BlockSearch:
        # coarse grids move the search's start from an estimate's neighbourhood: not without an
        # estimate (a target every value meets, epsilon ~1e308, would walk each coarse grid down to
        # where it refuses)
        grids = (
            entry.factory
            if start is None and estimated and isinstance(entry.factory, CalibrationGrids)
            else None
        )
        # the upper side of an accountant whose directions can be evaluated apart (the PLD's remove
        # and add)
        split = (
            entry.factory
            if side == "upper" and isinstance(entry.factory, CalibrationDirections)
            else None
        )
        takes_workers = "workers" in inspect.signature(entry.factory).parameters
        inner = (1 if threads == 1 or blocks > 1 else threads) if takes_workers else None
        ladder: list[tuple[float, dict[str, float]]] = (
            [] if grids is None else grids.calibration_grids(parameter, targets.flat)
        )
        step = NEAR_STEP if estimated else STEP
        return cls(entry, parameter, spec, side, targets, first, step, ladder, split, inner)

    def problem(self, bar: ProgressBar, block: np.ndarray, overrides: dict[str, float]) -> Problem:
        """The search of the targets ``block`` on the grid ``overrides`` sets (none: the requested grid)."""
        sub = {
            k: v[block] if isinstance(v, np.ndarray) else v for k, v in self.targets.flat.items()
        }
        t = self.targets
        made = Problem(
            self.entry,
            self.parameter,
            self.spec,
            t.eps[block],
            t.dlt[block],
            {**sub, **overrides},
            self.side,
        )
        made.step, made.bar, made.inner_workers = self.step, bar, self.inner
        evaluator = (
            None
            if self.split is None
            else self.split.calibration_directions(self.parameter, made.params, t.dlt[block])
        )
        if evaluator is not None:
            made.directions = Directions(evaluator, made, np.log(self.step))
        return made

    def solve(self, bar: ProgressBar, block: np.ndarray, rtol: float) -> np.ndarray:
        """The calibrated value of each target of ``block``: from the coarse grids' extrapolation
        where there are some, else from ``first``."""
        x, slope = from_coarse_grids(
            lambda overrides: self.problem(bar, block, overrides), self.ladder, self.first[block]
        )
        fine = self.problem(bar, block, {})
        fine.slope = slope
        if (
            slope is not None and fine.directions is not None
        ):  # started from an extrapolation: its error is small
            fine.directions.margin = np.full(block.size, SCREEN_MARGIN)
        return fine.solve(x, rtol)


def _solve_blocks(
    solve: Callable[[np.ndarray], np.ndarray],
    blocks: list[np.ndarray],
    threads: int,
    flat_result: np.ndarray,
) -> None:
    """``solve`` of each block into ``flat_result``, in ``threads`` threads, the caller's listener moved per block."""
    if threads == 1 or len(blocks) <= 1:
        for block in blocks:
            flat_result[block] = solve(block)
            progress_hook.advance(block.size)
        return
    # loaded on use: concurrent.futures is for more than one thread
    from concurrent.futures import ThreadPoolExecutor, as_completed

    # each block in a copy of the caller's context (its progress listener); the first failing
    # block in block order raises, whichever thread finished first
    with ThreadPoolExecutor(max_workers=min(threads, len(blocks))) as pool:
        futures = [pool.submit(contextvars.copy_context().run, solve, block) for block in blocks]
        sizes = {future: block.size for block, future in zip(blocks, futures)}
        try:
            for future in as_completed(futures):  # reported as blocks finish, until one fails
                if future.exception() is not None:
                    break
                progress_hook.advance(sizes[future])
            for block, future in zip(blocks, futures):
                flat_result[block] = future.result()
        finally:
            for future in futures:
                future.cancel()


def _answer(flat_result: np.ndarray, targets: _Targets, spec: Calibratable) -> Any:
    """The calibrated values in the targets' shape: rounds as integers (inf, uncapped, stays float),
    a float or an int for scalar input."""
    result = flat_result.reshape(targets.shape)
    if spec.integer and np.isfinite(result).all():
        return int(result) if targets.scalar else result.astype(np.int64)
    return float(result) if targets.scalar else result
