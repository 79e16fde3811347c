"""``hockeystick risk``: an attacker's certified TPR at given FPRs, and the advantage, of one
mechanism; with ``--gdp``, its certified mu-GDP bracket (``risk.certified_gdp``)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from collections.abc import Callable
from typing import Any

from .column_sides import column_side
from .common import (
    Once,
    UsageError,
    accountant_argument,
    matrix_options,
    one_point,
    training_options,
)
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
        "  hockeystick risk -a gaussian -p sigma=1 --fpr 1e-3,0.01 -o risk.csv   # the rows to a file\n"
        "  hockeystick risk -a pld_subsampled_gaussian -p sigma=1.1 -p sampling_rate=0.0042667 -p rounds=14100 "
        "--gdp   # certified mu-GDP",
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
        metavar="VALUES",
        help="false-positive rates in [0, 1], comma-separated (e.g. 1e-3,0.01,0.1); required unless --gdp",
    )
    p.add_argument(
        "--gdp",
        action="store_true",
        help="instead of the TPR: the certified mu-GDP bracket [mu_lower, mu_upper] with its slack delta0 (the "
        "mechanism's delta(eps) <= delta_mu(eps) + delta0 at every eps for mu_upper, for no mu below mu_lower) and "
        "the bracket on gdpnum's regret of mu_upper (docs/risk.md)",
    )
    p.add_argument(
        "--delta0",
        type=float,
        metavar="VALUE",
        help="with --gdp: the slack delta0 in [0, 1) (default: the larger of 1e-10 and twice the certified "
        "curve's floor; 0 for a Gaussian mechanism)",
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
    p.add_argument(
        "--force", action="store_true", help="replace an existing -o FILE (refused otherwise)"
    )
    p.set_defaults(func=run)


# --bound -> the sides of the bracket printed
_SIDES = {"lower": ("lower",), "upper": ("upper",), "both": ("lower", "upper")}


def run(args: argparse.Namespace) -> int:
    from .. import risk  # lazy: start-up time

    entry, values = one_point(args, "risk evaluates one mechanism")
    if args.gdp and args.fpr is not None:
        raise UsageError(
            "--gdp prints the mu-GDP bracket instead of the TPR: give --gdp or --fpr, not both"
        )
    if not args.gdp and args.fpr is None:
        raise UsageError(
            "give --fpr VALUES (the TPR at those false-positive rates) or --gdp (the mu-GDP bracket)"
        )
    if args.delta0 is not None and not args.gdp:
        raise UsageError("--delta0 is the slack of --gdp: add --gdp")
    form = args.format if args.out is None else _file_format(args.out, args.force)
    accountant = entry.build(**values)
    if args.gdp:
        return _emit(args, form, _gdp_rows(risk, accountant, args), _GDP_PRINTERS)
    fprs = _fprs(args.fpr)
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
    return _emit(args, form, (rows, heads), _PRINTERS)


def _emit(
    args: argparse.Namespace,
    form: str,
    content: tuple[Any, ...],
    printers: dict[str, Callable[..., None]],
) -> int:
    """Prints the rows in ``form``, to stdout or to -o FILE."""
    if args.out is None:
        printers[form](*content)
        return 0
    with open(args.out, "w", encoding="utf-8") as handle, contextlib.redirect_stdout(handle):
        printers[form](*content)
    print(f"rows written to {os.path.abspath(args.out)}")
    return 0


# the --gdp row's columns, in order
_GDP_HEADS = ("mu_lower", "mu_upper", "delta0", "regret_lower", "regret_upper")


def _gdp_rows(
    risk: Any, accountant: Any, args: argparse.Namespace
) -> tuple[list[dict[str, float]]]:
    """One row: the certified mu-GDP bracket, its slack and the regret bracket of mu_upper."""
    try:
        result = risk.certified_gdp(accountant, delta0=args.delta0)
    except ValueError as error:
        raise UsageError(f"--gdp: {error}") from None
    return ([{h: float(getattr(result, h)) for h in _GDP_HEADS}],)


def _print_gdp_table(rows: list[dict[str, float]]) -> None:
    heads = list(_GDP_HEADS)
    print(table(heads, [[row[h] for h in heads] for row in rows], [column_side(h) for h in heads]))


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
        raise UsageError(
            f"--fpr {text!r}: give numbers in [0, 1], comma-separated, e.g. --fpr 1e-3,0.01"
        ) from None


def _print_json(rows: list[dict[str, float]], heads: tuple[str, ...]) -> None:
    print(json.dumps([{k: json_value(v) for k, v in row.items()} for row in rows]))


def _print_csv(rows: list[dict[str, float]], heads: tuple[str, ...]) -> None:
    print(",".join(rows[0]))
    for row in rows:
        print(",".join(repr(v) for v in row.values()))


def _print_table(rows: list[dict[str, float]], heads: tuple[str, ...]) -> None:
    """The TPR at each FPR, then the advantage (one row: it does not depend on the FPR)."""
    tpr_heads = ["fpr", *(f"tpr_{h}" for h in heads)]
    sides = [column_side(h) for h in tpr_heads]  # fpr is given; the tpr columns are sides
    print(table(tpr_heads, [[row[k] for k in tpr_heads] for row in rows], sides))
    print()
    advantage_heads = [f"advantage_{h}" for h in heads]  # max TPR - FPR = delta(0)
    sides = [column_side(h) for h in advantage_heads]
    print(table(advantage_heads, [[rows[0][k] for k in advantage_heads]], sides))


# --format -> how the rows are printed
_PRINTERS: dict[str, Callable[..., None]] = {
    "json": _print_json,
    "csv": _print_csv,
    "table": _print_table,
}
_GDP_PRINTERS: dict[str, Callable[..., None]] = {
    "json": lambda rows: _print_json(rows, ()),
    "csv": lambda rows: _print_csv(rows, ()),
    "table": _print_gdp_table,
}
