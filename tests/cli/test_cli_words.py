"""A refusal names what its reader can change: Python arguments from Python, flags (or a compose file's
keys) from the command line, each phrase translated in one place (hockeystick/cli/arguments.py).

Every remedy is run both ways: through ``hockeystick.cli.main`` (its stderr) and through the Python call
that raises it (its message); the command line's advice is then followed and must work.
"""

from __future__ import annotations

import logging
import re

import pytest

import hockeystick.pld.compose.fft
from hockeystick import training
from hockeystick.cli import main
from hockeystick.cli.arguments import COMMAND_LINE_WORDS, command_line_words
from hockeystick.reproduce.example import run_example
from hockeystick.simulate.row_stream import RowStream
from hockeystick.sweep.checkpoint import parts_directory
from hockeystick.sweep.grid import Grid
from hockeystick.sweep.run import run_sweep

DP_SGD = [
    "--dataset-size",
    "60000",
    "--batch-size",
    "256",
    "--epochs",
    "2",
    "--noise-multiplier",
    "0.7",
]
PYTHON_ONLY = (
    "overwrite=True",
    "allow_large=True",
    "resume=True",
    "out_dir",
    "max_points",
    "DEFAULT_MAX_POINTS",
)


def _invoke(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def _in_command_line_words(err: str, *flags: str) -> None:
    for flag in flags:
        assert flag in err, err
    for phrase in PYTHON_ONLY:
        assert phrase not in err, (phrase, err)


@pytest.fixture
def small_memory(monkeypatch):
    """A composition window cap of 2^13 grid points: the refusal a long run meets, in a second."""
    monkeypatch.setattr(hockeystick.pld.compose.fft, "DEFAULT_MAX_POINTS", 1 << 13)


def test_too_many_grid_points_python(small_memory):
    with pytest.raises(ValueError) as refused:
        training.DPSGD(noise_multiplier=0.7, dataset_size=60000, batch_size=256, epochs=2).epsilon(
            1e-5
        )
    message = str(refused.value)
    assert "a larger value_discretization_interval or accuracy" in message
    assert "raise max_points (hockeystick.pld.compose.fft.DEFAULT_MAX_POINTS)" in message
    assert "-p " not in message


def test_too_many_grid_points_command_line(capsys, small_memory):
    code, out, err = _invoke(capsys, ["epsilon", *DP_SGD, "--delta", "1e-5"])
    assert code == 2 and out == ""
    _in_command_line_words(err, "-p value_discretization_interval=VALUE", "-p accuracy=VALUE")
    # the advice works: a coarser grid fits
    code, out, err = _invoke(
        capsys, ["epsilon", *DP_SGD, "--delta", "1e-5", "-p", "value_discretization_interval=0.5"]
    )
    assert code == 0, err
    code, out, err = _invoke(capsys, ["epsilon", *DP_SGD, "--delta", "1e-5", "-p", "accuracy=1"])
    assert code == 0, err


def test_the_default_cap_meets_the_run_of_the_issue_with_command_line_advice(capsys):
    """DP-SGD at noise 0.1 for 60 epochs needs ~5.8e7 grid points at the default accuracy."""
    if hockeystick.pld.compose.fft.DEFAULT_MAX_POINTS > 5e7:
        pytest.skip("this machine's memory allows the window")
    code, out, err = _invoke(
        capsys,
        [
            "epsilon",
            "--dataset-size",
            "60000",
            "--batch-size",
            "256",
            "--epochs",
            "60",
            "--noise-multiplier",
            "0.1",
            "--delta",
            "1e-5",
        ],
    )
    assert code == 2
    _in_command_line_words(err, "-p value_discretization_interval=VALUE")


def test_too_many_grid_points_compose(capsys, tmp_path, small_memory):
    run = tmp_path / "run.toml"
    run.write_text(
        'value_discretization_interval = 1e-4\n[[stage]]\nmechanism = "subsampled_gaussian"\n'
        "sigma = 0.7\nsampling_rate = 0.01\nrounds = 500\n"
    )
    code, out, err = _invoke(capsys, ["compose", str(run), "--delta", "1e-5"])
    assert code == 2
    _in_command_line_words(err, "a larger value_discretization_interval in the compose file")
    assert "-p " not in err
    run.write_text(run.read_text().replace("1e-4", "0.5"))
    code, out, err = _invoke(capsys, ["compose", str(run), "--delta", "1e-5"])
    assert code == 0, err


GRID = Grid.from_parameters(
    ["gaussian"], "delta", {"sigma": "1,2", "rounds": "10", "epsilon": "1"}, "upper"
)


def test_an_existing_output(capsys, tmp_path):
    existing = tmp_path / "existing.csv"
    existing.write_text("precious")
    with pytest.raises(ValueError, match="pass overwrite=True, or choose another name") as refused:
        run_sweep(GRID, existing)
    assert "--force" not in str(refused.value)
    code, out, err = _invoke(
        capsys,
        [
            "sweep",
            "-a",
            "gaussian",
            "-p",
            "sigma=1,2",
            "-p",
            "rounds=10",
            "--epsilon",
            "1",
            "-o",
            str(existing),
            "--no-progress",
        ],
    )
    assert code == 2
    _in_command_line_words(err, "pass --force, or choose another name")
    code, out, err = _invoke(
        capsys,
        [
            "sweep",
            "-a",
            "gaussian",
            "-p",
            "sigma=1,2",
            "-p",
            "rounds=10",
            "--epsilon",
            "1",
            "-o",
            str(existing),
            "--no-progress",
            "--force",
        ],
    )
    assert code == 0, err


def test_a_sweep_too_large(capsys, tmp_path):
    huge = Grid.from_parameters(
        ["gaussian"],
        "delta",
        {
            "sigma": "linear:1:2:10000",
            "rounds": "linear:1:10000:10000",
            "epsilon": "linear:0.1:8:10000",
        },
        "upper",
    )
    with pytest.raises(ValueError, match="pass allow_large=True to run it anyway") as refused:
        run_sweep(huge, tmp_path / "huge.parquet")
    assert "--allow-large" not in str(refused.value)
    code, out, err = _invoke(
        capsys,
        [
            "sweep",
            "-a",
            "gaussian",
            "-p",
            "sigma=linear:1:2:10000",
            "-p",
            "rounds=linear:1:10000:10000",
            "--epsilon",
            "linear:0.1:8:10000",
            "-o",
            str(tmp_path / "huge.parquet"),
        ],
    )
    assert code == 2
    _in_command_line_words(err, "pass --allow-large to run it anyway")


def test_the_example_over_its_own_files(capsys, tmp_path):
    (tmp_path / "example.toml").write_text("edited")
    with pytest.raises(
        ValueError, match="pass overwrite=True to replace them, or give another out_dir"
    ) as refused:
        run_example(tmp_path)
    assert "--" not in str(refused.value)
    code, out, err = _invoke(capsys, ["sweep", "--example", "--out-dir", str(tmp_path)])
    assert code == 2
    _in_command_line_words(err, "pass --force to replace them, or give another --out-dir")


def test_leftovers_of_an_interrupted_sweep(capsys, tmp_path, caplog):
    out = tmp_path / "out.csv"

    def leave_a_chunk() -> None:
        parts = parts_directory(out)
        parts.mkdir(exist_ok=True)
        (parts / "chunk-000000.npz").write_bytes(b"finished")

    leave_a_chunk()
    with caplog.at_level(logging.WARNING, logger="hockeystick"):
        run_sweep(GRID, out)
    assert "resume=True would have kept them" in caplog.text and "--resume" not in caplog.text
    out.unlink()
    leave_a_chunk()
    code, _, err = _invoke(
        capsys,
        [
            "sweep",
            "-a",
            "gaussian",
            "-p",
            "sigma=1,2",
            "-p",
            "rounds=10",
            "--epsilon",
            "1",
            "-o",
            str(out),
            "--no-progress",
        ],
    )
    assert code == 0, err
    _in_command_line_words(err, "--resume would have kept them")


def test_a_simulation_stream_over_an_existing_file(tmp_path):
    existing = tmp_path / "rows.csv"
    existing.write_text("precious")
    with pytest.raises(ValueError, match="pass overwrite=True to replace it") as refused:
        RowStream(existing, ["a"])
    assert "--force" not in str(refused.value)
    assert command_line_words(str(refused.value), "simulate").endswith("pass --force to replace it")


@pytest.mark.parametrize("phrase", sorted(COMMAND_LINE_WORDS))
def test_every_phrase_is_rewritten_whole_and_only_whole(phrase):
    assert command_line_words(f"a {phrase} b", "delta") == f"a {COMMAND_LINE_WORDS[phrase]} b"
    if phrase[0].isalpha():
        assert command_line_words(f"my_{phrase}", "delta") == f"my_{phrase}"


@pytest.mark.parametrize(
    ("flag", "value", "python_name"),
    [
        ("--noise-multiplier", "-1", "noise_multiplier"),
        ("--batch-size", "0", "batch_size"),
        ("--epochs", "2.5e300", "epochs"),
    ],
)
def test_a_training_run_refused_in_its_flags(capsys, flag, value, python_name):
    """A run given by its training flags hears of them (--batch-size); the Python call of the same run
    names the argument (batch_size); an accountant given with -a keeps its parameter names."""
    argv = list(DP_SGD)
    argv[argv.index(flag) + 1] = value
    code, _, err = _invoke(capsys, ["epsilon", *argv, "--delta", "1e-5"])
    assert code == 2 and flag in err and not re.search(rf"(?<![-\w]){python_name}", err), err
    kwargs = {"dataset_size": 60000, "batch_size": 256, "epochs": 2, "noise_multiplier": 0.7}
    kwargs[python_name] = float(value)
    with pytest.raises(ValueError, match=python_name):
        training.DPSGD(**kwargs).epsilon(1e-5)
    code, _, err = _invoke(
        capsys, ["epsilon", "-a", "gaussian", "-p", "sigma=-1", "-p", "rounds=3", "--delta", "1e-5"]
    )
    assert code == 2 and "sigma must" in err, err
