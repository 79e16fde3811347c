"""The noise for a target: ``interop.opacus.get_noise_multiplier`` at its ends, timed.

    python bench/bench_noise_target.py            # each target three times, median CPU and wall seconds

Targets (sample rate 0.01, delta 1e-5): epsilon 0 over 10 steps (delta(0), the total variation distance, at most
delta: a sigma in the thousands, where the certified epsilon is exactly 0 on the meeting side and the search
bisects), epsilon 1 over 1000 steps and epsilon 8 over 10 000 steps (the usual range, where the secant steps
converge).  Each line gives the sigma found, the median CPU and wall seconds and the load average: times move
with the machine and its load, so the suite holds no timing; a hang guard of 120 s there
(tests/interop/test_interop_opacus_edges.py) catches a search that stops converging.

pytest collects ``test_noise_targets_smoke`` as a smoke run (the first two targets once).
"""

from __future__ import annotations

import os
import statistics
import time

from hockeystick.interop.opacus import get_noise_multiplier

TARGETS = (
    (
        "epsilon 0, 10 steps",
        dict(target_epsilon=0.0, target_delta=1e-5, sample_rate=0.01, steps=10),
    ),
    (
        "epsilon 1, 1000 steps",
        dict(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01, steps=1000),
    ),
    (
        "epsilon 8, 10000 steps",
        dict(target_epsilon=8.0, target_delta=1e-5, sample_rate=0.01, steps=10_000),
    ),
)


def timed(target: dict[str, float]) -> tuple[float, float, float]:
    """(sigma, CPU seconds, wall seconds) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    sigma = get_noise_multiplier(**target)
    return sigma, time.process_time() - cpu, time.perf_counter() - wall


def measure(repeats: int = 3, targets: int = len(TARGETS)) -> dict[str, tuple[float, float, float]]:
    """Per target (the first ``targets``): the sigma and the median CPU and wall seconds of ``repeats`` calls."""
    found = {}
    for name, target in TARGETS[:targets]:
        runs = [timed(target) for _ in range(repeats)]
        found[name] = (
            runs[0][0],
            statistics.median(r[1] for r in runs),
            statistics.median(r[2] for r in runs),
        )
    return found


def test_noise_targets_smoke():
    for name, (sigma, cpu, wall) in measure(repeats=1, targets=2).items():
        assert sigma > 0 and cpu >= 0 and wall >= 0, name


def main() -> None:
    print(
        f"get_noise_multiplier at q = 0.01, delta = 1e-5 (median of 3; load average {os.getloadavg()[0]:.2f})"
    )
    for name, (sigma, cpu, wall) in measure().items():
        print(f"  {name:24s} sigma {sigma:12.6g}  {cpu:7.3f} s CPU  {wall:7.3f} s wall")


if __name__ == "__main__":
    main()
