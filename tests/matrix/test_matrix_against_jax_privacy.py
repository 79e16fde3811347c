"""Against jax_privacy's Monte Carlo, where jax_privacy is importable (skipped otherwise; it is not a dependency):
its balls-in-bins estimate of the same dominating pair (banded Toeplitz non-negative C, zero-out adjacency)
agrees with ours within both standard errors, and its b-min-sep estimate lies between our certified sides and
agrees, within both standard errors, with a Monte Carlo of the same pair through Dong & Ganesh's exact loss
(``b_min_sep_privacy_loss``), below the Renyi upper side (``BMinSepRDP``)."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.matrix import DPFTRL, BallsInBinsMonteCarlo, Banded
from hockeystick.matrix.b_min_sep import BMinSepRDP, b_min_sep_patterns, b_min_sep_privacy_loss

batch_selection = pytest.importorskip("jax_privacy.batch_selection")
sample_generation = pytest.importorskip("jax_privacy.experimental.monte_carlo.sample_generation")

COLUMN = np.array([1.0, 0.6, 0.3])
ROUNDS, BINS, NOISE, DRAWS = 24, 4, 1.2, 8000


def banded_matrix(rounds: int) -> np.ndarray:
    c = np.zeros((rounds, rounds))
    for lag, value in enumerate(COLUMN):
        c += value * np.eye(rounds, k=-lag)
    return c


def jax_privacy_delta(strategy: object, eps: float, seed: int) -> tuple[float, float]:
    """The larger direction's mean of (1 - e^(eps - L))_+ over jax_privacy's draws, and its standard error."""
    best = (0.0, 0.0)
    for positive in (True, False):
        losses, _ = sample_generation.get_privacy_loss_sample(
            strategy,
            NOISE,
            COLUMN,
            seed=seed + positive,
            positive_sample=positive,
            num_samples=DRAWS,
        )
        values = -np.expm1(np.minimum(eps - np.asarray(losses), 0.0))
        best = max(best, (float(values.mean()), float(values.std(ddof=1) / np.sqrt(DRAWS))))
    return best


@pytest.mark.slow  # jax_privacy draws balls-in-bins samples one at a time: ~3 s per direction
@pytest.mark.parametrize("eps", [0.5, 1.5])
def test_balls_in_bins_estimates_agree_within_both_standard_errors(eps: float) -> None:
    strategy = batch_selection.BallsInBinsSampling(iterations=ROUNDS, cycle_length=BINS)
    theirs, their_error = jax_privacy_delta(strategy, eps, seed=11)
    ours = BallsInBinsMonteCarlo(
        strategy=banded_matrix(ROUNDS),
        noise_multiplier=NOISE,
        cycle_length=BINS,
        draws=DRAWS,
        seed=5,
    ).delta(eps, beta=1e-3)
    assert abs(ours.estimate - theirs) <= 4 * np.hypot(ours.standard_error, their_error)
    assert ours.certified_lower - 4 * their_error <= theirs <= ours.unamplified_upper


def test_b_min_sep_estimate_lies_between_our_certified_sides() -> None:
    strategy = batch_selection.BMinSepSampling(
        sampling_prob=0.3, iterations=ROUNDS, min_sep=BINS, warm_start=True
    )
    run = DPFTRL(
        rounds=ROUNDS,
        noise_multiplier=NOISE,
        strategy=Banded(COLUMN.tolist()),
        min_separation=BINS,
        participation="b_min_sep",
        sampling_rate=0.3,
    )
    for eps in (0.5, 1.5):
        theirs, their_error = jax_privacy_delta(strategy, eps, seed=21)
        lower, upper = run.delta(eps, bound="both")
        assert lower - 4 * their_error <= theirs <= upper + 4 * their_error


def exact_loss_delta(eps: float, seed: int, draws: int) -> tuple[float, float]:
    """The larger direction's mean of (1 - e^(eps -+ L))_+ over our draws of b-min-sep's pair (warm start, p = 0.3,
    b = BINS), L Dong & Ganesh's exact loss, and its standard error."""
    rng = np.random.default_rng(seed)
    patterns = b_min_sep_patterns(
        rng, draws, rounds=ROUNDS, sampling_rate=0.3, min_separation=BINS, warm_start=True
    )
    args = dict(
        coefficients=COLUMN,
        noise_multiplier=NOISE,
        sampling_rate=0.3,
        min_separation=BINS,
        warm_start=True,
    )
    noise = NOISE * rng.standard_normal((2, draws, ROUNDS))
    with_record = b_min_sep_privacy_loss(patterns @ banded_matrix(ROUNDS).T + noise[0], **args)
    without = b_min_sep_privacy_loss(noise[1], **args)
    best = (0.0, 0.0)
    for values in (
        -np.expm1(np.minimum(eps - with_record, 0.0)),
        -np.expm1(np.minimum(eps + without, 0.0)),
    ):
        best = max(best, (float(values.mean()), float(values.std(ddof=1) / np.sqrt(draws))))
    return best


def test_b_min_sep_exact_loss_agrees_with_jax_privacys_estimate() -> None:
    strategy = batch_selection.BMinSepSampling(
        sampling_prob=0.3, iterations=ROUNDS, min_sep=BINS, warm_start=True
    )
    renyi = BMinSepRDP(
        coefficients=COLUMN,
        rounds=ROUNDS,
        noise_multiplier=NOISE,
        sampling_rate=0.3,
        min_separation=BINS,
    )
    for eps in (0.5, 1.5):
        theirs, their_error = jax_privacy_delta(strategy, eps, seed=31)
        ours, our_error = exact_loss_delta(eps, seed=7, draws=40_000)
        assert abs(ours - theirs) <= 4 * np.hypot(our_error, their_error)
        assert theirs <= renyi.delta(eps) + 4 * their_error
