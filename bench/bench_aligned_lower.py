"""The aligned cells' lower read of rare participation (cpp/include/hockeystick/pld/refine/aligned_lower.hpp through
pld/refine/aligned_lower.py), timed.

    python bench/bench_aligned_lower.py [--calls 3]    # median CPU seconds per call of each read

Reads: one round's lower PMF (the cells, built by the core) of sigma 0.6, q 1e-5 on the grids 2.5e-5 and 1.25e-5,
and of sigma 0.5, q 1e-4 on 2.5e-5; the whole read (the PMF composed under the exponent's tilt over 10^6 rounds and
its lower epsilon searched) at delta 1e-10.  Each line gives the median CPU seconds of ``--calls`` calls, with the
CPU model and the load average: times move with the machine and its load, so the suite holds no timing.

pytest collects ``test_aligned_lower_reads_smoke`` as a smoke run (the cheapest PMF once).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np
from results import cpu_id  # bench/results.py: the benchmark scripts' directory is on the path

from hockeystick.pld.refine.aligned_lower import aligned_lower_epsilon, aligned_pmf
from hockeystick.pld.refine.tilted_question import MAX_POINTS, exponent_tilt

READS: tuple[tuple[str, Callable[[], object]], ...] = (
    ("PMF, sigma 0.6, q 1e-5, h 2.5e-5", lambda: aligned_pmf(0.6, 1e-5, 2.5e-5)),
    ("PMF, sigma 0.6, q 1e-5, h 1.25e-5", lambda: aligned_pmf(0.6, 1e-5, 1.25e-5)),
    ("PMF, sigma 0.5, q 1e-4, h 2.5e-5", lambda: aligned_pmf(0.5, 1e-4, 2.5e-5)),
    (
        "read, sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10",
        lambda: aligned_lower_epsilon(
            0.6, 1e-5, 10**6, 1e-10, 1.0783, 2.5e-5, exponent_tilt, MAX_POINTS
        ),
    ),
)


def median_seconds(read: Callable[[], object], calls: int) -> float:
    """The median over ``calls`` calls of the CPU seconds of one."""
    times = []
    for _ in range(calls):
        start = time.process_time()
        read()
        times.append(time.process_time() - start)
    return statistics.median(times)


def test_aligned_lower_reads_smoke():
    pmf, offset = aligned_pmf(2.0, 1e-5, 5e-5)
    assert np.all(pmf.p >= 0.0) and 0.99 < float(np.sum(pmf.p)) <= 1.0 and abs(offset) < 1e-4


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    print(f"{cpu_id()}, {os.cpu_count()} cores, load {os.getloadavg()}")
    for name, read in READS:
        print(f"{name}: {median_seconds(read, args.calls):.3f} s CPU per call")
    print(f"load {os.getloadavg()}")
