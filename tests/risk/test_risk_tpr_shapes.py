"""``calibrate_tpr`` refuses an empty parameter and parameters that do not broadcast by name, before any search
(numpy's "cannot reshape array of size 1 into shape (0,1)" named neither)."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.risk import calibrate_tpr


@pytest.mark.parametrize("rounds", [[], np.zeros((2, 0)), np.array([], dtype=float)])
def test_an_empty_parameter_is_refused_by_name(rounds):
    with pytest.raises(ValueError, match=r"^rounds is empty \(shape \(.*\)\): give it one value"):
        calibrate_tpr("gaussian", "sigma", fpr=1e-3, tpr=0.05, rounds=rounds)


def test_parameters_that_do_not_broadcast_are_refused_naming_their_shapes():
    with pytest.raises(
        ValueError, match=r"do not broadcast together: rounds \(2,\), sensitivity \(3,\)"
    ):
        calibrate_tpr(
            "gaussian", "sigma", fpr=1e-3, tpr=0.05, rounds=[1, 2], sensitivity=[1.0, 2.0, 3.0]
        )


def test_an_array_of_rounds_is_calibrated_point_by_point():
    both = calibrate_tpr("gaussian", "sigma", fpr=1e-3, tpr=0.05, rounds=[1, 10])
    assert both.shape == (2,)
    assert both[1] == pytest.approx(
        calibrate_tpr("gaussian", "sigma", fpr=1e-3, tpr=0.05, rounds=10), rel=1e-9
    )
