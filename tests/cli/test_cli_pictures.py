"""The pictures say what the command line asked: a run's checkpoints in epochs with --every epoch, both
certified sides with --bound both."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("xarray")

from hockeystick.cli import main  # noqa: E402
from hockeystick.plots import canvas  # noqa: E402


@pytest.fixture
def figures(monkeypatch):
    """Each figure as it is saved (then saved)."""
    saved = []
    real = canvas.save

    def spy(fig, path):
        saved.append(fig)
        return real(fig, path)

    monkeypatch.setattr(canvas, "save", spy)
    return saved


def _lines(ax) -> dict[str, tuple[np.ndarray, np.ndarray, str]]:
    return {line.get_label(): (line.get_xdata(), line.get_ydata(), line.get_linestyle()) for line in ax.get_lines()}


def test_every_epoch_draws_both_sides_against_epochs(capsys, tmp_path, figures):
    """--every epoch --bound both --plot: the upper and the lower side (dashed, never above it) against epochs
    1, 2, 3 on a linear axis, the values the table prints."""
    png = tmp_path / "run.png"
    argv = ["epsilon", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "3", "--noise-multiplier", "1"]
    code = main(
        [*argv, "--delta", "1e-5", "--every", "epoch", "--bound", "both", "--plot", str(png), "--format", "csv"]
    )
    out, err = capsys.readouterr()
    assert code == 0 and png.stat().st_size > 0, err
    (ax,) = figures[0].axes
    assert ax.get_xlabel() == "epochs" and ax.get_xscale() == "linear"
    lines = _lines(ax)
    (x_up, upper, solid), (x_low, lower, dashed) = lines["upper (certified)"], lines["lower (certified)"]
    assert list(x_up) == list(x_low) == [1, 2, 3] and solid == "-" and dashed == "--"
    rows = [line.split(",") for line in out.splitlines() if line and line[0].isdigit()]
    header = out.splitlines()[0].split(",")
    printed = np.array([[float(r[header.index(c)]) for c in ("epsilon_lower", "epsilon_upper")] for r in rows])
    assert np.array_equal(printed, np.column_stack([lower, upper])) and np.all(lower <= upper)


def test_bound_both_draws_each_curve_with_its_lower_side(capsys, tmp_path, figures):
    png = tmp_path / "b.png"
    code = main(
        [
            "sweep",
            "-a",
            "pld_subsampled_gaussian",
            "-p",
            "sigma=0.8",
            "-p",
            "sampling_rate=0.01",
            "-p",
            "rounds=10",
            "--epsilon",
            "linear:0.2:2:6",
            "--bound",
            "both",
            "-o",
            str(tmp_path / "b.csv"),
            "--plot",
            str(png),
            "--no-progress",
        ]
    )
    _, err = capsys.readouterr()
    assert code == 0, err
    (ax,) = figures[0].axes
    lines = _lines(ax)
    (x, upper, _), (x_low, lower, style) = lines["upper side"], lines["lower side (dashed)"]
    assert list(x) == list(x_low) and style == "--" and np.all(lower <= upper) and np.any(lower > 0)
    assert "the lower dashed" in ax.get_title()
