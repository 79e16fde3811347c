"""DP-SGD and DP-FedAvg in the words their users speak: data set, batch, epochs, noise multiplier.

Both algorithms add N(0, (z C)^2 I) to a sum of contributions each clipped to norm C and
release every step, so each step is a subsampled Gaussian mechanism with noise multiplier z
(Abadi et al. 2016, "Deep learning with differential privacy", Alg. 1; McMahan et al. 2018,
"Learning differentially private recurrent language models", DP-FedAvg with user-level
clipping).  These classes translate the training vocabulary onto the PLD accountants and
follow the accountant contract (keyword parameters that broadcast, ``.delta(epsilon)`` and
``.epsilon(delta)`` returning certified upper bounds, ``bound="lower"`` / ``"both"`` for the
certified lower side):

======================  =========================================  ===========================================
sampling                one step                                    accountant (neighbouring relation)
======================  =========================================  ===========================================
``"poisson"``           each record (client) joins with             ``pld.SubsampledGaussianPLD``,
                        probability q = batch_size / dataset_size   sigma = z, add-or-remove-one
``"fixed_size"``        a uniformly random batch of exactly          ``pld.FixedBatchGaussianPLD``,
                        batch_size records, drawn anew each step    sigma = z, sensitivity 1, replace-one
``"balls_in_bins"``     each epoch, each record joins one of its     ``pld.BallsInBinsGaussianPLD``,
                        ceil(dataset_size / batch_size) steps,      sigma = z, add-or-remove-one
                        chosen uniformly (random allocation)
``"shuffle"``           each epoch, a fresh permutation cut into     ``pld.ShuffledBatchGaussianPLD``,
                        batches of batch_size                       sigma = z, replace-one
======================  =========================================  ===========================================

``"shuffle"`` is what most training loops do; its certified bracket is wide (its upper side is the
Gaussian of shift 2 per epoch begun: no amplification by shuffling is proved for adaptive steps), and its
lower side, a realized pair (the balls-in-bins pair at shift 2), lies far above the Poisson number usually
reported for it.  ``"balls_in_bins"`` costs the same to implement
and is certified on both sides, about as private as Poisson sampling (docs/batches.md).

Under replace-one the replaced record moves the clipped sum by up to 2C, so hockeystick's
``sensitivity = 1`` (one record's contribution, in units of C) is dp_accounting's
replace-one sensitivity 2: a dp_accounting ``GaussianDpEvent(noise_multiplier=z)`` inside a
REPLACE_ONE ``SampledWithoutReplacementDpEvent`` describes noise z relative to the
replace-one sensitivity, i.e. hockeystick ``sigma = 2 z`` with ``sensitivity = 1``.

Sampling rate: ``dataset_size`` and ``batch_size`` give q = batch_size / dataset_size; Poisson sampling
may be given by its rate alone instead, as ``sample_rate`` (Opacus's word; dp_accounting's
``sampling_probability`` and the accountants' ``sampling_rate`` are accepted as synonyms), which is all
the accounting needs with ``steps``.

Steps: ``steps`` directly (whole numbers: 2.5 is refused, not rounded), or ``epochs`` passes over the
data, each of a number of steps ``steps_per_epoch`` names:

=============  ==========================================  ================================================
steps_per_epoch  steps per epoch                             steps for ``epochs``
=============  ==========================================  ================================================
``"ceil"``     ceil(dataset_size / batch_size): the          ceil(epochs * ceil(dataset_size / batch_size))
               batches of a loader that keeps the last,
               partial batch (default with ``batch_size``)
``"opacus"``   1 / q = dataset_size / batch_size: the        ceil(epochs / q) (Opacus's and dp_accounting's
               expected count of Poisson batches (the only   count, which Opacus truncates)
               meaning with ``sample_rate``, its default)
=============  ==========================================  ================================================

Each count is the ceiling of the exact product or quotient of the numbers given (the rounding up
never understates the steps taken, so never the privacy spent).  The two conventions answer the
same question differently only through the steps they count: 60 epochs of batches of 256 out of
60000 records are 14100 steps under "ceil" and 14063 under "opacus".
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from ..base import validation as _validation
from ..base.elementwise import ArrayLike, broadcast_float_arrays
from ..numerics.hockey_stick import theta_radius
from ..pld.accountants.allocation import BallsInBinsGaussianPLD, ShuffledBatchGaussianPLD, shuffled_radius
from ..pld.accountants.fixed_batch import FixedBatchGaussianPLD
from ..pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from ..pld.compose.distribution import Bound, Result
from ..pld.reads import along_run
from ..pld.reads.along_run import CurveAlongRun
from ..pld.refine.calibration_start import calibration_grids as pld_calibration_grids
from ..pld.refine.calibration_start import calibration_start as pld_calibration_start

__all__ = ["DPSGD", "DPFedAvg", "Sampling", "StepsPerEpoch", "STEPS_PER_EPOCH", "SAMPLE_RATE_SYNONYMS"]

Sampling = Literal["poisson", "fixed_size", "balls_in_bins", "shuffle"]
SAMPLINGS: tuple[Sampling, ...] = ("poisson", "fixed_size", "balls_in_bins", "shuffle")
StepsPerEpoch = Literal["ceil", "opacus"]
STEPS_PER_EPOCH: tuple[StepsPerEpoch, ...] = ("ceil", "opacus")
_Accountant = SubsampledGaussianPLD | FixedBatchGaussianPLD | BallsInBinsGaussianPLD | ShuffledBatchGaussianPLD
# the sampling rate q in the other vocabularies: dp_accounting's and the accountants' (docs/vocabulary.md)
SAMPLE_RATE_SYNONYMS = {"sampling_probability": "sample_rate", "sampling_rate": "sample_rate"}


def _steps(
    epochs: ArrayLike | None,
    steps: ArrayLike | None,
    per_epoch: tuple[np.ndarray, np.ndarray],
    names: tuple[str, str],
    fewer: str = "larger batches",
) -> np.ndarray:
    """Steps taken: given (whole numbers), or ceil(epochs * a / b) of the exact product for
    ``per_epoch`` = (a, b), the steps per epoch as the exact ratio of two doubles (``fewer``: what else
    gives fewer steps, for the refusal of more than 2^53)."""
    if (epochs is None) == (steps is None):
        raise ValueError(f"give exactly one of {names[0]} and {names[1]}")
    if steps is not None:
        return _validation.positive_integer(steps, names[1], maximum=_validation.MAX_EXACT_INTEGER)
    assert epochs is not None  # exactly one of the two was given
    e = _validation.positive(epochs, names[0])
    t = _ceil_ratio(*np.broadcast_arrays(e, *per_epoch))
    too_many = ~(t <= _validation.MAX_EXACT_INTEGER)
    if too_many.any():
        i = np.flatnonzero(np.ravel(too_many))[0]
        raise ValueError(
            f"{names[0]} must give at most 2^53 {names[1]}, got {names[0]} = "
            f"{np.ravel(np.broadcast_to(e, t.shape))[i]:g}, {np.ravel(t)[i]:.4g} {names[1]}; "
            f"give fewer {names[0]} or {fewer}"
        )
    return t


def _like(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``x`` broadcast with the steps ``t`` (read-only)."""
    return np.broadcast_to(x, np.broadcast_shapes(np.shape(x), np.shape(t)))


