"""Noisy FedAvg (paper 004 Theorem 12) and the shifted-interpolation engine (eq. 12-16).

References: the SEEDS regression values, explicit eta_{k,t} matrices pushed through products and sums,
a convex-QP solve (scipy SLSQP) of the interpolation problem, and closed forms (trigamma sums).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import optimize, special

from hockeystick.fdp import (
    SCHEDULES,
    NoisyFedAvg,
    constant_rate_h0,
    constant_rate_h0_limit,
    interpolation_bound,
    rounds_from_learning_rates,
    schedule_round_factors,
)
from hockeystick.numerics import certified_theta

SEEDS = dict(
    clients=20, sigma=1.0, clip=10.0, lipschitz=1.0, learning_rate=0.01, local_steps=5, rounds=600
)


def eta_matrix(schedule: str, a: float, K: int, T: int) -> np.ndarray:
    t = np.arange(T)[:, None].astype(float)
    k = np.arange(K)[None, :].astype(float)
    return {
        "constant": a + 0 * t + 0 * k,
        "cyclic": a / (k + 1) + 0 * t,
        "stagewise": a / (t + 1) + 0 * k,
        "continuous": a / (t * K + k + 1),
    }[schedule]


def test_seeds_regression_values() -> None:
    acct = NoisyFedAvg(**SEEDS)
    assert acct.mu_paper_h0 == pytest.approx(1.417885043, abs=5e-10)
    assert acct.mu_paper == pytest.approx(
        1.417885043, abs=5e-10
    )  # eq. 17 is eq. 16 for constant rates
    # Full-transcript composition: sqrt(T) * sqrt(m) * (2 a V K / m) / sigma = sqrt(30) = 5.477...
    assert acct.mu_composition == pytest.approx(math.sqrt(30.0), rel=1e-13)
    assert acct.mu_composition == pytest.approx(5.477, abs=5e-4)


def test_eq17_literal_formula() -> None:
    m, sigma, V, L, a, K, T = 20, 1.3, 4.0, 2.0, 0.02, 7, 40
    r = (1 + a * L) ** K
    literal = (
        2
        * a
        * V
        * K
        / (math.sqrt(m) * sigma)
        * math.sqrt((r + 1) / (r - 1) * (r**T - 1) / (r**T + 1))
    )
    acct = NoisyFedAvg(
        clients=m, sigma=sigma, clip=V, lipschitz=L, learning_rate=a, local_steps=K, rounds=T
    )
    assert acct.mu_paper_h0 == pytest.approx(literal, rel=1e-13)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_closed_forms_equal_the_engine(schedule: str) -> None:
    """Every schedule: the accountant (closed forms / C++ schedule loop) equals the general engine
    fed with (rho_t, gamma_t) built from the explicit eta_{k,t} matrix."""
    m, sigma, V = 10.0, 0.9, 3.0
    for a, L, K, T in itertools.product((0.01, 0.3), (0.5, 2.0), (1, 3, 7), (1, 2, 13, 50)):
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
        rho, gamma = rounds_from_learning_rates(
            eta_matrix(schedule, a, K, T), lipschitz=L, clip=V, clients=m
        )
        h = interpolation_bound(rho, gamma)
        scale = math.sqrt(m) / sigma
        ctx = (schedule, a, L, K, T)
        assert acct.mu_paper_h0 == pytest.approx(scale * math.sqrt(h.h0), rel=1e-11), ctx
        assert acct.mu == pytest.approx(scale * math.sqrt(h.h_optimal), rel=1e-11), ctx
        assert acct.mu_composition == pytest.approx(
            scale * math.sqrt(h.h_composition), rel=1e-11
        ), ctx
        assert acct.h0_attained == bool(h.h0_attained), ctx


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_round_factors_closed_forms(schedule: str) -> None:
    a, L, K, T = 0.07, 1.5, 6, 30
    eta = eta_matrix(schedule, a, K, T)
    log_rho, steps = schedule_round_factors(schedule, a, L, K, np.arange(T))
    assert np.allclose(log_rho, np.sum(np.log1p(eta * L), axis=1), rtol=1e-12, atol=0)
    assert np.allclose(steps, eta.sum(axis=1), rtol=1e-13, atol=0)


def test_stagewise_composition_trigamma_and_eq19() -> None:
    """Stage-wise: exact composition = (2aVK/(sqrt m sigma)) sqrt(sum 1/t^2); eq. 19 bounds it."""
    T = np.array([1, 2, 5, 100, 10_000])
    acct = NoisyFedAvg(
        clients=8,
        sigma=2.0,
        clip=1.0,
        lipschitz=1.0,
        learning_rate=0.1,
        local_steps=4,
        rounds=T,
        schedule="stagewise",
    )
    base = 2 * 0.1 * 1.0 * 4 / (math.sqrt(8) * 2.0)
    direct = np.array([base * math.sqrt(sum(1 / t**2 for t in range(1, n + 1))) for n in T])
    assert np.allclose(acct.mu_composition, direct, rtol=1e-12)
    assert (acct.mu_paper >= acct.mu_composition).all()
    assert np.allclose(acct.mu_paper, base * np.sqrt(2 - 1 / T), rtol=1e-14)
    assert acct.mu_paper_limit == pytest.approx(base * math.sqrt(2))


def test_continuous_corrected_eq20_bounds_composition() -> None:
    for K, T in itertools.product((1, 2, 10, 100), (1, 2, 50, 3000)):
        acct = NoisyFedAvg(
            clients=5,
            sigma=1.0,
            clip=2.0,
            lipschitz=0.7,
            learning_rate=0.2,
            local_steps=K,
            rounds=T,
            schedule="continuous",
        )
        assert acct.mu_composition <= acct.mu_paper * (1 + 1e-12)
        assert acct.mu_paper <= acct.mu_paper_limit


def qp_optimum(rho: np.ndarray, gamma: np.ndarray) -> float:
    """min sum x_t^2 over x >= 0 with gaps D_{t+1} = rho_t D_t + gamma_t - x_t >= 0, D_0 = D_T = 0 (SLSQP)."""
    T = len(rho)

    def gaps(x: np.ndarray) -> np.ndarray:
        d, out = 0.0, []
        for t in range(T):
            d = rho[t] * d + gamma[t] - x[t]
            out.append(d)
        return np.array(out)

    cons = [
        {"type": "ineq", "fun": lambda x: gaps(x)[:-1]},
        {"type": "eq", "fun": lambda x: gaps(x)[-1:]},
    ]
    best = np.inf
    for x0 in (gamma.copy(), np.full(T, gamma.mean())):
        res = optimize.minimize(
            lambda x: float(x @ x),
            x0,
            jac=lambda x: 2 * x,
            constraints=cons,
            bounds=[(0, None)] * T,
            method="SLSQP",
            options={"ftol": 1e-15, "maxiter": 500},
        )
        if res.success:
            best = min(best, res.fun)
    return best


def test_optimal_is_the_exact_constrained_minimum() -> None:
    rng = np.random.default_rng(7)
    cases = [
        (np.full(6, 1.3), np.full(6, 0.2)),  # constant: optimum is composition
        (np.ones(5), np.array([0.5, 0.1, 0.3, 0.2, 0.4])),  # rho = 1: H0 attained
        (1 + 0.4 / np.arange(1, 8), 1.0 / np.arange(1, 8)),  # decaying (stage-wise like)
    ]
    cases += [(np.exp(rng.uniform(-0.3, 0.6, 7)), rng.uniform(0, 1, 7)) for _ in range(6)]
    for rho, gamma in cases:
        h = interpolation_bound(rho, gamma)
        ref = qp_optimum(rho, gamma)
        assert h.h_optimal == pytest.approx(ref, rel=1e-6), (rho, gamma)
        assert h.h0 <= h.h_optimal * (1 + 1e-12) and h.h_optimal <= h.h_composition * (1 + 1e-12)
        assert bool(h.h0_attained) == (h.h_optimal <= h.h0 * (1 + 1e-9))


def test_eq41_fails_for_constant_rates_and_holds_for_seeds_stagewise() -> None:
    acct = NoisyFedAvg(**{**SEEDS, "rounds": np.array([1, 2, 600])})
    assert list(acct.h0_attained) == [True, False, False]
    assert np.allclose(acct.mu, acct.mu_composition, rtol=1e-15)
    stage = NoisyFedAvg(**{**SEEDS, "schedule": "stagewise"})
    assert stage.h0_attained and stage.mu_paper_h0 == pytest.approx(stage.mu, rel=1e-12)
    # T = 2 by hand: H(lambda_1) = lambda_1^2 g^2 + (rho (1 - lambda_1) g + g)^2 is minimised over
    # [0, 1] at lambda_1 = 1 (its free minimiser rho(rho+1)/(rho^2+1) exceeds 1), so H = 2 g^2.
    rho, g = 1.4, 0.3
    h = interpolation_bound([rho, rho], [g, g])
    assert h.h_optimal == pytest.approx(2 * g**2, rel=1e-14)
    assert h.h0 == pytest.approx(g**2 * (rho + 1) ** 2 / (rho**2 + 1), rel=1e-14)


@pytest.mark.parametrize("schedule", ["constant", "cyclic"])
def test_paper_h0_monotone_in_T_and_below_its_limit(schedule: str) -> None:
    T = np.arange(1, 3001)
    for a, L, K in [(0.01, 1.0, 5), (0.3, 2.0, 10), (1e-4, 0.5, 2)]:
        acct = NoisyFedAvg(
            clients=20,
            sigma=1.0,
            clip=10.0,
            lipschitz=L,
            learning_rate=a,
            local_steps=K,
            rounds=T,
            schedule=schedule,
        )
        assert (np.diff(acct.mu_paper_h0) >= 0).all()
        assert (acct.mu_paper_h0 <= acct.mu_paper_limit * (1 + 1e-13)).all()
        assert (np.diff(acct.mu_composition) > 0).all()


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_ordering_and_composition_monotone(schedule: str) -> None:
    T = np.arange(1, 400)
    acct = NoisyFedAvg(
        clients=7,
        sigma=0.8,
        clip=1.0,
        lipschitz=1.0,
        learning_rate=0.05,
        local_steps=3,
        rounds=T,
        schedule=schedule,
    )
    assert (acct.mu_paper_h0 <= acct.mu * (1 + 1e-12)).all()
    assert (acct.mu <= acct.mu_composition * (1 + 1e-12)).all()
    assert (np.diff(acct.mu_composition) > 0).all()
    if schedule in ("stagewise", "continuous"):
        assert (acct.mu_composition <= acct.mu_paper * (1 + 1e-12)).all()


def test_grid_is_one_call_and_matches_pointwise() -> None:
    sigma = np.array([0.5, 1.0, 2.0])[:, None, None]
    K = np.array([1, 5])[None, :, None]
    T = np.array([3, 40, 200])[None, None, :]
    for schedule in SCHEDULES:
        grid = NoisyFedAvg(
            clients=10,
            sigma=sigma,
            clip=1.0,
            lipschitz=1.0,
            learning_rate=0.05,
            local_steps=K,
            rounds=T,
            schedule=schedule,
        )
        assert np.shape(grid.mu) == (3, 2, 3)
        one = NoisyFedAvg(
            clients=10,
            sigma=1.0,
            clip=1.0,
            lipschitz=1.0,
            learning_rate=0.05,
            local_steps=5,
            rounds=40,
            schedule=schedule,
        )
        assert grid.mu[1, 1, 1] == pytest.approx(one.mu, rel=1e-15)
        assert grid.mu_paper_h0[1, 1, 1] == pytest.approx(one.mu_paper_h0, rel=1e-15)
        eps = np.array([0.5, 2.0])[:, None, None, None]
        d = grid.delta(eps)
        assert d.shape == (2, 3, 2, 3)
        assert d[1, 1, 1, 1] == pytest.approx(certified_theta.theta_upper(one.mu, 2.0), rel=1e-15)


def test_delta_epsilon_use_the_selected_mu() -> None:
    acct = NoisyFedAvg(**SEEDS)
    # theta at the selected mu, rounded up (docs/howto-mechanism.md, "Outward rounding")
    assert acct.delta(1.0, interpolation="h0") == certified_theta.theta_upper(acct.mu_paper_h0, 1.0)
    assert acct.delta(1.0) == certified_theta.theta_upper(acct.mu, 1.0)
    assert acct.delta(1.0, interpolation="composition") == certified_theta.theta_upper(
        acct.mu_composition, 1.0
    )
    e = acct.epsilon(1e-5, interpolation="h0")
    assert acct.delta(e, interpolation="h0") == pytest.approx(1e-5, rel=1e-9)
    # The valid bound is never below the paper's number.
    assert acct.epsilon(1e-5) >= e


def test_constant_rate_h0_small_log_rho_limit() -> None:
    assert constant_rate_h0(0.0, 2.0, 7) == pytest.approx(28.0)
    assert constant_rate_h0(1e-12, 2.0, 7) == pytest.approx(28.0, rel=1e-10)


def test_invalid_inputs() -> None:
    with pytest.raises(ValueError, match="schedule"):
        NoisyFedAvg(**{**SEEDS, "schedule": "linear"})
    with pytest.raises(ValueError, match="local_steps"):
        NoisyFedAvg(**{**SEEDS, "local_steps": 2.5})
    with pytest.raises(ValueError, match="sigma"):
        NoisyFedAvg(**{**SEEDS, "sigma": 0.0})
    with pytest.raises(ValueError, match="rounds"):
        NoisyFedAvg(**{**SEEDS, "rounds": np.nan})
    with pytest.raises(ValueError, match="broadcast"):
        NoisyFedAvg(**{**SEEDS, "sigma": np.ones(3), "rounds": np.ones(4)})
    with pytest.raises(ValueError, match="bound"):
        NoisyFedAvg(**SEEDS).delta(1.0, bound="tightest")
    with pytest.raises(ValueError, match="rho"):
        interpolation_bound([1.0, -1.0], [0.1, 0.1])
    with pytest.raises(ValueError, match="rounds axis"):
        interpolation_bound(1.0, 0.1)
    with pytest.raises(ValueError, match="e\\^700"):
        NoisyFedAvg(**{**SEEDS, "learning_rate": 1.0, "local_steps": 2000, "schedule": "stagewise"})


def test_general_engine_accepts_any_schedule_shape() -> None:
    # Warm restarts every 4 rounds with cosine decay inside each round: (batch=2, T=12, K=5).
    t = np.arange(12)[:, None]
    k = np.arange(5)[None, :]
    eta = 0.05 * 0.5 * (1 + np.cos(np.pi * ((t % 4) * 5 + k) / 20))
    eta = np.stack([eta, eta / 2])
    rho, gamma = rounds_from_learning_rates(
        eta, lipschitz=np.array([1.0, 3.0]), clip=2.0, clients=10
    )
    h = interpolation_bound(rho, gamma)
    assert h.h0.shape == (2,)
    for i in range(2):
        assert h.h_composition[i] == pytest.approx(float(np.sum(gamma[i] ** 2)), rel=1e-14)
        assert h.h_optimal[i] == pytest.approx(qp_optimum(rho[i], gamma[i]), rel=1e-6)


def test_cyclic_harmonic_and_gamma_function_forms() -> None:
    K = np.array([1, 2, 10, 1000])
    a, L = 0.03, 1.1
    log_rho, steps = schedule_round_factors("cyclic", a, L, K, 0)
    for kk, lr, s in zip(K, log_rho, steps):
        assert s == pytest.approx(a * sum(1 / (j + 1) for j in range(kk)), rel=1e-13)
        assert lr == pytest.approx(
            math.fsum(math.log1p(a * L / (j + 1)) for j in range(kk)), rel=1e-12
        )
    assert special.digamma(2) + np.euler_gamma == pytest.approx(1.0)


def test_engine_survives_products_far_beyond_double_range() -> None:
    """rho products of 1e+-2500 (R overflows double many times over): compare with log-domain sums."""
    from scipy.special import logsumexp

    rng = np.random.default_rng(3)
    for rho in (np.full(10, 1e250), np.full(10, 1e-250), 10.0 ** rng.uniform(-300, 300, 40)):
        gamma = rng.uniform(0.1, 1.0, rho.size)
        log_p = np.append(np.cumsum(np.log(rho[:0:-1]))[::-1], 0.0)  # log P_t = sum_{j>t} log rho_j
        h0_ref = math.exp(2 * logsumexp(log_p, b=gamma) - logsumexp(2 * log_p))
        h = interpolation_bound(rho, gamma)
        assert h.h0 == pytest.approx(h0_ref, rel=1e-12)
        assert h.h_composition == pytest.approx(float(np.sum(gamma**2)), rel=1e-14)
        assert h.h0 * (1 - 1e-12) <= h.h_optimal <= h.h_composition * (1 + 1e-12)
    h = interpolation_bound(np.full(10, 1e250), np.full(10, 0.5))
    assert h.h_optimal == pytest.approx(2.5, rel=1e-14)  # rho > 1 constant: optimum is composition
    h = interpolation_bound(np.full(10, 1e-250), np.full(10, 0.5))
    assert h.h0_attained and h.h_optimal == pytest.approx(
        h.h0, rel=1e-14
    )  # contraction: H0 attained


def first_round_step_sum(schedule: str, K: int) -> float:
    """s_0 = sum_k eta_{k,0} / a: K for constant and stage-wise rates, the harmonic number H_K otherwise."""
    return (
        float(K)
        if schedule in ("constant", "stagewise")
        else math.fsum(1 / (k + 1) for k in range(K))
    )


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_extreme_rates_and_clips_give_the_one_round_closed_form(schedule: str) -> None:
    """T = 1: H = gamma_0^2 whatever rho is, so mu = 2 V a s_0 / (sqrt(m) sigma) exactly, however far the
    factors a, V, 1/sigma sit from 1 and whatever a^2 overflows to (a = 1e308 included)."""
    for m, sigma, V, L, a, K in [
        (1, 1.0, 0.0, 5e-324, 1e308, 1),  # no sensitivity: mu = 0
        (1, 5e-324, 0.0, 0.0, 5e-324, 1),  # 0 * (1 / sigma = inf): 0, not NaN
        (3, 1.0, 1e-300, 5e-324, 1e308, 4),
        (7, 1e-200, 1e-150, 1e-300, 1e250, 3),
        (2, 1e250, 1e200, 1.0, 1e-300, 5),
    ]:
        acct = NoisyFedAvg(
            clients=m,
            sigma=sigma,
            clip=V,
            lipschitz=L,
            learning_rate=a,
            local_steps=K,
            rounds=1,
            schedule=schedule,
        )
        exact = float(
            2
            * mpmath.mpf(V)
            * mpmath.mpf(a)
            * first_round_step_sum(schedule, K)
            / (mpmath.sqrt(m) * mpmath.mpf(sigma))
        )
        ctx = (schedule, m, sigma, V, L, a, K)
        for mu in (acct.mu, acct.mu_composition, acct.mu_paper_h0):
            assert mu == pytest.approx(exact, rel=1e-14, abs=0), ctx
        assert acct.delta(1.0) >= certified_theta.theta_upper(exact, 1.0) * (1 - 1e-12), ctx


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_mu_depends_on_the_rate_through_a_L_and_a_V_only(schedule: str) -> None:
    """rho_t depends on (a, L) through a L only and gamma_t is proportional to a V: (V / c, a c, L / c) has the
    same mu for every c, also where (a c)^2 or a c K overflows a double."""
    reference = NoisyFedAvg(
        clients=5,
        sigma=0.7,
        clip=2.0,
        lipschitz=0.3,
        learning_rate=0.2,
        local_steps=3,
        rounds=9,
        schedule=schedule,
    )
    for c in (1e-300, 1e154, 1e300, 4e307):
        scaled = NoisyFedAvg(
            clients=5,
            sigma=0.7,
            clip=2.0 / c,
            lipschitz=0.3 / c,
            learning_rate=0.2 * c,
            local_steps=3,
            rounds=9,
            schedule=schedule,
        )
        for name in ("mu", "mu_composition", "mu_paper_h0", "mu_paper", "mu_paper_limit"):
            assert getattr(scaled, name) == pytest.approx(getattr(reference, name), rel=1e-13), (
                schedule,
                c,
                name,
            )


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_mu_past_the_largest_double_is_infinite_and_gives_the_trivial_bound(schedule: str) -> None:
    acct = NoisyFedAvg(
        clients=1,
        sigma=1e-300,
        clip=1e300,
        lipschitz=0.0,
        learning_rate=1.0,
        local_steps=1,
        rounds=2,
        schedule=schedule,
    )
    assert acct.mu == math.inf
    assert acct.delta(1e300) == 1.0 and acct.epsilon(1e-5) == math.inf


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("name", ["rounds", "local_steps"])
def test_counts_beyond_two_to_the_53_are_refused(schedule: str, name: str) -> None:
    """Counts past 2^53 are not consecutive doubles and overflow the engine's 64-bit loop counters (rounds = 1e308
    with the stage-wise rate would give mu = 0, local_steps = 1e308 a finite mu against a composition value of inf)."""
    params = dict(
        clients=1, sigma=1.0, clip=1.0, lipschitz=0.0, learning_rate=0.1, local_steps=1, rounds=1
    )
    if schedule in (
        "constant",
        "cyclic",
    ):  # closed forms in the counts: the largest accepted count costs nothing
        assert NoisyFedAvg(**{**params, name: 2.0**53}, schedule=schedule).mu > 0
    for count in (2.0**53 + 2, 1e308):
        with pytest.raises(ValueError, match=name):
            NoisyFedAvg(**{**params, name: count}, schedule=schedule)


def test_a_negative_zero_log_rho_is_zero() -> None:
    """-0.0 passes ``>= 0``; the limit gamma^2 / tanh(l / 2) at l = -0.0 is +inf (2 gamma^2 / l gave -inf)."""
    assert (
        constant_rate_h0_limit(-0.0, 1.0) == math.inf and constant_rate_h0_limit(-0.0, 0.0) == 0.0
    )
    assert constant_rate_h0(-0.0, 2.0, 5) == 20.0
    acct = NoisyFedAvg(
        clients=1, sigma=1.0, clip=1.0, lipschitz=-0.0, learning_rate=0.5, local_steps=2, rounds=3
    )
    assert acct.mu_paper_limit == math.inf and acct.mu == pytest.approx(
        2 * 0.5 * 2 * math.sqrt(3), rel=1e-15
    )


def test_round_factors_refuse_step_counts_they_cannot_sum() -> None:
    """The continuous schedule's factors are a pass over the K steps (local_steps = 1e308 never returned)."""
    with pytest.raises(ValueError, match="local_steps must be <= 16777216"):
        schedule_round_factors("continuous", 0.1, 1.0, 1e308, 0)
    with pytest.raises(ValueError, match="local_steps must be <= 9007199254740992"):
        schedule_round_factors("stagewise", 0.1, 1.0, 1e308, 0)
    log_rho, steps = schedule_round_factors("cyclic", 0.1, 1.0, 2.0**53, 0)
    assert steps == pytest.approx(0.1 * (math.log(2.0**53) + np.euler_gamma), rel=1e-15)


def test_round_factors_at_small_and_extreme_arguments() -> None:
    """Cyclic log rho = sum_k log1p(x / k) >= 0 against 60-digit sums (the gamma-function form gave -4.4e-16 at
    x = 1.8e-324, K = 9); a round index past 2^53 is refused (1e308 gave a NaN step sum)."""
    with mpmath.workdps(60):
        for x, K in itertools.product((5e-324, 1e-300, 1e-12, 3e-6, 1e-3, 0.0099), (1, 2, 9, 1000)):
            log_rho, _ = schedule_round_factors("cyclic", 1.0, x, K, 0)
            exact = mpmath.fsum(mpmath.log1p(mpmath.mpf(x) / k) for k in range(1, K + 1))
            assert log_rho >= 0 and log_rho == pytest.approx(float(exact), rel=1e-13, abs=1e-323), (
                x,
                K,
            )
    with pytest.raises(ValueError, match="round_index must be <= 2"):
        schedule_round_factors("continuous", 0.1, 1.0, 3, 1e308)
