"""The stored form of a benchmark run: one JSON file, schema ``hockeystick-bench-ratios/1``.

    {
      "schema": "hockeystick-bench-ratios/1",
      "size": "short" | "full",
      "started": "2026-11-22T11:40:00Z", "finished": "...",
      "machine": {"cores": 2, "affinity": 2, "cpu": "AMD EPYC ...", "load_average": [1m, 5m, 15m] at start,
                  "load_average_end": [...], "platform": "...", "python": "3.12.3",
                  "versions": {"hockeystick": "0.1.0", "numpy": ..., "scipy": ..., "dp_accounting": ...,
                               "prv_accountant": ..., "numba": ...},
                  "commit": "git HEAD or null", "env": {"OMP_NUM_THREADS": ..., "NUMBA_NUM_THREADS": ...}},
      "benchmarks": {name: record of measure.measure (ratio, ratio_ci95, ratio_quartiles, ratio_range,
                     pairs, ours_seconds, anchor_seconds, *_first_seconds, load_average, ...)}
    }

Runs go to bench/results/ (not committed); baselines (bench/baselines/short.json) have
the same schema plus a "tolerance" object and, per CPU the suite was also recorded on, a
"by_machine" object (see gate.py).  ``machine()["cpu_id"]`` names that CPU.
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Any

SCHEMA = "hockeystick-bench-ratios/1"
PACKAGES = (
    "hockeystick",
    "numpy",
    "scipy",
    "dp-accounting",
    "prv-accountant",
    "numba",
    "pytest-benchmark",
)

__all__ = ["SCHEMA", "cpu_id", "machine", "utc_now", "write", "read"]


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_id() -> str:
    """The CPU model with its family and model numbers ("AMD EPYC (family 23, model 1)"): virtual
    machines often report a bare vendor name, and two generations behind one name can differ by
    a factor 2 in vector throughput (Zen 1 splits each 256-bit operation in two)."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("cpu family", "model") and key.strip() not in fields:
                fields[key.strip()] = value.strip()
            if not line.strip() and fields:
                break
    except OSError:
        pass
    if len(fields) < 2:
        return _cpu_model()
    return f"{_cpu_model()} (family {fields['cpu family']}, model {fields['model']})"


def _commit(repo: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def _version(package: str) -> str | None:
    """The installed distribution's version, else the module's ``__version__`` (a source tree on PYTHONPATH)."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        try:
            return str(importlib.import_module(package.replace("-", "_")).__version__)
        except Exception:  # whatever stops the import, the record goes on without the version
            return None


def machine(repo: Path) -> dict[str, Any]:
    """Cores, CPU, load average, versions and commit: what a figure needs beside it."""
    return {
        "cores": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "cpu": _cpu_model(),
        "cpu_id": cpu_id(),
        "load_average": list(os.getloadavg()),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": {p: _version(p) for p in PACKAGES},
        "commit": _commit(repo),
        "env": {
            k: os.environ[k]
            for k in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OMP_WAIT_POLICY")
            if k in os.environ
        },
    }


def write(path: Path, run: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(run, indent=1, sort_keys=False) + "\n")


def read(path: Path) -> dict[str, Any]:
    run = json.loads(Path(path).read_text())
    if run.get("schema") != SCHEMA:
        raise ValueError(f"{path}: schema must be {SCHEMA!r}, got {run.get('schema')!r}")
    return run
