"""Progress on the long quiet steps: a sweep's timing pilot has its own bar, counting the
points it evaluates as the accountants finish blocks, and paper 003's tables and curves (``hockeystick
figures``) report a row at a time, a bar per table under ``--progress``; nothing is shown without it."""

from __future__ import annotations

import importlib.util
import re
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

from hockeystick.base import progress
from hockeystick.reproduce import errata_003
from hockeystick.sweep import Grid, plan, run_sweep
from hockeystick.sweep.evaluation import evaluate
from hockeystick.sweep.plan import plan_sweep

# 800 points: the pilot's cap is 800 // 50 = 16 points, so it evaluates its warm-up chunk and one timed
# chunk of 16 points, whatever the machine's speed; its bar counts the timed points, the plan's count
PLD_GRID = {
    "sigma": "linear:0.8:2:40",
    "rounds": "linear:10:200:20",
    "sampling_rate": 0.01,
    "epsilon": 1.0,
}
FAST_GRID = {"sigma": "log:0.5:20:100", "epsilon": "linear:0.1:8:100"}
# 800 points at q = 1: the accountant's closed form (the Gaussian mechanism), whose rows it reports as one
# block, as a composed unit's are reported; the pilot's chunks of 16 points take milliseconds
CLOSED_FORM_GRID = {
    "sigma": "linear:0.8:2:40",
    "rounds": "linear:10:200:20",
    "sampling_rate": 1.0,
    "epsilon": 1.0,
}


def _recording_bar(monkeypatch) -> tuple[list[int], list[bool]]:
    moves: list[int] = []
    opened: list[bool] = []

    class Bar:
        def update(self, n: int) -> None:
            moves.append(n)

    @contextmanager
    def recording(enabled):
        opened.append(enabled)
        yield Bar()

    monkeypatch.setattr(plan, "pilot_bar", recording)
    return moves, opened


def test_the_pilot_counts_its_points_as_the_accountants_finish_blocks(monkeypatch):
    moves, opened = _recording_bar(monkeypatch)
    grid = Grid.from_parameters("pld_subsampled_gaussian", "delta", PLD_GRID)
    estimate = plan_sweep(grid, None, 1 << 17, progress=True)
    assert opened == [True] and estimate.pilot_points == 16 and estimate.timed_points == 16
    assert (
        sum(moves) == estimate.pilot_points
    )  # the timed chunk, each point once (the warm-up is not shown)
    assert len(moves) >= 2  # within the chunk, as blocks finish, not once per chunk


def test_a_grid_too_small_for_a_pilot_opens_no_bar(monkeypatch):
    moves, opened = _recording_bar(monkeypatch)
    grid = Grid.from_parameters("gaussian", "delta", {"sigma": [1.0, 2.0], "epsilon": [1.0, 2.0]})
    assert plan_sweep(grid, None, 1 << 17, progress=True).seconds is None
    assert opened == [False] and moves == []


def test_the_pilots_reports_are_not_the_callers_work():
    """The PLD accountant reports the block of its closed-form rows (q = 1) through the same
    ``progress.advance`` as a composed unit's, so a pilot that let its reports out would reach
    ``calls`` here; the same grid's evaluation outside a pilot does."""
    grid = Grid.from_parameters("pld_subsampled_gaussian", "delta", CLOSED_FORM_GRID)
    outside: list[int] = []
    with progress.reporting(outside.append):
        evaluate(
            grid, grid.chunk_parameters(grid.chunk(0, 16)), grid.block_shape(grid.chunk(0, 16))
        )
    assert sum(outside) == 16
    calls: list[int] = []
    with progress.reporting(calls.append):
        estimate = plan_sweep(grid, None, 1 << 17, progress=False)
    assert estimate.pilot_points == 16 and calls == []


def test_a_sweep_shows_its_pilot_with_progress_and_nothing_without(capsys, tmp_path):
    grid = Grid.from_parameters("gaussian", "delta", FAST_GRID)
    run_sweep(grid, tmp_path / "quiet.csv", progress=False)
    assert capsys.readouterr().err == ""
    run_sweep(grid, tmp_path / "shown.csv", progress=True)
    err = capsys.readouterr().err
    assert "timing pilot" in err and "sweep" in err
    assert err.index("timing pilot") < err.index("sweep:")  # the pilot runs before the sweep's bar


class _Accountant:
    """Stands in for the PLD accountants: one bracket, and a block report of its own (not a row)."""

    def __init__(self, **params):
        self.params = params

    def epsilon(self, delta, bound="upper"):
        progress.advance(7)
        return (0.5, 0.6) if bound == "both" else 0.6


