"""Sweeps in-process: values against 50-digit references, every format, best-of, errors first."""

from __future__ import annotations

import os

import mpmath as mp
import numpy as np
import pandas as pd
import pytest

import hockeystick as hs
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.sweep import Grid, dataframe, registry, run_sweep
from hockeystick.sweep import run as run_module
from hockeystick.sweep.registry import AccountantEntry, Calibratable

from .. import reference


def _grid(output: str = "delta", **extra) -> Grid:
    params = {"sigma": "log:0.5:20:13", "rounds": [1, 3, 10, 100], "epsilon": "linear:0.1:6:7"}
    if output != "delta":
        params.pop("epsilon")
        params.update(
            {"delta": [1e-3, 1e-6, 1e-10]}
            if output == "epsilon"
            else {"epsilon": [0.5, 2], "delta": 1e-6}
        )
    if output not in ("delta", "epsilon"):
        params.pop("sigma")
    params.update(extra)
    return Grid.from_parameters("gaussian", output, params)


def test_gaussian_mechanism_matches_the_definition_at_50_digits():
    # 004 eq. 8 check value: delta(eps = 1) of 1-GDP
    assert GaussianMechanism(sigma=1.0).delta(1.0) == pytest.approx(0.126937, abs=5e-7)
    rng = np.random.default_rng(3)
    sigma, rounds, sens = (
        10 ** rng.uniform(-1, 2, 40),
        rng.integers(1, 10_000, 40),
        10 ** rng.uniform(-1, 1, 40),
    )
    eps = 10 ** rng.uniform(-2, 1.3, 40)
    got = GaussianMechanism(sigma=sigma, rounds=rounds, sensitivity=sens).delta(eps)
    for g, s, t, d, e in zip(got, sigma, rounds, sens, eps):
        mu = mp.sqrt(t) * mp.mpf(d) / mp.mpf(s)
        ref = reference.theta(float(mu), float(e))
        assert (
            g >= ref
        )  # a certified upper bound (outward rounding), within theta's 1e-12 of the truth
        if ref > 1e-300:
            assert g - ref <= 2e-12 * ref
    back = GaussianMechanism(sigma=sigma, rounds=rounds, sensitivity=sens).epsilon(
        np.clip(got, 1e-300, 0.5)
    )
    keep = (got > 1e-200) & (got < 0.5)
    np.testing.assert_allclose(back[keep], eps[keep], rtol=1e-9)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(sigma=0.0), "sigma must be finite and > 0"),
        (dict(sigma=[1.0, -1.0]), "sigma must be finite and > 0, got -1"),
        (dict(sigma=1.0, rounds=2.5), "rounds must be an integer >= 1"),
        (dict(sigma=1.0, rounds=0), "rounds must be an integer >= 1"),
        (dict(sigma=1.0, sensitivity=np.inf), "sensitivity must be finite"),
        (dict(sigma=[1.0, 2.0], rounds=[1, 2, 3]), "do not broadcast"),
    ],
)
def test_gaussian_mechanism_rejects_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GaussianMechanism(**kwargs)


def test_delta_sweep_equals_the_accountant_on_the_mesh_for_any_chunk_size():
    grid = _grid()
    s, t, e = np.meshgrid(*(a.values for a in grid.axes), indexing="ij")
    direct = GaussianMechanism(sigma=s, rounds=t).delta(e).ravel()
    for chunk_size in (1, 7, 50, 10**6):
        result = run_sweep(grid, chunk_size=chunk_size, progress=False)
        np.testing.assert_array_equal(result.columns["delta"], direct)
        np.testing.assert_array_equal(result.columns["sigma"], s.ravel())
        np.testing.assert_array_equal(result.columns["rounds"], t.ravel())


def test_epsilon_and_calibration_outputs():
    grid = _grid("epsilon")
    df = dataframe(grid)
    np.testing.assert_array_equal(
        df["epsilon"],
        GaussianMechanism(sigma=df["sigma"], rounds=df["rounds"]).epsilon(df["delta"]),
    )
    cal = dataframe(_grid("sigma"))
    expected = np.sqrt(cal["rounds"]) / hs.theta_radius(cal["epsilon"], 1e-6)
    np.testing.assert_allclose(cal["sigma"], expected, rtol=1e-9)
    assert np.all(hs.theta(np.sqrt(cal["rounds"]) / cal["sigma"], cal["epsilon"]) <= 1e-6)


