"""Calibration at a small target delta refines its grid (``calibrate.question_grid``): the noise it returns is within
0.5 % of the least noise the certified lower side at accuracy 1e-4 allows."""

from __future__ import annotations

import warnings

from hockeystick import registry
from hockeystick.calibrate import calibrate
from hockeystick.calibrate.question_grid import question_grid
from hockeystick.training import DPSGD

RUN = dict(sample_rate=256 / 60_000, steps=14_100)


def test_readme_run_calibrated_at_delta_1e_10_is_within_half_a_percent_of_the_lower_side():
    sigma = calibrate("dp_sgd", "noise_multiplier", target_epsilon=3, target_delta=1e-10, **RUN)
    # 0.5 % less noise certainly misses it (its certified lower epsilon above 3): sigma <= 1.005 sigma_lo
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a bracket wider than 1e-4 is still certified
        lower = DPSGD(noise_multiplier=sigma / 1.005, **RUN, accuracy=1e-4).epsilon(1e-10, bound="lower")
    assert lower > 3


def test_the_grid_is_refined_only_below_the_delta_floor_and_only_where_none_is_chosen():
    entry = registry.get("dp_sgd")
    params = dict(RUN)
    assert question_grid(entry, 1e-5, params) == params
    assert question_grid(entry, 1e-10, params) == {**params, "accuracy": 1e-3}
    chosen = {**params, "value_discretization_interval": 1e-4}
    assert question_grid(entry, 1e-10, chosen) == chosen
    shuffled = {**params, "sampling": "shuffle"}
    assert question_grid(entry, 1e-10, shuffled) == shuffled
