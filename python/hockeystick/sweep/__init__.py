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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..base.front_door import front_door

if TYPE_CHECKING:
    from . import plan as plan
    from . import registry as registry
    from .dask import run_on_dask
    from .grid import Axis, Chunk, Grid, load_toml, parse_value
    from .labelled import read_sweep, to_dataset
    from .run import SweepResult, dataframe, evaluate, preflight, run_sweep

# Each name comes from its module on first use (PEP 562): the command line's one-point questions read
# ``grid`` and ``run``, not Dask's runner; ``plan`` and ``registry`` are modules of the package.
_NAMES = {
    "run_on_dask": "dask",
    "Axis": "grid",
    "Chunk": "grid",
    "Grid": "grid",
    "load_toml": "grid",
    "parse_value": "grid",
    "read_sweep": "labelled",
    "to_dataset": "labelled",
    "SweepResult": "run",
    "dataframe": "run",
    "evaluate": "run",
    "preflight": "run",
    "run_sweep": "run",
}
_MODULES = ("plan", "registry")


def _module(name: str) -> Any:
    """A module of the package, named outside the door: imported on first use."""
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__getattr__ = front_door(__name__, _NAMES, globals(), _module)


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES, *_MODULES})


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
