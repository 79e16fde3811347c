"""Noisy FedProx (paper 004 Theorem 15, eq. 21): regression value, exact constants, conditions, limits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.fdp import NoisyFedProx, interpolation_bound

SEEDS = dict(
    clients=20, sigma=1.0, clip=10.0, lipschitz=1.0, proximal=5.0, learning_rate=0.01, rounds=600
)


def eq21(m: float, sigma: float, V: float, L: float, alpha: float, T: int) -> float:
    """Theorem 15 as printed (eq. 21 / Table 1), in logs so alpha^T does not overflow."""
    ratio = math.exp(T * (math.log(alpha - L) - math.log(alpha)))  # ((alpha - L)/alpha)^T
    return (
        2
        * V
        / (math.sqrt(m) * alpha * sigma)
        * math.sqrt((2 * alpha - L) / L * (1 - ratio) / (1 + ratio))
    )


def test_seeds_regression_value() -> None:
    acct = NoisyFedProx(**SEEDS)
    assert acct.mu_paper_h0 == pytest.approx(2.683281573, abs=5e-10)
    assert acct.mu_paper_h0 == pytest.approx(eq21(20, 1.0, 10.0, 1.0, 5.0, 600), rel=1e-13)


@pytest.mark.parametrize("T", [1, 2, 7, 90])
def test_eq21_for_several_T(T: int) -> None:
    acct = NoisyFedProx(
        clients=6, sigma=1.7, clip=2.0, lipschitz=0.8, proximal=1.5, learning_rate=0.3, rounds=T
    )
    assert acct.mu_paper_h0 == pytest.approx(eq21(6, 1.7, 2.0, 0.8, 1.5, T), rel=1e-13)


def test_exact_constants_equal_the_local_recursions() -> None:
    """Lemmas 22-23 unrolled step by step for a constant rate (the theorem's constants bound them)."""
    m, V, L, alpha, a, K, T, sigma = 10, 3.0, 1.0, 4.0, 0.2, 6, 25, 1.2
    rho_model, data = (
        1.0,
        0.0,
    )  # ||w^_k - w~_k|| / ||w_t - w~_t||, and ||(w_k - w_t) - (w^_k - w_t)|| / V
    for _ in range(K):
        rho_model = (1 - a * (alpha - L)) * rho_model + a * alpha
        data = (1 - a * alpha) * data + 2 * a
    gamma = data * V / m
    acct = NoisyFedProx(
        clients=m,
        sigma=sigma,
        clip=V,
        lipschitz=L,
        proximal=alpha,
        learning_rate=a,
        rounds=T,
        local_steps=K,
        constants="exact",
    )
    h = interpolation_bound(np.full(T, rho_model), np.full(T, gamma))
    scale = math.sqrt(m) / sigma
    assert acct.mu_paper_h0 == pytest.approx(scale * math.sqrt(h.h0), rel=1e-12)
    assert acct.mu_composition == pytest.approx(scale * math.sqrt(h.h_composition), rel=1e-13)
    assert acct.mu == pytest.approx(scale * math.sqrt(h.h_optimal), rel=1e-12)
    assert rho_model < alpha / (alpha - L) and gamma < 2 * V / (m * alpha)
    theorem = NoisyFedProx(
        clients=m, sigma=sigma, clip=V, lipschitz=L, proximal=alpha, learning_rate=a, rounds=T
    )
    assert acct.mu_composition < theorem.mu_composition


def test_paper_h0_monotone_in_T_bounded_by_limit() -> None:
    T = np.arange(1, 2001)
    for alpha in (1.2, 5.0, 50.0):
        acct = NoisyFedProx(
            **{**SEEDS, "proximal": alpha, "learning_rate": 0.5 / alpha, "rounds": T}
        )
        assert (np.diff(acct.mu_paper_h0) >= 0).all()
        assert (acct.mu_paper_h0 <= acct.mu_paper_h0_limit * (1 + 1e-13)).all()
        limit = 2 * 10 / (math.sqrt(20) * alpha) * math.sqrt((2 * alpha - 1) / 1)
        assert acct.mu_paper_h0_limit == pytest.approx(limit, rel=1e-13)


def test_eq41_fails_so_optimal_is_composition() -> None:
    acct = NoisyFedProx(**{**SEEDS, "rounds": np.array([1, 2, 600])})
    assert list(acct.h0_attained) == [True, False, False]
    expected = np.sqrt([1, 2, 600]) * math.sqrt(20) * 2 * 10 / (20 * 5.0)
    assert np.allclose(acct.mu, expected, rtol=1e-14)
    assert np.allclose(acct.mu_composition, expected, rtol=1e-14)


def test_conditions_are_checked() -> None:
    with pytest.raises(ValueError, match="proximal must exceed lipschitz"):
        NoisyFedProx(**{**SEEDS, "proximal": 1.0})
    with pytest.raises(ValueError, match="learning_rate \\* proximal"):
        NoisyFedProx(
            **{**SEEDS, "learning_rate": 0.21}
        )  # 0.21 < 1/(alpha - L) = 0.25: printed condition holds
    with pytest.raises(ValueError, match="local_steps"):
        NoisyFedProx(**SEEDS, constants="exact")
    with pytest.raises(ValueError, match="constants"):
        NoisyFedProx(**SEEDS, constants="loose")


def test_grid_broadcast() -> None:
    acct = NoisyFedProx(
        **{
            **SEEDS,
            "proximal": np.array([2.0, 5.0, 10.0])[:, None],
            "rounds": np.array([10, 100])[None, :],
        }
    )
    assert acct.mu.shape == (3, 2)
    assert acct.mu_paper_h0[1, 1] == pytest.approx(eq21(20, 1.0, 10.0, 1.0, 5.0, 100), rel=1e-13)
    assert acct.delta(np.array([0.5, 1.0])[:, None, None]).shape == (2, 3, 2)
