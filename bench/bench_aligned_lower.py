"""The aligned cells' lower read of rare participation (cpp/include/hockeystick/pld/refine/aligned_lower.hpp through
its binding, _core.pld_refine.aligned_pmf and aligned_read), timed.

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

from hockeystick import _core
from hockeystick.pld.question.tilted_question import MAX_POINTS


def aligned_pmf(sigma: float, q: float, h: float) -> tuple[np.ndarray, float]:
    """One round's aligned PMF on grid ``h``: its masses and offset (the core's)."""
    _, p, offset = _core.pld_refine.aligned_pmf(sigma=sigma, sampling_rate=q, interval=h)
    return np.asarray(p), float(offset)


def aligned_lower_epsilon(
    sigma: float, q: float, rounds: int, delta: float, near: float, h: float
) -> float:
    """The aligned cells' certified lower epsilon at ``delta`` searched below ``near`` (the core's)."""
    lower, _, _ = _core.pld_refine.aligned_read(
        sigma=sigma,
        sampling_rate=q,
        rounds=rounds,
        delta=delta,
        near=near,
        interval=h,
        max_points=MAX_POINTS,
    )
    return float(lower)


READS: tuple[tuple[str, Callable[[], object]], ...] = (
    ("PMF, sigma 0.6, q 1e-5, h 2.5e-5", lambda: aligned_pmf(0.6, 1e-5, 2.5e-5)),
    ("PMF, sigma 0.6, q 1e-5, h 1.25e-5", lambda: aligned_pmf(0.6, 1e-5, 1.25e-5)),
    ("PMF, sigma 0.5, q 1e-4, h 2.5e-5", lambda: aligned_pmf(0.5, 1e-4, 2.5e-5)),
    (
        "read, sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10",
        lambda: aligned_lower_epsilon(0.6, 1e-5, 10**6, 1e-10, 1.0783, 2.5e-5),
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
    p, offset = aligned_pmf(2.0, 1e-5, 5e-5)
    assert np.all(p >= 0.0) and 0.99 < float(np.sum(p)) <= 1.0 and abs(offset) < 1e-4


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    print(f"{cpu_id()}, {os.cpu_count()} cores, load {os.getloadavg()}")
    for name, read in READS:
        print(f"{name}: {median_seconds(read, args.calls):.3f} s CPU per call")
    print(f"load {os.getloadavg()}")
