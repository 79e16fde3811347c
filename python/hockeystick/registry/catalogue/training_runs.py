"""The registered training runs: DP-SGD and DP-FedAvg per sampling (``hockeystick.training``), with
the start and coarse grids ``calibrate`` uses for their noise multiplier (``record_level_runs``
registers the record inside federated learning with local DP-SGD and random check-ins)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np

from ... import training
from ...base import validation as _validation
from ...training.sampling_schemes import SamplingScheme, sampling_schemes
from ..entries import AccountantEntry, Calibratable
from ..store import register
from .calibratables import ROUNDS, SIGMA


def _population(name: str) -> Callable[[Mapping[str, np.ndarray]], np.ndarray]:
    """A batch size's largest value: the population it is drawn from (a run given without it is
    refused by the class, which names what is missing)."""
    return lambda p: (
        np.asarray(np.inf)
        if name not in p
        else _validation.positive_integer(p[name], name).astype(float)
    )


def _noise_start(
    sampling: training.Sampling, words: tuple[str, str, str, str]
) -> Callable[..., Any]:
    """``calibrate``'s start for a run's noise multiplier (``training.epoch_noise_start``), its
    module imported at the first call: it reads the shuffled batches' radius, which looking the run
    up does not need."""

    def calibration_start(
        parameter: str, epsilon: np.ndarray, delta: np.ndarray, params: dict[str, Any]
    ) -> Any:
        return training.epoch_noise_start(sampling, words)(parameter, epsilon, delta, params)

    return calibration_start


def _noise_grids(parameter: str, params: dict[str, Any]) -> list[tuple[float, dict[str, float]]]:
    """``calibrate``'s coarser grids for a Poisson run's noise multiplier
    (``training.noise_grids``), its module imported at the first call."""
    return training.noise_grids(parameter, params)


# the sampling rate of a Poisson run given by its rate (sampling_probability, sampling_rate: the
# class's synonyms)
_SAMPLE_RATE = {"sample_rate": Calibratable("increasing", 0.0, 1.0)}

_TRAINING_SUMMARY = (
    "{what}, every step released, in training terms (noise multiplier, {population}, {batch}, "
    "epochs or {steps}): {how}, certified upper bound"
)


def register_training_runs(scheme: SamplingScheme) -> None:
    """Register a sampling scheme's DP-SGD and DP-FedAvg runs (``dp_sgd<suffix>``,
    ``dp_fedavg<suffix>``) with their descriptions and calibration hooks; the catalogue calls it for
    every scheme registered when it loads.

    Parameters
    ----------
    scheme : training.sampling_schemes.SamplingScheme
        The scheme (``training.sampling_schemes.register_sampling``).

    Raises
    ------
    ValueError
        If its runs' names are already registered.
    """
    sampling, suffix, how = scheme.word, scheme.suffix, scheme.how
    # a tail is the Poisson accountant's: the other samplings refuse it, so their grids do not offer
    # it; a schedule of stages is one run, never a grid axis; a grid's noise multiplier is read over
    # the clip norm C (noise_relative_to, a word, not a number), and divided as normalization says
    # (a word)
    hidden = frozenset(
        {"sampling", "steps_per_epoch", "stages", "noise_relative_to", "normalization"}
        | (set() if scheme.drawn_batches is None else {"tail"})
    )
    sgd = functools.partial(training.DPSGD, sampling=cast(training.Sampling, sampling))
    fedavg = functools.partial(training.DPFedAvg, sampling=cast(training.Sampling, sampling))
    if scheme.noise_start:  # calibrate's start (a partial takes attributes)
        how_drawn = cast(training.Sampling, sampling)
        sgd_words = ("dataset_size", "batch_size", "epochs", "steps")
        fedavg_words = ("total_clients", "clients_per_round", "epochs", "rounds")
        setattr(sgd, "calibration_start", _noise_start(how_drawn, sgd_words))  # noqa: B010
        setattr(fedavg, "calibration_start", _noise_start(how_drawn, fedavg_words))  # noqa: B010
    if (
        scheme.drawn_batches is None
    ):  # coarse grids for the noise, as the Poisson accountant's sigma has them
        setattr(sgd, "calibration_grids", _noise_grids)  # noqa: B010
        setattr(fedavg, "calibration_grids", _noise_grids)  # noqa: B010
    register(
        AccountantEntry(
            name=f"dp_sgd{suffix}",
            factory=sgd,
            hidden=hidden,
            max_chunk=1 << 10,
            summary=_TRAINING_SUMMARY.format(
                what="DP-SGD",
                population="dataset size",
                batch="batch size",
                steps="steps",
                how=how,
            ),
            integers=frozenset({"dataset_size", "batch_size", "steps"}),
            calibratable={
                "noise_multiplier": SIGMA,
                "epochs": Calibratable("increasing", 1.0, float("inf"), integer=True),
                **(
                    {}  # e.g. the shuffled upper side does not depend on the batch size
                    if not scheme.calibrates_batch
                    else {
                        "batch_size": Calibratable(
                            "increasing", 1.0, _population("dataset_size"), integer=True
                        )
                    }
                ),
                **(_SAMPLE_RATE if scheme.drawn_batches is None else {}),
            },
        )
    )
    register(
        AccountantEntry(
            name=f"dp_fedavg{suffix}",
            factory=fedavg,
            hidden=hidden,
            max_chunk=1 << 10,
            summary=_TRAINING_SUMMARY.format(
                what="DP-FedAvg",
                population="total clients",
                batch="clients per round",
                steps="rounds",
                how=how,
            ),
            integers=frozenset({"total_clients", "clients_per_round", "rounds"}),
            calibratable={
                "noise_multiplier": SIGMA,
                "rounds": ROUNDS,
                **(
                    {}
                    if not scheme.calibrates_batch
                    else {
                        "clients_per_round": Calibratable(
                            "increasing", 1.0, _population("total_clients"), integer=True
                        )
                    }
                ),
                **(_SAMPLE_RATE if scheme.drawn_batches is None else {}),
            },
        )
    )


for _scheme in sampling_schemes():
    register_training_runs(_scheme)
