"""Warm answers beside the compiled rival and dp_accounting: the README run, DP-FedAvg at small delta, and a grid.

    python bench/compare_rivals.py [--repeats 7] [--out FILE.json] [--readme]

One process imports the three libraries (``readme_runs``: each through its documented door; a library that is
not installed is skipped, with the reason) and answers each workload once, untimed (the warm-up: imports,
first-call caches); then ``--repeats`` rounds, each library once per round in a rotated order, every call on
fresh objects (a new run, accountant or PLD), timed in CPU seconds of the process (all threads: opake-accounting's
and the OpenMP ones; one OpenMP thread unless OMP_NUM_THREADS says otherwise).  Reported per workload and library:
the median CPU seconds and the median over the rounds of the paired ratio to hockeystick's, with the load average.

Workloads: the README DP-SGD run's epsilon at delta = 1e-5 and at 1e-10; DP-FedAvg (z 1, q 1e-3, 5000 rounds) at
delta = 1e-10; a grid of 18 runs, noise multiplier {0.8, 1.1, 2} x sampling rate {1e-3, 256/60000, 1e-2} x steps
{1000, 14 100} at delta = 1e-5 (hockeystick broadcasts one call over the grid; the rivals loop).  hockeystick
answers its certified upper side (the default call); its certified bracket (``bound="both"``, untimed) is the
check of every rival answer: each is reported inside, above, or below the certified lower side (an epsilon that
understates the true one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

os.environ.setdefault(
    "OMP_NUM_THREADS", "1"
)  # per-core figures, as bench/run.py's (before the core loads)
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from readme_runs import FEDAVG_RUN, README_RUN, Run, load_opake  # noqa: E402
from results import cpu_id, machine  # noqa: E402

GRID_NOISE, GRID_RATE, GRID_STEPS = [0.8, 1.1, 2.0], [1e-3, 256 / 60_000, 1e-2], [1000, 14_100]
WORKLOADS: dict[str, tuple[list[Run], float]] = {
    "README run, delta 1e-5": ([README_RUN], 1e-5),
    "README run, delta 1e-10": ([README_RUN], 1e-10),
    "DP-FedAvg, delta 1e-10": ([FEDAVG_RUN], 1e-10),
    "grid of 18 runs, delta 1e-5": (
        [
            Run(f"z {z}, q {q:.3g}, {t} steps", z, q, t)
            for z in GRID_NOISE
            for q in GRID_RATE
            for t in GRID_STEPS
        ],
        1e-5,
    ),
}
HOCKEYSTICK, OPAKE, DP_ACCOUNTING = "hockeystick", "opake-accounting 0.16.1", "dp_accounting"


def hockeystick_answers(runs: list[Run], delta: float, bound: str = "upper") -> np.ndarray:
    """hockeystick's certified epsilon of each run (one broadcast call); bound="both": rows (lower, upper)."""
    from hockeystick.training import DPSGD

    z, q, t = (
        np.array([getattr(r, k) for r in runs])
        for k in ("noise_multiplier", "sample_rate", "steps")
    )
    if len(runs) == 1:
        z, q, t = z[0], q[0], t[0]
    out = DPSGD(noise_multiplier=z, sample_rate=q, steps=t).epsilon(delta, bound=bound)
    return np.reshape(
        np.asarray(out, dtype=float), (2, len(runs)) if bound == "both" else (len(runs),)
    )


def rivals() -> dict[str, Callable[[list[Run], float], np.ndarray] | str]:
    """Each library's answer function, or why it is skipped."""
    out: dict[str, Callable[[list[Run], float], np.ndarray] | str] = {
        HOCKEYSTICK: hockeystick_answers
    }
    try:
        opake = load_opake()
    except ImportError as exc:  # installed, but its compiled module does not load here
        opake, failed = None, f"opake-accounting's compiled module does not load: {exc}"
    else:
        failed = ""
    if failed:
        out[OPAKE] = failed
    elif opake is None:
        out[OPAKE] = (
            "opake-accounting is not installed (pip install opake-accounting==0.16.1; its wheels: CPython 3.11 to 3.13, manylinux x86-64)"
        )
    else:

        def opake_answers(runs: list[Run], delta: float) -> np.ndarray:
            return np.array(
                [
                    opake.poisson_pld(
                        opake.gaussian_pld(r.noise_multiplier, opake.DiscretizationConfig()),
                        r.sample_rate,
                    )
                    .self_compose(r.steps)
                    .epsilon_at(delta)
                    for r in runs
                ]
            )

        out[OPAKE] = opake_answers
    try:
        import dp_accounting
    except ImportError:
        out[DP_ACCOUNTING] = "dp_accounting is not installed (pip install dp_accounting)"
    else:

        def dp_accounting_answers(runs: list[Run], delta: float) -> np.ndarray:
            answers = []
            for r in runs:
                accountant = dp_accounting.pld.PLDAccountant()
                event = dp_accounting.GaussianDpEvent(r.noise_multiplier)
                accountant.compose(
                    dp_accounting.PoissonSampledDpEvent(r.sample_rate, event), r.steps
                )
                answers.append(accountant.get_epsilon(delta))
            return np.array(answers)

        out[DP_ACCOUNTING] = dp_accounting_answers
    return out


