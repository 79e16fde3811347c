"""Coverage of hockeystick.audit's bounds, by simulation: canary scores drawn from mechanisms whose
trade-off is known, many runs each; a bound at significance alpha exceeds the true epsilon in at most about
alpha of the runs (a one-sided binomial test on the count, rejected below p = 1e-3), and the test of the
scores against the true certified curve refutes it at most about alpha of the time, against a curve
understating the leakage most of the time.

The mechanisms: randomized response (pure eps0-DP, scores 0 or 1: the threshold test at 1/2 is tight, so
the bounds come close to their level), mu-GDP (in-scores N(mu, 1), out-scores N(0, 1): eps(delta) =
theta_epsilon(mu, delta)), the Poisson-subsampled Gaussian (a canary's score the log likelihood ratio of its
T rounds' outputs, in-canaries drawn from (1 - q) N(0, s^2) + q N(1, s^2) per round).  The one-run audits
draw each canary in with probability 1/2, as their theorems assume."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy import stats

from hockeystick import audit, pld
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism
from hockeystick.numerics.hockey_stick import theta_epsilon

ALPHA = (
    0.2  # a large level, so that a bound near its level exceeds the truth often enough to be seen
)
REJECT = 1e-3


def exceedance_p_value(exceed: np.ndarray, alpha: float = ALPHA) -> float:
    """P(Binomial(runs, alpha) >= count): small when the bound exceeds the truth more often than alpha."""
    count = int(np.sum(exceed))
    return float(stats.binom.sf(count - 1, exceed.size, alpha))


def randomized_response(
    rng: np.random.Generator, eps0: float, runs: int, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """(in, out) scores of ``runs`` runs: 1 with probability e^eps0 / (1 + e^eps0) for an in-canary, 1 / (1 +
    e^eps0) for an out-canary."""
    p = 1.0 / (1.0 + np.exp(-eps0))
    return (rng.random((runs, n)) < p).astype(float), (rng.random((runs, n)) < 1.0 - p).astype(
        float
    )


def one_run_labels(rng: np.random.Generator, runs: int, m: int) -> np.ndarray:
    """Each of m canaries in with probability 1/2 (the one-run audits' design)."""
    return rng.random((runs, m)) < 0.5


def test_clopper_pearson_at_a_fixed_threshold_covers_randomized_response():
    rng = np.random.default_rng(11)
    eps0 = 1.0
    held_in, held_out = randomized_response(rng, eps0, 400, 200)
    bounds = np.array(
        [
            audit.epsilon_clopper_pearson(
                i, o, significance=ALPHA, threshold_strategy=audit.Explicit(0.5)
            )
            for i, o in zip(held_in, held_out)
        ]
    )
    assert exceedance_p_value(bounds > eps0) > REJECT
    assert np.median(bounds) > 0.3  # the bound is not trivially 0


def test_the_raw_count_estimate_is_no_bound_and_the_test_sees_it():
    # the same runs: the estimate exceeds eps0 in about half of them, which the binomial test rejects
    rng = np.random.default_rng(11)
    eps0 = 1.0
    held_in, held_out = randomized_response(rng, eps0, 400, 200)
    estimates = np.array(
        [audit.epsilon_raw_counts(i, o, min_count=1) for i, o in zip(held_in, held_out)]
    )
    assert exceedance_p_value(estimates > eps0) < REJECT


def test_one_run_audit_covers_randomized_response():
    rng = np.random.default_rng(12)
    eps0, runs, m = 1.0, 200, 400
    labels = one_run_labels(rng, runs, m)
    p = 1.0 / (1.0 + np.exp(-eps0))
    scores = np.where(labels, rng.random((runs, m)) < p, rng.random((runs, m)) < 1.0 - p).astype(
        float
    )
    for strategy in (audit.Explicit(0.5), audit.Bonferroni()):
        bounds = np.array(
            [
                audit.epsilon_one_run(
                    s[k], s[~k], significance=ALPHA, delta=0.0, threshold_strategy=strategy
                )
                for s, k in zip(scores, labels)
            ]
        )
        assert exceedance_p_value(bounds > eps0) > REJECT, strategy
        assert np.median(bounds) > 0.3


def test_clopper_pearson_strategies_and_the_gdp_fit_cover_gaussian_scores():
    rng = np.random.default_rng(13)
    mu, delta, runs, n = 1.5, 1e-3, 150, 500
    truth = theta_epsilon(mu, delta)
    held_in, held_out = rng.normal(mu, 1.0, (runs, n)), rng.normal(0.0, 1.0, (runs, n))
    estimators = {
        "bonferroni": lambda i, o: audit.epsilon_clopper_pearson(
            i, o, significance=ALPHA, delta=delta
        ),
        "simultaneous": lambda i, o: audit.epsilon_clopper_pearson(
            i, o, significance=ALPHA, delta=delta, threshold_strategy=audit.Simultaneous()
        ),
        "split": lambda i, o: audit.epsilon_clopper_pearson(
            i, o, significance=ALPHA, delta=delta, threshold_strategy=audit.Split(0.5, 1)
        ),
        "gdp": lambda i, o: audit.epsilon_gdp(i, o, significance=ALPHA, delta=delta),
    }
    for name, estimate in estimators.items():
        bounds = np.array([estimate(i, o) for i, o in zip(held_in, held_out)])
        assert exceedance_p_value(bounds > truth) > REJECT, name
        assert np.median(bounds) > 1.0, name


def test_the_gdp_fit_covers_scores_that_do_not_leak():
    # identical in and out laws: eps = 0; a fit reading |mu| of upper limits would report eps > 0 here
    rng = np.random.default_rng(14)
    runs, n = 200, 200
    held_in, held_out = rng.normal(0.0, 1.0, (runs, n)), rng.normal(0.0, 1.0, (runs, n))
    bounds = np.array(
        [audit.epsilon_gdp(i, o, significance=ALPHA, delta=1e-5) for i, o in zip(held_in, held_out)]
    )
    assert exceedance_p_value(bounds > 0.0) > REJECT


def test_curve_audit_refutes_the_true_curve_rarely_and_an_understated_one_often():
    rng = np.random.default_rng(15)
    mu, runs, n = 1.5, 80, 1000
    held_in, held_out = rng.normal(mu, 1.0, (runs, n)), rng.normal(0.0, 1.0, (runs, n))
    right = GaussianMechanism(sigma=1.0 / mu)
    understated = GaussianMechanism(sigma=1.0 / (0.7 * mu))
    refuted_right = np.array(
        [
            audit.audit_curve(i, o, accountant=right, significance=ALPHA).refuted
            for i, o in zip(held_in, held_out)
        ]
    )
    refuted_wrong = np.array(
        [
            audit.audit_curve(i, o, accountant=understated, significance=ALPHA).refuted
            for i, o in zip(held_in, held_out)
        ]
    )
    assert exceedance_p_value(refuted_right) > REJECT
    assert refuted_wrong.mean() > 0.9


@pytest.mark.slow
def test_multisplit_and_the_one_run_audits_cover_gaussian_scores():
    rng = np.random.default_rng(16)
    mu, delta, runs, m = 2.0, 1e-5, 100, 1000
    truth = theta_epsilon(mu, delta)
    labels = one_run_labels(rng, runs, m)
    scores = np.where(labels, rng.normal(mu, 1.0, (runs, m)), rng.normal(0.0, 1.0, (runs, m)))
    estimators = {
        "multisplit": lambda i, o: audit.epsilon_clopper_pearson(
            i, o, significance=ALPHA, delta=delta, threshold_strategy=audit.MultiSplit(20, 0.5, 2)
        ),
        "steinke": lambda i, o: audit.epsilon_one_run(i, o, significance=ALPHA, delta=delta),
        "mahloujifar": lambda i, o: audit.epsilon_one_run_fdp(
            i, o, significance=ALPHA, delta=delta
        ),
    }
    for name, estimate in estimators.items():
        bounds = np.array([estimate(s[k], s[~k]) for s, k in zip(scores, labels)])
        assert exceedance_p_value(bounds > truth) > REJECT, name
        assert np.median(bounds) > 0.5, name


def likelihood_ratio_scores(
    rng: np.random.Generator, sigma: float, q: float, rounds: int, n: int, member: bool
) -> np.ndarray:
    """The log likelihood ratio of a canary's ``rounds`` outputs under the Poisson-subsampled Gaussian: the
    most powerful membership score (in: each round N(1, sigma^2) with probability q, else N(0, sigma^2))."""
    x = rng.normal(0.0, sigma, (n, rounds))
    if member:
        x = x + (rng.random((n, rounds)) < q)
    return np.sum(np.log1p(-q + q * np.exp((2 * x - 1) / (2 * sigma**2))), axis=1)


@pytest.mark.slow
def test_curve_audit_flags_a_wrong_sampling_rate_from_likelihood_ratio_scores(monkeypatch):
    from hockeystick.risk import power_bracket

    rng = np.random.default_rng(17)
    sigma, q, rounds, runs, n = 1.0, 0.5, 4, 40, 2000
    right = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    wrong = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q / 4, rounds=rounds)
    # an accountant's directional profiles are a function of the accountant, direction and side alone:
    # built once per accountant (the one-direction PLDs were three quarters of the test's time), not per run
    profiles = functools.cache(power_bracket.direction_profiles)
    monkeypatch.setattr(power_bracket, "direction_profiles", profiles)
    refuted = {"right": [], "wrong": []}
    for _ in range(runs):
        held_in = likelihood_ratio_scores(rng, sigma, q, rounds, n, True)
        held_out = likelihood_ratio_scores(rng, sigma, q, rounds, n, False)
        for name, accountant in (("right", right), ("wrong", wrong)):
            verdict = audit.audit_curve(
                held_in, held_out, accountant=accountant, significance=ALPHA, direction="remove"
            )
            refuted[name].append(verdict.refuted)
    assert exceedance_p_value(np.array(refuted["right"])) > REJECT
    assert np.mean(refuted["wrong"]) > 0.9


