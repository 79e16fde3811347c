"""The privacy figures a simulated run reports, against the papers' closed forms and stated values."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import hockeystick as hs
import hockeystick.simulate as sim
from hockeystick import fdp
from hockeystick.simulate import privacy
from hockeystick.simulate.schedules import SCHEDULES, learning_rates


def mu_of(guarantee) -> float:
    """Recover mu of a GDP guarantee from its delta at eps = 1."""
    return float(hs.theta_radius(1.0, guarantee.delta(1.0)))


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_fedavg_sensitivities_equal_lemmas_20_21(schedule):
    etas = learning_rates(schedule, 0.05, 40, 5)
    rho, gamma = privacy.fedprox_sensitivities(etas, 1.3, 0.0, 2.0, 7)
    rho_ref, gamma_ref = fdp.rounds_from_learning_rates(etas, lipschitz=1.3, clip=2.0, clients=7)
    np.testing.assert_allclose(rho, rho_ref, rtol=1e-13)
    np.testing.assert_allclose(gamma, gamma_ref, rtol=1e-13)


def test_fedprox_per_round_constants_match_lemmas_22_23():
    a, alpha, beta, k, v, m = 0.01, 5.0, 1.0, 5, 10.0, 20
    rho, gamma = privacy.fedprox_sensitivities(
        learning_rates("constant", a, 600, k), beta, alpha, v, m
    )
    assert rho[0] == pytest.approx(
        alpha / (alpha - beta) - beta * (1 - a * (alpha - beta)) ** k / (alpha - beta), rel=1e-14
    )
    assert gamma[0] == pytest.approx(2 * v / m * (1 - (1 - a * alpha) ** k) / alpha, rel=1e-14)


def test_seeds_values_valid_not_the_papers_h0():
    """SEEDS parameters (m=20, sigma=1, V=10, L=1, a=0.01, K=5, T=600): the paper prints
    mu = 1.417885043 (FedAvg) and 2.683281573 (FedProx alpha=5); both are false (errata 004 s.1).
    The valid, tight values: sqrt(30) and 4.956211 (exact FedProx constants)."""
    data = dict(n_clients=20, sigma=1.0)
    etas = learning_rates("constant", 0.01, 600, 5)
    final, composed = privacy.last_iterate(
        *privacy.fedprox_sensitivities(etas, 1.0, 0.0, 10.0, 20), **data
    )
    assert mu_of(final) == pytest.approx(math.sqrt(30.0), rel=1e-9)
    assert mu_of(composed) == pytest.approx(math.sqrt(30.0), rel=1e-9)
    final, _ = privacy.last_iterate(
        *privacy.fedprox_sensitivities(etas, 1.0, 5.0, 10.0, 20), **data
    )
    assert mu_of(final) == pytest.approx(4.956211, rel=1e-6)
    stagewise = learning_rates("stagewise", 0.01, 600, 5)
    final, composed = privacy.last_iterate(
        *privacy.fedprox_sensitivities(stagewise, 1.0, 0.0, 10.0, 20), **data
    )
    assert mu_of(final) == pytest.approx(
        0.0719, abs=5e-5
    )  # decaying rates: the interpolation helps
    assert mu_of(final) < mu_of(composed)


def test_trusted_aggregator_run_reports_theorem_2_closed_form():
    """Paper 000 Theorem 2, constant eta and sigma: (m/n) theta(a) (1 - theta(b)^T) / (1 - theta(b))."""
    data = sim.synthetic("logistic", 100, 2, 3, seed=0)
    lip = float(np.max(data.row_norms))
    sigma, eta, rho, m, n = 1.5, 0.5, 1.0, 10, 100
    run = sim.trusted_aggregator(data, batch=m, rate=eta, sigma=sigma, radius=rho)
    (g,) = run.privacy
    for eps in (0.1, 1.0, 3.0):
        a = hs.theta(2 * lip / (math.sqrt(m) * sigma), eps)
        b = hs.theta(2 * rho * math.sqrt(m) / (eta * sigma), eps)
        assert g.delta(eps) == pytest.approx(m / n * a * (1 - b**10) / (1 - b), rel=1e-11)
    clipped = sim.trusted_aggregator(
        data, batch=m, rate=eta, sigma=sigma, radius=rho, clip=0.5 * lip
    )
    assert "2(rho + eta L)" in clipped.privacy[0].name  # clipping active: no non-expansive step


@pytest.mark.parametrize("suffix", [0.0, 0.5])
def test_trusted_aggregator_random_stop_reports_corollary_3_double_sum(suffix):
    """Paper 000 Corollary 3 (suffix 0) and the alpha-suffix form: (m/n)(1/N) sum over the N
    stopping rounds tau of sum_{t<=tau} theta(a_t) prod_{t<j<=tau} theta(b_j), at 50 digits,
    per-round eta_t; it is below Theorem 2's bound for the full run."""
    data = sim.synthetic("logistic", 60, 2, 3, seed=0)
    lip = float(np.max(data.row_norms))
    m, n, rho, sigma = 6, 60, 1.0, 1.2
    etas = np.linspace(0.5, 0.2, n // m)
    run = sim.trusted_aggregator(
        data, batch=m, rate=etas, sigma=sigma, radius=rho, random_stop=True, suffix=suffix, seed=3
    )
    full = sim.trusted_aggregator(data, batch=m, rate=etas, sigma=sigma, radius=rho, seed=3)
    (g,) = run.privacy
    assert "Corollary 3" in g.source
    rounds = n // m
    first = max(1, math.ceil(suffix * rounds))
    mpmath.mp.dps = 50
    for eps in (0.2, 1.0, 2.5):
        a = mpmath.mpf(hs.theta(2 * lip / (math.sqrt(m) * sigma), eps))
        b = [mpmath.mpf(hs.theta(2 * rho * math.sqrt(m) / (eta * sigma), eps)) for eta in etas]
        total = mpmath.mpf(0)
        for tau in range(first, rounds + 1):
            for t in range(1, tau + 1):
                total += a * mpmath.fprod(b[t:tau])
        expected = float(mpmath.mpf(m) / n * total / (rounds - first + 1))
        assert g.delta(eps) == pytest.approx(expected, rel=1e-11)
        assert g.delta(eps) >= expected * (1 - 1e-14)  # an upper bound, rounded up
        assert g.delta(eps) <= full.privacy[0].delta(eps)
    stops = {
        sim.trusted_aggregator(
            data,
            batch=m,
            rate=etas,
            sigma=sigma,
            radius=rho,
            random_stop=True,
            suffix=suffix,
            seed=s,
            trajectory=True,
        ).config["stopped_at"]
        for s in range(60)
    }
    assert stops == set(
        range(first, rounds + 1)
    )  # uniform on {tau0, ..., T}: all reached, none outside


def test_trusted_aggregator_random_stop_releases_w_tau():
    """The released model is the tau-th iterate of the full run with the same seed."""
    data = sim.synthetic("logistic", 40, 2, 3, seed=1)
    common = dict(batch=4, rate=0.3, sigma=0.8, radius=1.0, seed=11, trajectory=True)
    stopped = sim.trusted_aggregator(data, random_stop=True, **common)
    full = sim.trusted_aggregator(data, **common)
    tau = stopped.config["stopped_at"]
    assert 1 <= tau <= 10
    np.testing.assert_array_equal(stopped.weights, full.trajectory[tau])
    with pytest.raises(ValueError, match="suffix"):
        sim.trusted_aggregator(data, random_stop=True, suffix=1.0, **common)
    with pytest.raises(ValueError, match="random_stop"):
        sim.trusted_aggregator(data, suffix=0.5, **common)


def pnsgd_line(n: int, x: float = 1.0) -> sim.FederatedData:
    return sim.from_client_arrays([np.full((n, 1), x)], [np.linspace(-1, 1, n)], "linear")


def test_pnsgd_theorem4_against_mpmath():
    """delta = theta(2L/sigma) theta(M D/(eta sigma))^(n-i) at 50 digits; L, beta, rho from the data:
    x = 1, |y| <= 1, K = [-1/2, 1/2]: L = 1.5, beta = rho = 1, M = sqrt(1 - eta)."""
    mpmath.mp.dps = 50

    def theta(r, eps):
        q = lambda x: mpmath.erfc(x / mpmath.sqrt(2)) / 2
        return q(eps / r - r / 2) - mpmath.e**eps * q(eps / r + r / 2)

    n, i, eta, sigma = 40, 37, 0.7, 1.0
    g = sim.pnsgd_guarantee(
        pnsgd_line(n), rate=eta, noise="gaussian", scale=sigma, diameter=1.0, record=i
    )
    m = math.sqrt(1 - eta)
    for eps in (0.05, 0.5, 2.0):
        expected = theta(mpmath.mpf(3.0 / sigma), eps) * theta(
            mpmath.mpf(m / (eta * sigma)), eps
        ) ** (n - i)
        assert g.delta(eps) == pytest.approx(float(expected), rel=1e-10)
        assert g.delta(eps) >= float(expected)  # an upper bound never below the formula
    worst = sim.pnsgd(pnsgd_line(n), rate=eta, scale=sigma, diameter=1.0).privacy[0]
    assert "input 40 of 40" in worst.name


def test_pnsgd_rejects_steps_too_large_for_a_contraction():
    with pytest.raises(ValueError):
        sim.pnsgd_guarantee(
            pnsgd_line(5, x=2.0), rate=0.9, noise="gaussian", scale=1.0, diameter=1.0
        )


def test_laplace_theorem3_closed_form_and_zero_beyond_threshold():
    n, i, eta, v = 10, 8, 0.5, 0.5
    g = sim.pnsgd_guarantee(
        pnsgd_line(n), rate=eta, noise="laplace", scale=v, diameter=1.0, record=i
    )
    lip, m = 1.5, math.sqrt(1 - eta)
    eps = 1.0
    expected = max(0.0, 1 - math.exp(eps / 2 - lip / v)) * max(
        0.0, 1 - math.exp(eps / 2 - m / (2 * eta * v))
    ) ** (n - i)
    assert g.delta(eps) == pytest.approx(expected, rel=1e-12)
    assert g.delta(min(2 * lip / v, m / (eta * v)) + 1e-9) == 0.0
    assert (
        sim.pnsgd_guarantee(
            sim.synthetic("linear", 1, 5, 2), rate=0.1, noise="laplace", scale=1.0, diameter=1.0
        )
        is None
    )  # Theorem 3 is one-dimensional


def test_runs_report_their_guarantees_with_epsilon_on_the_safe_side():
    data = sim.synthetic("logistic", 6, 4, 3, seed=1)
    run = sim.noisy_fedavg(data, rounds=3, local_steps=2, rate=0.1, clip=1.0, sigma=2.0)
    assert len(run.privacy) == 2 and all(g.proven for g in run.privacy)
    eps = run.best_epsilon(1e-5)
    assert math.isfinite(eps) and min(float(g.delta(eps)) for g in run.privacy) <= 1e-5 * (
        1 + 1e-12
    )
    assert "DP" in run.summary(1e-5)
    grid = np.linspace(0, 5, 1001)
    assert np.all(np.diff(run.privacy[0].delta(grid)) <= 0)
    assert (
        sim.noisy_fedavg(data, rounds=2, local_steps=1, rate=0.1).privacy == []
    )  # sigma = 0: none
    with pytest.raises(ValueError, match="delta"):
        run.privacy[0].epsilon(0.0)
    with pytest.raises(ValueError, match="epsilon"):
        run.privacy[0].delta(-1.0)


def test_isrl_local_sgd_reports_a_pld_bound_between_truth_and_composition():
    """One-sample steps: the PLD bound beats plain composition; and with a single silo record
    (n = 1, no sampling) it must agree with the Gaussian mechanism composed, theta(2V sqrt(RK)/sigma)."""
    data = sim.synthetic("logistic", 4, 50, 3, seed=0)
    run = sim.isrl_local_sgd(data, rounds=20, local_steps=5, rate=0.1, sigma=2.0, clip=1.0)
    composed, sampled = run.privacy
    assert sampled.epsilon(1e-5) < composed.epsilon(1e-5)
    single = privacy.isrl_one_sample_steps(1.0, 2.0, 100, 1)
    exact = hs.theta(2.0 * math.sqrt(100) / 2.0, np.array([0.5, 2.0]))
    upper = single.delta(np.array([0.5, 2.0]))
    assert np.all(upper >= exact) and np.allclose(upper, exact, rtol=1e-3)


def test_isrl_minibatch_reports_the_with_replacement_pld_bound():
    """Minibatch SGD (batches of K drawn with replacement): the PLD bound beats composition without
    amplification; K = 1 is the one-sample-step mechanism; a one-record silo (n = 1, every draw
    is the record) is the Gaussian mechanism with shift 2V composed, theta(2V sqrt(R)/sigma)."""
    data = sim.synthetic("logistic", 3, 40, 3, seed=2)
    run = sim.isrl_minibatch_sgd(data, rounds=30, batch=4, rate=0.1, sigma=1.0, clip=1.0)
    composed, sampled = run.privacy
    assert "with-replacement" in sampled.name
    assert sampled.epsilon(1e-5) < 0.5 * composed.epsilon(1e-5)
    one = privacy.isrl_minibatch_rounds(1.0, 1.5, 1, 30, 40)
    steps = privacy.isrl_one_sample_steps(1.0, 1.5, 30, 40)
    assert one.epsilon(1e-5) == steps.epsilon(1e-5)
    single = privacy.isrl_minibatch_rounds(1.0, 2.0, 1, 100, 1)
    eps = np.array([0.5, 2.0])
    exact = hs.theta(2.0 * math.sqrt(100) / 2.0, eps)
    upper = single.delta(eps)
    assert np.all(upper >= exact) and np.allclose(upper, exact, rtol=1e-3)
    # more records per silo, same K: more amplification
    assert privacy.isrl_minibatch_rounds(1.0, 1.0, 4, 30, 400).epsilon(1e-5) < sampled.epsilon(1e-5)
