"""The batch size (sampling rate) calibrated for a target at a fixed noise multiplier, and the noise multiplier
and batch size together at a fixed compute budget: each answer certified (its run's upper bound meets the
target) and extremal (one step past it breaks the target)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from hockeystick.calibrate import (
    FixedComputeTable,
    calibrate,
    calibrate_batch_size,
    calibrate_fixed_compute,
    default_batch_sizes,
)
from hockeystick.training import DPSGD

H = 1e-3  # a coarse loss grid keeps each run cheap; every check below uses the same grid
N = 2000
TARGET = dict(epsilon=2.0, delta=1e-5)


@pytest.mark.parametrize("sampling", ["poisson", "fixed_size"])
def test_batch_size_is_the_largest_certified_whole_batch_at_fixed_steps(sampling):
    z = 1.0 if sampling == "poisson" else 2.0
    run = dict(
        noise_multiplier=z,
        dataset_size=N,
        steps=200,
        sampling=sampling,
        value_discretization_interval=H,
    )
    b = calibrate_batch_size(**run, **TARGET)
    assert isinstance(b, int) and 1 <= b < N
    assert (
        DPSGD(batch_size=b, **run).delta(2.0) <= 1e-5
    )  # certified: the upper bound meets the target
    assert DPSGD(batch_size=b + 1, **run).delta(2.0) > 1e-5  # extremal: one record more breaks it
    generic = "dp_sgd" if sampling == "poisson" else "dp_sgd_fixed_size"
    assert b == calibrate(
        generic, "batch_size", **TARGET, **{k: v for k, v in run.items() if k != "sampling"}
    )


def test_batch_size_at_fixed_epochs_meets_the_target_under_either_epoch_count():
    for convention in ("ceil", "opacus"):
        run = dict(noise_multiplier=1.0, dataset_size=N, epochs=2, value_discretization_interval=H)
        b = calibrate_batch_size(
            **run, steps_per_epoch=convention, target_epsilon=2.0, target_delta=1e-5
        )
        assert DPSGD(batch_size=b, steps_per_epoch=convention, **run).epsilon(1e-5) <= 2.0


def test_sample_rate_of_a_run_given_by_its_rate_is_certified_and_extremal():
    run = dict(noise_multiplier=1.0, steps=200, value_discretization_interval=H)
    q = calibrate("dp_sgd", "sample_rate", **TARGET, **run)
    assert DPSGD(sample_rate=q, **run).delta(2.0) <= 1e-5
    assert DPSGD(sample_rate=q * (1 + 1e-6), **run).delta(2.0) > 1e-5
    assert calibrate("dp_sgd", "sampling_probability", **TARGET, **run) == q


@pytest.mark.parametrize(
    "budget, steps",
    [
        (dict(epochs=2), lambda b: 2 * math.ceil(N / b)),
        (dict(epochs=2, steps_per_epoch="opacus"), lambda b: math.ceil(2 * N / b)),
        (dict(examples=6000), lambda b: 6000 // b),
    ],
)
def test_fixed_compute_table_rows_are_certified_and_extremal(budget, steps):
    sizes = [16, 48, 200]
    table = calibrate_fixed_compute(
        dataset_size=N, batch_sizes=sizes, value_discretization_interval=H, **budget, **TARGET
    )
    assert isinstance(table, FixedComputeTable) and table.batch_size.tolist() == sizes
    assert table.steps.tolist() == [steps(b) for b in sizes]
    for b, t, z, e in zip(table.batch_size, table.steps, table.noise_multiplier, table.epsilon):
        run = dict(dataset_size=N, batch_size=int(b), steps=int(t), value_discretization_interval=H)
        assert DPSGD(noise_multiplier=z, **run).delta(2.0) <= 1e-5  # the target, certified at z
        assert e == min(DPSGD(noise_multiplier=z, **run).epsilon(1e-5), 2.0)
        assert DPSGD(noise_multiplier=z * (1 - 1e-6), **run).delta(2.0) > 1e-5
        assert z == pytest.approx(
            calibrate("dp_sgd", "noise_multiplier", **run, **TARGET), rel=1e-8
        )
    # the same compute in larger batches: fewer steps, each needing more noise
    assert np.all(np.diff(table.noise_multiplier) > 0) and np.all(np.diff(table.steps) < 0)


@pytest.mark.parametrize(
    "sampling", ["fixed_size", pytest.param("balls_in_bins", marks=pytest.mark.slow)]
)
def test_fixed_compute_with_other_batches(sampling):
    # certified and extremal do not depend on the data set's size: 200 records (10 and 2 steps of an epoch)
    # keep a composition of steps, at about a third of what balls-in-bins costs at N
    n = 200
    table = calibrate_fixed_compute(
        dataset_size=n,
        epochs=1,
        batch_sizes=[20, 100],
        sampling=sampling,
        value_discretization_interval=H,
        **TARGET,
    )
    for b, t, z in zip(table.batch_size, table.steps, table.noise_multiplier):
        run = dict(
            dataset_size=n,
            batch_size=int(b),
            steps=int(t),
            sampling=sampling,
            value_discretization_interval=H,
        )
        assert (
            DPSGD(noise_multiplier=z, **run).delta(2.0)
            <= 1e-5
            < DPSGD(noise_multiplier=z * (1 - 1e-6), **run).delta(2.0)
        )


def test_the_printed_table_rounds_up():
    table = FixedComputeTable(
        batch_size=np.array([256]),
        steps=np.array([14100]),
        noise_multiplier=np.array([0.9691611]),
        epsilon=np.array([2.9999999917]),
        delta=1e-5,
        sampling="poisson",
    )
    text = str(table)
    assert (
        "0.969162" in text and " 3\n" not in text and text.rstrip().endswith("3")
    )  # 3 >= 2.99999999
    assert table.rows() == [
        {"batch_size": 256, "steps": 14100, "noise_multiplier": 0.9691611, "epsilon": 2.9999999917}
    ]


def test_default_candidates_are_powers_of_two_up_to_an_eighth():
    assert default_batch_sizes(60_000).tolist() == [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    assert default_batch_sizes(10).tolist() == [10]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(epochs=1, examples=100), "give exactly one compute budget"),
        (dict(), "give exactly one compute budget"),
        (dict(examples=10, batch_sizes=[16]), "examples must allow one step of every batch size"),
        (dict(epochs=1, batch_sizes=[N + 1]), "batch_sizes must be"),
        (dict(epochs=1, batch_sizes=[16], target_epsilom=1.0), r"did you mean 'target_epsilon'"),
    ],
)
def test_fixed_compute_refusals(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        calibrate_fixed_compute(dataset_size=N, **TARGET, **kwargs)


def test_cli_fixed_compute_and_batch_size(capsys):
    from hockeystick.cli import main

    run = ["--dataset-size", str(N), "--epsilon", "2", "--delta", "1e-5"]
    assert (
        main(
            [
                "calibrate",
                "--fixed-compute",
                *run,
                "--epochs",
                "2",
                "--batch-size",
                "16,200",
                "--format",
                "json",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    table = calibrate_fixed_compute(dataset_size=N, epochs=2, batch_sizes=[16, 200], **TARGET)
    assert rows == table.rows()
    assert (
        main(["calibrate", "--fixed-compute", *run, "--examples", "6000", "--batch-size", "200"])
        == 0
    )
    out = capsys.readouterr().out
    assert "batch_size" in out and "noise_multiplier" in out and " 30 " in out  # 6000 // 200 steps
    assert main(["calibrate", "--examples", "6000", *run]) == 2
    assert "goes with --fixed-compute" in capsys.readouterr().err
    argv = [
        "calibrate",
        "--parameter",
        "batch_size",
        *run,
        "--steps",
        "200",
        "--noise-multiplier",
        "1",
    ]
    assert main(argv) == 0
    b = calibrate_batch_size(noise_multiplier=1.0, dataset_size=N, steps=200, **TARGET)
    assert f"{b}" in capsys.readouterr().out


def test_batch_size_of_shuffled_batches_is_refused_naming_sampling():
    with pytest.raises(
        ValueError, match=r"sampling must be one whose batch size can be calibrated .*got 'shuffle'"
    ):
        calibrate_batch_size(
            noise_multiplier=1.0, dataset_size=N, epochs=1, sampling="shuffle", **TARGET
        )


@pytest.mark.parametrize(
    "function, kwargs, typo, meant",
    [
        (
            calibrate_batch_size,
            dict(noise_multipler=1.0, dataset_size=N, epochs=1),
            "noise_multipler",
            "noise_multiplier",
        ),
        (calibrate_fixed_compute, dict(dataset_size=N, epoch=1), "epoch", "epochs"),
    ],
)
def test_a_misspelled_required_keyword_is_named(function, kwargs, typo, meant):
    with pytest.raises(
        TypeError, match=rf"unexpected keyword argument '{typo}' \(did you mean '{meant}'\?\)"
    ):
        function(**kwargs, **TARGET)


@pytest.mark.parametrize(
    ("typo", "meant"), [("epsilom", "epsilon"), ("target_delt", "target_delta")]
)
def test_calibrate_names_a_misspelled_target(typo, meant):
    target = {"epsilon": 1.0, "delta": 1e-5}
    target.pop(meant.removeprefix("target_"))
    with pytest.raises(TypeError, match=rf"got '{typo}' \(did you mean '{meant}'\?\)"):
        calibrate("gaussian", "sigma", rounds=1, **target, **{typo: 1.0 if "eps" in typo else 1e-5})
