"""Ratio benchmarks: hockeystick against its anchor, declared beside the workload, measured by run.py.

A ratio benchmark is a function of the size ("short": the CI gate's sizes; "full": the
README's) that builds its inputs once and returns a :class:`Pair`: hockeystick's call and
the anchor's call (zero-argument callables), how many items each handles per call, and an
optional check that the two agree.  The figure of merit is the per-item speed-up

    ratio = (anchor seconds / anchor items) / (hockeystick seconds / hockeystick items),

above 1 when hockeystick is faster.  Ratios, not times, are what the gate compares: both
sides run in the same process, interleaved, so a uniformly slower machine moves both.

Declare one in any ``bench/bench_*.py`` file (bench/run.py imports them all)::

    @ratio("theta_1thread", title="theta, 1 thread", anchor="scipy naive formula", table="theta",
           unit="points", clock="cpu", goal=5.0)
    def theta_1thread(size: Size) -> Pair:
        r, eps = typical_points(10_000_000 if size == "full" else 200_000)
        return Pair(ours=lambda: hs.theta(r, eps, threads=1), anchor=lambda: naive_theta(r, eps),
                    ours_items=r.size, anchor_items=r.size)

``clock="cpu"`` times the process's CPU time (all threads; the ratio is then per core and
barely moves with other processes' load), ``"wall"`` the elapsed time, ``"process"`` the CPU time
of the child processes a call starts and waits for (whole processes: interpreter start, imports
and answer; ``getrusage(RUSAGE_CHILDREN)``, microseconds).  ``goal`` is the
speed-up the README promises at the full size (reported, never gated).  ``table`` names the
generated block of bench/README.md the row goes to.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Size = Literal["short", "full"]
Clock = Literal["cpu", "wall", "process"]

__all__ = ["Pair", "RatioBenchmark", "REGISTRY", "ratio", "discover", "Size", "Clock"]


@dataclass(frozen=True)
class Pair:
    """The two calls a ratio benchmark times, on inputs built once.

    ``check(ours_result, anchor_result)`` raises AssertionError when the two disagree
    beyond what the benchmark tolerates (run once per measurement, outside the timing).
    """

    ours: Callable[[], Any]
    anchor: Callable[[], Any]
    ours_items: float = 1.0
    anchor_items: float = 1.0
    check: Callable[[Any, Any], None] | None = None


@dataclass(frozen=True)
class RatioBenchmark:
    """A declared benchmark: its name (the gate's key), what it measures and how to build it."""

    name: str
    title: str
    anchor: str
    table: str
    unit: str
    clock: Clock
    goal: float | None
    build: Callable[[Size], Pair]

    @property
    def origin(self) -> str:
        """module:function that declared it."""
        return f"{self.build.__module__}:{self.build.__qualname__}"


REGISTRY: dict[str, RatioBenchmark] = {}


def ratio(
    name: str,
    *,
    title: str,
    anchor: str,
    table: str,
    unit: str = "calls",
    clock: Clock = "cpu",
    goal: float | None = None,
) -> Callable[[Callable[[Size], Pair]], Callable[[Size], Pair]]:
    """Register the decorated builder as the ratio benchmark ``name`` (see the module docstring)."""
    if clock not in ("cpu", "wall", "process"):
        raise ValueError(f"clock must be 'cpu', 'wall' or 'process', got {clock!r}")

    def register(build: Callable[[Size], Pair]) -> Callable[[Size], Pair]:
        bench = RatioBenchmark(name, title, anchor, table, unit, clock, goal, build)
        previous = REGISTRY.get(name)
        if previous is not None and previous.origin != bench.origin:
            raise ValueError(
                f"ratio benchmark {name!r} is declared twice: {previous.origin} and {bench.origin}; "
                "give one of them another name"
            )
        REGISTRY[name] = bench
        return build

    return register


def discover() -> dict[str, RatioBenchmark]:
    """Import every bench/bench_*.py (bench/ must be on sys.path) so that their declarations register."""
    for path in sorted(Path(__file__).resolve().parent.glob("bench_*.py")):
        importlib.import_module(path.stem)
    return REGISTRY
