"""``hockeystick calibrate``: the smallest sigma (largest rounds, ...) within a target (epsilon, delta)."""

from __future__ import annotations

import argparse
from typing import Any

from .common import UsageError, accountant_names, accountant_options, output_options, parameters, positive_int
from .execute import execute
from .report import check_format, format_options, report

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    cal = subparsers.add_parser(
        "calibrate",
        help="smallest sigma (or largest rounds ...) within a target (epsilon, delta)",
        description="For each point, the extreme value of --parameter that keeps the accountant "
        "within (epsilon, delta): the smallest sigma, or the largest rounds or "
        "sampling rate.",
        epilog="examples:\n"
        "  hockeystick calibrate --dataset-size 60000 --batch-size 256 --epochs 60 "
        "--epsilon 3 --delta 1e-5\n"
        "  hockeystick calibrate --parameter epochs --dataset-size 60000 --batch-size 256 "
        "--noise-multiplier 1.1 --epsilon 3 --delta 1e-5\n"
        "  hockeystick calibrate -a gaussian --epsilon 1 --delta 1e-5 -p rounds=1,10,100,1000\n"
        "  hockeystick calibrate -a gaussian --parameter rounds --epsilon 1 --delta 1e-5 "
        "-p sigma=2,5,10\n"
        "  hockeystick calibrate -a gaussian --epsilon 0.5,1,2,4 --delta 1e-5 "
        "-p rounds=log:1:10000:40 --plot sigma.png\n"
        "  hockeystick calibrate -a trusted_aggregator --epsilon 1 --delta 1e-5 -p n=60000 \\\n"
        "      -p batch_size=10,100,1000 -p learning_rate=0.5 -p lipschitz=1 -p radius=1\n"
        "  hockeystick calibrate -a leakage_tv -p tv=0.01,0.1 -p variance=1 -p dimension=10,1000"
        "   # paper 001",
        formatter_class=raw,
    )
    cal.add_argument(
        "--parameter",
        default=None,
        metavar="NAME",
        help="what to calibrate (default sigma, or noise_multiplier for a training run; rounds, "
        "sampling_rate, epochs, batch_size ... where the accountant has it)",
    )
    accountant_options(cal)
    output_options(cal)
    format_options(cal)
    cal.add_argument(
        "--max-rows",
        type=positive_int,
        default=50,
        metavar="N",
        help="print every point up to N points, else a summary (default 50)",
    )
    cal.set_defaults(func=run, workers=None, scheduler=None)


def run(args: argparse.Namespace) -> int:
    from ..registry import CalculatorEntry, lookup
    from ..sweep.grid import Grid

    params = parameters(args)
    accountants = accountant_names(args)
    first = lookup(accountants[0])
    if isinstance(first, CalculatorEntry):  # a calculator solves for a parameter from its quantity's target
        if first.quantity not in params:
            raise UsageError(f"calibration needs a target: give -p {first.quantity}=VALUE")
        parameter = args.parameter or next(iter(first.inverses), first.quantity)
    else:
        for name in ("epsilon", "delta"):
            if name not in params:
                raise UsageError(f"calibration needs a target: give --{name} VALUE")
        parameter = args.parameter or (
            "noise_multiplier" if accountants[0].startswith(("dp_sgd", "dp_fedavg")) else "sigma"
        )
    grid = Grid.from_parameters(accountants, parameter, params, args.bound or "upper")
    check_format(args, grid.size, args.max_rows)
    result = execute(grid, args, out=args.out, keep=grid.size <= args.max_rows)
    report(result, args, max_rows=args.max_rows)
    return 0
