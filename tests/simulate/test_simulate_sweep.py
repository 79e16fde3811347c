"""Simulation sweeps: rows equal single runs bit for bit, Dask equals in-process, refusals come first."""

import math

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")

import hockeystick.simulate as sim  # noqa: E402
from hockeystick.simulate import sweep as simulate_sweep_module  # noqa: E402
from hockeystick.simulate.datasets import BUNDLED, bundled  # noqa: E402
from hockeystick.simulate.frontier import frontier, mean_over_seeds  # noqa: E402
from hockeystick.simulate.sweep import configurations, simulate_sweep  # noqa: E402

GRID = {"sigma": [0.05, 0.5], "rate": [0.5, 2.0]}
FIXED = {"rounds": 6, "local_steps": 2, "clip": 1.0, "batch_size": None}


@pytest.fixture(scope="module")
def wine():
    return bundled("wine", 6, seed=1)


@pytest.fixture(scope="module")
def rows(wine):
    train, test = wine
    return simulate_sweep(
        "noisy_fedavg", train, grid=GRID, fixed=FIXED, seeds=2, test=test, delta=1e-5
    )


def test_rows_equal_runs_one_by_one(wine, rows):
    train, test = wine
    assert len(rows) == 8 and list(rows["seed"]) == [0, 1] * 4
    for _, row in rows.iterrows():
        config = {k: row[k] for k in GRID} | FIXED
        run = sim.noisy_fedavg(train, **config, seed=int(row["seed"]), test=test)
        assert row["final_accuracy"] == run.final_accuracy and row["final_loss"] == run.final_loss
        assert row["test_accuracy"] == float(run.test_accuracy[-1])
        assert row["loss_curve"] == run.loss.tolist()
        # epsilon is the best proven guarantee, each computed by its accountant on this configuration
        assert row["epsilon"] == run.best_epsilon(1e-5)
        assert row["epsilon"] == min(
            float(g.accountant.epsilon(1e-5)) for g in run.privacy if g.proven
        )


def test_epsilon_depends_on_configuration_not_seed(rows):
    assert rows.groupby(["sigma", "rate"])["epsilon"].nunique().eq(1).all()
    # more noise, less epsilon
    by_sigma = rows.groupby("sigma")["epsilon"].max()
    assert by_sigma[0.5] < by_sigma[0.05]


@pytest.mark.slow
def test_processes_equal_in_process_and_on_row_streams_rows_in_frame_order(wine, rows):
    """Runs finish out of order on two processes: the frame and the rows streamed to on_row are both in
    the grid's order (one pool for both checks: starting its spawned processes is most of the cost)."""
    train, test = wine
    seen: list[dict] = []
    again = simulate_sweep(
        "noisy_fedavg",
        train,
        grid=GRID,
        fixed=FIXED,
        seeds=2,
        test=test,
        delta=1e-5,
        processes=2,
        on_row=seen.append,
    )
    pd.testing.assert_frame_equal(again, rows)
    assert [r["final_loss"] for r in seen] == again["final_loss"].tolist()


@pytest.mark.slow
def test_dask_equals_in_process(wine, rows):
    """The LocalCluster's workers are forked from a forkserver that imported Dask, numpy and pandas once,
    instead of two spawned interpreters importing them each (a third of the test's time); the runs are
    seeded, so where a worker process comes from cannot change a row (tests/cli's Dask test keeps Dask's
    default, spawn)."""
    dask = pytest.importorskip("dask")
    pytest.importorskip("dask.distributed")
    train, test = wine
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        again = simulate_sweep(
            "noisy_fedavg",
            train,
            grid=GRID,
            fixed=FIXED,
            seeds=2,
            test=test,
            delta=1e-5,
            dask_workers=2,
        )
    pd.testing.assert_frame_equal(again, rows)


def test_output_files_round_trip_and_are_not_clobbered(wine, tmp_path):
    train, test = wine
    small = dict(grid={"sigma": [0.5]}, fixed=FIXED | {"rate": 1.0}, seeds=1, test=test)
    path = tmp_path / "runs.parquet"
    pytest.importorskip("pyarrow")
    frame = simulate_sweep("noisy_fedavg", train, output=path, **small)
    pd.testing.assert_frame_equal(pd.read_parquet(path), frame)
    with pytest.raises(ValueError, match="exists: pass overwrite=True"):
        simulate_sweep("noisy_fedavg", train, output=path, **small)
    csv = tmp_path / "runs.csv"
    simulate_sweep("noisy_fedavg", train, output=csv, **small)
    assert pd.read_csv(csv)["final_accuracy"].iloc[0] == frame["final_accuracy"].iloc[0]


BASE = FIXED | {"rate": 1.0}


