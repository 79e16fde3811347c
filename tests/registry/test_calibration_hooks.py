"""The hooks calibrate asks a factory for are declared protocols: the accountants that carry them are seen
as such, and a factory without them is searched without them."""

from __future__ import annotations

import numpy as np

from hockeystick import pld, registry
from hockeystick.registry.calibration_hooks import (
    CalibrationDirections,
    CalibrationGrids,
    CalibrationStart,
)


def test_the_subsampled_gaussian_pld_offers_all_three_hooks():
    cls = pld.SubsampledGaussianPLD
    assert isinstance(cls, CalibrationStart) and isinstance(cls, CalibrationGrids)
    assert isinstance(cls, CalibrationDirections)
    sigma = cls.calibration_start(
        "sigma", np.array([1.0]), np.array([1e-5]), {"sampling_rate": 0.01, "rounds": 100}
    )
    assert sigma is not None and np.all(np.isfinite(sigma) & (sigma > 0))


def test_a_training_run_offers_its_start_and_a_closed_form_none():
    sgd = registry.get("dp_sgd").factory
    assert isinstance(sgd, CalibrationStart) and isinstance(sgd, CalibrationGrids)
    assert not isinstance(sgd, CalibrationDirections)
    gaussian = registry.get("gaussian").factory
    assert not isinstance(gaussian, CalibrationStart) and not isinstance(gaussian, CalibrationGrids)
