"""Benchmark sizes: short by default (CI smoke run), full with HOCKEYSTICK_BENCH_FULL=1.

Run the real measurement with
    HOCKEYSTICK_BENCH_FULL=1 pytest bench --benchmark-enable --benchmark-only
CI runs ``pytest`` (tests and bench) with --benchmark-disable: each benchmark body
runs once at the short size, as a smoke test, with no timing assertion.
"""

from __future__ import annotations

import os

import pytest

FULL = os.environ.get("HOCKEYSTICK_BENCH_FULL") == "1"


def pick(full: int, short: int) -> int:
    """The problem size for this run: ``full`` when measuring, ``short`` in CI."""
    return full if FULL else short


@pytest.fixture
def size():
    return pick
