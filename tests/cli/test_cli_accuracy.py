"""``--accuracy`` beside the training flags (DP-SGD, DP-FedAvg and the other PLD accountants): the certified
bracket's target width, as ``-p accuracy=`` gives it; and a warning printed as one line in the command line's
words, not Python's file, line and source."""

from __future__ import annotations

import json

import pytest

from hockeystick.cli import main
from hockeystick.training import DPSGD, DPFedAvg

SGD = ["--dataset-size", "60000", "--batch-size", "256", "--epochs", "1", "--noise-multiplier", "1"]
FEDAVG = [
    "--total-clients",
    "1000000",
    "--clients-per-round",
    "1000",
    "--rounds",
    "100",
    "--noise-multiplier",
    "1",
]


def _bracket(capsys, argv: list[str]) -> tuple[float, float]:
    assert main(["epsilon", *argv, "--bound", "both", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    return row["epsilon_lower"], row["epsilon_upper"]


@pytest.mark.parametrize(
    "flags, run",
    [
        (
            SGD,
            DPSGD(
                dataset_size=60_000, batch_size=256, epochs=1, noise_multiplier=1.0, accuracy=1e-3
            ),
        ),
        (
            FEDAVG,
            DPFedAvg(
                total_clients=10**6,
                clients_per_round=1000,
                rounds=100,
                noise_multiplier=1.0,
                accuracy=1e-3,
            ),
        ),
    ],
)
def test_accuracy_is_a_training_flag_that_narrows_the_bracket_as_the_constructor_does(
    capsys, flags, run
):
    given = _bracket(capsys, [*flags, "--delta", "1e-10", "--accuracy", "1e-3"])
    assert given == pytest.approx(run.epsilon(1e-10, bound="both"), rel=1e-12, abs=0)
    assert given[1] - given[0] <= 1e-3
    assert given == _bracket(capsys, [*flags, "--delta", "1e-10", "-p", "accuracy=1e-3"])
    default = _bracket(capsys, [*flags, "--delta", "1e-10"])
    assert max(default[0], given[0]) <= min(
        default[1], given[1]
    )  # two certified brackets hold the one truth


def test_accuracy_is_shown_beside_the_training_flags(capsys):
    with pytest.raises(SystemExit):
        main(["epsilon", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    group = text.split("a training run, in its own words", 1)[1].split(
        "a matrix mechanism, in its own words"
    )[0]
    assert "--accuracy VALUE the certified bracket's target width" in group


def test_accuracy_given_twice_is_refused_naming_both(capsys):
    assert (
        main(["epsilon", *SGD, "--delta", "1e-5", "--accuracy", "1e-3", "-p", "accuracy=1e-2"]) == 2
    )
    assert "'accuracy' is given twice" in capsys.readouterr().err


@pytest.mark.filterwarnings("default::hockeystick.pld.refine.unmet.AccuracyNotMetWarning")
def test_a_warning_is_one_line_in_the_command_lines_words(capsys):
    """An accuracy below the run's reach answers with a certified bracket and an AccuracyNotMetWarning: one line
    'hockeystick epsilon: warning: ...' naming --accuracy, no Python file, line or source."""
    assert main(["epsilon", *SGD, "--delta", "1e-10", "--accuracy", "1e-12"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hockeystick epsilon: warning: "), lines
    assert "--accuracy" in lines[0] and ".py" not in lines[0] and "Warning:" not in lines[0]


@pytest.mark.filterwarnings("default::hockeystick.pld.refine.unmet.AccuracyNotMetWarning")
def test_a_warning_suggests_the_grid_keywords_as_their_flags(capsys):
    """A DP-SGD run given by its flags whose delta is below every tail: the warning's 'pass accuracy= (e.g.
    accuracy=1e-3) ... a smaller tail=' reads as the flags a user types, with no doubled space."""
    flags = [
        "--sample-rate",
        "0.01",
        "--steps",
        "2000",
        "--noise-multiplier",
        "1.1",
        "--tail",
        "1e-12",
    ]
    assert main(["epsilon", *flags, "--delta", "1e-20"]) == 0
    (line,) = capsys.readouterr().err.splitlines()
    assert "pass --accuracy (e.g. --accuracy 1e-3)" in line and "a smaller --tail where" in line
    assert "accuracy=" not in line and "tail=" not in line and "  " not in line
