"""thread_states tells a thread that sleeps from one that computes, over the threads a call starts."""

from __future__ import annotations

import os
import threading
import time

import pytest
from thread_states import thread_states

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self/task"), reason="per-thread schedstat is Linux's /proc/self/task"
)


def _in_threads(work, n: int) -> None:
    threads = [threading.Thread(target=work) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _spin_then_sleep(seconds: float, used: list[float]) -> None:
    """On a core for ``seconds`` of the thread's CPU clock, then asleep as long (the sampler then
    reads the thread's final counters)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
    used.append(time.thread_time())
    time.sleep(seconds)


def test_a_sleeping_thread_is_asleep_and_a_spinning_one_on_a_core() -> None:
    result, asleep = thread_states(lambda: _in_threads(lambda: time.sleep(0.3), 1) or 7, 0.02)
    assert result == 7 and asleep.threads == 1
    assert asleep.asleep > 0.2 and asleep.on_core < 0.05
    assert asleep.free_busy() < 0.2
    used: list[float] = []
    _, both = thread_states(lambda: _in_threads(lambda: _spin_then_sleep(0.15, used), 1), 0.02)
    # on a core as long as the thread's own CPU clock says; asleep about as long
    assert both.threads == 1 and abs(both.on_core - used[0]) < 0.01
    assert 0.08 < both.asleep < 0.3 and 0.3 < both.free_busy() < 0.8
    assert "busy ~" in both.describe()


def test_threads_alive_before_the_call_are_left_out() -> None:
    stop = threading.Event()
    outside = threading.Thread(target=stop.wait)
    outside.start()
    try:
        _, states = thread_states(lambda: _in_threads(lambda: time.sleep(0.1), 2), 0.02)
    finally:
        stop.set()
        outside.join()
    assert states.threads == 2
