"""Where sweep results go: CSV, NPZ, Parquet files, or arrays in memory, one chunk at a time.

Every writer receives the chunks in grid order and writes to a temporary file in the
run's working directory (``checkpoint.Workspace``, on the destination's filesystem), which
``close`` moves into place with ``os.replace`` and the umask's permissions (a reader never
sees half a file; an existing file is replaced only when the caller said so).

- CSV and Parquet hold one row per point: the axis columns, the fixed parameters (the same
  value on every row, so a row is self-contained), then the outputs (``best`` names the
  accountant for several).  Doubles are written to round-trip exactly; an integer parameter of
  the accountants (rounds, dataset_size; registry entries' ``integers``) is written as an
  integer (100, not 100.0), whether it is an axis, fixed, or the calibrated output.  The command
  line prints the points of an in-memory result with the same functions (``csv_text``,
  ``table_rows``), so ``-o -`` and ``-o FILE.csv`` hold the same bytes.
- NPZ holds the grid as numpy sees it: each axis as a 1-D array, each fixed parameter
  as a 0-d array, each output with the grid's shape (``best`` as int8 codes into the
  ``accountants`` array).
- NetCDF (``.nc``) and Zarr (``.zarr``, a directory) hold the labelled arrays of
  ``labelled.to_dataset``: named axes as coordinates, fixed parameters as scalar coordinates.
- In memory: flat columns (axes and outputs).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..base.optional import require_extra
from .grid import Chunk, Grid

__all__ = [
    "FORMATS",
    "check_destination",
    "csv_text",
    "integer_columns",
    "open_writer",
    "MemoryWriter",
    "table_rows",
]

FORMATS = {".csv": "csv", ".npz": "npz", ".parquet": "parquet", ".nc": "netcdf", ".zarr": "zarr"}


def check_destination(path: str | os.PathLike[str], *, overwrite: bool = False) -> str:
    """The format of ``path`` by its suffix, after checking a file can be created beside it and
    that no existing file would be replaced (unless ``overwrite``)."""
    path = Path(path)
    zarr_store = path.suffix.lower() == ".zarr" and (
        (path / ".zgroup").exists() or (path / "zarr.json").exists()
    )
    if path.is_dir() and not zarr_store:
        raise ValueError(
            f"output {str(path)!r} is a directory; give a file name such as {path / 'sweep.npz'}"
        )
    if not isinstance(overwrite, bool):
        raise TypeError(f"overwrite must be True or False, got {overwrite!r}")
    if path.exists() and not overwrite:
        raise ValueError(
            f"output {str(path)!r} already exists and is not replaced unless you ask: "
            "pass overwrite=True, or choose another name"
        )
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(
            f"output {str(path)!r}: unknown format; name it *.csv, *.npz, *.parquet, *.nc or *.zarr"
        )
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(
            f"output {str(path)!r}: directory {str(parent)!r} does not exist; create it first"
        )
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".hockeystick-check-"):
            pass
    except OSError as exc:
        raise ValueError(
            f"output {str(path)!r} is not writable ({exc.strerror}); choose a directory you can write to"
        ) from None
    needs = {"parquet": ("pyarrow",), "netcdf": ("xarray", "netCDF4"), "zarr": ("xarray", "zarr")}
    require_extra(f"{fmt} output", *needs.get(fmt, ()), otherwise="write *.csv or *.npz")
    return fmt


def _metadata(grid: Grid) -> dict[str, str]:
    return {
        "hockeystick.accountants": json.dumps(list(grid.accountants)),
        "hockeystick.output": grid.output,
        "hockeystick.fixed": json.dumps(dict(grid.fixed)),
    }


class _FileWriter:
    """Common temp-file handling: subclasses write into ``self.tmp`` (inside ``scratch``)."""

    def __init__(self, grid: Grid, path: str | os.PathLike[str], scratch: Path) -> None:
        self.grid, self.path, self.scratch = grid, Path(path), scratch
        self.tmp = scratch / f"result{self.path.suffix}.tmp"
        self.next_start = 0

    def write(self, chunk: Chunk, outputs: dict[str, np.ndarray]) -> None:
        if chunk.start != self.next_start:
            raise RuntimeError(
                f"chunk {chunk.index} out of order (starts at {chunk.start}, expected {self.next_start})"
            )
        self._write(chunk, outputs)
        self.next_start = chunk.stop

    def _write(self, chunk: Chunk, outputs: dict[str, np.ndarray]) -> None:
        raise NotImplementedError

    def _finish(self) -> None:
        """Flush and close the temporary file."""

    def close(self) -> None:
        from .checkpoint import publish  # lazy: start-up time; a file only

        self._finish()
        publish(self.tmp, self.path)

    def abort(self) -> None:
        try:
            self._finish()
        finally:
            self.tmp.unlink(missing_ok=True)


def _table_columns(
    grid: Grid, chunk: Chunk, outputs: dict[str, np.ndarray], *, fixed: bool = False
) -> dict[str, np.ndarray]:
    """The chunk's rows: axis columns, the fixed parameters (``fixed``: as constant columns), outputs."""
    columns = grid.chunk_inputs(chunk)
    if fixed:
        columns.update(
            {
                name: np.full(chunk.size, value, dtype=_fixed_dtype(grid, name))
                for name, value in grid.fixed.items()
            }
        )
    columns.update(outputs)
    return columns


