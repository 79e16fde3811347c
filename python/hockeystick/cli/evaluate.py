"""``hockeystick delta`` and ``hockeystick epsilon``: an accountant at a point or a few."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from .along_run import along_run_options, along_run_parameters
from .arguments import given_words
from .common import (
    GIVEN,
    accountant_names,
    accountant_options,
    output_options,
    parameters,
    positive_int,
)
from .execute import execute
from .participation import participation_options, participation_reading
from .report import STDOUT, check_format, format_options, report

__all__ = ["register"]


def register(subparsers: Any) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    for name, output, other in (("delta", "delta", "epsilon"), ("epsilon", "epsilon", "delta")):
        p = subparsers.add_parser(
            name,
            help=f"{output}({other}) of an accountant at a point or a few",
            description=f"Print {output}({other}) for each point (a table for a few points, a summary for many).",
            epilog=f"examples:\n  hockeystick {name} --dataset-size 60000 --batch-size 256 --epochs 60 "
            f"--noise-multiplier 1.1 --{other} {'1' if other == 'epsilon' else '1e-5'}\n"
            f"  hockeystick {name} -a gaussian -p sigma=2 -p rounds=100 "
            f"--{other} {'1' if other == 'epsilon' else '1e-5'}\n"
            f"  hockeystick {name} gaussian -p sigma=2 -p rounds=100 "
            f"--{other} {'1' if other == 'epsilon' else '1e-5'}   # the same as -a gaussian\n"
            f"  hockeystick {name} dp_ftrl_banded --coefficients 1,0.6,0.3 --rounds 100 --noise-multiplier 1 "
            f"--min-separation 50 --{other} {'1' if other == 'epsilon' else '1e-6'}\n"
            f"  hockeystick {name} -a gaussian -p sigma=1,2,4 -p rounds=100 "
            f"--{other} {'0.5,1,2' if other == 'epsilon' else '1e-5,1e-8'}\n"
            f"  hockeystick {name} --dataset-size 60000 --batch-size 256 --epochs 60 --noise-multiplier 1.1 "
            f"--{other} {'1' if other == 'epsilon' else '1e-5'} --every epoch --bound both",
            formatter_class=raw,
        )
        accountant_options(p, name)
        participation_options(p)
        along_run_options(p)
        output_options(p)
        format_options(p)
        p.add_argument(
            "--max-rows",
            type=positive_int,
            default=None,
            metavar="N",
            help="print every point up to N points, else a summary (default 50; with --every, every checkpoint)",
        )
        p.set_defaults(func=_command(output), workers=None, scheduler=None)


def _command(output: str) -> Callable[[argparse.Namespace], int]:
    def command(args: argparse.Namespace) -> int:
        from ..sweep.grid import Grid  # lazy: start-up time

        if (
            args.participation is not None
        ):  # one DP-FTRL point under a random scheme, each side labelled
            return participation_reading(args, output)
        names, params, max_rows = accountant_names(args), parameters(args), args.max_rows
        epochs = None
        if args.every is not None:  # one run's checkpoints: a one-axis grid over its steps
            flags = given_words(getattr(args, GIVEN, {}))
            params, count, epochs = along_run_parameters(names, params, args.every, flags)
            max_rows = count if max_rows is None else max_rows
        max_rows = 50 if max_rows is None else max_rows
        grid = Grid.from_parameters(names, output, params, args.bound or "upper")
        check_format(args, grid.size, max_rows)
        along = args.every is not None and bool(args.plot)
        result = execute(grid, args, out=args.out, keep=grid.size <= max_rows or along)
        png, args.plot = (
            (args.plot, None) if along else (None, args.plot)
        )  # the run's picture, drawn below
        if epochs is not None and result.columns is not None:
            # the printed table's epochs beside the steps (a file, CSV and JSON hold the grid's
            # columns)
            columns = list(result.columns.items())
            at = 1 + next((i for i, (name, _) in enumerate(columns) if name == "steps"), -1)
            result.columns = dict([*columns[:at], ("epochs", epochs), *columns[at:]])
        report(result, args, max_rows=max_rows)
        if png is not None:
            _draw_along_run(result, png, epochs, sys.stderr if args.out == STDOUT else sys.stdout)
        return 0

    return command


def _draw_along_run(result: Any, png: str, epochs: Any, messages: Any) -> None:
    """--every with --plot: the run's certified sides against its checkpoints, in epochs with
    --every epoch (else steps), on a linear axis; both sides with --bound both."""
    from ..plots.along_run import bracket_along_run  # lazy: start-up time; matplotlib

    grid, columns = result.grid, result.columns
    output = grid.output
    steps = next(name for name in ("steps", "rounds") if name in columns)
    other = "delta" if output == "epsilon" else "epsilon"
    sides = {
        side: columns.get(f"{output}_{side}", columns.get(output) if side == grid.bound else None)
        for side in ("lower", "upper")
    }
    fixed = ", ".join(f"{k}={v:g}" for k, v in grid.fixed.items() if k != other)
    title = f"{grid.accountants[0]}: {output} at {other} = {grid.fixed[other]:g}\n{fixed}"
    drawn = bracket_along_run(
        epochs if epochs is not None else columns[steps],
        sides["lower"],
        sides["upper"],
        png,
        xlabel="epochs" if epochs is not None else steps,
        ylabel=f"{output} at {other} = {grid.fixed[other]:g}",
        log_y=output == "delta",
        title=title,
    )
    print(f"plot written to {os.path.abspath(drawn)}", file=messages)
