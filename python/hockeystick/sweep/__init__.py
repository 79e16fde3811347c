"""Sweeps: evaluate accountants over grids of millions of parameter points.

    >>> from hockeystick.sweep import Grid, run_sweep
    >>> grid = Grid.from_parameters("gaussian", "delta", {
    ...     "sigma": "log:0.5:20:100", "rounds": [1, 10, 100, 1000], "epsilon": "linear:0.1:8:500"})
    >>> grid.shape
    (100, 4, 500)
    >>> table = run_sweep(grid, progress=False).to_pandas()   # or run_sweep(grid, "sweep.parquet")
    >>> table.shape, list(table.columns)
    ((200000, 4), ['sigma', 'rounds', 'epsilon', 'delta'])

``run_sweep(grid).to_xarray()`` is the same result as labelled arrays (an ``xarray.Dataset`` with a
dimension per axis, fixed parameters as coordinates), and ``read_sweep(path)`` reads any saved sweep
(``*.csv``, ``*.parquet``, ``*.npz``, ``*.nc``, ``*.zarr``) back as one.  ``run_sweep(grid, path)``
refuses to replace an existing file (unless ``overwrite=True``), continues a killed run from its
finished chunks (``resume=True``) and refuses grids above the limits of ``plan.py`` (unless
``allow_large=True``). ``run_on_dask(grid, path, workers=4)`` (or ``scheduler="tcp://..."``) runs
the same grid on a Dask cluster and writes the same file.
"""

from . import plan, registry
from .dask import run_on_dask
from .grid import Axis, Chunk, Grid, load_toml, parse_value
from .labelled import read_sweep, to_dataset
from .run import SweepResult, dataframe, evaluate, preflight, run_sweep

__all__ = [
    "Axis",
    "Chunk",
    "Grid",
    "SweepResult",
    "dataframe",
    "evaluate",
    "load_toml",
    "parse_value",
    "plan",
    "preflight",
    "read_sweep",
    "registry",
    "run_on_dask",
    "run_sweep",
    "to_dataset",
]
