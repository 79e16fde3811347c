"""The same sweep on a real 2-worker LocalCluster on 127.0.0.1: identical files, retried chunks once."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("dask.distributed")

from hockeystick.sweep import Grid, run_sweep  # noqa: E402
from hockeystick.sweep import dask as sweep_dask  # noqa: E402

GRID = dict(sigma="log:0.5:20:40", rounds=[1, 10, 100], epsilon="linear:0.1:8:50")


@pytest.fixture(scope="module")
def cluster():
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=":0",
    ) as c:
        assert c.scheduler_address.startswith("tcp://127.0.0.1:")
        yield c


def _same_file(a, b) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".npz"])
def test_dask_writes_the_in_process_file(tmp_path, cluster, suffix):
    grid = Grid.from_parameters("gaussian", "delta", GRID)
    local = run_sweep(grid, tmp_path / f"local{suffix}", chunk_size=500, progress=False)
    remote = sweep_dask.run_on_dask(
        grid,
        tmp_path / f"dask{suffix}",
        scheduler=cluster.scheduler_address,
        chunk_size=500,
        progress=False,
    )
    assert grid.n_chunks(500) > 4 and remote.points == local.points == grid.size
    if suffix == ".npz":
        with np.load(tmp_path / "local.npz") as a, np.load(tmp_path / "dask.npz") as b:
            assert a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files)
    else:
        assert _same_file(tmp_path / f"local{suffix}", tmp_path / f"dask{suffix}")
    assert sorted(os.listdir(tmp_path)) == sorted(
        [f"local{suffix}", f"dask{suffix}"]
    )  # parts cleaned up


def test_calibration_in_memory_on_dask(cluster):
    grid = Grid.from_parameters(
        "gaussian", "sigma", {"rounds": [1, 10, 100, 1000], "epsilon": [0.5, 1, 2], "delta": 1e-6}
    )
    local = run_sweep(grid, chunk_size=2, progress=False)
    remote = sweep_dask.run_on_dask(
        grid, scheduler=cluster.scheduler_address, chunk_size=2, progress=False
    )
    for name in local.columns:
        np.testing.assert_array_equal(local.columns[name], remote.columns[name])


def test_a_retried_chunk_is_written_once(tmp_path, cluster, monkeypatch):
    """A task that dies after publishing its part is re-run by Dask: the part is replaced, not added."""
    grid = Grid.from_parameters("gaussian", "delta", GRID)
    real = sweep_dask.compute_part
    markers = tmp_path / "attempts"
    markers.mkdir()

    def dies_after_writing(index, chunk_grid, parts_dir):
        # the task is pickled by value: remember attempts in the filesystem, not in a closure
        size = real(index, chunk_grid, parts_dir)
        first = not (markers / str(index)).exists()
        (markers / str(index)).touch()
        if index % 3 == 0 and first:
            raise OSError("worker lost after writing its part")
        return size

    monkeypatch.setattr(sweep_dask, "compute_part", dies_after_writing)
    run_sweep(grid, tmp_path / "local.parquet", chunk_size=500, progress=False)
    sweep_dask.run_on_dask(
        grid,
        tmp_path / "dask.parquet",
        scheduler=cluster.scheduler_address,
        chunk_size=500,
        progress=False,
        retries=2,
    )
    assert len(os.listdir(markers)) == grid.n_chunks(500)
    assert _same_file(tmp_path / "local.parquet", tmp_path / "dask.parquet")


def test_own_local_cluster_and_failures(tmp_path):
    grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "epsilon": [0.5, 1]})
    result = sweep_dask.run_on_dask(
        grid, tmp_path / "own.csv", workers=2, processes=False, progress=False
    )
    assert result.points == 4 and (tmp_path / "own.csv").exists()
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        sweep_dask.run_on_dask(grid, tmp_path / "x.csv", workers=0)
    with pytest.raises(ValueError, match="does not exist"):
        sweep_dask.run_on_dask(grid, tmp_path / "nowhere" / "x.csv", workers=2, processes=False)


def _kills_its_worker(kill_at, markers):
    """compute_part, but the first attempt at each chunk in ``kill_at`` SIGKILLs its own worker process."""
    real = sweep_dask.compute_part

    def compute_part(*args, **kwargs):
        import signal

        from distributed import get_worker

        index = args[0]
        if kill_at == "every worker once":  # the nanny restarts a worker under the same name
            marker = markers / f"worker-{get_worker().name}"
            doomed = index >= 2
        else:
            marker = markers / f"killed-{index}"
            doomed = index in kill_at
        if doomed and not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)  # the nanny starts a new worker
        return real(*args, **kwargs)

    return compute_part


@pytest.mark.slow
@pytest.mark.parametrize("workers, kill_at", [(1, {2}), (2, {1, 5}), (2, "every worker once")])
def test_killed_workers_lose_nothing(tmp_path, monkeypatch, workers, kill_at):
    """A lost worker (every worker, in turn) costs a retry, not the sweep.

    Each killed task held the only running copy of its chunk; the scheduler must be able to
    resend everything the chunk needs to the worker the nanny starts in its place.

    Workers are forked from a forkserver (a clean process that imported Dask once, holding nothing of
    this one's state, as a spawned interpreter holds nothing) instead of spawned: a restarted worker
    then starts in a fork, not in a fresh interpreter importing Dask again, which was most of the
    test's time; what is checked (the scheduler resends a lost chunk to a new, empty worker) does not
    depend on how the nanny starts its process."""
    import dask

    grid = Grid.from_parameters("gaussian", "delta", GRID)
    markers = tmp_path / "markers"
    markers.mkdir()
    monkeypatch.setattr(sweep_dask, "compute_part", _kills_its_worker(kill_at, markers))
    local = run_sweep(grid, tmp_path / "local.parquet", chunk_size=500, progress=False)
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}),
        sweep_dask.local_cluster(workers) as cluster,
    ):
        remote = sweep_dask.run_on_dask(
            grid,
            tmp_path / "dask.parquet",
            scheduler=cluster.scheduler_address,
            chunk_size=500,
            progress=False,
        )
    expected = (
        {"worker-0", "worker-1"}
        if kill_at == "every worker once"
        else {f"killed-{i}" for i in kill_at}
    )
    assert {p.name for p in markers.iterdir()} == expected
    assert remote.points == local.points == grid.size
    assert _same_file(tmp_path / "local.parquet", tmp_path / "dask.parquet")


def test_dask_refuses_to_overwrite_and_resumes_a_failed_run(tmp_path, cluster, monkeypatch):
    grid = Grid.from_parameters("gaussian", "delta", GRID)
    real = sweep_dask.compute_part
    markers = tmp_path / "attempts"
    markers.mkdir()

    def fails_at_five(index, chunk_grid, parts_dir):
        (markers / f"{index}-{len(os.listdir(markers))}").touch()
        if index == 5 and not (markers / "healed").exists():
            raise RuntimeError("chunk 5 cannot be computed today")
        return real(index, chunk_grid, parts_dir)

    monkeypatch.setattr(sweep_dask, "compute_part", fails_at_five)
    path = tmp_path / "dask.parquet"
    with pytest.raises(RuntimeError, match="chunk 5"):
        sweep_dask.run_on_dask(
            grid,
            path,
            scheduler=cluster.scheduler_address,
            chunk_size=500,
            progress=False,
            retries=0,
        )
    assert not path.exists() and (tmp_path / ".dask.parquet.parts" / "chunk-000000000.npz").exists()
    (markers / "healed").touch()
    before = set(os.listdir(markers))
    sweep_dask.run_on_dask(
        grid, path, scheduler=cluster.scheduler_address, chunk_size=500, progress=False, resume=True
    )
    again = {name.split("-")[0] for name in set(os.listdir(markers)) - before}
    assert "5" in again and "0" not in again  # finished chunks are not sent again
    run_sweep(grid, tmp_path / "local.parquet", chunk_size=500, progress=False)
    assert _same_file(tmp_path / "local.parquet", path)
    with pytest.raises(ValueError, match="already exists"):
        sweep_dask.run_on_dask(
            grid, path, scheduler=cluster.scheduler_address, chunk_size=500, progress=False
        )
    sweep_dask.run_on_dask(
        grid,
        path,
        scheduler=cluster.scheduler_address,
        chunk_size=500,
        progress=False,
        overwrite=True,
    )
    assert _same_file(tmp_path / "local.parquet", path)
    assert sorted(os.listdir(tmp_path)) == ["attempts", "dask.parquet", "local.parquet"]


def test_own_local_cluster_workers_start_with_malloc_tuned(monkeypatch):
    """run_on_dask's own cluster starts its worker processes with sweep.dask.MALLOC_ENVIRON (Dask's
    MALLOC_TRIM_THRESHOLD_=65536 alone fixes glibc's mmap threshold at 128 KiB: +45 % CPU on PLD grids),
    the rest of Dask's environment kept, and leaves this process's environment and the Dask
    configuration as they were: Dask's nanny writes its whole pre-spawn environment here (OMP_NUM_THREADS=1
    among it) and PYTHONHASHSEED, and a variable left behind would put every later in-process accountant on
    one thread."""
    import dask
    from dask.distributed import Client

    before = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
    keys = tuple(dict.fromkeys([*before, *sweep_dask.MALLOC_ENVIRON]))
    assert "OMP_NUM_THREADS" in keys
    for key in (
        *keys,
        "PYTHONHASHSEED",
    ):  # unset here, as in a fresh shell: each must be unset again afterwards
        monkeypatch.delenv(key, raising=False)
    environ = dict(os.environ)
    with sweep_dask.local_cluster(1) as c, Client(c) as client:
        (seen,) = client.run(lambda: {key: os.environ.get(key) for key in keys}).values()
    assert seen == {
        **{k: str(v) for k, v in before.items()},
        **{k: str(v) for k, v in sweep_dask.MALLOC_ENVIRON.items()},
        "OMP_NUM_THREADS": "1",
    }
    assert dict(dask.config.get("distributed.nanny.pre-spawn-environ")) == before
    assert dict(os.environ) == environ
