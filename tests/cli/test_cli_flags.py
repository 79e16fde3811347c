"""The command line as a user types it: flags are matched whole (a prefix is refused with the flag it may
stand for), a setting given twice by two spellings is refused naming both, every refusal names the flag
that was given, and the hints and help name what works with the installed extras."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from hockeystick.cli import build_parser, main

SGD = ["--dataset-size", "60000", "--batch-size", "256", "--noise-multiplier", "1.1"]


def _invoke(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def _subparsers():
    import argparse

    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


# --- flags are matched whole --------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, typed, meant",
    [
        (["epsilon", *SGD, "--epoch", "60", "--delta", "1e-5"], "--epoch", "--epochs"),
        (
            [
                "epsilon",
                "--dataset-size",
                "60000",
                "--batch-size",
                "256",
                "--epochs",
                "60",
                "--noise",
                "1.1",
                "--delta",
                "1e-5",
            ],
            "--noise",
            "--noise-multiplier",
        ),
        (
            ["calibrate", "-a", "gaussian", "--eps", "1", "--delta", "1e-5", "-p", "rounds=3"],
            "--eps",
            "--epsilon",
        ),
        (
            [
                "sweep",
                "-a",
                "gaussian",
                "-p",
                "sigma=1,2",
                "-p",
                "rounds=10",
                "--delta",
                "1e-5",
                "-q",
                "epsilon",
                "--output-sc",
                "x.csv",
            ],
            "--output-sc",
            "--output-scale",
        ),
    ],
)
def test_a_prefix_of_a_flag_is_refused_with_the_full_flag(capsys, argv, typed, meant):
    code, out, err = _invoke(capsys, argv)
    assert code == 2 and out == "", err
    assert f"unrecognized arguments: {typed}" in err and f"did you mean {meant}" in err, err


def test_every_parser_matches_flags_whole():
    parsers = [build_parser(), *_subparsers().values()]
    assert all(not p.allow_abbrev for p in parsers)


def test_two_prefixes_are_each_given_their_flag(capsys):
    code, _, err = _invoke(
        capsys, ["epsilon", *SGD[:4], "--epoch", "60", "--noise", "1.1", "--delta", "1e-5"]
    )
    assert code == 2
    assert (
        "--epoch: did you mean --epochs?" in err
        and "--noise: did you mean --noise-multiplier?" in err
    ), err


def test_output_is_the_long_form_of_o(capsys, tmp_path):
    """--output names the result file (-o), as in curl and pip; the BLT's --output-scale is never read for it."""
    out_file = tmp_path / "x.csv"
    argv = [
        "sweep",
        "-a",
        "gaussian",
        "-p",
        "sigma=1,2",
        "-p",
        "rounds=10",
        "--delta",
        "1e-5",
        "-q",
        "epsilon",
    ]
    code, _, err = _invoke(capsys, [*argv, "--output", str(out_file), "--no-progress"])
    assert code == 0, err
    assert out_file.read_text().splitlines()[0].startswith("sigma")
    for command in ("plot", "simulate"):
        assert "--output" in _subparsers()[command]._option_string_actions


# --- a setting is given once --------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, first, second",
    [
        (
            [
                "calibrate",
                "-a",
                "gaussian",
                "--epsilon",
                "3",
                "--target-epsilon",
                "5",
                "--delta",
                "1e-5",
                "-p",
                "rounds=10",
            ],
            "--epsilon 3",
            "--target-epsilon 5",
        ),
        (
            [
                "epsilon",
                "-a",
                "gaussian",
                "-p",
                "sigma=1",
                "--target-delta",
                "1e-5",
                "--delta",
                "1e-6",
            ],
            "--target-delta 1e-5",
            "--delta 1e-6",
        ),
        (
            [
                "epsilon",
                "--sample-rate",
                "0.01",
                "--sampling-probability",
                "0.5",
                "--steps",
                "10",
                "--noise-multiplier",
                "1",
                "--delta",
                "1e-5",
            ],
            "--sample-rate 0.01",
            "--sampling-probability 0.5",
        ),
        (
            ["epsilon", *SGD, "--epochs", "1", "--epochs", "2", "--delta", "1e-5"],
            "--epochs 1",
            "--epochs 2",
        ),
    ],
)
def test_two_values_of_one_setting_are_refused_naming_both_flags(capsys, argv, first, second):
    code, out, err = _invoke(capsys, argv)
    assert code == 2 and out == ""
    assert f"{first} and {second} are two values of one setting" in err, err