# a rounded x a / b (two roundings) lies within this relative distance of the exact value, with room to spare
_NEAR_WHOLE = 1e-12


def _ceil_ratio(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ceil(x a / b) of the exact value for doubles x, a, b > 0 (not of its rounding): the rounded value p
    is within 2 ulps of it, so p's ceiling is exact unless p lies within ``_NEAR_WHOLE`` of a whole number;
    only there is the exact value formed (as fractions)."""
    with np.errstate(over="ignore", under="ignore"):
        p = x * a / b
    out = np.array(np.ceil(p), dtype=float)  # an array even for 0-d input (its .flat is written below)
    near = np.isfinite(p) & (np.abs(p - np.round(p)) <= _NEAR_WHOLE * np.maximum(p, 1.0))
    for i in np.flatnonzero(near):
        exact = Fraction(float(x.flat[i])) * Fraction(float(a.flat[i])) / Fraction(float(b.flat[i]))
        out.flat[i] = float(math.ceil(exact))
    return out


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
    ):
        if steps_per_epoch is not None:
            _validation.choice(steps_per_epoch, "steps_per_epoch", STEPS_PER_EPOCH)
        _validation.choice(sampling, "sampling", SAMPLINGS)
        z = _validation.positive(noise_multiplier, "noise_multiplier")
        if sample_rate is not None:
            self._by_rate(sample_rate, population, batch, steps_per_epoch, names, sampling)
            q = _validation.in_interval(sample_rate, "sample_rate", 0.0, 1.0, open_low=True, open_high=False)
            (z, q), _, _ = broadcast_float_arrays(noise_multiplier=z, sample_rate=q)
            one = np.ones_like(q)
            t = _steps(epochs, steps, (one, q), names[2:], "a larger sample_rate")
            self._accountant: _Accountant = SubsampledGaussianPLD(
                sigma=z,
                sampling_rate=q,
                rounds=t,
                value_discretization_interval=value_discretization_interval,
                accuracy=accuracy,
            )
            self.noise_multiplier, self.steps, self.sampling = z, t, sampling
            self._epoch_ratio = (_like(one, t), _like(q, t))  # 1 / q: the "opacus" count, as the ratio (a, b)
            return
        if population is None or batch is None:
            raise ValueError(
                f"give {names[0]} and {names[1]} (or, for Poisson sampling, sample_rate); "
                f"missing: {' and '.join(n for n, v in zip(names[:2], (population, batch)) if v is None)}"
            )
        (z, n, m), _, _ = broadcast_float_arrays(
            noise_multiplier=z,
            **{
                names[0]: _validation.positive_integer(population, names[0], maximum=_validation.MAX_EXACT_INTEGER),
                names[1]: _validation.positive_integer(batch, names[1], maximum=_validation.MAX_EXACT_INTEGER),
            },
        )
        if np.any(m > n):
            raise ValueError(
                f"{names[1]} must be <= {names[0]}, got {names[1]} {m[m > n].ravel()[0]:g} > {n[m > n].ravel()[0]:g}"
            )
        # steps per epoch as the exact ratio a / b: ceil(n / m) / 1, or n / m
        per_epoch = (-np.floor_divide(-n, m), np.ones_like(n)) if steps_per_epoch != "opacus" else (n, m)
        t = _steps(epochs, steps, per_epoch, names[2:])
        if sampling == "poisson":
            self._accountant = SubsampledGaussianPLD(
                sigma=z,
                sampling_rate=m / n,
                rounds=t,
                value_discretization_interval=value_discretization_interval,
                accuracy=accuracy,
            )
        else:
            if accuracy is not None:
                raise ValueError(
                    f'accuracy is available with sampling="poisson"; for "{sampling}" give '
                    "value_discretization_interval"
                )
            if sampling in ("balls_in_bins", "shuffle") and steps_per_epoch == "opacus":
                raise ValueError(
                    f'sampling="{sampling}" has ceil({names[0]} / {names[1]}) steps per epoch (every record in one '
                    f'of them): steps_per_epoch="opacus" (1 / q) does not describe it; leave steps_per_epoch unset'
                )
            extra = (
                {}
                if value_discretization_interval is None
                else {"value_discretization_interval": value_discretization_interval}
            )
            if sampling == "fixed_size":
                self._accountant = FixedBatchGaussianPLD(sigma=z, batch_size=m, n=n, rounds=t, **extra)
            elif sampling == "balls_in_bins":
                self._accountant = BallsInBinsGaussianPLD(sigma=z, steps_per_epoch=per_epoch[0], rounds=t, **extra)
            else:
                self._accountant = ShuffledBatchGaussianPLD(sigma=z, batch_size=m, n=n, rounds=t, **extra)
        self.noise_multiplier, self.steps, self.sampling = z, t, sampling
        self._epoch_ratio = (_like(per_epoch[0], t), _like(per_epoch[1], t))  # ceil(n / m) / 1, or n / m

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
            raise ValueError(f"give sample_rate or {names[0]} and {names[1]}, not both (q = {names[1]} / {names[0]})")
        if sampling != "poisson":
            raise ValueError(
                f'sampling="{sampling}" is described by {names[0]} and {names[1]}: give those, '
                "not sample_rate (a rate describes Poisson subsampling)"
            )
        if steps_per_epoch == "ceil":
            raise ValueError(
                f'steps_per_epoch="ceil" counts ceil({names[0]} / {names[1]}) steps per epoch: give {names[0]} '
                f'and {names[1]}, or steps_per_epoch="opacus" (1 / sample_rate steps per epoch)'
            )

    def delta(self, epsilon: ArrayLike, bound: Bound = "upper") -> Result:
        """Certified upper bound on delta(epsilon) over the whole run (``bound="lower"``/``"both"``)."""
        with _in_training_words():
            return self._accountant.delta(epsilon, bound)

    def epsilon(self, delta: ArrayLike, bound: Bound = "upper") -> Result:
        """Smallest epsilon whose certified delta bound is <= delta (``bound="lower"``/``"both"``)."""
        with _in_training_words():
            return self._accountant.epsilon(delta, bound)

    def epsilon_curve(self, delta: float, *, every: int | None = None, steps: ArrayLike | None = None) -> CurveAlongRun:
        """The certified bracket of epsilon at ``delta`` after every epoch of the run (and its last step), or after
        every ``every`` steps (and the last), or after each of ``steps`` (strictly increasing, at most the run's):
        a ``CurveAlongRun`` with arrays ``steps``, ``epochs``, ``lower``, ``upper``.  Each point is
        ``epsilon(delta, bound="both")`` of this run stopped at that step (to the round-off of shared transforms,
        each certified), all of them in one evaluation (``pld.along_run``: one discretization, the checkpoints'
        compositions batched).  One run: every parameter a single value."""
        with _in_training_words():
            curve = self._accountant.epsilon_curve(delta, steps=self.checkpoints(every=every, steps=steps))
        return dataclasses.replace(curve, steps_per_epoch=self._epoch_length())

    def delta_curve(self, epsilon: float, *, every: int | None = None, steps: ArrayLike | None = None) -> CurveAlongRun:
        """``epsilon_curve``'s twin: the certified bracket of delta at ``epsilon`` after each checkpoint."""
        with _in_training_words():
            curve = self._accountant.delta_curve(epsilon, steps=self.checkpoints(every=every, steps=steps))
        return dataclasses.replace(curve, steps_per_epoch=self._epoch_length())

    def _epoch_length(self) -> float:
        """Steps per epoch, a / b rounded (``steps_per_epoch``: ceil(n / m), or n / m = 1 / q)."""
        a, b = (float(np.ravel(x)[0]) for x in self._epoch_ratio)
        return a / b

    def checkpoints(self, *, every: int | None = None, steps: ArrayLike | None = None) -> np.ndarray:
        """The steps ``epsilon_curve`` evaluates (``pld.along_run.checkpoints``): every ``every`` steps, or ``steps``,
        or else the last step of each whole epoch k, ceil(k a / b) of the exact epoch ratio (the steps ``epochs=k``
        runs), and the run's last step."""
        if any(np.size(x) != 1 for x in (self.noise_multiplier, self.steps, *self._epoch_ratio)):
            raise ValueError(
                "a curve along the run needs one run: give single values of the noise multiplier, the data set "
                "(clients) and batch sizes and the epochs (steps, rounds); loop over the runs for several"
            )
        total = int(np.ravel(self.steps)[0])
        if every is not None or steps is not None:
            return along_run.checkpoints(total, every, steps)
        a, b = (float(np.ravel(x)[0]) for x in self._epoch_ratio)
        count = math.floor(total * b / a) + 1  # at least the whole epochs in the run (the rounding: one more)
        if count > along_run.MAX_CHECKPOINTS:
            raise ValueError(
                f"one checkpoint per epoch gives {count - 1} or more, above {along_run.MAX_CHECKPOINTS}: give every="
                "(a checkpoint every so many steps) or steps="
            )
        ends = _ceil_ratio(np.arange(1.0, count + 1.0), np.full(count, a), np.full(count, b))
        return np.union1d(ends[ends <= total], [total]).astype(np.int64)


_LARGEST_EPSILON = 1e307  # theta_radius's largest epsilon


def _poisson_start(epsilon: np.ndarray, delta: np.ndarray, rate: np.ndarray, steps: np.ndarray) -> np.ndarray | None:
    """The subsampled Gaussian's central-limit noise 1 / sqrt(log(1 + mu^2 / (q^2 T))) per target, or None where
    some target has none (mu^2 / (q^2 T) not a finite double: a target all but every noise meets, epsilon near
    1e307), so that calibrate starts at 1 on the run's grid without coarse grids."""
    mu = np.asarray(theta_radius(np.asarray(epsilon, float), np.asarray(delta, float)), float)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = mu * mu / (rate * rate * steps)
    if not np.all(np.isfinite(ratio) & (ratio > 0)):
        return None
    return pld_calibration_start("sigma", epsilon, delta, {"sampling_rate": rate, "rounds": steps})


def epoch_noise_start(sampling: Sampling, names: tuple[str, str, str, str]) -> Callable[..., np.ndarray | None]:
    """``calibrate``'s start for the noise multiplier of a Poisson, balls-in-bins or shuffled run (``names``: the
    population, batch, epochs and steps words).  Poisson sampling at the central-limit value of its subsampled
    Gaussian (``pld.refine.calibration_start``: rate batch / population, or the ``sample_rate`` given, over the
    steps); balls-in-bins at the central-limit value of Poisson sampling at rate 1 / t (t = ceil(population /
    batch) steps per epoch, which it follows closely: docs/batches.md); shuffled batches at the exact noise of
    their upper side, the Gaussian of shift 2 per epoch begun.  Only the start: the answer is bracketed and
    checked on the accountant itself.

    Parameters
    ----------
    sampling : str
        "poisson", "balls_in_bins" or "shuffle".
    names : tuple of str
        The population, batch, epochs and steps words of the run's class.

    Returns
    -------
    Callable
        ``start(parameter, epsilon, delta, params)``: the estimate per target, or None for another parameter or
        a run it cannot read (no population and batch, nor a sample_rate for Poisson sampling).
    """

    def start(parameter: str, epsilon: np.ndarray, delta: np.ndarray, params: dict[str, Any]) -> np.ndarray | None:
        if parameter != "noise_multiplier":
            return None
        # the radius solve forms 2 epsilon: a target past 1e307 starts where 1e307 would (all but no noise)
        epsilon = np.minimum(np.asarray(epsilon, float), _LARGEST_EPSILON)
        if sampling == "poisson" and params.get("sample_rate") is not None:
            rate = np.asarray(params["sample_rate"], float)
            if params.get(names[3]) is not None:
                taken = np.asarray(params[names[3]], float)
            elif params.get(names[2]) is not None:
                taken = np.ceil(np.asarray(params[names[2]], float) / rate)  # 1 / q steps per epoch
            else:
                return None
            return _poisson_start(epsilon, delta, rate, taken)
        if names[0] not in params or names[1] not in params:
            return None
        per_epoch = np.ceil(np.asarray(params[names[0]], float) / np.asarray(params[names[1]], float))
        if params.get(names[3]) is not None:
            steps = np.asarray(params[names[3]], float)
        else:
            steps = np.ceil(np.asarray(params.get(names[2], 1.0), float) * per_epoch)
        if sampling == "poisson":
            rate = np.asarray(params[names[1]], float) / np.asarray(params[names[0]], float)
            return _poisson_start(epsilon, delta, rate, steps)
        if sampling == "shuffle":
            mu = np.asarray(theta_radius(np.asarray(epsilon, float), np.asarray(delta, float)), float)
            with np.errstate(divide="ignore", invalid="ignore"):
                guess = shuffled_radius(np.ceil(steps / per_epoch), mu)
            return np.where(np.isfinite(guess) & (guess > 0), guess, 1.0)
        return pld_calibration_start("sigma", epsilon, delta, {"sampling_rate": 1.0 / per_epoch, "rounds": steps})

    return start


def noise_grids(parameter: str, params: dict[str, Any]) -> list[tuple[float, dict[str, float]]]:
    """``calibrate``'s coarser grids for the noise multiplier of a Poisson run: those of its accountant's sigma
    (``pld.refine.calibration_grids``: two grids 20 and 10 times coarser, whose answers, extrapolated, start
    the search on the run's grid).  They only move where the search starts, never what it accepts.

    Parameters
    ----------
    parameter : str
        The parameter calibrated (only "noise_multiplier" has grids).
    params : dict
        The run's other parameters (the grid keywords are read: value_discretization_interval, accuracy).

    Returns
    -------
    list of (float, dict)
        The grids, coarsest first, the run's own last (``pld.refine.calibration_grids``); [] for none.
    """
    if parameter != "noise_multiplier":
        return []
    return pld_calibration_grids("sigma", params)


@contextlib.contextmanager
def _in_training_words() -> Iterator[None]:
    """A PLD's refusal of its grid at a noise multiplier (its ``sigma``, over sensitivity 1) names the argument
    the caller gave: noise_multiplier."""
    try:
        yield
    except ValueError as error:
        if "sigma / sensitivity" not in str(error):
            raise
        raise ValueError(f"noise_multiplier (the PLD's sigma, sensitivity 1): {error}") from None


class DPSGD(_SubsampledTraining):
    """DP-SGD (Abadi et al. 2016, Alg. 1) with every step released: record-level privacy.

        DPSGD(dataset_size=60_000, batch_size=256, epochs=60, noise_multiplier=1.1).epsilon(1e-5)
        DPSGD(sample_rate=256 / 60_000, steps=14_100, noise_multiplier=1.1).epsilon(1e-5)   # Opacus's words

    Parameters (numpy arrays broadcast)
    ----------
    noise_multiplier : z > 0, noise std over the per-example clipping norm
    dataset_size, batch_size : integers, batch_size <= dataset_size (expected batch size
        for Poisson sampling, q = batch_size / dataset_size)
    sample_rate : q in (0, 1], instead of dataset_size and batch_size (Poisson sampling); synonyms
        ``sampling_probability`` (dp_accounting) and ``sampling_rate`` (the accountants)
    epochs or steps : one of them; epochs of ``steps_per_epoch`` steps each
    steps_per_epoch : "ceil" (ceil(dataset_size / batch_size), the default with batch_size) or
        "opacus" (1 / q, the default and only meaning with sample_rate); see the module docstring
    sampling : "poisson" (add-or-remove-one), "fixed_size" (replace-one), "balls_in_bins" (add-or-remove-one)
        or "shuffle" (replace-one), see the module docstring
    value_discretization_interval, accuracy : the PLD grid, as in ``pld.SubsampledGaussianPLD``

    A keyword that is none of these is refused (TypeError, naming the closest one).
    """

    @_validation.known_keywords("DPSGD", *SAMPLE_RATE_SYNONYMS)
    def __init__(
        self,
        *,
        noise_multiplier: ArrayLike,
        dataset_size: ArrayLike | None = None,
        batch_size: ArrayLike | None = None,
        sample_rate: ArrayLike | None = None,
        epochs: ArrayLike | None = None,
        steps: ArrayLike | None = None,
        steps_per_epoch: StepsPerEpoch | None = None,
        sampling: Sampling = "poisson",
        value_discretization_interval: float | None = None,
        accuracy: float | None = None,
        **synonyms: Any,
    ) -> None:
        if synonyms:
            sample_rate = _synonyms("DPSGD", synonyms, SAMPLE_RATE_SYNONYMS, sample_rate=sample_rate)["sample_rate"]
        super().__init__(
            noise_multiplier,
            dataset_size,
            batch_size,
            sample_rate,
            epochs,
            steps,
            steps_per_epoch,
            ("dataset_size", "batch_size", "epochs", "steps"),
            sampling,
            value_discretization_interval,
            accuracy,
        )


class DPFedAvg(_SubsampledTraining):
    """DP-FedAvg (McMahan et al. 2018) with every round's model released: client-level privacy.

        DPFedAvg(total_clients=3400, clients_per_round=100, rounds=1000, noise_multiplier=1.0).epsilon(1e-5)

    Each round samples clients (Poisson with rate clients_per_round / total_clients, given so or as
    ``sample_rate`` and its synonyms, or exactly clients_per_round of them), clips each client's update
    to norm C and adds N(0, (z C)^2 I) to their sum.  One round is one subsampled Gaussian step over
    clients, so the accounting is DP-SGD's with clients for records (``epochs`` counts passes over the
    clients, ``steps_per_epoch`` as in ``DPSGD``; ``steps`` is accepted as a synonym of ``rounds``).
    A keyword that is none of these is refused (TypeError, naming the closest one).
    """

    @_validation.known_keywords("DPFedAvg", *SAMPLE_RATE_SYNONYMS, "steps")
    def __init__(
        self,
        *,
        noise_multiplier: ArrayLike,
        total_clients: ArrayLike | None = None,
        clients_per_round: ArrayLike | None = None,
        sample_rate: ArrayLike | None = None,
        rounds: ArrayLike | None = None,
        epochs: ArrayLike | None = None,
        steps_per_epoch: StepsPerEpoch | None = None,
        sampling: Sampling = "poisson",
        value_discretization_interval: float | None = None,
        accuracy: float | None = None,
        **synonyms: Any,
    ) -> None:
        if synonyms:
            words = {**SAMPLE_RATE_SYNONYMS, "steps": "rounds"}
            named = _synonyms("DPFedAvg", synonyms, words, sample_rate=sample_rate, rounds=rounds)
            sample_rate, rounds = named["sample_rate"], named["rounds"]
        super().__init__(
            noise_multiplier,
            total_clients,
            clients_per_round,
            sample_rate,
            epochs,
            rounds,
            steps_per_epoch,
            ("total_clients", "clients_per_round", "epochs", "rounds"),
            sampling,
            value_discretization_interval,
            accuracy,
        )


def _synonyms(owner: str, given: dict[str, Any], words: dict[str, str], **named: Any) -> dict[str, Any]:
    """``named`` (the signature's own values of the names ``words`` maps onto) with the synonyms ``given``
    moved onto them; a name given twice, or an unknown keyword (with the closest name), is refused."""
    known = [*inspect.signature(DPSGD if owner == "DPSGD" else DPFedAvg).parameters]
    moved = _validation.synonyms(owner, given, words, known)
    twice = [name for name in moved if named.get(name) is not None]
    if twice:
        word = next(w for w, n in words.items() if n == twice[0] and w in given)
        raise _validation.ParameterTypeError(
            f"{owner}() got {twice[0]} twice (as {twice[0]!r} and {word!r}); give it once"
        )
    return {**named, **moved}
