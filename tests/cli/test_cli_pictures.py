"""The pictures say what the command line asked: a run's checkpoints in epochs with --every epoch, both
certified sides with --bound both."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("xarray")

from hockeystick.cli import main  # noqa: E402


def _lines(ax) -> dict[str, tuple[np.ndarray, np.ndarray, str]]:
    return {
        line.get_label(): (line.get_xdata(), line.get_ydata(), line.get_linestyle())
        for line in ax.get_lines()
    }


def test_every_epoch_draws_both_sides_against_epochs(capsys, tmp_path, saved_figures):
    """--every epoch --bound both --plot: the upper and the lower side (dashed, never above it) against epochs
    1, 2, 3 on a linear axis, the values the table prints."""
    png = tmp_path / "run.png"
    argv = [
        "epsilon",
        "--dataset-size",
        "1000",
        "--batch-size",
        "100",
        "--epochs",
        "3",
        "--noise-multiplier",
        "1",
    ]
    code = main(
        [
            *argv,
            "--delta",
            "1e-5",
            "--every",
            "epoch",
            "--bound",
            "both",
            "--plot",
            str(png),
            "--format",
            "csv",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0 and png.stat().st_size > 0, err
    (ax,) = saved_figures[0].axes
    assert ax.get_xlabel() == "epochs" and ax.get_xscale() == "linear"
    lines = _lines(ax)
    (x_up, upper, solid), (x_low, lower, dashed) = (
        lines["upper (certified)"],
        lines["lower (certified)"],
    )
    assert list(x_up) == list(x_low) == [1, 2, 3] and solid == "-" and dashed == "--"
    rows = [line.split(",") for line in out.splitlines() if line and line[0].isdigit()]
    header = out.splitlines()[0].split(",")
    printed = np.array(
        [[float(r[header.index(c)]) for c in ("epsilon_lower", "epsilon_upper")] for r in rows]
    )
    assert np.array_equal(printed, np.column_stack([lower, upper])) and np.all(lower <= upper)


def test_bound_both_draws_each_curve_with_its_lower_side(capsys, tmp_path, saved_figures):
    """sweep --bound both --plot: each curve's lower side dashed in its colour, never above it; the saved sweep's
    heat map (plot, nothing evaluated again) colours the upper side and draws both sides' contours, and says so."""
    png, saved = tmp_path / "b.png", tmp_path / "b.nc"
    axes = [
        "-p",
        "sigma=0.8,1.6",
        "-p",
        "sampling_rate=0.1",
        "-p",
        "rounds=3",
        "--epsilon",
        "linear:0.2:2:6",
    ]
    # both sigmas' curves (each side) cross the heat map's 1e-3 contour inside the epsilon range
    code = main(["sweep", "-a", "pld_subsampled_gaussian", *axes, "--bound", "both", "-o", str(saved)]
                + ["--plot", str(png), "--no-progress"])  # fmt: skip
    _, err = capsys.readouterr()
    assert code == 0, err
    (ax,) = saved_figures[0].axes
    lines = ax.get_lines()
    uppers = [line for line in lines if line.get_label().startswith("sigma=")]
    lowers = [line for line in lines if line.get_linestyle() == "--"]
    assert len(uppers) == len(lowers) == 2 and "the lower dashed" in ax.get_title()
    for upper, lower in zip(uppers, lowers):
        assert lower.get_color() == upper.get_color() and np.isfinite(lower.get_ydata()).any()
        assert not np.any(lower.get_ydata() > upper.get_ydata())
    code = main(
        [
            "plot",
            str(saved),
            "--plot",
            str(tmp_path / "h.png"),
            "--kind",
            "heatmap",
            "--levels",
            "1e-3",
        ]
    )
    _, err = capsys.readouterr()
    assert code == 0, err
    title = saved_figures[1].axes[0].get_title()
    legend = [text.get_text() for text in saved_figures[1].axes[0].get_legend().get_texts()]
    assert "contours: both sides" in title and legend == [
        "upper side: delta = 0.001",
        "lower side: delta = 0.001",
    ]
