"""Evaluate a grid in chunks through the vectorized accountants, streaming to a writer.

``run_sweep(grid, "out.parquet")`` checks everything first (the output path, that it would
not replace a file unasked, then a probe of every axis value and every corner of the grid
through each accountant, under a "checking" bar; a grid no larger than that probe is evaluated
whole there instead, once, under the sweep's bar), so bad input fails before any file is written;
it then plans the run (points, bytes, a timed pilot under its own bar: ``plan.py``) and refuses one above the limits
unless ``allow_large=True``.  It evaluates chunk after chunk (one accountant call per chunk and
accountant), saves each chunk's outputs in the run's working directory (``checkpoint.py``:
a run killed by SIGTERM or SIGKILL continues with ``resume=True``), hands each chunk to the
writer and keeps a running summary.  Memory is bounded by the chunk size, whatever the grid
size, except for in-memory results (NPZ stages its output arrays as memory-mapped .npy
files in the working directory) and the probe, which holds every axis's values.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base import progress as progress_hook
from ..base.optional import require_extra
from ..registry import CalculatorEntry
from .checkpoint import Workspace
from .grid import Chunk, Grid
from .plan import SweepPlan, _duration, plan_sweep
from .writers import MemoryWriter, check_destination, open_writer

__all__ = [
    "run_sweep",
    "dataframe",
    "evaluate",
    "evaluate_chunk",
    "preflight",
    "default_chunk_size",
    "SweepResult",
    "Summary",
    "check_plan",
    "check_run_flags",
]

log = logging.getLogger("hockeystick.sweep")


def default_chunk_size(grid: Grid) -> int:
    """~1M points for delta (a few theta calls each), fewer for the iterative outputs and for
    accountants that hold per-point tables (RDP orders)."""
    size = 1 << 20 if grid.output == "delta" else 1 << 17
    return min([size] + [e.max_chunk for e in grid.entries if e.max_chunk])


def evaluate(grid: Grid, params: dict[str, Any], shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    """Outputs at the points ``params`` (arrays broadcastable to ``shape``), flat, by column name."""
    from ..calibrate import calibrate  # here, not at the top: calibrate imports the registry

    values = []
    value: Any
    if grid.bound != "upper":  # one accountant (Grid checks it): its lower side, or both sides
        entry = grid.entries[0]
        assert not isinstance(entry, CalculatorEntry)  # Grid allows bound != "upper" for accountants only
        mine = {k: v for k, v in params.items() if k in entry.parameters}
        if grid.output == "delta":
            sides = entry.build(**mine).delta(params["epsilon"], bound=grid.bound)
        elif grid.output == "epsilon":
            sides = entry.build(**mine).epsilon(params["delta"], bound=grid.bound)
        else:
            sides = calibrate(
                entry, grid.output, epsilon=params["epsilon"], delta=params["delta"], bound=grid.bound, **mine
            )
        sides = sides if grid.bound == "both" else (sides,)
        return {
            name: np.broadcast_to(np.asarray(side, dtype=np.float64), shape).ravel()
            for name, side in zip(grid.outputs, sides)
        }
    for entry in grid.entries:
        mine = {k: v for k, v in params.items() if k in entry.parameters}
        if isinstance(entry, CalculatorEntry):
            value = entry.evaluate(**params) if grid.output == entry.quantity else entry.solve(grid.output, **params)
        elif grid.output == "delta":
            value = entry.build(**mine).delta(params["epsilon"])
        elif grid.output == "epsilon":
            value = entry.build(**mine).epsilon(params["delta"])
        else:
            value = calibrate(entry, grid.output, epsilon=params["epsilon"], delta=params["delta"], **mine)
        values.append(np.broadcast_to(np.asarray(value, dtype=np.float64), shape).ravel())
    if len(values) == 1:
        return {grid.output: values[0]}
    outputs = dict(zip(grid.outputs, values))
    if grid.calculators:
        return outputs
    stacked = np.stack(values)
    invalid = -np.inf if grid.best_is_max else np.inf
    stacked = np.where(np.isnan(stacked), invalid, stacked)
    best = np.argmax(stacked, axis=0) if grid.best_is_max else np.argmin(stacked, axis=0)
    chosen = np.take_along_axis(stacked, best[None, :], axis=0)[0]
    outputs[grid.output] = np.where(chosen == invalid, np.nan, chosen)
    outputs["best"] = best.astype(np.int8)
    return outputs


def evaluate_chunk(grid: Grid, chunk: Chunk) -> dict[str, np.ndarray]:
    """The outputs of one chunk (what a Dask task computes)."""
    return evaluate(grid, grid.chunk_parameters(chunk), grid.block_shape(chunk))


def preflight(
    grid: Grid, path: str | os.PathLike[str] | None, *, overwrite: bool = False, progress: bool | None = False
) -> dict[str, np.ndarray] | None:
    """Raise ValueError now for anything that would fail later: output path (an existing file
    without ``overwrite``), parameter values, unreachable calibration targets (probed on each
    axis's values and on the grid's corners).

    A grid with no more points than its probe (one axis, or a few values on each) is evaluated
    whole instead, which checks every point the probe holds and costs no more: its outputs, flat in
    grid order, are returned so that the run does not evaluate them again; otherwise None.

    ``progress``: a bar on stderr (None: when stderr is a terminal) that moves as the accountants
    report finished blocks, "sweep" over the grid's points when it is evaluated whole (the run's own
    bar), else "checking" over the probe's points, cleared when done.

    An arithmetic error inside an accountant on the probe (an overflow, a division by zero)
    becomes a ValueError naming the accountant and the parameters it was given."""
    if path is not None:
        check_destination(path, overwrite=overwrite)
    probe = grid.probe_parameters()
    n = _probe_points(probe)
    whole = grid.size <= n
    if whole:
        everything = grid.chunk(0, grid.size)
        points, params, shape = grid.size, grid.chunk_parameters(everything), grid.block_shape(everything)
        shown = progress_bar(points, progress)
    else:
        points, params, shape = n, probe, (n,)
        shown = checking_bar(points, progress)
    try:
        with shown as bar:
            moved = BlockProgress(bar, points, len(grid.entries))
            with progress_hook.reporting(moved.advance):
                outputs = evaluate(grid, params, shape)
            moved.finish()
    except ArithmeticError as exc:
        given = ", ".join(f"{a.name}={_span(a.values)}" for a in grid.axes)
        given += "".join(f", {k}={v:g}" for k, v in grid.fixed.items())
        raise ValueError(
            f"{' / '.join(grid.accountants)} cannot evaluate {given.lstrip(', ')} "
            f"({type(exc).__name__}: {exc}); one of these values is outside what the accountant "
            "handles: move it towards ordinary settings"
        ) from None
    return outputs if whole else None


def _probe_points(probe: dict[str, np.ndarray]) -> int:
    """The points of the preflight's probe (``Grid.probe_parameters``)."""
    return max((int(np.size(v)) for v in probe.values()), default=1)


