"""The regression gate: each short-size ratio against its committed baseline.

A benchmark fails when its median speed-up has dropped by more than its tolerance:

    drop = 1 − ratio / baseline_ratio  >  tolerance.

Tolerances live in the baseline file (bench/baselines/short.json, key "tolerance"): a
"default" and optional "per_benchmark" overrides, chosen from the run-to-run spread of
repeated short runs ("how_chosen" says how; bench/README.md has the measurements).  A
speed-up that rises never fails; update the baseline (``python bench/run.py
--update-baselines``) when it rises for good so that later drops are caught.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BASELINES", "Verdict", "judge", "tolerance_for"]

BASELINES = Path(__file__).resolve().parent / "baselines" / "short.json"


@dataclass(frozen=True)
class Verdict:
    name: str
    ratio: float | None       # this run's median speed-up (None: not measured)
    baseline: float | None    # the committed one (None: no baseline yet)
    tolerance: float

    @property
    def drop(self) -> float | None:
        """Fractional fall of the speed-up below the baseline (negative: faster than the baseline)."""
        if self.ratio is None or self.baseline is None:
            return None
        return 1.0 - self.ratio / self.baseline

    @property
    def failed(self) -> bool:
        return self.baseline is not None and (self.ratio is None or (self.drop or 0.0) > self.tolerance)

    def message(self) -> str:
        if self.baseline is None:
            return f"NEW   {self.name}: {self.ratio:.3g}x, no baseline (add it with --update-baselines)"
        if self.ratio is None:
            return f"FAIL  {self.name}: in the baselines but not measured (renamed or removed?)"
        drop = self.drop or 0.0
        status = "FAIL " if self.failed else "ok   "
        change = f"dropped {drop:.1%}" if drop > 0 else f"rose {-drop:.1%}"
        return (f"{status} {self.name}: speed-up {self.ratio:.3g}x vs baseline {self.baseline:.3g}x, {change} "
                f"(tolerance {self.tolerance:.0%})")


def tolerance_for(name: str, baselines: dict[str, Any]) -> float:
    tol = baselines["tolerance"]
    return float(tol.get("per_benchmark", {}).get(name, tol["default"]))


def judge(ratios: dict[str, float], baselines: dict[str, Any], names: list[str] | None = None) -> list[Verdict]:
    """One verdict per benchmark in ``names`` (default: every measured or baselined one)."""
    base = {k: float(v["ratio"]) for k, v in baselines["benchmarks"].items()}
    if names is None:
        names = sorted(set(base) | set(ratios))
    return [Verdict(n, ratios.get(n), base.get(n), tolerance_for(n, baselines)) for n in names]
