"""The command line: every subcommand end to end, exit codes, messages that say how to fix things."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import hockeystick as hs
from hockeystick.cli import build_parser, main
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "command",
    ["sweep", "calibrate", "delta", "epsilon", "compose", "plot", "figures", "accountants", "demo"],
)
def test_every_subcommand_has_help_with_examples(capsys, command):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and f"hockeystick {command}" in out and "example" in out


def test_delta_table(capsys):
    code, out, _ = _run(
        capsys, "delta", "-a", "gaussian", "-p", "sigma=1,2,4", "-p", "rounds=100", "--epsilon", "1"
    )
    assert code == 0
    rows = [line.split() for line in out.splitlines()[3:]]
    sigma = np.array([float(r[0]) for r in rows])
    np.testing.assert_allclose([float(r[1]) for r in rows], hs.theta(10 / sigma, 1.0), rtol=1e-5)


def test_epsilon_and_calibrate_and_files(capsys, tmp_path):
    code, out, _ = _run(
        capsys, "epsilon", "-a", "gaussian", "-p", "sigma=20", "-p", "rounds=100", "--delta", "1e-5"
    )
    assert code == 0 and float(out.split()[-1]) == pytest.approx(
        hs.theta_epsilon(0.5, 1e-5), rel=1e-5
    )
    csv, png = tmp_path / "cal.csv", tmp_path / "cal.png"
    code, out, _ = _run(
        capsys,
        "calibrate",
        "-a",
        "gaussian",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "-p",
        "rounds=1,10,100,1000",
        "-o",
        str(csv),
        "--plot",
        str(png),
    )
    assert code == 0 and f"result written to {csv}" in out and f"plot written to {png}" in out
    table = pd.read_csv(csv)
    np.testing.assert_allclose(
        table["sigma"], np.sqrt(table["rounds"]) / hs.theta_radius(1.0, 1e-5), rtol=1e-9
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = _run(
        capsys,
        "calibrate",
        "-a",
        "gaussian",
        "--parameter",
        "rounds",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "-p",
        "sigma=50",
    )
    assert code == 0 and out.split()[-1] == "179"


def test_sweep_from_toml_with_flag_overrides_and_plot(capsys, tmp_path):
    config = tmp_path / "grid.toml"
    config.write_text(
        'accountants = ["gaussian"]\noutput = "delta"\n[parameters]\n'
        "sigma = { log = [0.5, 20, 30] }\nrounds = [1, 10, 100]\nepsilon = { linear = [0.1, 8, 40] }\n"
    )
    out_file, png = tmp_path / "sweep.npz", tmp_path / "sweep.png"
    code, out, _ = _run(
        capsys,
        "sweep",
        str(config),
        "-p",
        "sensitivity=2",
        "-o",
        str(out_file),
        "--plot",
        str(png),
        "--no-progress",
    )
    assert code == 0 and "3,600 points" in out and "delta" in out and str(out_file) in out
    with np.load(out_file) as npz:
        assert npz["delta"].shape == (30, 3, 40) and float(npz["sensitivity"]) == 2.0
        expected = GaussianMechanism(
            sigma=npz["sigma"][:, None, None], rounds=npz["rounds"][None, :, None], sensitivity=2.0
        ).delta(npz["epsilon"][None, None, :])
        np.testing.assert_array_equal(npz["delta"], expected)
    assert png.stat().st_size > 1000


def test_sweep_on_a_dask_scheduler(capsys, tmp_path):
    """--scheduler ADDRESS (--workers N starts its own LocalCluster: tested in test_sweep_dask.py)."""
    from dask.distributed import LocalCluster

    args = [
        "sweep",
        "-a",
        "gaussian",
        "-p",
        "sigma=log:1:10:20",
        "--epsilon",
        "linear:0.5:4:20",
        "--no-progress",
    ]
    assert _run(capsys, *args, "-o", str(tmp_path / "a.csv"))[0] == 0
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=":0",
    ) as cluster:
        code, out, _ = _run(
            capsys,
            *args,
            "-o",
            str(tmp_path / "b.csv"),
            "--scheduler",
            cluster.scheduler_address,
            "--chunk-size",
            "50",
        )
    assert code == 0 and "400 points" in out
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["delta", "-a", "nope", "-p", "sigma=1", "--epsilon", "1"],
            "unknown accountant 'nope'; -a NAME",
        ),
        (
            ["delta", "-a", "gaussian", "-p", "sigma=1", "-p", "foo=2", "--epsilon", "1"],
            "unknown parameter",
        ),
        (["delta", "-a", "gaussian", "-p", "sigma", "--epsilon", "1"], "write NAME=VALUE"),
        (["delta", "-p", "sigma=1", "--epsilon", "1"], "say which accountant with -a NAME"),
        (
            ["delta", "-a", "gaussian", "-p", "sigma=3,2,5", "--epsilon", "1"],
            "not strictly monotone",
        ),
        (["delta", "-a", "gaussian", "-p", "sigma=log:1:2:0", "--epsilon", "1"], "integer >= 1"),
        (
            ["delta", "-a", "gaussian", "-p", "sigma=0", "--epsilon", "1"],
            "sigma must be finite and > 0",
        ),
        (
            [
                "calibrate",
                "-a",
                "gaussian",
                "--parameter",
                "rounds",
                "--epsilon",
                "0.1",
                "--delta",
                "1e-5",
                "-p",
                "sigma=1",
            ],
            "unreachable",
        ),
        (["calibrate", "-a", "gaussian", "--epsilon", "1", "-p", "rounds=10"], "give --delta"),
        (
            [
                "sweep",
                "-a",
                "gaussian",
                "-p",
                "sigma=1",
                "--epsilon",
                "1",
                "-o",
                "/nonexistent/x.csv",
            ],
            "does not exist",
        ),
        (
            ["sweep", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "1", "-o", "/proc/x.csv"],
            "not writable",
        ),
        (
            ["sweep", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "1", "-o", "x.txt"],
            "name it *.csv",
        ),
        (["sweep", "-a", "gaussian", "-p", "sigma=1", "--epsilon", "1"], "-o FILE.parquet"),
        (
            [
                "sweep",
                "-a",
                "gaussian",
                "-p",
                "sigma=1",
                "--epsilon",
                "1",
                "-o",
                "x.csv",
                "--plot",
                "x.jpg",
            ],
            "*.png",
        ),
        (["sweep", "missing.toml", "-o", "x.csv"], "cannot read sweep file"),
        (
            ["delta", "-a", "gaussian", "-p", "sigma=log:1:2:1000000000000", "--epsilon", "1"],
            "more than one axis can hold",
        ),
        (
            [
                "sweep",
                "-a",
                "gaussian",
                "-p",
                "sigma=linear:1:2:200000000",
                "--epsilon",
                "1",
                "-o",
                "x.csv",
            ],
            "lower NUM",
        ),
        (
            ["delta", "-a", "gaussian", "-p", "sigma=1", "-p", "sigma=2", "--epsilon", "1"],
            "'sigma' is given twice",
        ),
        (
            ["delta", "-a", "gaussian", "-p", "sigma=1", "-p", "epsilon=2", "--epsilon", "1"],
            "'epsilon' is given twice",
        ),
        (
            [
                "calibrate",
                "-a",
                "gaussian",
                "--epsilon",
                "1",
                "--delta",
                "1e-5",
                "-p",
                "rounds=1",
                "-p",
                "rounds=2,3",
            ],
            "'rounds' is given twice",
        ),
        (["demo", "--epsilon", "-1"], "epsilon"),
        (["demo", "--delta", "2"], "delta"),
        (["demo", "--delta", "0"], "delta"),
        (["demo", "--epsilon", "nan"], "epsilon"),
        (["demo", "--sensitivity", "0"], "--sensitivity must be a positive finite number"),
        (
            ["sweep", "--example", "--out-dir", "/proc/hockeystick-example"],
            "give --out-dir a directory you can write to",
        ),
    ],
)
def test_bad_input_exits_2_with_a_fix(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, *argv)
    assert code == 2 and message in err and err.startswith(f"hockeystick {argv[0]}: error:")
    assert out == "" and "Traceback" not in err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["sweep", "--chunk-size", "0"], "expected a positive integer"),
        (["delta", "--bogus"], "unrecognized arguments"),
        (["nope"], "invalid choice"),
        ([], "required"),
    ],
)
def test_argparse_errors_exit_2_and_point_to_help(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "--help" in err


def test_figures_without_the_module_is_a_clear_error(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "hockeystick.reproduce.figures", None)
    code, _, err = _run(capsys, "figures", "--out-dir", str(tmp_path / "figs"))
    assert code == 2 and "hockeystick.reproduce.figures" in err


def test_figures_writes_into_a_new_directory(capsys, tmp_path, monkeypatch):
    import hockeystick.reproduce.figures

    def fake_write_figures(
        out_dir, written
    ):  # the figures themselves are tested with the contraction accountants
        path = out_dir / "fig.png"
        path.write_bytes(b"\x89PNG")
        written(path)
        return [path]

    monkeypatch.setattr(hockeystick.reproduce.figures, "write_figures", fake_write_figures)
    code, out, _ = _run(capsys, "figures", "--out-dir", str(tmp_path / "new" / "figs"))
    assert code == 0 and f"figure written to {tmp_path / 'new' / 'figs' / 'fig.png'}" in out


def test_accountants_lists_every_entry_with_its_parameters(capsys):
    from hockeystick.sweep import registry

    code, out, _ = _run(capsys, "accountants")
    assert code == 0
    for name in registry.names():
        assert f"{name}: {registry.get(name).summary}" in out
    assert (
        "needs: n, batch_size, sigma, learning_rate, lipschitz, radius; optional: rounds, smoothness"
        in out
    )
    assert "calibrate: sigma (smallest), rounds (largest)" in out


_SWEEP = [
    "sweep",
    "-a",
    "gaussian",
    "-p",
    "sigma=log:0.5:20:30",
    "-p",
    "rounds=1,10,100",
    "--epsilon",
    "linear:0.1:8:40",
    "--chunk-size",
    "40",
    "--no-progress",
]

_SLOW_CLI = """
import sys, time
from hockeystick import cli
from hockeystick.sweep import run as run_module
real = run_module.evaluate_chunk
def slow_after_three(grid, chunk):
    if chunk.index >= 3:
        open(sys.argv[1], "w").close()
        time.sleep(60)
    return real(grid, chunk)
