"""The same sweep on a Dask cluster (dask.distributed): chunks are the unit of work.

``run_on_dask(grid, "out.parquet", workers=4)`` starts a LocalCluster on 127.0.0.1;
``scheduler="tcp://host:8786"`` uses a running cluster instead (its workers must see the
output's directory: a shared filesystem).  Each task receives its chunk BY VALUE, as a small
grid of its own (``Grid.chunk_grid``: the chunk's slice of the split axis, the later axes,
the earlier ones fixed), never a reference to data held by one worker: when a worker dies,
even the last one, the scheduler resends the task to the worker the nanny starts instead,
and ``retries`` covers tasks that raise.  Each task saves its outputs as a part file in the
run's working directory (``checkpoint.py``: written under a temporary name and
``os.replace``d, so a retried task rewrites the same part instead of adding rows).  The
client feeds the parts to the same writer as the in-process run, in grid order, as soon
as each one's turn comes: the file is identical to ``run_sweep(grid, path)``'s, and a
killed run continues with ``resume=True`` from the parts it left.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ..base.optional import require_extra
from .bars import progress_bar
from .checkpoint import Workspace, save_part
from .evaluation import default_chunk_size, evaluate_chunk
from .grid import Grid
from .plan import plan_sweep
from .run import SweepResult, check_plan, check_run_flags, preflight
from .summary import Summary
from .writers import open_writer

__all__ = ["run_on_dask", "compute_part", "local_cluster"]

# Dask's nanny starts its worker processes with MALLOC_TRIM_THRESHOLD_=65536 (and leaves it in this
# process's environment, for every process spawned after it); glibc then also stops raising its mmap
# threshold, so every buffer above 128 KiB is a fresh mmap whose pages fault in on first use.  With
# these values buffers up to 32 MiB are reused from the heap, and a worker keeps at most 128 MiB of
# free heap top.
MALLOC_ENVIRON = {"MALLOC_TRIM_THRESHOLD_": 1 << 27, "MALLOC_MMAP_THRESHOLD_": 1 << 25}


def local_cluster(workers: int, processes: bool = True) -> Any:
    """A LocalCluster of ``workers`` single-threaded workers on 127.0.0.1 whose worker processes
    start with glibc's malloc tuned by ``MALLOC_ENVIRON`` (Dask's
    ``distributed.nanny.pre-spawn-environ`` otherwise). Dask's nanny reads such a variable from this
    process's environment first, and before it spawns a worker writes every variable of that
    configuration, and PYTHONHASHSEED, into this process's environment and leaves them there; the
    environment is restored here once the cluster is up, so this process keeps its own
    OMP_NUM_THREADS (Dask's 1, left behind, would run every later in-process call on one thread).
    The nanny keeps the values for the workers it restarts, and writes them here again when it does.
    For a cluster of your own, put ``MALLOC_ENVIRON`` in its
    ``distributed.nanny.pre-spawn-environ``."""
    require_extra("local_cluster", "dask", "distributed")
    import dask  # lazy: dask is an optional extra
    from dask.distributed import LocalCluster  # lazy: dask is an optional extra

    environ = {**dask.config.get("distributed.nanny.pre-spawn-environ", {}), **MALLOC_ENVIRON}
    saved = dict(os.environ)
    try:
        # the nanny takes a variable from this process's environment before its configuration
        os.environ.update({key: str(value) for key, value in MALLOC_ENVIRON.items()})
        with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
            return LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=processes,
                host="127.0.0.1",
                protocol="tcp",
                dashboard_address=":0",
            )
    finally:
        # every variable set or changed meanwhile (the nanny's pre-spawn environment, and
        # PYTHONHASHSEED, which it adds outside its configuration) back as it was
        for key in set(os.environ) - set(saved):
            del os.environ[key]
        for key, value in saved.items():
            if os.environ.get(key) != value:
                os.environ[key] = value


def compute_part(index: int, chunk_grid: Grid, parts_dir: str) -> int:
    """Evaluate chunk ``index`` (given as its own grid) and save its outputs; returns its point count."""
    outputs = evaluate_chunk(chunk_grid, chunk_grid.chunk(0, max(1, chunk_grid.size)))
    save_part(parts_dir, index, outputs)
    return chunk_grid.size


def run_on_dask(
    grid: Grid,
    path: str | os.PathLike[str] | None = None,
    *,
    scheduler: str | None = None,
    workers: int = 2,
    processes: bool = True,
    chunk_size: int | None = None,
    progress: bool | None = None,
    retries: int = 3,
    overwrite: bool = False,
    resume: bool = False,
    allow_large: bool = False,
) -> SweepResult:
    """Evaluate every point of ``grid`` on a Dask cluster and write the same file (or columns) as ``run_sweep``.

    The run checks first (``preflight``) and plans for the cluster's workers (refused above the
    limits unless ``allow_large``); each chunk is a task that receives its chunk by value
    (``Grid.chunk_grid``) and saves its outputs as a part file in the run's working directory beside
    ``path``; this process writes the parts in grid order as each one's turn comes, so the file is
    identical to ``run_sweep(grid, path)``'s and a killed run continues with ``resume=True``.

    Parameters
    ----------
    grid : Grid
        The sweep.
    path : str, os.PathLike or None, optional
        The output file (``*.csv``, ``*.npz``, ``*.parquet``, ``*.nc``, ``*.zarr``), as for
        ``run_sweep``; on a cluster of your own its directory must be shared with the workers.  None
        (the default): in memory.
    scheduler : str or None, optional
        The address of a running scheduler (``"tcp://host:8786"``); None (the default) starts a
        LocalCluster on 127.0.0.1 for the run (``local_cluster``: glibc's malloc tuned for the
        workers) and closes it after.
    workers : int, optional
        The local cluster's single-threaded workers, an integer >= 1 (default 2; not read with a
        ``scheduler``, whose workers' threads the plan counts instead).
    processes : bool, optional
        Local workers as processes (default True) or as threads of this process.
    chunk_size : int or None, optional
        Points per chunk (a task), an integer >= 1 (None: ``run_sweep``'s default).
    progress : bool or None, optional
        A bar on stderr over the grid's points; None (the default): when stderr is a terminal.
    retries : int, optional
        How often Dask may re-run a task that raised, an integer >= 0 (default 3; a lost worker's
        tasks are rescheduled by Dask itself).
    overwrite : bool, optional
        Replace an existing ``path`` (default False), as for ``run_sweep``.
    resume : bool, optional
        Reuse the parts a killed run of the same grid and chunk size left for ``path`` (default
        False).
    allow_large : bool, optional
        Run even above the plan's limits (default False), as for ``run_sweep``.

    Returns
    -------
    SweepResult
        As ``run_sweep``'s; its ``seconds`` count the run from the start of the cluster (or the
        connection to the scheduler), after the check.

    Raises
    ------
    ValueError
        If ``workers`` (without a ``scheduler``) is not an integer >= 1 or ``retries`` not an
        integer >= 0; any refusal of ``run_sweep`` (the chunk size, ``resume`` without a path, the
        preflight, the plan's limits, a locked or foreign working directory).
    TypeError
        If ``overwrite``, ``resume`` or ``allow_large`` is not a bool, or ``chunk_size`` not an
        integer.
    ImportError
        If dask.distributed is not installed (``pip install "hockeystick[dask]"``).

    Examples
    --------
    >>> from hockeystick.sweep import Grid, run_on_dask
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "rounds": 10, "epsilon": [0.5, 1]})
    >>> run_on_dask(grid, workers=1, processes=False, progress=False).columns["delta"].round(6)  # doctest: +SKIP
    array([0.855046, 0.818518, 0.461129, 0.352518])
    >>> run_on_dask(grid, workers=0)
    Traceback (most recent call last):
    ...
    ValueError: workers must be a positive integer, got 0
    """
    require_extra("run_on_dask", "dask", "distributed")
    from dask.distributed import Client  # lazy: dask is an optional extra

    _check_counts(scheduler, workers, retries)
    chunk_size = default_chunk_size(grid) if chunk_size is None else chunk_size
    grid.chunk_layout(chunk_size)
    check_run_flags(path, overwrite=overwrite, resume=resume)
    preflight(grid, path, overwrite=overwrite)
    if scheduler is None:
        check_plan(
            plan_sweep(grid, path, chunk_size, workers=workers, progress=progress), allow_large
        )
    started = time.perf_counter()
    cluster = None
    try:
        if scheduler is None:
            cluster = local_cluster(workers, processes)
        with Client(scheduler if cluster is None else cluster) as client:
            if scheduler is not None:
                threads = sum(client.nthreads().values())
                check_plan(
                    plan_sweep(grid, path, chunk_size, workers=threads, progress=progress),
                    allow_large,
                )
            workspace = (
                Workspace.temporary(grid, chunk_size)
                if path is None
                else Workspace.open_for(path, grid, chunk_size, resume=resume)
            )
            result = _run(
                client, grid, path, chunk_size, workspace, progress, retries, overwrite, resume
            )
    finally:
        if cluster is not None:
            cluster.close()
    result.seconds = time.perf_counter() - started
    return result


def _check_counts(scheduler: str | None, workers: Any, retries: Any) -> None:
    """``workers`` (for a cluster started here) a positive integer, ``retries`` an integer >= 0."""
    if scheduler is None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be an integer >= 0, got {retries!r}")


def _run(
    client: Any,
    grid: Grid,
    path: Any,
    chunk_size: int,
    workspace: Workspace,
    progress: bool | None,
    retries: int,
    overwrite: bool,
    resume: bool,
) -> SweepResult:
    from dask.distributed import as_completed  # lazy: dask is an optional extra

    try:
        writer = open_writer(grid, path, workspace.path, overwrite=overwrite)
    except BaseException:
        workspace.release()
        raise
    finished = workspace.finished() if resume else set()
    todo = [i for i in range(grid.n_chunks(chunk_size)) if i not in finished]
    summary = Summary(grid)
    futures: list[Any] = []
    next_index = 0
    try:
        with progress_bar(grid.size, progress) as bar:

            def drain() -> None:
                """Write every chunk whose turn has come and whose part is in place."""
                nonlocal next_index
                while next_index < grid.n_chunks(chunk_size) and next_index in finished:
                    chunk = grid.chunk(next_index, chunk_size)
                    outputs = workspace.load(chunk)
                    if outputs is None:  # a resumed part that does not match: compute it here
                        outputs = evaluate_chunk(grid, chunk)
                        workspace.save(chunk.index, outputs)
                    writer.write(chunk, outputs)
                    summary.update(chunk, outputs)
                    bar.update(chunk.size)
                    next_index += 1

            drain()
            futures = [
                client.submit(
                    compute_part,
                    i,
                    grid.chunk_grid(grid.chunk(i, chunk_size)),
                    os.fspath(workspace.path),
                    retries=retries,
                    pure=False,
                )
                for i in todo
            ]
            index_of = {f.key: i for i, f in zip(todo, futures)}
            for future in as_completed(futures):
                future.result()
                finished.add(index_of[future.key])
                future.release()
                drain()
        writer.close()
    except BaseException:
        if futures:
            client.cancel(futures)
        writer.abort()
        workspace.release()
        raise
    workspace.remove()
    return SweepResult(
        grid,
        None if path is None else os.fspath(path),
        grid.size,
        0.0,
        summary,
        getattr(writer, "columns", None),
    )
