"""``hockeystick risk``: an attacker's certified TPR at given FPRs, and the advantage, of one mechanism."""

from __future__ import annotations

import argparse
from typing import Any

from .common import UsageError

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
        "  hockeystick risk -a pld_subsampled_gaussian -p sigma=1 -p sampling_rate=0.01 -p rounds=1000 "
        "--fpr 1e-3,0.01 --direction remove",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "-a",
        "--accountant",
        required=True,
        metavar="NAME",
        help="a registered accountant ('hockeystick accountants' lists them)",
    )
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="one value per parameter, e.g. -p sigma=1; repeat for each parameter",
    )
    p.add_argument(
        "--fpr",
        required=True,
        metavar="VALUES",
        help="false-positive rates in [0, 1], comma-separated (e.g. 1e-3,0.01,0.1)",
    )
    p.add_argument(
        "--direction",
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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import registry, risk
    from .common import parameters

    entry = registry.get(args.accountant)
    values: dict[str, float | int] = {}
    for name, text in parameters(args).items():
        try:
            number = float(text)
        except ValueError:
            raise UsageError(
                f"-p {name}={text}: give one number per parameter (risk evaluates one mechanism)"
            ) from None
        values[name] = int(number) if name in entry.integers and number.is_integer() else number
    try:
        fprs = [float(v) for v in args.fpr.split(",")]
    except ValueError:
        raise UsageError(f"--fpr {args.fpr!r}: give numbers in [0, 1], comma-separated, e.g. --fpr 1e-3,0.01") from None
    accountant = entry.build(**values)
    heads = {"lower": ("lower",), "upper": ("upper",), "both": ("lower", "upper")}[args.bound]
    tpr = risk.tpr_at_fpr(accountant, fprs, bound=args.bound, direction=args.direction)
    adv = risk.advantage(accountant, bound=args.bound)
    tprs, advs = (value if args.bound == "both" else (value,) for value in (tpr, adv))
    print("fpr\t" + "\t".join(f"tpr_{h}" for h in heads))
    for i, fpr in enumerate(fprs):
        print(f"{fpr:.6g}\t" + "\t".join(f"{side[i]:.6g}" for side in tprs))
    print("advantage (max TPR - FPR)\t" + "\t".join(f"{side:.6g}" for side in advs))
    return 0
