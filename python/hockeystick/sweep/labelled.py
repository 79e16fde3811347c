"""Sweep results as labelled arrays: an ``xarray.Dataset`` with named coordinates, and reading any saved sweep.

``to_dataset(grid, arrays)`` lays a grid's outputs out on its axes:

- one dimension per axis, named after it, with the axis values as its coordinate (attribute
  ``spacing``: "log", "linear" or "list", how the values were made);
- each fixed parameter as a scalar coordinate (so ``ds.sigma`` answers whatever sigma was);
- each output as a data variable over the axes (``best`` as int8 codes into the ``accountants``
  attribute, with CF ``flag_values`` / ``flag_meanings``);
- attributes ``accountants`` (comma-separated), ``output`` and ``bound``.

``read_sweep(path)`` gives the sweep's arrays back as a Dataset from any file a sweep writes (CSV,
Parquet, NPZ, NetCDF, Zarr), so pictures and analyses start from the file, never from a second
evaluation.  NetCDF and Zarr store the Dataset itself, attributes included; NPZ stores the same
arrays (the ``accountants`` attribute where there are several); CSV and Parquet hold one row per
point (axes, fixed parameters, outputs), from which the axes are the distinct values of the input
columns that vary, and the inputs that do not are fixed (Parquet keeps the ``accountants`` and
``output`` attributes; ``best`` comes back as the accountants' names).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..base.optional import require_extra
from .grid import Grid

__all__ = ["to_dataset", "read_sweep"]


def to_dataset(grid: Grid, arrays: Mapping[str, np.ndarray]) -> Any:
    """Lay a grid's outputs out on its axes as an ``xarray.Dataset``.

    Parameters
    ----------
    grid : Grid
        The sweep the outputs belong to: its axes give the dimensions and their coordinates
        (attribute ``spacing``: the axis's kind, "list", "linear" or "log"), its fixed parameters
        the scalar coordinates.
    arrays : mapping of str to numpy.ndarray
        The outputs by column name, each with ``grid.size`` values: of ``grid.shape``, or flat in
        grid order (C order, the last axis fastest).  A column ``best`` (the accountants' indices)
        gets the CF attributes ``flag_values`` and ``flag_meanings``.

    Returns
    -------
    xarray.Dataset
        One data variable per column over the axes; attributes ``accountants`` (comma-separated),
        ``output``, ``bound`` and ``fixed`` (the fixed parameters as JSON).

    Raises
    ------
    ValueError
        If a column does not hold ``grid.size`` values (numpy's reshape refuses it).

    Examples
    --------
    >>> import numpy as np
    >>> from hockeystick.sweep import Grid, to_dataset
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "rounds": 10, "epsilon": [0.5, 1, 2]})
    >>> ds = to_dataset(grid, {"delta": np.arange(6.0)})
    >>> ds["delta"].sel(sigma=2.0).values, float(ds.rounds), ds.attrs["output"]
    (array([3., 4., 5.]), 10.0, 'delta')
    """
    require_extra("to_xarray / to_dataset", "xarray")
    import xarray as xr  # lazy: xarray is an optional extra

    dims = [a.name for a in grid.axes]
    coords: dict[str, Any] = {a.name: (a.name, a.values, {"spacing": a.kind}) for a in grid.axes}
    coords.update({name: ((), np.asarray(value)) for name, value in grid.fixed.items()})
    data: dict[str, Any] = {}
    for name, values in arrays.items():
        attrs: dict[str, Any] = {}
        if name == "best":
            attrs = {
                "flag_values": np.arange(len(grid.accountants), dtype=np.int8),
                "flag_meanings": " ".join(grid.accountants),
            }
        data[name] = (dims, np.asarray(values).reshape(grid.shape), attrs)
    attrs = {
        "accountants": ",".join(grid.accountants),
        "output": grid.output,
        "bound": getattr(grid, "bound", "upper"),
        "fixed": json.dumps(dict(grid.fixed)),
    }
    return xr.Dataset(data, coords=coords, attrs=attrs)


def read_sweep(path: str | os.PathLike[str]) -> Any:
    """Read a saved sweep back as an ``xarray.Dataset`` over its axes.

    Parameters
    ----------
    path : str or os.PathLike
        A file a sweep wrote: ``*.nc``, ``*.zarr``, ``*.npz``, ``*.parquet`` or ``*.csv`` (the
        format by its suffix).

    Returns
    -------
    xarray.Dataset
        A dimension per axis with its values as coordinate, each fixed parameter as a scalar
        coordinate, each output column as a data variable over the axes (``to_dataset``'s layout).
        NetCDF and Zarr give back the Dataset as written, attributes included; from NPZ, CSV and
        Parquet the attributes are those the file keeps (the accountants of several, from NPZ; the
        accountants and the output, from Parquet; none from CSV), and from a table (CSV, Parquet)
        the axes are the input columns that vary (an axis of one value comes back fixed) and
        ``best`` holds the accountants' names.

    Raises
    ------
    ValueError
        If ``path`` does not exist, its suffix is none of the five, or a table file holds no points.
    ImportError
        If xarray or pandas, or the format's reader (netCDF4, zarr, pyarrow), is not installed.

    Examples
    --------
    >>> import os, tempfile
    >>> from hockeystick.sweep import Grid, read_sweep, run_sweep
    >>> grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1, 2], "rounds": 10, "epsilon": [0.5, 1]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "sweep.npz")
    ...     _ = run_sweep(grid, path, progress=False)
    ...     ds = read_sweep(path)
    >>> dict(ds.sizes), ds["delta"].values.round(6)
    ({'sigma': 2, 'epsilon': 2}, array([[0.855046, 0.818518],
           [0.461129, 0.352518]]))
    """
    p = Path(path)
    if not p.exists():
        raise ValueError(f"sweep file {str(p)!r} does not exist")
    suffix = p.suffix.lower()
    require_extra("read_sweep", "xarray", "pandas", extra="xarray")
    require_extra(f"reading {suffix}", *_READERS.get(suffix, ()))
    import xarray as xr  # lazy: xarray is an optional extra

    if suffix == ".nc":
        return xr.load_dataset(p, engine="netcdf4")
    if suffix == ".zarr":
        return xr.open_zarr(p, consolidated=False).load()
    if suffix == ".npz":
        return _from_npz(p)
    if suffix in (".csv", ".parquet"):
        return _from_table(p)
    raise ValueError(
        f"sweep file {str(p)!r}: unknown format; a sweep is saved as *.nc, *.zarr, *.npz, *.parquet or *.csv"
    )


# what reading each format takes beside xarray and pandas
_READERS = {".nc": ("netCDF4",), ".zarr": ("zarr",), ".parquet": ("pyarrow",)}


def _from_npz(path: Path) -> Any:
    import xarray as xr  # lazy: xarray is an optional extra

    # the file opened here and closed here: np.load given a path leaves its file open when the
    # archive is damaged
    with open(path, "rb") as fh, np.load(fh) as npz:
        arrays = {k: npz[k] for k in npz.files}
    accountants = [str(a) for a in arrays.pop("accountants", [])]
    dims, shaped = _npz_layout(arrays)
    fixed = {k: v for k, v in arrays.items() if v.ndim == 0}
    data = {k: (dims, arrays[k]) for k in shaped + (["best"] if "best" in arrays else [])}
    coords: dict[str, Any] = {a: arrays[a] for a in dims}
    coords.update({k: ((), v) for k, v in fixed.items()})
    attrs = {"accountants": ",".join(accountants)} if accountants else {}
    return xr.Dataset(data, coords=coords, attrs=attrs)


def _npz_layout(arrays: Mapping[str, np.ndarray]) -> tuple[list[str], list[str]]:
    """(the axes, the outputs other than ``best``) of a sweep's NPZ arrays: the writer stores the
    axes first (1-D), then the fixed parameters (0-d), then the outputs (one dimension per axis);
    with one axis the outputs are 1-D too, and the axis is the first of them."""
    rank = max(v.ndim for v in arrays.values())
    if rank == 1:
        one_d = [k for k, v in arrays.items() if v.ndim == 1 and k != "best"]
        return one_d[:1], one_d[1:]
    shaped = [k for k, v in arrays.items() if v.ndim == rank and k != "best"]
    return [k for k, v in arrays.items() if v.ndim == 1], shaped


def _from_table(path: Path) -> Any:
    import pandas as pd  # lazy: pandas is an optional extra

    parquet = path.suffix.lower() == ".parquet"
    frame = pd.read_parquet(path) if parquet else pd.read_csv(path)
    attrs = _parquet_attributes(path) if parquet else {}
    if frame.empty:
        raise ValueError(
            f"sweep file {str(path)!r} holds no points (a sweep table has a header and a row per point)"
        )
    dataset = _table_dataset(frame, _output_columns(frame, attrs.get("output")))
    dataset.attrs.update(attrs)
    return dataset


def _parquet_attributes(path: Path) -> dict[str, Any]:
    """The accountants and output a sweep's Parquet file names in its schema's metadata (none: {})."""
    import pyarrow.parquet as pq  # lazy: pyarrow is an optional extra

    meta = pq.read_schema(path).metadata or {}
    if b"hockeystick.accountants" not in meta:
        return {}
    return {
        "accountants": ",".join(json.loads(meta[b"hockeystick.accountants"])),
        "output": meta[b"hockeystick.output"].decode(),
    }


def _table_dataset(frame: Any, outputs: list[str]) -> Any:
    """A table of one row per point as a Dataset: the input columns that vary are its dimensions,
    the others scalar coordinates (fixed parameters)."""
    import xarray as xr  # lazy: xarray is an optional extra

    inputs = [c for c in frame.columns if c not in outputs]
    varying = [c for c in inputs if frame[c].nunique() > 1]
    fixed = {c: frame[c].iloc[0] for c in inputs if c not in varying}
    if "best" in frame:
        frame = frame.assign(best=frame["best"].astype(str))
    if varying:
        dataset = (
            frame.set_index(varying).to_xarray().drop_vars([c for c in fixed if c in frame.columns])
        )
    else:
        dataset = xr.Dataset({c: ((), frame[c].iloc[0]) for c in outputs})
    return dataset.assign_coords({c: ((), np.asarray(v)) for c, v in fixed.items()})


def _output_columns(frame: Any, output: str | None) -> list[str]:
    """The computed columns of a sweep table: a sweep writes them last, named ``<output>``,
    ``<output>_<accountant>`` / ``<output>_lower`` / ``<output>_upper``, and ``best``."""
    names = [c for c in frame.columns if c != "best"]
    if output is None:
        last = names[-1]
        output = last.rsplit("_", 1)[0] if last.endswith(("_lower", "_upper")) else last
    return [c for c in names if c == output or c.startswith(f"{output}_")] + (
        ["best"] if "best" in frame else []
    )
