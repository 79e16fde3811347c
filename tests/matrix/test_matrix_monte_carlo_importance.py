"""Importance-sampled Monte Carlo (``matrix.ImportanceSampledMonteCarlo``): against exact delta at small delta.

References that do not share its code: the Gaussian mechanism's closed form (b = 1, any C: the pair is one Gaussian
of mean norm ||C 1||), and for b = 2 with a diagonal C (orthogonal bin means) a one-dimensional quadrature of the
closed-form lognormal call / put (P/Q = (X_1 + X_2)/2 with independent lognormal X_i under Q). The weight bound B(alpha)
is checked as a supremum (attained at b = 1, never exceeded at b = 3), and the confidence bound's coverage over seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from hockeystick.matrix import BallsInBinsMonteCarlo, ImportanceSampledMonteCarlo
from hockeystick.matrix.importance_sampling import importance_weight_bound, optimal_stretch


def gaussian_delta(eps: float, mu: float) -> float:
    """delta(eps) of N(mu, 1) against N(0, 1) (Balle & Wang 2018, Thm 8)."""
    return float(
        stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
    )


def two_bin_delta(eps: float, mu1: float, mu2: float) -> float:
    """delta(eps) of ((N(mu1 e1) + N(mu2 e2))/2, N(0, I_2)), both directions, exactly: with X_i = exp(mu_i xi_i -
    mu_i^2/2) (xi_i i.i.d. N(0, 1) under Q), remove = E[((X1 + X2)/2 - e^eps)_+], add = E[(1 - e^eps (X1 + X2)/2)_+];
    the inner expectation over xi_2 is the lognormal call / put in closed form, the outer a quadrature over xi_1."""

    def call(strike: float, mu: float) -> float:  # E[(X - K)_+], X = exp(mu xi - mu^2/2)
        if strike <= 0.0:
            return 1.0 - strike
        d = -math.log(strike) / mu
        return float(stats.norm.cdf(d + mu / 2) - strike * stats.norm.cdf(d - mu / 2))

    def put(strike: float, mu: float) -> float:  # E[(K - X)_+]
        if strike <= 0.0:
            return 0.0
        d = -math.log(strike) / mu
        return float(strike * stats.norm.cdf(-d + mu / 2) - stats.norm.cdf(-d - mu / 2))

    def remove(xi: float) -> float:
        x1 = math.exp(mu1 * xi - mu1 * mu1 / 2)
        return stats.norm.pdf(xi) * call(2 * math.exp(eps) - x1, mu2) / 2

    def add(xi: float) -> float:
        x1 = math.exp(mu1 * xi - mu1 * mu1 / 2)
        return stats.norm.pdf(xi) * math.exp(eps) / 2 * put(2 * math.exp(-eps) - x1, mu2)

    out = []
    for f in (remove, add):
        value, _ = integrate.quad(
            f, -12, 12 + mu1, epsabs=0.0, epsrel=1e-10, limit=500, points=[eps / mu1]
        )
        out.append(value)
    return max(out)


def test_weight_bound_is_the_supremum_at_one_bin_and_holds_for_a_mixture():
    """b = 1: the weighted draw (P/P_alpha)(1 - e^{eps - L})_+ over a fine line of outputs peaks at B(alpha); b = 3 with
    a random Gram matrix: no draw of either direction exceeds B(alpha) (the Jensen step of the derivation)."""
    rng = np.random.default_rng(4)
    eps, alpha = 2.0, 2.5
    run = ImportanceSampledMonteCarlo(
        strategy=np.eye(1) * 1.3,
        noise_multiplier=1.0,
        cycle_length=1,
        epsilon=eps,
        stretch=alpha,
        draws=10,
        seed=0,
    )
    kappa = run.kappa
    y = np.linspace(-5, 15, 200001)  # output along the mean, sigma = 1, m = 1.3
    loss = 1.3 * y - kappa / 2
    proposal = alpha * 1.3 * y - alpha**2 * kappa / 2
    weighted = np.exp(loss - proposal) * np.clip(-np.expm1(eps - loss), 0, None)
    bound = importance_weight_bound(alpha, eps, kappa)
    assert weighted.max() <= bound * (1 + 1e-12) and weighted.max() >= bound * (1 - 1e-6)
    c = np.tril(rng.uniform(0.0, 1.0, (6, 6)))
    for eps in (0.5, 3.0):
        mixture = ImportanceSampledMonteCarlo(
            strategy=c, noise_multiplier=1.5, cycle_length=3, epsilon=eps, draws=20000, seed=1
        )
        bound = mixture.support_bound(eps)
        remove, add = mixture.weighted_draws(eps)
        assert bound < 1.0 and remove.max() <= bound and add.max() <= bound
        assert (
            max(remove.max(), add.max()) > 1e-3 * bound
        )  # the draws reach the bound's scale: not vacuous


def test_optimal_stretch_minimizes_the_bound():
    for eps, kappa in [(0.5, 0.3), (3.0, 1.0), (8.0, 2.1), (1e-3, 5.0)]:
        alpha = optimal_stretch(eps, kappa)
        found = optimize.minimize_scalar(
            lambda a: math.log(importance_weight_bound(a, eps, kappa)),
            bounds=(1.0, 20.0),
            method="bounded",
            options={"xatol": 1e-10},
        ).x
        assert alpha >= 1.0 and abs(alpha - found) <= 1e-4 * found
        assert importance_weight_bound(alpha, eps, kappa) <= 1.0
    assert optimal_stretch(2.0, 0.0) == 1.0 and importance_weight_bound(1.0, 5.0, 3.0) == 1.0


@pytest.mark.parametrize("eps", [8.5, 11.0])
def test_one_bin_small_delta_against_the_gaussian_closed_form(eps):
    """b = 1: the pair is N(||C 1||, z^2) against N(0, z^2). At delta ~ 2e-6 and 5e-10, 20 000 draws give a relative
    standard error below 10 % (plain draws would need about 5e7 and 2e11), the estimate within 4 standard errors of
    the closed form and the confidence bound above it."""
    c = np.tril(np.ones((4, 4))) * 0.3
    z = 1.0
    mu = float(np.linalg.norm(c.sum(axis=1))) / z
    exact = gaussian_delta(eps, mu)
    run = ImportanceSampledMonteCarlo(
        strategy=c, noise_multiplier=z, cycle_length=1, epsilon=eps, draws=20000, seed=3
    )
    reading = run.delta(eps, beta=1e-3, proved_sides=False)
    assert 1e-10 < exact < 1e-5, exact
    assert reading.standard_error <= 0.1 * reading.estimate
    assert abs(reading.estimate - exact) <= 4 * reading.standard_error
    assert reading.confidence_bound >= exact
    assert reading.confidence_bound <= 2 * exact  # tight: the bound uses B(alpha), not 1
    assert reading.stretch > 1.0 and reading.support_bound < 1e-2


@pytest.mark.parametrize("eps, mu1, mu2", [(2.0, 1.0, 0.8), (5.0, 1.2, 1.2), (7.0, 1.5, 1.0)])
def test_two_orthogonal_bins_against_the_lognormal_quadrature(eps, mu1, mu2):
    """b = 2, C diagonal with entries (mu1, mu2) over two rounds: the two bins' means are orthogonal, and delta (both
    directions) is the quadrature of ``two_bin_delta``; the estimate lies within 4 standard errors and the bound above."""
    exact = two_bin_delta(eps, mu1, mu2)
    run = ImportanceSampledMonteCarlo(
        strategy=np.diag([mu1, mu2]),
        noise_multiplier=1.0,
        cycle_length=2,
        epsilon=eps,
        draws=40000,
        seed=7,
    )
    reading = run.delta(eps, proved_sides=False)
    assert abs(reading.estimate - exact) <= 4 * reading.standard_error + 1e-12 * exact
    assert reading.confidence_bound >= exact
    assert reading.standard_error <= 0.05 * exact


def test_stretch_one_is_plain_monte_carlo():
    """alpha = 1: draws from P and Q with weight 1, so the estimate agrees with BallsInBinsMonteCarlo's within their
    standard errors, and B = 1."""
    c = np.tril(np.ones((6, 6))) * 0.5
    plain = ImportanceSampledMonteCarlo(
        strategy=c,
        noise_multiplier=1.0,
        cycle_length=3,
        epsilon=1.0,
        stretch=1.0,
        draws=60000,
        seed=5,
    ).delta(1.0)
    other = BallsInBinsMonteCarlo(
        strategy=c, noise_multiplier=1.0, cycle_length=3, draws=60000, seed=6
    ).delta(1.0)
    assert plain.support_bound == 1.0 and plain.stretch == 1.0
    assert abs(plain.estimate - other.estimate) <= 4 * math.hypot(
        plain.standard_error, other.standard_error
    )
    assert (
        plain.certified_lower <= plain.confidence_bound
        and plain.estimate <= plain.unamplified_upper
    )


def test_confidence_bound_covers_over_seeds():
    """200 seeds of 500 draws, beta = 0.2, at delta ~ 1e-5 (b = 1): the bound lies below the truth on at most the
    binomial(200, 0.2) count's 0.999 quantile (the mean alone falls below on many seeds)."""
    c = np.eye(1)
    z, eps = 1.0, 4.5
    exact = gaussian_delta(eps, 1.0 / z)
    below_bound = below_mean = 0
    for seed in range(200):
        run = ImportanceSampledMonteCarlo(
            strategy=c, noise_multiplier=z, cycle_length=1, epsilon=eps, draws=500, seed=seed
        )
        reading = run.delta(eps, beta=0.2, proved_sides=False)
        below_bound += reading.confidence_bound < exact
        below_mean += reading.estimate < exact
    assert below_bound <= stats.binom.ppf(0.999, 200, 0.2)
    assert (
        below_mean >= 30
    )  # the estimate alone is no bound (its law is skewed: below the truth on ~30 %)


