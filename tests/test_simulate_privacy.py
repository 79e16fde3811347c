"""The privacy figures a simulated run reports, against the papers' closed forms and stated values."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import hockeystick as hs
import hockeystick.simulate as sim
from hockeystick.simulate import privacy
from hockeystick.simulate.schedules import learning_rates


def fedavg_closed_form_mu(m, sigma, clip, smooth, rate, steps, rounds):
    """Paper 004 eq. 17 (constant rate)."""
    r = (1 + rate * smooth) ** steps
    tail = math.tanh(rounds * math.log(r) / 2)  # (r^T - 1)/(r^T + 1) without overflow
    return (2 * rate * clip * steps / (math.sqrt(m) * sigma)) * math.sqrt((r + 1) / (r - 1) * tail)


def test_fedavg_regression_values_of_paper_004():
    etas = learning_rates("constant", 0.01, 600, 5)
    rho, gamma = privacy.fedprox_sensitivities(etas, 1.0, 0.0, 10.0, 20)
    shifted = privacy.shifted_interpolation(rho, gamma, 20, 1.0)
    composed = privacy.composition(gamma, 20, 1.0)
    assert shifted.epsilon_of_delta is not None
    # mu is recovered from delta(eps) through theta's inverse in radius
    mu = float(hs.theta_radius(1.0, shifted.delta(1.0)))
    assert mu == pytest.approx(1.417885043, rel=1e-8)
    assert float(hs.theta_radius(1.0, composed.delta(1.0))) == pytest.approx(math.sqrt(30.0), rel=1e-10)
    assert not shifted.proven and composed.proven


@pytest.mark.parametrize("m, sigma, clip, smooth, rate, steps, rounds",
                         [(20, 1.0, 10.0, 1.0, 0.01, 5, 600), (5, 2.0, 1.0, 3.0, 0.1, 2, 50),
                          (100, 0.5, 2.0, 0.5, 0.2, 10, 3000)])
def test_fedavg_engine_equals_eq17(m, sigma, clip, smooth, rate, steps, rounds):
    rho, gamma = privacy.fedprox_sensitivities(learning_rates("constant", rate, rounds, steps), smooth, 0.0, clip, m)
    g = privacy.shifted_interpolation(rho, gamma, m, sigma)
    mu = fedavg_closed_form_mu(m, sigma, clip, smooth, rate, steps, rounds)
    assert g.delta(1.0) == pytest.approx(hs.theta(mu, 1.0), rel=1e-9)


def test_fedprox_per_round_constants_match_lemmas_22_23_and_eq21_is_looser():
    a, alpha, beta, k, v, m = 0.01, 5.0, 1.0, 5, 10.0, 20
    rho, gamma = privacy.fedprox_sensitivities(learning_rates("constant", a, 600, k), beta, alpha, v, m)
    assert rho[0] == pytest.approx(alpha / (alpha - beta) - beta * (1 - a * (alpha - beta)) ** k / (alpha - beta), rel=1e-14)
    assert gamma[0] == pytest.approx(2 * v / m * (1 - (1 - a * alpha) ** k) / alpha, rel=1e-14)
    exact = float(hs.theta_radius(1.0, privacy.shifted_interpolation(rho, gamma, m, 1.0).delta(1.0)))
    printed = 2 * v / (math.sqrt(m) * alpha) * math.sqrt((2 * alpha - beta) / beta)  # eq. 21, T -> inf
    assert printed == pytest.approx(2.683281573, rel=1e-9)
    assert exact <= printed


def test_fedavg_decaying_schedules_use_exact_sums():
    """Cyclic rates: rho = prod_k (1 + a beta/(k+1)), gamma = (2V/m) a H_K (the printed eq. 18 drops a)."""
    a, beta, k, v, m = 0.3, 2.0, 4, 1.0, 10
    rho, gamma = privacy.fedprox_sensitivities(learning_rates("cyclic", a, 7, k), beta, 0.0, v, m)
    assert rho == pytest.approx(np.prod([1 + a * beta / (j + 1) for j in range(k)]), rel=1e-14)
    assert gamma == pytest.approx(2 * v / m * a * sum(1 / (j + 1) for j in range(k)), rel=1e-14)


def test_gdp_check_value_and_round_trip():
    g = privacy.gaussian_dp(1.0, "mu=1", "004 Lemma 7", True)
    assert g.delta(1.0) == pytest.approx(0.126937, abs=5e-7)
    eps = g.epsilon(np.array([1e-3, 1e-6]))
    np.testing.assert_allclose(g.delta(eps), [1e-3, 1e-6], rtol=1e-9)


def test_trusted_aggregator_sum_equals_constant_closed_form():
    """Paper 000 Theorem 2, constant eta and sigma: (m/n) theta(a) (1 - theta(b)^T) / (1 - theta(b))."""
    lip, sigma, eta, rho, m, n = 1.0, 1.5, 0.5, 1.0, 10, 100
    t = n // m
    g = privacy.trusted_aggregator(lip, np.full(t, sigma), np.full(t, eta), rho, m, n, True)
    for eps in (0.1, 1.0, 3.0):
        a = hs.theta(2 * lip / (math.sqrt(m) * sigma), eps)
        b = hs.theta(2 * rho * math.sqrt(m) / (eta * sigma), eps)
        assert g.delta(eps) == pytest.approx(m / n * a * (1 - b**t) / (1 - b), rel=1e-12)


def test_pnsgd_theorem4_against_mpmath():
    """delta = theta(2L/sigma) theta(M D/(eta sigma))^(n-i), theta by 50-digit quadrature-free closed form."""
    mpmath.mp.dps = 50

    def theta(r, eps):
        q = lambda x: mpmath.erfc(x / mpmath.sqrt(2)) / 2
        return q(eps / r - r / 2) - mpmath.e**eps * q(eps / r + r / 2)

    lip, sigma, eta, diam, beta, strong, n, i = 1.0, 1.0, 0.7, 1.0, 0.5, 0.2, 40, 30
    m = privacy.contraction_factor(eta, beta, strong)
    assert m == pytest.approx(math.sqrt(1 - 2 * eta * beta * strong / (beta + strong)))
    g = privacy.pnsgd_gaussian(lip, sigma, eta, diam, m, n, i)
    for eps in (0.05, 0.5, 2.0):
        expected = theta(mpmath.mpf(2 * lip / sigma), eps) * theta(mpmath.mpf(m * diam / (eta * sigma)), eps) ** (n - i)
        assert g.delta(eps) == pytest.approx(float(expected), rel=1e-11)
    d = 1e-3
    assert g.delta(g.epsilon(d)) <= d


def test_contraction_factor_rejects_too_large_steps():
    with pytest.raises(ValueError, match="eta"):
        privacy.contraction_factor(3.0, 1.0, 0.0)


def test_laplace_theorem3_closed_form_and_zero_beyond_threshold():
    lip, v, eta, diam, m, n, i = 1.0, 0.5, 0.5, 1.0, 1.0, 10, 8
    g = privacy.pnsgd_laplace(lip, v, eta, diam, m, n, i)
    eps = 1.0
    expected = max(0.0, 1 - math.exp(eps / 2 - lip / v)) * max(0.0, 1 - math.exp(eps / 2 - m * diam / (2 * eta * v))) ** (n - i)
    assert g.delta(eps) == pytest.approx(expected, rel=1e-13)
    assert g.delta(min(2 * lip / v, m * diam / (eta * v)) + 1e-9) == 0.0


def test_runs_report_their_guarantees():
    data = sim.synthetic("logistic", 6, 4, 3, seed=1)
    run = sim.noisy_fedavg(data, rounds=3, local_steps=2, rate=0.1, clip=1.0, sigma=2.0)
    assert {g.proven for g in run.privacy} == {True, False}
    assert math.isfinite(run.best_epsilon(1e-5))
    assert "DP" in run.summary(1e-5)
    assert sim.noisy_fedavg(data, rounds=2, local_steps=1, rate=0.1).privacy == []  # sigma = 0: none
    with pytest.raises(ValueError, match="delta"):
        run.privacy[0].epsilon(0.0)
    with pytest.raises(ValueError, match="epsilon"):
        run.privacy[0].delta(-1.0)


@pytest.mark.parametrize("make", [
    lambda: privacy.pnsgd_gaussian(1.0, 1.0, 0.7, 1.0, 0.9, 40, 30),
    lambda: privacy.pnsgd_laplace(1.0, 0.5, 0.5, 1.0, 1.0, 10, 8),
    lambda: privacy.pnsgd_random_stop(1.0, 1.0, 0.5, 1.0, 0.8, 20),
    lambda: privacy.trusted_aggregator(1.0, np.full(10, 1.5), np.full(10, 0.5), 1.0, 10, 100, False),
])
def test_epsilon_inverts_delta_on_the_safe_side_vectorized(make):
    g = make()
    grid = np.linspace(0.0, 5.0, 1001)
    deltas = g.delta(grid)
    assert deltas.shape == grid.shape and np.all(np.diff(deltas) <= 1e-15)
    targets = np.array([1e-1, 1e-2, 1e-4])
    targets = targets[targets < g.delta(0.0)]
    eps = g.epsilon(targets)
    assert np.all(g.delta(eps) <= targets)
    assert np.all(g.delta(np.maximum(eps - 1e-9, 0)) >= targets * (1 - 1e-6))
