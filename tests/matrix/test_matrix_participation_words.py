"""DPFTRL(participation=...) under a random scheme: the upper side against the closed-form Gaussian of the worst
pattern (and cyclic Poisson's amplified side), the lower side against RealizableLowerSide built directly, the
lower epsilon's defining property, a Monte Carlo of the dominating pair between the two sides, the labels of
every reading, and the refusals of arguments a scheme needs or takes none of."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from hockeystick.matrix import (
    DPFTRL,
    AmplifiedBandedMF,
    BallsInBinsSampling,
    Banded,
    BMinSepSampling,
    CyclicPoissonSampling,
    RandomAllocationSampling,
    RealizableLowerSide,
    labelled_reading,
)

BAND = Banded([1.0, 0.6, 0.3])
SCHEMES = {
    "balls_in_bins": ({"min_separation": 4}, BallsInBinsSampling(4)),
    "random_allocation": ({"max_participations": 3}, RandomAllocationSampling(3)),
    "b_min_sep": ({"min_separation": 4, "sampling_rate": 0.4}, BMinSepSampling(4, 0.4)),
    "cyclic_poisson": ({"min_separation": 4, "sampling_rate": 0.4}, CyclicPoissonSampling(4, 0.4)),
}


def banded_matrix(coefficients: list[float], rounds: int) -> np.ndarray:
    c = np.zeros((rounds, rounds))
    for lag, value in enumerate(coefficients):
        c += value * np.eye(rounds, k=-lag)
    return c


def gaussian_delta(mu: float, eps: float) -> float:
    """Balle & Wang 2018, Theorem 8."""
    return float(
        stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
    )


def run(name: str, z: float = 1.5, rounds: int = 12) -> DPFTRL:
    return DPFTRL(
        rounds=rounds, noise_multiplier=z, strategy=BAND, participation=name, **SCHEMES[name][0]
    )  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(SCHEMES))
def test_lower_side_is_the_realizable_pair_and_below_the_upper_side(name: str) -> None:
    accountant = run(name)
    eps = np.array([0.0, 0.5, 1.0, 3.0])
    lower, upper = accountant.delta(eps, bound="both")
    direct = RealizableLowerSide(
        strategy=BAND, rounds=12, noise_multiplier=1.5, sampling=SCHEMES[name][1]
    )
    np.testing.assert_array_equal(lower, direct.delta(eps))
    assert (lower > 0).all() and (lower <= upper).all()
    e_low, e_up = accountant.epsilon(np.array([1e-3, 1e-6]), bound="both")
    assert (0 < e_low).all() and (e_low <= e_up).all()
    # the lower epsilon's defining property: the certified lower delta there is still above the target
    assert (np.asarray(direct.delta(e_low)) > np.array([1e-3, 1e-6])).all()


def test_worst_pattern_upper_side_is_the_closed_form_gaussian() -> None:
    """balls-in-bins b = 4 on n = 12 under a non-negative banded C: the worst bin's ||C 1_{t, t+4, t+8}|| is the
    sensitivity, and the unamplified upper side is the Gaussian delta there (never below it, within 1e-9)."""
    c = banded_matrix([1.0, 0.6, 0.3], 12)
    sens = max(float(np.linalg.norm(c[:, t::4].sum(axis=1))) for t in range(4))
    for eps in (0.5, 1.0, 2.0):
        truth = gaussian_delta(sens / 1.5, eps)
        upper = float(run("balls_in_bins").delta(eps))
        assert truth <= upper <= truth * (1 + 1e-9) + 1e-15
    random_allocation = run(
        "random_allocation"
    )  # any 3 rounds: the sensitivity of MinSeparation(1, 3)
    assert random_allocation.delta(1.0) == DPFTRL(
        rounds=12, noise_multiplier=1.5, strategy=BAND, max_participations=3
    ).delta(1.0)


def test_cyclic_poisson_on_a_banded_c_uses_the_amplified_side() -> None:
    accountant = run("cyclic_poisson")
    amplified = AmplifiedBandedMF(
        rounds=12, noise_multiplier=1.5, sampling_rate=0.4, strategy=BAND, min_separation=4
    )
    unamplified = DPFTRL(
        rounds=12,
        noise_multiplier=1.5,
        strategy=BAND,
        min_separation=4,
        participation="fixed_epochs",
    )
    assert accountant.delta(1.0) == pytest.approx(float(amplified.delta(1.0)), rel=0, abs=0)
    assert accountant.delta(1.0) < unamplified.delta(1.0) / 3
    reading = labelled_reading(accountant, epsilon=1.0)
    assert reading.upper_kind == "amplified" and reading.certified_lower <= reading.certified_upper
    # a tree is not banded: the upper side stays the unamplified one, labelled so
    tree = DPFTRL(
        rounds=8,
        noise_multiplier=1.5,
        min_separation=4,
        sampling_rate=0.4,
        participation="cyclic_poisson",
    )
    assert labelled_reading(tree, epsilon=1.0).upper_kind == "unamplified"


def test_monte_carlo_of_the_dominating_pair_lies_between_the_certified_sides() -> None:
    accountant = DPFTRL(
        rounds=8,
        noise_multiplier=1.0,
        strategy=BAND,
        min_separation=4,
        participation="balls_in_bins",
    )
    reading = labelled_reading(accountant, epsilon=1.0, monte_carlo_draws=40_000, beta=1e-3, seed=3)
    mc = reading.monte_carlo
    assert mc is not None
    assert reading.certified_lower - 4 * mc.standard_error <= mc.estimate <= reading.certified_upper
    assert mc.estimate <= mc.confidence_bound
    again = labelled_reading(
        accountant, epsilon=1.0, monte_carlo_draws=40_000, beta=1e-3, seed=3
    ).monte_carlo
    assert again is not None and again.estimate == mc.estimate  # the seed reproduces the draws


def test_every_reading_says_which_sides_are_certified_and_which_estimated() -> None:
    rows = labelled_reading(
        run("balls_in_bins", rounds=8), epsilon=1.0, monte_carlo_draws=2000, seed=0
    ).rows()
    labels = [label for label, _ in rows]
    assert labels[0].startswith("certified lower") and labels[1].startswith(
        "certified upper, unamplified"
    )
    assert all("not certified" in label for label in labels[2:]) and len(labels) == 5
    text = labelled_reading(run("b_min_sep"), delta=1e-5).statement()
    assert (
        "certified upper, amplified" in text and "BMinSepRDP" in text and "Monte Carlo" not in text
    )
    fixed = labelled_reading(DPFTRL(rounds=16, noise_multiplier=2.0, min_separation=4), delta=1e-5)
    assert fixed.upper_kind == "exact Gaussian" and fixed.monte_carlo is None


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"participation": "b_min_sep", "min_separation": 4}, "sampling_rate must be given"),
        (
            {"participation": "balls_in_bins", "min_separation": 4, "sampling_rate": 0.5},
            "sampling_rate must be None",
        ),
        (
            {"participation": "balls_in_bins", "min_separation": 4, "max_participations": 2},
            "drop max_participations",
        ),
        ({"participation": "random_allocation"}, "pass max_participations=k"),
        (
            {"participation": "random_allocation", "max_participations": 2, "min_separation": 3},
            "min_separation must be 1",
        ),
        ({"participation": "min_separation", "sampling_rate": 0.5}, "sampling_rate must be None"),
        (
            {"participation": "cyclic_poisson", "min_separation": [2, 4], "sampling_rate": 0.5},
            "takes one point",
        ),
        (
            {"participation": "cyclic_poisson", "min_separation": 2, "sampling_rate": 1.5},
            "sampling_rate must lie in",
        ),
        ({"participation": "poisson_everywhere"}, "participation must be one of"),
    ],
)
def test_refusals_name_the_argument_and_the_fix(kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        DPFTRL(rounds=8, noise_multiplier=1.0, strategy=BAND, **kwargs)


def test_monte_carlo_and_reading_refusals() -> None:
    with pytest.raises(ValueError, match="offered for delta at epsilon"):
        labelled_reading(run("b_min_sep", rounds=8), epsilon=1.0, monte_carlo_draws=100)
    with pytest.raises(ValueError, match="offered for delta at epsilon"):
        labelled_reading(run("balls_in_bins", rounds=8), delta=1e-5, monte_carlo_draws=100)
    with pytest.raises(ValueError, match="exactly one of epsilon= and delta="):
        labelled_reading(run("balls_in_bins", rounds=8), epsilon=1.0, delta=1e-5)