def _span(values: np.ndarray) -> str:
    return f"{values[0]:g}" if len(values) == 1 else f"{values[0]:g}..{values[-1]:g}"


@dataclass
class Summary:
    """Running extremes of each output column and, for several accountants, who was best how often."""

    grid: Grid
    low: dict[str, tuple[float, int]] = field(default_factory=dict)
    high: dict[str, tuple[float, int]] = field(default_factory=dict)
    best_counts: np.ndarray | None = None

    def update(self, chunk: Chunk, outputs: dict[str, np.ndarray]) -> None:
        """Fold one chunk's outputs into the running extremes."""
        for name in self.grid.outputs:
            col = outputs[name]
            if not col.size:
                continue
            i, j = int(np.argmin(col)), int(np.argmax(col))  # one pass each; NaN (never expected) wins
            if np.isnan(col[i]):
                if np.all(np.isnan(col)):
                    continue
                i, j = int(np.nanargmin(col)), int(np.nanargmax(col))
            if name not in self.low or col[i] < self.low[name][0]:
                self.low[name] = (float(col[i]), chunk.start + i)
            if name not in self.high or col[j] > self.high[name][0]:
                self.high[name] = (float(col[j]), chunk.start + j)
        if "best" in outputs:
            counts = np.bincount(outputs["best"], minlength=len(self.grid.accountants))
            self.best_counts = counts if self.best_counts is None else self.best_counts + counts

    def point(self, flat_index: int) -> dict[str, float]:
        """The axis values at a flat grid index."""
        idx = np.unravel_index(flat_index, self.grid.shape) if self.grid.shape else ()
        return {a.name: a.values[i].item() for a, i in zip(self.grid.axes, idx)}


