"""Install time: building the wheel from a clean clone, and installing the built wheel, CPU and wall seconds.

    python bench/install_time.py [--rev REV ...] [--repeats 1] [--jobs N] [--keep DIR] [--out FILE.json]

For each revision (default HEAD) of this repository: a ``git clone`` into a new temporary directory,
checked out at the revision, then ``pip wheel --no-deps`` in it, with build isolation as a user's
``pip install .`` has it (pip brings scikit-build-core and pybind11 into a fresh build environment,
CMake configures, the compiler builds every binding unit and links). Then the built wheel is installed
with ``pip install --no-deps`` into a fresh venv (numpy and scipy come from that venv's parent through
``--system-site-packages``), which is what a user with a wheel waits for. Several revisions are built in
turn within each repeat, the order rotating, so that they see the same load: compare their CPU seconds
(user + system of every process of the build) rather than the wall seconds, which follow the load.

Printed and stored per build: wall seconds, CPU seconds, the load average before and after, and the
wheel's size. The JSON file defaults to ``bench/results/<time>-install.json``. Each build takes about
30-90 s on two idle cores; nothing here is part of the regression gate (bench/gate.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the process and every process it waited for) of one command."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def build_and_install(rev: str, jobs: int | None, keep: Path | None = None) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="hockeystick-install-") as tmp:
        clone = Path(tmp) / "src"
        subprocess.run(
            ["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(clone)], check=True
        )
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", rev], check=True)
        commit = subprocess.run(
            ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        env = dict(os.environ)
        if jobs is not None:
            env["CMAKE_BUILD_PARALLEL_LEVEL"] = str(jobs)
        load_before = os.getloadavg()[0]
        build_wall, build_cpu = _timed(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--wheel-dir",
                str(Path(tmp) / "dist"),
                str(clone),
            ],
            env=env,
        )
        load_after = os.getloadavg()[0]
        wheel = next((Path(tmp) / "dist").glob("hockeystick-*.whl"))
        if keep is not None:
            (keep / commit).mkdir(parents=True, exist_ok=True)
            shutil.copy2(wheel, keep / commit / wheel.name)
        venv = Path(tmp) / "venv"
        subprocess.run(
            [sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True
        )
        install_wall, install_cpu = _timed(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--no-deps", str(wheel)]
        )
        return {
            "rev": rev,
            "commit": commit,
            "build_wall": build_wall,
            "build_cpu": build_cpu,
            "install_wall": install_wall,
            "install_cpu": install_cpu,
            "load_before": load_before,
            "load_after": load_after,
            "wheel_bytes": wheel.stat().st_size,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rev", nargs="+", default=["HEAD"], help="revisions to build in turn (default HEAD)"
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="builds of each revision (default 1)"
    )
    parser.add_argument(
        "--jobs", type=int, help="CMAKE_BUILD_PARALLEL_LEVEL (default: the build tool's own)"
    )
    parser.add_argument("--keep", type=Path, help="copy each built wheel to KEEP/<commit>/")
    parser.add_argument("--out", help="the JSON file (default bench/results/<time>-install.json)")
    args = parser.parse_args(argv)
    started = datetime.now(timezone.utc)
    rows = []
    for r in range(args.repeats):
        order = args.rev[r % len(args.rev) :] + args.rev[: r % len(args.rev)]
        for rev in order:
            row = build_and_install(rev, args.jobs, args.keep)
            rows.append(row)
            print(
                f"{rev} ({row['commit']}): build {row['build_wall']:.1f} s wall, {row['build_cpu']:.1f} s CPU "
                f"(load {row['load_before']:.2f} -> {row['load_after']:.2f}); install from the wheel "
                f"{row['install_wall']:.1f} s wall; wheel {row['wheel_bytes'] / 1e6:.1f} MB",
                flush=True,
            )
    for rev in args.rev:
        mine = [row for row in rows if row["rev"] == rev]
        print(
            f"{rev}: median build {statistics.median(r['build_wall'] for r in mine):.1f} s wall, "
            f"{statistics.median(r['build_cpu'] for r in mine):.1f} s CPU over {len(mine)} build(s)"
        )
    path = (
        Path(args.out)
        if args.out
        else ROOT / "bench" / "results" / f"{started:%Y%m%dT%H%M%S}-install.json"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "started": started.isoformat(timespec="seconds"),
                "cores": os.cpu_count(),
                "builds": rows,
            },
            indent=1,
        )
    )
    print(f"stored {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
