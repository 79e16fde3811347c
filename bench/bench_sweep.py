"""Sweep throughput: in-process and on a 2-worker LocalCluster, and the sweep layer's overhead.

Full sizes (HOCKEYSTICK_BENCH_FULL=1): a 10^7-point delta sweep of the composed
Gaussian (sigma x rounds x epsilon = 1000 x 10 x 1000) to NPZ and to Parquet,
in-process and on Dask; the overhead of chunked evaluation against one direct
vectorized call on the same open mesh; calibration of sigma for 1000 points
against dp_accounting's calibrate_dp_mechanism (RDP and PLD), which has no batch
call and is looped.
"""

from __future__ import annotations

import numpy as np
import pytest
from ratio import Pair, Size, ratio

from conftest import FULL, pick
from hockeystick.calibrate import calibrate
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.sweep import Grid, run_sweep
from hockeystick.sweep.run import default_chunk_size, evaluate_chunk


def _grid() -> Grid:
    n_sigma = pick(1000, 20)
    return Grid.from_parameters(
        "gaussian",
        "delta",
        {
            "sigma": f"log:0.5:50:{n_sigma}",
            "rounds": "log:1:10000:10",
            "epsilon": f"log:0.01:20:{pick(1000, 50)}",
        },
    )


@pytest.fixture(scope="module")
def grid() -> Grid:
    return _grid()


@pytest.mark.parametrize("suffix", [".npz", ".parquet"])
def test_sweep_in_process(benchmark, grid, tmp_path, suffix):
    benchmark.group = "sweep 10^7 points"
    result = benchmark.pedantic(
        run_sweep,
        args=(grid, tmp_path / f"sweep{suffix}"),
        kwargs={"progress": False},
        rounds=3 if FULL else 1,
        iterations=1,
    )
    assert result.points == grid.size


@pytest.fixture(scope="module")
def cluster():
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=FULL,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=None,
    ) as c:
        yield c


@pytest.mark.parametrize("suffix", [".npz", ".parquet"])
def test_sweep_on_dask_2_workers(benchmark, grid, tmp_path, cluster, suffix):
    from hockeystick.sweep.dask import run_on_dask

    benchmark.group = "sweep 10^7 points"
    result = benchmark.pedantic(
        run_on_dask,
        args=(grid, tmp_path / f"sweep{suffix}"),
        kwargs={"scheduler": cluster.scheduler_address, "progress": False},
        rounds=3 if FULL else 1,
        iterations=1,
    )
    assert result.points == grid.size


def _direct(grid: Grid) -> np.ndarray:
    """One vectorized call on the open mesh: what a user would write without the sweep layer."""
    sigma, rounds, eps = (a.values for a in grid.axes)
    mech = GaussianMechanism(sigma=sigma[:, None, None], rounds=rounds[None, :, None])
    return mech.delta(eps[None, None, :])


def _chunked(grid: Grid) -> None:
    size = default_chunk_size(grid)
    for chunk in grid.chunks(size):
        evaluate_chunk(grid, chunk)


def test_overhead_direct_call(benchmark, grid):
    benchmark.group = "sweep layer overhead"
    out = benchmark(_direct, grid)
    assert out.size == grid.size


def test_overhead_chunked_evaluation(benchmark, grid):
    benchmark.group = "sweep layer overhead"
    benchmark(_chunked, grid)


def test_overhead_sweep_to_memory(benchmark, grid):
    """The whole in-memory sweep: chunks, evaluation, the flat axis columns, the summary."""
    benchmark.group = "sweep layer overhead"
    benchmark(run_sweep, grid, progress=False)


def _calibration_points() -> tuple[np.ndarray, np.ndarray]:
    n = pick(1000, 20)
    rng = np.random.default_rng(7)
    return rng.integers(1, 10_000, n).astype(float), 10 ** rng.uniform(-1, 1, n)


def test_calibrate_sigma_hockeystick(benchmark):
    benchmark.group = "calibrate sigma, delta=1e-5"
    rounds, eps = _calibration_points()
    sigma = benchmark(calibrate, "gaussian", "sigma", epsilon=eps, delta=1e-5, rounds=rounds)
    assert np.all(GaussianMechanism(sigma=sigma, rounds=rounds).delta(eps) <= 1e-5)


