"""plot_grid picks the natural picture of a sweep and draws the right numbers."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import hockeystick as hs  # noqa: E402
from hockeystick import plots  # noqa: E402
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism  # noqa: E402
from hockeystick.plots import curves, heatmaps  # noqa: E402
from hockeystick.sweep import Grid  # noqa: E402


@pytest.fixture
def drawn(monkeypatch):
    """Record what each drawing function receives, then let it draw."""
    calls: list[tuple[str, tuple, dict]] = []
    for module, name in (
        (curves, "delta_epsilon_curves"),
        (curves, "parameter_curves"),
        (heatmaps, "heatmap"),
    ):
        real = getattr(module, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append((_name, args, kwargs))
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    return calls


def _is_png(path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_delta_epsilon_curves_one_per_sigma(tmp_path, drawn):
    grid = Grid.from_parameters(
        "gaussian",
        "delta",
        {"sigma": "log:0.5:8:30", "rounds": [1, 10, 100], "epsilon": "linear:0.1:6:400"},
    )
    path = plots.plot_grid(grid, tmp_path / "curves.png")
    assert _is_png(path)
    ((name, (eps, curves, _), _kw),) = drawn
    assert name == "delta_epsilon_curves" and len(eps) == 200 and eps[0] == 0.1 and eps[-1] == 6
    assert (
        len(curves) == 8
    )  # sigma thinned to 8 curves, both ends kept; rounds held at its middle value
    assert "sigma=0.5" in curves and "sigma=8" in curves
    np.testing.assert_array_equal(
        curves["sigma=8"], GaussianMechanism(sigma=8.0, rounds=10).delta(eps)
    )


def test_sigma_needed_against_rounds(tmp_path, drawn):
    grid = Grid.from_parameters(
        "gaussian", "sigma", {"rounds": "log:1:1000:20", "epsilon": [0.5, 1, 2], "delta": 1e-5}
    )
    plots.plot_grid(grid, tmp_path / "sigma.png")
    ((name, (rounds, curves, _), kwargs),) = drawn
    assert name == "parameter_curves" and kwargs["xlabel"] == "rounds" and len(curves) == 3
    np.testing.assert_allclose(
        curves["epsilon=1"], np.sqrt(rounds) / hs.theta_radius(1.0, 1e-5), rtol=1e-9
    )


def test_heatmap_over_the_two_longest_axes(tmp_path, drawn):
    grid = Grid.from_parameters(
        "gaussian",
        "epsilon",
        {"sigma": "log:1:20:50", "rounds": "log:1:1000:40", "sensitivity": [1, 2], "delta": 1e-6},
    )
    plots.plot_grid(grid, tmp_path / "heat.png")
    ((name, (x, y, z, _), kwargs),) = drawn
    assert name == "heatmap" and (kwargs["ylabel"], kwargs["xlabel"]) == ("sigma", "rounds")
    assert z.shape == (len(y), len(x))
    # sensitivity held at its middle, 2
    expected = GaussianMechanism(sigma=y[:, None], rounds=x[None, :], sensitivity=2.0).epsilon(1e-6)
    np.testing.assert_array_equal(z, expected)


def test_no_axis_no_plot(tmp_path):
    grid = Grid.from_parameters("gaussian", "delta", {"sigma": 1, "epsilon": 1})
    with pytest.raises(ValueError, match="no axis"):
        plots.plot_grid(grid, tmp_path / "x.png")


def test_a_saved_sweep_is_drawn_from_the_file_alone(tmp_path, drawn, monkeypatch):
    """`hockeystick plot FILE`: no accountant is evaluated again; log axes where the sweep's axis was
    log-spaced or its listed values span more than 20x (rounds 1 to 144); a contour set per accountant at the
    target epsilons."""
    from hockeystick.cli import main
    from hockeystick.sweep import read_sweep, run_sweep
    from hockeystick.sweep import run as run_module

    grid = Grid.from_parameters(
        ["gaussian", "rdp_subsampled_gaussian"],
        "epsilon",
        {
            "sigma": "log:0.5:10:30",
            "rounds": [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144],
            "sampling_rate": 1.0,
            "delta": 1e-5,
        },
    )
    path = tmp_path / "sweep.nc"
    run_sweep(grid, path, progress=False)

    def no_evaluation(*args, **kwargs):
        raise AssertionError("plot FILE evaluated an accountant")

    monkeypatch.setattr(run_module, "evaluate", no_evaluation)
    assert main(["plot", str(path), "--plot", str(tmp_path / "heat.png"), "--levels", "1,2,4"]) == 0
    assert _is_png(tmp_path / "heat.png")
    ((name, (x, y, z, _), kwargs),) = drawn
    assert name == "heatmap" and (kwargs["xlabel"], kwargs["ylabel"]) == ("rounds", "sigma")
    assert (
        kwargs["log_x"] is True and kwargs["log_y"] is True and kwargs["levels"] == [1.0, 2.0, 4.0]
    )
    assert set(kwargs["contours"]) == {"gaussian", "rdp_subsampled_gaussian"}
    saved = read_sweep(path)
    np.testing.assert_array_equal(z, saved["epsilon"].transpose("sigma", "rounds").values)
    # the Gaussian's column is the exact composition: epsilon of radius sqrt(T) / sigma
    expected = hs.theta_epsilon(np.sqrt(x)[None, :] / y[:, None], 1e-5)
    np.testing.assert_allclose(kwargs["contours"]["gaussian"], expected, rtol=1e-9)


def test_a_sweep_file_draws_the_same_curves_as_its_grid(tmp_path, drawn):
    from hockeystick.sweep import read_sweep, run_sweep

    grid = Grid.from_parameters(
        "gaussian", "delta", {"sigma": [1, 2, 4], "epsilon": "linear:0.1:5:60"}
    )
    run_sweep(grid, tmp_path / "s.csv", progress=False)
    plots.plot_grid(grid, tmp_path / "a.png")
    plots.plot_dataset(read_sweep(tmp_path / "s.csv"), tmp_path / "b.png")
    (_, (eps_a, curves_a, _), _), (_, (eps_b, curves_b, _), _) = drawn
    np.testing.assert_array_equal(eps_a, eps_b)
    assert list(curves_a) == list(curves_b) == ["sigma=1", "sigma=2", "sigma=4"]
    for label in curves_a:
        np.testing.assert_array_equal(curves_a[label], curves_b[label])


def test_a_listed_log_spaced_axis_is_drawn_on_a_log_scale_in_every_picture(tmp_path, saved_figures):
    """rounds 1, 10, 100, 1000 given as a list: the heat map's panels and the curves of the same file both
    put rounds on a log axis, each decade's cells equally wide (geometric cell edges)."""
    from hockeystick.sweep import read_sweep, run_sweep

    grid = Grid.from_parameters(
        "gaussian",
        "epsilon",
        {"rounds": [1, 10, 100, 1000], "sigma": [0.5, 1, 2, 4], "delta": [1e-5, 1e-6]},
    )
    run_sweep(grid, tmp_path / "eps.csv", progress=False)
    ds = read_sweep(tmp_path / "eps.csv")
    plots.plot_dataset(ds, tmp_path / "panels.png", x="rounds", y="sigma", facet="delta")
    plots.plot_dataset(ds, tmp_path / "curves.png", x="rounds", hue="sigma", facet="delta")
    plots.plot_dataset(ds, tmp_path / "one.png", x="rounds", hue="sigma", slices={"delta": 1e-5})
    panels, curves, one = saved_figures
    heat_axes = [
        ax for ax in panels.axes if ax.get_title().startswith("delta=")
    ]  # not the colour bar
    assert len(heat_axes) == 2
    for ax in heat_axes:
        assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"  # sigma spans 8x: linear
        mesh = next(c for c in ax.collections if hasattr(c, "get_coordinates"))
        edges = mesh.get_coordinates()[0, :, 0]
        np.testing.assert_allclose(np.diff(np.log10(edges)), 1.0)
    for figure in (curves, one):
        drawn = [ax for ax in figure.axes if ax.lines]
        assert drawn and all(ax.get_xscale() == "log" for ax in drawn)


@pytest.mark.parametrize(
    "values, spacing, scale",
    [
        ([1, 10, 100, 1000], None, "log"),
        ([1, 10, 100, 1000], "list", "log"),
        ([100, 200, 400], None, "linear"),
        ([1, 2, 3, 100], "linear", "linear"),
        ([2, 3], "log", "log"),
        ([0, 10, 1000], None, "linear"),
        ([-1, 1000], "log", "linear"),
        ([np.nan, 1, 1e6], None, "log"),
    ],
)
def test_axis_scale_is_one_rule(values, spacing, scale):
    assert plots.axis_scale(values, spacing) == scale
