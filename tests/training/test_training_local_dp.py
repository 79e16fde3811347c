"""Local DP per round: the exact calibration against the analytic Gaussian mechanism (Balle & Wang 2018) in mpmath,
the classical formula beside it and refused where it is not proved, and a client's rounds composed as one GDP."""

from __future__ import annotations

import math

import mpmath
import pytest

from hockeystick.training import LocalDP


def _gaussian_delta(mu, eps):
    """delta(eps) of N(mu, 1) against N(0, 1), any real eps (Balle & Wang 2018, Thm. 8)."""
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _epsilon(mu, delta):
    """The smallest eps >= 0 with delta(eps) <= delta, by bisection on the decreasing profile."""
    low, high = mpmath.mpf(0), mpmath.mpf(100)
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if _gaussian_delta(mu, mid) > delta else (low, mid)
    return high


@mpmath.workdps(30)
def test_the_noise_is_the_smallest_that_makes_a_round_epsilon_delta_dp():
    for eps, delta, sensitivity in ((0.1, 1e-5, 1.0), (1.0, 1e-3, 2.5), (5.0, 1e-6, 0.3)):
        sigma = LocalDP(epsilon_per_round=eps, delta_per_round=delta, sensitivity=sensitivity).sigma
        assert _gaussian_delta(sensitivity / mpmath.mpf(sigma), eps) <= delta  # (eps, delta)-DP
        tighter = mpmath.mpf(sigma) * (1 - mpmath.mpf(1e-9))
        assert _gaussian_delta(sensitivity / tighter, eps) > delta  # and no less noise is


@mpmath.workdps(30)
def test_the_classical_formula_beside_it_and_refused_where_it_is_not_proved():
    local = LocalDP(epsilon_per_round=[0.1, 0.9], delta_per_round=1e-5, sensitivity=2.0)
    for eps, classical, exact in zip((0.1, 0.9), local.classical_sigma, local.sigma, strict=True):
        assert classical == pytest.approx(
            float(2 * mpmath.sqrt(2 * mpmath.log(1.25 / mpmath.mpf(1e-5))) / eps)
        )
        assert classical > exact  # valid there, and looser than the exact calibration
    # at eps = 10 the classical sigma is below what (10, 1e-5)-DP needs: it is not a calibration there
    classical_at_10 = math.sqrt(2 * math.log(1.25 / 1e-5)) / 10
    assert _gaussian_delta(1 / mpmath.mpf(classical_at_10), 10) > 1e-5
    for eps in (1.0, 10.0, 0.0):
        with pytest.raises(
            ValueError, match=r"proved for 0 < epsilon_per_round < 1 only .* Read sigma"
        ):
            _ = LocalDP(epsilon_per_round=eps, delta_per_round=1e-5).classical_sigma
    assert LocalDP(epsilon_per_round=10.0, delta_per_round=1e-5).sigma > classical_at_10


@mpmath.workdps(30)
def test_two_rounds_compose_to_the_gaussian_of_sqrt_2_mu():
    # delta(eps) of two releases from their two privacy losses, L1 ~ N(mu^2 / 2, mu^2) under P, integrated
    local = LocalDP(epsilon_per_round=0.5, delta_per_round=1e-5, sensitivity=1.0, rounds=2)
    mu = 1 / mpmath.mpf(local.sigma)

    def integrand(x):
        return mpmath.npdf(x) * _gaussian_delta(mu, 1.5 - (mu * mu / 2 + mu * x))

    two_rounds = mpmath.quad(integrand, [-mpmath.inf, -5, 0, 5, mpmath.inf])
    assert local.delta(1.5) == pytest.approx(float(two_rounds), rel=1e-9)
    assert local.delta(1.5) >= two_rounds


@mpmath.workdps(30)
def test_the_client_epsilon_over_its_rounds_is_an_upper_bound_below_basic_composition():
    eps, delta, rounds = 0.5, 1e-6, 100
    local = LocalDP(epsilon_per_round=eps, delta_per_round=delta, sensitivity=2.0, rounds=rounds)
    mu = math.sqrt(rounds) * 2.0 / mpmath.mpf(local.sigma)
    truth = _epsilon(mu, rounds * delta)
    assert truth <= local.epsilon(rounds * delta) <= truth * (1 + 1e-9)
    assert local.epsilon(rounds * delta) < rounds * eps  # basic composition's (R eps, R delta)
    lower, upper = local.epsilon(1e-5, bound="both")
    assert lower <= float(_epsilon(mu, mpmath.mpf(1e-5))) <= upper
    growing = LocalDP(epsilon_per_round=eps, delta_per_round=delta, rounds=[1, 10, 100]).epsilon(
        1e-5
    )
    assert list(growing) == sorted(growing)


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="delta_per_round must lie strictly between 0 and 1"):
        LocalDP(epsilon_per_round=1.0, delta_per_round=0.0)
    with pytest.raises(ValueError, match="epsilon_per_round"):
        LocalDP(epsilon_per_round=-1.0, delta_per_round=1e-5)
    with pytest.raises(ValueError, match="rounds"):
        LocalDP(epsilon_per_round=1.0, delta_per_round=1e-5, rounds=2.5)
    with pytest.raises(ValueError, match="sensitivity"):
        LocalDP(epsilon_per_round=1.0, delta_per_round=1e-5, sensitivity=0.0)
