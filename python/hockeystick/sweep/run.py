"""Evaluate a grid in chunks through the vectorized accountants, streaming to a writer.

``run_sweep(grid, "out.parquet")`` checks everything first (the output path, that it would not
replace a file unasked, then a probe of every axis value and every corner of the grid through each
accountant, under a "checking" bar; a grid no larger than that probe is evaluated whole there
instead, once, under the sweep's bar), so bad input fails before any file is written; it then plans
the run (points, bytes, a timed pilot under its own bar: ``plan.py``) and refuses one above the
limits unless ``allow_large=True``.  It evaluates chunk after chunk (one accountant call per chunk
and accountant), saves each chunk's outputs in the run's working directory (``checkpoint.py``: a run
killed by SIGTERM or SIGKILL continues with ``resume=True``), hands each chunk to the writer and
keeps a running summary.  Memory is bounded by the chunk size, whatever the grid size, except for
in-memory results (NPZ stages its output arrays as memory-mapped .npy files in the working
directory) and the probe, which holds every axis's values.
"""

from __future__ import annotations

import logging
import os
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..base import progress as progress_hook
from ..base.optional import require_extra
from .bars import BlockProgress, checking_bar, progress_bar
from .evaluation import default_chunk_size, evaluate, evaluate_chunk
from .grid import Chunk, Grid
from .plan import SweepPlan, plan_sweep
from .summary import Summary
from .units import duration_text
from .writers import MemoryWriter, check_destination, open_writer

if TYPE_CHECKING:
    from .checkpoint import Workspace

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


def preflight(
    grid: Grid,
    path: str | os.PathLike[str] | None,
    *,
    overwrite: bool = False,
    progress: bool | None = False,
) -> dict[str, np.ndarray] | None:
    """Check a sweep before it runs: its output path, and every accountant on each axis value and corner.

    Anything that would fail later fails here, before a file is written: the output path (its
    format, its directory, an existing file without ``overwrite``) and the parameter values and
    calibration targets, through one evaluation of a probe (``Grid.probe_parameters``: each axis's
    values at the other axes' first values, plus every corner of the grid).  A grid with no more
    points than its probe (one axis, or a few values on each) is evaluated whole instead, which
    checks every point the probe would and costs no more.

    Parameters
    ----------
    grid : Grid
        The sweep to check.
    path : str, os.PathLike or None
        Where the sweep will be written (``*.csv``, ``*.npz``, ``*.parquet``, ``*.nc``, ``*.zarr``;
        its directory must exist and be writable); None: kept in memory, nothing to check.
    overwrite : bool, optional
        Allow ``path`` to be an existing file (default False).
    progress : bool or None, optional
        A bar on stderr that moves as the accountants report finished blocks: over the grid's points
        (the run's "sweep" bar) when it is evaluated whole, else over the probe's points, cleared
        when done.  None: when stderr is a terminal; False (the default): none.

    Returns
    -------
    dict of str to numpy.ndarray or None
        For a grid evaluated whole, its outputs by column name (``Grid.outputs``, and ``best``),
        flat in grid order, so that the run does not evaluate them again; otherwise None.

    Raises
    ------
    ValueError
        If ``path`` is a directory, has an unknown suffix, lies in a directory that does not exist
        or cannot be written, or is an existing file without ``overwrite``; if an accountant refuses
        a value of the probe (a calibration target it cannot reach, say); if an arithmetic error (an
        overflow, a division by zero) arises inside an accountant, the ValueError naming the
        accountants and the parameters' ranges.
    TypeError
        If ``overwrite`` is not a bool (checked with a ``path``).

    Examples
    --------
    >>> from hockeystick.sweep import Grid, preflight
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "rounds": 10, "epsilon": 1.0})
    >>> {name: values.round(6) for name, values in preflight(grid, None).items()}   # small: evaluated whole
    {'delta': array([0.818518, 0.352518])}
    >>> grid = Grid.from_parameters("gaussian", "rounds", {"sigma": [0.1, 1], "epsilon": 0.01, "delta": 1e-10})
    >>> preflight(grid, None)
    Traceback (most recent call last):
    ...
    ValueError: target (epsilon=0.01, delta=1e-10) is unreachable for 'gaussian' at sigma=0.1: ...
    """
    if path is not None:
        check_destination(path, overwrite=overwrite)
    probe = grid.probe_parameters()
    n = _probe_points(probe)
    whole = grid.size <= n
    if whole:
        everything = grid.chunk(0, grid.size)
        points, params, shape = (
            grid.size,
            grid.chunk_parameters(everything),
            grid.block_shape(everything),
        )
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


