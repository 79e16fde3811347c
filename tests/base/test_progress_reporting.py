"""Progress per target and per file: a calibration moves its caller's listener as blocks of targets are
solved (not once at the end), a bracket's two sides count each target once, and ``hockeystick figures``
prints each file as it writes it, a table as a table."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.base import progress
from hockeystick.calibrate import calibrate

_PLD = dict(sampling_rate=0.01, rounds=100, accuracy=0.05)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_calibration_reports_each_block_of_targets_to_the_callers_listener(workers):
    calls: list[int] = []
    with progress.reporting(calls.append):
        sigma = calibrate(
            "pld_subsampled_gaussian",
            "sigma",
            epsilon=[1, 2, 4],
            delta=1e-5,
            workers=workers,
            **_PLD,
        )
    assert len(calls) == 3 and sum(calls) == 3  # one block per target (fewer targets than blocks)
    # the answers do not depend on who listens
    np.testing.assert_array_equal(
        sigma,
        calibrate(
            "pld_subsampled_gaussian", "sigma", epsilon=[1, 2, 4], delta=1e-5, workers=1, **_PLD
        ),
    )


def test_both_sides_of_a_calibration_count_each_target_once():
    calls: list[int] = []
    with progress.reporting(calls.append):
        calibrate(
            "pld_subsampled_gaussian", "sigma", epsilon=[1, 2, 4], delta=1e-5, bound="both", **_PLD
        )
    assert sum(calls) == 3 and len(calls) > 2


def test_a_closed_form_calibration_reports_its_one_block():
    calls: list[int] = []
    with progress.reporting(calls.append):
        calibrate("gaussian", "sigma", epsilon=[1, 2, 4], delta=1e-5, rounds=100)
    assert calls == [3]


def test_shared_forwards_whole_elements_once_every_pass_ended():
    calls: list[int] = []
    with progress.reporting(calls.append), progress.shared(2):
        for done in (1, 2, 3, 2):  # two passes over 4 elements
            progress.advance(done)
    assert calls == [1, 2, 1]  # cumulative 1, 3, 6, 8 halved: 0, 1, 3, 4
    with pytest.raises(ValueError, match="parts must be a positive integer"):
        with progress.shared(0):
            pass


def test_the_calibrate_command_moves_the_bar_per_target(capsys, monkeypatch):
    """`hockeystick calibrate --progress` over several targets (one chunk): the bar moves per target,
    not from 0 to the end in one step."""
    from contextlib import contextmanager

    from hockeystick.cli import main
    from hockeystick.sweep import run as run_module

    moves: list[float] = []

    class Bar:
        def update(self, n: float) -> None:
            moves.append(n)

    @contextmanager
    def recording_bar(total, enabled):
        assert total == 3 and enabled
        yield Bar()

    monkeypatch.setattr(run_module, "progress_bar", recording_bar)
    argv = [
        "calibrate",
        "-a",
        "pld_subsampled_gaussian",
        "--epsilon",
        "1,2,4",
        "--delta",
        "1e-5",
        "--progress",
    ]
    argv += ["-p", "sampling_rate=0.01", "-p", "rounds=100", "-p", "accuracy=0.05"]
    assert main(argv) == 0
    capsys.readouterr()
    assert moves == [1, 1, 1]


def _stub_paper_003(monkeypatch, capsys, seen: list[str]):
    """The paper-003 numbers stubbed (they are tested in test_isrl.py); the sigma curves record what was
    printed before they are computed, i.e. after the tables were written."""
    import importlib.util

    from hockeystick.reproduce import errata_003

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "numba" else real(name, *a)
    )
    for name in ("theory_rows", "experiment_rows", "shuffle_rows", "group_rows"):
        monkeypatch.setattr(errata_003, name, lambda: [])

    def sigma_curves():
        seen.append(capsys.readouterr().out)
        return {
            "epsilon": np.array([1.0, 2.0]),
            "paper": np.array([2.0, 1.0]),
            "certified": np.array([0.5, 0.2]),
        }

    monkeypatch.setattr(errata_003, "sigma_curves", sigma_curves)


def test_figures_prints_each_file_as_it_is_written_and_a_table_as_tables(
    capsys, monkeypatch, tmp_path
):
    pytest.importorskip("matplotlib")
    from hockeystick.cli import main

    seen: list[str] = []
    _stub_paper_003(monkeypatch, capsys, seen)
    out_dir = tmp_path / "figs"
    assert main(["figures", "--out-dir", str(out_dir)]) == 0
    before_sigma = seen[0]
    printed = before_sigma + capsys.readouterr().out
    for name in ("000_fig2.png", "002_fig2.png", "002_fig3.png"):
        assert f"figure written to {out_dir / name}" in before_sigma
    assert f"tables written to {out_dir / 'paper-003-calibration.md'}" in before_sigma
    assert f"figure written to {out_dir / 'paper-003-sigma.png'}" in printed
    assert "figure written to" not in "".join(
        line for line in printed.splitlines() if line.endswith(".md")
    )
    assert len(printed.splitlines()) == 5