def dp_sgd_with_canaries(
    rng: np.random.Generator, m: int, d: int, steps: int, q: float, sigma: float
) -> tuple[np.ndarray, np.ndarray]:
    """One DP-SGD run with m gradient canaries (random unit vectors in d dimensions, each in the training set
    with probability 1/2), Poisson sampling at rate q, the noisy gradient sum released at every step; each
    canary scored by the sum over steps of the log likelihood ratio of its coordinate (the other canaries'
    coordinates act as extra noise).  (in-scores, out-scores)."""
    canaries = rng.standard_normal((m, d))
    canaries /= np.linalg.norm(canaries, axis=1, keepdims=True)  # clipped to norm 1
    member = rng.random(m) < 0.5
    score = np.zeros(m)
    for _ in range(steps):
        batch = member & (rng.random(m) < q)
        released = canaries[batch].sum(axis=0) + sigma * rng.standard_normal(d)
        x = canaries @ released
        score += np.log1p(-q + q * np.exp((2 * x - 1) / (2 * sigma**2)))
    return score[member], score[~member]


@pytest.mark.slow
def test_one_run_dp_sgd_audit_flags_an_accountant_with_a_wrong_sampling_rate(monkeypatch):
    """sigma 0.8, q 0.1, 100 steps: eps(1e-5) = 10.98; the same run accounted at q = 0.02 claims 2.62.

    Both accountants read a fixed loss grid of spacing 1e-3: a certified trade-off curve all the same
    (so the right accountant is refuted no more often than the significance allows), within 2e-5 of
    the default's at every probe from 1e-6 to 0.3, far inside the gap the wrong rate leaves, and 0.7 s
    to compute against the default's 20 s (its fine reads at small delta, which the audit's verdict
    does not need; risk/'s tests hold the default's curve)."""
    from hockeystick.audit import curve

    rng = np.random.default_rng(18)
    sigma, q, steps, runs = 0.8, 0.1, 100, 6
    grid = dict(value_discretization_interval=1e-3)
    right = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=steps, **grid)
    wrong = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q / 5, rounds=steps, **grid)
    # each accountant's certified trade-off curve is a function of the accountant alone: computed once, not
    # once per run
    tradeoffs = {id(a): curve.certified_tradeoff(a) for a in (right, wrong)}
    monkeypatch.setattr(curve, "certified_tradeoff", lambda accountant: tradeoffs[id(accountant)])
    refuted = {"right": 0, "wrong": 0}
    for _ in range(runs):
        held_in, held_out = dp_sgd_with_canaries(rng, 1000, 4000, steps, q, sigma)
        for name, accountant in (("right", right), ("wrong", wrong)):
            verdict = audit.audit_curve(
                held_in, held_out, accountant=accountant, method="one_run_fdp"
            )
            refuted[name] += verdict.refuted
    assert (
        refuted["right"] <= 1
    )  # at significance 0.05: two or more of 6 has probability below 0.033
    assert refuted["wrong"] == runs
