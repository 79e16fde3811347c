"""Running a grid for a subcommand: in-process or on Dask (--workers, --scheduler), after checking
--plot and --resume against -o."""

from __future__ import annotations

import argparse
from typing import Any

from ..base.optional import require_extra
from .common import UsageError
from .picture import check_plot_path
from .report import STDOUT

__all__ = ["execute", "check_address", "check_plot_path"]


def execute(grid: Any, args: argparse.Namespace, *, out: str | None, keep: bool = False) -> Any:
    """Run ``grid`` in-process or on Dask (--workers / --scheduler), after checking --plot."""
    from ..sweep.run import run_sweep  # lazy: start-up time

    if getattr(args, "plot", None):
        check_plot_path(args.plot, args.force)
    if args.resume and (not out or out == STDOUT):
        raise UsageError(
            "--resume continues a sweep written to a file: give the same -o FILE as the killed run"
        )
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
        from ..sweep.dask import run_on_dask  # lazy: start-up time; needs the dask extra

        if args.scheduler:
            check_address(args.scheduler, "--scheduler")

        return run_on_dask(grid, out, scheduler=args.scheduler, workers=args.workers or 2, **kwargs)
    return run_sweep(grid, out, keep=keep, **kwargs)


def check_address(address: str, flag: str) -> None:
    """A Dask scheduler's address, given by ``flag``, has a host and a port (tcp://host:8786):
    refused before connecting."""
    from distributed.comm import (
        get_address_host_port,
    )  # lazy: the dask extra, checked by the caller

    try:
        get_address_host_port(address)
    except ValueError as exc:
        raise UsageError(
            f"{flag} {address!r}: {exc}; give the address the scheduler prints, such as tcp://host:8786"
        ) from None
