"""plot_grid picks the natural picture of a sweep and draws the right numbers."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import hockeystick as hs  # noqa: E402
from hockeystick.gaussian_mechanism import GaussianMechanism  # noqa: E402
from hockeystick import plots  # noqa: E402
from hockeystick.sweep import Grid  # noqa: E402


@pytest.fixture
def drawn(monkeypatch):
    """Record what each drawing function receives, then let it draw."""
    calls: list[tuple[str, tuple, dict]] = []
    for name in ("delta_epsilon_curves", "parameter_curves", "heatmap"):
        real = getattr(plots, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append((_name, args, kwargs))
            return _real(*args, **kwargs)

        monkeypatch.setattr(plots, name, spy)
    return calls


def _is_png(path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_delta_epsilon_curves_one_per_sigma(tmp_path, drawn):
    grid = Grid.from_parameters("gaussian", "delta", {"sigma": "log:0.5:8:30", "rounds": [1, 10, 100],
                                                      "epsilon": "linear:0.1:6:400"})
    path = plots.plot_grid(grid, tmp_path / "curves.png")
    assert _is_png(path)
    (name, (eps, curves, _), _kw), = drawn
    assert name == "delta_epsilon_curves" and len(eps) == 200 and eps[0] == 0.1 and eps[-1] == 6
    assert len(curves) == 8  # sigma thinned to 8 curves, both ends kept; rounds held at its middle value
    assert "sigma=0.5" in curves and "sigma=8" in curves
    np.testing.assert_array_equal(curves["sigma=8"], GaussianMechanism(sigma=8.0, rounds=10).delta(eps))


def test_sigma_needed_against_rounds(tmp_path, drawn):
    grid = Grid.from_parameters("gaussian", "sigma", {"rounds": "log:1:1000:20", "epsilon": [0.5, 1, 2],
                                                      "delta": 1e-5})
    plots.plot_grid(grid, tmp_path / "sigma.png")
    (name, (rounds, curves, _), kwargs), = drawn
    assert name == "parameter_curves" and kwargs["xlabel"] == "rounds" and len(curves) == 3
    np.testing.assert_allclose(curves["epsilon=1"], np.sqrt(rounds) / hs.theta_radius(1.0, 1e-5), rtol=1e-9)


def test_heatmap_over_the_two_longest_axes(tmp_path, drawn):
    grid = Grid.from_parameters("gaussian", "epsilon", {"sigma": "log:1:20:50", "rounds": "log:1:1000:40",
                                                        "sensitivity": [1, 2], "delta": 1e-6})
    plots.plot_grid(grid, tmp_path / "heat.png")
    (name, (x, y, z, _), kwargs), = drawn
    assert name == "heatmap" and (kwargs["ylabel"], kwargs["xlabel"]) == ("sigma", "rounds")
    assert z.shape == (len(y), len(x))
    # sensitivity held at its middle, 2
    expected = GaussianMechanism(sigma=y[:, None], rounds=x[None, :], sensitivity=2.0).epsilon(1e-6)
    np.testing.assert_array_equal(z, expected)


def test_no_axis_no_plot(tmp_path):
    grid = Grid.from_parameters("gaussian", "delta", {"sigma": 1, "epsilon": 1})
    with pytest.raises(ValueError, match="no axis"):
        plots.plot_grid(grid, tmp_path / "x.png")