def _where(value: float, low: float, high: float) -> str:
    return (
        "below the certified lower side" if value < low else "inside" if value <= high else "above"
    )


def measure(repeats: int) -> dict[str, Any]:
    libraries = rivals()
    answer = {name: f for name, f in libraries.items() if not isinstance(f, str)}
    names = list(answer)
    out: dict[str, Any] = {}
    for workload, (runs, delta) in WORKLOADS.items():
        values = {name: answer[name](runs, delta) for name in names}  # the warm-up
        cpu: dict[str, list[float]] = {name: [] for name in names}
        for r in range(repeats):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                start = time.process_time()
                answer[name](runs, delta)
                cpu[name].append(time.process_time() - start)
        low, high = hockeystick_answers(runs, delta, bound="both")
        row: dict[str, Any] = {
            "runs": [r.name for r in runs],
            "delta": delta,
            "bracket": [low.tolist(), high.tolist()],
        }
        for name in libraries:
            if name not in answer:
                row[name] = {"skipped": libraries[name]}
                continue
            ratios = [c / h for c, h in zip(cpu[name], cpu[HOCKEYSTICK], strict=True)]
            places = [
                _where(v, lo, hi)
                for v, lo, hi in zip(values[name].tolist(), low, high, strict=True)
            ]
            row[name] = {
                "cpu_median": statistics.median(cpu[name]),
                "cpu": cpu[name],
                "cpu_over_hockeystick_median": statistics.median(ratios),
                "epsilon": values[name].tolist(),
                "against the bracket": {p: places.count(p) for p in sorted(set(places))},
                "below": [
                    {
                        "run": runs[i].name,
                        "epsilon": float(values[name][i]),
                        "certified_lower": float(low[i]),
                    }
                    for i, p in enumerate(places)
                    if p.startswith("below")
                ],
            }
        out[workload] = row
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
        "--repeats", type=int, default=7, help="timed rounds per workload (default 7)"
    )
    parser.add_argument("--out", help="the JSON file (default bench/results/<time>-rivals.json)")
    parser.add_argument(
        "--readme", action="store_true", help="rewrite the generated table in bench/README.md"
    )
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    started = datetime.now(timezone.utc)
    results = measure(args.repeats)
    load_after = os.getloadavg()
    print(
        f"warm answers, {args.repeats} rounds; {cpu_id()}, {os.cpu_count()} cores; "
        f"load {load_before[0]:.2f} -> {load_after[0]:.2f}"
    )
    for workload, row in results.items():
        print(workload)
        for name, cell in row.items():
            if not isinstance(cell, dict):
                continue
            if "skipped" in cell:
                print(f"  {name:26} skipped: {cell['skipped']}")
                continue
            print(
                f"  {name:26} {cell['cpu_median'] * 1e3:9.1f} ms CPU  x{cell['cpu_over_hockeystick_median']:.2f} "
                f"hockeystick's  against the bracket: {cell['against the bracket']}"
            )
    record = {
        "started": started.isoformat(timespec="seconds"),
        "machine": {
            **machine(Path(__file__).resolve().parent.parent),
            "versions": {
                p: _version(p)
                for p in ("hockeystick", "numpy", "opake-accounting", "dp-accounting")
            },
        },
        "cpu": cpu_id(),
        "cores": os.cpu_count(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "load_before": load_before,
        "load_after": load_after,
        "repeats": args.repeats,
        "results": results,
    }
    path = (
        Path(args.out)
        if args.out
        else Path(__file__).parent / "results" / f"{started:%Y%m%dT%H%M%S}-rivals.json"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1))
    print(f"stored {path}")
    if args.readme:
        from rival_tables import render_warm
        from tables import update_readme

        update_readme({"rivals/warm": render_warm(record)})
        print("rewrote the warm-answer table of bench/README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
