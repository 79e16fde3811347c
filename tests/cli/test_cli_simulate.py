"""`hockeystick simulate`: the file's runs equal simulate_sweep's rows, Dask equals in-process, bad input
is refused with exit status 2 and one line before any training starts."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numba")
pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")

from hockeystick.cli import main  # noqa: E402
from hockeystick.simulate import bundled, simulate_sweep  # noqa: E402

SMALL = """\
delta = 1e-5
seeds = 2
[data]
bundled = "wine"
clients = 6
seed = 1
[algorithms.noisy_fedavg]
grid = { sigma = [0.5, 2.0] }
fixed = { rounds = 3, local_steps = 2, rate = 1.0, clip = 1.0, batch_size = "full" }
[algorithms.trusted_aggregator]
grid = { sigma = [1.0, 4.0] }
fixed = { batch = 2, rate = 0.5, radius = 5.0 }
"""


def _write(tmp_path, text=SMALL, name="runs.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _direct(algorithm: str, grid: dict, fixed: dict):
    train, test = bundled("wine", 6, seed=1)
    return simulate_sweep(algorithm, train, grid=grid, fixed=fixed, seeds=2, test=test, delta=1e-5)


@pytest.fixture(scope="module")
def expected():
    return {
        "noisy_fedavg": _direct(
            "noisy_fedavg",
            {"sigma": [0.5, 2.0]},
            {"rounds": 3, "local_steps": 2, "rate": 1.0, "clip": 1.0, "batch_size": None},
        ),
        "trusted_aggregator": _direct(
            "trusted_aggregator", {"sigma": [1.0, 4.0]}, {"batch": 2, "rate": 0.5, "radius": 5.0}
        ),
    }


def _same_runs(rows, expected) -> None:
    assert list(rows["algorithm"]) == ["noisy_fedavg"] * 4 + ["trusted_aggregator"] * 4
    for name, frame in expected.items():
        part = rows[rows["algorithm"] == name].reset_index(drop=True)
        for column in (
            "seed",
            "sigma",
            "final_loss",
            "final_accuracy",
            "test_loss",
            "test_accuracy",
            "epsilon",
        ):
            assert part[column].tolist() == frame[column].tolist(), (name, column)
        assert [list(c) for c in part["loss_curve"]] == frame["loss_curve"].tolist()


def test_parquet_rows_equal_the_sweep_run_directly(tmp_path, capsys, expected):
    out, png = tmp_path / "runs.parquet", tmp_path / "frontier.png"
    assert (
        main(["simulate", _write(tmp_path), "-o", str(out), "--plot", str(png), "--no-progress"])
        == 0
    )
    _same_runs(pd.read_parquet(out), expected)
    assert png.stat().st_size > 0 and not (tmp_path / "runs.parquet.partial").exists()
    printed = capsys.readouterr().out
    assert (
        "noisy_fedavg: frontier of test_accuracy" in printed
        and "trusted_aggregator: frontier" in printed
    )


@pytest.mark.slow
def test_csv_rows_and_dask_local_equal_in_process(tmp_path, expected):
    pytest.importorskip("distributed")
    out = tmp_path / "runs.csv"
    assert (
        main(
            [
                "simulate",
                _write(tmp_path),
                "-o",
                str(out),
                "--dask",
                "local",
                "--workers",
                "2",
                "--no-progress",
            ]
        )
        == 0
    )
    rows = pd.read_csv(out)
    rows["loss_curve"] = rows["loss_curve"].map(json.loads)
    _same_runs(rows, expected)
    assert rows["batch_size"].isna().all()  # "full": each client's whole local batch


@pytest.mark.parametrize(
    "change, message",
    [
        (("sigma = [0.5, 2.0]", "sigma = [-0.5, 2.0]"), "sigma must be a finite number >= 0"),
        (("clip = 1.0, batch_size", "clip = 0, batch_size"), "clip must be a number > 0"),
        (("batch = 2,", "batch = 7,"), "batch must be <= the number of clients (6)"),
        (("seeds = 2", "seeds = -1"), "seeds must be a count >= 1"),
        (("delta = 1e-5", "delta = 2"), "delta must be a number strictly between 0 and 1"),
        (("delta = 1e-5", "detla = 1e-5"), "unknown key 'detla'"),
        (('bundled = "wine"', 'bundled = "mnist"'), "unknown data set 'mnist'"),
        (("[algorithms.noisy_fedavg]", "[algorithms.fedsgd]"), "unknown algorithm 'fedsgd'"),
        (("rate = 0.5,", "rate = 0.5, lr = 1,"), "trusted_aggregator takes no parameter 'lr'"),
    ],
)
def test_bad_files_exit_2_with_one_line_before_training(
    tmp_path, capsys, monkeypatch, change, message
):
    from hockeystick.simulate import sweep

    monkeypatch.setattr(sweep, "run_configuration", lambda *a, **k: pytest.fail("training started"))
    out = tmp_path / "runs.parquet"
    assert main(["simulate", _write(tmp_path, SMALL.replace(*change)), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err, err
    assert not out.exists() and not (tmp_path / "runs.parquet.partial").exists()


def test_existing_output_needs_force(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    out.write_text("keep me")
    assert main(["simulate", _write(tmp_path), "-o", str(out)]) == 2
    assert "exists" in capsys.readouterr().err and out.read_text() == "keep me"
    assert main(["simulate", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "x.csv")]) == 2
    assert main(["simulate", _write(tmp_path), "-o", str(tmp_path / "runs.txt")]) == 2
    assert (
        main(["simulate", _write(tmp_path), "-o", str(tmp_path / "r.csv"), "--plot", "f.jpg"]) == 2
    )


COROLLARY_1 = """\
seeds = 2
metric = "test_loss"
[data]
synthetic = "linear"
clients = 200
samples_per_client = 2
features = 3
noise = 0.3
test_fraction = 0.5
[algorithms.trusted_aggregator]
grid = { sigma = [0.5, 2.0] }
fixed = { batch = 4, rate = 10.0, radius = 3.0, schedule = "inverse_t" }
"""


def test_corollary_1_bound_beside_the_measured_test_loss(tmp_path, capsys):
    from hockeystick.simulate import (
        least_squares_constants,
        strongly_convex_excess_loss_bound,
        synthetic,
    )
    from hockeystick.simulate.utility_bound import corollary_1_table

    out, png = tmp_path / "cor1.parquet", tmp_path / "cor1.png"
    assert (
        main(
            [
                "simulate",
                _write(tmp_path, COROLLARY_1),
                "-o",
                str(out),
                "--plot",
                str(png),
                "--no-progress",
            ]
        )
        == 0
    )
    assert "paper 000 Corollary 1" in capsys.readouterr().out and png.stat().st_size > 0
    train, test = synthetic("linear", 200, 2, 3, noise=0.3, seed=0).split(0.5)
    table = corollary_1_table(
        pd.read_parquet(out).drop(columns=["algorithm"]).dropna(axis=1, how="all"),
        test,
        n=train.n_clients,
    )
    assert len(table) == 2
    c = least_squares_constants(test.features, test.labels, 3.0)
    for row in table.to_dict("records"):
        assert row["bound"] == strongly_convex_excess_loss_bound(
            smoothness=c.smoothness,
            strong_convexity=0.1,
            gradient_norm=c.gradient_norm,
            gradient_variance=c.gradient_variance,
            sigma=row["sigma"],
            batch_size=4,
            n=200,
            dimension=3,
        )
        assert 0 < row["measured_excess"] < row["bound"]
        assert row["bound_loss"] == row["bound"] + c.minimum
