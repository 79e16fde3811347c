"""The grid specification: value forms, validation messages, integer axes, chunk tiling."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick.sweep import Axis, Grid, parse_value
from hockeystick.sweep.grid import load_toml


def test_value_forms_give_the_same_axes():
    assert parse_value("sigma", 2) == 2.0
    assert parse_value("sigma", "2.5") == 2.5
    np.testing.assert_array_equal(parse_value("sigma", "1,2,4").values, [1, 2, 4])
    np.testing.assert_array_equal(parse_value("sigma", [1, 2, 4]).values, [1, 2, 4])
    log = parse_value("sigma", "log:0.5:20:7")
    assert log.kind == "log" and log.values[0] == 0.5 and log.values[-1] == 20
    np.testing.assert_allclose(np.diff(np.log(log.values)), np.log(40) / 6)
    np.testing.assert_array_equal(parse_value("sigma", {"log": [0.5, 20, 7]}).values, log.values)
    lin = parse_value("x", {"linear": [1, 3, 5]})
    np.testing.assert_array_equal(lin.values, [1, 1.5, 2, 2.5, 3])
    np.testing.assert_array_equal(parse_value("x", "lin:1:3:5").values, lin.values)
    decreasing = parse_value("x", [4, 2, 1])
    np.testing.assert_array_equal(decreasing.values, [4, 2, 1])


@pytest.mark.parametrize(
    "spec, message",
    [
        ([], "empty"),
        ("linear:1:2:0", "integer >= 1"),
        ({"log": [0, 1, 3]}, "start > 0"),
        ([1, 3, 2], "not strictly monotone"),
        ([1, 1, 2], "not strictly monotone"),
        ([1, float("nan")], "finite"),
        ("1,x", "give a number"),
        ({"geom": [1, 2, 3]}, "a range is"),
        ({"log": [1, 2]}, "three numbers"),
        (True, "expected a number"),
        ("log:1:2:1000000000000", "more than one axis can hold"),
        ({"linear": [1, 2, 1e8 + 1]}, "lower NUM"),
    ],
)
def test_bad_values_are_named(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_value("sigma", spec)


def _gaussian(**params):
    return Grid.from_parameters("gaussian", "delta", params)


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: Grid.from_parameters("nope", "delta", {"sigma": 1, "epsilon": 1}),
            "unknown accountant 'nope'",
        ),
        (lambda: _gaussian(sigma=1, epsilon=1, foo=[1, 2]), "unknown parameter.*'foo'"),
        (lambda: _gaussian(sigma=1), "needs epsilon"),
        (lambda: _gaussian(epsilon=1), "needs 'sigma'"),
        (lambda: _gaussian(sigma=1, epsilon=1, delta=1e-5), "'delta' is what the sweep computes"),
        (
            lambda: Grid.from_parameters(
                "gaussian", "sigma", {"epsilon": 1, "delta": 1e-5, "sigma": 2}
            ),
            "'sigma' is what the sweep computes",
        ),
        (
            lambda: Grid.from_parameters(
                "gaussian", "sensitivity", {"epsilon": 1, "delta": 1e-5, "sigma": 2}
            ),
            "output must be delta, epsilon or a parameter to calibrate",
        ),
        (lambda: Grid.from_parameters("gaussian", "sigma", {"epsilon": 1}), "needs delta"),
        (lambda: _gaussian(sigma=1, epsilon=1, rounds=[1.5, 2]), "rounds takes integers"),
        (
            lambda: Grid.from_parameters(
                ["gaussian", "gaussian"], "delta", {"sigma": 1, "epsilon": 1}
            ),
            "twice",
        ),
        (
            lambda: Grid.from_parameters([], "delta", {"sigma": 1, "epsilon": 1}),
            "at least one accountant",
        ),
        # 4 axes of 2^16 values: each one fits, the product (2^64 points) cannot be indexed in int64
        (
            lambda: Grid(
                "gaussian",
                "delta",
                tuple(
                    Axis(n, np.arange(1.0, 2.0**16 + 1))
                    for n in ("sigma", "rounds", "sensitivity", "epsilon")
                ),
            ),
            "more than a sweep can index",
        ),
    ],
)
def test_bad_grids_fail_on_construction(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_integer_ranges_are_rounded_and_deduplicated():
    grid = _gaussian(sigma=1, epsilon=1, rounds="log:1:100:30")
    rounds = grid.axes[0].values
    assert rounds.dtype == np.int64 and rounds[0] == 1 and rounds[-1] == 100
    assert np.all(np.diff(rounds) > 0) and len(rounds) < 30


def test_toml_file(tmp_path):
    path = tmp_path / "grid.toml"
    path.write_text(
        'accountants = ["gaussian"]\noutput = "delta"\nchunk_size = 1000\n[parameters]\n'
        'sigma = { log = [0.5, 20, 10] }\nrounds = [1, 10, 100]\nepsilon = "linear:0.1:8:5"\n'
        "sensitivity = 2.0\n"
    )
    grid, settings_ = load_toml(path)
    assert grid.inputs == ("sigma", "rounds", "epsilon") and grid.shape == (10, 3, 5)
    assert grid.fixed == {"sensitivity": 2.0} and settings_ == {"chunk_size": 1000}
    path.write_text('accountants = ["gaussian"]\noutput = "delta"\nsigma = 2\n')
    with pytest.raises(ValueError, match="unknown key"):
        load_toml(path)
    path.write_text('accountants = ["gaussian"\n')
    with pytest.raises(ValueError, match="not valid TOML"):
        load_toml(path)
    with pytest.raises(ValueError, match="cannot read"):
        load_toml(tmp_path / "missing.toml")


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 7), min_size=1, max_size=4), chunk_size=st.integers(1, 400))
def test_chunks_tile_the_grid_in_order_and_carry_the_right_parameters(shape, chunk_size):
    names = ["sigma", "rounds", "epsilon", "sensitivity"][: len(shape)]
    axes = tuple(
        Axis(name, np.arange(n, dtype=float) * 10**k + 1)
        for k, (name, n) in enumerate(zip(names, shape))
    )
    fixed = {name: 1.0 for name in ("sigma", "epsilon") if name not in names}
    grid = Grid(accountants=("gaussian",), output="delta", axes=axes, fixed=fixed)
    axes = grid.axes
    expected = np.stack(np.meshgrid(*(a.values for a in axes), indexing="ij"), -1).reshape(
        -1, len(axes)
    )
    position = 0
    for i, chunk in enumerate(grid.chunks(chunk_size)):
        assert chunk.index == i and chunk.start == position and 0 < chunk.size <= max(chunk_size, 1)
        assert math.prod(grid.block_shape(chunk)) == chunk.size
        inputs = grid.chunk_inputs(chunk)
        got = np.stack([inputs[a.name] for a in axes], -1)
        np.testing.assert_array_equal(got, expected[chunk.start : chunk.stop])
        position = chunk.stop
    assert position == grid.size == math.prod(shape)
    assert grid.n_chunks(chunk_size) == i + 1


def test_probe_covers_every_value_and_corner():
    grid = _gaussian(sigma=[1, 2, 3], rounds=[1, 5], epsilon=[0.5, 1, 2, 4])
    probe = grid.probe_parameters()
    points = set(zip(probe["sigma"], probe["rounds"], probe["epsilon"]))
    for axis in grid.axes:
        assert set(axis.values) <= set(probe[axis.name])
    assert {(s, r, e) for s in (1, 3) for r in (1, 5) for e in (0.5, 4)} <= points


def test_a_grid_beyond_2_53_points_still_tiles_exactly():
    # 4 axes of 2^14 values: 2^56 points, streamable in chunks; offsets stay exact integers
    grid = Grid(
        "gaussian",
        "delta",
        tuple(
            Axis(n, np.arange(1.0, 2.0**14 + 1))
            for n in ("sigma", "rounds", "sensitivity", "epsilon")
        ),
    )
    assert grid.size == 2**56
    chunk_size = 1 << 20
    last = grid.chunk(grid.n_chunks(chunk_size) - 1, chunk_size)
    assert last.stop == grid.size and last.size == chunk_size
    assert grid.chunk(1, chunk_size).start == chunk_size
