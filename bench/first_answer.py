"""Time to a first answer: cold, each in a fresh Python process, hockeystick beside opake-accounting and dp_accounting.

    python bench/first_answer.py [--repeats 9] [--out FILE.json] [--readme]

Each case is a fresh interpreter (this one's executable, not a version manager's shim) running one small
program, its bytecode read from a private cache as an installed wheel's is (``readme_runs.fresh_process_env``).
The cases run in rounds, every round running each case once in a new order (a rotation), so that the libraries see
the same load; one warm-up round first (the page cache holds every file, and the bytecode is compiled, as after an
install).  Each child is reaped with ``wait4``, so its CPU seconds (user + system, threads included) are the
kernel's own, to the microsecond.  The cases (``readme_runs``: the README run and each library's door):

- ``python: start``: ``pass``, the interpreter alone
- ``numpy: import``: ``import numpy``, the floor every numpy-based answer pays
- ``hockeystick: import DPSGD``: ``from hockeystick.training import DPSGD``
- ``hockeystick: theta``: ``import hockeystick; hockeystick.theta(1.0, 1.0)``
- ``hockeystick: first epsilon``: the README's call, ``DPSGD(noise_multiplier=1.1, sample_rate=256 / 60_000,
  steps=14_100).epsilon(1e-5)``, printed
- ``hockeystick epsilon (CLI)``: the README's command line for the same run, through the installed script
- ``hockeystick epsilon --delta 0 (CLI)``: the same command refused for its delta (exit status 2)
- ``opake-accounting: first epsilon``: the same run through opake-accounting's compiled module (loaded from
  its file, as its documentation's factory calls it), printed
- ``dp_accounting: import`` and ``dp_accounting: first epsilon``: the same run through its PLD accountant

Reported per case: the median and least wall seconds and the median CPU seconds; then, round by round, the
paired CPU ratios (hockeystick's first epsilon, and the command line's, over opake-accounting's and
dp_accounting's) and the command line's CPU seconds beyond the library's, each as the median over the rounds
with its range.  Each rival's printed epsilon is set beside hockeystick's certified bracket (``bound="both"``).
A case whose library is missing is reported as skipped, with the reason.  ``--readme`` rewrites the
generated table in bench/README.md.  The JSON file (default ``bench/results/<time>-first-answer.json``) holds
every sample.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from readme_runs import (  # noqa: E402
    README_RUN,
    dp_accounting_code,
    fresh_process_env,
    hockeystick_code,
    opake_code,
    opake_module_path,
    python,
)
from results import cpu_id, machine  # noqa: E402

DELTA = 1e-5
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
OURS, COMMAND_LINE, OPAKE, DP_ACCOUNTING = (
    "hockeystick: first epsilon",
    "hockeystick epsilon (CLI)",
    "opake-accounting: first epsilon",
    "dp_accounting: first epsilon",
)
# (numerator, denominator): CPU ratios taken round by round
RATIOS = [(OURS, OPAKE), (COMMAND_LINE, OPAKE), (OURS, DP_ACCOUNTING)]


def _available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def cases() -> dict[str, list[str] | str]:
    """Each case's command line, or why it is skipped."""
    out: dict[str, list[str] | str] = {
        "python: start": [python(), "-c", "pass"],
        "numpy: import": [python(), "-c", "import numpy"],
        "hockeystick: import DPSGD": [python(), "-c", "from hockeystick.training import DPSGD"],
        "hockeystick: theta": [python(), "-c", "import hockeystick; hockeystick.theta(1.0, 1.0)"],
        OURS: [python(), "-c", hockeystick_code(README_RUN, DELTA)],
    }
    script = shutil.which(
        "hockeystick", path=os.path.dirname(python()) + os.pathsep + os.environ["PATH"]
    )
    missing_script = "the hockeystick script is not installed beside this interpreter"
    out[COMMAND_LINE] = [script, *CLI, repr(DELTA)] if script else missing_script
    out["hockeystick epsilon --delta 0 (CLI)"] = [script, *CLI, "0"] if script else missing_script
    opake = opake_module_path()
    out[OPAKE] = (
        [python(), "-c", opake_code(README_RUN, DELTA, opake)]
        if opake
        else "opake-accounting is not installed (pip install opake-accounting==0.16.1; its wheels: CPython 3.11 to 3.13, manylinux x86-64)"
    )
    if _available("dp_accounting"):
        out["dp_accounting: import"] = [python(), "-c", "import dp_accounting"]
        out[DP_ACCOUNTING] = [python(), "-c", dp_accounting_code(README_RUN, DELTA)]
    else:
        out["dp_accounting: import"] = out[DP_ACCOUNTING] = (
            "dp_accounting is not installed (pip install dp_accounting)"
        )
    return out


