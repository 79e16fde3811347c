"""Noise calibration for any registered accountant: the extreme parameter value within (eps, delta).

``calibrate("gaussian", "sigma", epsilon=1, delta=1e-5, rounds=[10, 100])`` returns the
smallest sigma whose bound satisfies delta(eps) <= delta at every grid point; for a
parameter the bound INCREASES with (rounds, sampling rate) it returns the largest
value.  It needs only the accountant contract and the monotonicity the registry
records for the parameter:

1. bracket: from a starting value (1, or the accountant's own estimate per target when its class
   has ``calibration_start``), step geometrically (x4, x16, x256, ...; from an estimate x1.2, x1.44,
   x2.07, ...) towards the feasible side until the bound meets the target, and towards the
   infeasible side until it fails;
   a point whose target no value inside the parameter's range can meet raises a
   ValueError saying which point and what the bound reaches there;
2. refine: Chandrupatla's bracketing root finder (scipy.optimize.elementwise.find_root)
   on log delta - log target against log parameter; integers by bisection to adjacent
   values.

An accountant whose class has ``calibration_grids`` (the PLD: coarser grids, each a certified
bound converging like h^2) is first solved on two coarse grids and the answers extrapolated to
the requested grid; the search there starts from that value with a Newton step of the slope the
coarse grids measured, and steps across its noisy root (``_settle``) instead of
Chandrupatla's interpolation.  The coarse grids only choose where the search starts: the answer
is bracketed, and meets the target, on the requested grid.

An accountant whose class has ``calibration_directions`` (the subsampled-Gaussian PLD for sigma:
delta is the larger of its remove and add directions', ``pld/refine/directional_delta.py``) is evaluated
direction by direction on the upper side (``_Directions``): the leading direction at every trial,
the others only where a trial meets the target and no certified screen (their bound at a value
every later trial lies beyond, the others' delta being monotone there) already shows they do too.

A target every value meets needs no search: the noise multiplier of a Poisson-sampled training run whose RDP
bound at the smallest noise searched is within the target (epsilon 1e308 or inf) is settled at its start, where
the accountant's bound is evaluated (``_every_noise_meets``), instead of walking down to where the PLD refuses
its loss grid.

Everything is vectorized: each step is ONE accountant call on the still-open points of a block.
The targets of an accountant whose points are real work (its registry entry declares ``max_chunk``:
the PLD families, RDP, per-point schedules) are split into ``_BLOCKS`` interleaved blocks (target i
in block i mod the block count; a fixed split, so an answer never depends on ``workers``), solved in
``workers`` threads: the PLD accountants discretize and compose in C++ with the GIL released,
scipy.fft releases it too.  A closed form is one block (threads would not pay for the calls).
The value returned was evaluated and met the target, so it is valid even if the bound
were not monotone (then it may just not be the extreme one).
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import inspect
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, cast

import numpy as np

from .. import registry, training
from ..base import progress as progress_hook
from ..base import validation as _validation
from ..base.accountant import Bound
from ..base.elementwise import ArrayLike
from ..base.validation import as_real_array, bound_side, delta_values, epsilon_values, in_interval
from ..registry import AccountantEntry, Calibratable

__all__ = ["calibrate", "calibrate_batch_size", "calibrate_fixed_compute", "default_batch_sizes", "FixedComputeTable"]

_STEP = 4.0  # first bracketing factor; it is squared after every step (4, 16, 256, ...)
_NEAR_STEP = 1.2  # ... from an accountant's own estimate (1.2, 1.44, 2.07, 4.3, ...)
_SPAN = 1e300  # how far (as a ratio) the bracket may move from the start before giving up
_INTEGER_SPAN = 2.0**52  # ... for integer parameters (exact in double precision)
_SMALLEST = np.nextafter(0.0, 1.0)
_COARSE_RTOL = 1e-5  # how closely a coarse grid is solved (relative; calibration_grids)
_OVERSHOOT = 1.2  # a first step from a measured slope: 1.2 Newton steps (see _newton_step)
_NOISE_BAND = 1e-8  # _settle steps across once the secant root is within this (or rtol) of its probe
_WALK = 4  # ... by 0.99 rtol this many times, then once past the secant root
_BLOCKS = 16  # targets are solved in this many interleaved blocks (fewer if fewer targets)
_SCREEN_MARGIN = 1e-3  # a screen below an extrapolated start (log x; its error was <= 1.1e-4 on G2)
_SCREENS = 2  # screens per target and search at most (_Directions)


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
    """The smallest (or largest) ``parameter`` keeping ``accountant`` within (epsilon, delta).

    Parameters
    ----------
    accountant : registered name (see ``hockeystick.registry.names()``) or entry
    parameter : a calibratable parameter of that accountant ("sigma", "rounds", ...)
    epsilon, delta : target; delta in (0, 1).  Broadcast with ``params``.  Opacus's and dp_accounting's
        names ``target_epsilon`` and ``target_delta`` are accepted for them, and for a training run
        (``dp_sgd``, ``dp_fedavg``) ``sampling_probability`` / ``sampling_rate`` for ``sample_rate``
        and ``steps_per_epoch`` ("ceil" or "opacus", see ``hockeystick.training``).
    rtol : relative width of the final bracket for continuous parameters.
    start : where bracketing starts (clipped to the parameter's range).  Default: the accountant's
        estimate where it has one (its ``calibration_start(parameter, epsilon, delta, params)``, per
        target: ``pld_subsampled_gaussian``'s central-limit value), bracketed by factors 1.2, 1.44,
        2.07, ...; otherwise 1, bracketed by factors 4, 16, 256, ...  Given a start, no coarse grids
        are used either (see the module docstring).
    bound : which side of the accountant's delta the calibration uses.  "upper" (default): the
        value the certified upper bound allows, safe to use.  "lower": the value from the
        certified lower bound, beyond which the target is certainly missed (for sigma: every
        sigma at or below it breaks the target; for rounds: every count above it does), so the
        true extreme lies between the two; "both": the tuple (lower side, upper side).  For a
        continuous parameter the lower side is the infeasible end of the final bracket, for an
        integer one the last integer the lower bound accepts; a sigma whose lower bound meets
        the target even at the smallest value searched gets 0 (nothing is certain above it).
    progress : a tqdm bar on stderr counting the points evaluated (moved per block of work an
        accountant reports, ``hockeystick.base.progress``: a PLD batch) and the targets still open.
        Whatever ``progress``, a listener the caller installed (``hockeystick.base.progress.reporting``: a
        sweep's bar) is moved by each block of targets as it is solved, in targets.
    workers : threads solving blocks of targets at once (scipy's convention: a positive count; -1
        every core, -2 all but one; None, the default, every core but at most ``OMP_NUM_THREADS``
        where that is set, see ``_validation.workers``).
        The answers are bit-identical for any count: the blocks are the same, only who solves them
        changes.
    **params : the accountant's other parameters (arrays broadcast together).

    Returns the calibrated value at each broadcast point (float for scalar input); an integer
    parameter (rounds) comes back as int / an int64 array, unless some point is unbounded (inf).
    For a "decreasing" parameter (sigma) whose every value meets the target the result
    is the smallest value searched (``tiny ** 0.25`` ~ 1.5e-77 for sigma > 0): a value the
    accountant accepts, unlike 0; where the accountant refuses values that small (a PLD whose
    loss grid would exceed its cells), the search range ends there, and the result is the last
    value the bracketing evaluated before the refusal (it met the target).  The noise multiplier of a
    Poisson-sampled training run (``dp_sgd``, ``dp_fedavg``) whose RDP bound at that smallest value is
    within the target (every noise meets it: epsilon 1e308 or inf) is its start (``start``, the estimate,
    or 1), evaluated and meeting the target, without the walk down to where the PLD refuses its loss grid;
    its lower side is 0, the walk's answer there.  For an "increasing"
    one (rounds) the result is the parameter's cap when the cap still meets the target (rounds =
    n / batch_size, however large), and ``inf`` when there is no cap and no value breaks it.
    """
    if not isinstance(accountant, (str, AccountantEntry)):
        raise _validation.ParameterTypeError(
            f"accountant must be a registered name (see hockeystick.registry.names()) "
            f"or an AccountantEntry, got {_validation.describe(accountant)} "
            f"({type(accountant).__name__})"
        )
    entry = registry.get(accountant) if isinstance(accountant, str) else accountant
    entry, parameter, epsilon, delta, params = _one_vocabulary(entry, parameter, epsilon, delta, params)
    spec = _spec(entry, parameter, params)
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
    named = {k: as_real_array(v, k) for k, v in dict(epsilon=epsilon, delta=delta, **params).items()}
    epsilon_values(named["epsilon"])
    delta_values(named["delta"])
    try:
        shape = np.broadcast_shapes(*(a.shape for a in named.values()))
    except ValueError:
        given = ", ".join(f"{k} {a.shape}" for k, a in named.items())
        raise ValueError(f"shapes do not broadcast together: {given}") from None
    scalar = all(a.ndim == 0 for a in named.values())
    # parameters given as scalars stay scalars (some accountants take scalar-only options)
    eps = np.broadcast_to(named.pop("epsilon"), shape).ravel()
    dlt = np.broadcast_to(named.pop("delta"), shape).ravel()
    flat: dict[str, float | np.ndarray] = {
        k: float(a) if a.ndim == 0 else np.broadcast_to(a, shape).ravel() for k, a in named.items()
    }
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    threads = _validation.workers(workers)
    estimate = getattr(entry.factory, "calibration_start", None) if start is None else None
    first: np.ndarray | None = None if estimate is None else estimate(parameter, eps, dlt, flat)
    estimated = first is not None
    step = _STEP if first is None else _NEAR_STEP
    if first is None:
        first = np.full(eps.size, 1.0 if start is None else float(start))
    flat_result = np.empty(eps.size)
    # targets every noise multiplier meets (a run's RDP bound at the search floor within them): the start, evaluated
    settled, settled_at = _every_noise_meets(entry, parameter, spec, side, eps, dlt, flat, first)
    flat_result[settled] = settled_at[settled]
    progress_hook.advance(int(settled.sum()))
    rest = np.flatnonzero(~settled)
    # blocks only where a point is real work (the registry's max_chunk: compositions, RDP orders, schedules);
    # a closed form stays one vectorized block (16 blocks cost it 12x the CPU in per-call overhead)
    count = min(_BLOCKS, rest.size) if entry.max_chunk is not None else min(1, rest.size)
    blocks = [rest[b::count] for b in range(count)]

    # coarse grids move the search's start from an estimate's neighbourhood: not without an estimate (a target
    # every value meets, epsilon ~1e308, would walk each coarse grid down to where it refuses)
    grids = getattr(entry.factory, "calibration_grids", None) if start is None and estimated else None
    # the upper side of an accountant whose directions can be evaluated apart (the PLD's remove and add)
    split = getattr(entry.factory, "calibration_directions", None) if side == "upper" else None
    # an accountant with its own threads (``workers``) gets one per block when blocks run side by side
    takes_workers = "workers" in inspect.signature(entry.factory).parameters
    inner = (1 if threads == 1 or len(blocks) > 1 else threads) if takes_workers else None
    ladder = [] if grids is None else grids(parameter, flat)

    def solve(bar: _Bar, block: np.ndarray) -> np.ndarray:
        sub = {k: v[block] if isinstance(v, np.ndarray) else v for k, v in flat.items()}

        def problem(overrides: dict[str, float]) -> _Problem:
            made = _Problem(entry, parameter, spec, eps[block], dlt[block], {**sub, **overrides}, side)
            made.step, made.bar, made.inner_workers = step, bar, inner
            evaluator = None if split is None else split(parameter, made.params)
            if evaluator is not None:
                made.directions = _Directions(evaluator, made, np.log(step))
            return made

        x, slope = _from_coarse_grids(problem, ladder, first[block])
        fine = problem({})
        fine.slope = slope
        if slope is not None and fine.directions is not None:  # started from an extrapolation: within ~1e-4
            fine.directions.margin = np.full(block.size, _SCREEN_MARGIN)
        return fine.solve(x, rtol)

    # the caller's progress listener (a sweep's bar) counts targets: each block solved moves it by its size,
    # from this thread (the accountant's own reports inside a block go to ``_Bar`` or nowhere)
    with _Bar(progress, entry.name, parameter) as bar:
        if threads == 1 or len(blocks) <= 1:
            for block in blocks:
                flat_result[block] = solve(bar, block)
                progress_hook.advance(block.size)
        else:
            # each block in a copy of the caller's context (its progress listener); the first failing
            # block in block order raises, whichever thread finished first
            with ThreadPoolExecutor(max_workers=min(threads, len(blocks))) as pool:
                futures = [pool.submit(contextvars.copy_context().run, solve, bar, block) for block in blocks]
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
    result = flat_result.reshape(shape)
    if spec.integer and np.isfinite(result).all():  # rounds come back as integers (inf, uncapped, stays float)
        return int(result) if scalar else result.astype(np.int64)
    return float(result) if scalar else result


_RDP_MARGIN = 0.5  # an RDP epsilon at most this fraction of the target settles it (far beyond its rounding)


def _every_noise_meets(
    entry: AccountantEntry,
    parameter: str,
    spec: Calibratable,
    side: str,
    eps: np.ndarray,
    dlt: np.ndarray,
    params: dict[str, float | np.ndarray],
    first: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per target, whether it is settled without a search, and its value: the noise multiplier of a
    Poisson-sampled training run (``training.DPSGD``, ``DPFedAvg``), whose RDP bound at the search floor
    (``tiny ** 0.25``; the subsampled Gaussian's curve, Mironov, Talwar & Zhang 2019, converted by
    ``rdp.rdp_to_epsilon``) is at most ``_RDP_MARGIN`` times the target epsilon at the target delta.

    The RDP epsilon is an upper bound on the run's epsilon, and more noise is post-processing (adding an
    independent Gaussian), so then every noise multiplier searched meets the target, and the search would only
    walk down to where the PLD refuses its loss grid (a subsampled step of small noise reaches a privacy loss
    of 1 / (2 sigma^2): composing it is refused only after the wide grid is built, seconds a trial).  Such a
    target's upper side gets its start instead, where the accountant's own certified bound was evaluated and met
    it; a target whose start the accountant refuses or finds short of the target is searched as any other.  The
    margin of a factor 2 covers the floating-point rounding of the RDP evaluation (relative errors of a few ulps
    per term); the upper side returned is certified by the accountant's bound, evaluated there, whatever the RDP
    decided.  Its lower side is 0 (the search's answer there: a lower bound, never above the truth, meets the
    target at every noise it evaluates until the range or the accountant's grid ends, so nothing is certain).

    Returns
    -------
    settled : ndarray of bool
        Per target, whether it is settled.
    value : ndarray
        A settled target's value: the start clipped to the search range (upper side), or 0 (lower side).
    """
    settled = np.zeros(eps.size, dtype=bool)
    unsettled = (settled, first)
    factory: Any = entry.factory  # a training entry: the class, its sampling (and steps_per_epoch) bound
    bound: dict[str, Any] = {}
    while isinstance(factory, functools.partial):
        bound, factory = {**factory.keywords, **bound}, factory.func
    poisson_run = factory in (training.DPSGD, training.DPFedAvg) and bound.get("sampling") == "poisson"
    if not poisson_run or side not in ("upper", "lower") or parameter != "noise_multiplier" or not eps.size:
        return unsettled
    from ..pld.accountants.subsampled_gaussian import SubsampledGaussianPLD

    try:
        run = entry.build(**{**params, parameter: np.ones(eps.size)})
    except (TypeError, ValueError):  # not a run in these words: the search words any refusal
        return unsettled
    pld = getattr(run, "_accountant", None)
    if not isinstance(pld, SubsampledGaussianPLD):
        return unsettled
    from ..rdp import DEFAULT_ORDERS, rdp_to_epsilon, subsampled_gaussian_rdp

    floor = float(np.finfo(float).tiny) ** 0.25
    rate = np.broadcast_to(np.asarray(pld.sampling_rate, dtype=float), eps.shape)
    steps = np.broadcast_to(np.asarray(run.steps, dtype=float), eps.shape)
    rates, which = np.unique(rate, return_inverse=True)  # one curve per distinct rate (a sweep repeats them)
    with np.errstate(over="ignore", invalid="ignore"):
        per_step = subsampled_gaussian_rdp(np.full(rates.size, floor), rates, DEFAULT_ORDERS)
        curves = steps[:, None] * per_step[which]
    curves = np.where(np.isnan(curves), np.inf, curves)
    bounds = np.asarray(rdp_to_epsilon(curves, DEFAULT_ORDERS, dlt), dtype=float).reshape(eps.shape)
    candidates = np.flatnonzero(bounds <= _RDP_MARGIN * eps)
    if not candidates.size:
        return unsettled
    if side == "lower":
        settled[candidates] = True
        return settled, np.zeros(eps.size)
    lower, upper = _search_range(spec, params, eps.size)
    start = np.clip(first, lower, upper)
    problem = _Problem(entry, parameter, spec, eps, dlt, params, side)
    excess, refused = problem._hard_side_excess(start[candidates], candidates)  # a refused start: the search moves it
    settled[candidates[~refused & (excess <= 0)]] = True
    return settled, start


def _from_coarse_grids(
    problem: Callable[[dict[str, float]], _Problem], ladder: list[tuple[float, dict[str, float]]], start: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """Where the search on the requested grid starts, and the slope of its log excess there.

    ``ladder`` (the accountant's ``calibration_grids``): coarse grids h_1 > h_2 > ... and the
    requested grid h last.  The target is solved on each coarse grid in turn (to ``_COARSE_RTOL``,
    each from the last answer, its first step the Newton step of the slope the coarser grid's
    bracket measured), and the log answers u_k on the last two extrapolated to h through
    u(h) = u_inf + c h^2 (Richardson):  u = u_2 + (u_2 - u_1) (h^2 - h_2^2) / (h_2^2 - h_1^2).
    Without a ladder, or where a coarse grid raises ValueError (the requested grid then decides,
    and words, any refusal): ``start`` and no slope; where the extrapolation is not finite (an
    answer at a range end), the last coarse answer.
    """
    if len(ladder) < 3:
        return start, None
    x, logs, slope = start, [], None
    try:
        for _, overrides in ladder[:-1]:
            level = problem(overrides)
            level.slope, level.integer_rtol = slope, _COARSE_RTOL
            x = level.solve(x, _COARSE_RTOL)
            with np.errstate(divide="ignore"):  # a lower side of 0 (no sigma certain): not extrapolated
                logs.append(np.log(x))
            slope = level.measured_slope
    except ValueError:
        return start, None
    (h1, _), (h2, _), (h, _) = ladder[-3:]
    u1, u2 = logs[-2], logs[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        u = u2 + (u2 - u1) * ((h * h - h2 * h2) / (h2 * h2 - h1 * h1))
    usable = np.isfinite(u) & (x > 0)
    return np.where(usable, np.exp(np.where(usable, u, 0.0)), np.where(x > 0, x, start)), slope


_TARGET_SYNONYMS = {"target_epsilon": "epsilon", "target_delta": "delta"}


def _one_vocabulary(
    entry: AccountantEntry, parameter: Any, epsilon: Any, delta: Any, params: dict[str, Any]
) -> tuple[AccountantEntry, Any, ArrayLike, ArrayLike, dict[str, Any]]:
    """The calibration's arguments in the accountant's words: the targets under Opacus's and dp_accounting's
    names (target_epsilon, target_delta), the sampling rate's synonyms where the accountant takes
    ``sample_rate`` (``training.SAMPLE_RATE_SYNONYMS``), and an entry's hidden string options a grid cannot
    carry (the training classes' ``steps_per_epoch``) bound to its factory."""
    targets = {"epsilon": epsilon, "delta": delta}
    for word, name in _TARGET_SYNONYMS.items():
        if word in params:
            if targets[name] is not None:
                raise _validation.ParameterTypeError(f"calibrate() got {name} twice (as {name!r} and {word!r})")
            targets[name] = params.pop(word)
    missing = [name for name, value in targets.items() if value is None]
    if missing:
        # a misspelled target (``epsilom=``) sits among the parameters: name it
        strays = [k for k in params if k not in entry.parameters]
        typo = next(
            (
                f"; got {k!r}{hint}"
                for k in strays
                if (hint := _validation.did_you_mean(k, [*targets, *_TARGET_SYNONYMS]))
            ),
            "",
        )
        raise _validation.ParameterTypeError(
            f"calibrate() needs the target {' and '.join(missing)} (or {', '.join('target_' + m for m in missing)})"
            + typo
        )
    words = {w: n for w, n in training.SAMPLE_RATE_SYNONYMS.items() if n in entry.parameters}
    if words:
        parameter = words.get(parameter, parameter) if isinstance(parameter, str) else parameter
        moved = _validation.synonyms("calibrate", {k: v for k, v in params.items() if k in words}, words, [])
        twice = sorted(set(moved) & set(params))
        if twice:
            raise _validation.ParameterTypeError(f"calibrate() got {twice[0]} twice (under a synonym); give it once")
        params = {**{k: v for k, v in params.items() if k not in words}, **moved}
    options = {k: params.pop(k) for k in [k for k in params if k in entry.hidden and isinstance(params[k], str)]}
    if options:
        entry = dataclasses.replace(entry, factory=functools.partial(entry.factory, **options))
    return entry, parameter, cast(ArrayLike, targets["epsilon"]), cast(ArrayLike, targets["delta"]), params


def _spec(entry: AccountantEntry, parameter: str, params: dict[str, Any]) -> Calibratable:
    if not isinstance(parameter, str):
        raise _validation.ParameterTypeError(
            f"parameter must be the name of a calibratable parameter of "
            f"{entry.name!r} ({', '.join(sorted(entry.calibratable)) or 'none'}), "
            f"got {_validation.describe(parameter)} ({type(parameter).__name__})"
        )
    if parameter not in entry.calibratable:
        can = ", ".join(sorted(entry.calibratable)) or "none"
        hint = _validation.did_you_mean(str(parameter), sorted(entry.calibratable))
        raise ValueError(
            f"accountant {entry.name!r} cannot calibrate {parameter!r}{hint}; parameter must be one of "
            f"the calibratable: {can}"
        )
    if parameter in params:
        raise ValueError(f"{parameter!r} is the calibrated parameter: do not also give it a value")
    unknown = sorted(set(params) - set(entry.parameters))
    if unknown:
        raise ValueError(
            f"accountant {entry.name!r} takes no parameter {', '.join(map(repr, unknown))}"
            f"{_validation.did_you_mean(unknown[0], entry.parameters)}; its parameters: {', '.join(entry.parameters)}"
        )
    missing = sorted(set(entry.required) - set(params) - {parameter})
    if missing:
        raise ValueError(f"accountant {entry.name!r} needs {', '.join(map(repr, missing))}")
    return entry.calibratable[parameter]


def _search_range(spec: Calibratable, params: dict[str, float | np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per point, the smallest and largest value the search may evaluate (open ends nudged inside)."""
    lower = spec.lower
    bound = spec.upper(params) if callable(spec.upper) else spec.upper  # type: ignore[arg-type]
    upper = np.broadcast_to(np.asarray(bound, float), (n,))
    if spec.integer:
        low = max(np.ceil(lower), 1.0) if lower > 0 else 1.0
        upper = np.floor(upper)
    else:
        low = lower if lower > 0 else np.finfo(float).tiny ** 0.25
    return np.full(n, low), upper.copy()


class _Bar:
    """The calibration's progress: points evaluated (a bar without a total: the number of steps is
    not known in advance) and, as its postfix, the targets still open in the blocks being solved.
    Disabled, it still masks an outer listener (a sweep's bar counts grid points, not the trial
    evaluations inside them).  Blocks solved in threads share it (updates under a lock)."""

    def __init__(self, enabled: bool, name: str, parameter: str) -> None:
        self.enabled, self.desc = enabled, f"calibrate {name} {parameter}"
        self.bar: Any = None
        self.lock = threading.Lock()
        self.open: dict[int, int] = {}  # per thread, the targets its current call evaluates

    def __enter__(self) -> _Bar:
        if self.enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(unit="pt", unit_scale=True, file=sys.stderr, desc=self.desc, smoothing=0.1)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.close()

    def evaluate(self, call: Callable[[], Any], points: int) -> Any:
        """``call()`` (one accountant call on ``points`` points), the bar moved per reported block."""
        if self.bar is None:
            with progress_hook.reporting(None):
                return call()
        with self.lock:
            self.open[threading.get_ident()] = points
            self.bar.set_postfix_str(f"{sum(self.open.values())} targets open", refresh=False)
        moved = [0]

        def advance(done: int) -> None:
            step = min(done, points - moved[0])
            moved[0] += step
            with self.lock:
                self.bar.update(step)

        with progress_hook.reporting(advance):
            out = call()
        with self.lock:
            self.bar.update(points - moved[0])
            self.open[threading.get_ident()] = 0
        return out


class _Directions:
    """A search's upper delta direction by direction (the accountant's ``calibration_directions``: the PLD's
    remove and add directions, ``pld/refine/directional_delta.py``), the other directions composed only where needed.

    delta = max over directions, and any certified upper bound of each direction gives one of delta:

    - the leading direction's bound U_l on the searched grid at every trial; U_l > target fails the
      target whatever the others are, so such a trial (every infeasible probe) needs nothing more;
    - a trial with U_l <= target needs a bound U_o on the others: the others' delta falls monotonically
      towards the feasible side (for sigma: more noise is a Markov kernel, see directional_delta.py), so a
      certified U_o at a "screen" value x_s (on a grid ``COARSENING`` times coarser) bounds it at every x
      beyond x_s.  Where U_o <= target, the trial's delta is max(U_l, U_o): certified, and feasible exactly
      when U_l is.  The screen sits where no later trial falls short of it: the infeasible end of the bracket
      once there is one (every later probe lies inside), before that ``margin`` (log x) short of the trial
      (the first bracketing step; ``_SCREEN_MARGIN`` from an extrapolated start).  At most ``_SCREENS`` per
      target; a trial no passing screen covers gets the others on the searched grid at x itself,
      max(U_l, U_o(x)): the accountant's own number where its directions are composed apart.

    So the value a calibration returns met the target under a certified upper bound whose leading direction
    was evaluated at it on the requested grid; where the others lead (a screen above the target), they are
    evaluated there too.  Measured on the 20 G2 targets: 0 of 20 screens missed with the 1e-3 margin (the add
    direction at 0-0.74 of the target at the answer, 0.90 at 1 % below it).
    """

    def __init__(self, evaluator: Any, problem: _Problem, margin: np.ndarray | float) -> None:
        n = problem.eps.size
        self.evaluator, self.problem = evaluator, problem
        self.margin = np.broadcast_to(np.asarray(margin, dtype=float), (n,)).copy()
        self.at = np.full(n, np.nan)  # per target, its screen's value x_s (nan: none yet)
        self.bound = np.full(n, np.inf)  # ... and the others' certified upper delta there
        self.made = np.zeros(n, dtype=int)  # screens made so far

    def delta(self, x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """A certified upper bound on delta at ``x`` for the targets ``idx`` (see the class docstring)."""
        pb = self.problem
        threads = 0 if pb.inner_workers is None else pb.inner_workers
        eps, target = pb.eps[idx], pb.dlt[idx]
        lead = np.asarray(self.evaluator.leading(self._params(x, idx), eps, threads), dtype=float)
        out = lead.copy()
        need = np.flatnonzero(lead <= target)  # feasible if the others allow it
        if not need.size:
            return out
        covered = self._covered(x[need], idx[need])
        fresh = need[~covered & self._may_screen(idx[need])]
        if fresh.size:
            j = idx[fresh]
            bad = pb.bad[j]
            inside = np.isfinite(bad) & (bad < x[fresh] if pb.up else bad > x[fresh])
            short = x[fresh] * np.exp(-self.margin[j] if pb.up else self.margin[j])
            at = np.where(inside, bad, short)
            self.at[j] = at
            self.bound[j] = self.evaluator.others(self._params(at, j), pb.eps[j], threads, screen=True)
            self.made[j] += 1
            covered = self._covered(x[need], idx[need])
        cov = need[covered]
        out[cov] = np.maximum(lead[cov], self.bound[idx[cov]])
        rest = need[~covered]
        if rest.size:
            out[rest] = np.maximum(
                lead[rest], self.evaluator.others(self._params(x[rest], idx[rest]), pb.eps[idx[rest]], threads)
            )
        return out

    def _params(self, x: np.ndarray, idx: np.ndarray) -> dict[str, Any]:
        sub = {k: v[idx] if isinstance(v, np.ndarray) else v for k, v in self.problem.params.items()}
        sub[self.problem.parameter] = x
        return sub

    def _covered(self, x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        at = self.at[idx]
        beyond = x >= at if self.problem.up else x <= at
        return cast(np.ndarray, beyond & (self.bound[idx] <= self.problem.dlt[idx]))

    def _may_screen(self, idx: np.ndarray) -> np.ndarray:
        """No screen yet; or one more at the bracket's infeasible end, where that lies short of a passing
        screen (it covers more) or beyond a failing one (the others' delta is smaller there)."""
        bad, at = self.problem.bad[idx], self.at[idx]
        short = bad < at if self.problem.up else bad > at
        passed = self.bound[idx] <= self.problem.dlt[idx]
        better = np.isfinite(bad) & (bad != at) & (short == passed)
        return cast(np.ndarray, (self.made[idx] == 0) | ((self.made[idx] < _SCREENS) & better))


class _Problem:
    """Vectorized bracketing + refinement state for one calibration call."""

    bar: _Bar = _Bar(False, "", "")
    step: float | np.ndarray = _STEP  # the first bracketing factor (one, or one per target)
    slope: np.ndarray | None = None  # per target, d log excess / d log x near the start (a coarser grid's)
    measured_slope: np.ndarray  # ... and as this search's bracket measured it
    integer_rtol: float = 0.0  # an integer search stops at this relative width (0: adjacent integers)
    inner_workers: int | None = None  # the accountant's own ``workers`` (where it takes them; None: its default)
    directions: _Directions | None = None  # the upper side direction by direction (calibration_directions)

    def __init__(
        self,
        entry: AccountantEntry,
        parameter: str,
        spec: Calibratable,
        eps: np.ndarray,
        dlt: np.ndarray,
        params: dict[str, float | np.ndarray],
        side: str = "upper",
    ) -> None:
        self.entry, self.parameter, self.spec = entry, parameter, spec
        self.eps, self.dlt, self.params, self.side = eps, dlt, params, side
        # "up" is the direction in which the bound meets the target more easily.
        self.up = spec.direction == "decreasing"

    def log_excess(self, x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """log delta(eps; x) - log target at the points ``idx`` (< 0: feasible, > 0: not; never 0)."""
        sub: dict[str, Any] = {k: v[idx] if isinstance(v, np.ndarray) else v for k, v in self.params.items()}
        sub[self.parameter] = x
        if self.directions is not None:
            split = self.directions
            return self._excess(self.bar.evaluate(lambda: split.delta(x, idx), idx.size), idx)

        # the upper side is every accountant's default (and all a minimal accountant knows)
        def bound_at() -> Any:
            built = (
                self.entry.build(**sub)
                if self.inner_workers is None
                else self.entry.factory(
                    **{k: v for k, v in sub.items() if k in self.entry.parameters}, workers=self.inner_workers
                )
            )
            return built.delta(self.eps[idx]) if self.side == "upper" else built.delta(self.eps[idx], bound=self.side)

        return self._excess(self.bar.evaluate(bound_at, idx.size), idx)

    def _excess(self, delta: Any, idx: np.ndarray) -> np.ndarray:
        """log delta - log target at the points ``idx``, its sign exact and never 0 (``log_excess``)."""
        d = np.asarray(delta, dtype=float)
        target = self.dlt[idx]
        f = np.log(np.maximum(d, _SMALLEST)) - np.log(target)
        # the sign of f must say exactly whether d <= target (log can round across it), and f is never 0:
        # the root finder stops at an exact zero, which would end the refinement with a bracket
        # whose two ends both meet the target, however far the boundary still is
        return cast(np.ndarray, np.where(d <= target, np.minimum(f, -_SMALLEST), np.maximum(f, _SMALLEST)))

    def solve(self, start: np.ndarray, rtol: float) -> np.ndarray:
        """The calibrated value per target, bracketing from ``start`` (one value per target)."""
        n = self.eps.size
        self.lower, self.upper = _search_range(self.spec, self.params, n)
        x0 = np.clip(np.round(start) if self.spec.integer else start, self.lower, self.upper)
        good = np.full(n, np.nan)  # a value meeting the target
        bad = np.full(n, np.nan)  # a value failing it (adjacent side)
        self.bad = bad  # ... read by ``directions`` (where to screen), updated in place
        fbad = np.full(n, np.nan)  # log excess at ``bad`` (for the unreachable message)
        self.fgood = np.full(n, np.nan)  # log excess at ``good`` (integer search: interpolation)
        everything = np.arange(n)
        f0, refused = self._hard_side_excess(x0, everything)
        if refused.any():
            x0[refused], f0[refused] = self._accepted_start(x0[refused], everything[refused])
        ok = f0 <= 0
        good[ok], self.fgood[ok] = x0[ok], f0[ok]
        bad[~ok], fbad[~ok] = x0[~ok], f0[~ok]
        result = np.full(n, np.nan)
        if self.slope is not None:
            self.step = self._newton_step(f0, rtol)
        self._bracket(good, bad, fbad, result, x0)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.measured_slope = (fbad - self.fgood) / (np.log(bad) - np.log(good))
        open_ = np.flatnonzero(np.isnan(result))
        if self.spec.integer:
            _bisect_integers(self, good, bad, fbad, open_)
        else:
            (_settle if self.slope is not None else _refine)(self, good, bad, fbad, open_, rtol)
        if self.side == "lower" and not self.spec.integer:
            # certain: the target fails at ``bad`` (and beyond it); at the hard end nothing is certain
            result[open_] = bad[open_]
            if self.up:
                result[~np.isin(np.arange(n), open_)] = 0.0
        else:
            result[open_] = good[open_]
        return result

    def _newton_step(self, f0: np.ndarray, rtol: float) -> np.ndarray:
        """The first bracketing factor per target from ``slope`` (d log excess / d log x measured on a
        coarser grid): exp(``_OVERSHOOT`` |f0 / slope| + rtol / 2), so that the step lands just past
        the root and the bracket is about as wide as the start's error; at most the usual ``step``,
        which stands where the slope is unknown or points the wrong way.  The coarser grid's slope put
        the root within 0.01-1 % of the Newton step on G2's targets, so 1.2 steps cross it: the second
        end lands a fifth of the start's error past the root instead of a whole one (overshoot 2), and
        the secant's error, which the curvature makes proportional to the product of the two ends'
        distances, is 5x smaller: mostly within one rtol of the root, one step across closes the bracket
        (sigma on G2's targets 0-99 and 200-399: 5.6 and 5.26 evaluations on the requested grid per
        target with 2, 4.83 and 4.70 with 1.2; rounds 3.28 against 3.11)."""
        usual = np.broadcast_to(np.asarray(self.step, dtype=float), f0.shape)
        assert self.slope is not None
        with np.errstate(divide="ignore", invalid="ignore"):
            jump = _OVERSHOOT * np.abs(f0 / self.slope) + 0.5 * rtol
        known = np.isfinite(jump) & ((self.slope < 0) == self.up)  # delta falls along "up"
        return np.where(known, np.exp(np.minimum(np.where(known, jump, 0.0), np.log(usual))), usual)

    def _bracket(self, good: np.ndarray, bad: np.ndarray, fbad: np.ndarray, result: np.ndarray, x0: np.ndarray) -> None:
        """Step geometrically until every point has a feasible and an infeasible value.

        A point infeasible even at the easy limit is unreachable (ValueError); a point
        feasible even at the hard limit gets the range end: for sigma the smallest value
        searched (the lower end nudged inside an open range, ~1.5e-77 when it is 0); for
        rounds the largest the accountant allows, or inf when that is unbounded (the search
        stops a factor _SPAN from the start; 2^52 for integers).
        """
        spec = self.spec
        span = _INTEGER_SPAN if spec.integer else _SPAN
        # the span only bounds an unbounded end: a finite range end (rounds <= n / batch_size) is
        # itself evaluated, however far from the start it lies
        low = np.maximum(x0 / span, self.lower)
        high = np.where(np.isfinite(self.upper), self.upper, np.minimum(x0 * span, self.upper))
        step = np.broadcast_to(np.asarray(self.step, dtype=float), (self.eps.size,))
        to_easy, easy_limit = (step, high) if self.up else (1 / step, low)
        to_hard, hard_limit = (1 / step, low) if self.up else (step, high)
        # feasible at the hard end: sigma gets the smallest value searched (evaluated, so the
        # accountant accepts it; 0 would not be); rounds the cap, or inf when there is none
        hard_end = low if self.up else np.where(np.isfinite(self.upper), self.upper, np.inf)
        for factor, limits, missing in ((to_easy, easy_limit, good), (to_hard, hard_limit, bad)):
            idx = np.flatnonzero(np.isnan(missing))
            x = np.where(np.isnan(good[idx]), bad[idx], good[idx])
            factor = factor[idx]
            while idx.size:
                limit = limits[idx]
                at_limit = x == limit
                if np.any(at_limit):
                    if missing is good:
                        self._unreachable(idx[at_limit], x[at_limit], fbad[idx[at_limit]])
                    result[idx[at_limit]] = hard_end[idx[at_limit]]
                    idx, x, limit, factor = idx[~at_limit], x[~at_limit], limit[~at_limit], factor[~at_limit]
                    if not idx.size:
                        break
                moved = np.round(x * factor) if spec.integer else x * factor
                grow = factor > 1
                if spec.integer:  # a small factor must still move an integer (1.2 x 1 rounds to 1)
                    moved = np.where(grow, np.maximum(moved, x + 1), np.minimum(moved, x - 1))
                x = np.where(grow, np.minimum(moved, limit), np.maximum(moved, limit))
                with np.errstate(over="ignore", under="ignore"):  # inf / 0: the limit clips the next step
                    factor = factor * factor
                if missing is good:
                    f = self.log_excess(x, idx)
                else:
                    f, refused = self._hard_side_excess(x, idx)
                    if refused.any():  # the range ends where the accountant stops computing bounds
                        result[idx[refused]] = good[idx[refused]]
                        idx, x, factor, f = idx[~refused], x[~refused], factor[~refused], f[~refused]
                ok = f <= 0
                good[idx[ok]], self.fgood[idx[ok]] = x[ok], f[ok]
                bad[idx[~ok]], fbad[idx[~ok]] = x[~ok], f[~ok]
                keep = ~ok if missing is good else ok
                idx, x, factor = idx[keep], x[keep], factor[keep]

    def _hard_side_excess(self, x: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``log_excess`` at the start or at trials towards the hard end, and which of them the accountant
        refuses (ValueError: no certified bound computed there, e.g. a PLD loss grid of more than its cap of
        cells at a tiny sigma).  A trial's point met the target at every value evaluated so far, so its search
        range ends at the last of them; a refused start moves towards the easy end (``_accepted_start``).
        The points are evaluated one by one once a joint call is refused."""
        try:
            return self.log_excess(x, idx), np.zeros(idx.size, dtype=bool)
        except ValueError:
            if idx.size == 1:  # a lone point's refusal is its own: not evaluated again
                return np.full(1, np.nan), np.ones(1, dtype=bool)
        f = np.full(idx.size, np.nan)
        refused = np.zeros(idx.size, dtype=bool)
        for j in range(idx.size):
            try:
                f[j] = self.log_excess(x[j : j + 1], idx[j : j + 1])[0]
            except ValueError:
                refused[j] = True
        return f, refused

    def _accepted_start(self, x0: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Starts the accountant refuses (ValueError) moved towards the easy end by factors 2, 4, 16, ... until
        it accepts one (where the easy end itself is refused, its error is raised): their values and log excess."""
        xs, fs = x0.copy(), np.empty(idx.size)
        for j in range(idx.size):
            i = idx[j : j + 1]
            limit = min(float(self.upper[i[0]]), float(x0[j]) * _SPAN) if self.up else float(self.lower[i[0]])
            x, factor = float(x0[j]), 2.0
            while True:
                x = min(x * factor, limit) if self.up else max(x / factor, limit)
                if self.spec.integer:
                    x = float(np.floor(x)) if self.up else float(np.ceil(x))
                try:
                    fs[j] = self.log_excess(np.array([x]), i)[0]
                    break
                except ValueError:
                    if x == limit:
                        raise
                factor *= factor
            xs[j] = x
        return xs, fs

    def _unreachable(self, idx: np.ndarray, x: np.ndarray, f: np.ndarray) -> None:
        i = int(idx[0])
        where = ", ".join(f"{k}={v[i] if isinstance(v, np.ndarray) else v:g}" for k, v in self.params.items())
        reached = float(np.exp(f[0]) * self.dlt[i])
        raise ValueError(
            f"target (epsilon={self.eps[i]:g}, delta={self.dlt[i]:g}) is unreachable for {self.entry.name!r}"
            f"{' at ' + where if where else ''}: even {self.parameter}={x[0]:g} gives delta={reached:.3g}; "
            f"raise epsilon or delta, or change the other parameters"
        )


# --- refinement: a bracket (a value meeting the target, one failing it) narrowed to its final width,
# evaluated through the problem's ``log_excess``; its ends and their log excess updated in place


def _bisect_integers(pb: _Problem, good: np.ndarray, bad: np.ndarray, fbad: np.ndarray, idx: np.ndarray) -> None:
    """Adjacent integers good / bad.  While the two are far apart, each step interpolates the root
    of log delta - log target linearly in log x (nearly linear for rounds) and probes two integers
    strictly inside the bracket, 1 % of its log width either side of the estimate, so both ends
    move in and the bracket shrinks ~50x per step (rounds 1e5: ~5 calls instead of ~27 halvings);
    within 64 of each other, the two integers either side of the interpolated root (adjacent
    integers in one step where the bound is smooth); where the interpolation has nothing to go
    on, or for a point whose last step did not halve its bracket's log width (a bound flat or
    stepped in x), plain bisection."""
    last_width = np.full(good.size, np.inf)
    while idx.size:
        g, b = good[idx], bad[idx]
        done = (
            (np.abs(b - g) <= np.maximum(1.0, pb.integer_rtol * np.minimum(g, b)))
            | (np.floor((g + b) / 2) == g)
            | (np.floor((g + b) / 2) == b)
        )
        idx, g, b = idx[~done], g[~done], b[~done]
        if not idx.size:
            break
        fg, fb = pb.fgood[idx], fbad[idx]
        lo, hi = np.minimum(g, b), np.maximum(g, b)
        width = np.log(hi) - np.log(np.maximum(lo, 0.5))
        guided = (
            (hi < _INTEGER_SPAN)
            & np.isfinite(fg)
            & np.isfinite(fb)
            & (fg < 0)
            & (fb > 0)
            & (lo > 0)
            & (width <= 0.5 * last_width[idx])
        )
        last_width[idx] = width
        mid = np.floor((g + b) / 2)
        probes_x, probes_i = [mid[~guided]], [idx[~guided]]
        if np.any(guided):
            ug, ub = np.log(g[guided]), np.log(b[guided])
            root = ug + (ub - ug) * (fg[guided] / (fg[guided] - fb[guided]))
            inside_lo, inside_hi = lo[guided] + 1, hi[guided] - 1
            far = hi[guided] - lo[guided] > 64
            half = 0.01 * np.abs(ub - ug)
            # far apart: 1 % of the log width either side; near: the two integers around the root
            below = np.where(far, np.round(np.exp(root - half)), np.floor(np.exp(root)))
            above = np.where(far, np.round(np.exp(root + half)), np.floor(np.exp(root)) + 1)
            below, above = np.clip(below, inside_lo, inside_hi), np.clip(above, inside_lo, inside_hi)
            two = above != below
            probes_x += [below, above[two]]
            probes_i += [idx[guided], idx[guided][two]]
        x, where = np.concatenate(probes_x), np.concatenate(probes_i)
        f = pb.log_excess(x, where)
        for xi, i, fi in zip(x, where, f):  # probes are strictly inside: a feasible one is nearer bad
            if fi <= 0:
                if abs(bad[i] - xi) < abs(bad[i] - good[i]):
                    good[i], pb.fgood[i] = xi, fi
            elif abs(good[i] - xi) < abs(good[i] - bad[i]):
                bad[i], fbad[i] = xi, fi


def _settle(pb: _Problem, good: np.ndarray, bad: np.ndarray, fbad: np.ndarray, idx: np.ndarray, rtol: float) -> None:
    """The refinement from a start near the answer (a coarser grid's extrapolation): secant steps on
    log delta - log target against log x, then steps of ``rtol`` across.

    Near its root the bound is noisy (the composed PMF's charged round-off: log delta jumps by
    ~3e-8 where sigma moves by 1e-10, against a slope of ~20), so within ~1e-9 of the root the
    sign is a coin toss and a secant (or Chandrupatla's interpolation) only jumps about in that band,
    each jump one more evaluation.  So once the secant puts the root within ``_NOISE_BAND`` (1e-8 in
    log x; or rtol, if wider) of the latest probe, the next probe steps across from that probe:
    0.99 rtol (so that a sign change there closes the bracket), and after every ``_WALK`` such steps
    without one (the root may be farther than noise: a systematic offset) once 0.45 rtol past the
    secant root.  Measured on the 20 G2 targets: 5.6 evaluations on the requested grid per target
    (Chandrupatla from the same start: 7.0), with a first step of 2 Newton steps (4.7-4.8 with 1.2 on
    G2's targets, ``_newton_step``).  Away from the root, a secant step that did not halve
    the bracket is followed by the midpoint.  Every probe lies at least min(0.49 rtol, a quarter of
    the bracket) inside it, so the bracket shrinks every step and the search ends (a target whose
    probe rounds onto an end of its bracket, an rtol below the spacing of doubles, ends there).  Ends are values
    evaluated, as ``_refine`` keeps them.
    """
    n = good.size
    latest = np.where(np.abs(pb.fgood) <= np.abs(fbad), good, bad)  # the probe to step across from
    tries = np.zeros(n, dtype=int)
    last_width = np.full(n, np.inf)
    exhausted = np.zeros(n, dtype=bool)  # no double lies strictly inside the bracket any more
    while idx.size:
        ug, ub = np.log(good[idx]), np.log(bad[idx])
        width = np.abs(ub - ug)
        open_ = (width > rtol) & ~exhausted[idx]
        idx, ug, ub, width = idx[open_], ug[open_], ub[open_], width[open_]
        if not idx.size:
            break
        fg, fb = pb.fgood[idx], fbad[idx]
        secant = ug + (ub - ug) * (fg / (fg - fb))
        start = np.log(latest[idx])
        other = np.where(start == ug, ub, ug)
        across = np.abs(secant - start) <= max(rtol, _NOISE_BAND)
        stalled = width > 0.5 * last_width[idx]
        walk = tries[idx] % (_WALK + 1) < _WALK
        step = np.where(walk, 0.99 * rtol, np.maximum(0.99 * rtol, np.abs(secant - start) + 0.45 * rtol))
        probe = np.where(
            across, start + np.sign(other - start) * step, np.where(stalled & ~across, 0.5 * (ug + ub), secant)
        )
        lo, hi = np.minimum(ug, ub), np.maximum(ug, ub)
        margin = np.minimum(0.49 * rtol, 0.25 * width)
        probe = np.clip(probe, lo + margin, hi - margin)
        tries[idx] = np.where(across, tries[idx] + 1, 0)
        last_width[idx] = np.where(across, last_width[idx], width)
        x = np.exp(probe)
        # an rtol below the doubles' spacing: the probe rounds onto an end, and the bracket is final
        inside = (x != good[idx]) & (x != bad[idx])
        exhausted[idx[~inside]] = True
        idx, x = idx[inside], x[inside]
        if not idx.size:
            break
        f = pb.log_excess(x, idx)
        ok = f <= 0
        good[idx[ok]], pb.fgood[idx[ok]] = x[ok], f[ok]
        bad[idx[~ok]], fbad[idx[~ok]] = x[~ok], f[~ok]
        latest[idx] = x


def _refine(pb: _Problem, good: np.ndarray, bad: np.ndarray, fbad: np.ndarray, idx: np.ndarray, rtol: float) -> None:
    """Chandrupatla's bracketing root finder (scipy) on log delta - log target vs log x.

    Its first two calls ask for f at the bracket's ends, which the bracketing evaluated already
    (``pb.fgood``, ``fbad``): they are answered from those values (each a full accountant call
    saved: 28 % of a PLD sigma calibration).  An end the finder never moved is returned as the
    value evaluated there, not exp(log x) (which may differ in the last bit).
    """
    from scipy.optimize.elementwise import find_root  # scipy.optimize takes ~0.4 s to import

    if not idx.size:
        return
    lg, lb = np.log(good[idx]), np.log(bad[idx])
    left = lg < lb
    init = (np.where(left, lg, lb), np.where(left, lb, lg))
    known: list[tuple[np.ndarray, np.ndarray]] = [
        (init[0], np.where(left, pb.fgood[idx], fbad[idx])),
        (init[1], np.where(left, fbad[idx], pb.fgood[idx])),
    ]

    def f(u: np.ndarray, where: np.ndarray) -> np.ndarray:
        for k, (ends, values) in enumerate(known):  # an initial end, asked for on every open point
            if np.shape(u) == ends.shape and np.array_equal(u, ends):
                del known[k]
                return values
        return pb.log_excess(np.exp(u), where.astype(np.intp))

    res = find_root(f, init, args=(idx.astype(float),), tolerances=dict(xatol=rtol, xrtol=0.0, fatol=0.0, frtol=0.0))
    # the final bracket has one feasible end (f < 0) and one infeasible end: keep the feasible one
    (ul, ur), (fl, _) = res.bracket, res.f_bracket
    feasible, infeasible = np.where(fl < 0, ul, ur), np.where(fl < 0, ur, ul)
    good[idx] = np.where(feasible == lg, good[idx], np.exp(feasible))
    bad[idx] = np.where(infeasible == lb, bad[idx], np.exp(infeasible))


# --- the batch size, in training words -------------------------------------------------------------


@_validation.known_keywords("calibrate_batch_size", *_TARGET_SYNONYMS)
def calibrate_batch_size(
    *,
    noise_multiplier: ArrayLike,
    dataset_size: ArrayLike,
    epsilon: ArrayLike | None = None,
    delta: ArrayLike | None = None,
    epochs: ArrayLike | None = None,
    steps: ArrayLike | None = None,
    sampling: training.Sampling = "poisson",
    steps_per_epoch: training.StepsPerEpoch | None = None,
    value_discretization_interval: float | None = None,
    accuracy: float | None = None,
    progress: bool = False,
    workers: int | None = None,
    **targets: Any,
) -> Any:
    """The largest batch size whose DP-SGD run (``training.DPSGD``) stays within (epsilon, delta).

        calibrate_batch_size(noise_multiplier=1.1, dataset_size=60_000, epochs=60, epsilon=3, delta=1e-5)

    The run is fixed by the noise multiplier, the data set size and ``epochs`` (each of ``steps_per_epoch``
    steps: fewer steps for larger batches) or ``steps``; epsilon grows with the batch size (the sampling
    rate q = batch_size / dataset_size), so the answer is the largest whole batch size whose certified upper
    bound meets the target: it was evaluated, and it met the target (a valid answer even where the ceilings
    of the steps per epoch make the bound step non-monotonically; then it may not be the largest such).
    ``target_epsilon`` / ``target_delta`` are accepted for ``epsilon`` / ``delta``; arrays broadcast.
    The sampling rate of a run given by its rate is ``calibrate("dp_sgd", "sample_rate", ...)``.

    Parameters
    ----------
    noise_multiplier, dataset_size, epochs or steps, steps_per_epoch, value_discretization_interval, accuracy
        The run, as ``training.DPSGD`` takes it (without the batch size).
    epsilon, delta : array_like
        The target (or ``target_epsilon`` / ``target_delta``).
    sampling : str
        "poisson", "fixed_size" or "balls_in_bins" (shuffled batches: their upper side does not depend on the
        batch size, so there is no largest one to search).
    progress, workers
        As ``calibrate``'s.

    Returns
    -------
    int or array of int64
        The batch size per broadcast point.

    Raises
    ------
    TypeError
        An unknown keyword (naming the closest one), a target given twice.
    ValueError
        ``sampling="shuffle"`` or another sampling not listed; bad run parameters or targets (naming them);
        a target no batch size meets.
    """
    entry = _training_entry(sampling, steps_per_epoch)
    if "batch_size" not in entry.calibratable:
        can = [s for s in training.SAMPLINGS if "batch_size" in _training_entry(s, None).calibratable]
        raise ValueError(
            f"sampling must be one whose batch size can be calibrated ({', '.join(map(repr, can))}), got "
            f"{sampling!r}: its certified upper epsilon does not depend on the batch size (for shuffled batches, "
            "the Gaussian of shift 2 per epoch begun), so there is no largest batch size to search; choose another "
            "sampling, or compare training.DPSGD's brackets at the batch sizes you consider"
        )
    call = _TrainingCall(
        entry,
        epsilon,
        delta,
        _given(value_discretization_interval=value_discretization_interval, accuracy=accuracy),
        progress,
        workers,
        targets,
    )
    return call.calibrate(
        "batch_size",
        {"noise_multiplier": noise_multiplier, "dataset_size": dataset_size, **_given(epochs=epochs, steps=steps)},
    )


@dataclasses.dataclass(frozen=True)
class _TrainingCall:
    """What ``calibrate_batch_size`` and ``calibrate_fixed_compute`` pass to ``calibrate`` alike: the DP-SGD
    entry of their ``sampling`` (``_training_entry``), the target (``epsilon``, ``delta``, or Opacus's and
    dp_accounting's names in ``targets``), the grid keywords given (``value_discretization_interval``,
    ``accuracy``) and calibrate's own ``progress`` and ``workers``."""

    entry: AccountantEntry
    epsilon: Any
    delta: Any
    grid: dict[str, Any]
    progress: bool
    workers: int | None
    targets: dict[str, Any]

    def calibrate(self, parameter: str, run: dict[str, Any]) -> Any:
        """``parameter`` calibrated for the run ``run`` (the accountant's other parameters, before the grid
        keywords and the targets' synonyms)."""
        return calibrate(
            self.entry,
            parameter,
            epsilon=self.epsilon,
            delta=self.delta,
            progress=self.progress,
            workers=self.workers,
            **run,
            **self.grid,
            **self.targets,
        )

    def target(self) -> tuple[float, float]:
        """The target (epsilon, delta), each validated, from its name or its synonym."""
        d = _validation.delta_target(self.delta if self.delta is not None else self.targets["target_delta"], "delta")
        e = _validation.epsilon_target(
            self.epsilon if self.epsilon is not None else self.targets["target_epsilon"], "epsilon"
        )
        return float(e), float(d)


def _training_entry(sampling: Any, steps_per_epoch: Any) -> AccountantEntry:
    """The registered DP-SGD entry of ``sampling``, its ``steps_per_epoch`` bound (None: the class's default)."""
    _validation.choice(sampling, "sampling", training.SAMPLINGS)
    entry = registry.get("dp_sgd" if sampling == "poisson" else f"dp_sgd_{sampling}")
    if steps_per_epoch is None:
        return entry
    _validation.choice(steps_per_epoch, "steps_per_epoch", training.STEPS_PER_EPOCH)
    return dataclasses.replace(entry, factory=functools.partial(entry.factory, steps_per_epoch=steps_per_epoch))


def _given(**values: Any) -> dict[str, Any]:
    """The keywords given (not None)."""
    return {k: v for k, v in values.items() if v is not None}


@dataclasses.dataclass(frozen=True)
class FixedComputeTable:
    """Per candidate batch size at one compute budget: the steps it takes, the smallest noise multiplier
    within the target and the certified upper epsilon at ``delta`` of that run (all arrays, one row each)."""

    batch_size: np.ndarray
    steps: np.ndarray
    noise_multiplier: np.ndarray
    epsilon: np.ndarray
    delta: float
    sampling: str

    def rows(self) -> list[dict[str, Any]]:
        """One dict per batch size: batch_size, steps, noise_multiplier, epsilon."""
        return [
            {"batch_size": int(b), "steps": int(t), "noise_multiplier": float(z), "epsilon": float(e)}
            for b, t, z, e in zip(self.batch_size, self.steps, self.noise_multiplier, self.epsilon)
        ]

    def __str__(self) -> str:
        """The table, noise multipliers and epsilons rounded up to 6 digits (both are safe to round up only)."""
        head = f"{'batch_size':>10}  {'steps':>10}  {'noise_multiplier':>16}  {'epsilon':>10}"
        lines = [
            f"{b:>10}  {t:>10}  {_up(z):>16}  {_up(e):>10}"
            for b, t, z, e in zip(self.batch_size, self.steps, self.noise_multiplier, self.epsilon)
        ]
        return "\n".join([f"delta = {self.delta:g}, {self.sampling} sampling", head, *lines])


def _up(x: float, digits: int = 6) -> str:
    """``x`` > 0 rounded up to ``digits`` significant digits, as text (inf and 0 as they are)."""
    if not np.isfinite(x) or x <= 0:
        return f"{x:g}"
    scale = 10.0 ** (digits - 1 - int(np.floor(np.log10(x))))
    up = float(np.ceil(x * scale * (1 - 1e-15)) / scale)
    while up < x:  # the decimal rounding of the quotient fell short: one unit of the last digit up
        up = float((np.ceil(x * scale) + 1) / scale)
    return f"{up:.{digits}g}"


def default_batch_sizes(dataset_size: int) -> np.ndarray:
    """The candidates ``calibrate_fixed_compute`` tries unless given: the powers of two from 16 up to
    dataset_size / 8 (at least one, the smallest of 16 and dataset_size)."""
    n = int(_validation.count(dataset_size, "dataset_size"))
    top = max(n // 8, min(16, n))
    sizes = [b for b in (2**k for k in range(4, 63)) if b <= top]
    return np.array(sizes or [min(16, n)], dtype=np.int64)


@_validation.known_keywords("calibrate_fixed_compute", *_TARGET_SYNONYMS)
def calibrate_fixed_compute(
    *,
    dataset_size: int,
    epsilon: float | None = None,
    delta: float | None = None,
    epochs: float | None = None,
    examples: int | None = None,
    batch_sizes: ArrayLike | None = None,
    sampling: training.Sampling = "poisson",
    steps_per_epoch: training.StepsPerEpoch | None = None,
    value_discretization_interval: float | None = None,
    accuracy: float | None = None,
    progress: bool = False,
    workers: int | None = None,
    **targets: Any,
) -> FixedComputeTable:
    """The noise multiplier and the batch size together at a fixed compute budget: for each candidate batch
    size, the steps the budget allows and the smallest noise multiplier meeting (epsilon, delta) there.

        print(calibrate_fixed_compute(dataset_size=60_000, epochs=60, epsilon=3, delta=1e-5))

    The budget is ``epochs`` passes over the data (each of ``steps_per_epoch`` steps, as in
    ``training.DPSGD``: steps x batch_size stays about epochs x dataset_size) or ``examples`` processed
    (steps = floor(examples / batch_size), the most whole steps within it).  ``batch_sizes``: the candidates
    (whole numbers, at most dataset_size; default ``default_batch_sizes``).  ``sampling``: how batches are
    drawn, any of ``training.SAMPLINGS`` (Poisson, fixed size, balls in bins, shuffled).  Each row's noise multiplier is
    calibrated as ``calibrate("dp_sgd", "noise_multiplier", ...)`` does it (certified: its run's upper bound
    meets the target), and its ``epsilon`` is a certified upper bound on that run's epsilon at ``delta``:
    the least of its ``epsilon(delta)`` and the target (which the calibration certified).

    Which row to train with is the caller's choice: fewer, larger batches need less noise per example
    but take fewer steps, and how that trades against the model's utility depends on the model and the
    data, which this table does not see.
    """
    n = _validation.count(dataset_size, "dataset_size")
    sizes = (
        default_batch_sizes(n)
        if batch_sizes is None
        else np.atleast_1d(_validation.positive_integer(batch_sizes, "batch_sizes", maximum=n)).astype(np.int64)
    )
    if sizes.ndim != 1:
        raise ValueError(f"batch_sizes must be a list of batch sizes, got an array of shape {sizes.shape}")
    if (epochs is None) == (examples is None):
        raise ValueError("give exactly one compute budget: epochs or examples (steps x batch_size)")
    if examples is not None:
        budget = _validation.count(examples, "examples")
        steps = budget // sizes
        if np.any(steps < 1):
            raise ValueError(
                f"examples must allow one step of every batch size, got examples = {budget} < batch size "
                f"{int(sizes[steps < 1][0])}; give more examples or smaller batch_sizes"
            )
        run: dict[str, Any] = {"steps": steps}
    else:
        run = {"epochs": float(_validation.single(epochs, "epochs"))}
    call = _TrainingCall(
        _training_entry(sampling, steps_per_epoch),
        epsilon,
        delta,
        _given(value_discretization_interval=value_discretization_interval, accuracy=accuracy),
        progress,
        workers,
        targets,
    )
    sigma = call.calibrate("noise_multiplier", {"dataset_size": n, "batch_size": sizes, **run})
    e, d = call.target()
    built = call.entry.factory(noise_multiplier=sigma, dataset_size=n, batch_size=sizes, **run, **call.grid)
    # two certified upper bounds on the run's epsilon at d: its epsilon(d), and the target, which the
    # calibration certified (delta(target) <= d was evaluated at this sigma); epsilon(d) may exceed the
    # target by its scan's resolution (~1e-9)
    return FixedComputeTable(
        batch_size=sizes,
        steps=np.broadcast_to(built.steps, sizes.shape).astype(np.int64),
        noise_multiplier=np.asarray(sigma, dtype=float),
        epsilon=np.minimum(np.asarray(built.epsilon(d), dtype=float), e),
        delta=d,
        sampling=sampling,
    )
