"""Before a sweep starts: how many points, how many bytes, how long; and the limits that need consent.

``plan_sweep`` estimates the run time from measured work: the wall time of points of this grid,
taken through the whole pipeline (evaluation, summary, chunk file, and the CSV or Parquet writer
into a throwaway file), so the estimate carries the threads the accountants really use and the
machine's load. The points are those the preflight's check already evaluated (``measured``) when
that check took at least ``_MEASURED_SECONDS``, else a pilot: after a warm-up chunk (imports,
first-use set-up), the grid's first points, at most 2% of the grid, in chunks growing from 16 points
until one takes 0.2 s, the rate being that of the last (largest) chunk.  A run then corrects the
estimate from its own pace as it goes (``run.py``).  The output's size comes from the format (CSV
~22 bytes a number, Parquet and NPZ 8 bytes a double, plus the chunk files the run keeps until it
ends), and all three are compared with limits a sweep may reach only when the caller consents
(``allow_large=True``, command line ``--allow-large``):

- ``MAX_POINTS`` points or more (10^9: ~8 GB per output column);
- more bytes than the destination's filesystem has free (or, for a result kept in
  memory, more than half of the memory available now);
- an estimated run time above ``MAX_SECONDS`` (12 hours in this process, or spread over
  the Dask workers).

A pilot of slow points (PLD accountants, calibrations) can take seconds: with ``progress`` it has a
"timing pilot" bar on stderr counting the points it times as the accountants report finished blocks
(the count the plan's line reports), cleared when it ends.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..base import progress as progress_hook
from .bars import BlockProgress, pilot_bar
from .evaluation import evaluate
from .grid import Chunk, Grid
from .summary import Summary
from .units import duration_text, size_text
from .writers import open_writer

__all__ = ["MAX_POINTS", "MAX_SECONDS", "SweepPlan", "plan_sweep"]

MAX_POINTS = 10**9
MAX_SECONDS = 12 * 3600.0
_PILOT_SECONDS = 0.2
# a check this long dilutes its one-off costs (imports, first use: up to a few seconds under load)
# enough to time the grid with; a shorter one leaves the timing to the pilot
_MEASURED_SECONDS = 5.0
_PILOT_MAX_POINTS = 16384
# the outputs whose writer the pilot times on a scratch file: the others (NPZ, a copy into a memory map
# like the chunk file; memory; the labelled formats, written once at the end) add nothing per chunk
_PILOT_WRITTEN = (".csv", ".parquet")
_PILOT_FRACTION = 50  # the pilot is at most 1/50 of the grid
_CSV_BYTES_PER_NUMBER = 22  # shortest round-trip double, sign, exponent, separator
_DOUBLE = 8


@dataclass(frozen=True)
class SweepPlan:
    """A sweep's size and cost, estimated before it starts."""

    points: int
    output_bytes: int  # the result file (or the in-memory columns)
    scratch_bytes: int  # chunk files kept until the result is in place
    free_bytes: int | None  # free space where the result goes (available memory for None)
    destination: str | None
    seconds: float | None  # None when the grid is too small to need a pilot
    pilot_points: int = 0
    pilot_seconds: float = 0.0
    workers: int = 1
    measured_by: str = "pilot"  # what timed the points: the pilot, or the preflight's "check"
    timed_points: int = 0  # the points of the pilot's last chunk, whose pilot_seconds give the rate

    def exceeded(self) -> list[str]:
        """The limits this sweep reaches, each as a phrase."""
        out = []
        if self.points >= MAX_POINTS:
            out.append(f"{self.points:.3g} points (the limit: fewer than {MAX_POINTS:.0e})")
        needed = self.output_bytes + self.scratch_bytes
        if self.free_bytes is not None and needed > self.free_bytes:
            where = "memory available" if self.destination is None else "free where the output goes"
            out.append(f"~{size_text(needed)} needed, {size_text(self.free_bytes)} {where}")
        if self.seconds is not None and self.seconds > MAX_SECONDS:
            out.append(
                f"~{duration_text(self.seconds)} estimated (limit {duration_text(MAX_SECONDS)})"
            )
        return out

    def check(self, allow_large: bool) -> None:
        """Raise ValueError when a limit is exceeded and the caller did not consent."""
        if not isinstance(allow_large, bool):
            raise TypeError(f"allow_large must be True or False, got {allow_large!r}")
        exceeded = self.exceeded()
        if exceeded and not allow_large:
            raise ValueError(
                f"the sweep is too large to start unasked: {'; '.join(exceeded)}. Use fewer values "
                "per axis, or pass allow_large=True to run it anyway"
            )

    def describe(self) -> str:
        """One line: points, bytes, free space, time estimate and the pilot it came from."""
        where = "in memory" if self.destination is None else f"to {self.destination}"
        text = f"{self.points:,} points, ~{size_text(self.output_bytes)} {where}"
        if self.scratch_bytes:
            text += f" (+{size_text(self.scratch_bytes)} of chunk files while it runs)"
        if self.free_bytes is not None:
            text += f", {size_text(self.free_bytes)} {'available' if self.destination is None else 'free'}"
        if self.seconds is not None:
            text += (
                f", ~{duration_text(self.seconds)} estimated ({self.measured_by}: {self.pilot_points:,} points"
                + (
                    f", the last {self.timed_points:,}"
                    if self.timed_points not in (0, self.pilot_points)
                    else ""
                )
                + f" in {self.pilot_seconds:.2g} s"
                + (f", {self.workers} workers" if self.workers > 1 else "")
                + ")"
            )
        return text