def _once(argv: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall and CPU seconds (user + system of the child, from wait4), exit status and output of one cold run."""
    start = time.perf_counter()
    child = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True
    )
    assert child.stdout is not None
    printed = child.stdout.read()
    _, status, used = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    child.stdout.close()
    return wall, used.ru_utime + used.ru_stime, child.returncode, printed


def measure(repeats: int) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Every case's samples (rounds of rotated order after one warm-up round), and each case's last output."""
    env = fresh_process_env()
    todo = {name: argv for name, argv in cases().items() if isinstance(argv, list)}
    names = list(todo)
    printed = {name: _once(todo[name], env)[3] for name in names}  # the warm-up round
    samples: dict[str, list[tuple[float, float, int]]] = {name: [] for name in names}
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            wall, cpu, code, printed[name] = _once(todo[name], env)
            samples[name].append((wall, cpu, code))
    out: dict[str, dict[str, Any]] = {}
    for name, argv in cases().items():
        if isinstance(argv, str):
            out[name] = {"skipped": argv}
            continue
        walls, cpus, codes = zip(*samples[name])
        out[name] = {
            "wall_median": statistics.median(walls),
            "wall_min": min(walls),
            "cpu_median": statistics.median(cpus),
            "exit_status": sorted(set(codes)),
            "samples": samples[name],
        }
    return out, printed


def paired(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Round-by-round CPU ratios (median, least, largest) and the command line's CPU beyond the library's."""
    out: dict[str, dict[str, float]] = {}
    cpu = {
        name: [s[1] for s in row["samples"]] for name, row in results.items() if "samples" in row
    }
    for a, b in RATIOS:
        if a in cpu and b in cpu:
            r = [x / y for x, y in zip(cpu[a], cpu[b], strict=True)]
            out[f"{a} / {b}"] = {"median": statistics.median(r), "min": min(r), "max": max(r)}
    if COMMAND_LINE in cpu and OURS in cpu:
        d = [x - y for x, y in zip(cpu[COMMAND_LINE], cpu[OURS], strict=True)]
        out[f"{COMMAND_LINE} - {OURS} (CPU seconds)"] = {
            "median": statistics.median(d),
            "min": min(d),
            "max": max(d),
        }
    return out


def checked(printed: dict[str, str]) -> dict[str, Any]:
    """hockeystick's certified bracket of the run at DELTA, and each rival's printed epsilon against it."""
    from hockeystick.training import DPSGD

    low, high = DPSGD(
        noise_multiplier=README_RUN.noise_multiplier,
        sample_rate=README_RUN.sample_rate,
        steps=README_RUN.steps,
    ).epsilon(DELTA, bound="both")
    out: dict[str, Any] = {"hockeystick bracket": [float(low), float(high)]}
    for name in (OURS, OPAKE, DP_ACCOUNTING):
        if name in printed:
            value = float(printed[name].split()[-1])
            where = (
                "below the certified lower side"
                if value < low
                else "inside"
                if value <= high
                else "above"
            )
            out[name] = {"epsilon": value, "against the bracket": where}
    return out


def _version(package: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=int, default=9, help="rounds of cold runs (default 9; at least 7)"
    )
    parser.add_argument(
        "--out", help="the JSON file (default bench/results/<time>-first-answer.json)"
    )
    parser.add_argument(
        "--readme", action="store_true", help="rewrite the generated table in bench/README.md"
    )
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    started = datetime.now(timezone.utc)
    results, printed = measure(args.repeats)
    load_after = os.getloadavg()
    ratios, answers = paired(results), checked(printed)
    print(
        f"cold first answers, {args.repeats} rounds of fresh processes; {cpu_id()}, {os.cpu_count()} cores; "
        f"load {load_before[0]:.2f} -> {load_after[0]:.2f}"
    )
    print(f"{'case':40} {'wall median':>12} {'wall min':>9} {'CPU median':>11}")
    for name, row in results.items():
        if "skipped" in row:
            print(f"{name:40} skipped: {row['skipped']}")
        else:
            print(
                f"{name:40} {row['wall_median']:11.3f}s {row['wall_min']:8.3f}s {row['cpu_median']:10.3f}s"
            )
    for name, r in ratios.items():
        print(f"{name}: median {r['median']:.3f} (range {r['min']:.3f} to {r['max']:.3f})")
    for name, a in answers.items():
        print(f"{name}: {a}")
    record = {
        "started": started.isoformat(timespec="seconds"),
        "machine": {
            **machine(Path(__file__).resolve().parent.parent),
            "versions": {
                p: _version(p)
                for p in ("hockeystick", "numpy", "opake-accounting", "dp-accounting")
            },
        },
        "python": sys.version.split()[0],
        "cpu": cpu_id(),
        "cores": os.cpu_count(),
        "load_before": load_before,
        "load_after": load_after,
        "repeats": args.repeats,
        "results": results,
        "paired": ratios,
        "answers": answers,
    }
    path = (
        Path(args.out)
        if args.out
        else Path(__file__).parent / "results" / f"{started:%Y%m%dT%H%M%S}-first-answer.json"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1))
    print(f"stored {path}")
    if args.readme:
        from rival_tables import render_first_answer
        from tables import update_readme

        update_readme({"rivals/first-answer": render_first_answer(record)})
        print("rewrote the first-answer table of bench/README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
