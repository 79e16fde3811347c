"""DP-SGD and DP-FedAvg: a training run in its users' words (records or clients), and the synonyms they accept."""

from __future__ import annotations

import inspect
from typing import Any

from ..base import validation as _validation
from ..base.elementwise import ArrayLike
from .run import _SubsampledTraining
from .vocabulary import SAMPLE_RATE_SYNONYMS, Sampling, StepsPerEpoch


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
