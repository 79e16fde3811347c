"""SubsampledGaussianPLD(accuracy=...) over a block of (sigma, q) points, progress per block, Dask = in-process.

The block's brackets are checked against point-by-point evaluation on an independent, finer
fixed grid (both are certified, so they must overlap, and the block's must meet its accuracy
where that is reachable), the window fallback against the window it replaced (the whole
support), progress against the points it reports, and a 2-worker LocalCluster against the
in-process sweep, value for value.
"""

from __future__ import annotations

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.base import progress
from hockeystick.pld.compose import fft as compose
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians
from hockeystick.pld.refine.grid_start import StartGrid, ladder_rung
from hockeystick.sweep import Grid, run_sweep

ROUNDS = np.array([10.0, 100.0, 1000.0, 10_000.0])
EPS = np.array([0.5, 1.0, 2.0, 4.0])


@pytest.mark.parametrize(
    "sigma, q", [(1.0, 0.01), pytest.param(0.6, 0.1, marks=pytest.mark.slow), (3.0, 0.05)]
)
def test_block_brackets_overlap_pointwise_fine_grid_and_meet_accuracy(sigma, q):
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=ROUNDS[:, None], accuracy=1e-2
    ).delta(EPS[None, :], bound="both")
    for i, t in enumerate(ROUNDS):
        f_lo, f_up = pld.SubsampledGaussianPLD(
            sigma=sigma, sampling_rate=q, rounds=t, value_discretization_interval=5e-5
        ).delta(EPS, bound="both")
        assert np.all(lo[i] <= f_up) and np.all(f_lo <= up[i]), (t, lo[i], up[i], f_lo, f_up)
    assert np.all(0.0 <= lo) and np.all(lo <= up) and np.all(up <= 1.0)
    # Above the floor the refinement only stops once the bracket meets accuracy; below it (a delta
    # of 3e-10 bracketed 1.2e-11 wide) it may also stop when a finer grid no longer narrows it.
    clear = up >= 10 * pld.SubsampledGaussianPLD.DELTA_FLOOR
    assert clear.sum() >= 4 and np.all((up - lo)[clear] <= 1e-2 * up[clear]), (up, lo)


def test_wide_points_start_on_a_coarse_grid():
    """sigma 0.5, q 0.1, 1e5 rounds: delta(eps <= 10) ~ 1; the W2-sized start grid needs 4.4e8 points."""
    acc = pld.SubsampledGaussianPLD(sigma=0.5, sampling_rate=0.1, rounds=100_000, accuracy=1e-2)
    assert StartGrid(acc.accuracy, acc.delta_accuracy).first((0.5, 0.1, 100_000.0, 1.0)) > 0.1
    lo, up = acc.delta(np.array([1.0, 10.0]), bound="both")
    assert np.all(lo <= up) and np.all((up - lo) <= 1e-2 * up) and np.all(lo > 0.99)


def test_block_shares_discretizations():
    """Start grids sit on a sqrt(2) ladder, so 50 rounds values need a handful of one-round PLDs."""
    acc = pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=1.0, accuracy=1e-2)
    starts = {
        StartGrid(acc.accuracy, acc.delta_accuracy).first((1.0, 0.01, float(t), 1.0))
        for t in np.round(np.logspace(1, 5, 50))
    }
    assert len(starts) <= 8  # of 50 rounds values
    for h in starts:
        assert ladder_rung(h) == h


def test_window_fallback_when_the_grid_variance_vanishes(grid_alone):
    """The optimistic PMF of q = 1e-4 on h = 7.8e-4 has ~all its mass on one grid point: the
    Gaussian-centred ladder of lams gave the whole support (1.1e9 points, refused)."""
    dist = subsampled_gaussians(
        np.array([0.5]),
        np.array([1e-4]),
        sensitivity=np.array([1.0]),
        value_discretization_interval=7.8e-4,
        tail=1e-15,
        optimistic=True,
    )[0]
    factor = next(iter(dist.directions[0]))
    composed = compose.compose([(factor.lower, 100_000)], pessimistic=False)
    assert composed.p.size < 1 << 16
    lo, up = pld.SubsampledGaussianPLD(
        sigma=0.5, sampling_rate=1e-4, rounds=100_000, value_discretization_interval=7.8e-4
    ).delta(EPS, bound="both")
    f_lo, f_up = pld.SubsampledGaussianPLD(
        sigma=0.5, sampling_rate=1e-4, rounds=100_000, value_discretization_interval=3e-4
    ).delta(EPS, bound="both")
    assert np.all(lo <= up) and np.all(lo <= f_up) and np.all(f_lo <= up)