@pytest.mark.parametrize("suffix", [".csv", ".npz", ".parquet"])
def test_every_format_holds_the_in_memory_result_exactly(tmp_path, suffix):
    grid = _grid(sensitivity=2.0)
    expected = run_sweep(grid, progress=False).to_pandas()
    path = tmp_path / f"sweep{suffix}"
    result = run_sweep(grid, path, chunk_size=40, progress=False)
    assert result.path == os.fspath(path) and result.points == len(expected) == grid.size
    if suffix == ".csv":
        got = pd.read_csv(path)
    elif suffix == ".parquet":
        got = pd.read_parquet(path)
        import pyarrow.parquet as pq

        assert pq.read_schema(path).metadata[b"hockeystick.fixed"] == b'{"sensitivity": 2.0}'
    if suffix in (".csv", ".parquet"):  # the fixed parameter is a column too, after the axes
        assert (
            list(got.columns) == [*grid.inputs, "sensitivity", "delta"]
            and (got["sensitivity"] == 2.0).all()
        )
        got = got.drop(columns="sensitivity")
    else:
        with np.load(path) as npz:
            assert float(npz["sensitivity"]) == 2.0
            assert npz["delta"].shape == grid.shape
            mesh = np.meshgrid(*(npz[a.name] for a in grid.axes), indexing="ij")
            got = pd.DataFrame(
                {a.name: m.ravel() for a, m in zip(grid.axes, mesh)}
                | {"delta": npz["delta"].ravel()}
            )
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert sorted(os.listdir(tmp_path)) == [path.name]  # no temporary files left


def test_csv_without_pyarrow_is_the_same_table(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    grid = _grid()
    run_sweep(grid, tmp_path / "a.csv", progress=False)
    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    run_sweep(grid, tmp_path / "b.csv", progress=False)
    monkeypatch.undo()
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv"), check_exact=True
    )


class _LaplaceTest:
    """Laplace noise of scale sigma on a query of sensitivity d: delta = [1 - e^{(eps - d/sigma)/2}]_+ (002 Lemma 1).

    A second, genuinely different accountant so that the best-of-several logic has crossings to find."""

    def __init__(self, *, sigma, sensitivity=1.0):
        self.sigma, self.sensitivity = np.asarray(sigma, float), np.asarray(sensitivity, float)

    def delta(self, epsilon):
        return hs.laplace_hockey_stick(self.sensitivity, self.sigma, epsilon)

    def epsilon(self, delta):
        return np.maximum(0.0, self.sensitivity / self.sigma + 2 * np.log1p(-np.asarray(delta)))


@pytest.fixture
def laplace_registered():
    entry = registry.register(
        AccountantEntry(
            "laplace_test",
            _LaplaceTest,
            "test double",
            calibratable={"sigma": Calibratable("decreasing", 0.0, np.inf)},
        )
    )
    yield entry
    del registry.REGISTRY["laplace_test"]


def test_best_of_several_accountants_and_which_one(laplace_registered, tmp_path):
    params = {"sigma": "log:0.3:5:25", "epsilon": "linear:0:4:30"}
    both = Grid.from_parameters(["gaussian", "laplace_test"], "delta", params)
    result = run_sweep(both, tmp_path / "best.parquet", progress=False, keep=True)
    df = pd.read_parquet(tmp_path / "best.parquet")
    alone = {
        name: dataframe(Grid.from_parameters(name, "delta", params))["delta"]
        for name in both.accountants
    }
    np.testing.assert_array_equal(df["delta_gaussian"], alone["gaussian"])
    np.testing.assert_array_equal(df["delta_laplace_test"], alone["laplace_test"])
    np.testing.assert_array_equal(df["delta"], np.minimum(alone["gaussian"], alone["laplace_test"]))
    winner = np.where(alone["laplace_test"] < alone["gaussian"], "laplace_test", "gaussian")
    assert (df["best"].astype(str) == winner).all()
    assert set(winner) == {"gaussian", "laplace_test"}  # the curves cross: both win somewhere
    counts = result.summary.best_counts
    assert counts.sum() == both.size and counts[1] == (winner == "laplace_test").sum()
    # calibration: the smallest sigma of the two
    cal = Grid.from_parameters(
        ["gaussian", "laplace_test"], "sigma", {"epsilon": [0.5, 1, 3], "delta": 1e-3}
    )
    out = dataframe(cal)
    np.testing.assert_array_equal(
        out["sigma"], np.minimum(out["sigma_gaussian"], out["sigma_laplace_test"])
    )


