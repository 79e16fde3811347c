"""The same sweep on a Dask cluster (dask.distributed): chunks are the unit of work.

``run_on_dask(grid, "out.parquet", workers=4)`` starts a LocalCluster on 127.0.0.1;
``scheduler="tcp://host:8786"`` uses a running cluster instead (its workers must see the
output's directory: a shared filesystem).  Each task computes one chunk and saves its
outputs as a part file ``chunk-<index>.npz`` in a directory beside the destination, written
to a temporary name and then ``os.replace``d into place, so a task that Dask retries (a worker lost
mid-sweep) rewrites the same part instead of adding rows.  The client feeds the parts to
the same writer as the in-process run, in grid order, as soon as each one's turn comes:
the file is identical to ``run_sweep(grid, path)``'s.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from .grid import Grid
from .run import SweepResult, Summary, default_chunk_size, evaluate_chunk, preflight, progress_bar
from .writers import open_writer

__all__ = ["run_on_dask", "compute_part", "part_path"]


def part_path(parts_dir: str | os.PathLike[str], index: int) -> Path:
    return Path(parts_dir) / f"chunk-{index:09d}.npz"


def compute_part(index: int, grid: Grid, chunk_size: int, parts_dir: str) -> int:
    """Evaluate chunk ``index`` and publish its outputs atomically; returns its point count."""
    chunk = grid.chunk(index, chunk_size)
    outputs = evaluate_chunk(grid, chunk)
    final = part_path(parts_dir, index)
    fd, tmp = tempfile.mkstemp(dir=parts_dir, prefix=f".{final.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **outputs)
        os.replace(tmp, final)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return chunk.size


def run_on_dask(grid: Grid, path: str | os.PathLike[str] | None = None, *, scheduler: str | None = None,
                workers: int = 2, processes: bool = True, chunk_size: int | None = None,
                progress: bool | None = None, retries: int = 3) -> SweepResult:
    """Evaluate ``grid`` on Dask and write it to ``path`` (or memory), exactly as ``run_sweep`` would.

    scheduler : address of a running scheduler; None starts a LocalCluster of ``workers``
        single-threaded workers on 127.0.0.1 (``processes=False``: threads in this process).
    retries : how often Dask may re-run a chunk whose worker died.
    """
    from dask.distributed import Client, LocalCluster, as_completed

    if scheduler is None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    chunk_size = default_chunk_size(grid) if chunk_size is None else chunk_size
    grid.chunk_layout(chunk_size)
    preflight(grid, path)
    started = time.perf_counter()
    base = Path(path).parent if path is not None else None
    parts_dir = tempfile.mkdtemp(prefix=".hockeystick-parts-", dir=base)
    cluster = None
    try:
        if scheduler is None:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                   host="127.0.0.1", protocol="tcp", dashboard_address=":0")
        with Client(scheduler if cluster is None else cluster) as client:
            result = _run(client, as_completed, grid, path, chunk_size, parts_dir, progress, retries)
    finally:
        if cluster is not None:
            cluster.close()
        shutil.rmtree(parts_dir, ignore_errors=True)
    result.seconds = time.perf_counter() - started
    return result


def _run(client: Any, as_completed: Any, grid: Grid, path: Any, chunk_size: int, parts_dir: str,
         progress: bool | None, retries: int) -> SweepResult:
    n = grid.n_chunks(chunk_size)
    grid_future = client.scatter(grid, broadcast=True)
    futures = client.map(compute_part, range(n), grid=grid_future, chunk_size=chunk_size,
                         parts_dir=parts_dir, retries=retries, pure=False)
    writer = open_writer(grid, path)
    summary = Summary(grid)
    done: set[int] = set()
    next_index = 0
    try:
        with progress_bar(grid.size, progress) as bar:
            index_of = {f.key: i for i, f in enumerate(futures)}
            for future in as_completed(futures):
                bar.update(future.result())
                done.add(index_of[future.key])
                future.release()
                while next_index in done:
                    chunk = grid.chunk(next_index, chunk_size)
                    part = part_path(parts_dir, next_index)
                    with np.load(part) as data:
                        outputs = {k: data[k] for k in data.files}
                    writer.write(chunk, outputs)
                    summary.update(chunk, outputs)
                    part.unlink()
                    next_index += 1
        writer.close()
    except BaseException:
        client.cancel(futures)
        writer.abort()
        raise
    return SweepResult(grid, None if path is None else os.fspath(path), grid.size, 0.0, summary,
                       getattr(writer, "columns", None))
