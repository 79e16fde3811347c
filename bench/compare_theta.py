"""Side by side in one run: hockeystick theta against scipy's naive formula and log_ndtr form.

    python bench/compare_theta.py [--n 10000000] [--check 2000]

Prints throughput (points/s, best of 3) on the typical points, the ratio to the naive
formula, and each method's worst relative error against 50-digit mpmath on a sample
of the hard points (ANCHORS.md W5 regions).  The CPU-time column (all threads of the
process) is the steadier guide on a shared machine, where wall time includes waiting.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import mpmath as mp
import numpy as np
from scipy.special import log_ndtr

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from theta_points import hard_points, naive_theta, typical_points  # noqa: E402

import hockeystick as hs  # noqa: E402
from tests.reference import theta as reference_theta  # noqa: E402


def log_ndtr_theta(r: np.ndarray, eps: np.ndarray) -> np.ndarray:
    a = eps / r
    l1, l2 = log_ndtr(-(a - r / 2)), eps + log_ndtr(-(a + r / 2))
    return np.exp(l1) * -np.expm1(l2 - l1)


def best_time(f, repeat: int = 3) -> tuple[float, float]:
    """Smallest wall time and smallest process CPU time over `repeat` calls."""
    walls, cpus = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        f()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def worst_relative(values: np.ndarray, refs: list) -> float:
    worst = 0.0
    for v, ref in zip(values, refs):
        if ref < mp.mpf("1e-300"):
            continue
        err = float(abs(mp.mpf(float(v)) - ref) / ref) if np.isfinite(v) else np.inf
        worst = max(worst, err)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10_000_000, help="points for throughput")
    parser.add_argument("--check", type=int, default=2000, help="hard points checked against mpmath")
    args = parser.parse_args()

    r, eps = typical_points(args.n)
    with np.errstate(all="ignore"):
        t_naive = best_time(lambda: naive_theta(r, eps))
        t_log = best_time(lambda: log_ndtr_theta(r, eps))
    t1 = best_time(lambda: hs.theta(r, eps, threads=1))
    t2 = best_time(lambda: hs.theta(r, eps, threads=2))
    print(f"| method | time for {args.n:.0e} points | points/s | vs naive | CPU time | vs naive (CPU) |")
    print("|---|---|---|---|---|---|")
    for name, (wall, cpu) in [("scipy naive ndtr", t_naive), ("scipy log_ndtr", t_log),
                              ("hockeystick 1 thread", t1), ("hockeystick 2 threads", t2)]:
        print(f"| {name} | {wall:.3f} s | {args.n / wall:.3g} | {t_naive[0] / wall:.2f}x "
              f"| {cpu:.3f} s | {t_naive[1] / cpu:.2f}x |")

    hr, he = hard_points(args.check)
    refs = [reference_theta(a, b) for a, b in zip(hr, he)]
    with np.errstate(all="ignore"):
        rows = [("scipy naive ndtr", naive_theta(hr, he)), ("scipy log_ndtr", log_ndtr_theta(hr, he)),
                ("hockeystick", hs.theta(hr, he))]
    print(f"\nworst relative error on {args.check} hard points where theta >= 1e-300 (mpmath, 50 digits):")
    for name, vals in rows:
        print(f"  {name:<18} {worst_relative(vals, refs):.3g}")


if __name__ == "__main__":
    main()
