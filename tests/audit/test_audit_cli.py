"""``hockeystick audit``: the table the Python report gives, from a scores file and the run's flags; bad input
exits 2 with one line naming the flag or the file's column."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import audit, registry
from hockeystick.cli import main


def write_scores(path, held_in, held_out):
    scores = np.concatenate([held_in, held_out])
    labels = np.r_[np.ones(held_in.size), np.zeros(held_out.size)]
    np.savetxt(
        path,
        np.column_stack([scores, labels]),
        delimiter=",",
        header="score,in",
        comments="",
        fmt=["%.17g", "%d"],
    )
    return str(path)


@pytest.fixture
def scores_file(tmp_path):
    rng = np.random.default_rng(5)
    held_in, held_out = rng.normal(2.0, 1.0, 2000), rng.normal(0.0, 1.0, 2000)
    return write_scores(tmp_path / "scores.csv", held_in, held_out), held_in, held_out


def test_audit_prints_the_python_reports_table(capsys, scores_file):
    path, held_in, held_out = scores_file
    assert main(["audit", path, "-a", "gaussian", "-p", "sigma=1", "--delta", "1e-5"]) == 0
    printed = capsys.readouterr().out
    expected = audit.report(
        held_in, held_out, accountant=registry.get("gaussian").build(sigma=1.0), delta=1e-5
    )
    assert printed.strip() == expected.table()
    assert "REFUTED" in printed  # mu = 2 scores against a mu = 1 accountant


def test_audit_takes_a_training_runs_flags(capsys, scores_file):
    path, held_in, held_out = scores_file
    flags = [
        "--dataset-size",
        "60000",
        "--batch-size",
        "256",
        "--noise-multiplier",
        "1.1",
        "--epochs",
        "1",
    ]
    assert main(["audit", path, *flags, "--delta", "1e-5", "--significance", "0.01"]) == 0
    printed = capsys.readouterr().out
    accountant = registry.get("dp_sgd").build(
        dataset_size=60000, batch_size=256, noise_multiplier=1.1, epochs=1
    )
    expected = audit.report(held_in, held_out, accountant=accountant, delta=1e-5, significance=0.01)
    assert printed.strip() == expected.table()


def test_audit_draws_its_picture_and_keeps_an_existing_one(capsys, scores_file, tmp_path):
    pytest.importorskip("matplotlib")
    path, _, _ = scores_file
    png = tmp_path / "audit.png"
    argv = ["audit", path, "-a", "gaussian", "-p", "sigma=1", "--delta", "1e-5", "--plot", str(png)]
    assert main(argv) == 0
    assert png.stat().st_size > 1000
    capsys.readouterr()
    assert main(argv) == 2
    assert "--plot" in capsys.readouterr().err and png.stat().st_size > 1000
    assert main([*argv, "--force"]) == 0


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--delta", "2"], "--delta must lie strictly between 0 and 1"),
        (["--delta", "abc"], "--delta 'abc': give a number"),
        (
            ["--delta", "1e-5", "--significance", "0"],
            "--significance must lie strictly between 0 and 1",
        ),
        (["--delta", "1e-5", "--significance", "nan"], "--significance must be a number"),
        (["--delta", "1e-5", "-p", "rounds=1,2"], "-p rounds=1,2: give one number per parameter"),
        (["--delta", "1e-5", "-p", "learning_rate=1"], "unknown parameter(s) 'learning_rate'"),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(capsys, scores_file, extra, message):
    path, _, _ = scores_file
    assert main(["audit", path, "-a", "gaussian", "-p", "sigma=1", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "contents, message",
    [
        ("value,label\n1,1\n", "its header row lacks the column 'score'"),
        (
            "score,in\n1,1\n0,2\n",
            "line 3: 'in' must be 1 or true (held in), 0 or false (held out), got '2'",
        ),
        ("score,in\n1,1\nx,0\n", "line 3: 'score' must be a finite number, got 'x'"),
        ("score,in\n1,1\n2,1\n", "must hold at least one held-out (label 0 or false) canary"),
        ("score,in\n1,1\ninf,0\n", "line 3: 'score' must be a finite number, got 'inf'"),
    ],
)
def test_bad_scores_files_exit_2_naming_the_rule(capsys, tmp_path, contents, message):
    path = tmp_path / "scores.csv"
    path.write_text(contents)
    assert main(["audit", str(path), "-a", "gaussian", "-p", "sigma=1", "--delta", "1e-5"]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_scores_file_exits_2(capsys, tmp_path):
    assert (
        main(
            [
                "audit",
                str(tmp_path / "none.csv"),
                "-a",
                "gaussian",
                "-p",
                "sigma=1",
                "--delta",
                "1e-5",
            ]
        )
        == 2
    )
    assert "no such file" in capsys.readouterr().err


def test_audit_reads_named_columns_and_true_false_labels(capsys, tmp_path):
    rng = np.random.default_rng(6)
    held_in, held_out = rng.normal(1.0, 1.0, 300), rng.normal(0.0, 1.0, 300)
    rows = [
        f'"#{i}",{float(v)!r},{"TRUE" if i < 300 else "false"}'
        for i, v in enumerate(np.r_[held_in, held_out])
    ]
    path = tmp_path / "attack.csv"
    path.write_text(
        "canary,loss_ratio,member\r\n" + "\r\n".join(rows) + "\r\n", encoding="utf-8-sig"
    )
    argv = ["audit", str(path), "-a", "gaussian", "-p", "sigma=1", "--delta", "1e-5"]
    assert main([*argv, "--score-column", "loss_ratio", "--label-column", "member"]) == 0
    printed = capsys.readouterr().out
    expected = audit.report(
        held_in, held_out, accountant=registry.get("gaussian").build(sigma=1.0), delta=1e-5
    )
    assert printed.strip() == expected.table()
    # not refuted: no "witness"; the empirical TPR above the certified one is flagged as a point estimate
    assert "witness" not in printed and "closest threshold (not refuting)" in printed
    assert " *\t" in printed and "a point estimate with sampling error" in printed
    assert main(argv) == 2  # the default columns are not there: the error names the options
    assert "--score-column / --label-column" in capsys.readouterr().err


def test_usage_errors_name_the_flag_and_keep_exit_2_under_debug(capsys, scores_file):
    path, _, _ = scores_file
    argv = [
        "audit",
        path,
        "-a",
        "gaussian",
        "-p",
        "sigma=1",
        "--delta",
        "1e-5",
        "--method",
        "one_run_fdp",
    ]
    for debug in ([], ["--debug"]):
        assert main([*argv, "--direction", "remove", *debug]) == 2
        err = capsys.readouterr().err
        assert (
            err.strip()
            .splitlines()[-1]
            .startswith(
                "hockeystick audit: error: --direction must be symmetric with --method one_run_fdp"
            )
        )
        assert ("Traceback" in err) == bool(debug)
    risk = ["risk", "-a", "gaussian", "-p", "sigma=1", "--fpr", "0.1", "--direction", "remove"]
    assert main(risk) == 2
    assert capsys.readouterr().err.startswith(
        'hockeystick risk: error: --direction must be "symmetric"'
    )


def test_risk_writes_its_rows_with_o(capsys, tmp_path):
    argv = ["risk", "-a", "gaussian", "-p", "sigma=1", "--fpr", "0.01,0.1"]
    assert main([*argv, "--format", "csv"]) == 0
    printed = capsys.readouterr().out
    out = tmp_path / "risk.csv"
    assert main([*argv, "-o", str(out)]) == 0
    assert out.read_text() == printed and "rows written to" in capsys.readouterr().out
    assert main([*argv, "--output", str(out)]) == 2  # not replaced without --force
    assert "--force" in capsys.readouterr().err
    assert main([*argv, "-o", str(tmp_path / "risk.txt")]) == 2
    assert "name a .csv or .json file" in capsys.readouterr().err
