"""Impossible grids are refused before they start: size, bytes and a timed pilot."""

from __future__ import annotations

import logging
import os
import time

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
            match=r"too large to start unasked: 1e\+16 points \(the limit: fewer than 1e\+09\).*"
            r"pass allow_large=True to run it anyway",
        ):
            run_sweep(grid, path, progress=False)
    assert os.listdir(tmp_path) == []


def test_the_estimates_are_those_of_the_run(tmp_path):
    """Output bytes within a factor 2 of the file written; the time estimate is a positive number."""
    grid = Grid.from_parameters(
        "gaussian",
        "delta",
        {"sigma": "log:0.5:20:200", "rounds": [1, 10, 100], "epsilon": "linear:0.1:8:500"},
    )
    for suffix in (".csv", ".parquet", ".npz"):
        path = tmp_path / f"out{suffix}"
        estimate = plan_sweep(grid, path, 1 << 20)
        run_sweep(grid, path, progress=False)
        written = path.stat().st_size
        assert written / 2 <= estimate.output_bytes <= 2 * written, (
            suffix,
            written,
            estimate.output_bytes,
        )
        assert estimate.scratch_bytes == 8 * grid.size and estimate.free_bytes > 0
        assert (
            0 < estimate.seconds < 600 and estimate.pilot_points > 0 and estimate.exceeded() == []
        )


def test_time_and_space_limits_and_consent(tmp_path, monkeypatch, caplog):
    grid = Grid.from_parameters(
        "gaussian", "delta", {"sigma": "log:0.5:20:100", "epsilon": "linear:0.1:8:100"}
    )
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
        "plan: 10,000 points, ~" in r.getMessage() and "estimated (pilot:" in r.getMessage()
        for r in caplog.records
    )
    with pytest.raises(TypeError, match="allow_large must be True or False"):
        run_sweep(grid, None, progress=False, allow_large=1)


def test_exactly_1e9_points_needs_consent(tmp_path):
    """The limit is inclusive: 10^9 points is refused unasked (the plan says "fewer than 1e+09")."""
    grid = Grid.from_parameters(
        "gaussian",
        "delta",
        {
            "sigma": "linear:1:2:1000",
            "rounds": "linear:1:1000:1000",
            "epsilon": "linear:0.1:8:1000",
        },
    )
    assert grid.size == 10**9
    with pytest.raises(ValueError, match=r"1e\+09 points \(the limit: fewer than 1e\+09\)"):
        run_sweep(grid, tmp_path / "big.parquet", progress=False)
    assert os.listdir(tmp_path) == []
    assert plan.SweepPlan(10**9 - 1, 0, 0, None, None, None).exceeded() == []


def test_the_pilot_times_the_wall_clock(monkeypatch):
    """Time a chunk spends without the CPU (other processes' load, waiting on threads or I/O) is time the run
    takes too: the pilot's seconds include it."""
    evaluate = plan.evaluate

    def waiting(*args):
        time.sleep(0.05)
        return evaluate(*args)

    monkeypatch.setattr(plan, "evaluate", waiting)
    grid = Grid.from_parameters(
        "gaussian", "delta", {"sigma": "log:0.5:20:100", "epsilon": "linear:0.1:8:100"}
    )
    estimate = plan_sweep(grid, None, 1 << 17)
    # 10,000 points, the pilot's chunk of at most 200 (2%): each chunk waits 0.05 s
    assert estimate.pilot_seconds >= 0.05
    assert estimate.seconds >= 0.05 * grid.size / estimate.timed_points
    assert estimate.timed_points <= estimate.pilot_points


def test_a_long_check_times_the_grid_instead_of_a_pilot(monkeypatch):
    """Points the preflight's check evaluated for long enough (``_MEASURED_SECONDS``) are the measurement: no
    pilot runs, and the plan says what it was measured on."""
    from hockeystick.sweep import run as run_module

    grid = Grid.from_parameters(
        "gaussian", "delta", {"sigma": "log:0.5:20:100", "epsilon": "linear:0.1:8:100"}
    )
    estimate = plan_sweep(grid, None, 1 << 17, measured=(29, 15.0))
    assert estimate.seconds == pytest.approx(grid.size * 15.0 / 29)
    assert (
        estimate.measured_by == "the check"
        and "(the check: 29 points in 15 s)" in estimate.describe()
    )
    assert plan_sweep(grid, None, 1 << 17, measured=(29, 0.01)).measured_by == "pilot"
    monkeypatch.setattr(plan, "_MEASURED_SECONDS", 0.0)
    monkeypatch.setattr(
        plan, "pilot_bar", lambda *args: pytest.fail("a pilot ran after a long check")
    )
    seen = []

    def stop(estimate, allow_large):
        seen.append(estimate)
        raise RuntimeError("planned")

    monkeypatch.setattr(run_module, "check_plan", stop)
    with pytest.raises(RuntimeError, match="planned"):
        run_sweep(grid, None, progress=False)
    probe = max(v.size for v in grid.probe_parameters().values())
    assert (
        seen[0].measured_by == "the check"
        and seen[0].pilot_points == probe
        and seen[0].workers == 1
    )


def test_the_estimate_is_corrected_by_the_runs_pace(monkeypatch, caplog):
    from hockeystick.sweep import run as run_module

    now = [0.0]
    monkeypatch.setattr(run_module.time, "perf_counter", lambda: now[0])
    pace = run_module.Pace(total=100, stated=10.0)
    with caplog.at_level(logging.INFO, logger="hockeystick.sweep"):
        now[0] = 5.0
        pace.update(10)  # on pace for 50 s: five times the 10 s stated
        now[0] = 10.0
        pace.update(10)  # still 50 s: said already
        now[0] = 11.0
        pace.update(60)  # 80 points in 11 s: 13.75 s, within 1.5x of 50 s? no: corrected again
    messages = [r.getMessage() for r in caplog.records]
    assert (
        messages[0]
        == "estimate corrected by the run's pace (10 points in 5 s): ~50 s in all, ~45 s left"
    )
    assert len(messages) == 2 and "~14 s in all" in messages[1]


def test_bars_count_points_as_integers():
    from hockeystick.sweep.run import checking_bar, progress_bar

    bar = progress_bar(96, True)
    bar.update(6)
    # the count, not the rate after it (whose digits may hold "6.00"), is the integer
    assert "| 6/96 [" in str(bar)
    bar.close()
    check = checking_bar(29, True)
    assert "checking each axis value and corner" in str(check) and "0/29" in str(check)
    check.close()
    pilot = plan.pilot_bar(True)
    pilot.update(16)
    assert "pilot: 16pt [" in str(pilot)
    pilot.close()