def table_rows(grid: Grid, outputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every point of a whole in-memory result as the rows of a table file: axis columns, the fixed
    parameters as constant columns, then ``outputs`` (flat, in grid order; ``best`` as codes)."""
    return _table_columns(grid, grid.chunk(0, grid.size), outputs, fixed=True)


def integer_columns(grid: Grid) -> frozenset[str]:
    """The columns holding an integer parameter of the grid's accountants: such axes and fixed
    parameters, and every output column when the output is one (a calibrated rounds, a double that
    may be inf)."""
    integers = frozenset().union(*(e.integers for e in grid.entries))
    names = {name for name in (*grid.inputs, *grid.fixed) if name in integers}
    if grid.output in integers:
        names.update(grid.outputs)
    return frozenset(names)


def _fixed_dtype(grid: Grid, name: str) -> type:
    """int64 for an integer parameter (rounds = 100 is written 100), float64 otherwise."""
    return np.int64 if name in integer_columns(grid) else np.float64


def csv_header(grid: Grid) -> str:
    """The header line of a sweep's CSV: the column names, unquoted (each is a parameter or output name)."""
    return (
        ",".join(
            grid.inputs + tuple(grid.fixed) + grid.outputs + (("best",) if grid.has_best else ())
        )
        + "\n"
    )


def csv_text(grid: Grid, columns: dict[str, np.ndarray]) -> str:
    """The CSV lines of ``columns`` (``table_rows``' order), one per point.

    int64 columns as integers; doubles in their shortest exact spelling, integral ones of an integer
    parameter (``integer_columns``: a calibrated rounds) without a fraction, inf as ``inf``;
    ``best`` by the accountant's name, quoted.  pyarrow's CSV writer when pyarrow is installed (10x
    faster), else Python's repr: the same numbers, a double possibly spelled differently (1e-05 or
    0.00001, 2.0 or 2) from one installation to the other, never between the file and the command
    line's output."""
    if "best" in columns:
        columns = {**columns, "best": np.array(grid.accountants, dtype=object)[columns["best"]]}
    try:
        import pyarrow as pa  # lazy: pyarrow is an optional extra
        import pyarrow.csv as pacsv
    except ImportError:
        return _csv_lines(
            list(columns.values()), [name in integer_columns(grid) for name in columns]
        )
    sink = pa.BufferOutputStream()
    pacsv.write_csv(
        pa.table({k: pa.array(v) for k, v in columns.items()}),
        sink,
        pacsv.WriteOptions(include_header=False),
    )
    return bytes(sink.getvalue()).decode()


class _CsvWriter(_FileWriter):
    """The header, then one line per point (``csv_text``)."""

    def __init__(self, grid: Grid, path: str | os.PathLike[str], scratch: Path) -> None:
        super().__init__(grid, path, scratch)
        self.fh = open(self.tmp, "wb")
        self.fh.write(csv_header(grid).encode())

    def _write(self, chunk: Chunk, outputs: dict[str, np.ndarray]) -> None:
        self.fh.write(
            csv_text(self.grid, _table_columns(self.grid, chunk, outputs, fixed=True)).encode()
        )

    def _finish(self) -> None:
        if not self.fh.closed:
            self.fh.close()


def _csv_lines(columns: list[np.ndarray], integral: list[bool]) -> str:
    """'a,b,c\n' per row: repr for doubles (shortest exact round-trip), integers of an integer
    parameter (``integral``) without a fraction, quoted strings."""

    def text(col: np.ndarray, integer: bool) -> list[str]:
        if col.dtype == object:
            return [f'"{v}"' for v in col.tolist()]
        if integer and col.dtype.kind == "f":
            return [
                str(int(v)) if math.isfinite(v) and v.is_integer() else repr(v)
                for v in col.tolist()
            ]
        return [repr(v) for v in col.tolist()]

    return "".join(
        ",".join(row) + "\n" for row in zip(*(text(c, i) for c, i in zip(columns, integral)))
    )


class _ParquetWriter(_FileWriter):
    """One row group per chunk; best dictionary-encoded; grid description in the metadata."""

    def __init__(self, grid: Grid, path: str | os.PathLike[str], scratch: Path) -> None:
        super().__init__(grid, path, scratch)
        import pyarrow as pa  # lazy: pyarrow is an optional extra
        import pyarrow.parquet as pq

        self.pa = pa
        fields = [
            pa.field(a.name, pa.int64() if a.values.dtype.kind in "iu" else pa.float64())
            for a in grid.axes
        ]
        fields += [
            pa.field(name, pa.from_numpy_dtype(_fixed_dtype(grid, name))) for name in grid.fixed
        ]
        fields += [pa.field(name, pa.float64()) for name in grid.outputs]
        if grid.has_best:
            fields.append(pa.field("best", pa.dictionary(pa.int8(), pa.string())))
        self.schema = pa.schema(fields, metadata=_metadata(grid))
        self.names = pa.array(list(grid.accountants), pa.string())
        self.writer = pq.ParquetWriter(self.tmp, self.schema)

    def _write(self, chunk: Chunk, outputs: dict[str, np.ndarray]) -> None:
        pa = self.pa
        columns = _table_columns(self.grid, chunk, outputs, fixed=True)
        arrays = [
            pa.DictionaryArray.from_arrays(pa.array(col, pa.int8()), self.names)
            if name == "best"
            else pa.array(col)
            for name, col in columns.items()
        ]
        self.writer.write_table(pa.Table.from_arrays(arrays, schema=self.schema))

    def _finish(self) -> None:
        if self.writer.is_open:
            self.writer.close()


class _NpzWriter(_FileWriter):
    """Outputs stream into .npy memory maps beside the file; ``close`` zips them with the axes."""

    def __init__(self, grid: Grid, path: str | os.PathLike[str], scratch: Path) -> None:
        super().__init__(grid, path, scratch)
        self.workdir = scratch / "npz-columns"
        self.workdir.mkdir(exist_ok=True)
        names = grid.outputs + (("best",) if grid.has_best else ())
        self.maps: dict[str, np.memmap] | None = {
            name: np.lib.format.open_memmap(
                self.workdir / f"{name}.npy",
                mode="w+",
                dtype=np.int8 if name == "best" else np.float64,
                shape=grid.shape,
            )
            for name in names
        }

    def _write(self, chunk: Chunk, outputs: dict[str, np.ndarray]) -> None:
        if self.maps is None:
            raise RuntimeError("NPZ writer: a chunk arrived after close or abort")
        for name, values in outputs.items():
            self.maps[name].reshape(-1)[chunk.start : chunk.stop] = values

    def abort(self) -> None:
        self.maps = None
        shutil.rmtree(self.workdir, ignore_errors=True)
        self.tmp.unlink(missing_ok=True)

    def _finish(self) -> None:
        if self.maps is None:
            return
        for m in self.maps.values():
            m.flush()
        names = list(self.maps)
        self.maps = None
        try:
            self._assemble(names)
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _assemble(self, names: list[str]) -> None:
        """Zip the axes, fixed parameters and staged outputs into ``self.tmp``."""
        small: dict[str, np.ndarray] = {a.name: a.values for a in self.grid.axes}
        small.update({k: np.array(v) for k, v in self.grid.fixed.items()})
        if self.grid.has_best:
            small["accountants"] = np.array(self.grid.accountants)
        with zipfile.ZipFile(self.tmp, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            for name, arr in small.items():
                with zf.open(f"{name}.npy", "w", force_zip64=True) as fh:
                    np.lib.format.write_array(fh, np.asarray(arr))
            for name in names:
                zf.write(self.workdir / f"{name}.npy", f"{name}.npy")


class _LabelledWriter(_NpzWriter):
    """NetCDF or Zarr: outputs staged as memory maps like NPZ, then written as one labelled Dataset."""

    def _assemble(self, names: list[str]) -> None:
        from .labelled import to_dataset  # lazy: start-up time; a labelled file only

        arrays = {name: np.load(self.workdir / f"{name}.npy", mmap_mode="r") for name in names}
        dataset = to_dataset(self.grid, arrays)
        if self.path.suffix.lower() == ".nc":
            dataset.to_netcdf(self.tmp, engine="netcdf4")
        else:
            dataset.to_zarr(self.tmp, mode="w", consolidated=False)

    def close(self) -> None:
        from .checkpoint import new_file_mode, publish  # lazy: start-up time; a file only

        self._finish()
        if not self.tmp.is_dir():
            publish(self.tmp, self.path)
            return
        # a Zarr store is a directory: searchable (x) where readable, then moved into place
        mode = new_file_mode()
        os.chmod(self.tmp, mode | (mode & 0o444) >> 2)
        if self.path.is_dir():  # an existing store, replaced only with overwrite (checked before)
            shutil.rmtree(self.path)
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        if self.tmp.is_dir():
            shutil.rmtree(self.tmp, ignore_errors=True)
        super().abort()


class MemoryWriter:
    """Flat columns in memory (axes, then outputs), preallocated for the whole grid."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        n = grid.size
        self.columns: dict[str, np.ndarray] = {
            a.name: np.empty(n, a.values.dtype) for a in grid.axes
        }
        self.columns.update({name: np.empty(n) for name in grid.outputs})
        if grid.has_best:
            self.columns["best"] = np.empty(n, np.int8)

    def write(self, chunk: Chunk, outputs: dict[str, np.ndarray]) -> None:
        """The chunk's rows into the columns: each axis broadcast straight into its column's
        slice, seen in the chunk's block shape (no flat copy in between), then the outputs."""
        rows = slice(chunk.start, chunk.stop)
        if self.grid.axes:
            shape = self.grid.block_shape(chunk)
            params = self.grid.chunk_parameters(chunk)
            for axis in self.grid.axes:
                np.copyto(self.columns[axis.name][rows].reshape(shape), params[axis.name])
        for name, values in outputs.items():
            self.columns[name][rows] = values

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


def open_writer(
    grid: Grid,
    path: str | os.PathLike[str] | None,
    scratch: Path | None = None,
    *,
    overwrite: bool = False,
) -> Any:
    """A writer for ``path`` (format from its suffix) staging in the directory ``scratch``, or a
    MemoryWriter for None."""
    if path is None:
        return MemoryWriter(grid)
    if scratch is None:
        raise ValueError("a file writer needs a scratch directory on the destination's filesystem")
    writer = {
        "csv": _CsvWriter,
        "npz": _NpzWriter,
        "parquet": _ParquetWriter,
        "netcdf": _LabelledWriter,
        "zarr": _LabelledWriter,
    }[check_destination(path, overwrite=overwrite)]
    return writer(grid, path, scratch)
