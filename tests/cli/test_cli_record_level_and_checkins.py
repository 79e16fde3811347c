"""A record inside FL (``record_level_fedavg``) and random check-ins (``random_checkins``) on the command line: each
answer is the class's own (``training.RecordLevelFedAvg``, ``training.RandomCheckIns``) at the same run, the flags
are the classes' arguments with dashes, and a refusal names the flag or the parameter as it was given."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from hockeystick import training
from hockeystick.calibrate import calibrate
from hockeystick.cli import main

H = [
    "-p",
    "value_discretization_interval=1e-2",
]  # a coarse grid: the CLI and the class on the same one
RECORD = ["--client-sample-rate", "0.05", "--local-steps", "4", "--rounds", "20", *H]
CHECKINS = ["--checkin-probability", "0.5", "--slots", "4", "--passes", "5", *H]


def _csv(capsys, argv: list[str]) -> pd.DataFrame:
    code = main([*argv, "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


def test_epsilon_of_a_record_inside_fl_is_the_classs_at_each_noise(capsys):
    table = _csv(
        capsys,
        ["epsilon", "record_level_fedavg", "--noise-multiplier", "1,2", *RECORD, "--delta", "1e-5"],
    )
    run = training.RecordLevelFedAvg(
        noise_multiplier=[1.0, 2.0],
        client_sample_rate=0.05,
        local_steps=4,
        rounds=20,
        value_discretization_interval=1e-2,
    )
    np.testing.assert_array_equal(table["epsilon"].to_numpy(), run.epsilon(1e-5))


def test_delta_bracket_of_sampled_local_batches_is_the_classs(capsys):
    argv = [
        "delta",
        "record_level_fedavg",
        "--noise-multiplier",
        "1",
        *RECORD,
        "--local-sample-rate",
        "0.5",
    ]
    table = _csv(capsys, [*argv, "--epsilon", "1", "--bound", "both"])
    run = training.RecordLevelFedAvg(
        noise_multiplier=1.0,
        client_sample_rate=0.05,
        local_steps=4,
        rounds=20,
        local_sample_rate=0.5,
        value_discretization_interval=1e-2,
    )
    lower, upper = run.delta(1.0, bound="both")
    assert (table["delta_lower"].iloc[0], table["delta_upper"].iloc[0]) == (
        lower,
        upper,
    ) and 0 < lower <= upper


def test_random_checkins_epsilon_bracket_is_the_classs(capsys):
    table = _csv(
        capsys,
        ["epsilon", "random_checkins", "--noise-multiplier", "1", *CHECKINS, "--delta", "1e-5"],
    )
    run = training.RandomCheckIns(
        noise_multiplier=1.0,
        checkin_probability=0.5,
        slots=4,
        passes=5,
        value_discretization_interval=1e-2,
    )
    assert table["epsilon"].iloc[0] == run.epsilon(1e-5)


@pytest.mark.parametrize(
    ("name", "flags", "build"),
    [
        (
            "record_level_fedavg",
            RECORD,
            lambda z: training.RecordLevelFedAvg(
                noise_multiplier=z,
                client_sample_rate=0.05,
                local_steps=4,
                rounds=20,
                value_discretization_interval=1e-2,
            ),
        ),
        (
            "random_checkins",
            CHECKINS,
            lambda z: training.RandomCheckIns(
                noise_multiplier=z,
                checkin_probability=0.5,
                slots=4,
                passes=5,
                value_discretization_interval=1e-2,
            ),
        ),
    ],
)
def test_calibrated_noise_is_pythons_and_meets_the_target_on_the_class(capsys, name, flags, build):
    table = _csv(capsys, ["calibrate", name, *flags, "--epsilon", "2", "--delta", "1e-5"])
    z = float(table["noise_multiplier"].iloc[0])
    words = {
        "record_level_fedavg": dict(client_sample_rate=0.05, local_steps=4, rounds=20),
        "random_checkins": dict(checkin_probability=0.5, slots=4, passes=5),
    }[name]
    assert z == calibrate(
        name,
        "noise_multiplier",
        epsilon=2.0,
        delta=1e-5,
        value_discretization_interval=1e-2,
        **words,
    )
    assert (
        build(z).delta(2.0) <= 1e-5 < build(z * (1 - 1e-4)).delta(2.0)
    )  # the smallest noise within the target


def test_sweep_over_passes_is_the_class_broadcast(capsys):
    argv = [
        "sweep",
        "random_checkins",
        "--noise-multiplier",
        "1",
        "--checkin-probability",
        "0.5",
        "--slots",
        "4",
    ]
    table = _csv(
        capsys, [*argv, "--passes", "1,3,5", *H, "--delta", "1e-5", "-q", "epsilon", "-o", "-"]
    )
    run = training.RandomCheckIns(
        noise_multiplier=1.0,
        checkin_probability=0.5,
        slots=4,
        passes=[1, 3, 5],
        value_discretization_interval=1e-2,
    )
    np.testing.assert_array_equal(
        table.sort_values("passes")["epsilon"].to_numpy(), run.epsilon(1e-5)
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            [
                "record_level_fedavg",
                "--noise-multiplier",
                "1",
                *RECORD[2:],
                "--client-sample-rate",
                "1.5",
            ],
            "--client-sample-rate must lie in (0, 1]",
        ),
        (
            [
                "record_level_fedavg",
                "--noise-multiplier",
                "1",
                *RECORD[2:],
                "-p",
                "client_sample_rate=0",
            ],
            "client_sample_rate must lie in (0, 1]",
        ),
        (
            [
                "record_level_fedavg",
                "--noise-multiplier",
                "1",
                *RECORD[:2],
                "--local-steps",
                "2.5",
                "--rounds",
                "3",
            ],
            "--local-steps takes integers",
        ),
        (
            ["record_level_fedavg", "--noise-multiplier", "1", *RECORD, "--local-sample-rate", "0"],
            "--local-sample-rate must lie in (0, 1]",
        ),
        (
            ["random_checkins", "--noise-multiplier", "1", *CHECKINS[:2], "--slots", "0"],
            "--slots must be an integer >= 1",
        ),
        (
            [
                "random_checkins",
                "--noise-multiplier",
                "1",
                *CHECKINS[2:],
                "--checkin-probability",
                "2",
            ],
            "--checkin-probability must lie in (0, 1]",
        ),
        (["random_checkins", "--noise-multiplier", "-1", *CHECKINS], "--noise-multiplier must"),
    ],
)
def test_a_refusal_names_the_flag_or_parameter_given(capsys, argv, message):
    code = main(["epsilon", *argv, "--delta", "1e-5"])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err


def test_the_listing_and_the_help_show_both_runs_and_their_flags(capsys):
    assert main(["accountants"]) == 0
    out = capsys.readouterr().out
    for name, calibrated in (
        ("record_level_fedavg", "client_sample_rate (largest)"),
        ("random_checkins", "checkin_probability (largest)"),
    ):
        block = out.split(f"\n{name}: ", 1)[1].split("\n", 3)
        assert "noise_multiplier (smallest)" in block[2] and calibrated in block[2], block
    with pytest.raises(SystemExit):
        main(["epsilon", "--help"])
    help_text = capsys.readouterr().out
    for flag in (
        "--client-sample-rate",
        "--local-steps",
        "--local-sample-rate",
        "--checkin-probability",
        "--slots",
        "--passes",
    ):
        assert flag in help_text, flag
