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
======================  =========================================  ===========================================

Under replace-one the replaced record moves the clipped sum by up to 2C, so hockeystick's
``sensitivity = 1`` (one record's contribution, in units of C) is dp_accounting's
replace-one sensitivity 2: a dp_accounting ``GaussianDpEvent(noise_multiplier=z)`` inside a
REPLACE_ONE ``SampledWithoutReplacementDpEvent`` describes noise z relative to the
replace-one sensitivity, i.e. hockeystick ``sigma = 2 z`` with ``sensitivity = 1``.

Steps: ``steps`` directly (whole numbers: 2.5 is refused, not rounded), or ``epochs`` passes over the
data, each of ceil(dataset_size / batch_size) steps, ceil(epochs * that) in all, the ceiling of the
exact product (the rounding up never understates the steps taken, so never the privacy spent;
Opacus truncates ``epochs / sample_rate`` instead).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from fractions import Fraction
from typing import Literal

import numpy as np

from . import _validation
from ._elementwise import ArrayLike, broadcast_float_arrays
from .pld.accountant import SubsampledGaussianPLD
from .pld.along_run import CurveAlongRun
from .pld.distribution import Bound, Result
from .pld.fixed_batch import FixedBatchGaussianPLD

__all__ = ["DPSGD", "DPFedAvg", "Sampling"]

Sampling = Literal["poisson", "fixed_size"]


def _steps(
    epochs: ArrayLike | None, steps: ArrayLike | None, population: np.ndarray, batch: np.ndarray, names: tuple[str, str]
) -> np.ndarray:
    """Steps taken: given (whole numbers), or ceil(epochs * ceil(population / batch)) of the exact product."""
    if (epochs is None) == (steps is None):
        raise ValueError(f"give exactly one of {names[0]} and {names[1]}")
    if steps is not None:
        return _validation.positive_integer(steps, names[1], maximum=_validation.MAX_EXACT_INTEGER)
    assert epochs is not None  # exactly one of the two was given
    e = _validation.positive(epochs, names[0])
    per_epoch = -np.floor_divide(-population, batch)  # ceil(n / m), exact: whole doubles, floor_divide is exact
    t = _ceil_product(*np.broadcast_arrays(e, per_epoch))
    too_many = ~(t <= _validation.MAX_EXACT_INTEGER)
    if too_many.any():
        i = np.flatnonzero(np.ravel(too_many))[0]
        raise ValueError(
            f"{names[0]} must give at most 2^53 {names[1]}, got {names[0]} = "
            f"{np.ravel(np.broadcast_to(e, t.shape))[i]:g}, {np.ravel(t)[i]:.4g} {names[1]}; "
            f"give fewer {names[0]} or larger batches"
        )
    return t


def _ceil_product(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """ceil(x k) of the exact product of doubles x and whole k (not of its rounding): the rounded product p
    has the same ceiling unless p is itself whole (a non-whole p lies at least one of its ulps from every
    integer, and the rounding moved it by at most half an ulp), so only there is the exact product compared
    with p (as fractions: x k > p needs one more step)."""
    with np.errstate(over="ignore"):
        p = x * k
    out: np.ndarray = np.ceil(p)
    for i in np.flatnonzero((p == out) & np.isfinite(p)):
        if Fraction(float(x.flat[i])) * int(k.flat[i]) > int(p.flat[i]):
            out.flat[i] += 1.0
    return out


class _SubsampledTraining:
    """Shared by DP-SGD and DP-FedAvg: T steps of a subsampled Gaussian with multiplier z."""

    def __init__(
        self,
        noise_multiplier: ArrayLike,
        population: ArrayLike,
        batch: ArrayLike,
        epochs: ArrayLike | None,
        steps: ArrayLike | None,
        names: tuple[str, str, str, str],
        sampling: Sampling,
        value_discretization_interval: float | None,
        accuracy: float | None,
    ):
        (z, n, m), _, _ = broadcast_float_arrays(
            noise_multiplier=_validation.positive(noise_multiplier, "noise_multiplier"),
            **{
                names[0]: _validation.positive_integer(population, names[0], maximum=_validation.MAX_EXACT_INTEGER),
                names[1]: _validation.positive_integer(batch, names[1], maximum=_validation.MAX_EXACT_INTEGER),
            },
        )
        if np.any(m > n):
            raise ValueError(
                f"{names[1]} must be <= {names[0]}, got {names[1]} {m[m > n].ravel()[0]:g} > {n[m > n].ravel()[0]:g}"
            )
        t = _steps(epochs, steps, n, m, names[2:])
        if sampling == "poisson":
            self._accountant: SubsampledGaussianPLD | FixedBatchGaussianPLD = SubsampledGaussianPLD(
                sigma=z,
                sampling_rate=m / n,
                rounds=t,
                value_discretization_interval=value_discretization_interval,
                accuracy=accuracy,
            )
        elif sampling == "fixed_size":
            if accuracy is not None:
                raise ValueError(
                    'accuracy is available with sampling="poisson"; for "fixed_size" give value_discretization_interval'
                )
            extra = (
                {}
                if value_discretization_interval is None
                else {"value_discretization_interval": value_discretization_interval}
            )
            self._accountant = FixedBatchGaussianPLD(sigma=z, batch_size=m, n=n, rounds=t, **extra)
        else:
            raise ValueError(f'sampling must be "poisson" or "fixed_size", got {sampling!r}')
        self.noise_multiplier, self.steps, self.sampling = z, t, sampling
        self._steps_per_epoch = np.broadcast_to(-np.floor_divide(-n, m), np.shape(t))  # ceil(n / m), exact

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
            curve = self._accountant.epsilon_curve(delta, **self._checkpoints(every, steps))
        return dataclasses.replace(curve, steps_per_epoch=int(np.ravel(self._steps_per_epoch)[0]))

    def delta_curve(self, epsilon: float, *, every: int | None = None, steps: ArrayLike | None = None) -> CurveAlongRun:
        """``epsilon_curve``'s twin: the certified bracket of delta at ``epsilon`` after each checkpoint."""
        with _in_training_words():
            curve = self._accountant.delta_curve(epsilon, **self._checkpoints(every, steps))
        return dataclasses.replace(curve, steps_per_epoch=int(np.ravel(self._steps_per_epoch)[0]))

    def _checkpoints(self, every: int | None, steps: ArrayLike | None) -> dict[str, ArrayLike | None]:
        """The accountant's checkpoint arguments: one epoch's steps apart unless ``every`` or ``steps`` is given."""
        if any(np.size(a) != 1 for a in (self.noise_multiplier, self.steps, self._steps_per_epoch)):
            raise ValueError(
                "a curve along the run needs one run: give single values of the noise multiplier, the data set "
                "(clients) and batch sizes and the epochs (steps, rounds); loop over the runs for several"
            )
        if every is None and steps is None:
            every = int(np.ravel(self._steps_per_epoch)[0])
        return {"every": every, "steps": steps}


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

    Parameters (numpy arrays broadcast)
    ----------
    noise_multiplier : z > 0, noise std over the per-example clipping norm
    dataset_size, batch_size : integers, batch_size <= dataset_size (expected batch size
        for Poisson sampling, q = batch_size / dataset_size)
    epochs or steps : one of them; epochs of ceil(dataset_size / batch_size) steps each
    sampling : "poisson" (add-or-remove-one) or "fixed_size" (replace-one), see the module docstring
    value_discretization_interval, accuracy : the PLD grid, as in ``pld.SubsampledGaussianPLD``
    """

    def __init__(
        self,
        *,
        noise_multiplier: ArrayLike,
        dataset_size: ArrayLike,
        batch_size: ArrayLike,
        epochs: ArrayLike | None = None,
        steps: ArrayLike | None = None,
        sampling: Sampling = "poisson",
        value_discretization_interval: float | None = None,
        accuracy: float | None = None,
    ) -> None:
        super().__init__(
            noise_multiplier,
            dataset_size,
            batch_size,
            epochs,
            steps,
            ("dataset_size", "batch_size", "epochs", "steps"),
            sampling,
            value_discretization_interval,
            accuracy,
        )


class DPFedAvg(_SubsampledTraining):
    """DP-FedAvg (McMahan et al. 2018) with every round's model released: client-level privacy.

        DPFedAvg(total_clients=3400, clients_per_round=100, rounds=1000, noise_multiplier=1.0).epsilon(1e-5)

    Each round samples clients (Poisson with rate clients_per_round / total_clients, or exactly
    clients_per_round of them), clips each client's update to norm C and adds N(0, (z C)^2 I)
    to their sum.  One round is one subsampled Gaussian step over clients, so the accounting is
    DP-SGD's with clients for records (``epochs`` counts passes over the clients).
    """

    def __init__(
        self,
        *,
        noise_multiplier: ArrayLike,
        total_clients: ArrayLike,
        clients_per_round: ArrayLike,
        rounds: ArrayLike | None = None,
        epochs: ArrayLike | None = None,
        sampling: Sampling = "poisson",
        value_discretization_interval: float | None = None,
        accuracy: float | None = None,
    ) -> None:
        super().__init__(
            noise_multiplier,
            total_clients,
            clients_per_round,
            epochs,
            rounds,
            ("total_clients", "clients_per_round", "epochs", "rounds"),
            sampling,
            value_discretization_interval,
            accuracy,
        )