@pytest.mark.parametrize(
    "make_grid, path, message",
    [
        (lambda: _grid(), "missing_dir/out.csv", "does not exist"),
        (lambda: _grid(), "out.txt", "unknown format"),
        (lambda: _grid(), ".", "is a directory"),
        (lambda: _grid(sigma=[-1.0, 1.0]), "out.npz", "sigma must be finite and > 0"),
        (
            lambda: Grid.from_parameters(
                "gaussian", "rounds", {"sigma": [0.5, 50], "epsilon": 0.5, "delta": 1e-9}
            ),
            "out.csv",
            "unreachable",
        ),
    ],
)
def test_bad_input_fails_before_any_work(tmp_path, monkeypatch, make_grid, path, message):
    monkeypatch.chdir(tmp_path)
    calls = []
    monkeypatch.setattr(run_module, "evaluate_chunk", lambda *a: calls.append(a))
    with pytest.raises(ValueError, match=message):
        run_sweep(make_grid(), path, progress=False)
    assert calls == [] and os.listdir(tmp_path) == []


def test_unwritable_directory(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    # /proc refuses new files even to root; a read-only directory refuses everyone else
    target = locked if os.geteuid() != 0 else "/proc"
    with pytest.raises(ValueError, match="not writable"):
        run_sweep(_grid(), os.path.join(target, "out.csv"), progress=False)


def test_a_failure_mid_sweep_leaves_no_result_and_resumes(tmp_path, monkeypatch):
    """No half file at the destination; the finished chunks wait in the hidden parts directory,
    and resume=True continues from them (computing only the rest) to the file a clean run writes."""
    real = run_module.evaluate_chunk
    computed = []

    def fail_on_third(grid, chunk):
        if chunk.index == 2:
            raise RuntimeError("worker exploded")
        computed.append(chunk.index)
        return real(grid, chunk)

    monkeypatch.setattr(run_module, "evaluate_chunk", fail_on_third)
    for suffix in (".csv", ".npz", ".parquet"):
        with pytest.raises(RuntimeError, match="exploded"):
            run_sweep(_grid(), tmp_path / f"out{suffix}", chunk_size=20, progress=False)
    assert sorted(os.listdir(tmp_path)) == [
        ".out.csv.parts",
        ".out.npz.parts",
        ".out.parquet.parts",
    ]
    monkeypatch.setattr(run_module, "evaluate_chunk", real)
    for suffix in (".csv", ".npz", ".parquet"):
        run_sweep(_grid(), tmp_path / f"clean{suffix}", chunk_size=20, progress=False)
        monkeypatch.setattr(
            run_module, "evaluate_chunk", lambda g, c: computed.append(c.index) or real(g, c)
        )
        computed.clear()
        run_sweep(_grid(), tmp_path / f"out{suffix}", chunk_size=20, progress=False, resume=True)
        monkeypatch.setattr(run_module, "evaluate_chunk", real)
        assert 0 not in computed and 1 not in computed and 2 in computed
        if suffix == ".npz":  # a zip records its members' times: compare the arrays
            with np.load(tmp_path / "out.npz") as a, np.load(tmp_path / "clean.npz") as b:
                assert a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files)
        else:
            assert (tmp_path / f"out{suffix}").read_bytes() == (
                tmp_path / f"clean{suffix}"
            ).read_bytes()
    assert sorted(os.listdir(tmp_path)) == sorted(
        f"{n}{s}" for n in ("out", "clean") for s in (".csv", ".npz", ".parquet")
    )


