"""The ``hockeystick`` command line (grows a subcommand per accountant)."""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .hockey_stick import theta, theta_epsilon, theta_radius


def _demo(args: argparse.Namespace) -> int:
    print("theta(r, epsilon) = delta of the Gaussian mechanism with sensitivity/sigma = r")
    for r in (0.1, 1.0, 4.0):
        for eps in (0.5, 1.0, 8.0):
            print(f"  r = {r:<4} epsilon = {eps:<4} delta = {theta(r, eps):.6e}")
    r = theta_radius(args.epsilon, args.delta)
    print(f"calibration: (epsilon, delta) = ({args.epsilon}, {args.delta}) needs sigma >= "
          f"{args.sensitivity / r:.10g} for sensitivity {args.sensitivity}")
    print(f"  check: epsilon(delta) at that sigma = {theta_epsilon(r, args.delta):.12g}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hockeystick", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="print a few theta values and one noise calibration",
                          epilog="example: hockeystick demo --epsilon 1 --delta 1e-5")
    demo.add_argument("--epsilon", type=float, default=1.0, help="target epsilon (default 1)")
    demo.add_argument("--delta", type=float, default=1e-5, help="target delta (default 1e-5)")
    demo.add_argument("--sensitivity", type=float, default=1.0, help="L2 sensitivity (default 1)")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:
        print(f"hockeystick: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
