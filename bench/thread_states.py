"""Where a call's threads spend its wall time: on a core, runnable but waiting for one, or asleep.

A busy ratio (process CPU over wall) mixes two causes of a thread not running: the machine's other
processes holding the cores (the thread is runnable, queued) and the thread waiting on something of
its own (asleep: the interpreter lock, a lock, an idle pool thread with no unit left).  Only the
second is the code's.  Linux keeps both per thread in /proc/self/task/<tid>/schedstat (nanoseconds
on a core, nanoseconds runnable on a run queue; Documentation/scheduler/sched-stats.rst), so
``thread_states`` samples every thread of the process while the call runs and reports, over the
threads the call started (a pool's workers), time on a core, time queued, and the rest of their
lifetime asleep.  On free cores the queued time would run, so the busy ratio the call would reach
there is about on_core / (on_core + asleep) per thread, summed over the threads.

The sampler reads each thread's counters every ``interval`` seconds, and takes a thread's lifetime
from its first to its last sighting: up to ``interval`` of each end of a thread is missed (its time on
a core there uncounted, its lifetime short by as much), small beside a pool worker's seconds.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class ThreadStates:
    """Seconds summed over the threads a call started: on a core, runnable and queued, asleep."""

    threads: int
    on_core: float
    queued: float
    asleep: float

    def free_busy(self) -> float:
        """The busy ratio on free cores: each thread's queued time run, its sleep kept (summed
        over threads of one lifetime each, as the call's pool workers live)."""
        alive = self.on_core + self.asleep
        return 0.0 if alive <= 0.0 else self.threads * self.on_core / alive

    def describe(self) -> str:
        return (
            f"{self.threads} threads: {self.on_core:.1f} s on a core, {self.queued:.1f} s queued "
            f"for one (others' load), {self.asleep:.1f} s asleep (interpreter lock, locks, no work "
            f"left); on free cores busy ~{self.free_busy():.2f}x"
        )


def _counters() -> dict[str, tuple[float, float]]:
    """(seconds on a core, seconds queued) of every thread of this process."""
    out = {}
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/schedstat") as f:
                run, queued = f.read().split()[:2]
        except OSError:  # the thread ended
            continue
        out[task] = (int(run) * 1e-9, int(queued) * 1e-9)
    return out


def thread_states(call: Callable[[], T], interval: float = 0.05) -> tuple[T, ThreadStates]:
    """``call()``'s result and the states of the threads it started, sampled every ``interval``
    seconds (each counter's latest reading and when each thread was first and last seen)."""
    before = set(_counters())
    seen: dict[str, tuple[float, float]] = {}
    span: dict[str, list[float]] = {}
    done = threading.Event()

    def sample() -> None:
        own = str(threading.get_native_id())
        while True:
            now = time.perf_counter()
            for task, counters in _counters().items():
                if task not in before and task != own:
                    seen[task] = counters
                    span.setdefault(task, [now, now])[1] = now
            if done.wait(interval):
                return

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        result = call()
    finally:
        done.set()
        sampler.join()
    on_core = sum(run for run, _ in seen.values())
    queued = sum(q for _, q in seen.values())
    lived = sum(last - first for first, last in span.values())
    return result, ThreadStates(len(seen), on_core, queued, max(lived - on_core - queued, 0.0))
