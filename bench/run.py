"""Measure every declared ratio benchmark, store the run as JSON, gate it or regenerate the README tables.

    python bench/run.py                       # short sizes: print, store bench/results/<time>-short.json
    python bench/run.py --gate                # short sizes against bench/baselines/short.json; exit 1 on a drop
    python bench/run.py --gate --lanes 2      # CI: the same, two benchmarks at a time on its two cores
    python bench/run.py --full                # full sizes (tens of minutes): store, then rewrite bench/README.md's tables
    python bench/run.py --update-baselines    # short sizes: rewrite bench/baselines/short.json (keeps its tolerance)
    python bench/run.py --update-machine-baselines  # short sizes: record this CPU's own baselines (gate.py)
    python bench/run.py --only theta_1thread  # a subset (names: --list)

The benchmarks are the ``@ratio`` declarations of every bench/bench_*.py (see ratio.py);
measure.py says how each is timed.  Under --gate a benchmark below its tolerance is measured
again (``--retries`` times, each with a fresh budget) and fails only if the median of all
its attempts is still below: a noisy neighbour during one attempt does not fail the build,
a real slowdown does (every attempt is slow).

Each benchmark is measured in a fresh Python process (``run.py --child MODULE:NAME SIZE EFFORT``), so
no ratio depends on what ran before it in the same process: the heap's state, imported
libraries and their threads (measured: the sweep-overhead ratio moved from 0.66 alone to
0.89 after the other benchmarks in one process).

Ratios are per core: CPU time, and OMP_NUM_THREADS=1 unless the caller sets it (threads=None
then means one thread).  With two OpenMP threads on the loaded 2-core box the PLD and
stage-wise FedAvg ratios measured about half (presumably libgomp's spin-wait at barriers while
the other thread waits for a core), and by an amount that moves with the load.  Benchmarks that want threads ask
for them explicitly.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("OMP_NUM_THREADS", "1")  # before hockeystick loads OpenMP (see the docstring)

import numpy as np  # noqa: E402
from gate import BASELINES, for_machine, judge  # noqa: E402
from measure import FULL_EFFORT, SHORT_EFFORT, Effort, measure, steady_heap  # noqa: E402
from ratio import REGISTRY, Size, discover  # noqa: E402
from results import SCHEMA, cpu_id, machine, read, utc_now, write  # noqa: E402
from tables import blocks_for_run, render_baselines, update_readme  # noqa: E402

RESULTS = HERE / "results"
EFFORT: dict[str, Effort] = {"short": SHORT_EFFORT, "full": FULL_EFFORT}


def _child(origin: str, size: Size, effort: Effort) -> None:
    """Inside the fresh process: measure one benchmark (``module:name``), print its record as the last line of JSON.

    Only the module that declares it is imported: importing every bench module (the simulator's numba, dask,
    the anchors) cost each child about 3 s of CPU, a minute of the gate's run.
    """
    module, name = origin.split(":")
    heap = steady_heap()
    importlib.import_module(module)
    record = measure(REGISTRY[name], size, effort)
    print(json.dumps({**record, "heap": heap, "effort": dataclasses.asdict(effort)}))


def measure_isolated(name: str, size: Size, effort: Effort) -> dict[str, Any]:
    """One benchmark measured in a fresh process (see the module docstring)."""
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            f"{REGISTRY[name].origin.split(':')[0]}:{name}",
            size,
            json.dumps(dataclasses.asdict(effort)),
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark {name} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_all(names: list[str], size: Size, effort: Effort, lanes: int = 1) -> dict[str, Any]:
    """Every benchmark of ``names``, each in its own process, ``lanes`` of them at a time, stored and printed in
    the order asked (bench/README.md, "The regression gate", says why two lanes stay within the tolerances)."""
    run: dict[str, Any] = {
        "schema": SCHEMA,
        "size": size,
        "started": utc_now(),
        "machine": machine(HERE.parent),
        "benchmarks": {},
    }
    with ThreadPoolExecutor(max_workers=lanes) as pool:  # threads wait on the children's processes
        records = pool.map(lambda name: measure_isolated(name, size, effort), names)
        for name, record in zip(names, records):
            run["machine"]["heap"] = record.pop("heap")
            run["benchmarks"][name] = record
            print(
                f"{name:<34} {record['ratio']:8.3g}x  [{record['ratio_ci95'][0]:.3g}, {record['ratio_ci95'][1]:.3g}] "
                f"{record['pairs']:3d} pairs  ours {record['ours_seconds'] * 1e3:9.3f} ms  anchor "
                f"{record['anchor_seconds'] * 1e3:9.3f} ms  load {record['load_average'][0]:.1f}",
                flush=True,
            )
    run["finished"] = utc_now()
    run["machine"]["load_average_end"] = list(os.getloadavg())
    return run


def gate(
    run: dict[str, Any], baselines_path: Path, retries: int, effort: Effort, subset: bool = False
) -> bool:
    """Judge the run against the baselines, re-measuring failures; True when everything passes.
    ``subset`` (``--only``): judge the measured benchmarks alone, not the baselines left out.
    The baselines are those that apply on this CPU (``gate.for_machine``)."""
    cpu = cpu_id()
    baselines = for_machine(read(baselines_path), cpu)
    own = sum(whose == cpu for whose in baselines["resolved"].values())
    print(
        f"\nbaselines for {cpu}: {own} recorded on this CPU, the least recorded figure for the other "
        f"{len(baselines['resolved']) - own}",
        flush=True,
    )
    attempts = {name: [b["ratio"]] for name, b in run["benchmarks"].items()}
    names = sorted(
        set(run["benchmarks"]) if subset else set(baselines["benchmarks"]) | set(run["benchmarks"])
    )
    for attempt in range(retries):
        failing = [
            v.name
            for v in judge({n: float(np.median(a)) for n, a in attempts.items()}, baselines, names)
            if v.failed and v.name in REGISTRY
        ]
        if not failing:
            break
        for name in failing:
            print(f"re-measuring {name} (attempt {attempt + 2} of {retries + 1})", flush=True)
            attempts[name].append(measure_isolated(name, "short", effort)["ratio"])
    verdicts = judge({n: float(np.median(a)) for n, a in attempts.items()}, baselines, names)
    run["gate"] = {
        "baselines": str(baselines_path.relative_to(HERE.parent)),
        "attempts": attempts,
        "failed": [v.name for v in verdicts if v.failed],
    }
    print(
        f"\nregression gate against {baselines_path.name} (load average now "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}):"
    )
    for v in verdicts:
        extra = (
            f" (median of {len(attempts[v.name])} attempts: {', '.join(f'{a:.3g}' for a in attempts[v.name])})"
            if v.name in attempts and len(attempts[v.name]) > 1
            else ""
        )
        print("  " + v.message() + extra)
    failed = [v for v in verdicts if v.failed]
    if failed:
        print(
            f"\nREGRESSION: {len(failed)} benchmark(s) slower than the baseline beyond tolerance: "
            + ", ".join(
                f"{v.name} ({v.drop:.1%} drop)" if v.drop is not None else v.name for v in failed
            )
        )
    return not failed


def recorded_apart(run: dict[str, Any]) -> dict[str, Any]:
    """The run's benchmarks, each carrying when, on which commit and CPU and at what load it was recorded: they
    join a baseline run that another run described (``--only``)."""
    m = run["machine"]
    where = {
        "started": run["started"],
        "commit": m["commit"],
        "cpu_id": m["cpu_id"],
        "load_average": [m["load_average"][0], m["load_average_end"][0]],
    }
    return {name: {**b, "recorded": where} for name, b in run["benchmarks"].items()}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--full", action="store_true", help="full sizes; rewrites bench/README.md's tables"
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="measure only these benchmarks")
    parser.add_argument("--list", action="store_true", help="list the declared benchmarks and exit")
    parser.add_argument(
        "--out", type=Path, help="where to store the run (default bench/results/<time>-<size>.json)"
    )
    parser.add_argument(
        "--gate",
        nargs="?",
        type=Path,
        const=BASELINES,
        metavar="BASELINES",
        help=f"compare with the baselines (default {BASELINES.relative_to(HERE.parent)})",
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=2,
        help="re-measurements of a failing benchmark (gate), each measured alone",
    )
    parser.add_argument(
        "--lanes",
        type=int,
        default=1,
        metavar="N",
        help="benchmarks measured N at a time, each in its own process (default 1: one after another)",
    )
    parser.add_argument(
        "--update-baselines", action="store_true", help="store this short run as the baselines"
    )
    parser.add_argument(
        "--update-machine-baselines",
        action="store_true",
        help="short sizes: store this run as this CPU's own baselines (by_machine)",
    )
    parser.add_argument(
        "--min-pairs", type=int, help="override the warm pairs measured at least (short 9, full 3)"
    )
    parser.add_argument(
        "--budget", type=float, help="override the seconds per benchmark (short 8, full 60)"
    )
    parser.add_argument(
        "--no-tables", action="store_true", help="with --full: do not touch bench/README.md"
    )
    args = parser.parse_args()
    if args.lanes < 1:
        parser.error(f"--lanes must be at least 1, got {args.lanes}")
    registry = discover()
    if args.list:
        for name, b in registry.items():
            print(f"{name:<34} {b.table:<12} {b.title}  vs  {b.anchor}   ({b.origin})")
        return 0
    if args.full and (args.gate or args.update_baselines or args.update_machine_baselines):
        parser.error("--gate and --update-(machine-)baselines use the short sizes: drop --full")
    unknown = sorted(set(args.only or ()) - set(registry))
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; --list shows the names")
    names = args.only or list(registry)
    size: Size = "full" if args.full else "short"
    effort = EFFORT[size]
    if args.min_pairs is not None or args.budget is not None:
        effort = dataclasses.replace(
            effort,
            min_pairs=args.min_pairs or effort.min_pairs,
            budget=args.budget or effort.budget,
        )
    started = time.perf_counter()
    run = run_all(names, size, effort, args.lanes)
    ok = True
    if args.gate:
        ok = gate(run, args.gate, args.retries, effort, subset=bool(args.only))
    out = args.out or RESULTS / f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{size}.json"
    write(out, run)
    print(f"\nstored {out} ({time.perf_counter() - started:.0f} s)")
    if args.update_baselines:
        previous = read(BASELINES) if BASELINES.exists() else None
        if previous is None or "tolerance" not in previous:
            parser.error(
                f"{BASELINES} needs a 'tolerance' object to keep (see gate.py); write it first"
            )
        run.pop("gate", None)
        if (
            args.only
        ):  # a subset joins the reference run, which keeps its own description; each says its own
            baselines = {
                **previous,
                "benchmarks": {**previous["benchmarks"], **recorded_apart(run)},
            }
        else:
            baselines = {
                **run,
                "tolerance": previous["tolerance"],
                "benchmarks": {**previous["benchmarks"], **run["benchmarks"]},
                **{k: previous[k] for k in ("by_machine",) if k in previous},
            }
        write(BASELINES, baselines)
        update_readme({"gate/baselines": render_baselines(baselines)})
        print(f"updated {BASELINES} and its table in bench/README.md")
    if args.update_machine_baselines:
        base = read(BASELINES)
        run.pop("gate", None)
        cpu = run["machine"]["cpu_id"]
        own = base.get("by_machine", {}).get(cpu)
        if (
            args.only and own is not None
        ):  # a subset joins this CPU's record, which keeps its own description
            own["benchmarks"] = {**own["benchmarks"], **recorded_apart(run)}
        else:
            record = {k: v for k, v in run.items() if k not in ("schema", "size", "benchmarks")}
            previous = (own or {}).get("benchmarks", {})
            base.setdefault("by_machine", {})[cpu] = {
                **record,
                "benchmarks": {**previous, **run["benchmarks"]},
            }
        write(BASELINES, base)
        update_readme({"gate/baselines": render_baselines(base)})
        print(f"recorded this CPU's ({cpu}) baselines in {BASELINES} and bench/README.md")
    if args.full and not args.no_tables:
        update_readme(blocks_for_run(run))
        print("rewrote the generated tables of bench/README.md")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        _child(
            sys.argv[2],
            "full" if sys.argv[3] == "full" else "short",
            Effort(**json.loads(sys.argv[4])),
        )
    else:
        sys.exit(main())
