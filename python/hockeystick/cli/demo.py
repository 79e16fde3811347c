"""``hockeystick demo``: a few theta values and one noise calibration."""

from __future__ import annotations

import argparse
from typing import Any

from ..base.outward_text import outward_text
from .common import UsageError

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="print a few theta values and one noise calibration",
        epilog="example: hockeystick demo --epsilon 1 --delta 1e-5",
    )
    demo.add_argument("--epsilon", type=float, default=1.0, help="target epsilon (default 1)")
    demo.add_argument("--delta", type=float, default=1e-5, help="target delta (default 1e-5)")
    demo.add_argument("--sensitivity", type=float, default=1.0, help="L2 sensitivity (default 1)")
    demo.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..numerics.certified_theta import (
        theta_epsilon_upper,
        theta_radius_lower,
    )  # lazy: start-up time
    from ..numerics.hockey_stick import theta  # lazy: start-up time

    # validate (and compute) before printing anything: bad input gets a message, no half output
    if not (0 < args.sensitivity < float("inf")):
        raise UsageError(
            f"--sensitivity must be a positive finite number, got {args.sensitivity:g}"
        )
    r = theta_radius_lower(
        args.epsilon, args.delta
    )  # rounded to the safe side: sigma = sensitivity / r
    print("theta(r, epsilon) = delta of the Gaussian mechanism with sensitivity/sigma = r")
    for radius in (0.1, 1.0, 4.0):
        for eps in (0.5, 1.0, 8.0):
            print(f"  r = {radius:<4} epsilon = {eps:<4} delta = {theta(radius, eps):.6e}")
    print(
        f"calibration: (epsilon, delta) = ({args.epsilon}, {args.delta}) needs sigma >= "
        f"{outward_text(args.sensitivity / r, 'upper', 10)} for sensitivity {args.sensitivity}"
    )
    check = outward_text(float(theta_epsilon_upper(r, args.delta)), "upper", 12)
    print(f"  check: epsilon(delta) at that sigma = {check}")
    return 0
