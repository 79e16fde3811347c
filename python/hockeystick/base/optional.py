"""Optional dependencies (pyproject.toml's extras): one message when one is missing.

Every feature that needs an optional package calls ``require_extra`` before importing it; when the
package is not installed the caller gets ``MissingExtraError`` (a ModuleNotFoundError) saying what
needs it and the pip command that installs it, the same words in Python and on the command line
(which prints the line with exit status 2, as for any setting the user changes).
``pip install "hockeystick[all]"`` installs every extra at once.
"""

from __future__ import annotations

import importlib

__all__ = ["EXTRAS", "MissingExtraError", "extra_of", "install_command", "require_extra"]

# Importable top-level module -> the extra of pyproject.toml that installs it.  pandas comes with
# several extras (plot, simulate, parquet, xarray): a caller names the one its feature belongs to,
# and parquet (pyarrow and pandas, the tables) is named otherwise.
EXTRAS: dict[str, str] = {
    "matplotlib": "plot",
    "numba": "simulate",
    "sklearn": "simulate",
    "dask": "dask",
    "distributed": "dask",
    "pyarrow": "parquet",
    "pandas": "parquet",
    "xarray": "xarray",
    "netCDF4": "xarray",
    "zarr": "xarray",
    "dp_accounting": "interop",
}


def install_command(extra: str) -> str:
    """The pip command installing ``extra`` beside an installed hockeystick (nothing rebuilt)."""
    return f'pip install "hockeystick[{extra}]"'


class MissingExtraError(ModuleNotFoundError):
    """``purpose`` needs ``name`` (a module), which is not installed: the message says which extra
    installs it and, with ``otherwise``, what works without it."""

    def __init__(self, name: str, purpose: str, extra: str, otherwise: str | None = None) -> None:
        message = f"{purpose} needs {name}: {install_command(extra)}" + (
            f", or {otherwise}" if otherwise else ""
        )
        super().__init__(message, name=name)
        self.extra = extra


def extra_of(error: ModuleNotFoundError) -> str | None:
    """The extra installing the module ``error`` found missing, or None when it is not an optional one."""
    return EXTRAS.get((error.name or "").split(".")[0])


def require_extra(
    purpose: str, *modules: str, extra: str | None = None, otherwise: str | None = None
) -> None:
    """Import each of ``modules`` (dotted names: each package on the path too), or raise
    MissingExtraError for the first one missing, naming ``extra`` (by default the one EXTRAS lists
    for its top-level package).

    Only a module itself missing is reported so: a module that is installed but fails on import (a
    version conflict of its own dependencies) raises its own error."""
    for module in modules:
        parts = module.split(".")
        for depth in range(1, len(parts) + 1):
            name = ".".join(parts[:depth])
            try:
                importlib.import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name != name:
                    raise
                raise MissingExtraError(
                    name, purpose, extra or EXTRAS[parts[0]], otherwise
                ) from None
