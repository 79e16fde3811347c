"""A compose file's stages in the training words: ``mechanism = "dp_sgd"`` or ``"dp_fedavg"`` with
the run's parameters as ``hockeystick.training`` takes them, and ``noise_multiplier`` for a Gaussian
stage's ``sigma``.

A DP-SGD (DP-FedAvg) run of T steps (rounds) with noise multiplier z is T self-compositions of one
subsampled Gaussian step of ``sigma = z`` at sensitivity 1 (the clipping norm; Abadi et al. 2016,
Alg. 1; McMahan et al. 2018): with Poisson sampling at rate q (``q = batch_size / dataset_size``, or
``sample_rate``) the stage ``subsampled_gaussian`` (add/remove one), with batches of exactly m of n
records ``fixed_size_subsampled_gaussian`` (replace one).  The run's own class reads its words
(epochs or steps, the steps per epoch, the synonyms of the sampling rate) and checks them, so T is
the very number of steps ``DPSGD(...).steps`` counts.  Balls-in-bins and shuffled batches have no
per-step mechanism to compose with other stages: such a stage is refused, pointing to the run's own
accountant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["TRAINING_MECHANISMS", "in_mechanism_words"]

# a stage's training mechanism -> its population and batch words (hockeystick.training.DPSGD's,
# DPFedAvg's)
TRAINING_MECHANISMS = {
    "dp_sgd": ("dataset_size", "batch_size"),
    "dp_fedavg": ("total_clients", "clients_per_round"),
}

# the compose file's grid is the whole run's: a stage does not set its own
_GRID_WORDS = ("value_discretization_interval", "accuracy")


def in_mechanism_words(stages: Any) -> Any:
    """``stages`` with each training stage written as the mechanism stage it composes, and
    ``noise_multiplier`` of a Gaussian stage as its ``sigma``; anything else as given
    (``compose_stages`` checks it).

    Raises ValueError naming the stage (1-based) for a training stage the run's class refuses, a
    list where one run has one value, a grid word, a sampling with no per-step mechanism, or
    ``noise_multiplier`` beside ``sigma`` or ``sensitivity``."""
    if isinstance(stages, Mapping) or not isinstance(stages, Sequence):
        return stages
    return [_in_mechanism_words(number, stage) for number, stage in enumerate(stages, start=1)]


def _in_mechanism_words(number: int, stage: Any) -> Any:
    if not isinstance(stage, Mapping):
        return stage
    name = stage.get("mechanism")
    if name in TRAINING_MECHANISMS:
        return _training_stage(number, str(name), stage)
    if "noise_multiplier" in stage and _noise_multiplier_is_sigma(name):
        return _noise_as_sigma(number, str(name), stage)
    return stage


def _noise_multiplier_is_sigma(name: Any) -> bool:
    """Whether ``name`` is a registered stage whose constructor takes ``sigma`` and ``sensitivity``:
    a Gaussian stage, whose noise multiplier is its sigma at sensitivity 1."""
    from ..pld.mechanisms import stage_entry, stage_names  # lazy: start-up time

    if name not in stage_names():
        return False
    return {"sigma", "sensitivity"} <= set(stage_entry(name).parameters())


def _noise_as_sigma(number: int, name: str, stage: Mapping[str, Any]) -> dict[str, Any]:
    """A Gaussian stage given its noise multiplier z: sigma = z at sensitivity 1 (z is sigma over
    the clipping norm, the sensitivity), so neither sigma nor sensitivity goes beside it."""
    beside = [key for key in ("sigma", "sensitivity") if key in stage]
    if beside:
        raise ValueError(
            f"stage {number} ({name}): noise_multiplier is sigma over the sensitivity (the clipping norm); give "
            f"noise_multiplier alone (sensitivity 1) or sigma with sensitivity, not noise_multiplier with {beside[0]}"
        )
    words = {key: value for key, value in stage.items() if key != "noise_multiplier"}
    return {**words, "sigma": stage["noise_multiplier"]}


def _training_stage(number: int, name: str, stage: Mapping[str, Any]) -> dict[str, Any]:
    """The mechanism stage of one training run: its step's mechanism, sigma = z, the sampling words
    of that mechanism, and rounds = the run's steps."""
    from .. import training  # lazy: start-up time
    from ..training.sampling_schemes import sampling_scheme

    where = f"stage {number} ({name})"
    words = {str(key): value for key, value in stage.items() if key != "mechanism"}
    _check_words(where, name, words)
    run_class = {"dp_sgd": training.DPSGD, "dp_fedavg": training.DPFedAvg}[name]
    try:
        run = run_class(**words)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where}: {exc}") from None
    if any(value.size != 1 for value in (run.steps, run.noise_multiplier)):
        raise ValueError(
            f"{where}: a stage is one run: give one value of each parameter, not a list"
        )
    scheme = sampling_scheme(run.sampling)
    step: dict[str, Any] = {
        "mechanism": scheme.step_mechanism,
        "sigma": float(run.noise_multiplier.ravel()[0]),
        "rounds": int(run.steps.ravel()[0]),
    }
    population, batch = TRAINING_MECHANISMS[name]
    if scheme.drawn_batches is not None:  # drawn batches: the batch and its population
        return {**step, "batch_size": int(words[batch]), "n": int(words[population])}
    rate = next(
        (words[key] for key in ("sample_rate", *training.SAMPLE_RATE_SYNONYMS) if key in words),
        None,
    )
    return {
        **step,
        "sampling_rate": float(rate)
        if rate is not None
        else float(words[batch]) / float(words[population]),
    }


def _check_words(where: str, name: str, words: Mapping[str, Any]) -> None:
    """What a training stage cannot say: its own grid, DP-SGD's length in rounds (a mechanism
    stage's repeat count), a sampling with no per-step mechanism (the run's class checks the
    rest)."""
    from ..training.sampling_schemes import sampling_schemes  # lazy: start-up time

    grid = [key for key in _GRID_WORDS if key in words]
    if grid:
        raise ValueError(
            f"{where}: {grid[0]} is the compose file's, for every stage: set it at the file's top"
        )
    if name == "dp_sgd" and "rounds" in words:
        raise ValueError(
            f"{where}: a DP-SGD run is counted in steps or epochs: give steps (not rounds)"
        )
    sampling = words.get("sampling", "poisson")
    stepped = [s.word for s in sampling_schemes() if s.step_mechanism is not None]
    if sampling not in stepped and sampling in {s.word for s in sampling_schemes()}:
        raise ValueError(
            f'{where}: sampling = "{sampling}" has no per-step mechanism to compose with other stages; compose '
            f"{' or '.join(f'sampling = {s!r}' for s in stepped)} runs, or account this run alone "
            f"(hockeystick epsilon --sampling {sampling} ...)"
        )
