"""A picture on the command line: the flags that choose its axes, kind, slices and levels (``plot``
and ``sweep --plot``), their check against a grid before it runs, and the PNG path it is written to
(refused before any work when it cannot be written)."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Any

from ..base.optional import require_extra
from .common import UsageError

__all__ = ["picture_options", "picture_choices", "check_picture", "check_plot_path", "flag_words"]

# the picture's roles given by a flag of the same name (--x AXIS ...), stored at picture_<role>
_ROLES = ("x", "y", "hue", "facet", "kind")

# a role in plots.choose_picture's messages -> the flag that gives it
_FLAGS = {role: f"--{role}" for role in ("x", "y", "hue", "facet", "slice", "kind", "levels")}


def picture_options(parser: argparse.ArgumentParser) -> None:
    """The flags choosing a picture (``plots.choose_picture``): what is not given follows the natural picture."""
    group = parser.add_argument_group(
        "the picture (each optional; default: the sweep's natural picture)"
    )
    group.add_argument("--x", dest="picture_x", metavar="AXIS", help="the horizontal axis")
    group.add_argument(
        "--y",
        dest="picture_y",
        metavar="AXIS",
        help="a heat map's vertical axis (implies --kind heatmap)",
    )
    group.add_argument(
        "--hue",
        dest="picture_hue",
        metavar="AXIS",
        help="one curve per value of AXIS, at most 8 (implies --kind curves)",
    )
    group.add_argument(
        "--facet",
        dest="picture_facet",
        metavar="AXIS",
        help="one panel per value of AXIS, at most 6",
    )
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
        "--kind",
        dest="picture_kind",
        choices=("curves", "heatmap"),
        help="curves (lines) or a heat map",
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
        role: getattr(args, f"picture_{role}")
        for role in _ROLES
        if getattr(args, f"picture_{role}", None) is not None
    }
    slices = _slices(getattr(args, "picture_slice", None) or [])
    if slices:
        choices["slices"] = slices
    if getattr(args, "levels", None) is not None:
        choices["levels"] = _levels(args.levels)
    return choices


def _slices(items: list[str]) -> dict[str, float]:
    """--slice AXIS=VALUE, each axis once: {axis: value}."""
    slices: dict[str, float] = {}
    for item in items:
        name, number = _slice(item)
        if name in slices:
            raise UsageError(f"--slice {name} is given twice: give each axis one value")
        slices[name] = number
    return slices


def _slice(item: str) -> tuple[str, float]:
    """One --slice AXIS=VALUE: the axis and a finite number."""
    name, sep, value = item.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not sep or not name.strip() or not math.isfinite(number):
        raise UsageError(
            f"--slice {item!r}: write AXIS=VALUE with a number, e.g. --slice delta=1e-5"
        )
    return name.strip(), number


def _levels(text: str) -> list[float]:
    """--levels 1,2,4: finite numbers."""
    try:
        levels = [float(v) for v in text.split(",")]
    except ValueError:
        raise UsageError(
            f"--levels {text!r}: give numbers separated by commas, e.g. --levels 1,2,4"
        ) from None
    if not all(math.isfinite(v) for v in levels):
        raise UsageError(f"--levels {text!r}: give finite numbers, e.g. --levels 1,2,4")
    return levels


def check_picture(grid: Any, args: argparse.Namespace) -> None:
    """Before a sweep runs: the picture flags need --plot, and name axes of ``grid`` (a usage error
    otherwise, with the closest axis name), so that a misspelled axis is refused before the
    evaluation, not after it."""
    choices = picture_choices(args)
    if not choices:
        return
    if not getattr(args, "plot", None):
        given = ", ".join("--slice" if name == "slices" else f"--{name}" for name in choices)
        raise UsageError(
            f"the picture flags ({given}) go with --plot PNG: give it too, or drop them"
        )
    from ..plots import choose_picture  # lazy: start-up time

    choices.pop("levels", None)
    try:
        choose_picture(grid.output, {a.name: a.values for a in grid.axes}, grid.fixed, **choices)
    except ValueError as exc:
        raise UsageError(flag_words(str(exc))) from None


def flag_words(message: str) -> str:
    """A ``choose_picture`` message in the command line's words: 'x 'sigmaa' ...' -> '--x 'sigmaa' ...'."""
    for role, flag in _FLAGS.items():
        for prefix in (f"{role} ", f"{role}="):
            if message.startswith(prefix):
                return flag + message[len(role) :]
    return message


def check_plot_path(path: str, force: bool, flag: str = "--plot") -> None:
    """The picture's path, given by ``flag``: a *.png in an existing, writable directory, not
    replaced unless ``force``, with the plot extra installed; refused before any work."""
    p = Path(path)
    if p.suffix.lower() != ".png":
        raise UsageError(f"{flag} {path!r}: name the picture *.png")
    if p.is_dir():
        raise UsageError(
            f"{flag} {path!r} is a directory; give a file name such as {str(p / 'sweep.png')!r}"
        )
    if p.exists() and not force:
        raise UsageError(
            f"{flag} {path!r} already exists and is not replaced unless you ask: pass --force, or choose another name"
        )
    if not (p.parent if str(p.parent) else Path(".")).is_dir():
        raise UsageError(
            f"{flag} {path!r}: directory {str(p.parent)!r} does not exist; create it first"
        )
    if not os.access(p.parent if str(p.parent) else ".", os.W_OK):
        raise UsageError(f"{flag} {path!r}: directory {str(p.parent)!r} is not writable")
    # drawn from the labelled arrays; imported after the path's checks, so a wrong name is refused
    # without loading matplotlib
    require_extra(flag, "matplotlib", "xarray", "pandas", extra="plot")
