"""``hockeystick risk``: an attacker's certified TPR at given FPRs, and the advantage, of one mechanism."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from collections.abc import Callable
from typing import Any

from .common import Once, UsageError, accountant_argument, matrix_options, one_point, training_options
from .report import FORMATS, json_value
from .tables import table

__all__ = ["register"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "risk",
        help="an attacker's certified TPR at given FPRs (the trade-off curve) and its advantage",
        description="Print, for one mechanism, the bracket [lower, upper] of the largest true-positive rate any "
        "attack reaches at each false-positive rate (upper: no attack does better; lower: what the "
        "profile's bound cannot exclude), and of the advantage max TPR - FPR = delta(0) "
        "(docs/risk.md).",
        epilog="examples:\n  hockeystick risk -a gaussian -p sigma=1 -p rounds=10 --fpr 0.01\n"
        "  hockeystick risk gaussian -p sigma=1 -p rounds=10 --fpr 0.01   # the same\n"
        "  hockeystick risk dp_ftrl_banded --coefficients 1,0.6,0.3 --rounds 100 --noise-multiplier 1 "
        "--min-separation 50 --fpr 0.01\n"
        "  hockeystick risk -a pld_subsampled_gaussian -p sigma=1 -p sampling_rate=0.01 -p rounds=1000 "
        "--fpr 1e-3,0.01 --direction remove\n"
        "  hockeystick risk -a gaussian -p sigma=1 --fpr 1e-3,0.01 -o risk.csv   # the rows to a file",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    group = p.add_argument_group("the mechanism")
    accountant_argument(p, group, "risk", several=False)
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
    p.add_argument(
        "--fpr",
        required=True,
        metavar="VALUES",
        help="false-positive rates in [0, 1], comma-separated (e.g. 1e-3,0.01,0.1)",
    )
    p.add_argument(
        "--direction",
        action=Once,
        choices=("symmetric", "remove", "add"),
        default="symmetric",
        help="symmetric (default: the guarantee both neighbouring orders satisfy), remove (membership "
        "inference: positive = the record is in) or add; directions need a PLD accountant",
    )
    p.add_argument(
        "--bound",
        choices=("upper", "lower", "both"),
        default="both",
        help="which side of the TPR bracket to print (default both)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (default), json (a list of objects, one per FPR) or csv; each row carries the advantage too",
    )
    p.add_argument(
        "-o",
        "--out",
        "--output",
        metavar="FILE",
        help="write the rows to FILE.csv or FILE.json (the suffix chooses the format) instead of stdout",
    )
    p.add_argument("--force", action="store_true", help="replace an existing -o FILE (refused otherwise)")
    p.set_defaults(func=run)


# --bound -> the sides of the bracket printed
_SIDES = {"lower": ("lower",), "upper": ("upper",), "both": ("lower", "upper")}


def run(args: argparse.Namespace) -> int:
    from .. import risk  # lazy: start-up time

    entry, values = one_point(args, "risk evaluates one mechanism")
    fprs = _fprs(args.fpr)
    form = args.format if args.out is None else _file_format(args.out, args.force)
    accountant = entry.build(**values)
    heads = _SIDES[args.bound]
    tpr = risk.tpr_at_fpr(accountant, fprs, bound=args.bound, direction=args.direction)
    adv = risk.advantage(accountant, bound=args.bound)
    tprs, advs = (value if args.bound == "both" else (value,) for value in (tpr, adv))
    rows = [
        {
            "fpr": fpr,
            **{f"tpr_{h}": float(side[i]) for h, side in zip(heads, tprs)},
            **{f"advantage_{h}": float(side) for h, side in zip(heads, advs)},
        }
        for i, fpr in enumerate(fprs)
    ]
    if args.out is None:
        _PRINTERS[form](rows, heads)
        return 0
    with open(args.out, "w", encoding="utf-8") as handle, contextlib.redirect_stdout(handle):
        _PRINTERS[form](rows, heads)
    print(f"rows written to {os.path.abspath(args.out)}")
    return 0


def _file_format(path: str, force: bool) -> str:
    """The format of -o FILE, by its suffix; an existing file is replaced only with --force."""
    form = {".csv": "csv", ".json": "json"}.get(os.path.splitext(path)[1].lower())
    if form is None:
        raise UsageError(f"-o {path!r}: name a .csv or .json file (its suffix chooses the format)")
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise UsageError(f"-o {path!r}: its directory does not exist")
    if os.path.exists(path) and not force:
        raise UsageError(f"-o {path!r} exists: add --force to replace it, or choose another name")
    return form


def _fprs(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise UsageError(f"--fpr {text!r}: give numbers in [0, 1], comma-separated, e.g. --fpr 1e-3,0.01") from None


def _print_json(rows: list[dict[str, float]], heads: tuple[str, ...]) -> None:
    print(json.dumps([{k: json_value(v) for k, v in row.items()} for row in rows]))


def _print_csv(rows: list[dict[str, float]], heads: tuple[str, ...]) -> None:
    print(",".join(rows[0]))
    for row in rows:
        print(",".join(repr(v) for v in row.values()))


def _print_table(rows: list[dict[str, float]], heads: tuple[str, ...]) -> None:
    """The TPR at each FPR, then the advantage (one row: it does not depend on the FPR)."""
    tpr_heads = ["fpr", *(f"tpr_{h}" for h in heads)]
    print(table(tpr_heads, [[row[k] for k in tpr_heads] for row in rows]))
    print()
    advantage_heads = [f"advantage_{h}" for h in heads]  # max TPR - FPR = delta(0)
    print(table(advantage_heads, [[rows[0][k] for k in advantage_heads]]))


# --format -> how the rows are printed
_PRINTERS: dict[str, Callable[[list[dict[str, float]], tuple[str, ...]], None]] = {
    "json": _print_json,
    "csv": _print_csv,
    "table": _print_table,
}
