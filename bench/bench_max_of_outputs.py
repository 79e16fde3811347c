"""The max-of-outputs lower read (cpp/include/hockeystick/pld/reads/max_of_outputs.hpp through
pld/reads/max_of_outputs.py), timed.

    python bench/bench_max_of_outputs.py [--calls 20]    # median CPU milliseconds per call of each read

Reads: epsilon at delta 1e-10 of the rare-participation run (sigma 0.6, q 1e-5, 10^6 rounds) and of three
segments; delta at epsilon 1.2; the coarse-ladder deltas of a 40-point curve; epsilon at 100 deltas in one call
(the coarse ladder computed once for all of them).  Each line gives the median CPU milliseconds of five batches of
``--calls`` calls, with the CPU model and the load average: times move with the machine and its load, so the suite
holds no timing.

pytest collects ``test_max_of_outputs_reads_smoke`` as a smoke run (each read once).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np
from results import cpu_id  # bench/results.py: the benchmark scripts' directory is on the path

from hockeystick.pld.reads.max_of_outputs import (
    max_of_outputs_delta,
    max_of_outputs_deltas,
    max_of_outputs_epsilon,
)

RARE = [((0.6, 1e-5, 1.0), 10**6)]
THREE = [((0.6, 1e-5, 1.0), 10**6), ((1.5, 1e-3, 1.0), 2000), ((0.9, 0.02, 2.0), 50)]
READS: tuple[tuple[str, Callable[[], object]], ...] = (
    ("epsilon, 1 segment, delta 1e-10", lambda: max_of_outputs_epsilon(RARE, 1e-10)),
    ("epsilon, 3 segments, delta 1e-10", lambda: max_of_outputs_epsilon(THREE, 1e-10)),
    ("delta, 1 segment, eps 1.2", lambda: max_of_outputs_delta(RARE, 1.2)),
    (
        "deltas (coarse ladder), 40 eps",
        lambda: max_of_outputs_deltas(RARE, np.linspace(0.0, 3.0, 40)),
    ),
    (
        "epsilon at 100 deltas, one call",
        lambda: max_of_outputs_epsilon(RARE, np.logspace(-12, -3, 100)),
    ),
)


def median_ms(read: Callable[[], object], calls: int) -> float:
    """The median over five batches of ``calls`` calls of the CPU milliseconds per call."""
    batches = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            read()
        batches.append((time.process_time() - start) / calls * 1e3)
    return statistics.median(batches)


def test_max_of_outputs_reads_smoke():
    for _, read in READS:
        value = np.asarray(read())
        assert np.all(np.isfinite(value)) and np.all(value >= 0.0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    print(f"{cpu_id()}, {os.cpu_count()} cores, load {os.getloadavg()}")
    for name, read in READS:
        print(f"{name}: {median_ms(read, args.calls):.3f} ms CPU per call")
    print(f"load {os.getloadavg()}")