run_module.evaluate_chunk = slow_after_three
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.mark.slow
def test_sigterm_keeps_the_finished_chunks_and_resume_finishes(capsys, tmp_path):
    """A sweep stopped by SIGTERM exits 143 and says how to continue; --resume reuses its chunks."""
    import signal
    import time

    out, ready = tmp_path / "out.parquet", tmp_path / "ready"
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_CLI, str(ready), *_SWEEP, "-o", str(out)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 600  # a hang guard, generous for a loaded machine
        while not ready.exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=600)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
    parts = tmp_path / ".out.parquet.parts"
    assert proc.returncode == 143 and "Traceback" not in err, err
    assert (
        f"terminated (SIGTERM); 3 finished chunk(s) kept in {str(parts)!r}: rerun with --resume"
        in err
    )
    code, stdout, err = _run(capsys, *_SWEEP, "-o", str(out), "--resume")
    assert code == 0 and "3,600 points" in stdout, err
    assert _run(capsys, *_SWEEP, "-o", str(tmp_path / "clean.parquet"))[0] == 0
    assert out.read_bytes() == (tmp_path / "clean.parquet").read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["clean.parquet", "out.parquet", "ready"]


def test_force_replaces_and_the_plan_is_printed_before_the_sweep(capsys, tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("old")
    code, _, err = _run(capsys, *_SWEEP, "-o", str(out))
    assert code == 2 and "already exists" in err and "--force" in err and out.read_text() == "old"
    code, stdout, err = _run(capsys, *_SWEEP, "-o", str(out), "--force")
    assert code == 0 and out.read_text() != "old"
    assert (
        "hockeystick sweep: plan: 3,600 points, ~" in err
        and f"to {out}" in err
        and "estimated" in err
    )


def test_allow_large_lets_a_large_sweep_start(capsys, tmp_path, monkeypatch):
    from hockeystick.sweep import plan

    monkeypatch.setattr(plan, "MAX_POINTS", 1000)
    code, _, err = _run(capsys, *_SWEEP, "-o", str(tmp_path / "a.csv"))
    assert (
        code == 2
        and "3.6e+03 points (the limit: fewer than 1e+03)" in err
        and "--allow-large" in err
    )
    assert os.listdir(tmp_path) == []
    code, stdout, _ = _run(capsys, *_SWEEP, "-o", str(tmp_path / "a.csv"), "--allow-large")
    assert code == 0 and "3,600 points" in stdout


def test_the_example_does_not_replace_its_files_unless_forced(capsys, tmp_path, monkeypatch):
    """...and writes the four files it names into --out-dir, and its delta(epsilon) picture speaks the
    reader's words (``_check_example_picture``).  The README runs the full example and checks what it
    prints and the rows of its result file (tests/test_docs_examples.py).  The run with --force draws
    no picture (``plot_grid`` returns the path it is given): what it checks is the replaced
    example.toml and the sweeps written over their files, and the pictures (nearly all of a run's CPU)
    are drawn, written and read by the first run."""
    from hockeystick.plots import canvas
    from hockeystick.reproduce import example

    monkeypatch.setattr(
        example,
        "_TRUSTED_AGGREGATOR",
        example._TRUSTED_AGGREGATOR.replace("250", "12").replace("1000]", "20]"),
    )
    figures = []
    save = canvas.save
    monkeypatch.setattr(canvas, "save", lambda fig, path: figures.append(fig) or save(fig, path))
    out_dir = tmp_path / "ex"
    code, out, _ = _run(capsys, "sweep", "--example", "--out-dir", str(out_dir), "--no-progress")
    written = [line.split(" written to ")[1] for line in out.splitlines() if " written to " in line]
    assert code == 0 and len(written) == 4 and all(os.path.exists(p) for p in written)
    assert {os.path.dirname(p) for p in written} == {str(out_dir)}
    _check_example_picture(figures, example)
    (out_dir / "example.toml").write_text("# my edits\n")
    code, _, err = _run(capsys, "sweep", "--example", "--out-dir", str(out_dir), "--no-progress")
    assert code == 2 and "already holds the example's example.toml" in err and "--force" in err
    assert (out_dir / "example.toml").read_text() == "# my edits\n"
    monkeypatch.setattr(example, "plot_grid", lambda grid, path, **kwargs: os.fspath(path))
    assert (
        _run(capsys, "sweep", "--example", "--out-dir", str(out_dir), "--no-progress", "--force")[0]
        == 0
    )
    assert (out_dir / "example.toml").read_text() == example.example_toml()


def _check_example_picture(figures, example) -> None:
    """The example's delta(epsilon) picture: a heading, not the registry's code name; sigma in at most 3
    significant digits, the curves' labels apart; a dotted line at the target delta the calibration aims for;
    the calibration's picture under the same heading."""
    (ax,) = figures[0].axes
    assert (
        ax.get_title().splitlines()[0] == example.HEADING
        and "trusted_aggregator" not in ax.get_title()
    )
    sigmas = [
        line.get_label().removeprefix("sigma=")
        for line in ax.get_lines()
        if line.get_label().startswith("sigma=")
    ]
    assert len(sigmas) == len(set(sigmas)) >= 2
    assert all(len(s.lstrip("0.").replace(".", "")) <= 3 for s in sigmas), sigmas
    (target,) = [line for line in ax.get_lines() if line.get_label().startswith("target delta")]
    assert (
        np.all(np.asarray(target.get_ydata()) == example.TARGET_DELTA)
        and target.get_label() == "target delta 1e-05"
    )
    assert example.HEADING in figures[1].axes[0].get_title()
