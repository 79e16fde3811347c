"""Accuracy side by side: hockeystick theta, scipy's naive formula and its log_ndtr form on hard points.

    python bench/compare_theta.py [--check 2000]

Prints each method's worst relative error against 50-digit mpmath on a sample of the
hard points (the regions of W5, bench/README.md).  Speed is measured by the ratio benchmarks
``theta_1thread`` and ``theta_hard_1thread`` (bench/bench_theta.py, ``python bench/run.py``):
warm, interleaved, CPU time, against the same naive formula.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import mpmath as mp
import numpy as np
from scipy.special import log_ndtr

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from theta_points import hard_points, naive_theta  # noqa: E402

import hockeystick as hs  # noqa: E402
from tests.reference import theta as reference_theta  # noqa: E402


def log_ndtr_theta(r: np.ndarray, eps: np.ndarray) -> np.ndarray:
    a = eps / r
    l1, l2 = log_ndtr(-(a - r / 2)), eps + log_ndtr(-(a + r / 2))
    return np.exp(l1) * -np.expm1(l2 - l1)


def worst_relative(values: np.ndarray, refs: list) -> float:
    worst = 0.0
    for v, ref in zip(values, refs):
        if ref < mp.mpf("1e-300"):
            continue
        err = float(abs(mp.mpf(float(v)) - ref) / ref) if np.isfinite(v) else np.inf
        worst = max(worst, err)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--check", type=int, default=2000, help="hard points checked against mpmath"
    )
    args = parser.parse_args()

    hr, he = hard_points(args.check)
    refs = [reference_theta(a, b) for a, b in zip(hr, he)]
    with np.errstate(all="ignore"):
        rows = [
            ("scipy naive ndtr", naive_theta(hr, he)),
            ("scipy log_ndtr", log_ndtr_theta(hr, he)),
            ("hockeystick", hs.theta(hr, he)),
        ]
    print(
        f"worst relative error on {args.check} hard points where theta >= 1e-300 (mpmath, 50 digits):"
    )
    for name, vals in rows:
        print(f"  {name:<18} {worst_relative(vals, refs):.3g}")


if __name__ == "__main__":
    main()
