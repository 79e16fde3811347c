"""Importance-sampled Monte Carlo at Gboard's size: delta near 1e-8 with its relative standard error, CPU seconds.

``python bench/bench_importance_sampling.py [--draws 200000] [--target 1e-8] [--short]`` runs T = 2000 rounds, C the
64-banded Toeplitz square root of the prefix-sum matrix (c_j = binom(2j, j) / 4^j, j < 64), b = 64 bins, noise
multiplier 6 (``bench_balls_in_bins.py``'s run), and:

1. a pilot of 20 000 draws tuned for eps = 6 finds the eps whose estimate is nearest the target delta (the ladder
   eps = 5, 5.05, ..., 8);
2. ``ImportanceSampledMonteCarlo`` with ``draws`` per direction, its stretch tuned for that eps (seed 1, fresh
   draws), is timed in CPU seconds (process time: the draws and their reading), and its estimate, standard error,
   relative standard error and bound at beta = 1e-3 (B(alpha), alpha) are printed with the CPU model and the load.

Plain draws would need about 1 / (0.01 delta) = 1e10 draws for the same relative error at delta = 1e-8. pytest
collects ``test_importance_sampled``: at the short size (CI's smoke run) 128 rounds, a 4-banded C, 8 bins, z = 2.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np
from results import cpu_id  # bench/results.py: the benchmark scripts' directory is on the path

from hockeystick.matrix import Banded, ImportanceSampledMonteCarlo

GBOARD = {"rounds": 2000, "bands": 64, "bins": 64, "noise_multiplier": 6.0}
SHORT = {"rounds": 128, "bands": 4, "bins": 8, "noise_multiplier": 2.0}
BETA = 1e-3


def column(bands: int) -> list[float]:
    """c_j = binom(2j, j) / 4^j, j < bands: the first column of the prefix-sum matrix's Toeplitz square root."""
    out = [1.0]
    for j in range(1, bands):
        out.append(out[-1] * (2 * j - 1) / (2 * j))
    return out


def run_at(
    setting: dict[str, Any], epsilon: float, draws: int, seed: int
) -> ImportanceSampledMonteCarlo:
    c, _ = Banded(column(setting["bands"])).matrix(setting["rounds"])
    return ImportanceSampledMonteCarlo(
        strategy=c,
        noise_multiplier=setting["noise_multiplier"],
        cycle_length=setting["bins"],
        epsilon=epsilon,
        draws=draws,
        seed=seed,
    )


def epsilon_near(setting: dict[str, Any], target: float) -> float:
    """The ladder's eps whose pilot estimate (20 000 draws tuned for eps = 6) is nearest the target in log scale."""
    pilot = run_at(setting, 6.0, 20_000, 0)
    ladder = np.arange(5.0, 8.0001, 0.05)
    estimates = np.array([pilot.delta(float(e), proved_sides=False).estimate for e in ladder])
    logs = np.where(estimates > 0, np.log(np.maximum(estimates, 1e-300)), np.inf)
    return float(ladder[int(np.argmin(np.abs(logs - np.log(target))))])


def report(setting: dict[str, Any], draws: int, target: float) -> None:
    eps = epsilon_near(setting, target)
    start = time.process_time()
    run = run_at(setting, eps, draws, 1)
    reading = run.delta(eps, beta=BETA, proved_sides=False)
    seconds = time.process_time() - start
    print(f"# {cpu_id()}; load {os.getloadavg()[0]:.2f}")
    print(
        f"T = {setting['rounds']}, {setting['bands']}-banded C, {setting['bins']} bins, z = {setting['noise_multiplier']:g}; "
        f"eps = {eps:g}, {draws} draws a direction, alpha = {run.stretch:.4g} (kappa {run.kappa:.4g})"
    )
    print(
        f"delta estimate {reading.estimate:.4g} +- {reading.standard_error:.2g} (relative SE "
        f"{reading.standard_error / reading.estimate:.1%}); bound at 1 - {BETA:g}: {reading.confidence_bound:.4g} "
        f"(B(alpha) = {reading.support_bound:.3g}); {reading.kind}"
    )
    print(f"CPU seconds (draws and reading): {seconds:.2f}")


def test_importance_sampled(benchmark, size):
    setting = GBOARD if size(1, 0) else SHORT
    draws = size(200_000, 5_000)
    run = benchmark(lambda: run_at(setting, 6.0 if size(1, 0) else 3.0, draws, 1))
    reading = run.delta(6.0 if size(1, 0) else 3.0, proved_sides=False)
    assert 0.0 < reading.estimate <= reading.confidence_bound <= 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200_000)
    parser.add_argument("--target", type=float, default=1e-8)
    parser.add_argument("--short", action="store_true", help="the CI smoke size")
    args = parser.parse_args()
    report(SHORT if args.short else GBOARD, args.draws, args.target)


if __name__ == "__main__":
    main()
