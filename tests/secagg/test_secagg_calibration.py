"""Calibration is extremal: the noise it returns meets the target and a little less does not; the granularity is
the finest that keeps the wrap-around below wrap_beta; the Gaussian beside it is the smallest at the same privacy."""

from __future__ import annotations

import math

import pytest

from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.secagg import (
    DistributedDiscreteGaussian,
    DistributedSkellam,
    calibrate_secure_aggregation,
    wrap_probability,
)

TARGET = dict(
    epsilon=3.0,
    delta=1e-5,
    min_surviving_clients=20,
    dimension=64,
    clip_norm=1.0,
    bits=12,
    rounds=5,
)
RUN = dict(clip_norm=1.0, dimension=64, min_surviving_clients=20, rounds=5, beta=math.exp(-0.5))
KINDS = [
    ("distributed_discrete_gaussian", DistributedDiscreteGaussian),
    ("skellam", DistributedSkellam),
]


@pytest.fixture(scope="module", params=KINDS, ids=[kind for kind, _ in KINDS])
def calibrated(request):
    kind, cls = request.param
    return kind, cls, calibrate_secure_aggregation(**TARGET, noise=kind)


def test_the_noise_meets_the_target_and_a_little_less_does_not(calibrated):
    _, cls, cal = calibrated
    at = cls(local_sigma=cal.local_sigma, granularity=cal.granularity, **RUN).epsilon(
        TARGET["delta"]
    )
    assert at <= TARGET["epsilon"] and at == cal.epsilon
    # the bisection's bracket is 4^(2^-24) ~ 1 + 8.3e-8 wide: 1e-6 less noise is past its lower end
    less = cls(local_sigma=cal.local_sigma * (1 - 1e-6), granularity=cal.granularity, **RUN)
    assert less.epsilon(TARGET["delta"]) > TARGET["epsilon"]


def test_the_granularity_is_the_finest_that_keeps_the_wrap_bound(calibrated):
    kind, cls, cal = calibrated
    wrap = dict(bits=TARGET["bits"], clients=20, dimension=64, clip_norm=1.0, noise=kind)
    assert cal.wrap_probability <= 1e-4
    assert (
        wrap_probability(granularity=cal.granularity, local_sigma=cal.local_sigma, **wrap)
        == cal.wrap_probability
    )
    # at a 0.1% finer grid the target needs more than sigma_low (eps above the target there), and even sigma_low
    # wraps above wrap_beta; the wrap bound grows with the noise, so no noise meeting the target fits
    finer, sigma_low = cal.granularity * (1 - 1e-3), cal.local_sigma * (1 - 3e-4)
    assert (
        cls(local_sigma=sigma_low, granularity=finer, **RUN).epsilon(TARGET["delta"])
        > TARGET["epsilon"]
    )
    assert wrap_probability(granularity=finer, local_sigma=sigma_low, **wrap) > 1e-4


def test_the_mse_is_its_formula_and_the_gaussian_is_the_smallest_at_the_same_privacy(calibrated):
    _, _, cal = calibrated
    d, n = TARGET["dimension"], TARGET["min_surviving_clients"]
    assert cal.mse == pytest.approx(
        d * n * (cal.local_sigma**2 + cal.granularity**2 / 4), rel=1e-12
    )
    sigma_g = math.sqrt(cal.gaussian_mse / d)
    gaussian = GaussianMechanism(sigma=sigma_g, sensitivity=1.0, rounds=TARGET["rounds"])
    assert gaussian.epsilon(TARGET["delta"]) <= TARGET["epsilon"]
    thinner = GaussianMechanism(
        sigma=sigma_g * (1 - 1e-6), sensitivity=1.0, rounds=TARGET["rounds"]
    )
    assert thinner.epsilon(TARGET["delta"]) > TARGET["epsilon"]
    assert (
        1.0 < cal.mse_ratio < 1.5
    )  # the distributed pipeline costs error over the central Gaussian, not much
