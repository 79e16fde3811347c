"""The observer's upper side by the number of participations (``secagg.observer_participations``): above the exact
revealed-participation run where the round is a Gaussian pair (its m-fold composition in closed form), the same sum
recomputed with mpmath at 40 digits, and never above joint convexity's conversion in the accountant."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.rdp.conversion import rdp_to_delta, rdp_to_epsilon
from hockeystick.secagg import DistributedSkellam
from hockeystick.secagg.observer_participations import (
    participation_count_delta,
    participation_count_epsilon,
)

ORDERS = np.concatenate([np.linspace(1.05, 1.95, 19), np.arange(2.0, 257.0)])


def _gaussian_delta(mu: float, eps: float) -> float:
    """delta(eps) of N(mu, 1) against N(0, 1) (Balle & Wang 2018, Thm. 8)."""
    return float(
        mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)
    )


@pytest.mark.parametrize(("mu", "rate", "rounds"), [(1.0, 0.3, 6), (2.5, 0.01, 50), (0.5, 0.1, 40)])
def test_the_bound_is_above_the_revealed_gaussian_run(mu, rate, rounds):
    curve = ORDERS * mu * mu / 2  # the Gaussian pair's Renyi divergence, exact
    for eps in (0.2, 1.0, 3.0):
        exact = sum(
            math.comb(rounds, m)
            * rate**m
            * (1 - rate) ** (rounds - m)
            * _gaussian_delta(math.sqrt(m) * mu, eps)
            for m in range(1, rounds + 1)
        )
        bound = float(participation_count_delta(curve, ORDERS, rate, rounds, np.array([eps]))[0])
        assert exact <= bound
        assert bound <= 6 * exact + 1e-12  # the RDP conversion's loss, not more


@mpmath.workdps(40)
def test_the_sum_over_counts_is_mpmath_s():
    curve, rate, rounds, eps = ORDERS * 0.02, 0.002, 3000, 1.0
    total = mpmath.mpf(0)
    for m in range(1, 60):
        mass = (
            mpmath.binomial(rounds, m)
            * mpmath.mpf(rate) ** m
            * (1 - mpmath.mpf(rate)) ** (rounds - m)
        )
        total += mass * min(1.0, float(rdp_to_delta(m * curve, ORDERS, eps)))
    ours = float(participation_count_delta(curve, ORDERS, rate, rounds, np.array([eps]))[0])
    assert float(total) <= ours <= float(total) * (1 + 1e-8)


def test_epsilon_is_the_least_with_delta_below_target():
    curve, rate, rounds = ORDERS * 0.5, 0.01, 200
    delta = np.array([1e-5, 1e-8])
    eps = participation_count_epsilon(curve, ORDERS, rate, rounds, delta, np.inf)
    assert (participation_count_delta(curve, ORDERS, rate, rounds, eps) <= delta).all()
    assert (participation_count_delta(curve, ORDERS, rate, rounds, eps * (1 - 1e-6)) > delta).all()
    # a known certified eps below the search's reach is returned as it is
    capped = participation_count_epsilon(curve, ORDERS, rate, rounds, delta, eps / 2)
    np.testing.assert_array_equal(capped, eps / 2)


def test_the_accountant_reads_the_least_of_both_upper_sides():
    acc = DistributedSkellam(
        clip_norm=1.0, granularity=0.05, dimension=100, local_sigma=0.5, min_surviving_clients=20, rounds=300,
        sampling_rate=0.002,
    )  # fmt: skip
    orders = np.asarray(acc.orders)
    server = float(acc.epsilon(1e-6))  # no amplification
    observer = float(acc.epsilon(1e-6, against="observer"))
    joint = float(rdp_to_epsilon(acc.rdp(against="observer"), orders, 1e-6))
    assert observer <= joint
    assert observer < server
    low = float(acc.epsilon(1e-6, bound="lower", against="observer"))
    assert low <= observer
