"""--tail: the tail a Poisson-sampled DP-SGD / DP-FedAvg run's PLD cuts, as ``tail=`` of ``hockeystick.training``;
refused, naming the sampling it goes with, for batches drawn otherwise."""

from __future__ import annotations

import json

import pytest

from hockeystick.cli import main
from hockeystick.training import DPSGD, DPFedAvg


def _invoke(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "flags, run",
    [
        (
            [
                "--dataset-size",
                "60000",
                "--batch-size",
                "256",
                "--steps",
                "100",
                "--noise-multiplier",
                "1.1",
            ],
            lambda tail: DPSGD(
                dataset_size=60000, batch_size=256, steps=100, noise_multiplier=1.1, tail=tail
            ),
        ),
        (
            [
                "--total-clients",
                "10000",
                "--clients-per-round",
                "100",
                "--rounds",
                "50",
                "--noise-multiplier",
                "1",
            ],
            lambda tail: DPFedAvg(
                total_clients=10000,
                clients_per_round=100,
                rounds=50,
                noise_multiplier=1.0,
                tail=tail,
            ),
        ),
    ],
)
def test_tail_reaches_the_poisson_run(capsys, flags, run):
    code, out, err = _invoke(
        capsys, ["epsilon", *flags, "--delta", "1e-5", "--tail", "1e-18", "--format", "json"]
    )
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["tail"] == 1e-18
    assert row["epsilon"] == run(1e-18).epsilon(1e-5)


@pytest.mark.parametrize("sampling", ["fixed_size", "shuffle"])
def test_tail_with_another_sampling_is_a_usage_error(capsys, sampling):
    argv = [
        "epsilon",
        "--dataset-size",
        "1000",
        "--batch-size",
        "10",
        "--steps",
        "5",
        "--noise-multiplier",
        "1",
    ]
    code, out, err = _invoke(
        capsys, [*argv, "--delta", "1e-5", "--sampling", sampling, "--tail", "1e-18"]
    )
    assert code == 2 and out == ""
    assert (
        f"--tail goes with Poisson sampling (--sampling poisson, the default); --sampling {sampling}"
        in err
    )
    assert "Traceback" not in err


def test_tail_out_of_range_is_refused_by_its_flag(capsys):
    argv = [
        "epsilon",
        "--sample-rate",
        "0.01",
        "--steps",
        "10",
        "--noise-multiplier",
        "1",
        "--delta",
        "1e-5",
    ]
    code, _, err = _invoke(capsys, [*argv, "--tail", "1e-2"])
    assert code == 2 and "--tail must lie in [1e-300, 1e-3), got 0.01" in err
