"""Time to a first answer: cold, each in a fresh Python process, hockeystick beside dp_accounting in one run.

    python bench/first_answer.py [--repeats 7] [--out FILE.json]

Each case is a fresh interpreter (``sys.executable``) running one small program; the cases are run in
rounds, every round running each case once in a new order (a rotation), so that both libraries see the
same load. Reported per case: the median and least wall seconds, the median CPU seconds (user + system
of the child, threads included) and the load average before and after. The cases:

- ``hockeystick: import DPSGD``: ``from hockeystick.training import DPSGD``
- ``hockeystick: theta``: ``import hockeystick; hockeystick.theta(1.0, 1.0)``
- ``hockeystick: first epsilon``: the DP-SGD run of the README (60000 records, batches of 256, 60 epochs,
  noise multiplier 1.1) and its epsilon at delta = 1e-5, from the import on
- ``hockeystick epsilon (CLI)``: the README's command line for the same run, through the installed script
- ``hockeystick epsilon --delta 0 (CLI)``: the same command refused for its delta (exit status 2)
- ``dp_accounting: import``: ``import dp_accounting``
- ``dp_accounting: first epsilon``: the same run (Poisson-subsampled Gaussian, 14100 steps at rate
  256 / 60000) through dp_accounting's PLD accountant, from the import on

A case whose library is missing is reported as skipped. The JSON file (default
``bench/results/<time>-first-answer.json``) holds every sample.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

RUN = {"noise_multiplier": 1.1, "sample_rate": 256 / 60000, "steps": 60 * (60000 // 256 + 1), "delta": 1e-5}
CLI = [
    "epsilon",
    "--noise-multiplier",
    "1.1",
    "--sample-rate",
    "0.0042667",
    "--steps",
    "14100",
    "--delta",
]

PYTHON_CASES = {
    "hockeystick: import DPSGD": ("hockeystick", "from hockeystick.training import DPSGD"),
    "hockeystick: theta": ("hockeystick", "import hockeystick; hockeystick.theta(1.0, 1.0)"),
    "hockeystick: first epsilon": (
        "hockeystick",
        "from hockeystick.training import DPSGD\n"
        "print(DPSGD(dataset_size=60000, batch_size=256, epochs=60, noise_multiplier=1.1).epsilon(1e-5))",
    ),
    "dp_accounting: import": ("dp_accounting", "import dp_accounting"),
    "dp_accounting: first epsilon": (
        "dp_accounting",
        "import dp_accounting\n"
        f"event = dp_accounting.PoissonSampledDpEvent({RUN['sample_rate']!r}, "
        f"dp_accounting.GaussianDpEvent({RUN['noise_multiplier']!r}))\n"
        "accountant = dp_accounting.pld.PLDAccountant()\n"
        f"accountant.compose(event, {RUN['steps']})\n"
        f"print(accountant.get_epsilon({RUN['delta']!r}))",
    ),
}


def _available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def cases() -> dict[str, list[str] | None]:
    """Each case's command line (None: its library is not installed)."""
    out: dict[str, list[str] | None] = {}
    for name, (module, code) in PYTHON_CASES.items():
        out[name] = [sys.executable, "-c", code] if _available(module) else None
    script = shutil.which("hockeystick", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    out["hockeystick epsilon (CLI)"] = [script, *CLI, "1e-5"] if script else None
    out["hockeystick epsilon --delta 0 (CLI)"] = [script, *CLI, "0"] if script else None
    return out


def _once(argv: list[str]) -> tuple[float, float, int]:
    """Wall and CPU seconds (user + system of the child) and the exit status of one cold run."""
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu, done.returncode


def measure(repeats: int) -> dict[str, dict[str, object]]:
    todo = {name: argv for name, argv in cases().items() if argv is not None}
    samples: dict[str, list[tuple[float, float, int]]] = {name: [] for name in todo}
    names = list(todo)
    for name in names:  # one warm-up each: the page cache holds every file, as after an install
        _once(todo[name])
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            samples[name].append(_once(todo[name]))
    out: dict[str, dict[str, object]] = {}
    for name in cases():
        if name not in samples:
            out[name] = {"skipped": "library not installed"}
            continue
        walls, cpus, codes = zip(*samples[name])
        out[name] = {
            "wall_median": statistics.median(walls),
            "wall_min": min(walls),
            "cpu_median": statistics.median(cpus),
            "exit_status": sorted(set(codes)),
            "samples": samples[name],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="cold runs per case (default 7)")
    parser.add_argument("--out", help="the JSON file (default bench/results/<time>-first-answer.json)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    started = datetime.now(timezone.utc)
    results = measure(args.repeats)
    load_after = os.getloadavg()
    print(f"cold first answers, {args.repeats} fresh processes each; load {load_before[0]:.2f} -> {load_after[0]:.2f}")
    print(f"{'case':40} {'wall median':>12} {'wall min':>9} {'CPU median':>11}")
    for name, row in results.items():
        if "skipped" in row:
            print(f"{name:40} skipped: {row['skipped']}")
        else:
            print(f"{name:40} {row['wall_median']:11.3f}s {row['wall_min']:8.3f}s {row['cpu_median']:10.3f}s")
    record = {
        "started": started.isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "machine": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "load_before": load_before,
        "load_after": load_after,
        "repeats": args.repeats,
        "results": results,
    }
    path = (
        Path(args.out) if args.out else Path(__file__).parent / "results" / f"{started:%Y%m%dT%H%M%S}-first-answer.json"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1))
    print(f"stored {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
