"""The accountant contract of SubsampledGaussianPLD: broadcasting, sides, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hockeystick as hs
from hockeystick.pld import PLDAccountant, SubsampledGaussianPLD

H = 5e-3


def test_broadcasts_parameters_and_argument():
    acc = SubsampledGaussianPLD(
        sigma=np.array([[1.0], [1.5]]),
        sampling_rate=0.05,
        rounds=[20, 40, 20],
        value_discretization_interval=H,
    )
    eps = acc.epsilon(1e-5)
    assert eps.shape == (2, 3)
    assert eps[0, 0] == eps[0, 2]  # one PLD per distinct point
    assert eps[0, 1] > eps[0, 0] > eps[1, 0]
    d = acc.delta(np.array([[0.5], [1.0]]))
    assert d.shape == (2, 3)
    lo, up = acc.delta(1.0, bound="both")
    assert np.all(lo <= up) and lo.shape == (2, 3)


def test_scalar_in_scalar_out_and_round_trip():
    acc = SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.05, rounds=30, value_discretization_interval=H
    )
    e = acc.epsilon(1e-5)
    assert isinstance(e, float)
    assert acc.delta(e) <= 1e-5 * (1 + 1e-9)
    assert acc.delta(e - 1e-3) > 1e-5


def test_full_batch_is_exact_gaussian_composition():
    """sampling_rate = 1: delta = theta(sqrt(T)/sigma, eps), both sides (paper 004 eq. 8)."""
    acc = SubsampledGaussianPLD(sigma=2.0, sampling_rate=1.0, rounds=100)
    lo, up = acc.epsilon(1e-5, bound="both")
    # the closed form rounded outward (docs/howto-mechanism.md, "Outward rounding"): a bracket ~1e-12 wide
    assert lo <= hs.theta_epsilon(math.sqrt(100) / 2.0, 1e-5) <= up
    assert lo == pytest.approx(up, rel=1e-11)


def test_upper_is_certified_against_finer_grid():
    """The upper bound at a coarse grid stays above the lower bound at a fine grid."""
    coarse = SubsampledGaussianPLD(
        sigma=0.9, sampling_rate=0.1, rounds=50, value_discretization_interval=1e-2
    )
    fine = SubsampledGaussianPLD(
        sigma=0.9, sampling_rate=0.1, rounds=50, value_discretization_interval=2e-3
    )
    assert coarse.epsilon(1e-6) >= fine.epsilon(1e-6, bound="lower")
    assert coarse.epsilon(1e-6, bound="lower") <= fine.epsilon(1e-6)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(sigma=-1.0, sampling_rate=0.1, rounds=10), "sigma"),
        (dict(sigma=1.0, sampling_rate=0.0, rounds=10), "sampling_rate"),
        (dict(sigma=1.0, sampling_rate=0.1, rounds=2.5), "rounds"),
        (dict(sigma=[1.0, 2.0], sampling_rate=[0.1, 0.2, 0.3], rounds=10), "broadcast"),
    ],
)
def test_bad_parameters_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SubsampledGaussianPLD(**kwargs)


def test_bad_arguments_raise():
    acc = SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.1, rounds=10, value_discretization_interval=H
    )
    with pytest.raises(ValueError, match="delta"):
        acc.epsilon(1.5)
    with pytest.raises(ValueError, match="epsilon"):
        acc.delta(-0.1)
    with pytest.raises(ValueError, match="bound"):
        acc.delta(1.0, bound="middle")


def test_accuracy_picks_the_grid():
    """accuracy=: the certified epsilon bracket is no wider than requested, and contains a fine answer."""
    acc = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.05, rounds=100, accuracy=2e-3)
    lo, up = acc.epsilon(1e-5, bound="both")
    assert 0 <= up - lo <= 2e-3
    fine_lo, fine_up = SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.05, rounds=100, value_discretization_interval=2e-4
    ).epsilon(1e-5, bound="both")
    assert lo <= fine_up and fine_lo <= up
    with pytest.raises(ValueError, match="either"):
        SubsampledGaussianPLD(
            sigma=1.0,
            sampling_rate=0.05,
            rounds=10,
            accuracy=1e-3,
            value_discretization_interval=1e-3,
        )


def test_scalar_epsilon_gives_scalar_delta():
    # review finding: a scalar epsilon raised TypeError (0-d array made 1-d on its way to C++)
    from hockeystick import pld

    dist = pld.subsampled_gaussian(1.0, 0.01)
    value = dist.delta(0.5)
    assert isinstance(value, float)
    assert value == dist.delta([0.5, 1.0])[0]
    assert dist.delta(np.array([[0.5], [1.0]])).shape == (2, 1)


def test_an_empty_accountant_has_spent_nothing():
    """Before any round nothing is released: delta = 0 and epsilon = 0 (dp_accounting and Opacus answer
    the same), with the usual argument checks and sides."""
    acc = PLDAccountant()
    assert acc.delta(1.0) == 0.0 and acc.epsilon(1e-5) == 0.0
    assert acc.epsilon(1e-5, bound="both") == (0.0, 0.0)
    assert np.array_equal(acc.delta(np.array([0.0, 1.0, 2.0])), np.zeros(3))
    with pytest.raises(ValueError, match="delta must lie strictly between 0 and 1"):
        acc.epsilon(2.0)
    with pytest.raises(ValueError, match="epsilon must be"):
        acc.delta(-1.0)
