"""Interleaved, warm timing of one ratio benchmark: medians of per-pair speed-ups.

Protocol (bench/README.md, "How the ratios are measured"):

1. Build the inputs; call hockeystick's side once and the anchor once (the cold, first
   calls: page faults on fresh temporaries, lazy imports, numba compilation).  Those
   times are reported separately and never enter the ratio.
2. Then pairs: both sides once each, the order alternating from pair to pair (ABBA…), each
   timed with the garbage collector off.  The faster side is called k times in a row within
   its half of the pair (k = the time ratio of one warm call of each, made after the cold
   ones, at most 32: a cold call can carry a lazy import that no later call pays) and its time divided by
   k, so both halves of a pair last about as long and see the same neighbours.  Pair i
   gives the per-item speed-up r_i = (anchor_i / anchor_items) / (ours_i / ours_items); a
   noisy neighbour slowing one pair slows both of its halves, so r_i moves far less than
   either time.
3. The reported ratio is the median of the r_i; its spread the quartiles, min and max and a
   distribution-free 95 % confidence interval of the median (order statistics n/2 ± 0.98√n,
   i.e. the binomial sign-test interval).  Pairs are added until that interval's half-width
   is within ``target`` of the median (at least ``min_pairs``, at most ``max_pairs`` pairs,
   and no new pair once ``budget`` seconds are spent, after at least one warm pair).
"""

from __future__ import annotations

import gc
import math
import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from ratio import Pair, RatioBenchmark, Size

__all__ = ["Effort", "SHORT_EFFORT", "FULL_EFFORT", "measure", "median_interval", "steady_heap"]


@dataclass(frozen=True)
class Effort:
    """How hard to try: pair counts, the time budget (seconds) and the target relative half-width."""

    min_pairs: int
    max_pairs: int
    budget: float
    target: float


SHORT_EFFORT = Effort(min_pairs=9, max_pairs=61, budget=3.0, target=0.02)
FULL_EFFORT = Effort(min_pairs=3, max_pairs=15, budget=60.0, target=0.03)


def steady_heap() -> str:
    """Fix glibc's allocation thresholds so that a warm call's cost does not depend on what ran before.

    By default glibc raises its mmap threshold (up to 32 MiB) each time a large block is
    freed, and returns free memory at the top of the heap to the system: whether a warm call's
    temporaries come back page-faulting then depends on the allocations of earlier benchmarks in
    the process (measured: the sweep-overhead ratio moved from 0.35 to 0.85 with the order of
    benchmarks).  With the mmap threshold fixed at its 32 MiB maximum and trimming off, every
    block below 32 MiB is reused warm, and every larger one is mapped afresh on each call
    (both sides alike), whatever ran before.  Returns what was set, for the run's record.
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = libc.mallopt if libc is not None else None
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        return "allocator defaults (no glibc mallopt)"
    m_trim_threshold, m_mmap_threshold = -1, -3
    # mallopt takes a C int: 2 GiB - 1 is the largest trim threshold it can express
    ok = mallopt(m_mmap_threshold, 32 << 20) == 1 and mallopt(m_trim_threshold, (1 << 31) - 1) == 1
    return (
        "glibc: mmap threshold 32 MiB, no trimming"
        if ok
        else "allocator defaults (mallopt refused)"
    )


def _children_cpu() -> float:
    """CPU seconds (user + system) of every child process this one has waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _clock(kind: str) -> Callable[[], float]:
    return {"cpu": time.process_time, "process": _children_cpu}.get(kind, time.perf_counter)


MAX_REPEAT = 32


def _timed(fn: Callable[[], Any], clock: Callable[[], float], repeat: int = 1) -> tuple[float, Any]:
    """Seconds per call of ``repeat`` back-to-back calls, and the last call's result."""
    gc.collect()
    gc.disable()
    try:
        start = clock()
        for _ in range(repeat):
            out = fn()
        return (clock() - start) / repeat, out
    finally:
        gc.enable()


