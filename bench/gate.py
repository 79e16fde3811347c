"""The regression gate: each short-size ratio against its committed baseline.

A benchmark fails when its median speed-up has dropped by more than its tolerance:

    drop = 1 − ratio / baseline_ratio  >  tolerance.

Tolerances live in the baseline file (bench/baselines/short.json, key "tolerance"): a
"default" and optional "per_benchmark" overrides, chosen from the run-to-run spread of
repeated short runs ("how_chosen" says how; bench/README.md has the measurements).  A
speed-up that rises never fails; update the baseline (``python bench/run.py
--update-baselines``) when it rises for good so that later drops are caught.

Ratios depend on the CPU: dp_accounting's numpy FFTs and our AVX2 kernels gain differently from
one generation to the next (W4 72x on a Zen 1 EPYC against 44x on a Xeon; theta 2.7x against
3.7x).  So the baselines keep, beside the reference run ("benchmarks"), one run per CPU the
suite was also recorded on ("by_machine", keyed by ``results.cpu_id()``; ``python bench/run.py
--update-machine-baselines``), and ``for_machine`` judges a run on a recorded CPU against that
CPU's own figures and, on any other CPU, each benchmark against the least of its recorded
figures: a drop on the slowest known box beyond tolerance still fails everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BASELINES", "Verdict", "for_machine", "judge", "tolerance_for"]

BASELINES = Path(__file__).resolve().parent / "baselines" / "short.json"


@dataclass(frozen=True)
class Verdict:
    name: str
    ratio: float | None  # this run's median speed-up (None: not measured)
    baseline: float | None  # the committed one (None: no baseline yet)
    tolerance: float

    @property
    def drop(self) -> float | None:
        """Fractional fall of the speed-up below the baseline (negative: faster than the baseline)."""
        if self.ratio is None or self.baseline is None:
            return None
        return 1.0 - self.ratio / self.baseline

    @property
    def failed(self) -> bool:
        return self.baseline is not None and (
            self.ratio is None or (self.drop or 0.0) > self.tolerance
        )

    def message(self) -> str:
        if self.baseline is None:
            return f"NEW   {self.name}: {self.ratio:.3g}x, no baseline (add it with --update-baselines)"
        if self.ratio is None:
            return f"FAIL  {self.name}: in the baselines but not measured (renamed or removed?)"
        drop = self.drop or 0.0
        status = "FAIL " if self.failed else "ok   "
        change = f"dropped {drop:.1%}" if drop > 0 else f"rose {-drop:.1%}"
        return (
            f"{status} {self.name}: speed-up {self.ratio:.3g}x vs baseline {self.baseline:.3g}x, {change} "
            f"(tolerance {self.tolerance:.0%})"
        )


def for_machine(baselines: dict[str, Any], cpu: str) -> dict[str, Any]:
    """The baselines that apply on ``cpu``: per benchmark, its record in ``by_machine[cpu]`` when
    there is one, else the record with the least ratio among the reference run and every
    recorded CPU.  The result has the reference's form (no "by_machine"); "resolved" says, per
    benchmark, whose record it is ("reference" or a cpu id)."""
    runs = {"reference": baselines["benchmarks"]}
    runs.update({c: m["benchmarks"] for c, m in baselines.get("by_machine", {}).items()})
    own = runs.get(cpu, {}) if cpu != "reference" else {}
    chosen: dict[str, Any] = {}
    resolved: dict[str, str] = {}
    for name in sorted({n for r in runs.values() for n in r}):
        if name in own:
            whose = cpu
        else:
            whose = min(
                (c for c in runs if name in runs[c]), key=lambda c: float(runs[c][name]["ratio"])
            )
        chosen[name], resolved[name] = runs[whose][name], whose
    out = {k: v for k, v in baselines.items() if k != "by_machine"}
    return {**out, "benchmarks": chosen, "resolved": resolved}


def tolerance_for(name: str, baselines: dict[str, Any]) -> float:
    tol = baselines["tolerance"]
    return float(tol.get("per_benchmark", {}).get(name, tol["default"]))


def judge(
    ratios: dict[str, float], baselines: dict[str, Any], names: list[str] | None = None
) -> list[Verdict]:
    """One verdict per benchmark in ``names`` (default: every measured or baselined one)."""
    base = {k: float(v["ratio"]) for k, v in baselines["benchmarks"].items()}
    if names is None:
        names = sorted(set(base) | set(ratios))
    return [Verdict(n, ratios.get(n), base.get(n), tolerance_for(n, baselines)) for n in names]