def test_reading_labels_and_repr():
    run = ImportanceSampledMonteCarlo(
        strategy=np.eye(2), noise_multiplier=1.0, cycle_length=2, epsilon=3.0, draws=1000, seed=1
    )
    reading = run.delta(3.0)
    assert reading.kind == "estimate with confidence bound"
    text = repr(reading)
    assert (
        "importance sampled (alpha" in text
        and "estimate with confidence bound, not certified;" in text
    )
    assert "an estimate" in repr(run) and "stretch=" in repr(run)


def test_bad_input_is_refused_with_the_rule():
    good = dict(strategy=np.eye(2), noise_multiplier=1.0, cycle_length=2, epsilon=1.0, draws=10)
    with pytest.raises(ValueError, match="stretch|alpha"):
        ImportanceSampledMonteCarlo(**good, stretch=0.5)
    with pytest.raises(ValueError, match="epsilon"):
        ImportanceSampledMonteCarlo(**{**good, "epsilon": math.inf})
    with pytest.raises(ValueError, match="seed"):
        ImportanceSampledMonteCarlo(**good, seed=1.5)
    with pytest.raises(ValueError, match="non-negative"):
        ImportanceSampledMonteCarlo(**{**good, "strategy": [[1.0, 0.0], [-1.0, 1.0]]})
    with pytest.raises(ValueError, match="kappa"):
        importance_weight_bound(2.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="alpha"):
        importance_weight_bound(0.9, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        optimal_stretch(-1.0, 1.0)
    run = ImportanceSampledMonteCarlo(**good, seed=0)
    with pytest.raises(ValueError, match="beta"):
        run.delta(1.0, beta=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        run.delta(math.nan)


@pytest.mark.parametrize("eps", [4.0, 6.0, 8.0])
def test_small_delta_lies_between_the_certified_sides(eps):
    """A 3-banded C over 16 rounds, 4 bins, z = 1.5, at delta from 1e-3 down to 6e-9: the importance-sampled estimate
    lies above the certified lower side (``RealizableLowerSide``) and below the certified amplified upper side
    (``BallsInBinsRDP``), each up to 4 standard errors, and the confidence bound above the lower side."""
    from hockeystick.matrix import BallsInBinsRDP, Banded

    band = Banded([1.0, 0.5, 0.25])
    c, _ = band.matrix(16)
    upper = float(BallsInBinsRDP(strategy=band, rounds=16, noise_multiplier=1.5, bins=4).delta(eps))
    reading = ImportanceSampledMonteCarlo(
        strategy=c, noise_multiplier=1.5, cycle_length=4, epsilon=eps, draws=20000, seed=5
    ).delta(eps)
    assert reading.certified_lower <= reading.estimate + 4 * reading.standard_error
    assert reading.estimate - 4 * reading.standard_error <= upper <= reading.unamplified_upper
    assert reading.certified_lower <= reading.confidence_bound
    assert reading.standard_error <= 0.05 * reading.estimate
