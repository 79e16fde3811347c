"""Calibration in training words: the largest batch size of a DP-SGD run within a target, and the
noise multiplier per candidate batch size at a fixed compute budget."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from .. import registry, training
from ..base import validation as _validation
from ..base.elementwise import ArrayLike
from ..base.outward_text import outward_text
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
    r"""Largest batch size whose DP-SGD run (``training.DPSGD``) stays within (epsilon, delta).

    The run is fixed by the noise multiplier, the data set size and ``epochs`` (each of
    ``steps_per_epoch`` steps: fewer steps for larger batches) or ``steps``; delta grows with the
    batch size m (the sampling rate q = m / dataset_size), so the answer is

    .. math::

        m^\star = \max\{m \in \{1, \dots, n\} : \delta_m(\varepsilon) \le \delta\},

    :math:`\delta_m` the run's certified upper bound at batch size m, searched as
    ``calibrate("dp_sgd", "batch_size", ...)`` does: the answer was evaluated and met the target (a
    valid answer even where the ceilings of the steps per epoch make the bound step
    non-monotonically; then it may not be the largest such). Arrays broadcast. The sampling rate of
    a run given by its rate is ``calibrate("dp_sgd", "sample_rate", ...)``.

    Parameters
    ----------
    noise_multiplier : array_like
        Noise multiplier z > 0, as ``training.DPSGD`` takes it.
    dataset_size : array_like
        Number of records n, an integer >= 1.
    epsilon : array_like
        Target epsilon >= 0 (or ``target_epsilon``).
    delta : array_like
        Target delta in (0, 1) (or ``target_delta``).
    epochs : array_like, optional
        Passes over the data, > 0. Exactly one of ``epochs`` and ``steps``.
    steps : array_like, optional
        Steps of the run, an integer >= 1.
    sampling : {"poisson", "fixed_size", "balls_in_bins"}, default "poisson"
        How batches are drawn (shuffled batches: their upper side does not depend on the batch size,
        so there is no largest one to search).
    steps_per_epoch : {"ceil", "opacus"}, optional
        How an epoch's steps are counted, as in ``training.DPSGD``.
    value_discretization_interval : float, optional
        The PLD grid's interval, as in ``training.DPSGD``.
    accuracy : float, optional
        The PLD bracket's width, as in ``training.DPSGD`` (Poisson sampling only).
    progress : bool, default False
        As ``calibrate``'s.
    workers : int, optional
        As ``calibrate``'s.
    **targets
        ``target_epsilon`` / ``target_delta`` (Opacus's and dp_accounting's names) for ``epsilon`` /
        ``delta``.

    Returns
    -------
    int or numpy.ndarray of int64
        The batch size per broadcast point (an int for scalar input).

    Raises
    ------
    ParameterTypeError
        An unknown keyword (naming the closest one); a target missing or given twice; a string, bool
        or None where a number is expected. It is a TypeError.
    ValueError
        ``sampling="shuffle"`` or a sampling not listed; both or neither of ``epochs`` and
        ``steps``; bad run parameters or targets (naming them); a target no batch size meets (naming
        the point).

    See Also
    --------
    calibrate : The general search.
    calibrate_fixed_compute : The noise multiplier per batch size at a fixed compute budget.

    Examples
    --------
    >>> from hockeystick.calibrate import calibrate_batch_size
    >>> calibrate_batch_size(noise_multiplier=1.0, dataset_size=1000, steps=100, epsilon=3, delta=1e-5)
    42
    """
    entry = _training_entry(sampling, steps_per_epoch)
    if "batch_size" not in entry.calibratable:
        can = [
            s for s in training.SAMPLINGS if "batch_size" in _training_entry(s, None).calibratable
        ]
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
        {
            "noise_multiplier": noise_multiplier,
            "dataset_size": dataset_size,
            **_given(epochs=epochs, steps=steps),
        },
    )


@dataclasses.dataclass(frozen=True)
class _TrainingCall:
    """What ``calibrate_batch_size`` and ``calibrate_fixed_compute`` pass to ``calibrate`` alike:
    the DP-SGD entry of their ``sampling`` (``_training_entry``), the target (``epsilon``,
    ``delta``, or Opacus's and dp_accounting's names in ``targets``), the grid keywords given
    (``value_discretization_interval``, ``accuracy``) and calibrate's own ``progress`` and
    ``workers``."""

    entry: AccountantEntry
    epsilon: Any
    delta: Any
    grid: dict[str, Any]
    progress: bool
    workers: int | None
    targets: dict[str, Any]

    def calibrate(self, parameter: str, run: dict[str, Any]) -> Any:
        """``parameter`` calibrated for the run ``run`` (the accountant's other parameters, before
        the grid keywords and the targets' synonyms)."""
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
        d = _validation.delta_target(
            self.delta if self.delta is not None else self.targets["target_delta"], "delta"
        )
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
    return dataclasses.replace(
        entry, factory=functools.partial(entry.factory, steps_per_epoch=steps_per_epoch)
    )


def _given(**values: Any) -> dict[str, Any]:
    """The keywords given (not None)."""
    return {k: v for k, v in values.items() if v is not None}


@dataclasses.dataclass(frozen=True)
class FixedComputeTable:
    """Per candidate batch size at one compute budget: the steps, the noise multiplier and the epsilon of its run.

    What ``calibrate_fixed_compute`` returns: one row per batch size. ``str(table)`` prints it with
    the noise multipliers and epsilons rounded up to 6 significant digits (both are safe to round up
    only); ``rows()`` gives one dict per batch size (keys batch_size, steps, noise_multiplier,
    epsilon).

    Parameters
    ----------
    batch_size : numpy.ndarray of int64
        The candidate batch sizes.
    steps : numpy.ndarray of int64
        The steps each takes within the budget.
    noise_multiplier : numpy.ndarray of float
        The smallest noise multiplier whose run's certified upper bound meets the target
        (``calibrate``).
    epsilon : numpy.ndarray of float
        A certified upper bound on that run's epsilon at ``delta``: the least of its
        ``epsilon(delta)`` and the target epsilon (which the calibration certified).
    delta : float
        The target delta.
    sampling : str
        How batches are drawn (``training.SAMPLINGS``).

    See Also
    --------
    calibrate_fixed_compute : Builds the table.
    """

    batch_size: np.ndarray
    steps: np.ndarray
    noise_multiplier: np.ndarray
    epsilon: np.ndarray
    delta: float
    sampling: str

    def rows(self) -> list[dict[str, Any]]:
        """One dict per batch size: batch_size, steps, noise_multiplier, epsilon.

        Returns
        -------
        list of dict
            Per batch size, ``batch_size`` and ``steps`` as int, ``noise_multiplier`` and
            ``epsilon`` as float.
        """
        return [
            {
                "batch_size": int(b),
                "steps": int(t),
                "noise_multiplier": float(z),
                "epsilon": float(e),
            }
            for b, t, z, e in zip(self.batch_size, self.steps, self.noise_multiplier, self.epsilon)
        ]

    def __str__(self) -> str:
        """The table, noise multipliers and epsilons rounded up to 6 digits (``base.outward_text``: both
        are safe to round up only)."""
        head = f"{'batch_size':>10}  {'steps':>10}  {'noise_multiplier':>16}  {'epsilon':>10}"
        lines = [
            f"{b:>10}  {t:>10}  {outward_text(z, 'upper'):>16}  {outward_text(e, 'upper'):>10}"
            for b, t, z, e in zip(self.batch_size, self.steps, self.noise_multiplier, self.epsilon)
        ]
        return "\n".join([f"delta = {self.delta:g}, {self.sampling} sampling", head, *lines])


def default_batch_sizes(dataset_size: int) -> np.ndarray:
    """Candidate batch sizes ``calibrate_fixed_compute`` tries unless given: powers of two from 16 to n / 8.

    Parameters
    ----------
    dataset_size : int
        Number of records n, an integer >= 1.

    Returns
    -------
    numpy.ndarray of int64
        The powers of two 2^k, k >= 4, at most max(floor(n / 8), min(16, n)); [min(16, n)] where
        there is none.

    Raises
    ------
    ValueError
        ``dataset_size`` not an integer >= 1.
    ParameterTypeError
        ``dataset_size`` a string, bool or None.

    Examples
    --------
    >>> from hockeystick.calibrate import default_batch_sizes
    >>> default_batch_sizes(1000)
    array([16, 32, 64])
    >>> default_batch_sizes(10)
    array([10])
    """
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
    """Smallest noise multiplier meeting (epsilon, delta) for each candidate batch size at a fixed compute budget.

    The budget is ``epochs`` passes over the data (each of ``steps_per_epoch`` steps, as in
    ``training.DPSGD``: steps x batch_size stays about epochs x dataset_size) or ``examples``
    processed (steps = floor(examples / batch_size), the most whole steps within it). Each row's
    noise multiplier is calibrated as ``calibrate("dp_sgd", "noise_multiplier", ...)`` does it
    (certified: its run's upper bound meets the target), and its ``epsilon`` is a certified upper
    bound on that run's epsilon at ``delta``: the least of its ``epsilon(delta)`` and the target
    (which the calibration certified).

    Which row to train with is the caller's choice: fewer, larger batches need less noise per
    example but take fewer steps, and how that trades against the model's utility depends on the
    model and the data, which this table does not see.

    Parameters
    ----------
    dataset_size : int
        Number of records n, an integer >= 1.
    epsilon : float
        Target epsilon >= 0, one number (or ``target_epsilon``).
    delta : float
        Target delta in (0, 1), one number (or ``target_delta``).
    epochs : float, optional
        The budget as passes over the data, one number > 0. Exactly one of ``epochs`` and
        ``examples``.
    examples : int, optional
        The budget as examples processed, an integer >= 1 allowing one step of every batch size.
    batch_sizes : array_like, optional
        The candidates: a list of whole numbers in [1, n] (default
        ``default_batch_sizes(dataset_size)``).
    sampling : {"poisson", "fixed_size", "balls_in_bins", "shuffle"}, default "poisson"
        How batches are drawn, as in ``training.DPSGD``.
    steps_per_epoch : {"ceil", "opacus"}, optional
        How an epoch's steps are counted, as in ``training.DPSGD``.
    value_discretization_interval : float, optional
        The PLD grid's interval, as in ``training.DPSGD``.
    accuracy : float, optional
        The PLD bracket's width, as in ``training.DPSGD`` (Poisson sampling only).
    progress : bool, default False
        As ``calibrate``'s.
    workers : int, optional
        As ``calibrate``'s.
    **targets
        ``target_epsilon`` / ``target_delta`` for ``epsilon`` / ``delta``.

    Returns
    -------
    FixedComputeTable
        One row per batch size: its steps, noise multiplier and certified epsilon.

    Raises
    ------
    ValueError
        Both or neither of ``epochs`` and ``examples``; ``examples`` below a batch size;
        ``batch_sizes`` not a 1-D list of whole numbers in [1, n]; ``dataset_size`` not an integer
        >= 1; bad targets or run parameters (naming them); a target no noise multiplier meets.
    ParameterTypeError
        An unknown keyword (naming the closest one); ``epochs`` or a target not a single number,
        missing or given twice. It is a TypeError.

    See Also
    --------
    calibrate_batch_size : The largest batch size at a given noise multiplier.

    Examples
    --------
    >>> from hockeystick.calibrate import calibrate_fixed_compute
    >>> print(calibrate_fixed_compute(dataset_size=1000, examples=10_000, batch_sizes=[50, 100], epsilon=3, delta=1e-5))
    delta = 1e-05, poisson sampling
    batch_size       steps  noise_multiplier     epsilon
            50         200           1.28679           3
           100         100           1.67466           3
    """
    n = _validation.count(dataset_size, "dataset_size")
    sizes = (
        default_batch_sizes(n)
        if batch_sizes is None
        else np.atleast_1d(
            _validation.positive_integer(batch_sizes, "batch_sizes", maximum=n)
        ).astype(np.int64)
    )
    if sizes.ndim != 1:
        raise ValueError(
            f"batch_sizes must be a list of batch sizes, got an array of shape {sizes.shape}"
        )
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
    built = call.entry.factory(
        noise_multiplier=sigma, dataset_size=n, batch_size=sizes, **run, **call.grid
    )
    # two certified upper bounds on the run's epsilon at d: its epsilon(d), and the target, which
    # the calibration certified (delta(target) <= d was evaluated at this sigma); epsilon(d) may
    # exceed the target by its scan's resolution (~1e-9)
    return FixedComputeTable(
        batch_size=sizes,
        steps=np.broadcast_to(built.steps, sizes.shape).astype(np.int64),
        noise_multiplier=np.asarray(sigma, dtype=float),
        epsilon=np.minimum(np.asarray(built.epsilon(d), dtype=float), e),
        delta=d,
        sampling=sampling,
    )
