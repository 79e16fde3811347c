"""Composition of many-round items of one factor, as a G1 block asks it: CPU per call on a thread that has
composed nothing yet and on one that composed the same factor before (the band reuse of
cpp/include/hockeystick/pld/compose/taylor_reuse.hpp), with the CPU model and the load.

``python bench/bench_compose_bands.py [--repeats 5]``.  The factor is G1's slowest block's (sigma 0.5,
q 1e-4) pessimistic round at h = 8e-5; the items are its many-round values, 910-10^5, in the four calls its
refinement makes of them, composed with the accurate low band (``direct_bins=True``) on one thread: most take
a band row whose low bins come from block moments.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from collections.abc import Callable

from results import cpu_id  # bench/results.py: the benchmark scripts' directory is on the path

import hockeystick.pld as pld
from hockeystick.pld.compose.fft import compose_many

SIGMA, RATE, H = 0.5, 1e-4, 8e-5
ROUNDS = (
    [910, 1099, 1326, 1600, 1931, 2330, 2812, 3393],
    [4095, 4942, 5964, 7197, 12649],
    [22230, 26827, 32375, 39069],
    [47149, 82864, 100000],
)


def _thread_cpu(work: Callable[[], object], calls: int) -> list[float]:
    """The thread CPU seconds of each of ``calls`` calls of ``work``, made in turn on one new thread."""
    spent: list[float] = []

    def run() -> None:
        for _ in range(calls):
            start = time.thread_time()
            work()
            spent.append(time.thread_time() - start)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    return spent


def main(repeats: int) -> None:
    """Median CPU of the block's calls on a fresh thread (first) and again on that thread (reused)."""
    pmf = next(
        iter(pld.subsampled_gaussian(SIGMA, RATE, value_discretization_interval=H).directions[0])
    ).upper

    def block() -> None:
        for rounds in ROUNDS:
            compose_many(
                [[(pmf, t)] for t in rounds], pessimistic=True, direct_bins=True, workers=1
            )

    block()  # lazy imports and the backend probes
    first, again = [], []
    for _ in range(repeats):
        fresh, repeated = _thread_cpu(block, 2)
        first.append(fresh)
        again.append(repeated)
    print(
        f"compose, sigma {SIGMA}, q {RATE}, h {H}, rounds {ROUNDS[0][0]}-{ROUNDS[-1][-1]} "
        f"({sum(map(len, ROUNDS))} items, {len(ROUNDS)} calls, direct bins, one thread): first on a thread {statistics.median(first) * 1e3:.1f} ms CPU, "
        f"again {statistics.median(again) * 1e3:.1f} ms (medians of {repeats}); {cpu_id()}, {os.cpu_count()} cores, load "
        f"average {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    main(parser.parse_args().repeats)
