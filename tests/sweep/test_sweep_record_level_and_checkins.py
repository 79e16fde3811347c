"""Grids of a record inside FL (``record_level_fedavg``) and of random check-ins (``random_checkins``): every point
is the class's answer broadcast over the axes, on both sides, and a point outside a parameter's range is refused
naming the parameter."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import training
from hockeystick.sweep import Grid, dataframe

H = 1e-2  # a coarse grid: the sweep and the class on the same one


def test_a_two_axis_grid_of_a_record_inside_fl_is_the_class_broadcast():
    z, q_c = np.array([1.0, 2.0]), np.array([0.02, 0.1])
    fixed = dict(local_steps=3, rounds=10, local_sample_rate=0.5, value_discretization_interval=H)
    grid = Grid.from_parameters(
        "record_level_fedavg",
        "epsilon",
        dict(fixed, noise_multiplier=z, client_sample_rate=q_c, delta=1e-6),
        bound="both",
    )
    table = dataframe(grid).sort_values(["noise_multiplier", "client_sample_rate"])
    run = training.RecordLevelFedAvg(
        noise_multiplier=z[:, None], client_sample_rate=q_c[None, :], **fixed
    )
    lower, upper = run.epsilon(1e-6, bound="both")
    np.testing.assert_array_equal(table["epsilon_lower"].to_numpy(), lower.ravel())
    np.testing.assert_array_equal(table["epsilon_upper"].to_numpy(), upper.ravel())
    assert np.all(np.diff(upper, axis=1) > 0) and np.all(
        np.diff(upper, axis=0) < 0
    )  # more sampling, less noise


def test_a_grid_of_check_in_probabilities_is_the_class_broadcast():
    p = np.array([0.1, 0.5, 1.0])
    fixed = dict(noise_multiplier=1.5, slots=4, passes=3, value_discretization_interval=H)
    table = dataframe(
        Grid.from_parameters(
            "random_checkins", "delta", dict(fixed, checkin_probability=p, epsilon=1.0)
        )
    )
    run = training.RandomCheckIns(checkin_probability=p, **fixed)
    np.testing.assert_array_equal(
        table.sort_values("checkin_probability")["delta"].to_numpy(), run.delta(1.0)
    )


@pytest.mark.parametrize(
    ("name", "params", "word"),
    [
        (
            "record_level_fedavg",
            dict(noise_multiplier=1.0, client_sample_rate=0.0, local_steps=2, rounds=3),
            "client_sample_rate",
        ),
        (
            "record_level_fedavg",
            dict(noise_multiplier=1.0, client_sample_rate=0.1, local_steps=0, rounds=3),
            "local_steps",
        ),
        (
            "random_checkins",
            dict(noise_multiplier=1.0, checkin_probability=0.5, slots=2.5),
            "slots",
        ),
    ],
)
def test_a_point_outside_the_range_is_refused_naming_the_parameter(name, params, word):
    with pytest.raises(ValueError, match=word):
        dataframe(
            Grid.from_parameters(
                name, "epsilon", dict(params, delta=1e-5, value_discretization_interval=H)
            )
        )