def _repeats(ours_warm: float, anchor_warm: float) -> tuple[int, int]:
    """Calls per half-pair that make both halves last about as long (from one warm call of each)."""
    if ours_warm <= 0 or anchor_warm <= 0:
        return 1, 1
    k = min(MAX_REPEAT, max(1, round(max(ours_warm, anchor_warm) / min(ours_warm, anchor_warm))))
    return (k, 1) if ours_warm < anchor_warm else (1, k)


def median_interval(values: np.ndarray) -> tuple[float, float]:
    """Distribution-free ~95 % confidence interval of the median: order statistics n/2 ∓ 0.98√n."""
    v = np.sort(np.asarray(values, dtype=float))
    n = v.size
    half = 0.98 * math.sqrt(n)
    lo = max(0, math.floor(n / 2 - half))
    hi = min(n - 1, math.ceil(n / 2 + half) - 1)
    return float(v[lo]), float(v[hi])


def measure(bench: RatioBenchmark, size: Size, effort: Effort) -> dict[str, Any]:
    """Run ``bench`` at ``size`` by the protocol above; a JSON-ready record of the result."""
    load_before = os.getloadavg()
    pair: Pair = bench.build(size)
    clock = _clock(bench.clock)
    ours_first, ours_out = _timed(pair.ours, clock)
    anchor_first, anchor_out = _timed(pair.anchor, clock)
    if pair.check is not None:
        pair.check(ours_out, anchor_out)
    del ours_out, anchor_out
    ours_k, anchor_k = _repeats(_timed(pair.ours, clock)[0], _timed(pair.anchor, clock)[0])
    ours_t: list[float] = []
    anchor_t: list[float] = []
    started = time.perf_counter()
    while len(ours_t) < effort.max_pairs:
        n = len(ours_t)
        if n >= 1 and time.perf_counter() - started > effort.budget:
            break
        if n >= effort.min_pairs:
            ratios = _ratios(pair, ours_t, anchor_t)
            lo, hi = median_interval(ratios)
            if (hi - lo) / 2 <= effort.target * float(np.median(ratios)):
                break
        if n % 2 == 0:
            ours_t.append(_timed(pair.ours, clock, ours_k)[0])
            anchor_t.append(_timed(pair.anchor, clock, anchor_k)[0])
        else:
            anchor_t.append(_timed(pair.anchor, clock, anchor_k)[0])
            ours_t.append(_timed(pair.ours, clock, ours_k)[0])
    ratios = _ratios(pair, ours_t, anchor_t)
    median = float(np.median(ratios))
    lo, hi = median_interval(ratios)
    q1, q3 = (float(q) for q in np.quantile(ratios, [0.25, 0.75]))
    ours_med, anchor_med = float(np.median(ours_t)), float(np.median(anchor_t))
    return {
        "title": bench.title,
        "anchor": bench.anchor,
        "table": bench.table,
        "unit": bench.unit,
        "clock": bench.clock,
        "goal": bench.goal,
        "origin": bench.origin,
        "ratio": median,
        "ratio_ci95": [lo, hi],
        "ratio_quartiles": [q1, q3],
        "ratio_range": [float(ratios.min()), float(ratios.max())],
        "relative_halfwidth": (hi - lo) / 2 / median if median > 0 else math.inf,
        "pairs": len(ours_t),
        "calls_per_pair": [ours_k, anchor_k],
        "ours_items": pair.ours_items,
        "anchor_items": pair.anchor_items,
        "ours_seconds": ours_med,
        "anchor_seconds": anchor_med,
        "ours_items_per_second": pair.ours_items / ours_med if ours_med > 0 else math.inf,
        "anchor_items_per_second": pair.anchor_items / anchor_med if anchor_med > 0 else math.inf,
        "ours_first_seconds": ours_first,
        "anchor_first_seconds": anchor_first,
        "first_call_ratio": (anchor_first / pair.anchor_items) / (ours_first / pair.ours_items)
        if ours_first > 0
        else math.inf,
        "load_average": [load_before[0], os.getloadavg()[0]],
        "seconds_spent": time.perf_counter() - started,
    }


def _ratios(pair: Pair, ours_t: list[float], anchor_t: list[float]) -> np.ndarray:
    ours = np.maximum(np.asarray(ours_t), 1e-9) / pair.ours_items
    anchor = np.asarray(anchor_t) / pair.anchor_items
    return anchor / ours
