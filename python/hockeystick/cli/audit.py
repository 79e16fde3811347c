"""``hockeystick audit``: canary scores against the run's accountant: the audit's epsilon lower
bound beside the certified bracket, and the test of the scores against the certified trade-off curve
(docs/audit.md)."""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

from .common import (
    Once,
    UsageError,
    accountant_argument,
    matrix_options,
    one_point,
    training_options,
)
from .picture import check_plot_path

__all__ = ["register"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "audit",
        help="canary scores against a run's accountant: epsilon lower bound, certified bracket, curve test",
        description="Read canary attack scores (a CSV whose header names a score column, 'score' by default, and "
        "a label column, 'in' by default: 1 or true for a held-in canary, 0 or false for a held-out one; higher "
        "scores mean 'in') and print, at confidence 1 - significance, the "
        "audit's epsilon lower bound at --delta beside the accountant's certified [lower, upper] epsilon and "
        "their gap, and whether the scores refute the accountant's certified trade-off curve (docs/audit.md).",
        epilog="examples:\n  hockeystick audit scores.csv -a gaussian -p sigma=1 --delta 1e-5\n"
        "  hockeystick audit scores.csv --dataset-size 60000 --batch-size 256 --noise-multiplier 1.1 "
        "--epochs 1 --delta 1e-5\n"
        "  hockeystick audit scores.csv -a pld_subsampled_gaussian -p sigma=1 -p sampling_rate=0.5 -p rounds=4 "
        "--delta 1e-5 --direction remove --plot audit.png\n"
        "  hockeystick audit attack.csv --score-column loss_ratio --label-column member -a gaussian -p sigma=1 "
        "--delta 1e-5",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "scores",
        metavar="SCORES.csv",
        help="the canary scores: a score column and a label column (1/0 or true/false)",
    )
    columns = p.add_argument_group("the scores file")
    columns.add_argument(
        "--score-column",
        default="score",
        metavar="NAME",
        help="the header of the score column (default 'score'; higher means 'in')",
    )
    columns.add_argument(
        "--label-column",
        default="in",
        metavar="NAME",
        help="the header of the label column: 1 or true for a held-in canary, 0 or false for a held-out one "
        "(default 'in')",
    )
    group = p.add_argument_group("the run's accountant")
    accountant_argument(p, group, "audit", positional=False, several=False)
    group.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="one value per parameter, e.g. -p sigma=1; repeat for each parameter",
    )
    training_options(p)
    matrix_options(p)
    test = p.add_argument_group("the audit")
    test.add_argument(
        "--delta",
        required=True,
        metavar="VALUE",
        help="the delta of the epsilons compared, in (0, 1)",
    )
    test.add_argument(
        "--significance",
        default="0.05",
        metavar="VALUE",
        help="each test's level, in (0, 1): a right accountant is refuted with probability at most this (default 0.05)",
    )
    test.add_argument(
        "--direction",
        action=Once,
        choices=("symmetric", "remove", "add"),
        default="symmetric",
        help="the certified curve: symmetric (default; any accountant) or remove (membership inference) / add "
        "(a PLD accountant that keeps its directions)",
    )
    test.add_argument(
        "--method",
        action=Once,
        choices=("clopper_pearson", "one_run_fdp"),
        default="clopper_pearson",
        help="the curve test: clopper_pearson (default; canaries scored independently) or one_run_fdp "
        "(Mahloujifar et al.'s one-run test; canaries in one training run, each in with probability 1/2)",
    )
    test.add_argument(
        "--plot", metavar="PNG", help="draw the empirical ROC and its band over the certified band"
    )
    test.add_argument(
        "--force", action="store_true", help="replace an existing --plot PNG (refused otherwise)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import audit  # lazy: start-up time

    entry, values = one_point(args, "audit checks one run", ("delta",))  # --delta is the audit's
    delta = _number(args.delta, "--delta")
    significance = _number(args.significance, "--significance")
    if not 0.0 < significance < 1.0:
        raise UsageError(
            f"--significance must lie strictly between 0 and 1, got {args.significance}"
        )
    if not 0.0 < delta < 1.0:
        raise UsageError(f"--delta must lie strictly between 0 and 1, got {args.delta}")
    if args.method == "one_run_fdp" and args.direction != "symmetric":
        raise UsageError(
            f"--direction must be symmetric with --method one_run_fdp, got --direction {args.direction}: the one-run "
            "test reads a symmetric trade-off function; --method clopper_pearson takes the directions"
        )
    if (
        args.plot
    ):  # a *.png in a writable directory, not replaced unless --force, matplotlib installed
        check_plot_path(args.plot, args.force)
    if not os.path.isfile(args.scores):
        raise UsageError(f"SCORES.csv {args.scores!r}: no such file")
    accountant = entry.build(**values)
    scores = audit.read_csv(
        args.scores, score_column=args.score_column, label_column=args.label_column
    )
    result = audit.report(
        scores,
        accountant=accountant,
        delta=delta,
        significance=significance,
        direction=args.direction,
        method=args.method,
    )
    print(result.table())
    if args.plot:
        audit.plot_audit(
            scores,
            accountant=accountant,
            significance=significance,
            direction=args.direction,
            path=args.plot,
        )
    return 0


def _number(text: str, flag: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{flag} {text!r}: give a number") from None
    if math.isnan(value):
        raise UsageError(f"{flag} must be a number, got nan")
    return value