@pytest.mark.parametrize(
    "grid, fixed, message",
    [
        ({"sigma": [0.5, -1.0]}, BASE, "sigma must be a finite number >= 0, got -1.0"),
        (
            {"clip": [1.0, 0.0]},
            {k: v for k, v in BASE.items() if k != "clip"},
            "clip must be a number > 0",
        ),
        (
            {"rounds": [2, 2.5]},
            {k: v for k, v in BASE.items() if k != "rounds"},
            "rounds must be an integer >= 1",
        ),
        ({"sigma": [0.5]}, BASE | {"learning_rate": 0.1}, "takes no parameter 'learning_rate'"),
        ({"sigma": [0.5]}, FIXED, "noisy_fedavg needs 'rate'"),
        ({"sigma": [0.5]}, BASE, None),
        ({"sigma": []}, BASE, "must be a non-empty list"),
        ({"sigma": [0.5]}, BASE | {"sigma": 1.0}, "given both in grid and in fixed"),
    ],
)
def test_bad_configurations_are_refused_before_any_training(
    wine, monkeypatch, grid, fixed, message
):
    train, _ = wine
    calls = []
    monkeypatch.setattr(simulate_sweep_module, "_run_batch", lambda *args: calls.append(args) or [])
    if message is None:  # the valid control case: one run is dispatched
        simulate_sweep("noisy_fedavg", train, grid=grid, fixed=fixed)
        assert len(calls) == 1
        return
    with pytest.raises(ValueError, match=message):
        simulate_sweep("noisy_fedavg", train, grid=grid, fixed=fixed)
    assert calls == []


def test_more_clients_per_round_than_clients_is_refused(wine):
    train, _ = wine
    with pytest.raises(ValueError, match=r"batch must be <= the number of clients \(6\)"):
        simulate_sweep(
            "trusted_aggregator",
            train,
            grid={"batch": [2, 7]},
            fixed={"rate": 0.1, "sigma": 0.1, "radius": 10.0, "clip": 1.0},
        )


def test_frontier_is_the_upper_staircase():
    rng = np.random.default_rng(3)
    configs = [
        {"a": i, "epsilon": float(e), "test_accuracy": float(acc), "seed": s}
        for i, (e, acc) in enumerate(zip(rng.uniform(0, 10, 40), rng.uniform(0, 1, 40)))
        for s in (0, 1)
    ]
    for row in configs:  # seeds differ in accuracy, not in epsilon
        row["test_accuracy"] += 0.01 * row["seed"]
    front = frontier(configs, parameters=["a"])
    summary = mean_over_seeds(configs, ["a"])
    # brute force: best mean accuracy among configurations with epsilon <= each budget
    for budget in np.linspace(0, 10, 101):
        feasible = summary[summary["epsilon"] <= budget]
        on_front = front[front["epsilon"] <= budget]
        if feasible.empty:
            assert on_front.empty
        else:
            assert on_front["test_accuracy_mean"].max() == feasible["test_accuracy_mean"].max()
    assert np.all(np.diff(front["epsilon"]) >= 0) and np.all(
        np.diff(front["test_accuracy_mean"]) > 0
    )


def test_frontier_per_algorithm_and_loss_metric(rows):
    both = pd.concat(
        [
            rows.assign(algorithm="fedavg"),
            rows.assign(algorithm="copy", epsilon=rows["epsilon"] * 2),
        ]
    )
    front = frontier(
        both, algorithm_column="algorithm", metric="test_loss", parameters=["sigma", "rate"]
    )
    assert set(front["algorithm"]) == {"fedavg", "copy"}
    for _, part in front.groupby("algorithm"):
        assert np.all(np.diff(part["test_loss_mean"]) < 0)
    with pytest.raises(ValueError, match="metric must be one of"):
        frontier(rows, metric="auc", parameters=["sigma", "rate"])


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_data_sets(name):
    train, test = bundled(name, 5, partition="dirichlet", concentration=0.3, seed=2)
    assert train.n_clients == test.n_clients == 5
    assert np.all(np.linalg.norm(train.features, axis=1) <= 1 + 1e-12)
    assert np.all(np.linalg.norm(test.features, axis=1) <= 1 + 1e-12)
    assert math.isclose(np.max(np.linalg.norm(train.features, axis=1)), 1.0)
    again, _ = bundled(name, 5, partition="dirichlet", concentration=0.3, seed=2)
    assert np.array_equal(again.features, train.features)


def test_dirichlet_split_skews_labels():
    iid, _ = bundled("digits", 10, partition="iid", seed=0)
    skew, _ = bundled("digits", 10, partition="dirichlet", concentration=0.1, seed=0)

    def spread(data):  # mean over clients of the largest class share
        return np.mean(
            [
                np.bincount(data.client(i)[1].astype(int), minlength=10).max()
                / data.client(i)[1].size
                for i in range(data.n_clients)
            ]
        )

    assert spread(skew) > spread(iid) + 0.2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(name="mnist", n_clients=5), "unknown data set 'mnist'"),
        (dict(name="iris", n_clients=0), "n_clients must be an integer >= 1"),
        (dict(name="iris", n_clients=100), "n_clients must be <= 75"),
        (dict(name="iris", n_clients=5, partition="shards"), "partition must be"),
        (dict(name="iris", n_clients=5, test_fraction=1.0), "test_fraction must lie in"),
    ],
)
def test_bundled_refusals(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bundled(**kwargs)


def test_configurations_product_order():
    assert configurations({"a": [1, 2], "b": [3, 4]}, {"c": 0}) == [
        {"a": 1, "b": 3, "c": 0},
        {"a": 1, "b": 4, "c": 0},
        {"a": 2, "b": 3, "c": 0},
        {"a": 2, "b": 4, "c": 0},
    ]


def test_frontier_plot_is_drawn(rows, tmp_path):
    pytest.importorskip("matplotlib")
    from hockeystick.plots import frontier_plot

    path = frontier_plot(rows, tmp_path / "frontier.png", parameters=["sigma", "rate"])
    assert (tmp_path / "frontier.png").stat().st_size > 1000 and path.endswith("frontier.png")
