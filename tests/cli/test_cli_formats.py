"""The command line's user path: --bound on every evaluation, --format table|json|csv,
-o - for stdout, and the compose subcommand; values checked against closed forms, sides against truth."""

from __future__ import annotations

import io
import json
import math
import sys

import numpy as np
import pandas as pd
import pytest

import hockeystick as hs
from hockeystick.cli import main


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# sampling rate 1: the PLD accountant composes a plain Gaussian, whose exact epsilon is theta's inverse
PLD_GAUSS = [
    "-a",
    "pld_subsampled_gaussian",
    "-p",
    "sigma=2",
    "-p",
    "sampling_rate=1",
    "-p",
    "rounds=1,16",
]


def test_epsilon_bound_both_brackets_the_exact_gaussian(capsys):
    code, out, _ = _run(
        capsys, "epsilon", *PLD_GAUSS, "--delta", "1e-5", "--bound", "both", "--format", "json"
    )
    assert code == 0
    rows = json.loads(out)
    assert [r["rounds"] for r in rows] == [1, 16] and all(
        r["sigma"] == 2 and r["delta"] == 1e-5 for r in rows
    )
    for r in rows:
        exact = hs.theta_epsilon(math.sqrt(r["rounds"]) / 2, 1e-5)
        assert r["epsilon_lower"] <= exact <= r["epsilon_upper"]
        assert r["epsilon_upper"] - r["epsilon_lower"] < 1e-2 * exact


def test_delta_lower_side_is_below_the_truth_and_named(capsys):
    code, out, _ = _run(
        capsys, "delta", *PLD_GAUSS, "--epsilon", "1", "--bound", "lower", "--format", "csv"
    )
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and list(table.columns) == [
        "rounds",
        "sigma",
        "sampling_rate",
        "epsilon",
        "delta_lower",
    ]
    exact = hs.theta(np.sqrt(table["rounds"]) / 2, 1.0)
    assert np.all(table["delta_lower"] <= exact) and np.all(table["delta_lower"] > 0.9 * exact)


def test_table_format_prints_both_sides(capsys):
    code, out, _ = _run(capsys, "epsilon", *PLD_GAUSS, "--delta", "1e-5", "--bound", "both")
    header = out.splitlines()[1].split()
    assert code == 0 and header == ["rounds", "epsilon_lower", "epsilon_upper"]


def test_dash_o_writes_only_the_points_to_stdout(capsys):
    code, out, err = _run(
        capsys,
        "delta",
        "-a",
        "gaussian",
        "-p",
        "sigma=1,2,4",
        "-p",
        "rounds=9",
        "--epsilon",
        "1",
        "-o",
        "-",
    )
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and list(table.columns) == ["sigma", "rounds", "epsilon", "delta"]
    np.testing.assert_allclose(table["delta"], hs.theta(3 / table["sigma"], 1.0), rtol=1e-11)
    assert (table["rounds"] == 9).all() and "result written" not in out + err


def test_sweep_to_stdout_as_json_with_a_lower_bound(capsys):
    code, out, _ = _run(
        capsys,
        "sweep",
        "-a",
        "gaussian",
        "-p",
        "sigma=1,2",
        "--epsilon",
        "0.5,1",
        "-o",
        "-",
        "--format",
        "json",
        "--no-progress",
    )
    rows = json.loads(out)
    assert code == 0 and len(rows) == 4
    for r in rows:
        assert r["delta"] >= hs.theta(1 / r["sigma"], r["epsilon"]) * (
            1 - 1e-15
        )  # upper: never below


def test_json_writes_an_unbounded_value_as_a_string(capsys):
    """JSON has no infinity; rounds = inf (no value breaks the target) is written "inf", not Infinity."""
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
        "sigma=1e10,50",
        "--format",
        "json",
    )
    rows = json.loads(out)
    assert code == 0 and [r["rounds"] for r in rows] == ["inf", 179] and "Infinity" not in out


def test_many_points_as_json_need_stdout_or_max_rows(capsys):
    argv = [
        "delta",
        "-a",
        "gaussian",
        "-p",
        "sigma=linear:1:2:60",
        "--epsilon",
        "1",
        "--format",
        "json",
    ]
    code, out, err = _run(capsys, *argv)
    assert code == 2 and "--max-rows" in err and out == ""
    code, out, _ = _run(capsys, *argv, "--max-rows", "60")
    assert code == 0 and len(json.loads(out)) == 60