def test_a_synonym_repeating_the_same_value_is_accepted(capsys):
    argv = [
        "calibrate",
        "-a",
        "gaussian",
        "--epsilon",
        "1",
        "--target-epsilon",
        "1",
        "--delta",
        "1e-5",
    ]
    code, out, err = _invoke(capsys, [*argv, "-p", "rounds=10"])
    assert code == 0, err
    code, alone, err = _invoke(
        capsys,
        ["calibrate", "-a", "gaussian", "--epsilon", "1", "--delta", "1e-5", "-p", "rounds=10"],
    )
    assert out == alone


# --- every refusal names the flag given ---------------------------------------------------------

# a value outside its domain, refused by the flag as typed: (argv, the flag named at the start of the rule)
NAMED = [
    (
        ["epsilon", "-a", "gaussian", "-p", "sigma=1", "-p", "rounds=10", "--delta", "0"],
        "--delta must lie strictly between 0 and 1",
    ),
    (
        ["epsilon", "-a", "gaussian", "-p", "sigma=1", "-p", "rounds=10", "--target-delta", "0"],
        "--target-delta must lie strictly between 0 and 1",
    ),
    (
        ["risk", "-a", "gaussian", "-p", "sigma=1", "-p", "rounds=10", "--fpr", "2"],
        "--fpr must lie in [0, 1]",
    ),
    (
        [
            "epsilon",
            "dp_ftrl_banded",
            "--coefficients",
            "1,0.6,0.3",
            "--rounds",
            "100",
            "--noise-multiplier",
            "1",
            "--min-separation",
            "0",
            "--delta",
            "1e-6",
        ],
        "--min-separation must be an integer >= 1",
    ),
    (
        [
            "epsilon",
            "dp_ftrl_banded",
            "--coefficients",
            "0,0",
            "--rounds",
            "100",
            "--noise-multiplier",
            "1",
            "--min-separation",
            "50",
            "--delta",
            "1e-6",
        ],
        "--coefficients must have a non-zero entry",
    ),
    (
        [
            "calibrate",
            "--fixed-compute",
            "--dataset-size",
            "1000",
            "--batch-size",
            "0",
            "--epochs",
            "1",
            "--epsilon",
            "3",
            "--delta",
            "1e-5",
        ],
        "--batch-size must be an integer >= 1",
    ),
    (
        [
            "epsilon",
            "-a",
            "amplified_banded_mf",
            "--coefficients",
            "1,0.5",
            "--rounds",
            "100",
            "--noise-multiplier",
            "1",
            "--min-separation",
            "10",
            "--sampling-rate",
            "1.5",
            "--delta",
            "1e-6",
        ],
        "--sampling-rate must lie in",
    ),
    (["epsilon", *SGD, "--epochs", "abc", "--delta", "1e-5"], "--epochs 'abc': give a number"),
    (
        ["sweep", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "1", "-o", "out.txt"],
        "-o 'out.txt': unknown format",
    ),
    (
        ["sweep", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "1", "-o", "-", "-q", "abc"],
        "-q must be delta",
    ),
    (
        ["risk", "-a", "gaussian", "-p", "sigma=1", "--fpr", "0.1", "--total-clients", "100"],
        "the training flags (--total-clients) describe accountant 'dp_fedavg'",
    ),
]


