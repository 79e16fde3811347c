"""``hockeystick delta`` and ``hockeystick epsilon``: an accountant at a point or a few."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .common import accountant_names, accountant_options, output_options, parameters, positive_int
from .execute import execute
from .report import check_format, format_options, report

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
            f"  hockeystick {name} -a gaussian -p sigma=1,2,4 -p rounds=100 "
            f"--{other} {'0.5,1,2' if other == 'epsilon' else '1e-5,1e-8'}",
            formatter_class=raw,
        )
        accountant_options(p)
        output_options(p)
        format_options(p)
        p.add_argument(
            "--max-rows",
            type=positive_int,
            default=50,
            metavar="N",
            help="print every point up to N points, else a summary (default 50)",
        )
        p.set_defaults(func=_command(output), workers=None, scheduler=None)


def _command(output: str) -> Callable[[argparse.Namespace], int]:
    def command(args: argparse.Namespace) -> int:
        from ..sweep.grid import Grid

        grid = Grid.from_parameters(accountant_names(args), output, parameters(args), args.bound or "upper")
        check_format(args, grid.size, args.max_rows)
        result = execute(grid, args, out=args.out, keep=grid.size <= args.max_rows)
        report(result, args, max_rows=args.max_rows)
        return 0

    return command
