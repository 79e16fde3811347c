"""``hockeystick plot FILE``: the picture of a saved sweep, drawn from the file (nothing
re-evaluated); the flags that choose a picture's axes, kind and slices (shared with ``sweep
--plot``) are cli/picture.py's."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import Any

from ..base.moved import REMOVED_IN
from ..base.optional import MissingExtraError
from .common import GIVEN, UsageError
from .picture import check_picture, check_plot_path, flag_words, picture_choices, picture_options

__all__ = ["register", "run", "picture_options", "picture_choices", "check_picture"]

_EXAMPLES = """\
examples:
  hockeystick sweep grid.toml -o sweep.nc && hockeystick plot sweep.nc --plot sweep.png
  hockeystick plot sweep.parquet --plot heat.png --levels 1,2,4      # contour lines at these epsilons
  hockeystick plot sweep.nc --plot curves.png --x sigma --hue rounds --slice delta=1e-5
  hockeystick plot sweep.nc --plot panels.png --x rounds --y sigma --facet sampling_rate

--plot PNG is the picture, as on sweep, calibrate, delta, epsilon, simulate and audit, where -o is the
data; -o PNG, plot's old spelling, is read as --plot PNG with a warning until 0.4.0.
"""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "plot",
        help="draw a saved sweep (csv, parquet, npz, nc, zarr) without evaluating it again",
        description="Read a sweep file and draw its picture: by default delta-epsilon curves, the calibrated "
        "parameter against rounds, or a heat map over the two longest axes (log axes where the "
        "sweep's axis was log-spaced or its values span more than 20x, contour lines at target values, one per accountant); --x, --y, "
        "--hue, --facet, --slice and --kind choose another.  Axes not drawn are held at one value, "
        "named in the title.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="a sweep written by 'hockeystick sweep -o FILE'")
    p.add_argument("--plot", metavar="PNG", help="the picture to write (*.png)")
    p.add_argument(
        "-o",
        "--out",
        "--output",
        dest="old_plot",
        metavar="PNG",
        help=f"deprecated spelling of --plot PNG (-o is the data on every other subcommand); removed in {REMOVED_IN}",
    )
    p.add_argument(
        "--force", action="store_true", help="replace an existing PNG (refused otherwise)"
    )
    picture_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    choices = picture_choices(args)
    png, flag = _picture_path(args)
    check_plot_path(png, args.force, flag)
    if not Path(args.file).exists():
        raise UsageError(f"sweep file {args.file!r} does not exist")
    from ..plots import plot_dataset  # lazy: start-up time
    from ..sweep.labelled import read_sweep  # lazy: start-up time

    try:
        dataset = read_sweep(args.file)
    except (MemoryError, MissingExtraError):
        raise
    except Exception as exc:
        # read_sweep only parses the file, so whatever it raises says the file is not a sweep: a
        # damaged archive (zipfile.BadZipFile, EOFError), a bad encoding, a damaged Parquet footer
        # or NetCDF header are bad input (exit 2), each a different exception type of the reader
        # underneath.
        message = " ".join(str(exc).split())
        if isinstance(exc, ValueError) and message.startswith(f"sweep file {args.file!r}"):
            raise UsageError(message) from None
        raise UsageError(
            f"sweep file {args.file!r} cannot be read as a sweep ({type(exc).__name__}: {message})"
        ) from None
    try:
        drawn = plot_dataset(dataset, png, **choices)
    except ValueError as exc:
        raise UsageError(flag_words(str(exc))) from None
    print(f"plot written to {os.path.abspath(drawn)}")
    return 0


def _picture_path(args: argparse.Namespace) -> tuple[str, str]:
    """The PNG to write and the flag that named it: --plot, or -o (--out, --output), its deprecated
    spelling, read the same with a warning on stderr."""
    old = getattr(args, GIVEN, {}).get("old_plot", ("-o",))[0]
    if args.plot is not None and args.old_plot is not None:
        raise UsageError(
            f"--plot {args.plot} and {old} {args.old_plot} both name the picture: give --plot alone"
        )
    if args.old_plot is not None:
        logging.getLogger("hockeystick").warning(
            f"warning: {old} PNG is deprecated for the picture and is removed in {REMOVED_IN}: write --plot {args.old_plot} "
            "(-o is the data on every other subcommand)"
        )
        return args.old_plot, old
    if args.plot is None:
        raise UsageError(
            f"say where to draw the picture: --plot PNG (hockeystick plot {args.file} --plot sweep.png)"
        )
    return args.plot, "--plot"
