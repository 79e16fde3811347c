"""A curve's label gives its value in as few digits as keep the curves apart (3, more only where needed)."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("xarray")

from hockeystick.plots import canvas, plot_grid  # noqa: E402
from hockeystick.sweep import Grid  # noqa: E402


def test_labels_keep_the_digits_that_tell_the_values_apart(tmp_path, monkeypatch):
    figures = []
    save = canvas.save
    monkeypatch.setattr(canvas, "save", lambda fig, path: figures.append(fig) or save(fig, path))
    sigma = [0.0973031, 0.185888, 1.0001, 1.0002]
    grid = Grid.from_parameters("gaussian", "delta", {"sigma": sigma, "epsilon": "linear:0.5:2:4"})
    plot_grid(grid, tmp_path / "close.png", hue="sigma")
    labels = [line.get_label() for line in figures[0].axes[0].get_lines()]
    assert labels == ["sigma=0.0973", "sigma=0.186", "sigma=1.0001", "sigma=1.0002"]
