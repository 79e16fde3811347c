"""Pictures a user chooses: `plot` and `sweep --plot` take the x axis, the hue, the heat map's y, facets
and slices; the title says which axes are held at one value (apart from the fixed parameters); --levels
changes the picture or is refused; a name that is no axis is refused with the closest one, before a sweep
runs."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("xarray")

import hockeystick as hs  # noqa: E402
from hockeystick import plots  # noqa: E402
from hockeystick.cli import main  # noqa: E402
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism  # noqa: E402
from hockeystick.sweep import Grid, run_sweep  # noqa: E402

_AXES = ["-p", "sigma=log:0.5:10:12", "-p", "rounds=1,10,100", "--delta", "1e-6,1e-5"]


@pytest.fixture
def drawn(monkeypatch):
    """Record what each one-panel drawing function receives, then let it draw: the function is replaced both
    where plots exports it and in the module that defines it (where the sweep pictures call it)."""
    calls: list[tuple[str, tuple, dict]] = []
    for name in ("delta_epsilon_curves", "parameter_curves", "heatmap"):
        real = getattr(plots, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append((_name, args, kwargs))
            return _real(*args, **kwargs)

        for module in {plots, sys.modules[real.__module__]}:
            monkeypatch.setattr(module, name, spy)
    return calls


@pytest.fixture
def saved(tmp_path):
    """epsilon of the Gaussian mechanism over sigma x rounds x delta, saved as NetCDF."""
    grid = Grid.from_parameters(
        "gaussian",
        "epsilon",
        {"sigma": "log:0.5:10:12", "rounds": [1, 10, 100], "delta": [1e-6, 1e-5]},
    )
    path = tmp_path / "eps.nc"
    run_sweep(grid, path, progress=False)
    return path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_x_hue_and_slice_choose_the_curves(capsys, tmp_path, saved, drawn):
    png = tmp_path / "eps.png"
    code, out, _ = _run(
        capsys,
        "plot",
        str(saved),
        "--plot",
        str(png),
        "--x",
        "sigma",
        "--hue",
        "rounds",
        "--slice",
        "delta=1e-5",
    )
    assert code == 0 and f"plot written to {png}" in out
    ((name, (sigma, curves, _), kwargs),) = drawn
    assert (
        name == "parameter_curves"
        and kwargs["xlabel"] == "sigma"
        and list(curves) == ["rounds=1", "rounds=10", "rounds=100"]
    )
    np.testing.assert_allclose(
        curves["rounds=10"], hs.theta_epsilon(np.sqrt(10) / sigma, 1e-5), rtol=1e-9
    )
    assert "sliced: delta=1e-05 (of 1e-06, 1e-05)" in kwargs["title"]


def test_the_title_names_the_held_axis_as_sliced_not_fixed(capsys, tmp_path, drawn):
    """`sweep --plot` over three axes draws one slice of the third: the title says so, with its values."""
    png = tmp_path / "eps.png"
    code, _, _ = _run(
        capsys, "sweep", "-a", "gaussian", *_AXES, "-q", "epsilon", "-p", "sensitivity=2", "-o", str(tmp_path / "s.csv"),
        "--no-progress", "--plot", str(png),
    )  # fmt: skip
    assert code == 0
    ((name, (delta, curves, _), kwargs),) = drawn
    assert name == "parameter_curves" and kwargs["xlabel"] == "delta" and len(curves) == 8
    title = kwargs["title"].replace("\n", " ")
    assert "fixed: sensitivity=2" in title and "sliced: rounds=10 (middle of 1, 10, 100)" in title
    np.testing.assert_allclose(
        curves["sigma=10"],
        GaussianMechanism(sigma=10.0, rounds=10, sensitivity=2.0).epsilon(delta),
        rtol=1e-12,
    )


def test_a_slice_between_axis_values_takes_the_nearest_and_says_so(tmp_path, drawn):
    grid = Grid.from_parameters(
        "gaussian", "epsilon", {"sigma": [1, 2, 4], "rounds": [1, 10, 100, 1000], "delta": 1e-5}
    )
    plots.plot_grid(grid, tmp_path / "x.png", x="sigma", slices={"rounds": 50})
    ((_, (sigma, curves, _), kwargs),) = drawn
    assert "rounds=100 (nearest to 50, of 1, 10, 100, 1000)" in kwargs["title"]
    np.testing.assert_allclose(curves["epsilon"], hs.theta_epsilon(10 / sigma, 1e-5), rtol=1e-9)


def test_levels_change_the_curves_picture(capsys, tmp_path, saved):
    """--levels on a curves picture draws a dotted line at each level (the bytes differ from the picture without)."""
    plain, marked = tmp_path / "plain.png", tmp_path / "marked.png"
    assert _run(capsys, "plot", str(saved), "--plot", str(plain))[0] == 0
    assert _run(capsys, "plot", str(saved), "--plot", str(marked), "--levels", "1,2,4")[0] == 0
    assert plain.read_bytes() != marked.read_bytes()


def test_levels_no_contour_crosses_are_refused(capsys, tmp_path, saved):
    code, _, err = _run(
        capsys,
        "plot",
        str(saved),
        "--plot",
        str(tmp_path / "h.png"),
        "--kind",
        "heatmap",
        "--levels",
        "1e6",
    )
    assert code == 2 and "--levels 1e+06: none lies within the values drawn" in err


def test_y_and_facet_draw_a_heat_map_per_value(capsys, tmp_path, saved, monkeypatch):
    """--facet delta over two deltas: one figure, one heat-map panel titled by each delta."""
    from matplotlib.figure import Figure

    figures: list[Figure] = []
    real = Figure.savefig

    def keeping(self, *args, **kwargs):
        figures.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keeping)
    png = tmp_path / "heat.png"
    code, _, _ = _run(
        capsys,
        "plot",
        str(saved),
        "--plot",
        str(png),
        "--x",
        "rounds",
        "--y",
        "sigma",
        "--facet",
        "delta",
    )
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (figure,) = figures
    panels = [ax for ax in figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["delta=1e-06", "delta=1e-05"]
    assert all(
        any(type(c).__name__ == "QuadMesh" for c in ax.collections) for ax in panels
    )  # a heat map each


def test_delta_against_a_parameter_is_drawn_against_it(tmp_path, drawn):
    """A delta sweep drawn along sigma (not epsilon): delta against sigma, one curve per epsilon."""
    grid = Grid.from_parameters(
        "gaussian", "delta", {"sigma": "log:1:8:20", "epsilon": [0.5, 1, 2]}
    )
    plots.plot_grid(grid, tmp_path / "d.png", x="sigma", hue="epsilon")
    ((name, (sigma, curves, _), kwargs),) = drawn
    assert (
        name == "parameter_curves"
        and kwargs["xlabel"] == "sigma"
        and kwargs["ylabel"] == "delta(epsilon)"
    )
    np.testing.assert_array_equal(curves["epsilon=1"], GaussianMechanism(sigma=sigma).delta(1.0))


@pytest.mark.parametrize(
    "flags, message",
    [
        (
            ["--x", "sigam"],
            "--x 'sigam' is not an axis of this sweep (did you mean 'sigma'?); its axes: sigma, rounds, delta",
        ),
        (["--hue", "sigma", "--x", "sigma"], "'sigma' is both the x and the hue"),
        (["--slice", "rounds"], "--slice 'rounds': write AXIS=VALUE"),
        (["--slice", "delta=inf"], "--slice 'delta=inf': write AXIS=VALUE with a number"),
        (["--levels", "1,nan"], "--levels '1,nan': give finite numbers"),
        (["--slice", "epsilon=1"], "--slice 'epsilon' is not an axis of this sweep"),
        (["--y", "sigma", "--kind", "curves"], "curves draw the output on y: use hue='sigma'"),
        (
            [
                "--facet",
                "rounds",
                "--slice",
                "sigma=1",
                "--slice",
                "delta=1e-5",
                "--kind",
                "heatmap",
            ],
            "a heat map needs two axes",
        ),
    ],
)
def test_wrong_choices_are_usage_errors_with_a_suggestion(capsys, tmp_path, saved, flags, message):
    code, _, err = _run(capsys, "plot", str(saved), "--plot", str(tmp_path / "x.png"), *flags)
    assert code == 2 and message in err, err


def test_sweep_refuses_a_wrong_axis_before_evaluating(capsys, tmp_path, monkeypatch):
    from hockeystick.sweep import run as run_module

    def no_evaluation(*args, **kwargs):
        raise AssertionError("the sweep ran before its picture's axes were checked")

    monkeypatch.setattr(run_module, "evaluate", no_evaluation)
    argv = [
        "sweep",
        "-a",
        "gaussian",
        *_AXES,
        "-q",
        "epsilon",
        "-o",
        str(tmp_path / "s.csv"),
        "--no-progress",
    ]
    code, _, err = _run(capsys, *argv, "--plot", str(tmp_path / "p.png"), "--hue", "round")
    assert (
        code == 2 and "--hue 'round' is not an axis of this sweep (did you mean 'rounds'?)" in err
    )
    code, _, err = _run(capsys, *argv, "--x", "rounds")
    assert code == 2 and "the picture flags (--x) go with --plot PNG" in err
    code, _, err = _run(
        capsys,
        *argv,
        "--plot",
        str(tmp_path / "p.png"),
        "--slice",
        "delta=1e-5",
        "--slice",
        "delta=1e-6",
    )
    assert code == 2 and "--slice delta is given twice" in err


def test_a_slice_of_a_fixed_parameter_at_its_value_is_accepted_and_another_refused():
    axes = {"sigma": np.array([1.0, 2.0])}
    picture = plots.choose_picture("epsilon", axes, {"delta": 1e-5}, slices={"delta": 1e-5})
    assert picture.held == {} and picture.x == "sigma"
    with pytest.raises(ValueError, match="delta is fixed at 1e-05 in this sweep, not an axis"):
        plots.choose_picture("epsilon", axes, {"delta": 1e-5}, slices={"delta": 1e-6})
    with pytest.raises(ValueError, match="x 'delta': delta is fixed at 1e-05"):
        plots.choose_picture("epsilon", axes, {"delta": 1e-5}, x="delta")


def test_two_short_axes_draw_curves_two_long_ones_a_heat_map():
    """A 3 x 3 grid read as colours shows nine patches; as three curves it shows the trend."""
    short = {"sigma": np.array([1.0, 2.0, 4.0]), "rounds": np.array([1, 10, 100])}
    picture = plots.choose_picture("delta", short, {"epsilon": 1.0})
    assert (picture.kind, picture.x, picture.second) == ("curves", "rounds", "sigma")
    long = {"sigma": np.geomspace(1, 8, 30), "rounds": np.arange(1, 21)}
    picture = plots.choose_picture("delta", long, {"epsilon": 1.0})
    assert (picture.kind, picture.x, picture.second) == ("heatmap", "rounds", "sigma")