def test_accountant_reports_progress_per_batch(grid_alone):
    seen: list[int] = []
    sigma = np.linspace(1.0, 2.0, pld.SubsampledGaussianPLD.BATCH + 6)
    with progress.reporting(seen.append):
        pld.SubsampledGaussianPLD(
            sigma=sigma[:, None], sampling_rate=0.01, rounds=100, value_discretization_interval=1e-3
        ).delta(EPS[None, :])
    assert len(seen) >= 2 and sum(seen) == sigma.size * EPS.size
    progress.advance(5)  # nobody listens outside the block: nothing happens
    assert sum(seen) == sigma.size * EPS.size


class _Bar:
    def __init__(self, total, **_):
        self.total, self.updates = total, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n):
        self.updates.append(n)


def test_sweep_bar_moves_within_a_chunk(monkeypatch, grid_alone):
    from hockeystick.sweep import run as sweep_run

    bars: list[_Bar] = []
    monkeypatch.setattr(
        sweep_run, "progress_bar", lambda total, _: bars.append(_Bar(total)) or bars[-1]
    )
    grid = Grid.from_parameters(
        "pld_subsampled_gaussian",
        "delta",
        {
            "sigma": "linear:1:2:70",
            "sampling_rate": 0.01,
            "rounds": 100,
            "epsilon": [1.0, 2.0],
            "value_discretization_interval": 1e-3,
        },
    )
    run_sweep(grid, chunk_size=grid.size, progress=True)
    bar = bars[-1]
    assert sum(bar.updates) == grid.size and len(bar.updates) >= 2  # one chunk, several blocks


def test_pld_sweep_on_dask_equals_in_process():
    pytest.importorskip("dask.distributed")
    from dask.distributed import LocalCluster

    from hockeystick.sweep import dask as sweep_dask

    grid = Grid.from_parameters(
        "pld_subsampled_gaussian",
        "delta",
        {
            "sigma": [0.8, 1.5],
            "sampling_rate": [0.001, 0.02],
            "rounds": [100, 3000],
            "epsilon": [0.5, 2.0, 6.0],
            "accuracy": 1e-2,
        },
    )
    local = run_sweep(grid, progress=False)
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=":0",
    ) as cluster:
        remote = sweep_dask.run_on_dask(
            grid, scheduler=cluster.scheduler_address, chunk_size=6, progress=False
        )
    assert grid.n_chunks(6) == 4  # whole (sigma, q) blocks
    for name in local.columns:
        np.testing.assert_array_equal(local.columns[name], remote.columns[name])


