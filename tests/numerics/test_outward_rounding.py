"""Outward rounding on every closed-form path that stands in for a certified bound.

Each path is checked against 50-digit mpmath at a few hundred seeded random points: an
upper bound is never below the truth, a lower bound never above it, an epsilon upper
bound has true delta <= the target there, a lower one true delta >= the target (or is 0).
SubsampledGaussianPLD(sigma, 1, T) included: theta rounded to nearest as both sides would put its
upper delta below the truth in about a third of the points (by <= 6e-15 relative).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import hockeystick as hs
from hockeystick.calibrate import calibrate
from hockeystick.fdp import GaussianDP, NoisyFedAvg
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.numerics import certified_theta as ct
from hockeystick.pld import SubsampledGaussianPLD

from .. import reference

N = 200


def _truth(r: float | mp.mpf, eps: float) -> mp.mpf:
    with mp.workdps(60):
        return reference.theta(r, eps)


def _points(seed: int, n: int = N) -> tuple[np.ndarray, np.ndarray]:
    """r log-uniform in [1e-3, 30], eps in [0, 40] (theta from ~1 down to far below 1e-300 is filtered out)."""
    rng = np.random.default_rng(seed)
    r = 10.0 ** rng.uniform(-3, math.log10(30), n)
    eps = np.where(rng.random(n) < 0.2, 0.0, rng.uniform(0, 40, n) * rng.random(n))
    return r, eps


def _deltas(seed: int, n: int = N) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return 10.0 ** rng.uniform(-3, math.log10(30), n), 10.0 ** rng.uniform(-250, -0.05, n)


def _check_delta_bracket(lo: np.ndarray, up: np.ndarray, truths: list[mp.mpf]) -> None:
    for low, high, t in zip(lo, up, truths):
        assert mp.mpf(float(high)) >= t, (high, t)
        assert mp.mpf(float(low)) <= t, (low, t)


def _check_epsilon_bracket(
    r: np.ndarray | list[mp.mpf], delta: np.ndarray, lo: np.ndarray, up: np.ndarray
) -> None:
    for ri, di, low, high in zip(r, delta, lo, up):
        assert low <= high
        assert _truth(ri, float(high)) <= di, (ri, di, high)  # delta is met at the upper eps
        assert low == 0.0 or _truth(ri, float(low)) >= di, (
            ri,
            di,
            low,
        )  # and not yet met below the lower


def test_theta_bounds_against_mpmath() -> None:
    r, eps = _points(1)
    truths = [_truth(a, b) for a, b in zip(r, eps)]
    _check_delta_bracket(
        np.asarray(ct.theta_lower(r, eps)), np.asarray(ct.theta_upper(r, eps)), truths
    )


def test_theta_bounds_far_below_the_relative_contract() -> None:
    # theta < 1e-300: the upper side is the log form (at least the least subnormal), the lower side is 0
    r = np.array([0.05, 0.1, 1.0, 2.0, 0.5])
    eps = np.array([22.0, 45.0, 1000.0, 1500.0, 18.5])
    up, lo = np.asarray(ct.theta_upper(r, eps)), np.asarray(ct.theta_lower(r, eps))
    for a, b, u, l in zip(r, eps, up, lo):
        t = _truth(a, b)
        assert mp.mpf(float(l)) <= t <= mp.mpf(float(u))
    assert np.all(up > 0)
    assert ct.theta_upper(0.0, 1.0) == 0.0 and ct.theta_upper(1.0, math.inf) == 0.0
    assert ct.theta_upper(math.inf, 3.0) == 1.0 and ct.theta_lower(math.inf, 3.0) <= 1.0
    # the inverses at delta below 1e-290 check the log form: finite, certified, and a bracket
    r, delta = np.array([0.5, 1.0, 3.0]), np.array([1e-295, 1e-310, 5e-320])
    up, lo = (
        np.asarray(ct.theta_epsilon_upper(r, delta)),
        np.asarray(ct.theta_epsilon_lower(r, delta)),
    )
    assert np.all(np.isfinite(up)) and np.all(lo > 0)
    _check_epsilon_bracket(r, delta, lo, up)


def test_theta_inverses_against_mpmath() -> None:
    r, delta = _deltas(2)
    _check_epsilon_bracket(
        r,
        delta,
        np.asarray(ct.theta_epsilon_lower(r, delta)),
        np.asarray(ct.theta_epsilon_upper(r, delta)),
    )
    eps = np.random.default_rng(3).uniform(0, 20, N)
    radius = np.asarray(ct.theta_radius_lower(eps, delta))
    for e, d, rad in zip(eps, delta, radius):
        assert _truth(rad, float(e)) <= d


def test_subsampled_gaussian_pld_at_rate_one_is_a_bracket() -> None:
    rng = np.random.default_rng(4)
    sigma, rounds = 10.0 ** rng.uniform(-1, 1.5, N), rng.integers(1, 10_000, N)
    eps = rng.uniform(0, 10, N)
    acct = SubsampledGaussianPLD(sigma, 1.0, rounds)
    lo, up = acct.delta(eps, bound="both")
    with mp.workdps(60):
        exact_r = [mp.sqrt(int(t)) / mp.mpf(float(s)) for s, t in zip(sigma, rounds)]
        truths = [_truth(a, b) for a, b in zip(exact_r, eps)]
    _check_delta_bracket(lo, up, truths)
    assert np.all(up >= acct.delta(eps))  # the upper side alone is the same number
    delta = 10.0 ** rng.uniform(-15, -1, N)
    lo, up = acct.epsilon(delta, bound="both")
    _check_epsilon_bracket(exact_r, delta, lo, up)


def test_gaussian_dp_and_mechanism_against_mpmath() -> None:
    rng = np.random.default_rng(5)
    mu, eps = 10.0 ** rng.uniform(-2, 1.3, N), rng.uniform(0, 30, N)
    truths = [_truth(a, b) for a, b in zip(mu, eps)]
    _check_delta_bracket(np.zeros(N), np.asarray(GaussianDP(mu).delta(eps)), truths)
    delta = 10.0 ** rng.uniform(-200, -0.1, N)
    _check_epsilon_bracket(mu, delta, np.zeros(N), np.asarray(GaussianDP(mu).epsilon(delta)))
    mu_for = np.asarray(GaussianDP.mu_for(eps, delta))
    assert all(_truth(m, float(e)) <= d for m, e, d in zip(mu_for, eps, delta))
    # the mechanism: mu = sqrt(T) sensitivity / sigma is itself rounded (up) before theta
    sigma, rounds, sens = (
        10.0 ** rng.uniform(-1, 2, N),
        rng.integers(1, 10**6, N),
        rng.uniform(0.1, 10, N),
    )
    mech = GaussianMechanism(sigma=sigma, rounds=rounds, sensitivity=sens)
    up = np.asarray(mech.delta(eps))
    with mp.workdps(60):
        exact = [
            mp.sqrt(int(t)) * mp.mpf(float(c)) / mp.mpf(float(s))
            for s, t, c in zip(sigma, rounds, sens)
        ]
        for u, m, e in zip(up, exact, eps):
            assert mp.mpf(float(u)) >= reference.theta(m, float(e))
        for high, m, d in zip(np.asarray(mech.epsilon(delta)), exact, delta):
            assert reference.theta(m, float(high)) <= d


def test_noisy_fedavg_theta_is_rounded_up() -> None:
    rng = np.random.default_rng(6)
    acct = NoisyFedAvg(
        clients=20,
        sigma=rng.uniform(0.5, 5, 40),
        clip=10.0,
        lipschitz=1.0,
        learning_rate=0.01,
        local_steps=5,
        rounds=600,
    )
    eps = rng.uniform(0, 20, 40)
    up = np.asarray(acct.delta(eps))
    for u, m, e in zip(up, np.asarray(acct.mu), eps):
        assert mp.mpf(float(u)) >= _truth(m, float(e))


def test_calibrated_gaussian_and_gdp_never_miss_the_target() -> None:
    rng = np.random.default_rng(7)
    eps, delta = rng.uniform(0.01, 10, N), 10.0 ** rng.uniform(-100, -1, N)
    rounds, sens = rng.integers(1, 10**5, N), rng.uniform(0.1, 10, N)
    sigma = calibrate(
        "gaussian", "sigma", epsilon=eps, delta=delta, rounds=rounds, sensitivity=sens
    )
    mu = calibrate("gdp", "mu", epsilon=eps, delta=delta)
    with mp.workdps(60):
        for s, t, c, e, d, m in zip(sigma, rounds, sens, eps, delta, mu):
            assert (
                reference.theta(mp.sqrt(int(t)) * mp.mpf(float(c)) / mp.mpf(float(s)), float(e))
                <= d
            )
            assert reference.theta(mp.mpf(float(m)), float(e)) <= d


@pytest.mark.parametrize("r,delta", [(1.0, 0.5), (5.0, 1e-300), (0.01, 1e-3)])
def test_inverses_validate_delta(r: float, delta: float) -> None:
    for bad in (0.0, 1.0, -1e-5, math.nan):
        for f in (ct.theta_epsilon_upper, ct.theta_epsilon_lower):
            with pytest.raises(ValueError, match="delta"):
                f(r, bad)
    assert (
        ct.theta_epsilon_lower(r, delta)
        <= hs.theta_epsilon(r, delta)
        <= ct.theta_epsilon_upper(r, delta)
    )
