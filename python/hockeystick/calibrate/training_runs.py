"""Calibration in training words: the largest batch size of a DP-SGD run within a target, and the noise multiplier
per candidate batch size at a fixed compute budget."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from .. import registry, training
from ..base import validation as _validation
from ..base.elementwise import ArrayLike
from ..registry import AccountantEntry
from .extreme import calibrate
from .vocabulary import TARGET_SYNONYMS


@_validation.known_keywords("calibrate_batch_size", *TARGET_SYNONYMS)
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


@_validation.known_keywords("calibrate_fixed_compute", *TARGET_SYNONYMS)
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
