"""``hockeystick plot FILE``: the picture of a saved sweep, drawn from the file (nothing re-evaluated), and the
flags that choose a picture's axes, kind and slices (shared with ``sweep --plot``)."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Any

from .common import UsageError
from .execute import check_plot_path

__all__ = ["register", "run", "picture_options", "picture_choices", "check_picture"]

_EXAMPLES = """\
examples:
  hockeystick sweep grid.toml -o sweep.nc && hockeystick plot sweep.nc -o sweep.png
  hockeystick plot sweep.parquet -o heat.png --levels 1,2,4      # contour lines at these epsilons
  hockeystick plot sweep.nc -o curves.png --x sigma --hue rounds --slice delta=1e-5
  hockeystick plot sweep.nc -o panels.png --x rounds --y sigma --facet sampling_rate
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
    p.add_argument("-o", "--out", "--output", metavar="PNG", required=True, help="the picture to write (*.png)")
    p.add_argument("--force", action="store_true", help="replace an existing PNG (refused otherwise)")
    picture_options(p)
    p.set_defaults(func=run)


def picture_options(parser: argparse.ArgumentParser) -> None:
    """The flags choosing a picture (``plots.choose_picture``): what is not given follows the natural picture."""
    group = parser.add_argument_group("the picture (each optional; default: the sweep's natural picture)")
    group.add_argument("--x", dest="picture_x", metavar="AXIS", help="the horizontal axis")
    group.add_argument(
        "--y", dest="picture_y", metavar="AXIS", help="a heat map's vertical axis (implies --kind heatmap)"
    )
    group.add_argument(
        "--hue",
        dest="picture_hue",
        metavar="AXIS",
        help="one curve per value of AXIS, at most 8 (implies --kind curves)",
    )
    group.add_argument("--facet", dest="picture_facet", metavar="AXIS", help="one panel per value of AXIS, at most 6")
    group.add_argument(
        "--slice",
        dest="picture_slice",
        action="append",
        default=[],
        metavar="AXIS=VALUE",
        help="hold AXIS at its value nearest VALUE (repeat for several); the axes not drawn and not sliced "
        "are held at their middle value; the title names each",
    )
    group.add_argument(
        "--kind", dest="picture_kind", choices=("curves", "heatmap"), help="curves (lines) or a heat map"
    )
    group.add_argument(
        "--levels",
        metavar="VALUES",
        help="target values of the output, e.g. 1,2,4: contour lines of a heat map, dotted lines across "
        "curves (default on a heat map: the target epsilons 0.5 ... 8 or deltas 1e-10 ... 1e-3 the values cross)",
    )


def picture_choices(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of ``plots.plot_grid`` / ``plot_dataset`` the picture flags give (none: {})."""
    choices: dict[str, Any] = {
        name: getattr(args, f"picture_{name}", None)
        for name in ("x", "y", "hue", "facet", "kind")
        if getattr(args, f"picture_{name}", None) is not None
    }
    slices: dict[str, float] = {}
    for item in getattr(args, "picture_slice", None) or []:
        name, sep, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not sep or not name.strip() or not math.isfinite(number):
            raise UsageError(f"--slice {item!r}: write AXIS=VALUE with a number, e.g. --slice delta=1e-5")
        if name.strip() in slices:
            raise UsageError(f"--slice {name.strip()} is given twice: give each axis one value")
        slices[name.strip()] = number
    if slices:
        choices["slices"] = slices
    if getattr(args, "levels", None) is not None:
        try:
            levels = [float(v) for v in args.levels.split(",")]
        except ValueError:
            raise UsageError(
                f"--levels {args.levels!r}: give numbers separated by commas, e.g. --levels 1,2,4"
            ) from None
        if not all(math.isfinite(v) for v in levels):
            raise UsageError(f"--levels {args.levels!r}: give finite numbers, e.g. --levels 1,2,4")
        choices["levels"] = levels
    return choices


_FLAGS = {role: f"--{role}" for role in ("x", "y", "hue", "facet", "slice", "kind", "levels")}


def check_picture(grid: Any, args: argparse.Namespace) -> None:
    """Before a sweep runs: the picture flags need --plot, and name axes of ``grid`` (a usage error otherwise,
    with the closest axis name), so that a misspelled axis is refused before the evaluation, not after it."""
    choices = picture_choices(args)
    if not choices:
        return
    if not getattr(args, "plot", None):
        given = ", ".join("--slice" if name == "slices" else f"--{name}" for name in choices)
        raise UsageError(f"the picture flags ({given}) go with --plot PNG: give it too, or drop them")
    from ..plots import choose_picture

    choices.pop("levels", None)
    try:
        choose_picture(grid.output, {a.name: a.values for a in grid.axes}, grid.fixed, **choices)
    except ValueError as exc:
        raise UsageError(_flag_words(str(exc))) from None


def _flag_words(message: str) -> str:
    """A ``choose_picture`` message in the command line's words: 'x 'sigmaa' ...' -> '--x 'sigmaa' ...'."""
    for role, flag in _FLAGS.items():
        for prefix in (f"{role} ", f"{role}="):
            if message.startswith(prefix):
                return flag + message[len(role) :]
    return message


def run(args: argparse.Namespace) -> int:
    choices = picture_choices(args)
    check_plot_path(args.out, args.force, "-o")
    if not Path(args.file).exists():
        raise UsageError(f"sweep file {args.file!r} does not exist")
    from ..base.optional import MissingExtraError
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
    try:
        drawn = plot_dataset(dataset, args.out, **choices)
    except ValueError as exc:
        raise UsageError(_flag_words(str(exc))) from None
    print(f"plot written to {os.path.abspath(drawn)}")
    return 0
