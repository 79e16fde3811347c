"""Impossible grids are refused before they start: size, bytes and a timed pilot."""

from __future__ import annotations

import logging
import os

import pytest

from hockeystick.sweep import Grid, plan, run_sweep
from hockeystick.sweep.plan import plan_sweep

HUGE = {
    "sigma": "linear:1:2:10000",
    "rounds": "linear:1:10000:10000",
    "sensitivity": "linear:1:2:10000",
    "epsilon": "linear:0.1:8:10000",
}


def test_a_grid_of_1e16_points_is_refused_before_any_file(tmp_path):
    grid = Grid.from_parameters("gaussian", "delta", HUGE)
    assert grid.size == 10**16
    for path in (tmp_path / "out.parquet", tmp_path / "out.csv", None):
        with pytest.raises(
            ValueError,
            match=r"too large to start unasked: 1e\+16 points \(limit 1e\+09\).*"
            r"pass allow_large=True to run it anyway",
        ):
            run_sweep(grid, path, progress=False)
    assert os.listdir(tmp_path) == []


def test_the_estimates_are_those_of_the_run(tmp_path):
    """Output bytes within a factor 2 of the file written; the time estimate is a positive number."""
    grid = Grid.from_parameters(
        "gaussian", "delta", {"sigma": "log:0.5:20:200", "rounds": [1, 10, 100], "epsilon": "linear:0.1:8:500"}
    )
    for suffix in (".csv", ".parquet", ".npz"):
        path = tmp_path / f"out{suffix}"
        estimate = plan_sweep(grid, path, 1 << 20)
        run_sweep(grid, path, progress=False)
        written = path.stat().st_size
        assert written / 2 <= estimate.output_bytes <= 2 * written, (suffix, written, estimate.output_bytes)
        assert estimate.scratch_bytes == 8 * grid.size and estimate.free_bytes > 0
        assert 0 < estimate.seconds < 600 and estimate.pilot_points > 0 and estimate.exceeded() == []


def test_time_and_space_limits_and_consent(tmp_path, monkeypatch, caplog):
    grid = Grid.from_parameters("gaussian", "delta", {"sigma": "log:0.5:20:100", "epsilon": "linear:0.1:8:100"})
    monkeypatch.setattr(plan, "MAX_SECONDS", 1e-9)
    with pytest.raises(ValueError, match=r"estimated \(limit"):
        run_sweep(grid, tmp_path / "a.csv", progress=False)
    monkeypatch.setattr(plan, "_free_bytes", lambda path: 1000)
    with pytest.raises(ValueError, match=r"needed, 1 kB free where the output goes"):
        run_sweep(grid, tmp_path / "a.csv", progress=False)
    with pytest.raises(ValueError, match=r"needed, 1 kB memory available"):
        run_sweep(grid, None, progress=False)
    assert os.listdir(tmp_path) == []
    with caplog.at_level(logging.INFO, logger="hockeystick.sweep"):
        result = run_sweep(grid, tmp_path / "a.csv", progress=False, allow_large=True)
    assert result.points == 10_000 and (tmp_path / "a.csv").exists()
    assert any(
        "plan: 10,000 points, ~" in r.getMessage() and "estimated (pilot:" in r.getMessage() for r in caplog.records
    )
    with pytest.raises(TypeError, match="allow_large must be True or False"):
        run_sweep(grid, None, progress=False, allow_large=1)


@pytest.mark.parametrize("omp", ["1", "2", ""])
def test_in_process_estimate_divides_the_pilot_cpu_by_the_threads_the_run_uses(monkeypatch, omp):
    """The pilot measures CPU seconds; an in-process run spreads its chunks over every core the
    accountants may use (``_validation.workers(None)``: the cores, at most OMP_NUM_THREADS), so the
    wall estimate is the CPU estimate divided by that count (it was the CPU sum, ~2x high on 2 cores)."""
    from hockeystick import _validation
    from hockeystick.sweep import run as run_module

    monkeypatch.setenv("OMP_NUM_THREADS", omp)
    monkeypatch.setattr(plan, "_pilot", lambda grid, chunk_size, suffix: (1200.0, 16, 0.25))
    seen = []

    def stop(estimate, allow_large):
        seen.append(estimate)
        raise RuntimeError("planned")

    monkeypatch.setattr(run_module, "check_plan", stop)
    grid = Grid.from_parameters("gaussian", "delta", {"sigma": "log:0.5:20:100", "epsilon": "linear:0.1:8:100"})
    with pytest.raises(RuntimeError, match="planned"):
        run_sweep(grid, None, progress=False)
    threads = _validation.workers(None)
    assert threads >= 1 and (omp != "1" or threads == 1)
    assert seen[0].workers == threads and seen[0].seconds == pytest.approx(1200.0 / threads)
