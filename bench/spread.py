"""Run-to-run spread of stored short runs: what the gate's tolerance is chosen from.

    python bench/spread.py bench/results/spread/*.json [--markdown]

For each benchmark measured in every run: the median over runs of the run medians, the
lowest and highest run median, and the largest fall of a run below the median of the
others, 1 − run / median(other runs).  That fall is what a clean run can show against a
baseline taken from one earlier run, so the tolerance must sit well above the largest one
seen (bench/README.md, "The regression gate", says by how much).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import read  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path)
    args = parser.parse_args()
    runs = [read(p) for p in args.runs]
    loads = ", ".join(f"{r['machine']['load_average'][0]:.1f}–{r['machine']['load_average_end'][0]:.1f}" for r in runs)
    print(f"{len(runs)} runs, load average (1 min, start–end): {loads}\n")
    print("| benchmark | median of run medians | lowest | highest | range / median | worst fall below the others |")
    print("|---|---|---|---|---|---|")
    for name, s in spread(runs).items():
        print(f"| `{name}` | {s['median']:.3g}× | {s['min']:.3g}× | {s['max']:.3g}× | {s['range']:.1%} "
              f"| {s['worst_fall']:.1%} |")


if __name__ == "__main__":
    main()