def plan_sweep(
    grid: Grid,
    path: str | os.PathLike[str] | None,
    chunk_size: int,
    *,
    workers: int = 1,
    progress: bool | None = False,
    measured: tuple[int, float] | None = None,
) -> SweepPlan:
    """Estimate ``grid``'s cost when written to ``path`` (format from the suffix; None: memory).

    Parameters
    ----------
    grid, path, chunk_size
        The sweep, where it goes (None: memory) and its chunk size.
    workers
        Processes the chunks are spread over (Dask workers): the wall time measured in this process
        is divided by it.  An in-process run's threads are in the measured wall time already.
    progress
        The timing pilot's bar on stderr (None: when stderr is a terminal).
    measured
        (points, wall seconds) of this grid's points already evaluated (the preflight's check): used
        instead of a pilot when they took at least ``_MEASURED_SECONDS``.

    Returns
    -------
    SweepPlan
        Points, bytes, free space and the time estimate with what it was measured on."""

    n_inputs, n_outputs = len(grid.axes), len(grid.outputs)
    several = grid.has_best
    suffix = Path(path).suffix.lower() if path is not None else None
    if suffix == ".csv":
        per_point = (
            _CSV_BYTES_PER_NUMBER * (n_inputs + n_outputs)
            + (max(map(len, grid.accountants)) + 3) * several
        )
    elif suffix == ".npz":
        per_point = 2 * _DOUBLE * n_outputs + 2 * several  # staged columns, then the archive
    else:  # parquet and memory: 8 bytes a double (axes compress in Parquet; memory holds them flat)
        per_point = _DOUBLE * (n_outputs + (n_inputs if path is None else 0)) + several
    scratch = 0 if path is None else (_DOUBLE * n_outputs + several) * grid.size
    measured_by, timed_points = "pilot", 0
    if measured is not None and measured[0] >= 1 and measured[1] >= _MEASURED_SECONDS:
        pilot_points, pilot_seconds = measured
        seconds: float | None = grid.size * pilot_seconds / pilot_points
        measured_by = "the check"
    else:
        shown = (
            progress if _pilot_cap(grid, chunk_size) >= 1 else False
        )  # a grid without a pilot has no bar
        with pilot_bar(shown) as bar, progress_hook.reporting(bar.update):
            seconds, pilot_points, timed_points, pilot_seconds = _pilot(grid, chunk_size, suffix)
    if seconds is not None:
        seconds /= max(1, workers)
    return SweepPlan(
        points=grid.size,
        output_bytes=per_point * grid.size,
        scratch_bytes=scratch,
        free_bytes=_free_bytes(path),
        destination=None if path is None else os.fspath(path),
        seconds=seconds,
        pilot_points=pilot_points,
        pilot_seconds=pilot_seconds,
        workers=max(1, workers),
        measured_by=measured_by,
        timed_points=timed_points,
    )