def test_workers_as_a_process_pools_map_equal_threads_bit_for_bit():
    """workers=pool.map (scipy's map-like convention): the blocks run in the pool's processes, one
    thread each, and give the threads' values bit for bit, both sides, with accuracy= and a fixed grid,
    for delta and epsilon; progress still moves per block."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    kw = dict(
        sigma=np.array([0.7, 2.3])[:, None, None],
        sampling_rate=np.array([1e-3, 0.05])[None, :, None],
        rounds=np.array([300.0, 3000.0])[None, None, :],
    )
    eps = EPS[:, None, None, None]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        for grid in (
            dict(accuracy=1e-2, delta_accuracy="epsilon"),
            dict(value_discretization_interval=1e-3),
        ):
            threads = pld.SubsampledGaussianPLD(**kw, **grid, workers=2)
            mapped = pld.SubsampledGaussianPLD(**kw, **grid, workers=pool.map)
            got, want = mapped.delta(eps, bound="both"), threads.delta(eps, bound="both")
            assert all(np.array_equal(a, b) for a, b in zip(got, want))
            assert np.array_equal(
                mapped.epsilon(1e-5, bound="both"), threads.epsilon(1e-5, bound="both")
            )
            assert np.all(want[0] <= want[1]) and np.all(want[0] >= 0)
        sigma = np.linspace(
            1.0, 2.0, pld.SubsampledGaussianPLD.BATCH + 6
        )[
            :, None
        ]  # two units or more, every delta above the grid's floor (the default's reads, run in the pool above)
        seen: list[int] = []
        with progress.reporting(seen.append):
            got = pld.SubsampledGaussianPLD(
                sigma=sigma,
                sampling_rate=0.2,
                rounds=100,
                workers=pool.map,
                value_discretization_interval=1e-3,
            ).delta(EPS[None, :])
        assert len(seen) >= 2 and sum(seen) == sigma.size * EPS.size
        assert np.array_equal(
            got,
            pld.SubsampledGaussianPLD(
                sigma=sigma,
                sampling_rate=0.2,
                rounds=100,
                workers=1,
                value_discretization_interval=1e-3,
            ).delta(EPS[None, :]),
        )


def test_workers_given_a_pool_instead_of_its_map_says_so():
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool, pytest.raises(TypeError, match=r"workers=pool\.map"):
        pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=10, workers=pool)


@pytest.mark.parametrize(
    "bad_map, message",
    [
        (lambda f, tasks: list(map(f, tasks))[::-1], "another block"),
        (lambda f, tasks: list(map(f, tasks))[:-1], "returned 1 results for 2 blocks"),
    ],
)
def test_a_map_that_reorders_or_drops_results_is_refused(bad_map, message, grid_alone):
    sigma = np.linspace(1.0, 2.0, pld.SubsampledGaussianPLD.BATCH + 6)[:, None]  # two units
    with pytest.raises(RuntimeError, match=message):
        pld.SubsampledGaussianPLD(
            sigma=sigma,
            sampling_rate=0.01,
            rounds=100,
            workers=bad_map,
            value_discretization_interval=1e-3,
        ).delta(EPS[None, :])


def test_workers_as_a_dask_executors_map_equals_threads():
    pytest.importorskip("dask.distributed")
    from dask.distributed import Client, LocalCluster

    kw = dict(
        sigma=np.array([0.9, 1.8])[:, None],
        sampling_rate=0.01,
        rounds=np.array([100.0, 2000.0]),
        accuracy=1e-2,
    )
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            host="127.0.0.1",
            protocol="tcp",
            dashboard_address=":0",
        ) as cluster,
        Client(cluster) as client,
    ):
        got = pld.SubsampledGaussianPLD(**kw, workers=client.get_executor().map).delta(
            1.0, bound="both"
        )
    want = pld.SubsampledGaussianPLD(**kw, workers=1).delta(1.0, bound="both")
    assert all(np.array_equal(a, b) for a, b in zip(got, want))


def test_calibrate_progress_moves_per_block(capsys):
    from hockeystick.calibrate import calibrate

    sigma = calibrate(
        "pld_subsampled_gaussian",
        "sigma",
        epsilon=np.array([1.0, 2.0]),
        delta=1e-5,
        sampling_rate=0.01,
        rounds=100,
        value_discretization_interval=1e-3,
        rtol=1e-3,
        progress=True,
    )
    err = capsys.readouterr().err
    assert "calibrate pld_subsampled_gaussian sigma" in err and "targets open" in err
    quiet = calibrate(
        "pld_subsampled_gaussian",
        "sigma",
        epsilon=np.array([1.0, 2.0]),
        delta=1e-5,
        sampling_rate=0.01,
        rounds=100,
        value_discretization_interval=1e-3,
        rtol=1e-3,
    )
    np.testing.assert_array_equal(sigma, quiet)
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress must be True or False"):
        calibrate("gaussian", "sigma", epsilon=1.0, delta=1e-5, progress="yes")


def test_a_calibration_inside_a_sweep_does_not_move_the_sweep_bar_per_trial():
    seen: list[int] = []
    from hockeystick.calibrate import calibrate

    with progress.reporting(seen.append):
        calibrate(
            "pld_subsampled_gaussian",
            "sigma",
            epsilon=1.0,
            delta=1e-5,
            sampling_rate=0.01,
            rounds=100,
            value_discretization_interval=1e-3,
            rtol=1e-3,
        )
    assert seen == [1]  # the one target solved, once; none of its trials
