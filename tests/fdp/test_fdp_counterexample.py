"""Paper 004's convergent H0 (eq. 16/17/21) is false for constant-rate FedAvg and FedProx: a loss attains more.

The differing client's loss is +-c w_1 + beta cos w_2 (every other client's is beta cos w_2), with
c = sqrt(V^2 - beta^2).  It is beta-smooth (inside every L-smooth class with L >= beta; beta = 0 is
the linear loss +-V w_1), its gradient norm is <= V so clipping never acts, and w_1 only translates:
each round the two worlds' w_1 move apart by exactly the per-round sensitivity gamma_t of Lemma 20
(of Lemma 23 for FedProx, exact constants), with c in place of V.  The released w_1 is then Gaussian
with mean gap sum_t gamma_t and variance T sigma^2/m in both worlds, so the attained

    mu = sum_t gamma_t / (sigma sqrt(T/m))        (= sqrt(m T) gamma / sigma for a constant rate),

and no valid bound can be below it.  See docs/paper-004-errata.md section 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.fdp import SCHEDULES, NoisyFedAvg, NoisyFedProx, gaussian_tradeoff

from .test_fdp_fedavg import SEEDS, eta_matrix


def linear_loss_attained_mu(
    eta: np.ndarray, *, clients: int, sigma: float, clip: float, proximal: float | None = None
) -> float:
    """Run noisy FedAvg (FedProx if ``proximal``) without its noise on the linear loss +-V w_1, both worlds.

    The dynamics are translations, so the noise only adds N(0, T sigma^2/m) to the released w_1;
    the attained mu is the mean gap over that standard deviation.
    """
    T, K = eta.shape
    final = []
    for sign in (1.0, -1.0):
        w = 0.0
        for t in range(T):
            local = np.full(clients, w)
            for k in range(K):
                grad = np.zeros(clients)
                grad[0] = sign * clip
                grad /= np.maximum(1.0, np.abs(grad) / clip)  # clipping at V: inactive
                if proximal is not None:
                    grad += proximal * (local - w)
                local -= eta[t, k] * grad
            w = float(local.mean())
        final.append(w)
    return abs(final[0] - final[1]) / (sigma * math.sqrt(T / clients))


def test_seeds_valid_mu_is_the_closed_form_and_is_attained() -> None:
    """SEEDS: mu = sqrt(m T) gamma / sigma, gamma = (2V/m) sum_k eta, and the linear loss leaks exactly that."""
    m, sigma, V, a, K, T = (
        SEEDS[k] for k in ("clients", "sigma", "clip", "learning_rate", "local_steps", "rounds")
    )
    acct = NoisyFedAvg(**SEEDS)
    eta = eta_matrix("constant", a, K, T)
    gamma = 2 * V / m * eta[0].sum()
    closed = math.sqrt(m * T) * gamma / sigma
    assert acct.mu == pytest.approx(closed, rel=1e-13)
    attained = linear_loss_attained_mu(eta, clients=m, sigma=sigma, clip=V)
    assert attained == pytest.approx(closed, rel=1e-12)
    assert acct.mu >= attained * (1 - 1e-12)
    assert acct.mu_paper_h0 == pytest.approx(1.417885043, abs=5e-10)
    assert acct.mu_paper_h0 < attained / 3  # 1.418 vs 5.477: the paper's bound is exceeded


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_valid_mu_is_never_below_the_linear_loss_and_tight_for_constant_rho(schedule: str) -> None:
    m, sigma, V = 6, 0.7, 2.0
    for a, L, K, T in [(0.01, 1.0, 5, 2), (0.05, 2.0, 3, 9), (0.2, 1.0, 1, 30), (0.1, 0.5, 7, 4)]:
        eta = eta_matrix(schedule, a, K, T)
        acct = NoisyFedAvg(
            clients=m,
            sigma=sigma,
            clip=V,
            lipschitz=L,
            learning_rate=a,
            local_steps=K,
            rounds=T,
            schedule=schedule,
        )
        attained = linear_loss_attained_mu(eta, clients=m, sigma=sigma, clip=V)
        ctx = (a, L, K, T)
        assert acct.mu >= attained * (1 - 1e-12), ctx
        if schedule in ("constant", "cyclic"):
            assert acct.mu == pytest.approx(attained, rel=1e-12), ctx
            assert acct.mu_paper_h0 < attained * (1 - 1e-6), ctx  # T >= 2, L > 0: eq. 16 is false


def test_fedprox_exact_constants_are_attained_and_eq21_is_false() -> None:
    m, sigma, V, L, alpha, a, K = 5, 1.1, 3.0, 1.0, 4.0, 0.2, 6
    for T in (2, 10, 100):
        attained = linear_loss_attained_mu(
            np.full((T, K), a), clients=m, sigma=sigma, clip=V, proximal=alpha
        )
        exact = NoisyFedProx(
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
        theorem = NoisyFedProx(
            clients=m, sigma=sigma, clip=V, lipschitz=L, proximal=alpha, learning_rate=a, rounds=T
        )
        assert exact.mu == pytest.approx(attained, rel=1e-12), T
        assert theorem.mu > attained, T  # valid, loose: gamma <= 2V/(m alpha)
        assert theorem.mu_paper_h0 < attained and exact.mu_paper_h0 < attained, T


def test_valid_mu_is_nondecreasing_in_L_and_paper_h0_is_not() -> None:
    """An L-smooth class holds every smaller L (L = 0: linear losses), so a valid bound cannot decrease in L."""
    L = np.linspace(0.0, 3.0, 61)
    for schedule in SCHEDULES:
        acct = NoisyFedAvg(
            clients=20,
            sigma=1.0,
            clip=10.0,
            lipschitz=L,
            learning_rate=0.05,
            local_steps=5,
            rounds=40,
            schedule=schedule,
        )
        assert (np.diff(acct.mu) >= -1e-13 * acct.mu[1:]).all(), schedule
    constant = NoisyFedAvg(
        clients=20, sigma=1.0, clip=10.0, lipschitz=L, learning_rate=0.05, local_steps=5, rounds=40
    )
    assert constant.mu_paper_h0[0] == pytest.approx(
        constant.mu[0], rel=1e-14
    )  # L = 0: H0 is composition
    assert (np.diff(constant.mu_paper_h0) < 0).all()


def test_monte_carlo_nonconvex_loss_beats_paper_h0_at_T5() -> None:
    """The full noisy algorithm (d = 2, m clients, K clipped local steps, Gaussian uploads) on
    +-c w_1 + beta cos w_2: the estimated mu and the power of a threshold test on w_1 contradict
    mu_paper_h0 and agree with mu (times c/V)."""
    m, sigma, V, L, a, K, T, beta, n = 4, 1.0, 1.0, 1.0, 0.2, 5, 5, 0.1, 10_000
    acct = NoisyFedAvg(
        clients=m, sigma=sigma, clip=V, lipschitz=L, learning_rate=a, local_steps=K, rounds=T
    )
    c = math.sqrt(V**2 - beta**2)
    rng = np.random.default_rng(20261122)

    def released_w1(sign: float) -> np.ndarray:
        w = np.zeros((n, 2))
        for _ in range(T):
            local = np.repeat(w[:, None, :], m, axis=1)
            for _ in range(K):
                grad = np.zeros_like(local)
                grad[..., 1] = -beta * np.sin(local[..., 1])
                grad[:, 0, 0] = sign * c
                grad /= np.maximum(1.0, np.linalg.norm(grad, axis=-1, keepdims=True) / V)
                local -= a * grad
            w = (local + rng.normal(0.0, sigma, local.shape)).mean(axis=1)
        return w[:, 0]

    x, y = -released_w1(1.0), -released_w1(-1.0)  # world C has the larger -w_1
    mu_hat = (x.mean() - y.mean()) / math.sqrt((x.var() + y.var()) / 2)
    expected = acct.mu * c / V
    se = math.sqrt((2 + expected**2 / 2) / n)
    assert abs(mu_hat - expected) < 6 * se
    assert mu_hat > acct.mu_paper_h0 + 20 * se  # 2.22 vs 1.51
    # The most powerful test at type-I error 0.05 (threshold on w_1, calibrated on world C' samples):
    # mu_paper_h0-GDP promises type-II error >= G(0.05); the algorithm does far better.
    threshold = np.quantile(y, 0.95)
    beta_emp = float(np.mean(x <= threshold))
    assert beta_emp < gaussian_tradeoff(acct.mu_paper_h0, 0.05) - 0.15
    assert beta_emp > gaussian_tradeoff(acct.mu, 0.05) - 0.05