@pytest.mark.parametrize("argv, message", NAMED)
def test_a_refusal_names_the_flag_given(capsys, argv, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = _invoke(capsys, argv)
    assert code == 2 and out == "", err
    assert message in err, err


def test_a_parameter_given_by_p_keeps_its_name(capsys):
    code, _, err = _invoke(
        capsys, ["epsilon", "-a", "gaussian", "-p", "sigma=1", "-p", "rounds=10", "-p", "delta=0"]
    )
    assert code == 2 and "error: delta must lie strictly between 0 and 1" in err, err


def test_the_table_covers_every_subcommand_and_every_flag_passed_to_the_library():
    from hockeystick.cli.arguments import PASSED, RENAMED, flag_table, python_name

    table = flag_table(build_parser())
    subparsers = _subparsers()
    assert set(table) == set(subparsers)
    for command, sub in subparsers.items():
        for action in sub._actions:
            if (
                action.option_strings
                and action.nargs != 0
                and (action.dest.startswith(("run_", "matrix_")) or action.dest in PASSED)
            ):
                assert table[command][python_name(action.dest)] in action.option_strings, (
                    command,
                    action.dest,
                )
    for phrase, (_, sources) in RENAMED.items():
        assert any(phrase in words for words in table.values()), phrase
        assert all(
            any(d == a.dest for sub in subparsers.values() for a in sub._actions) for d in sources
        ), phrase


# --- accountant names ---------------------------------------------------------------------------


def test_an_accountant_typo_gets_the_suggestion_and_a_pointer_not_the_whole_list(capsys):
    code, _, err = _invoke(capsys, ["epsilon", "-a", "gausian", "-p", "sigma=1", "--delta", "1e-5"])
    line = err.strip().splitlines()[-1]
    assert code == 2 and "unknown accountant 'gausian' (did you mean 'gaussian'?)" in line
    assert "'hockeystick accountants' lists them" in line and "-a NAME" in line
    assert "dp_fedavg_balls_in_bins" not in line and len(line) < 250, line


def test_a_misspelled_training_accountant_is_pointed_at_its_spelling(capsys):
    argv = ["epsilon", "dp_sdg", *SGD, "--epochs", "1", "--delta", "1e-5"]
    code, _, err = _invoke(capsys, argv)
    assert code == 2 and "unknown accountant 'dp_sdg' (did you mean 'dp_sgd'?)" in err, err
    assert "drop -a" not in err


# --- what --help and the hints show -------------------------------------------------------------


def test_help_shows_no_restructuredtext_markup(capsys):
    code, out, _ = _invoke(capsys, ["--help"])
    assert code == 0 and "The hockeystick command line" in out and "``" not in out
    for command in _subparsers():
        code, out, _ = _invoke(capsys, [command, "--help"])
        assert code == 0 and "``" not in out, command


def test_help_says_which_extra_each_file_format_needs(capsys):
    _, out, _ = _invoke(capsys, ["sweep", "--help"])
    assert "-o sweep.csv" in out
    assert '.parquet pip install "hockeystick[parquet]"' in " ".join(out.split())
    assert '.nc and .zarr "hockeystick[xarray]"' in " ".join(out.split())


def test_where_to_write_names_a_format_that_needs_no_extra_without_pyarrow(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    code, _, err = _invoke(capsys, ["sweep", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "1"])
    assert code == 2 and "-o FILE.csv" in err and "FILE.parquet" not in err, err


def test_every_epoch_prints_the_epochs_beside_the_steps(capsys):
    argv = [
        "epsilon",
        "--dataset-size",
        "1000",
        "--batch-size",
        "300",
        "--epochs",
        "3",
        "--noise-multiplier",
        "1.1",
    ]
    code, out, err = _invoke(capsys, [*argv, "--delta", "1e-5", "--every", "epoch"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].split() == ["steps", "epochs", "epsilon"]
    assert [line.split()[:2] for line in lines[3:]] == [["4", "1"], ["8", "2"], ["12", "3"]]
    argv = [
        "epsilon",
        "--sample-rate",
        "0.3",
        "--steps",
        "8",
        "--noise-multiplier",
        "1.1",
        "--delta",
        "1e-5",
    ]
    code, out, err = _invoke(capsys, [*argv, "--every", "epoch"])
    # epochs end at steps ceil(k / q) = 4, 7; the run stops at step 8, 2.4 epochs
    assert [line.split()[:2] for line in out.splitlines()[3:]] == [
        ["4", "1"],
        ["7", "2"],
        ["8", "2.4"],
    ]


# --- risk prints like the other commands ---------------------------------------------------------

RISK = ["risk", "-a", "gaussian", "-p", "sigma=1", "-p", "rounds=10", "--fpr", "0.001,0.01"]


def test_risk_prints_aligned_tables_and_json_and_csv_of_the_same_values(capsys):
    import json

    from hockeystick import risk
    from hockeystick.registry import get

    accountant = get("gaussian").build(sigma=1.0, rounds=10)
    (low, up), (adv_low, adv_up) = (
        risk.tpr_at_fpr(accountant, [0.001, 0.01], bound="both"),
        risk.advantage(accountant, bound="both"),
    )
    code, table, err = _invoke(capsys, RISK)
    assert code == 0, err
    lines = table.splitlines()
    assert lines[0].split() == ["fpr", "tpr_lower", "tpr_upper"] and set(lines[1]) <= {"-", " "}
    assert len({len(line) for line in lines[:4]}) == 1  # aligned columns
    assert "\t" not in table
    code, text, err = _invoke(capsys, [*RISK, "--format", "json"])
    rows = json.loads(text)
    assert [r["fpr"] for r in rows] == [0.001, 0.01]
    assert [r["tpr_lower"] for r in rows] == list(low) and [r["tpr_upper"] for r in rows] == list(
        up
    )
    assert {r["advantage_lower"] for r in rows} == {adv_low} and {
        r["advantage_upper"] for r in rows
    } == {adv_up}
    code, text, err = _invoke(capsys, [*RISK, "--format", "csv"])
    header, *values = text.splitlines()
    assert header == "fpr,tpr_lower,tpr_upper,advantage_lower,advantage_upper"
    assert [float(v) for v in values[1].split(",")] == [0.01, low[1], up[1], adv_low, adv_up]


def test_a_shell_gets_the_prefix_refused_and_output_written(tmp_path):
    """End to end, as a shell runs them: a prefix refused, --output written."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    run = subprocess.run(
        [sys.executable, "-m", "hockeystick", "epsilon", *SGD, "--epoch", "60", "--delta", "1e-5"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert (
        run.returncode == 2
        and "did you mean --epochs?" in run.stderr
        and "Traceback" not in run.stderr
    )
    out = tmp_path / "x.csv"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "hockeystick",
            "sweep",
            "-a",
            "gaussian",
            "-p",
            "sigma=1,2",
            "-p",
            "rounds=10",
            "--delta",
            "1e-5",
            "-q",
            "epsilon",
            "--output",
            str(out),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0 and out.exists(), run.stderr


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["epsilon", *SGD, "--epochs", "1", "--delta", "0"],
            "--delta must lie strictly between 0 and 1, got 0",
        ),
        (
            ["epsilon", "-a", "gaussian", "-p", "sigma=1", "--delta", "1e-5,1"],
            "--delta must lie strictly between",
        ),
        (
            ["delta", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "linear:-1:2:3"],
            "--epsilon must be >= 0, got -1",
        ),
        (
            ["calibrate", "-a", "gaussian", "--epsilon", "nan", "--delta", "1e-5"],
            "--epsilon must not be NaN, got nan",
        ),
        (
            ["risk", "-a", "gaussian", "-p", "sigma=1", "--fpr", "0.1,2"],
            "--fpr must lie in [0, 1], got 2",
        ),
        (["demo", "--delta", "0"], "--delta must lie strictly between 0 and 1, got 0"),
        (
            ["epsilon", "-a", "gaussian", "-p", "sigma=1", "-p", "delta=0"],
            "delta must lie strictly between 0 and 1",
        ),
    ],
)
def test_a_value_outside_its_domain_is_refused_before_the_numerics_are_imported(argv, message):
    """In a fresh interpreter, as a user's command: the refusal comes before numpy (or the registry) loads."""
    code = (
        "import json, sys\n"
        "from hockeystick.cli import main\n"
        f"try:\n    status = main({argv!r})\nexcept SystemExit as exit_:\n    status = exit_.code\n"
        "heavy = [m for m in ('numpy', 'hockeystick.registry', 'hockeystick._core') if m in sys.modules]\n"
        "print(json.dumps([status, heavy]), file=sys.stdout)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    status, heavy = json.loads(run.stdout.strip().splitlines()[-1])
    assert status == 2 and message in run.stderr, run.stderr
    assert heavy == [], heavy


@pytest.mark.slow
def test_the_examples_hint_names_a_format_it_could_write_and_the_hint_runs(
    capsys, tmp_path, monkeypatch
):
    """Without pyarrow (the README's install has no [parquet]) the example writes NPZ, and its closing hint
    names .npz, which then runs as printed.  The example's grid is cut to 12 sigmas by 20 epsilons: the format
    is chosen by whether pyarrow imports, not by the grid's size, and the hint's command reads the
    example.toml written (the full 2.5 million points run in the README's example).  It draws no picture
    (``plot_grid`` returns the path it is given; the pictures are nearly all of the run's CPU): they are
    drawn, written and read in tests/cli/test_cli.py."""
    from hockeystick.reproduce import example

    monkeypatch.setattr(
        example,
        "_TRUSTED_AGGREGATOR",
        example._TRUSTED_AGGREGATOR.replace("250", "12").replace("1000]", "20]"),
    )
    monkeypatch.setattr(example, "plot_grid", lambda grid, path, **kwargs: os.fspath(path))
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.chdir(tmp_path)
    code, out, err = _invoke(capsys, ["sweep", "--example", "--out-dir", "out", "--no-progress"])
    assert code == 0, err
    hint = next(line for line in out.splitlines() if line.startswith("sweep file:"))
    command = hint.split("then: ", 1)[1].rstrip(")").split()
    assert command[-2:] == ["-o", "my_sweep.npz"] and (tmp_path / "out" / "sweep.npz").exists(), (
        hint
    )
    code, out, err = _invoke(capsys, [*command[1:], "--no-progress"])
    assert code == 0 and (tmp_path / "my_sweep.npz").exists(), err
