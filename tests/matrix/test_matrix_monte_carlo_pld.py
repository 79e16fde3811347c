"""``matrix.MonteCarloPLD``: Monte Carlo draws composed with certified PLDs, read as a simultaneous band.

The exact reference: draws of a Gaussian pair (b = 1) composed with the certified ``pld.gaussian`` is the Gaussian of
mu = hypot(mu_1, mu_2), in closed form (Balle & Wang 2018, Thm 8). The band's coverage is counted over seeds, and the
composition with a two-direction PLD (Poisson-subsampled Gaussian) is held between the certified bracket of the same
composition (a Gaussian factor built by ``pld.gaussian``) up to the draws' standard error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import hockeystick.pld as pld
from hockeystick.matrix import BallsInBinsMonteCarlo, ImportanceSampledMonteCarlo, MonteCarloPLD
from hockeystick.matrix.importance_sampling import optimal_stretch
from hockeystick.matrix.monte_carlo_pld import LossDraws


def gaussian_delta(eps: float, mu: float) -> float:
    return float(
        stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
    )


def test_plain_draws_composed_with_a_gaussian_match_the_closed_form():
    """b = 1, mu_1 = 1/1.5, composed with pld.gaussian(1.0): at eps 1 ... 5 the estimate lies within 4 standard errors
    (plus the step function's 1e-3 in eps) of the Gaussian of mu = hypot(2/3, 1), and the band above it at every eps."""
    z, sigma = 1.5, 1.0
    mu = math.hypot(1.0 / z, 1.0 / sigma)
    run = BallsInBinsMonteCarlo(
        strategy=np.eye(1), noise_multiplier=z, cycle_length=1, draws=50000, seed=3
    )
    band = run.pld().compose(pld.gaussian(sigma)).band([1.0, 2.0, 3.0, 4.0, 5.0], beta=1e-3)
    for eps, estimate, error, upper in zip(
        band.epsilon, band.estimate, band.standard_error, band.upper
    ):
        exact = gaussian_delta(eps, mu)
        slack = (
            gaussian_delta(eps - 1e-3, mu) - exact
        )  # the step function reads the curve 1e-3 lower at most
        assert exact - 4 * error <= estimate <= exact + slack + 4 * error
        assert upper >= exact
    assert band.kind == "estimate with confidence bound" and "a certified PLD" in band.composed_with


@pytest.mark.parametrize("eps", [5.0, 7.0])
def test_importance_sampled_draws_composed_at_small_delta(eps):
    """The same composition at delta ~ 4e-5 and 2e-8, the stretch tuned to the composed pair
    (optimal_stretch(eps, mu^2)): 50 000 draws give a relative standard error near 0.1 %, and the band lies above
    the truth and within 3 % of it."""
    z, sigma = 1.5, 1.0
    mu = math.hypot(1.0 / z, 1.0 / sigma)
    run = ImportanceSampledMonteCarlo(
        strategy=np.eye(1),
        noise_multiplier=z,
        cycle_length=1,
        epsilon=eps,
        stretch=optimal_stretch(eps, mu * mu),
        draws=50000,
        seed=3,
    )
    band = run.pld().compose(pld.gaussian(sigma)).delta(eps)
    exact = gaussian_delta(eps, mu)
    slack = gaussian_delta(eps - 1e-3, mu) - exact
    assert (
        exact - 4 * band.standard_error[0]
        <= band.estimate[0]
        <= exact + slack + 4 * band.standard_error[0]
    )
    assert band.standard_error[0] <= 0.01 * exact
    assert exact <= band.upper[0] <= 1.03 * exact


def test_a_stretch_tuned_elsewhere_stays_a_valid_band():
    """A stretch tuned for the draws alone (far too large for the composed pair) loses precision, not validity: the
    band stays above the truth at every eps."""
    z, sigma = 1.5, 1.0
    mu = math.hypot(1.0 / z, 1.0 / sigma)
    run = ImportanceSampledMonteCarlo(
        strategy=np.eye(1), noise_multiplier=z, cycle_length=1, epsilon=4.0, draws=20000, seed=3
    )
    band = run.pld().compose(pld.gaussian(sigma)).band(np.linspace(0.5, 7.0, 14))
    assert all(u >= gaussian_delta(e, mu) for e, u in zip(band.epsilon, band.upper))


def test_band_alone_and_composed_cover_on_repeated_seeds():
    """100 seeds of 400 plain draws, beta = 0.2, a band over 12 eps (alone: the Gaussian mu_1; composed: mu): the band
    falls below the truth somewhere on at most the binomial(100, 0.2) count's 0.999 quantile of seeds. A band of the
    estimates alone falls below on about 40 seeds, so the count could fail."""
    z, sigma = 1.0, 1.5
    grid = np.linspace(0.25, 3.0, 12)
    other = pld.gaussian(sigma)
    misses = {"alone": 0, "composed": 0, "estimate": 0}
    for seed in range(100):
        draws = BallsInBinsMonteCarlo(
            strategy=np.eye(1), noise_multiplier=z, cycle_length=1, draws=400, seed=seed
        ).pld()
        alone = draws.band(grid, beta=0.2)
        composed = draws.compose(other).band(grid, beta=0.2)
        truth_alone = np.array([gaussian_delta(e, 1.0 / z) for e in grid])
        truth = np.array([gaussian_delta(e, math.hypot(1.0 / z, 1.0 / sigma)) for e in grid])
        misses["alone"] += bool((alone.upper < truth_alone).any())
        misses["composed"] += bool((composed.upper < truth).any())
        misses["estimate"] += bool((composed.estimate < truth).any())
    limit = stats.binom.ppf(0.999, 100, 0.2)
    assert misses["alone"] <= limit and misses["composed"] <= limit
    assert misses["estimate"] >= 25 and misses["estimate"] >= misses["composed"] + 20, misses


def test_two_direction_pld_pairs_by_direction_within_the_certified_bracket():
    """Draws of the Gaussian (b = 1, mu = 1/2) composed with 20 rounds of the Poisson-subsampled Gaussian (two
    directions): the estimate lies in the certified bracket of pld.gaussian(2) composed with the same rounds, up to 4
    standard errors and the step function's slack, and the band above its lower side."""
    sub = pld.subsampled_gaussian(1.0, 0.2).self_compose(20)
    draws = ImportanceSampledMonteCarlo(
        strategy=np.eye(1),
        noise_multiplier=2.0,
        cycle_length=1,
        epsilon=1.0,
        stretch=1.0,
        draws=40000,
        seed=9,
    ).pld()
    certified = pld.gaussian(2.0).compose(sub)
    for eps in (0.5, 1.5, 3.0):
        band = draws.compose(sub).delta(eps)
        lower, upper = certified.delta(eps, bound="both", composition_only=True)
        above = certified.delta(eps - 1e-3, composition_only=True) - upper
        assert (
            lower - 4 * band.standard_error[0]
            <= band.estimate[0]
            <= upper + above + 4 * band.standard_error[0]
        )
        assert band.upper[0] >= lower


def test_band_reads():
    run = ImportanceSampledMonteCarlo(
        strategy=np.eye(1),
        noise_multiplier=1.0,
        cycle_length=1,
        epsilon=3.0,
        stretch=1.0,
        draws=5000,
        seed=1,
    )
    band = run.pld().band([2.0, 0.5, 1.0, 1.0], beta=1e-2)
    assert list(band.epsilon) == [0.5, 1.0, 2.0]  # sorted, de-duplicated
    assert (np.diff(band.upper) <= 0).all() and (band.estimate <= band.upper).all()
    assert band.delta_upper(0.1) == 1.0 and band.delta_upper(1.5) == band.upper[1]
    assert band.epsilon_upper(float(band.upper[2])) == 2.0 and band.epsilon_upper(1e-12) == math.inf
    assert "not certified" in band.statement() and "at once" in band.statement()
    assert "estimate with confidence bound, not certified" in repr(band)
    assert "plain draws" in repr(run.pld()) and "an estimate" in repr(run.pld())


def test_bad_input_is_refused():
    draws = LossDraws(losses=np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="losses"):
        LossDraws(losses=np.array([np.nan]))
    with pytest.raises(ValueError, match="log_weights"):
        LossDraws(losses=np.array([0.1]), log_weights=np.array([0.0, 1.0]), stretch=2.0)
    with pytest.raises(ValueError, match="stretch"):
        LossDraws(losses=np.array([0.1]), stretch=2.0)
    with pytest.raises(ValueError, match="as many draws"):
        MonteCarloPLD(remove=draws, add=LossDraws(losses=np.array([0.1])))
    pld_draws = MonteCarloPLD(remove=draws, add=draws)
    with pytest.raises(ValueError, match="PrivacyLossDistribution"):
        pld_draws.compose("gaussian")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="epsilon"):
        pld_draws.band([-1.0])
    with pytest.raises(ValueError, match="epsilon"):
        pld_draws.band([100.0])
    with pytest.raises(ValueError, match="beta"):
        pld_draws.band([1.0], beta=0.0)
