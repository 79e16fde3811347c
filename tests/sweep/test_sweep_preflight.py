"""The sweep's preflight: a grid no larger than its probe is evaluated once, and the check is on screen.

The preflight probes each axis's values and the grid's corners before any file is written. A grid with
no more points than that probe (one axis, or a few values on each) is evaluated whole there and the run
takes those outputs, so no point is evaluated twice; a larger grid's probe runs under a "checking" bar
shown before the sweep's, so the seconds it takes are never silent.
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.cli import main
from hockeystick.sweep import Grid, evaluation, plan, run_sweep
from hockeystick.sweep import run as run_module


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of points of each evaluation the sweep makes (its preflight, pilot and chunks), counted in
    every module that calls ``evaluate``."""
    sizes: list[int] = []
    evaluate = evaluation.evaluate

    def counted(grid, params, shape):
        sizes.append(int(np.prod(shape)))
        return evaluate(grid, params, shape)

    for module in (evaluation, plan, run_module):
        monkeypatch.setattr(module, "evaluate", counted)
    return sizes


def _calibration(epsilons: list[float]) -> Grid:
    return Grid.from_parameters(
        "gaussian", "sigma", {"epsilon": epsilons, "delta": 1e-5, "rounds": 10}
    )


@pytest.mark.parametrize("chunk_size", [None, 2])
def test_a_grid_no_larger_than_its_probe_is_evaluated_once(monkeypatch, chunk_size):
    grid = _calibration(
        [0.5, 1.0, 2.0, 4.0, 8.0]
    )  # one axis: the probe is its 5 values and 2 corners
    sizes = _counting(monkeypatch)
    result = run_sweep(grid, chunk_size=chunk_size, progress=False)
    assert sizes == [grid.size]
    expected = np.concatenate(
        [
            run_module.evaluate_chunk(grid, chunk)["sigma"]
            for chunk in grid.chunks(chunk_size or grid.size)
        ]
    )
    np.testing.assert_array_equal(result.columns["sigma"], expected)


def test_a_grid_larger_than_its_probe_is_checked_on_the_probe_alone(monkeypatch):
    grid = Grid.from_parameters(
        "gaussian", "delta", {"sigma": "log:0.5:20:10", "epsilon": [0.1, 1.0, 3.0, 6.0]}
    )
    sizes = _counting(monkeypatch)
    run_sweep(grid, progress=False)  # 40 points: too few for the plan's timed pilot (from 50)
    assert sizes == [
        10 + 4 + 4,
        grid.size,
    ]  # each axis at the others' first values and 4 corners; the grid


def test_a_whole_grid_evaluated_by_the_preflight_keeps_its_bar_and_errors(capsys, tmp_path):
    grid = Grid.from_parameters(
        "gaussian", "sigma", {"epsilon": [0.5, 1.0, 2.0], "delta": 1e-5, "rounds": 10}
    )
    run_sweep(grid, tmp_path / "out.csv", progress=True)
    err = capsys.readouterr().err
    assert "sweep: 100%" in err and "checking" not in err
    # the whole-grid evaluation is still the check: a refused point fails before the file exists
    bad = Grid.from_parameters(
        "gaussian", "rounds", {"epsilon": [0.01, 1.0], "delta": 1e-5, "sigma": 0.1}
    )
    with pytest.raises(ValueError, match="unreachable"):
        run_sweep(bad, tmp_path / "bad.csv", progress=False)
    assert not (tmp_path / "bad.csv").exists()


def test_the_probe_of_a_larger_grid_is_shown_before_the_sweep(capsys):
    grid = Grid.from_parameters(
        "gaussian",
        "sigma",
        {"epsilon": "linear:0.5:4:6", "rounds": [1, 10, 100, 1000], "delta": 1e-5},
    )
    run_sweep(grid, progress=True)
    err = capsys.readouterr().err
    assert "checking" in err and "sweep" in err
    assert err.index("checking") < err.index("sweep")


def test_the_sweep_command_shows_its_check(capsys):
    argv = [
        "sweep",
        "-a",
        "gaussian",
        "-q",
        "sigma",
        "-p",
        "rounds=1,10,100,1000",
        "--epsilon",
        "0.5,1,2,4",
    ]
    assert main([*argv, "--delta", "1e-5", "--progress", "-o", "-"]) == 0
    err = capsys.readouterr().err
    assert "checking" in err and err.index("checking") < err.index("sweep:")
