"""Running a grid for a subcommand: in-process or on Dask, after checking --plot; what was written."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..base.optional import require_extra
from .common import UsageError
from .report import STDOUT

__all__ = ["execute", "check_address", "check_plot_path"]


def execute(grid: Any, args: argparse.Namespace, *, out: str | None, keep: bool = False) -> Any:
    """Run ``grid`` in-process or on Dask (--workers / --scheduler), after checking --plot."""
    from ..sweep.run import run_sweep

    if getattr(args, "plot", None):
        check_plot_path(args.plot, args.force)
    if args.resume and (not out or out == STDOUT):
        raise UsageError("--resume continues a sweep written to a file: give the same -o FILE as the killed run")
    if out == STDOUT:  # -o -: the points are printed, from memory
        out, keep = None, True
    kwargs = dict(
        chunk_size=args.chunk_size,
        progress=args.progress,
        overwrite=args.force,
        resume=args.resume,
        allow_large=args.allow_large,
    )
    if getattr(args, "workers", None) or getattr(args, "scheduler", None):
        require_extra("--workers" if args.workers else "--scheduler", "dask", "distributed")
        from ..sweep.dask import run_on_dask

        if args.scheduler:
            check_address(args.scheduler, "--scheduler")

        return run_on_dask(grid, out, scheduler=args.scheduler, workers=args.workers or 2, **kwargs)
    return run_sweep(grid, out, keep=keep, **kwargs)


def check_plot_path(path: str, force: bool, flag: str = "--plot") -> None:
    p = Path(path)
    require_extra(flag, "matplotlib", "xarray", "pandas", extra="plot")  # drawn from the labelled arrays
    if p.suffix.lower() != ".png":
        raise UsageError(f"{flag} {path!r}: name the picture *.png")
    if p.is_dir():
        raise UsageError(f"{flag} {path!r} is a directory; give a file name such as {str(p / 'sweep.png')!r}")
    if p.exists() and not force:
        raise UsageError(
            f"{flag} {path!r} already exists and is not replaced unless you ask: pass --force, or choose another name"
        )
    if not (p.parent if str(p.parent) else Path(".")).is_dir():
        raise UsageError(f"{flag} {path!r}: directory {str(p.parent)!r} does not exist; create it first")
    if not os.access(p.parent if str(p.parent) else ".", os.W_OK):
        raise UsageError(f"{flag} {path!r}: directory {str(p.parent)!r} is not writable")


def check_address(address: str, flag: str) -> None:
    """A Dask scheduler's address, given by ``flag``, has a host and a port (tcp://host:8786): refused before
    connecting."""
    from distributed.comm import get_address_host_port

    try:
        get_address_host_port(address)
    except ValueError as exc:
        raise UsageError(
            f"{flag} {address!r}: {exc}; give the address the scheduler prints, such as tcp://host:8786"
        ) from None