@dataclass(repr=False)
class SweepResult:
    """The outcome of a sweep: where its values are (a file, or columns in memory), its size, time and summary.

    ``run_sweep`` and ``run_on_dask`` return one; ``to_xarray()`` gives the values as labelled
    arrays (read back from the file where none were kept in memory) and ``to_pandas()`` the
    in-memory columns as a DataFrame; ``points_per_second`` is ``points / seconds``.

    Parameters
    ----------
    grid : Grid
        The sweep's grid.
    path : str or None
        The file written, or None for a sweep kept in memory.
    points : int
        The points evaluated (``grid.size``).
    seconds : float
        The run's wall time in seconds: its evaluation and writing (the check and the plan not
        counted, except a small grid's evaluation within the check).
    summary : sweep.summary.Summary
        Each output column's smallest and largest value with their flat grid index (``low``,
        ``high``) and, for several accountants, how often each gave the best value
        (``best_counts``).
    columns : dict of str to numpy.ndarray or None, optional
        The values in memory, flat in grid order: the axis columns, then the outputs (and ``best``);
        None when the sweep went to a file without ``keep=True``.

    Examples
    --------
    >>> from hockeystick.sweep import Grid, run_sweep
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "rounds": 10, "epsilon": [0.5, 1]})
    >>> result = run_sweep(grid, progress=False)
    >>> result.points, result.path, list(result.columns)
    (4, None, ['sigma', 'epsilon', 'delta'])
    >>> round(result.summary.low["delta"][0], 6), result.summary.low["delta"][1]
    (0.352518, 3)
    >>> result.to_xarray()["delta"].sel(sigma=2.0).values.round(6)
    array([0.461129, 0.352518])
    """

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
        fixed parameters as scalar coordinates, outputs as variables (``labelled.to_dataset``); a
        sweep written to a file and not kept in memory is read back from it."""
        from .labelled import read_sweep, to_dataset  # lazy: start-up time

        if self.columns is None:
            if self.path is None:
                raise ValueError("this sweep kept no values: run it with a path or in memory")
            return read_sweep(self.path)
        names = self.grid.outputs + (("best",) if "best" in self.columns else ())
        return to_dataset(self.grid, {name: self.columns[name] for name in names})

    def to_pandas(self) -> Any:
        """The in-memory result as a DataFrame (``best`` as a categorical of accountant names)."""
        require_extra("to_pandas", "pandas")
        import pandas as pd  # lazy: pandas is an optional extra

        if self.columns is None:
            raise ValueError(
                "this sweep was written to a file: read it with pandas (read_csv / read_parquet) or np.load"
            )
        data: dict[str, Any] = dict(self.columns)
        if "best" in data:
            data["best"] = pd.Categorical.from_codes(
                data["best"], categories=list(self.grid.accountants)
            )
        return pd.DataFrame(data)


class Pace:
    """The run's estimate corrected from its own pace: after each chunk the points done and the wall
    time since the run began give the time left; a total off the last one stated by more than
    ``FACTOR`` (either way) is logged, once ``MIN_SECONDS`` have passed (the pilot's estimate is the
    first one stated)."""

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
        if self.stated is None or not (
            self.stated / self.FACTOR <= projected <= self.stated * self.FACTOR
        ):
            log.info(
                "estimate corrected by the run's pace (%s points in %s): ~%s in all, ~%s left",
                f"{self.done:,}",
                duration_text(elapsed),
                duration_text(projected),
                duration_text(projected - elapsed),
            )
            self.stated = projected


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
    """Evaluate every point of ``grid`` in this process and write the outputs to ``path`` or keep them in memory.

    The run checks first (``preflight``), plans (points, bytes, a timed pilot: ``plan.plan_sweep``)
    and refuses a plan above the limits unless ``allow_large``; it then evaluates chunk after chunk
    (one vectorized call per chunk and accountant), hands each chunk to the writer and, with a
    ``path``, saves its outputs in a working directory beside it (``.NAME.parts``, removed at the
    end) so that a killed run can continue (``resume``).  Memory is bounded by the chunk size,
    except for a result kept in memory.  The file is written under a temporary name and moved into
    place when complete.

    Parameters
    ----------
    grid : Grid
        The sweep.
    path : str, os.PathLike or None, optional
        The output file, its format by suffix: ``*.csv``, ``*.parquet`` (one row per point: axes,
        fixed parameters, outputs), ``*.npz``, ``*.nc``, ``*.zarr`` (arrays over the axes); its
        directory must exist. None (the default): the values are kept in memory
        (``SweepResult.columns``).
    chunk_size : int or None, optional
        Points per chunk, an integer >= 1 (None: about 2^20 for delta, 2^17 for the other outputs,
        fewer for accountants that cap it).
    progress : bool or None, optional
        A tqdm bar on stderr over the grid's points; None (the default): when stderr is a terminal.
    keep : bool, optional
        Also keep the columns in memory when writing a file (default False).
    overwrite : bool, optional
        Replace an existing ``path`` (default False: refused).
    resume : bool, optional
        Reuse the chunks a killed or failed run of the same grid and chunk size finished for
        ``path`` (default False; needs a ``path``; refused for the chunks of another grid).
    allow_large : bool, optional
        Run even above the limits of ``plan`` (default False): 10^9 points or more, more bytes than
        the destination's free space (half the available memory for a result kept in memory), more
        than 12 hours estimated.  The plan is logged to the ``hockeystick.sweep`` logger either way.

    Returns
    -------
    SweepResult
        The path, the points, the wall time, the summary and (in memory, or with ``keep``) the
        columns.

    Raises
    ------
    TypeError
        If ``keep``, ``overwrite``, ``resume`` or ``allow_large`` is not a bool, or ``chunk_size``
        not an integer.
    ValueError
        If ``chunk_size`` < 1; ``resume`` without a ``path``; any refusal of ``preflight`` (the
        path, the values); the plan exceeds a limit without ``allow_large``; another live run writes
        ``path``, or ``resume`` finds the chunks of another grid.

    See Also
    --------
    run_on_dask : The same run on a Dask cluster.
    read_sweep : A saved sweep as labelled arrays.

    Examples
    --------
    >>> from hockeystick.sweep import Grid, run_sweep
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "rounds": 10, "epsilon": [0.5, 1]})
    >>> result = run_sweep(grid, progress=False)
    >>> result.columns["delta"].round(6)
    array([0.855046, 0.818518, 0.461129, 0.352518])
    >>> run_sweep(grid, progress=False, resume=True)
    Traceback (most recent call last):
    ...
    ValueError: resume=True continues a sweep written to a file: give the killed run's path
    """
    chunk_size = default_chunk_size(grid) if chunk_size is None else chunk_size
    grid.chunk_layout(chunk_size)
    check_run_flags(path, keep=keep, overwrite=overwrite, resume=resume)
    checking = time.perf_counter()
    evaluated = preflight(
        grid, path, overwrite=overwrite, progress=progress
    )  # the whole grid, when small
    plan = plan_sweep(
        grid, path, chunk_size, progress=progress, measured=_measured(grid, evaluated, checking)
    )
    check_plan(plan, allow_large)
    started = (
        time.perf_counter() if evaluated is None else checking
    )  # the run's seconds count its evaluation
    pace = Pace(grid.size, plan.seconds)
    workspace = None if path is None else _workspace(path, grid, chunk_size, resume=resume)
    writers = _open_writers(grid, path, workspace, keep=keep, overwrite=overwrite)
    finished = workspace.finished() if workspace is not None and resume else set()
    source = _ChunkOutputs(grid, workspace, finished, evaluated, pace)
    summary = Summary(grid)
    try:
        # a grid the preflight evaluated whole has had its bar (the sweep's): its chunks take those
        # outputs
        with progress_bar(grid.size, progress) if evaluated is None else nullcontext() as bar:
            for chunk in grid.chunks(chunk_size):
                _write_chunk(grid, chunk, source, writers, summary, bar)
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


def _measured(
    grid: Grid, evaluated: dict[str, np.ndarray] | None, checking: float
) -> tuple[int, float]:
    """(points, wall seconds) of the preflight's check begun at ``checking``: points of this grid,
    timed on the wall clock like the pilot's (the whole grid where the check evaluated it, else the
    probe)."""
    checked = grid.size if evaluated is not None else _probe_points(grid.probe_parameters())
    return checked, time.perf_counter() - checking


def _workspace(
    path: str | os.PathLike[str], grid: Grid, chunk_size: int, *, resume: bool
) -> Workspace:
    """The working directory of a run written to ``path`` (its checkpoints), its module imported by a
    run that writes a file: a run kept in memory keeps none."""
    from .checkpoint import Workspace  # lazy: start-up time

    return Workspace.open_for(path, grid, chunk_size, resume=resume)


def _open_writers(
    grid: Grid,
    path: str | os.PathLike[str] | None,
    workspace: Workspace | None,
    *,
    keep: bool,
    overwrite: bool,
) -> list[Any]:
    """The run's writers: the file's (or memory's), and memory's beside a file with ``keep``; a
    writer that cannot open releases the workspace."""
    try:
        writers = [
            open_writer(
                grid, path, None if workspace is None else workspace.path, overwrite=overwrite
            )
        ]
    except BaseException:
        if workspace is not None:
            workspace.release()
        raise
    if keep and path is not None:
        writers.append(MemoryWriter(grid))
    return writers


@dataclass
class _ChunkOutputs:
    """Where each chunk's outputs come from: the workspace for a chunk a resumed run finished, the
    preflight's evaluation of a small grid, else the accountants; a chunk evaluated here is saved to
    the workspace."""

    grid: Grid
    workspace: Workspace | None
    finished: set[int]
    evaluated: dict[str, np.ndarray] | None
    pace: Pace

    def of(self, chunk: Chunk, moved: BlockProgress | None) -> dict[str, np.ndarray]:
        outputs = self.workspace.load(chunk) if chunk.index in self.finished else None  # type: ignore[union-attr]
        if outputs is not None:
            return outputs
        if self.evaluated is not None:
            outputs = {
                name: column[chunk.start : chunk.stop] for name, column in self.evaluated.items()
            }
        else:
            with progress_hook.reporting(None if moved is None else moved.advance):
                outputs = evaluate_chunk(self.grid, chunk)
            self.pace.update(chunk.size)
        if self.workspace is not None:
            self.workspace.save(chunk.index, outputs)
        return outputs


def _write_chunk(
    grid: Grid, chunk: Chunk, source: _ChunkOutputs, writers: list[Any], summary: Summary, bar: Any
) -> None:
    """One chunk's outputs to every writer and the summary, its bar moved within it as the accountants report."""
    moved = None if bar is None else BlockProgress(bar, chunk.size, len(grid.entries))
    outputs = source.of(chunk, moved)
    for writer in writers:
        writer.write(chunk, outputs)
    summary.update(chunk, outputs)
    if moved is not None:
        moved.finish()


def check_run_flags(path: str | os.PathLike[str] | None, **flags: Any) -> None:
    """The run's switches are booleans (no truthy strings), and resume needs a file to resume."""
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    if flags.get("resume") and path is None:
        raise ValueError(
            "resume=True continues a sweep written to a file: give the killed run's path"
        )


def check_plan(plan: SweepPlan, allow_large: bool) -> None:
    """Refuse a plan above the limits (unless ``allow_large``), else log it."""
    plan.check(allow_large)
    log.info("plan: %s", plan.describe())


def dataframe(grid: Grid, *, chunk_size: int | None = None, progress: bool | None = False) -> Any:
    """Evaluate a sweep in memory and return it as a pandas DataFrame, one row per point.

    The same as ``run_sweep(grid, None, chunk_size=chunk_size, progress=progress).to_pandas()``.

    Parameters
    ----------
    grid : Grid
        The sweep.
    chunk_size : int or None, optional
        Points per chunk, an integer >= 1 (None: ``run_sweep``'s default).
    progress : bool or None, optional
        A bar on stderr (None: when stderr is a terminal; False, the default: none).

    Returns
    -------
    pandas.DataFrame
        One row per point in grid order: the axis columns, then the outputs (``best`` as a
        categorical of the accountant names).

    Raises
    ------
    ValueError
        As ``run_sweep`` (a grid above the plan's limits is refused: no ``allow_large`` here).
    TypeError
        If ``chunk_size`` is not an integer.

    Examples
    --------
    >>> from hockeystick.sweep import Grid, dataframe
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "rounds": 10, "epsilon": 1.0})
    >>> dataframe(grid).round(6)
       sigma     delta
    0    1.0  0.818518
    1    2.0  0.352518
    """
    return run_sweep(grid, None, chunk_size=chunk_size, progress=progress).to_pandas()
