"""``hockeystick epsilon`` / ``delta`` with ``--every``: one run's bound after every epoch or every N steps, each
point the one-off value at that many steps, and the Python curve's (``DPSGD.epsilon_curve``) to the round-off
charges of the curve's shared transform (1e-6 relative)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from hockeystick.cli import main
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.training import DPSGD

RUN = ["--dataset-size", "60000", "--batch-size", "256", "--noise-multiplier", "1.1"]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_epoch_json_is_the_python_curve(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, "epsilon", *RUN, "--epochs", "3.5", "--delta", "1e-5", "--every", "epoch", "--bound", "both",
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    rows = json.loads(out)
    assert [r["steps"] for r in rows] == [
        235,
        470,
        705,
        823,
    ]  # every epoch of 235 steps, then the last step
    curve = DPSGD(
        dataset_size=60000, batch_size=256, epochs=3.5, noise_multiplier=1.1
    ).epsilon_curve(1e-5)
    np.testing.assert_allclose([r["epsilon_lower"] for r in rows], curve.lower, rtol=1e-6)
    np.testing.assert_allclose([r["epsilon_upper"] for r in rows], curve.upper, rtol=1e-6)
    one_off = DPSGD(dataset_size=60000, batch_size=256, steps=470, noise_multiplier=1.1).epsilon(
        1e-5, bound="both"
    )
    np.testing.assert_allclose(
        (rows[1]["epsilon_lower"], rows[1]["epsilon_upper"]), one_off, rtol=1e-12
    )
    assert all(
        r["noise_multiplier"] == 1.1 and r["dataset_size"] == 60000 and r["delta"] == 1e-5
        for r in rows
    )


def test_every_n_steps_csv_on_stdout_lists_every_checkpoint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """More checkpoints than the 50 rows a grid prints by default (51): --every lists them all."""
    code, out, _ = _run(
        capsys, "epsilon", *RUN, "--steps", "5100", "--delta", "1e-5", "--every", "100", "-o", "-"
    )
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert table["steps"].tolist() == list(range(100, 5101, 100))
    for t in (100, 3000, 5100):
        one_off = DPSGD(dataset_size=60000, batch_size=256, steps=t, noise_multiplier=1.1).epsilon(
            1e-5
        )
        np.testing.assert_allclose(table.loc[table["steps"] == t, "epsilon"], one_off, rtol=1e-12)
    code, out, _ = _run(
        capsys, "epsilon", *RUN, "--steps", "5100", "--delta", "1e-5", "--every", "100"
    )
    assert (
        code == 0
        and len([line for line in out.splitlines() if line.strip().startswith(("100 ", "5100 "))])
        == 2
    )


def test_every_epoch_as_the_run_counts_it(capsys: pytest.CaptureFixture[str]) -> None:
    """Epochs of 1 / q steps for a run given by its sampling rate, of ceil(clients / per round) for DP-FedAvg."""
    code, out, _ = _run(
        capsys, "epsilon", "--sample-rate", "0.01", "--steps", "250", "--noise-multiplier", "1", "--delta", "1e-5",
        "--every", "epoch", "--format", "json",
    )  # fmt: skip
    assert code == 0 and [r["steps"] for r in json.loads(out)] == [100, 200, 250]
    code, out, _ = _run(
        capsys, "delta", "--total-clients", "3400", "--clients-per-round", "100", "--rounds", "100",
        "--noise-multiplier", "1", "--epsilon", "1", "--every", "epoch", "--format", "csv",
    )  # fmt: skip
    assert code == 0 and pd.read_csv(io.StringIO(out))["rounds"].tolist() == [34, 68, 100]


def test_delta_every_rounds_of_an_accountant(capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "-a",
        "pld_subsampled_gaussian",
        "-p",
        "sigma=1",
        "-p",
        "sampling_rate=0.01",
        "-p",
        "rounds=1000",
    ]
    code, out, _ = _run(
        capsys, "delta", *args, "--epsilon", "1", "--every", "300", "--format", "csv"
    )
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert table["rounds"].tolist() == [300, 600, 900, 1000]
    np.testing.assert_allclose(
        table["delta"],
        SubsampledGaussianPLD(1.0, 0.01, 1000).delta_curve(1.0, every=300).upper,
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        table["delta"][1], SubsampledGaussianPLD(1.0, 0.01, 600).delta(1.0), rtol=1e-12
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([*RUN, "--epochs", "3", "--every", "2.5"], "--every: every must be an integer >= 1"),
        ([*RUN, "--epochs", "3", "--every", "x"], "--every takes a whole number or 'epoch'"),
        (
            [*RUN, "--epochs", "1,2", "--every", "epoch"],
            "--every follows one run: give one value of --epochs",
        ),
        (
            [
                "-a",
                "pld_subsampled_gaussian",
                "-p",
                "sigma=1",
                "-p",
                "sampling_rate=0.01",
                "-p",
                "rounds=10",
            ]
            + ["--every", "epoch"],
            "--every epoch needs a training run",
        ),
        (
            ["-a", "gaussian", "-p", "sigma=1", "--every", "2"],
            "--every needs the run's length: give rounds",
        ),
        ([*RUN, "--epochs", "3", "--every", "0"], "--every: every must be an integer >= 1"),
        (
            ["-a", "gaussian,pld_subsampled_gaussian", "-p", "rounds=10", "--every", "2"],
            "one run of one accountant",
        ),
    ],
)
def test_every_refusals(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, _, err = _run(capsys, "epsilon", *argv, "--delta", "1e-5")
    assert code == 2
    assert message in err
