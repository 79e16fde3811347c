"""Balls-in-bins and shuffled batches: the cost of one certified bracket, and what it grows with.

``python bench/bench_allocation.py`` prints, per setting, the CPU seconds of one ``epsilon(1e-5, bound="both")``
through ``DPSGD(sampling="balls_in_bins")`` (a fresh accountant: the one-epoch law built, the epochs composed),
the bracket, and the load average; the goal (bench/README.md) is under one second for 60 epochs of batches of
256 out of 60 000 records at noise 1.1.  The cost grows as the square of the sum grid's points (its span in
log s over ``sum_resolution``; the span grows as 1 / sigma), times log2 of the steps per epoch.
"""

from __future__ import annotations

import os
import time

import numpy as np

from hockeystick.training import DPSGD

GOAL = {"dataset_size": 60_000, "batch_size": 256, "epochs": 60, "noise_multiplier": 1.1}
SCALING = [
    {"dataset_size": 60_000, "batch_size": 256, "epochs": 60, "noise_multiplier": z}
    for z in (0.6, 1.1, 3.0)
] + [
    {"dataset_size": n, "batch_size": 256, "epochs": 10, "noise_multiplier": 1.1}
    for n in (6_000, 600_000)
]


def bracket(run: dict[str, float]) -> tuple[float, float]:
    lower, upper = DPSGD(**run, sampling="balls_in_bins").epsilon(1e-5, bound="both")
    return float(lower), float(upper)


def test_balls_in_bins_bracket(benchmark, size):
    run = GOAL if size(1, 0) else {**GOAL, "dataset_size": 6_000, "epochs": 5}
    lower, upper = benchmark(lambda: bracket(run))
    assert 0.0 < lower <= upper <= 1.01 * lower


def main() -> None:
    for run in [GOAL, *SCALING]:
        start = time.process_time()
        lower, upper = bracket(run)
        cpu = time.process_time() - start
        load = os.getloadavg()[0]
        steps = int(np.ceil(run["dataset_size"] / run["batch_size"]))
        print(
            f"{run} ({steps} steps per epoch): [{lower:.5f}, {upper:.5f}] in {cpu:.2f} s CPU, load {load:.2f}"
        )


if __name__ == "__main__":
    main()
