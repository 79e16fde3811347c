"""compose reads a stage in the training words (mechanism = "dp_sgd" / "dp_fedavg", noise_multiplier) as the
mechanism stage it composes: the same certified bracket as that stage written out, and as the run's class."""

from __future__ import annotations

import json
import math

import pytest

from hockeystick.cli import main
from hockeystick.training import DPSGD, DPFedAvg


def _compose(capsys, tmp_path, stages: str) -> tuple[int, list[dict], str]:
    path = tmp_path / "run.toml"
    path.write_text(stages)
    code = main(["compose", str(path), "--delta", "1e-5", "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if code == 0 else [], err


DP_SGD = 'mechanism = "dp_sgd"\nnoise_multiplier = 1.1\ndataset_size = 1000\nbatch_size = 300\nepochs = 3\n'


def test_a_dp_sgd_stage_is_its_subsampled_gaussian_steps(capsys, tmp_path):
    """3 epochs of ceil(1000 / 300) = 4 steps: 12 steps at q = 0.3, the stage written out gives the same doubles,
    and the bracket overlaps DPSGD's own (each certified: lower <= truth <= upper)."""
    code, training, err = _compose(capsys, tmp_path, "[[stage]]\n" + DP_SGD)
    assert code == 0, err
    steps = 3 * math.ceil(1000 / 300)
    written = f'[[stage]]\nmechanism = "subsampled_gaussian"\nsigma = 1.1\nsampling_rate = {300 / 1000!r}\nrounds = {steps}\n'
    assert _compose(capsys, tmp_path, written)[1] == training
    lower, upper = DPSGD(dataset_size=1000, batch_size=300, epochs=3, noise_multiplier=1.1).epsilon(
        1e-5, bound="both"
    )
    (row,) = training
    assert row["epsilon_lower"] <= upper and lower <= row["epsilon_upper"]


def test_fixed_size_and_fedavg_stages_overlap_their_runs(capsys, tmp_path):
    stage = DP_SGD.replace("epochs = 3", "steps = 2") + 'sampling = "fixed_size"\n'
    code, (row,), err = _compose(capsys, tmp_path, "[[stage]]\n" + stage)
    assert code == 0, err
    run = DPSGD(
        dataset_size=1000, batch_size=300, steps=2, noise_multiplier=1.1, sampling="fixed_size"
    )
    lower, upper = run.epsilon(1e-5, bound="both")
    assert row["epsilon_lower"] <= upper and lower <= row["epsilon_upper"]
    fedavg = 'mechanism = "dp_fedavg"\nnoise_multiplier = 1.1\nsampling_probability = 0.05\nrounds = 20\n'
    code, (row,), err = _compose(capsys, tmp_path, "[[stage]]\n" + fedavg)
    assert code == 0, err
    lower, upper = DPFedAvg(sample_rate=0.05, rounds=20, noise_multiplier=1.1).epsilon(
        1e-5, bound="both"
    )
    assert row["epsilon_lower"] <= upper and lower <= row["epsilon_upper"]


def test_noise_multiplier_is_a_gaussian_stage_sigma(capsys, tmp_path):
    as_sigma = _compose(
        capsys, tmp_path, '[[stage]]\nmechanism = "gaussian"\nsigma = 4.0\nrounds = 3\n'
    )[1]
    code, as_noise, err = _compose(
        capsys, tmp_path, '[[stage]]\nmechanism = "gaussian"\nnoise_multiplier = 4.0\nrounds = 3\n'
    )
    assert code == 0 and as_noise == as_sigma, err


@pytest.mark.parametrize(
    ("stage", "message"),
    [
        (
            'mechanism = "gaussian"\nnoise_multiplier = 4.0\nsensitivity = 2.0\n',
            "stage 1 (gaussian): noise_multiplier is sigma over the sensitivity",
        ),
        (
            DP_SGD.replace("epochs", "rounds"),
            "stage 1 (dp_sgd): a DP-SGD run is counted in steps or epochs: give steps",
        ),
        (DP_SGD + 'sampling = "shuffle"\n', 'sampling = "shuffle" has no per-step mechanism'),
        (
            DP_SGD.replace("1.1", "[1.1, 2.0]"),
            "a stage is one run: give one value of each parameter",
        ),
        (
            DP_SGD.replace("batch_size = 300", "batch_size = 3000"),
            "batch_size must be <= dataset_size",
        ),
    ],
)
def test_a_training_stage_is_refused_naming_the_stage_and_the_rule(
    capsys, tmp_path, stage, message
):
    code, _, err = _compose(capsys, tmp_path, "[[stage]]\n" + stage)
    assert code == 2 and "compose file" in err and message in err, err
