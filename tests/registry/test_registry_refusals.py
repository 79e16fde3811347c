"""The registry's lookups and per-point accountants answer the contract's every side, and refuse by name."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import registry
from hockeystick.fdp import GaussianMechanism
from hockeystick.registry import PerPoint


def test_a_calculators_name_asked_of_get_says_it_is_a_calculator():
    name = registry.calculator_names()[0]
    with pytest.raises(
        ValueError, match=rf"'{name}' is a calculator .*not an accountant: registry.lookup"
    ):
        registry.get(name)
    assert registry.lookup(name) is registry.CALCULATORS[name]


def test_per_point_gives_both_sides_as_the_pair_of_each_side():
    run = PerPoint.of(GaussianMechanism)(sigma=np.array([1.0, 2.0]), sensitivity=1.0, rounds=3)
    eps = np.array([0.5, 1.0])
    lower, upper = run.delta(eps, bound="both")
    np.testing.assert_array_equal(lower, run.delta(eps, bound="lower"))
    np.testing.assert_array_equal(upper, run.delta(eps, bound="upper"))
    assert np.all(lower <= upper)
    low_eps, high_eps = run.epsilon(1e-5, bound="both")
    assert np.all(low_eps <= high_eps)


def test_per_point_refuses_an_unknown_side_by_name():
    run = PerPoint.of(GaussianMechanism)(sigma=1.0, sensitivity=1.0, rounds=1)
    with pytest.raises(ValueError, match="bound must be"):
        run.delta(1.0, bound="middle")
