"""A training run's accounting: T steps of a subsampled Gaussian with noise multiplier z, on the PLD
accountant of how its batches are drawn (the table in ``hockeystick.training``'s docstring), read in
training words."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base import validation as _validation
from ..base.accountant import Bound, BoundResult
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import ArrayLike, broadcast_float_arrays
from ..base.keyword_only import positional_deprecated
from .sampling_schemes import sampling_scheme, sampling_words
from .schedule import StagedRun
from .steps import broadcast_like, ceil_ratio, steps_taken
from .user_level import UserLevelDPSGD
from .vocabulary import STEPS_PER_EPOCH, Sampling, StepsPerEpoch

if TYPE_CHECKING:
    from ..pld.accountants import (
        BallsInBinsGaussianPLD,
        FixedBatchGaussianPLD,
        ShuffledBatchGaussianPLD,
        SubsampledGaussianPLD,
    )
    from ..pld.reads import CurveAlongRun

    _Accountant = (
        SubsampledGaussianPLD
        | FixedBatchGaussianPLD
        | BallsInBinsGaussianPLD
        | ShuffledBatchGaussianPLD
        | StagedRun
        | UserLevelDPSGD
    )


def _constructor_keywords(method: Callable[..., Any]) -> Callable[..., Any]:
    """A keyword the method does not take but the run's constructor does (``accuracy``, ``tail``,
    ...) is refused with a TypeError saying it belongs to the constructor: the grid and its accuracy
    are fixed when the run is built, and every read of the run answers on them."""
    own = inspect.signature(method).parameters

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        unknown = [word for word in kwargs if word not in own]
        built = inspect.signature(type(self)).parameters if unknown else {}
        misplaced = [word for word in unknown if word in built]
        if misplaced:
            word, cls = misplaced[0], type(self).__name__
            raise TypeError(
                f"{cls}.{method.__name__}() got an unexpected keyword argument {word!r}: {word} belongs to the "
                f"constructor, which fixes the run's grid for every read; build the run with it, "
                f"{cls}(..., {word}={kwargs[word]!r}), then call {method.__name__}() without it"
            )
        return method(self, *args, **kwargs)

    return wrapper


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class _SubsampledTraining:
    """Shared by DP-SGD and DP-FedAvg: T steps of a subsampled Gaussian with multiplier z.

    ``names``: the population, batch, epochs and steps words of the subclass."""

    def __init__(
        self,
        noise_multiplier: ArrayLike,
        population: ArrayLike | None,
        batch: ArrayLike | None,
        sample_rate: ArrayLike | None,
        epochs: ArrayLike | None,
        steps: ArrayLike | None,
        steps_per_epoch: StepsPerEpoch | None,
        names: tuple[str, str, str, str],
        sampling: Sampling,
        value_discretization_interval: float | None,
        accuracy: float | None,
        tail: float | None = None,
    ):
        if steps_per_epoch is not None:
            _validation.choice(steps_per_epoch, "steps_per_epoch", STEPS_PER_EPOCH)
        _validation.choice(sampling, "sampling", sampling_words())
        if tail is not None:  # refused before the sampling's own checks, for every sampling
            from ..pld.mechanisms import checked_tail

            tail = checked_tail(tail)
        z = np.asarray(
            noise_multiplier, dtype=np.float64
        )  # checked by DPSGD / DPFedAvg: finite, > 0
        if sample_rate is not None:
            self._by_rate(sample_rate, population, batch, steps_per_epoch, names, sampling)
            self._from_rate(
                z, sample_rate, epochs, steps, names, value_discretization_interval, accuracy, tail
            )
        else:
            self._from_batches(
                z,
                population,
                batch,
                epochs,
                steps,
                steps_per_epoch,
                names,
                sampling,
                value_discretization_interval,
                accuracy,
                tail,
            )
        self.sampling = sampling

    def _from_rate(
        self,
        z: np.ndarray,
        sample_rate: ArrayLike,
        epochs: ArrayLike | None,
        steps: ArrayLike | None,
        names: tuple[str, str, str, str],
        value_discretization_interval: float | None,
        accuracy: float | None,
        tail: float | None,
    ) -> None:
        """A Poisson run given by its rate q: 1 / q steps per epoch (the "opacus" count, as the ratio (1, q))."""
        q = _validation.in_interval(
            sample_rate, "sample_rate", 0.0, 1.0, open_low=True, open_high=False
        )
        (z, q), _, _ = broadcast_float_arrays(noise_multiplier=z, sample_rate=q)
        one = np.ones_like(q)
        t = steps_taken(epochs, steps, (one, q), names[2:], "a larger sample_rate")
        from ..pld.accountants import SubsampledGaussianPLD

        self._accountant: _Accountant = SubsampledGaussianPLD(
            sigma=z,
            sampling_rate=q,
            rounds=t,
            value_discretization_interval=value_discretization_interval,
            accuracy=accuracy,
            tail=tail,
        )
        self.noise_multiplier, self.steps = z, t
        self._epoch_ratio = (broadcast_like(one, t), broadcast_like(q, t))

    def _from_batches(
        self,
        z: np.ndarray,
        population: ArrayLike | None,
        batch: ArrayLike | None,
        epochs: ArrayLike | None,
        steps: ArrayLike | None,
        steps_per_epoch: StepsPerEpoch | None,
        names: tuple[str, str, str, str],
        sampling: Sampling,
        value_discretization_interval: float | None,
        accuracy: float | None,
        tail: float | None,
    ) -> None:
        """A run given by its population n and batch m: Poisson sampling at q = m / n, or the
        accountant of how its batches are drawn (its scheme's ``drawn_batches``)."""
        if population is None or batch is None:
            raise ValueError(
                f"give {names[0]} and {names[1]} (or, for Poisson sampling, sample_rate); "
                f"missing: {' and '.join(n for n, v in zip(names[:2], (population, batch)) if v is None)}"
            )
        (z, n, m), _, _ = broadcast_float_arrays(
            noise_multiplier=z,
            **{
                names[0]: _validation.positive_integer(
                    population, names[0], maximum=_validation.MAX_EXACT_INTEGER
                ),
                names[1]: _validation.positive_integer(
                    batch, names[1], maximum=_validation.MAX_EXACT_INTEGER
                ),
            },
        )
        if np.any(m > n):
            raise ValueError(
                f"{names[1]} must be <= {names[0]}, got {names[1]} {m[m > n].ravel()[0]:g} > {n[m > n].ravel()[0]:g}"
            )
        # steps per epoch as the exact ratio a / b: ceil(n / m) / 1, or n / m
        per_epoch = (
            (-np.floor_divide(-n, m), np.ones_like(n)) if steps_per_epoch != "opacus" else (n, m)
        )
        t = steps_taken(epochs, steps, per_epoch, names[2:])
        drawn_batches = sampling_scheme(sampling).drawn_batches
        if drawn_batches is None:
            from ..pld.accountants import SubsampledGaussianPLD

            self._accountant = SubsampledGaussianPLD(
                sigma=z,
                sampling_rate=m / n,
                rounds=t,
                value_discretization_interval=value_discretization_interval,
                accuracy=accuracy,
                tail=tail,
            )
        else:
            self._check_drawn(sampling, steps_per_epoch, accuracy, tail, names)
            grid = (
                {}
                if value_discretization_interval is None
                else {"value_discretization_interval": value_discretization_interval}
            )
            self._accountant = drawn_batches(z, m, n, t, per_epoch, grid)
        self.noise_multiplier, self.steps = z, t
        self._epoch_ratio = (broadcast_like(per_epoch[0], t), broadcast_like(per_epoch[1], t))

    @staticmethod
    def _check_drawn(
        sampling: Sampling,
        steps_per_epoch: StepsPerEpoch | None,
        accuracy: float | None,
        tail: float | None,
        names: tuple[str, ...],
    ) -> None:
        """The rules of batches drawn otherwise than by Poisson sampling: their grid is given by its
        interval, and a scheme placing every record in one step of each epoch (balls-in-bins,
        shuffled batches) takes ceil(population / batch) steps per epoch."""
        for word, value in (("accuracy", accuracy), ("tail", tail)):
            if value is not None:
                raise ValueError(
                    f'{word} is available with sampling="poisson"; for "{sampling}" give value_discretization_interval'
                )
        if sampling_scheme(sampling).every_record_each_epoch and steps_per_epoch == "opacus":
            raise ValueError(
                f'sampling="{sampling}" has ceil({names[0]} / {names[1]}) steps per epoch (every record in one '
                f'of them): steps_per_epoch="opacus" (1 / q) does not describe it; leave steps_per_epoch unset'
            )

    @staticmethod
    def _by_rate(
        sample_rate: ArrayLike,
        population: ArrayLike | None,
        batch: ArrayLike | None,
        steps_per_epoch: StepsPerEpoch | None,
        names: tuple[str, str, str, str],
        sampling: Sampling,
    ) -> None:
        """The rules of a run given by its sampling rate: Poisson sampling, 1 / q steps per epoch, no batch words."""
        if population is not None or batch is not None:
            raise ValueError(
                f"give sample_rate or {names[0]} and {names[1]}, not both (q = {names[1]} / {names[0]})"
            )
        if sampling_scheme(sampling).drawn_batches is not None:
            raise ValueError(
                f'sampling="{sampling}" is described by {names[0]} and {names[1]}: give those, '
                "not sample_rate (a rate describes Poisson subsampling)"
            )
        if steps_per_epoch == "ceil":
            raise ValueError(
                f'steps_per_epoch="ceil" counts ceil({names[0]} / {names[1]}) steps per epoch: give {names[0]} '
                f'and {names[1]}, or steps_per_epoch="opacus" (1 / sample_rate steps per epoch)'
            )

    def _staged(self, run: StagedRun) -> None:
        """A run of stages (``schedule``): its noise multiplier one per stage, its steps the total."""
        self._accountant = run
        self.noise_multiplier = np.array([s.noise_multiplier for s in run.stages])
        self.steps = np.array(float(run.steps))
        self._epoch_ratio = (
            np.asarray(run.steps_per_epoch_ratio[0]),
            np.asarray(run.steps_per_epoch_ratio[1]),
        )
        self.sampling = "poisson"

    @_constructor_keywords
    @positional_deprecated("bound")
    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> BoundResult:
        r"""Certified bound on delta(epsilon) of the whole run.

        :math:`\delta(\varepsilon)` is the hockey-stick divergence :math:`E_{e^\varepsilon}` of the
        run's T-step composition, maximized over the neighbouring relation's two directions (the
        class docstring); the bounds are certified on the PLD accountant of how the batches are
        drawn.

        Raises
        ------
        ValueError
            A noise multiplier whose PLD grid the accountant refuses (the message names
            ``noise_multiplier``).
        """
        with _in_training_words():
            return self._accountant.delta(epsilon, bound=bound)

    @_constructor_keywords
    @positional_deprecated("bound")
    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> BoundResult:
        r"""Certified bound on the smallest epsilon at which the whole run is (epsilon, delta)-DP.

        :math:`\varepsilon(\delta) = \inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le \delta\}` of
        the run's privacy profile ``delta``; the upper side is the smallest epsilon whose certified
        upper delta bound is <= delta.

        Raises
        ------
        ValueError
            A noise multiplier whose PLD grid the accountant refuses (the message names
            ``noise_multiplier``).
        """
        with _in_training_words():
            return self._accountant.epsilon(delta, bound=bound)

    @_constructor_keywords
    def epsilon_curve(
        self, delta: float, *, every: int | None = None, steps: ArrayLike | None = None
    ) -> CurveAlongRun:
        """Certified bracket of epsilon at ``delta`` after each checkpoint of the run (by default each epoch).

        Each point is ``epsilon(delta, bound="both")`` of this run stopped at that step (to the
        round-off of shared transforms, each certified), all of them in one evaluation
        (``pld.along_run``: one discretization, the checkpoints' compositions batched). One run:
        every parameter a single value.

        Parameters
        ----------
        delta : float
            0 < delta < 1, one number.
        every : int, optional
            A checkpoint every ``every`` steps (an integer >= 1), and the last step.
        steps : array_like, optional
            The checkpoints: whole numbers in [1, the run's steps], strictly increasing, at
            most 100000. At most one of ``every`` and ``steps``; neither: the last step of each whole
            epoch k (the steps ``epochs=k`` runs) and the run's last step.

        Returns
        -------
        CurveAlongRun
            Arrays ``steps`` (int64), ``epochs`` (steps over the steps per epoch), ``lower`` and
            ``upper`` (certified bounds on epsilon), one entry per checkpoint.

        Raises
        ------
        ValueError
            A run of several points (array parameters); ``delta`` outside (0, 1); both ``every`` and
            ``steps``; ``every`` not an integer >= 1 or leaving more than 100000 checkpoints;
            ``steps`` not strictly increasing whole numbers within the run; more than 100000 epochs
            without ``every`` or ``steps``.
        ParameterTypeError
            ``delta`` not a single number.

        Examples
        --------
        >>> from hockeystick.training import DPSGD
        >>> run = DPSGD(dataset_size=1000, batch_size=100, epochs=3, noise_multiplier=1.0)
        >>> curve = run.epsilon_curve(1e-5)
        >>> curve.steps, curve.epochs
        (array([10, 20, 30]), array([1., 2., 3.]))
        >>> curve.upper.round(3)
        array([2.855, 3.591, 4.178])
        """
        with _in_training_words():
            curve = self._accountant.epsilon_curve(
                delta, steps=self.checkpoints(every=every, steps=steps)
            )
        return dataclasses.replace(curve, steps_per_epoch=self._epoch_length())

    @_constructor_keywords
    def delta_curve(
        self, epsilon: float, *, every: int | None = None, steps: ArrayLike | None = None
    ) -> CurveAlongRun:
        """Certified bracket of delta at ``epsilon`` after each checkpoint of the run (``epsilon_curve``'s twin).

        Parameters
        ----------
        epsilon : float
            epsilon >= 0, one number.
        every : int, optional
            As in ``epsilon_curve``.
        steps : array_like, optional
            As in ``epsilon_curve``.

        Returns
        -------
        CurveAlongRun
            Arrays ``steps``, ``epochs``, ``lower`` and ``upper`` (certified bounds on delta).

        Raises
        ------
        ValueError
            As ``epsilon_curve``'s, with ``epsilon`` negative or NaN for ``delta``'s range.
        ParameterTypeError
            ``epsilon`` not a single number.
        """
        with _in_training_words():
            curve = self._accountant.delta_curve(
                epsilon, steps=self.checkpoints(every=every, steps=steps)
            )
        return dataclasses.replace(curve, steps_per_epoch=self._epoch_length())

    def _epoch_length(self) -> float:
        """Steps per epoch, a / b rounded (``steps_per_epoch``: ceil(n / m), or n / m = 1 / q)."""
        a, b = (float(np.ravel(x)[0]) for x in self._epoch_ratio)
        return a / b

    @property
    def accountant(self) -> _Accountant:
        """The accountant of the run's sampling, the one ``delta`` and ``epsilon`` ask.

        Returns
        -------
        SubsampledGaussianPLD or the accountant of how the batches are drawn
            Poisson sampling: ``pld.SubsampledGaussianPLD`` at rate q for the run's steps; batches
            drawn otherwise: the accountant ``sampling`` names (balls-in-bins, shuffled, fixed-size
            batches).
        """
        return self._accountant

    @property
    def steps_per_epoch_ratio(self) -> tuple[np.ndarray, np.ndarray]:
        """Steps per epoch as the exact ratio a / b, each broadcast to ``steps``' shape.

        Returns
        -------
        tuple of numpy.ndarray
            (a, b): (ceil(n / m), 1) with ``steps_per_epoch="ceil"``, (n, m) with ``"opacus"``, and
            (1, q) for a run given by its sampling rate; epoch k ends at step ceil(k a / b).
        """
        return self._epoch_ratio

    def checkpoints(
        self, *, every: int | None = None, steps: ArrayLike | None = None
    ) -> np.ndarray:
        """The steps at which ``epsilon_curve`` and ``delta_curve`` evaluate the run.

        Every ``every`` steps, or ``steps``, or else the last step of each whole epoch k, ceil(k a
        / b) of the exact epoch ratio a / b (the steps ``epochs=k`` runs), and the run's last step
        (``pld.along_run.checkpoints``).

        Parameters
        ----------
        every : int, optional
            A checkpoint every ``every`` steps (an integer >= 1), and the last step.
        steps : array_like, optional
            The checkpoints themselves: whole numbers in [1, the run's steps], strictly increasing.

        Returns
        -------
        numpy.ndarray of int64
            The checkpoints, strictly increasing, the last one the run's last step unless ``steps``
            is given.

        Raises
        ------
        ValueError
            As ``epsilon_curve``'s (for the run and the checkpoints).

        Examples
        --------
        >>> from hockeystick.training import DPSGD
        >>> run = DPSGD(dataset_size=1000, batch_size=300, epochs=2.5, noise_multiplier=1.0)
        >>> run.checkpoints(), run.checkpoints(every=3)
        (array([ 4,  8, 10]), array([ 3,  6,  9, 10]))
        """
        from ..pld.reads import MAX_CHECKPOINTS, checkpoints

        if isinstance(self._accountant, StagedRun):
            return self._accountant.checkpoints(every, steps)
        if any(np.size(x) != 1 for x in (self.noise_multiplier, self.steps, *self._epoch_ratio)):
            raise ValueError(
                "a curve along the run needs one run: give single values of the noise multiplier, the data set "
                "(clients) and batch sizes and the epochs (steps, rounds); loop over the runs for several"
            )
        total = int(np.ravel(self.steps)[0])
        if every is not None or steps is not None:
            return checkpoints(total, every, steps)
        a, b = (float(np.ravel(x)[0]) for x in self._epoch_ratio)
        count = (
            math.floor(total * b / a) + 1
        )  # at least the whole epochs in the run (the rounding: one more)
        if count > MAX_CHECKPOINTS:
            raise ValueError(
                f"one checkpoint per epoch gives {count - 1} or more, above {MAX_CHECKPOINTS}: give every="
                "(a checkpoint every so many steps) or steps="
            )
        ends = ceil_ratio(np.arange(1.0, count + 1.0), np.full(count, a), np.full(count, b))
        return np.union1d(ends[ends <= total], [total]).astype(np.int64)


@contextlib.contextmanager
def _in_training_words() -> Iterator[None]:
    """A PLD's refusal of its grid at a noise multiplier (its ``sigma``, over sensitivity 1) names
    the argument the caller gave: noise_multiplier."""
    try:
        yield
    except ValueError as error:
        if "sigma / sensitivity" not in str(error):
            raise
        raise ValueError(f"noise_multiplier (the PLD's sigma, sensitivity 1): {error}") from None