@dataclass(repr=False)
class SweepResult:
    """What a sweep produced: the file (or in-memory columns), its size, time and summary."""

    grid: Grid
    path: str | None
    points: int
    seconds: float
    summary: Summary
    columns: dict[str, np.ndarray] | None = None

    def __repr__(self) -> str:
        """Short: shape, accountants, output, parameters and where the values are (never the arrays)."""
        grid = self.grid
        axes = ", ".join(f"{a.name}[{len(a)}]" for a in grid.axes)
        fixed = ", ".join(f"{k}={v:g}" for k, v in grid.fixed.items())
        where = repr(self.path) if self.path is not None else "in memory"
        return (
            f"SweepResult({self.points:,} points, shape={grid.shape}, accountants={list(grid.accountants)}, "
            f"output={grid.output!r}, axes=[{axes}], fixed={{{fixed}}}, {where}, {self.seconds:.3g} s)"
        )

    @property
    def points_per_second(self) -> float:
        return self.points / self.seconds if self.seconds > 0 else float("inf")

    def to_xarray(self) -> Any:
        """The result as an ``xarray.Dataset``: a dimension per axis with its values as coordinate,
        fixed parameters as scalar coordinates, outputs as variables (``labelled.to_dataset``); a sweep
        written to a file and not kept in memory is read back from it."""
        from .labelled import read_sweep, to_dataset

        if self.columns is None:
            if self.path is None:
                raise ValueError("this sweep kept no values: run it with a path or in memory")
            return read_sweep(self.path)
        names = self.grid.outputs + (("best",) if "best" in self.columns else ())
        return to_dataset(self.grid, {name: self.columns[name] for name in names})

    def to_pandas(self) -> Any:
        """The in-memory result as a DataFrame (``best`` as a categorical of accountant names)."""
        require_extra("to_pandas", "pandas")
        import pandas as pd

        if self.columns is None:
            raise ValueError(
                "this sweep was written to a file: read it with pandas (read_csv / read_parquet) or np.load"
            )
        data: dict[str, Any] = dict(self.columns)
        if "best" in data:
            data["best"] = pd.Categorical.from_codes(data["best"], categories=list(self.grid.accountants))
        return pd.DataFrame(data)


# a bar counts points as integers (6/96), with SI prefixes (1.00M/4.00M) from this many on
_SCALED_BAR = 100_000


def progress_bar(total: int, progress: bool | None) -> Any:
    """The sweep's bar over its points; its rate and remaining time are the run's measured pace."""
    from tqdm.auto import tqdm

    enabled = sys.stderr.isatty() if progress is None else progress
    return tqdm(
        total=total,
        unit="pt",
        unit_scale=total >= _SCALED_BAR,
        disable=not enabled,
        file=sys.stderr,
        desc="sweep",
        smoothing=0.1,
    )


def checking_bar(total: int, progress: bool | None) -> Any:
    """The preflight's bar over the probe's points (every axis value, every corner of the grid), cleared when
    done so the sweep's bar takes its line."""
    from tqdm.auto import tqdm

    enabled = sys.stderr.isatty() if progress is None else progress
    return tqdm(
        total=total,
        unit="pt",
        disable=not enabled,
        file=sys.stderr,
        desc="checking each axis value and corner",
        leave=False,
    )


class Pace:
    """The run's estimate corrected from its own pace: after each chunk the points done and the wall time
    since the run began give the time left; a total off the last one stated by more than ``FACTOR`` (either
    way) is logged, once ``MIN_SECONDS`` have passed (the pilot's estimate is the first one stated)."""

    FACTOR = 1.5
    MIN_SECONDS = 2.0

    def __init__(self, total: int, stated: float | None) -> None:
        self.total, self.stated, self.done = total, stated, 0
        self.started = time.perf_counter()

    def update(self, points: int) -> None:
        """``points`` more points evaluated (not those a resumed run loaded)."""
        self.done += points
        elapsed = time.perf_counter() - self.started
        if self.done <= 0 or self.done >= self.total or elapsed < self.MIN_SECONDS:
            return
        projected = elapsed * self.total / self.done
        if self.stated is None or not (self.stated / self.FACTOR <= projected <= self.stated * self.FACTOR):
            log.info(
                "estimate corrected by the run's pace (%s points in %s): ~%s in all, ~%s left",
                f"{self.done:,}",
                _duration(elapsed),
                _duration(projected),
                _duration(projected - elapsed),
            )
            self.stated = projected


