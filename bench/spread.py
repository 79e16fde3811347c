"""Run-to-run spread of stored short runs: what the gate's tolerance is chosen from.

    python bench/spread.py bench/results/spread/*.json
    python bench/spread.py bench/results/spread/*.json --write-baselines --tolerance 0.25 --how "..."

For each benchmark measured in every run: the median over runs of the run medians, the
lowest and highest run median, and the largest fall of a run below the median of the
others, 1 − run / median(other runs).  That fall is what a clean run can show against a
baseline taken from one earlier run, so the tolerance must sit well above the largest one
seen (bench/README.md, "The regression gate", says by how much).

``--write-baselines`` stores, for every benchmark, the record of its median run (an odd
number of runs: the middle one) as bench/baselines/short.json, with the tolerance given;
the baseline is then the typical run, not one drawn at random.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate import BASELINES  # noqa: E402
from results import read, write  # noqa: E402

__all__ = ["spread"]


def spread(runs: list[dict]) -> dict[str, dict[str, float]]:
    """Per benchmark: median, min and max of the run medians and the worst leave-one-out fall."""
    names = [n for n in runs[0]["benchmarks"] if all(n in r["benchmarks"] for r in runs)]
    out = {}
    for name in names:
        values = np.array([r["benchmarks"][name]["ratio"] for r in runs])
        falls = [1 - v / np.median(np.delete(values, i)) for i, v in enumerate(values)]
        out[name] = {"median": float(np.median(values)), "min": float(values.min()), "max": float(values.max()),
                     "worst_fall": float(max(falls)), "range": float((values.max() - values.min()) / np.median(values))}
    return out


def median_run_baselines(runs: list[dict], tolerance: dict) -> dict:
    """The baselines file: each benchmark's record from the run holding its median ratio."""
    base = {**runs[0], "tolerance": tolerance, "benchmarks": {}}
    base["finished"] = runs[-1]["finished"]
    base["machine"] = {**runs[0]["machine"], "load_average_end": runs[-1]["machine"]["load_average_end"]}
    for name in spread(runs):
        records = sorted((r["benchmarks"][name] for r in runs), key=lambda b: b["ratio"])
        base["benchmarks"][name] = records[(len(records) - 1) // 2]
    return base


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--write-baselines", action="store_true", help=f"write {BASELINES.name} from these runs")
    parser.add_argument("--tolerance", type=float, help="with --write-baselines: the default tolerance")
    parser.add_argument("--how", help="with --write-baselines: how the tolerance was chosen (one sentence)")
    args = parser.parse_args()
    runs = [read(p) for p in args.runs]
    loads = ", ".join(f"{r['machine']['load_average'][0]:.1f}–{r['machine']['load_average_end'][0]:.1f}" for r in runs)
    print(f"{len(runs)} runs, load average (1 min, start–end): {loads}\n")
    print("| benchmark | median of run medians | lowest | highest | range / median | worst fall below the others |")
    print("|---|---|---|---|---|---|")
    for name, s in spread(runs).items():
        print(f"| `{name}` | {s['median']:.3g}× | {s['min']:.3g}× | {s['max']:.3g}× | {s['range']:.1%} "
              f"| {s['worst_fall']:.1%} |")
    if args.write_baselines:
        if args.tolerance is None or not args.how:
            parser.error("--write-baselines needs --tolerance and --how")
        write(BASELINES, median_run_baselines(runs, {"default": args.tolerance, "how_chosen": args.how}))
        print(f"\nwrote {BASELINES}")


if __name__ == "__main__":
    main()