def _pilot(grid: Grid, chunk_size: int, suffix: str | None) -> tuple[float | None, int, int, float]:
    """(estimated wall seconds for the whole grid, points timed, the last chunk's points and wall
    seconds, which give the rate), or (None, 0, 0, 0) for small grids.  The caller's progress
    listener counts the points timed (not the warm-up's), moved as the accountants finish blocks."""
    cap = _pilot_cap(grid, chunk_size)
    if cap < 1:
        return None, 0, 0, 0.0
    n = min(16, cap)
    points = 0
    writes = suffix in _PILOT_WRITTEN  # the other outputs' writers are timed without a file
    with (
        tempfile.TemporaryDirectory(prefix="hockeystick-pilot-")
        if writes
        else nullcontext("") as scratch,
        progress_hook.counted() as done,
    ):

        def timed(chunk: Chunk, listener: Callable[[int], None]) -> float:
            moved = BlockProgress(SimpleNamespace(update=listener), chunk.size, len(grid.entries))
            elapsed = _pipeline_seconds(grid, chunk, suffix, Path(scratch), moved.advance)
            moved.finish()
            return elapsed

        timed(
            grid.chunk(0, n), lambda k: None
        )  # warm: imports, first-use set-up (not counted, not timed)
        while True:
            chunk = grid.chunk(0, n)
            elapsed = timed(chunk, done)
            points += chunk.size
            if elapsed >= _PILOT_SECONDS or n >= cap:
                break
            n = min(cap, n * 8)
    return grid.size * max(elapsed, 1e-6) / chunk.size, points, chunk.size, elapsed


def _pilot_cap(grid: Grid, chunk_size: int) -> int:
    """The pilot's largest chunk (0: the grid is too small to need a pilot)."""
    return min(_PILOT_MAX_POINTS, chunk_size, grid.size // _PILOT_FRACTION)


def _pipeline_seconds(
    grid: Grid,
    chunk: Chunk,
    suffix: str | None,
    scratch: Path,
    advance: Callable[[int], None] | None = None,
) -> float:
    """Wall seconds for one chunk as a run handles it: evaluate, summarize, save, write (the threads
    the accountants use and the machine's load are in it, as in the run).  ``advance``: the listener
    of the accountants' finished blocks (``hockeystick.base.progress``) during the evaluation."""
    started = time.perf_counter()
    with progress_hook.reporting(advance):
        outputs = evaluate(grid, grid.chunk_parameters(chunk), grid.block_shape(chunk))
    Summary(grid).update(chunk, outputs)
    np.savez(io.BytesIO(), **outputs)  # type: ignore[arg-type]  # the chunk file
    if suffix in _PILOT_WRITTEN:
        writer = open_writer(grid, scratch / f"pilot{suffix}", scratch, overwrite=True)
        try:
            writer.write(chunk, outputs)
        finally:
            writer.abort()
    return time.perf_counter() - started


def _free_bytes(path: str | os.PathLike[str] | None) -> int | None:
    if path is None:
        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
        except (ValueError, OSError, AttributeError):
            return None
    parent = Path(path).parent if str(Path(path).parent) else Path(".")
    try:
        return shutil.disk_usage(parent).free
    except OSError:
        return None