class BlockProgress:
    """Moves the bar within a chunk as the accountants report finished blocks of points
    (``hockeystick.base.progress``: a PLD accountant reports each batch it composed), so a chunk
    of slow points does not sit at 0 %; ``finish`` moves it to the chunk's end."""

    def __init__(self, bar: Any, size: int, accountants: int) -> None:
        self.bar, self.size, self.accountants, self.moved, self.reported = bar, size, accountants, 0, 0

    def advance(self, done: int) -> None:
        """``done`` more output elements of one accountant (each accountant covers the chunk once)."""
        self.reported += done
        self._move_to(min(self.size, self.reported // self.accountants))

    def finish(self) -> None:
        self._move_to(self.size)

    def _move_to(self, position: int) -> None:
        if position > self.moved:
            self.bar.update(position - self.moved)
            self.moved = position


def run_sweep(
    grid: Grid,
    path: str | os.PathLike[str] | None = None,
    *,
    chunk_size: int | None = None,
    progress: bool | None = None,
    keep: bool = False,
    overwrite: bool = False,
    resume: bool = False,
    allow_large: bool = False,
) -> SweepResult:
    """Evaluate ``grid`` in-process and write it to ``path`` (*.csv, *.npz, *.parquet) or memory.

    ``progress``: a tqdm bar on stderr (default: when stderr is a terminal).
    ``keep``: also keep the columns in memory when writing a file (``result.columns``).
    ``overwrite``: replace an existing ``path`` (refused otherwise).
    ``resume``: reuse the finished chunks a killed or failed run of the same grid and chunk
    size left for ``path`` (refused for chunks of another grid).
    ``allow_large``: run even above the limits of ``plan.py`` (10^9 points or more, more bytes than
    the free space, more than 12 hours estimated); the plan is logged to ``hockeystick.sweep``.
    """
    chunk_size = default_chunk_size(grid) if chunk_size is None else chunk_size
    grid.chunk_layout(chunk_size)
    check_run_flags(path, keep=keep, overwrite=overwrite, resume=resume)
    checking = time.perf_counter()
    evaluated = preflight(grid, path, overwrite=overwrite, progress=progress)  # the whole grid, when small
    # the check's points are points of this grid, timed on the wall clock like the pilot's
    checked = grid.size if evaluated is not None else _probe_points(grid.probe_parameters())
    measured = (checked, time.perf_counter() - checking)
    plan = plan_sweep(grid, path, chunk_size, progress=progress, measured=measured)
    check_plan(plan, allow_large)
    started = time.perf_counter() if evaluated is None else checking  # the run's seconds count its evaluation
    pace = Pace(grid.size, plan.seconds)
    workspace = None if path is None else Workspace.open_for(path, grid, chunk_size, resume=resume)
    try:
        writers = [open_writer(grid, path, None if workspace is None else workspace.path, overwrite=overwrite)]
    except BaseException:
        if workspace is not None:
            workspace.release()
        raise
    if keep and path is not None:
        writers.append(MemoryWriter(grid))
    finished = workspace.finished() if workspace is not None and resume else set()
    summary = Summary(grid)
    try:
        # a grid the preflight evaluated whole has had its bar (the sweep's): its chunks take those outputs
        with progress_bar(grid.size, progress) if evaluated is None else nullcontext() as bar:
            for chunk in grid.chunks(chunk_size):
                outputs = workspace.load(chunk) if chunk.index in finished else None  # type: ignore[union-attr]
                moved = None if bar is None else BlockProgress(bar, chunk.size, len(grid.entries))
                if outputs is None:
                    if evaluated is not None:
                        outputs = {name: column[chunk.start : chunk.stop] for name, column in evaluated.items()}
                    else:
                        with progress_hook.reporting(None if moved is None else moved.advance):
                            outputs = evaluate_chunk(grid, chunk)
                        pace.update(chunk.size)
                    if workspace is not None:
                        workspace.save(chunk.index, outputs)
                for writer in writers:
                    writer.write(chunk, outputs)
                summary.update(chunk, outputs)
                if moved is not None:
                    moved.finish()
        for writer in writers:
            writer.close()
    except BaseException:
        for writer in writers:
            writer.abort()
        if workspace is not None:
            workspace.release()
        raise
    if workspace is not None:
        workspace.remove()
    return SweepResult(
        grid,
        None if path is None else os.fspath(path),
        grid.size,
        time.perf_counter() - started,
        summary,
        getattr(writers[-1], "columns", None),
    )


def check_run_flags(path: str | os.PathLike[str] | None, **flags: Any) -> None:
    """The run's switches are booleans (no truthy strings), and resume needs a file to resume."""
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    if flags.get("resume") and path is None:
        raise ValueError("resume=True continues a sweep written to a file: give the killed run's path")


def check_plan(plan: SweepPlan, allow_large: bool) -> None:
    """Refuse a plan above the limits (unless ``allow_large``), else log it."""
    plan.check(allow_large)
    log.info("plan: %s", plan.describe())


def dataframe(grid: Grid, *, chunk_size: int | None = None, progress: bool | None = False) -> Any:
    """The sweep as a pandas DataFrame (one row per point)."""
    return run_sweep(grid, None, chunk_size=chunk_size, progress=progress).to_pandas()