def _calibrated(*args, **kwargs):
    progress.advance(3)  # a calibration reports the targets it solved
    return 1.0


def _simulated(train, **kwargs):
    progress.advance(5)
    return SimpleNamespace(test_accuracy=[0.9])


@pytest.fixture
def quick_rows(monkeypatch):
    """Paper 003's row loops as they are, their accountants, calibrations and simulations stood in for
    (their numbers are tested in test_isrl.py): each reports blocks of its own, which are no rows."""
    for name in ("NoisyMBSGD", "ShuffledNoisyMBSGD", "GroupNoisyMBSGD"):
        monkeypatch.setattr(errata_003, name, _Accountant)
    monkeypatch.setattr(errata_003, "calibrate", _calibrated)
    try:
        from hockeystick import simulate
    except ImportError:
        return False
    monkeypatch.setattr(simulate, "isrl_minibatch_sgd", _simulated)
    return True


@pytest.fixture
def unpainted(monkeypatch):
    """Each figure built as the code builds it but written without being rendered (an 8-byte PNG
    signature): these tests read the bars and the listing, not the pictures, whose pixels
    tests/contraction/test_contraction_figures.py checks."""
    figure = pytest.importorskip("matplotlib.figure")

    def save_unrendered(self, fname, *args, **kwargs):
        Path(fname).write_bytes(b"\x89PNG\r\n\x1a\n")

    monkeypatch.setattr(figure.Figure, "savefig", save_unrendered)


def test_each_row_of_each_table_moves_the_listener_once(quick_rows):
    tables = [
        (errata_003.theory_rows, errata_003.THEORY),
        (errata_003.experiment_rows, errata_003.EXPERIMENTS),
        (errata_003.shuffle_rows, errata_003.SHUFFLE),
        (errata_003.group_rows, errata_003.GROUPS),
        (errata_003.sigma_curves, errata_003.SIGMA_CURVE_EPSILONS),
    ]
    if quick_rows:
        tables.append((errata_003.utility_rows, errata_003.UTILITY_EPSILONS))
    for rows, defaults in tables:
        calls: list[int] = []
        with progress.reporting(calls.append):
            rows()
        assert calls == [1] * len(defaults), rows.__name__


def _stages(err: str) -> dict[str, str]:
    """Each bar's last state, by its description."""
    last = {}
    for line in re.split(r"[\r\n]", err):
        if line.startswith("paper 003 "):
            name, _, state = line.partition(":")
            last[name.strip()] = state
    return last


def _totals(with_utility: bool) -> dict[str, int]:
    totals = {
        "paper 003 Thm 2.1 table": len(errata_003.THEORY),
        "paper 003 App. I table": len(errata_003.EXPERIMENTS),
        "paper 003 shuffle table": len(errata_003.SHUFFLE),
        "paper 003 group table": len(errata_003.GROUPS),
        "paper 003 sigma figure": len(errata_003.SIGMA_CURVE_EPSILONS),
    }
    if with_utility:
        totals["paper 003 utility figure"] = len(errata_003.UTILITY_EPSILONS)
    return totals


def test_the_tables_step_reports_each_table_to_its_end(quick_rows, unpainted, tmp_path, capsys):
    with_utility = quick_rows and all(
        importlib.util.find_spec(m) is not None for m in ("numba", "sklearn")
    )
    calls: list[int] = []
    with progress.reporting(calls.append):  # no bars: the rows reach the caller's listener
        paths = errata_003.write_tables_and_figure(tmp_path / "listened")
    assert capsys.readouterr().err == "" and len(paths) == 2 + with_utility
    assert calls == [1] * sum(_totals(with_utility).values())
    with progress.showing(True):
        errata_003.write_tables_and_figure(tmp_path / "shown")
    last = _stages(capsys.readouterr().err)
    assert set(last) == set(_totals(with_utility))
    for name, total in _totals(with_utility).items():
        assert f"{total}/{total}" in last[name], (name, last[name])


@pytest.mark.parametrize("flag", ["--progress", "--no-progress", None])
def test_figures_shows_a_bar_per_table_only_with_progress(
    quick_rows, unpainted, tmp_path, capsys, flag
):
    from hockeystick.cli import main

    argv = ["figures", "--out-dir", str(tmp_path / "figs")] + ([flag] if flag else [])
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "tables written to" in out
    if flag == "--progress":
        last = _stages(err)
        assert "4/4" in last["paper 003 Thm 2.1 table"] and "7/7" in last["paper 003 group table"]
    else:  # stderr is captured, not a terminal: no bar unless asked
        assert err == ""


def test_showing_takes_a_boolean():
    with pytest.raises(TypeError, match="enabled must be True or False"):
        with progress.showing("yes"):
            pass
