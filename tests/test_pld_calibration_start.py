"""calibrate() through the subsampled-Gaussian PLD starts at the central-limit estimate (calibration_start.py).

Checked: with q = 1 the estimate is the exact Gaussian calibration (mpmath-free: theta_radius is
tested to 1e-12 elsewhere, and the composed Gaussian is that radius); for small q it lies within the
measured band of the PLD answer; calibrating from it returns the same value as from the default
start (1, factors 4, 16, 256) and never evaluates rounds far beyond the answer (the default
start's bracketing evaluated a billion rounds).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick.calibrate import calibrate
from hockeystick.pld.calibration_start import calibration_start

DELTA = 1e-5


def test_gaussian_rounds_give_the_exact_calibration():
    eps, rounds = np.array([0.5, 1.0, 4.0]), np.array([1.0, 100.0, 1e4])
    sigma = calibration_start("sigma", eps, np.full(3, DELTA), {"rounds": rounds, "sampling_rate": 1.0,
                                                                 "sensitivity": 2.0})
    np.testing.assert_allclose(sigma, 2.0 * np.sqrt(rounds) / hs.theta_radius(eps, DELTA), rtol=1e-12)
    t = calibration_start("rounds", eps, np.full(3, DELTA), {"sigma": sigma, "sampling_rate": 1.0, "sensitivity": 2.0})
    np.testing.assert_array_equal(t, rounds)


def test_subsampled_estimate_is_near_and_optimistic():
    q, rounds, eps = np.array([0.01, 0.003, 0.05]), np.array([1000.0, 3000.0, 500.0]), np.array([1.0, 2.0, 4.0])
    start = calibration_start("sigma", eps, np.full(3, DELTA), {"rounds": rounds, "sampling_rate": q})
    got = calibrate("pld_subsampled_gaussian", "sigma", epsilon=eps, delta=DELTA, sampling_rate=q, rounds=rounds,
                    rtol=1e-6)
    assert np.all(start <= got) and np.all(start >= 0.7 * got), start / got


def test_unknown_parameter_and_unreachable_targets():
    assert calibration_start("sensitivity", np.ones(1), np.full(1, DELTA), {}) is None
    # sigma 0 rounds: no finite estimate; calibrate's default start stands in
    start = calibration_start("rounds", np.ones(1), np.full(1, DELTA), {"sigma": np.array([1e-3]), "sampling_rate": 0.5})
    assert np.all(np.isfinite(start)) and np.all(start >= 1)


@pytest.mark.parametrize("parameter", ["sigma", "rounds"])
def test_same_answer_as_the_default_start_with_no_far_evaluation(parameter, monkeypatch):
    fixed = {"sigma": {"rounds": 2000.0}, "rounds": {"sigma": 0.9}}[parameter]
    target = dict(epsilon=np.array([2.0, 1.0]), delta=DELTA, sampling_rate=np.array([0.002, 0.01]), **fixed)
    plain = calibrate("pld_subsampled_gaussian", parameter, start=1.0, rtol=1e-8, **target)
    seen: list[float] = []
    original = pld.SubsampledGaussianPLD.__init__

    @functools.wraps(original)  # the registry reads the accountant's parameters from this signature
    def record(self, *args, **kwargs):
        seen.append(float(np.max(kwargs.get(parameter, np.nan))))
        original(self, *args, **kwargs)

    monkeypatch.setattr(pld.SubsampledGaussianPLD, "__init__", record)
    estimated = calibrate("pld_subsampled_gaussian", parameter, rtol=1e-8, **target)
    if parameter == "rounds":
        np.testing.assert_array_equal(estimated, plain)
        assert max(seen) <= 4 * np.max(estimated)
    else:
        np.testing.assert_allclose(estimated, plain, rtol=1e-7)
        assert min(seen) >= 0.5 * np.min(estimated)
    got = pld.SubsampledGaussianPLD(**{**fixed, parameter: estimated}, sampling_rate=target["sampling_rate"])
    assert np.all(got.delta(target["epsilon"]) <= DELTA)