@pytest.mark.parametrize("method", ["rdp", "pld"])
def test_calibrate_sigma_dp_accounting_loop(benchmark, method):
    """dp_accounting has no batch call: a loop over a few points (PLD composition is slow at large T)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    benchmark.group = "calibrate sigma, delta=1e-5"
    rounds = np.array(
        [10.0, 100.0, 1000.0][: pick(3, 1)]
        if method == "pld"
        else _calibration_points()[0][: pick(50, 1)]
    )
    eps = np.ones_like(rounds)
    make = {
        "rdp": dp_accounting.rdp.RdpAccountant,
        "pld": lambda: dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-3),
    }[method]

    def loop() -> list[float]:
        return [
            dp_accounting.calibrate_dp_mechanism(
                make,
                lambda s, t=t: dp_accounting.SelfComposedDpEvent(
                    dp_accounting.GaussianDpEvent(s), int(t)
                ),
                float(e),
                1e-5,
            )
            for t, e in zip(rounds, eps)
        ]

    sigma = benchmark.pedantic(loop, rounds=1, iterations=1)
    exact = calibrate("gaussian", "sigma", epsilon=eps, delta=1e-5, rounds=rounds)
    benchmark.extra_info["points"] = len(rounds)
    benchmark.extra_info["sigma_over_exact"] = [float(x) for x in np.asarray(sigma) / exact]


# ---- ratio benchmarks (bench/run.py; gated in CI) -------------------------------------------------


@ratio(
    "sweep_layer_overhead",
    title="`run_sweep` to memory (chunks, axis columns, summary), σ × T × ε grid of 10^7 points (short: 2·10^5)",
    anchor="one vectorized `GaussianMechanism.delta` call on the open mesh",
    table="sweep",
    unit="points",
    clock="cpu",
)
def sweep_layer_overhead(size: Size) -> Pair:
    """Speed of the whole sweep relative to the direct call: 1 means no overhead, 0.8 means 25% more time."""
    n_sigma, n_eps = (1000, 1000) if size == "full" else (100, 200)
    grid = Grid.from_parameters(
        "gaussian",
        "delta",
        {
            "sigma": f"log:0.5:50:{n_sigma}",
            "rounds": "log:1:10000:10",
            "epsilon": f"log:0.01:20:{n_eps}",
        },
    )

    def check(result: object, direct: np.ndarray) -> None:
        assert result.points == direct.size  # type: ignore[attr-defined]

    return Pair(
        ours=lambda: run_sweep(grid, progress=False),
        anchor=lambda: _direct(grid),
        ours_items=grid.size,
        anchor_items=grid.size,
        check=check,
    )


@ratio(
    "sweep_chunked_evaluation",
    title="the sweep's chunked evaluation alone (chunk geometry, parameter slices, one "
    "call per 1M-point chunk), 10^7 points (short: 2·10^5)",
    anchor="one vectorized `GaussianMechanism.delta` call on the open mesh",
    table="sweep",
    unit="points",
    clock="cpu",
)
def sweep_chunked_evaluation(size: Size) -> Pair:
    """What run_sweep does per chunk, without the output columns: near 1 (or above: chunks stay in cache)."""
    n_sigma, n_eps = (1000, 1000) if size == "full" else (100, 200)
    grid = Grid.from_parameters(
        "gaussian",
        "delta",
        {
            "sigma": f"log:0.5:50:{n_sigma}",
            "rounds": "log:1:10000:10",
            "epsilon": f"log:0.01:20:{n_eps}",
        },
    )
    return Pair(
        ours=lambda: _chunked(grid),
        anchor=lambda: _direct(grid),
        ours_items=grid.size,
        anchor_items=grid.size,
    )


@ratio(
    "calibrate_sigma",
    title="σ for (ε ∈ [0.1, 10], δ = 1e-5), T ∈ [1, 10^4], 1000 points in one call (short: 100)",
    anchor="dp_accounting `calibrate_dp_mechanism` + `RdpAccountant`, looped (50 points; short: 2)",
    table="sweep",
    unit="points",
    clock="cpu",
)
def calibrate_sigma(size: Size) -> Pair:
    """Exact σ of the composed Gaussian (bracketing + Chandrupatla) against dp_accounting's RDP σ, which is
    larger (the RDP conversion is loose): checked, so a faster anchor cannot be a wrong one."""
    import dp_accounting

    n, looped = (1000, 50) if size == "full" else (100, 2)
    rng = np.random.default_rng(7)
    rounds, eps = rng.integers(1, 10_000, n).astype(float), 10 ** rng.uniform(-1, 1, n)

    def anchor() -> list[float]:
        return [
            dp_accounting.calibrate_dp_mechanism(
                dp_accounting.rdp.RdpAccountant,
                lambda s, t=t: dp_accounting.SelfComposedDpEvent(
                    dp_accounting.GaussianDpEvent(s), int(t)
                ),
                float(e),
                1e-5,
            )
            for t, e in zip(rounds[:looped], eps[:looped])
        ]

    def check(ours: np.ndarray, theirs: list[float]) -> None:
        assert np.all(ours[:looped] <= np.asarray(theirs) * (1 + 1e-6)), (ours[:looped], theirs)

    return Pair(
        ours=lambda: calibrate("gaussian", "sigma", epsilon=eps, delta=1e-5, rounds=rounds),
        anchor=anchor,
        ours_items=n,
        anchor_items=looped,
        check=check,
    )