RUN = """\
value_discretization_interval = 1e-4
[[stage]]
mechanism = "gaussian"
sigma = 2.0
rounds = 3
[[stage]]
mechanism = "gaussian"
sigma = 4.0
sensitivity = 2.0
rounds = 5
"""


def test_compose_brackets_the_exact_heterogeneous_gaussian(capsys, tmp_path):
    """Gaussians compose exactly: mu^2 = sum rounds (sensitivity / sigma)^2 (Dong, Roth, Su 2022, Cor. 2.1)."""
    path = tmp_path / "run.toml"
    path.write_text(RUN)
    mu = math.sqrt(3 / 4 + 5 * (2 / 4) ** 2)
    code, out, _ = _run(capsys, "compose", str(path), "--delta", "1e-5,1e-7", "--format", "csv")
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and list(table.columns) == ["delta", "epsilon_lower", "epsilon_upper"]
    for d, lo, up in table.itertuples(index=False):
        exact = hs.theta_epsilon(mu, d)
        assert lo <= exact <= up and up - lo < 1e-3 * exact
    code, out, _ = _run(
        capsys, "compose", str(path), "--epsilon", "1", "--bound", "upper", "--format", "json"
    )
    (row,) = json.loads(out)
    assert code == 0 and set(row) == {"epsilon", "delta_upper"}
    assert hs.theta(mu, 1.0) <= row["delta_upper"] < hs.theta(mu, 1.0) * 1.001


def test_compose_mixes_mechanisms_like_the_python_accountant(capsys, tmp_path):
    from hockeystick.pld import PLDAccountant, laplace, subsampled_gaussian

    path = tmp_path / "run.toml"
    path.write_text(
        '[[stage]]\nmechanism = "subsampled_gaussian"\nsigma = 1.0\nsampling_probability = 0.01\n'
        'rounds = 500\n[[stage]]\nmechanism = "laplace"\nscale = 2.0\n'
    )
    code, out, _ = _run(capsys, "compose", str(path), "--delta", "1e-5")
    assert code == 0 and out.splitlines()[0] == (
        "2 stages, delta -> certified epsilon (both), add/remove-one and replace-special neighbours"
    )
    lo, up = (float(v) for v in out.splitlines()[-1].split()[1:])
    acc = PLDAccountant().compose(subsampled_gaussian(1.0, 0.01), 500).compose(laplace(2.0))
    assert (lo, up) == pytest.approx(acc.epsilon(1e-5, bound="both"), rel=1e-9)


def test_laplace_stage_brackets_the_closed_form():
    """One Laplace release, scale b, sensitivity 1: delta(eps) = 1 - exp((eps - 1/b) / 2) for eps <= 1/b."""
    from hockeystick.pld.accountants.stages import compose_stages

    acc = compose_stages([{"mechanism": "laplace", "scale": 2.0}])
    eps = np.array([0.0, 0.1, 0.3, 0.45])
    lo, up = acc.delta(eps, bound="both")
    exact = 1 - np.exp((eps - 0.5) / 2)
    assert np.all(lo <= exact) and np.all(exact <= up) and np.all(up - lo < 1e-3)


def test_calibrate_both_sides_bracket_the_exact_sigma(capsys):
    code, out, _ = _run(
        capsys,
        "calibrate",
        "-a",
        "pld_subsampled_gaussian",
        "-p",
        "sampling_rate=1",
        "-p",
        "rounds=1,16",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "--bound",
        "both",
        "--format",
        "csv",
    )
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and list(table.columns) == [
        "rounds",
        "sampling_rate",
        "epsilon",
        "delta",
        "sigma_lower",
        "sigma_upper",
    ]
    exact = np.sqrt(table["rounds"]) / hs.theta_radius(1.0, 1e-5)
    assert np.all(table["sigma_lower"] <= exact * (1 + 1e-9)) and np.all(
        exact <= table["sigma_upper"]
    )
    assert np.all(table["sigma_lower"] <= table["sigma_upper"])


# --- the same rows on stdout and in files; integer parameters as integers --------------------------

TRAINING = [
    "epsilon",
    "--dataset-size",
    "60000",
    "--batch-size",
    "256",
    "--epochs",
    "1,2",
    "--noise-multiplier",
    "1.1",
    "--delta",
    "1e-5",
]
SEVERAL = [
    "epsilon",
    "-a",
    "gaussian,pld_subsampled_gaussian",
    "-p",
    "sampling_rate=1",
    "-p",
    "sigma=2",
    "-p",
    "rounds=100",
    "--delta",
    "1e-5,1e-6",
]
BOTH_SIDES = ["delta", *PLD_GAUSS, "--epsilon", "1", "--bound", "both"]
CALIBRATED_ROUNDS = [
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
    "sigma=1e10,50",
]
SWEEP = [
    "sweep",
    "-a",
    "gaussian",
    "-p",
    "sigma=1,2",
    "-p",
    "rounds=100",
    "--epsilon",
    "linear:0.5:1:2",
    "--no-progress",
]