def test_summary_finds_the_extremes():
    grid = _grid()
    result = run_sweep(grid, chunk_size=33, progress=False)
    delta = result.columns["delta"]
    (low, i), (high, j) = result.summary.low["delta"], result.summary.high["delta"]
    assert low == delta.min() and high == delta.max() and delta[i] == low and delta[j] == high
    assert result.summary.point(j) == {"sigma": 0.5, "rounds": 100, "epsilon": 0.1}


def test_trusted_aggregator_sweep_and_calibration():
    """The registered 000 Thm 2 accountant: the sweep is the accountant on the mesh; calibration is tight."""
    from hockeystick.contraction import TrustedAggregator

    fixed = dict(n=6000, learning_rate=0.5, lipschitz=1.0, radius=1.0)
    grid = Grid.from_parameters(
        "trusted_aggregator",
        "delta",
        {
            "sigma": "log:0.1:5:9",
            "batch_size": [10, 100, 1000],
            "epsilon": "log:0.01:10:11",
            **fixed,
        },
    )
    df = dataframe(grid, chunk_size=50)
    direct = TrustedAggregator(
        sigma=df["sigma"].to_numpy(), batch_size=df["batch_size"].to_numpy(), **fixed
    )
    np.testing.assert_array_equal(df["delta"], direct.delta(df["epsilon"].to_numpy()))
    cal = dataframe(
        Grid.from_parameters(
            "trusted_aggregator",
            "sigma",
            {"batch_size": [10, 100, 1000], "epsilon": [0.5, 2], "delta": 1e-6, **fixed},
        )
    )
    m, eps, sigma = (cal[k].to_numpy() for k in ("batch_size", "epsilon", "sigma"))
    assert np.all(TrustedAggregator(sigma=sigma, batch_size=m, **fixed).delta(eps) <= 1e-6)
    assert np.all(
        TrustedAggregator(sigma=sigma * (1 - 1e-8), batch_size=m, **fixed).delta(eps) > 1e-6
    )
    rounds = dataframe(
        Grid.from_parameters(
            "trusted_aggregator",
            "rounds",
            {
                "batch_size": [10, 100, 1000],
                "epsilon": [1.0, 2.0],
                "sigma": 2.0,
                "delta": 1e-5,
                **fixed,
            },
        )
    )
    cap = 6000 // rounds["batch_size"]
    assert np.all(rounds["rounds"] <= cap) and np.any(
        rounds["rounds"] < cap
    )  # the cap binds, and not always
    for m, e, t in rounds[["batch_size", "epsilon", "rounds"]].itertuples(index=False):
        assert TrustedAggregator(sigma=2.0, batch_size=m, rounds=t, **fixed).delta(e) <= 1e-5
        if t < 6000 // m:
            assert TrustedAggregator(sigma=2.0, batch_size=m, rounds=t + 1, **fixed).delta(e) > 1e-5


def test_the_module_docstring_example_runs():
    """The example in ``hockeystick.sweep``'s docstring runs."""
    import doctest

    import hockeystick.sweep

    failed, attempted = doctest.testmod(hockeystick.sweep, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert attempted >= 5 and failed == 0


def test_sweep_result_repr_is_short_and_says_what_it_holds(tmp_path):
    """The repr is a short summary: no grid array is printed."""
    grid = Grid.from_parameters(
        "gaussian",
        "delta",
        {
            "sigma": "log:0.5:20:1000",
            "rounds": [1, 10],
            "epsilon": "linear:0.1:8:50",
            "sensitivity": 2.0,
        },
    )
    for path in (None, tmp_path / "out.csv"):
        text = repr(run_sweep(grid, path, progress=False))
        assert len(text) < 300 and "array" not in text, text
        for part in (
            "100,000 points",
            "shape=(1000, 2, 50)",
            "accountants=['gaussian']",
            "output='delta'",
            "sigma[1000]",
            "rounds[2]",
            "epsilon[50]",
            "sensitivity=2",
            "in memory" if path is None else repr(str(path)),
        ):
            assert part in text, (part, text)
