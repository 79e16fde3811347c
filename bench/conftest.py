"""Benchmark sizes: short by default (CI smoke run), full with ``--full`` or HOCKEYSTICK_BENCH_FULL=1.

The ratio benchmarks (hockeystick against its anchor, gated in CI, README tables) are
measured by ``python bench/run.py`` (see bench/README.md).  The pytest-benchmark suites
time hockeystick's calls alone:
    pytest bench --full --benchmark-enable --benchmark-only
CI runs ``pytest`` (tests and bench) with --benchmark-disable: each benchmark body
runs once at the short size, as a smoke test, with no timing assertion.
"""

from __future__ import annotations

import os

import pytest

FULL = os.environ.get("HOCKEYSTICK_BENCH_FULL") == "1"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        help="benchmarks at their full sizes (HOCKEYSTICK_BENCH_FULL=1)",
    )


def pytest_configure(config: pytest.Config) -> None:
    global FULL
    if config.getoption("--full"):
        FULL = True
        os.environ["HOCKEYSTICK_BENCH_FULL"] = "1"


def pick(full: int, short: int) -> int:
    """The problem size for this run: ``full`` when measuring, ``short`` in CI."""
    return full if FULL else short


@pytest.fixture
def size():
    return pick
