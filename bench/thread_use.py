"""Do the bindings' parallel loops use both cores?  CPU time against wall time, 1 vs 2 threads.

    python bench/thread_use.py [--repeat 5] [--scale 1.0] [--only NAME ...]

For every compiled function that runs a parallel loop (the flat, strided-broadcast and
per-item drivers of cpp/bindings/loops.hpp, and the PLD cell loop inside pld/grid/cells.hpp, which
has no threads argument: it runs in child processes with OMP_NUM_THREADS=1 and 2),
on an input large enough for the automatic thread rule to choose every core, it runs the
1-thread and the 2-thread call alternately (interleaved, after a warm-up call) and prints
the medians of wall time and process CPU time (all threads, time.process_time), and

    speedup   = wall(1 thread) / wall(2 threads)
    cores     = CPU(2 threads) / wall(2 threads)   (2.0: both cores busy all the time)
    overhead  = CPU(2 threads) / CPU(1 thread)     (1.0: no work added by the second thread)

    busiest   = the busiest thread's share of the 2-thread call's CPU time
                (per-thread on-CPU nanoseconds from /proc/self/task/*/schedstat;
                0.50: the work split evenly over two threads, 1.00: one thread did it all)

A loop that uses both cores shows cores near 2 and overhead near 1 on a quiet machine; on a
loaded one the cores column is what the scheduler gave, so quote `uptime` beside it.  The
busiest column does not depend on the load: it says whether the loop gives both threads work.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from hockeystick import _core

H, TAIL, MAX_CELLS = 1e-4, 1e-10, 1 << 26
# the geometric bound's arrays by name (its bindings take them as keywords)
_GEOMETRIC = ("epsilon", "weight", "terms", "r_first", "r_product")
_GEOMETRIC_INVERSE = ("delta", *_GEOMETRIC[1:])


def workloads(scale: float) -> dict[str, tuple[str, Callable[[int], Any]]]:
    """name -> (public entry point and driver, call(threads))."""
    rng = np.random.default_rng(1)
    n = int(4_000_000 * scale)
    r, eps = 10.0 ** rng.uniform(-2, 2, n), rng.uniform(0, 20, n)
    delta = 10.0 ** rng.uniform(-12, -1, n // 20)
    col, row = (
        np.linspace(0.0, 6.0, int(2000 * scale))[:, None],
        np.linspace(0.5, 4.0, 250)[None, :],
    )
    dcol = 10.0 ** -np.linspace(1, 10, int(400 * scale))[:, None]

    def grid(*a: Any) -> list[np.ndarray]:
        return [np.asarray(x, dtype=np.float64) for x in np.broadcast_arrays(*a)]

    geo_delta, geo_eps = grid(col, 0.01, 50.0, row, row), grid(dcol, 0.01, 50.0, row, row)
    radii = rng.uniform(0.5, 3.0, 1000)
    m = int(20000 * scale)
    rate, lip = rng.uniform(0.001, 0.05, m), rng.uniform(0.5, 2.0, m)
    rho, gamma = rng.uniform(0.9, 1.2, (m, 100)), rng.uniform(0.0, 1.0, (m, 100))
    pmf = rng.dirichlet(np.ones(1_000_000))
    profile = _core.pld_reads.GridProfile(pmf, k_lo=-500_000, h=1e-5, p_inf=1e-9)
    many_deltas = np.resize(delta, n)
    sig = np.linspace(
        0.6, 3.0, max(2, int(64 * scale))
    )  # 88 to 7574 cells each: the core's cell loop stays serial
    return {
        "theta": (
            "hs.theta; flat batch (AVX2 pieces of 4096)",
            lambda t: _core.hockey_stick.theta(r, eps, threads=t),
        ),
        "log_theta": (
            "hs.log_theta; flat element-wise",
            lambda t: _core.hockey_stick.log_theta(r, eps, threads=t),
        ),
        "theta_epsilon": (
            "hs.theta_epsilon; flat element-wise (root solve)",
            lambda t: _core.hockey_stick.theta_epsilon(r[: n // 20], delta, threads=t),
        ),
        "gaussian_factor_pairs": (
            "contraction grids (sweep); flat, 4 outputs",
            lambda t: _core.contraction.gaussian_factor_pairs(
                eps[: n // 4], r[: n // 4], r[1 : n // 4 + 1], threads=t
            ),
        ),
        "geometric_bound_delta": (
            "TrustedAggregator.delta; strided broadcast",
            lambda t: _core.contraction.geometric_bound_delta(
                **dict(zip(_GEOMETRIC, geo_delta)), threads=t
            ),
        ),
        "geometric_bound_epsilon": (
            "TrustedAggregator.epsilon; strided broadcast (warm-started solve)",
            lambda t: _core.contraction.geometric_bound_epsilon(
                **dict(zip(_GEOMETRIC_INVERSE, geo_eps)), threads=t
            ),
        ),
        "schedule_bound_delta": (
            "schedule accountants .delta; per item, O(T) each",
            lambda t: _core.contraction.schedule_bound_delta(
                eps[: int(2000 * scale)],
                weight=0.01,
                first_stop=0,
                r_first=radii,
                r_product=radii,
                threads=t,
            ),
        ),
        "schedule_bound_epsilon": (
            "schedule accountants .epsilon; per item",
            lambda t: _core.contraction.schedule_bound_epsilon(
                delta[: int(400 * scale)],
                weight=0.01,
                first_stop=0,
                r_first=radii,
                r_product=radii,
                threads=t,
            ),
        ),
        "fedavg_interpolation": (
            "fdp NoisyFedAvg (stagewise); per item, O(T) each",
            lambda t: _core.fdp.fedavg_interpolation(
                1,
                learning_rate=rate,
                lipschitz=lip,
                local_steps=np.full(m, 5.0),
                rounds=np.full(m, 200.0),
                threads=t,
            ),
        ),
        "interpolation_from_rounds": (
            "fdp.interpolation_bound; per item (rows)",
            lambda t: _core.fdp.interpolation_from_rounds(rho, gamma, np.full(m, 100.0), threads=t),
        ),
        "pld_subsampled_gaussian_many": (
            "pld.subsampled_gaussians; per item (one grid each)",
            lambda t: _core.pld_mechanisms.subsampled_gaussian_many(
                sig,
                np.full(sig.size, 0.01),
                np.ones(sig.size, bool),
                h=1e-3,
                tail=TAIL,
                max_cells=MAX_CELLS,
                threads=t,
            ),
        ),
        "pld_subsampled_gaussian_many/1": (
            "pld.subsampled_gaussian (q = 1); one item: the core's cell loop",
            lambda t: _core.pld_mechanisms.subsampled_gaussian_many(
                np.array([0.6]),
                np.array([1.0]),
                np.array([True]),
                h=1e-5 / scale,
                tail=TAIL,
                max_cells=MAX_CELLS,
                threads=t,
            ),
        ),
        "PldGridProfile.delta": (
            "PLD .delta on a 10^6-point PMF; flat element-wise",
            lambda t: profile.delta(eps, t),
        ),
        "PldGridProfile.epsilon": (
            "PLD .epsilon; flat element-wise (binary search)",
            lambda t: profile.epsilon(many_deltas, t),
        ),
    }


def core_cell_loop() -> None:
    """One subsampled-Gaussian PLD (both sides) at h = 1e-5: the OpenMP cell loop of pld/grid/cells.hpp."""
    _core.pld_mechanisms.subsampled_gaussian(
        0.8, 0.01, remove=True, h=1e-5, tail=TAIL, max_cells=MAX_CELLS
    )


def child_times(threads: int) -> Timing:
    """(wall, CPU, busiest share) of core_cell_loop in a child process with OMP_NUM_THREADS=threads, after a warm-up call."""
    code = (
        "import json, time, sys; sys.path.insert(0, sys.argv[1]); import thread_use as b; b.core_cell_loop(); "
        "s = b.thread_cpu_ns(); w, c = time.perf_counter(), time.process_time(); b.core_cell_loop(); "
        "print(json.dumps([time.perf_counter() - w, time.process_time() - c, b.busiest_share(s, b.thread_cpu_ns())]))"
    )
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run(
        [sys.executable, "-c", code, os.path.dirname(os.path.abspath(__file__))],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    wall, cpu, share = json.loads(
        out.strip().splitlines()[-1]
    )  # the last line: a build may print before it
    return wall, cpu, share


def thread_cpu_ns() -> dict[str, int]:
    """On-CPU nanoseconds of every thread of this process (Linux schedstat)."""
    out = {}
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/schedstat") as f:
                out[task] = int(f.read().split()[0])
        except OSError:  # the thread ended
            pass
    return out


def busiest_share(before: dict[str, int], after: dict[str, int]) -> float:
    used = [after[t] - before.get(t, 0) for t in after]
    return max(used) / max(sum(used), 1)


Timing = tuple[float, float, float]  # wall, CPU, busiest thread's share of the CPU


def measure(call: Callable[[int], Any], repeat: int) -> dict[int, Timing]:
    """Median (wall, CPU, busiest share) per thread count, the counts interleaved after a warm-up call each."""
    for t in (1, 2):
        call(t)
    samples: dict[int, list[Timing]] = {1: [], 2: []}
    for _ in range(repeat):
        for t in (1, 2):
            threads = thread_cpu_ns()
            w, c = time.perf_counter(), time.process_time()
            call(t)
            wall, cpu = time.perf_counter() - w, time.process_time() - c
            samples[t].append((wall, cpu, busiest_share(threads, thread_cpu_ns())))
    return {t: medians(v) for t, v in samples.items()}


def medians(samples: list[Timing]) -> Timing:
    return (
        statistics.median(s[0] for s in samples),
        statistics.median(s[1] for s in samples),
        statistics.median(s[2] for s in samples),
    )


def measure_children(repeat: int) -> dict[int, Timing]:
    """measure() for the core cell loop, each sample a fresh child process."""
    samples: dict[int, list[Timing]] = {1: [], 2: []}
    for _ in range(repeat):
        for t in (1, 2):
            samples[t].append(child_times(t))
    return {t: medians(v) for t, v in samples.items()}


def row(name: str, what: str, m: dict[int, Timing]) -> str:
    (w1, c1, _), (w2, c2, busiest) = m[1], m[2]
    return (
        f"| {name} | {what} | {w1:.3f} s | {w2:.3f} s | {w1 / w2:.2f}x | {c1:.3f} s | {c2:.3f} s | "
        f"{c2 / w2:.2f} | {c2 / c1:.2f} | {busiest:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    print(
        "| function | public entry; driver | wall 1T | wall 2T | speedup | CPU 1T | CPU 2T | cores (2T) | overhead "
        "| busiest |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (what, call) in workloads(args.scale).items():
        if args.only and name not in args.only:
            continue
        print(row(name, what, measure(call, args.repeat)), flush=True)
    if not args.only or "pld_subsampled_gaussian" in args.only:
        print(
            row(
                "pld_subsampled_gaussian",
                "pld.subsampled_gaussian; the core's cell loop (OMP_NUM_THREADS)",
                measure_children(args.repeat),
            ),
            flush=True,
        )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
