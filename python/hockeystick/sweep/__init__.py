"""Sweeps: evaluate accountants over grids of millions of parameter points.

    from hockeystick.sweep import Grid, run
    grid = Grid.from_parameters("gaussian", "delta", {
        "sigma": "log:0.5:20:1000", "rounds": [1, 10, 100, 1000], "epsilon": "linear:0.1:8:500"})
    run_sweep(grid, "sweep.parquet")          # or run_sweep(grid).to_pandas()

``run_on_dask(grid, path, workers=4)`` (or ``scheduler="tcp://..."``) runs the same grid on
a Dask cluster and writes the same file.
"""

from . import registry
from .grid import Axis, Chunk, Grid, load_toml, parse_value
from .dask import run_on_dask
from .run import SweepResult, dataframe, evaluate, preflight, run_sweep

__all__ = ["Axis", "Chunk", "Grid", "SweepResult", "dataframe", "evaluate", "load_toml", "parse_value",
           "preflight", "registry", "run_on_dask", "run_sweep"]