@pytest.fixture(params=["pyarrow", "python"])
def csv_writer(request, monkeypatch):
    """CSV text from pyarrow's writer, or from Python's repr where pyarrow is not installed."""
    if request.param == "python":
        monkeypatch.setitem(sys.modules, "pyarrow", None)
        monkeypatch.setitem(sys.modules, "pyarrow.csv", None)
    return request.param


@pytest.mark.parametrize(
    "argv",
    [TRAINING, SEVERAL, BOTH_SIDES, CALIBRATED_ROUNDS, SWEEP],
    ids=["training", "several", "both-sides", "calibrated-rounds", "sweep"],
)
def test_csv_on_stdout_is_the_file_byte_for_byte(capsys, tmp_path, csv_writer, argv):
    code, out, _ = _run(capsys, *argv, "-o", "-")
    assert code == 0
    path = tmp_path / "points.csv"
    code, _, _ = _run(capsys, *argv, "-o", str(path))
    assert code == 0 and out == path.read_text()
    if argv[0] != "sweep":  # --format csv beside -o FILE prints the same points
        code, printed, _ = _run(capsys, *argv, "-o", str(tmp_path / "again.csv"), "--format", "csv")
        assert code == 0 and printed.startswith(out)


def test_integer_parameters_are_integers_in_csv(capsys, csv_writer):
    code, out, _ = _run(capsys, *TRAINING, "-o", "-")
    header, *rows = out.splitlines()
    assert code == 0 and header == "epochs,delta,noise_multiplier,dataset_size,batch_size,epsilon"
    columns = dict(zip(header.split(","), zip(*(row.split(",") for row in rows))))
    assert columns["dataset_size"] == ("60000", "60000") and columns["batch_size"] == ("256", "256")
    code, out, _ = _run(capsys, *CALIBRATED_ROUNDS, "-o", "-")
    assert code == 0 and [row.split(",")[-1] for row in out.splitlines()[1:]] == ["inf", "179"]
    code, out, _ = _run(capsys, *SEVERAL, "-o", "-")
    header, *rows = out.splitlines()
    assert (
        code == 0 and header.endswith(",best") and all(row.endswith(',"gaussian"') for row in rows)
    )
    assert all(row.split(",")[header.split(",").index("rounds")] == "100" for row in rows)


def test_integer_parameters_are_integers_in_json_by_the_registry_not_by_value(capsys):
    """rounds (an integer parameter of the accountant) is 100; sigma = 2 (a real one) stays 2.0."""
    code, out, _ = _run(
        capsys,
        "epsilon",
        "-a",
        "gaussian",
        "-p",
        "sigma=2",
        "-p",
        "rounds=100",
        "--delta",
        "1e-5",
        "--format",
        "json",
    )
    (row,) = json.loads(out)
    assert code == 0 and '"rounds": 100,' in out and '"sigma": 2.0,' in out
    assert type(row["rounds"]) is int and type(row["sigma"]) is float
    code, out, _ = _run(capsys, *TRAINING, "--format", "json")
    rows = json.loads(out)
    assert code == 0 and all(
        type(r["dataset_size"]) is int and type(r["batch_size"]) is int for r in rows
    )
    assert [r["dataset_size"] for r in rows] == [60000, 60000] and '"dataset_size": 60000,' in out
    code, out, _ = _run(capsys, *CALIBRATED_ROUNDS, "--format", "json")
    assert (
        code == 0
        and [r["rounds"] for r in json.loads(out)] == ["inf", 179]
        and '"rounds": 179' in out
    )


def test_json_on_stdout_is_the_points_of_the_file(capsys, tmp_path):
    """JSON is printed only; its values are the file's (the CSV read back), integers where the file has them."""
    code, out, _ = _run(capsys, *SEVERAL, "--format", "json", "-o", "-")
    path = tmp_path / "points.csv"
    _run(capsys, *SEVERAL, "-o", str(path))
    table = pd.read_csv(path)
    assert code == 0 and json.loads(out) == table.to_dict("records")
