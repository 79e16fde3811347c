"""A run's noise_multiplier is checked once, in the same words whichever way the run is built: DPSGD and DPFedAvg
check it themselves, or through ``round_noise_multiplier`` with ``clipped_count_stddev``, and their shared base
takes the checked value."""

from __future__ import annotations

import pytest

from hockeystick.base import validation
from hockeystick.training import DPSGD, DPFedAvg

RUNS = {
    "dp_sgd": (DPSGD, dict(dataset_size=100, batch_size=10, epochs=1)),
    "dp_fedavg": (DPFedAvg, dict(total_clients=100, clients_per_round=10, rounds=3)),
    "dp_fedavg_adaptive": (
        DPFedAvg,
        dict(total_clients=100, clients_per_round=10, rounds=3, clipped_count_stddev=5.0),
    ),
}


@pytest.mark.parametrize("run", sorted(RUNS))
def test_noise_multiplier_is_checked_once_with_one_message(run, monkeypatch):
    cls, words = RUNS[run]
    checked = []
    real = validation.positive

    def positive(value, name, *args, **kwargs):
        checked.append(name)
        return real(value, name, *args, **kwargs)

    monkeypatch.setattr(validation, "positive", positive)
    cls(noise_multiplier=1.0, **words)
    assert checked.count("noise_multiplier") == 1
    for bad in (-1.0, 0.0, float("nan"), float("inf"), "1"):
        with pytest.raises(ValueError) as rule:
            real(bad, "noise_multiplier")
        with pytest.raises(type(rule.value)) as refused:
            cls(noise_multiplier=bad, **words)
        assert str(refused.value) == str(rule.value)
