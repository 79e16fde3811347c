"""``hockeystick sweep``: one or more accountants over a grid of parameter points, streamed to a file."""

from __future__ import annotations

import argparse
import os
import re
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from .common import (
    GIVEN,
    UsageError,
    accountant_names,
    accountant_options,
    output_options,
    parameters,
    positive_int,
)
from .execute import execute
from .picture import check_picture, picture_options
from .report import STDOUT, check_format, format_options, report, report_files
from .tables import print_plot, print_points, print_summary

__all__ = ["register", "run"]

_SWEEP_EXAMPLES = """\
examples:
  hockeystick sweep --example                       # the main job: a few million points + calibration
  hockeystick sweep grid.toml -o sweep.csv --plot sweep.png
  hockeystick sweep grid.toml -o sweep.nc --plot eps.png --x rounds --hue sigma --slice delta=1e-5
  hockeystick sweep -a gaussian -p sigma=log:0.5:20:1000 -p rounds=1,10,100,1000 \\
      --epsilon linear:0.1:8:500 -o sweep.npz
  hockeystick sweep gaussian -p sigma=log:0.5:20:1000 -p rounds=1,10,100,1000 \\
      --epsilon linear:0.1:8:500 -o sweep.npz                         # the same as -a gaussian
  hockeystick sweep grid.toml -o sweep.parquet --workers 4          # on a local Dask cluster
  hockeystick sweep grid.toml -o /shared/sweep.parquet --scheduler tcp://host:8786

what each needs: -o .csv and .npz nothing more; .parquet pip install "hockeystick[parquet]"; .nc and .zarr
"hockeystick[xarray]"; --plot "hockeystick[plot]"; --workers and --scheduler "hockeystick[dask]"

grid.toml:
  accountants = ["gaussian"]
  output = "delta"                  # or "epsilon", or a parameter to calibrate ("sigma")
  [parameters]
  sigma = { log = [0.5, 20, 1000] }
  rounds = [1, 10, 100, 1000]
  epsilon = { linear = [0.1, 8, 500] }
  sensitivity = 1.0
"""


def register(subparsers: Any) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    sweep = subparsers.add_parser(
        "sweep",
        help="evaluate an accountant over a grid of parameter points",
        description="Evaluate one or more accountants over the Cartesian product of the "
        "parameter axes, in chunks, streaming to a file.",
        epilog=_SWEEP_EXAMPLES,
        formatter_class=raw,
    )
    sweep.add_argument(
        "config",
        nargs="?",
        metavar="FILE|NAME",
        help="a sweep file (TOML, layout below; flags add to or override it), or the accountant as -a NAME gives "
        "it (hockeystick sweep NAME ... is hockeystick sweep -a NAME ...; a family such as dp_ftrl_blt takes its "
        "vector flags): a word that is no file's path and reads as accountant names is the accountant",
    )
    sweep.add_argument(
        "--example",
        action="store_true",
        help="run the built-in example end to end (sweep + calibration + plots)",
    )
    sweep.add_argument(
        "--out-dir",
        default="hockeystick-out",
        metavar="DIR",
        help="where --example writes (default ./hockeystick-out)",
    )
    sweep.add_argument(
        "-q",
        "--quantity",
        metavar="OUTPUT",
        help="delta (default), epsilon, or a parameter to calibrate such as sigma",
    )
    accountant_options(sweep, "sweep", positional=False)
    output_options(sweep, required_out=True)
    format_options(sweep)
    picture_options(sweep)
    dask = sweep.add_argument_group("Dask (default: in-process)")
    dask.add_argument(
        "--workers", type=positive_int, metavar="N", help="run on a LocalCluster with N workers"
    )
    dask.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster at ADDRESS (shared filesystem)",
    )
    sweep.set_defaults(func=run)


# one or more accountant names, comma-separated, each possibly configured
# (dp_ftrl_banded[coefficients=1,0.5])
_NAMES = re.compile(r"\s*\w+(\[[^\]]*\])?(\s*,\s*\w+(\[[^\]]*\])?)*\s*")


def _accountant_word(args: argparse.Namespace) -> None:
    """The positional word as the accountant (the first -a NAME) when it is no file's path and reads
    as accountant names; else it stays the sweep file."""
    word = args.config
    if word is None or os.path.exists(word) or not _NAMES.fullmatch(word):
        return
    args.accountant = [word, *(args.accountant or [])]
    args.config = None


def run(args: argparse.Namespace) -> int:
    _accountant_word(args)
    if args.example:  # the flags of a grid's sweep are refused beside it (cli/unread.py)
        return _example(args)
    grid, chunk_size = _grid(args)
    if args.chunk_size is None:
        args.chunk_size = chunk_size
    if not args.out:
        raise UsageError(
            f"say where to write the sweep: -o FILE{_written_suffix()} (- for stdout; .csv and .npz need nothing "
            "more, .parquet pyarrow, .nc and .zarr the [xarray] extra)"
        )
    check_format(args, grid.size, None)
    check_picture(grid, args)
    result = execute(grid, args, out=args.out)
    if args.out == STDOUT:
        report(result, args, max_rows=None)
    else:
        print_summary(result)
        report_files(result, args)
    return 0


