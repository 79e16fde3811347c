"""``hockeystick plot FILE``: the natural picture of a saved sweep, drawn from the file (nothing re-evaluated)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from .common import UsageError
from .execute import check_plot_path

__all__ = ["register", "run"]

_EXAMPLES = """\
examples:
  hockeystick sweep grid.toml -o sweep.nc && hockeystick plot sweep.nc -o sweep.png
  hockeystick plot sweep.parquet -o heat.png --levels 1,2,4      # contour lines at these epsilons
"""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "plot",
        help="draw a saved sweep (csv, parquet, npz, nc, zarr) without evaluating it again",
        description="Read a sweep file and draw its natural picture: delta-epsilon curves, the calibrated "
        "parameter against rounds, or a heat map over the two longest axes (log axes where the "
        "sweep's axis was log-spaced, contour lines at target values, one per accountant).",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="a sweep written by 'hockeystick sweep -o FILE'")
    p.add_argument("-o", "--out", metavar="PNG", required=True, help="the picture to write (*.png)")
    p.add_argument(
        "--levels",
        metavar="VALUES",
        help="contour levels of a heat map, e.g. 1,2,4 (default: the target epsilons 0.5 ... 8 "
        "or deltas 1e-10 ... 1e-3 the values cross)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing PNG (refused otherwise)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    levels = None
    if args.levels is not None:
        try:
            levels = [float(v) for v in args.levels.split(",")]
        except ValueError:
            raise UsageError(
                f"--levels {args.levels!r}: give numbers separated by commas, e.g. --levels 1,2,4"
            ) from None
    check_plot_path(args.out, args.force, "-o")
    if not Path(args.file).exists():
        raise UsageError(f"sweep file {args.file!r} does not exist")
    from .._optional import MissingExtraError
    from ..plots import plot_dataset
    from ..sweep.labelled import read_sweep

    try:
        dataset = read_sweep(args.file)
    except (MemoryError, MissingExtraError):
        raise
    except Exception as exc:
        # read_sweep only parses the file, so whatever it raises says the file is not a sweep: a damaged
        # archive (zipfile.BadZipFile, EOFError), a bad encoding, a damaged Parquet footer or NetCDF header
        # are bad input (exit 2), each a different exception type of the reader underneath.
        message = " ".join(str(exc).split())
        if isinstance(exc, ValueError) and message.startswith(f"sweep file {args.file!r}"):
            raise UsageError(message) from None
        raise UsageError(
            f"sweep file {args.file!r} cannot be read as a sweep ({type(exc).__name__}: {message})"
        ) from None
    print(f"plot written to {os.path.abspath(plot_dataset(dataset, args.out, levels=levels))}")
    return 0