def _grid(args: argparse.Namespace) -> tuple[Any, int | None]:
    """The grid of the sweep file, with the flags added to it or overriding it, and the file's chunk
    size; a refusal of the file's content names the file."""
    from ..sweep.grid import Grid, chunk_size_setting, read_toml  # lazy: start-up time

    spec: dict[str, Any] = read_toml(args.config) if args.config else {}
    try:
        chunk_size = chunk_size_setting(spec)
        _with_flags(spec, args)
        return Grid.from_dict(spec), chunk_size
    except (ValueError, TypeError) as exc:
        if not args.config:
            raise
        raise UsageError(f"sweep file {args.config!r}: {exc}") from None


def _with_flags(spec: dict[str, Any], args: argparse.Namespace) -> None:
    """``spec`` (a sweep file's table) with the flags' parameters, accountants, bound and output in it."""
    from ..registry import default_output  # lazy: start-up time

    if not isinstance(spec.get("parameters", {}), dict):
        raise TypeError(f"[parameters] must be a table of name = value, got {spec['parameters']!r}")
    params = dict(spec.get("parameters", {}))
    params.update(parameters(args))
    if args.accountant or not spec:
        spec["accountants"] = accountant_names(args)
        spec.pop("accountant", None)
    if args.bound:
        spec["bound"] = args.bound
    if args.quantity or "output" not in spec:
        names = spec.get("accountants", spec.get("accountant", ()))
        spec["output"] = args.quantity or default_output(
            [names] if isinstance(names, str) else list(names)
        )
        how = f"-q {args.quantity}" if args.quantity else f"the default, -q {spec['output']}"
    else:
        how = f"output = {spec['output']!r} in the sweep file"
    _check_target_given(args, spec["output"], params, how)
    spec["parameters"] = params
    spec.pop("chunk_size", None)


# what a sweep computes -> the other target, which it computes at a given value of the first
_OTHER_TARGET = {"delta": "epsilon", "epsilon": "delta"}


def _check_target_given(
    args: argparse.Namespace, output: Any, params: dict[str, Any], how: str
) -> None:
    """A sweep computing delta (the default) or epsilon is not given a value of it: the refusal
    names the fix, ``-q`` with the other target (``--delta 1e-5`` asks for epsilon at that delta:
    ``-q epsilon``), or a parameter to calibrate where both targets are given; ``how`` says what set
    the output."""
    other = _OTHER_TARGET.get(output) if isinstance(output, str) else None
    if other is None or output not in params:
        return
    given, drop = _target_words(args, output, params[output])
    sets = f"{given} sets {output}, which the sweep computes ({how})"
    if other in params:
        raise UsageError(
            f"{sets}, and {other} is given too: drop {drop}, or give -q PARAMETER (such as -q sigma) to "
            "calibrate a parameter within both targets"
        )
    fix = f"give -q {other} instead" if args.quantity else f"add -q {other}"
    raise UsageError(f"{sets}: {fix} to compute {other} at that {output}, or drop {drop}")


def _target_words(args: argparse.Namespace, name: str, value: Any) -> tuple[str, str]:
    """How the command line gave target ``name`` its ``value`` (``--delta 1e-5``, ``-p delta=1e-5``,
    ``the sweep file's delta = 1e-5``) and what to drop (``--delta``, ``-p delta``, ``delta from the
    sweep file``)."""
    typed = getattr(args, GIVEN, {}).get(name)
    if typed is not None:
        return f"{typed[0]} {value}", typed[0]
    if any(item.partition("=")[0].strip() == name for item in args.param):
        return f"-p {name}={value}", f"-p {name}"
    return f"the sweep file's {name} = {value}", f"{name} from the sweep file"


def _example(args: argparse.Namespace) -> int:
    from ..reproduce.example import run_example  # lazy: start-up time

    report = run_example(Path(args.out_dir), progress=args.progress, overwrite=args.force)
    print(
        f"sweep file: {os.path.abspath(report.toml_path)}  (edit it, then: hockeystick sweep "
        f"{report.toml_path} -o my_sweep{Path(str(report.sweep.path)).suffix})"  # a format the example wrote
    )
    print_summary(report.sweep)
    print(f"result written to {os.path.abspath(str(report.sweep.path))}")
    print_plot(report.sweep_plot)
    grid = report.calibration.grid
    print(
        f"\nsigma needed for (epsilon, delta) = ({grid.fixed['epsilon']:g}, {grid.fixed['delta']:g}):"
    )
    print_points(report.calibration, max_rows=100)
    print(f"calibration written to {os.path.abspath(str(report.calibration.path))}")
    print_plot(report.calibration_plot)
    return 0


def _written_suffix() -> str:
    """The file format a hint names: Parquet where pyarrow imports (as the example writes), else
    CSV, which needs nothing beyond the core install."""
    try:
        found = find_spec("pyarrow") is not None
    except (ImportError, ValueError):
        found = False
    return ".parquet" if found else ".csv"
