"""Sampled participation with correlated noise: the shift laws of balls-in-bins, random allocation, b-min-sep and
cyclic Poisson against brute-force enumeration of patterns; the certified realizable lower side against the exact
delta of the balls-in-bins dominating pair (2-D quadrature on the span of its means, b = 2; the closed-form
Gaussian, b = 1), against the upper sides without amplification and with cyclic Poisson amplification; the
Monte Carlo's confidence bound against the exact delta and a closed form, its seeds, and its words."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
import pytest
from scipy import integrate, stats

from hockeystick.matrix import (
    DPFTRL,
    AmplifiedBandedMF,
    BallsInBinsMonteCarlo,
    BallsInBinsSampling,
    Banded,
    BMinSepSampling,
    CyclicPoissonSampling,
    RandomAllocationSampling,
    RealizableLowerSide,
    kl_upper_confidence,
)


def banded_matrix(coefficients: list[float], rounds: int) -> np.ndarray:
    """The n x n lower-triangular Toeplitz C with first column (c_0, ..., c_(b-1), 0, ...)."""
    c = np.zeros((rounds, rounds))
    for lag, value in enumerate(coefficients):
        c += value * np.eye(rounds, k=-lag)
    return c


def enumerated_law(
    patterns: list[tuple[tuple[int, ...], float]], units: np.ndarray
) -> dict[int, float]:
    law: dict[int, float] = defaultdict(float)
    for rounds, probability in patterns:
        law[int(sum(units[list(rounds)]))] += probability
    return dict(law)


def b_min_sep_patterns(n: int, b: int, p: float, warm: bool) -> list[tuple[tuple[int, ...], float]]:
    """Every coin sequence of the b-min-sep process (a coin per available round), with its probability."""
    starts = (
        [(0, 1.0)]
        if not warm or b == 1
        else [(0, 1 / (1 + (b - 1) * p))] + [(i, p / (1 + (b - 1) * p)) for i in range(1, b)]
    )
    out = []
    for start, weight in starts:
        for coins in itertools.product([0, 1], repeat=n):
            taken, probability, i = [], weight, start
            used = 0
            while i < n:
                coin = coins[used]
                used += 1
                probability *= p if coin else 1 - p
                if coin:
                    taken.append(i)
                    i += b
                else:
                    i += 1
            # coins past the process's last draw are free: count each process path once
            if all(c == 0 for c in coins[used:]):
                out.append((tuple(taken), probability))
    return out


def law_dict(sampling, units) -> dict[int, float]:
    totals, weights = sampling.law(np.array(units))
    return dict(zip(totals.tolist(), weights.tolist()))


def assert_same_law(got: dict[int, float], want: dict[int, float]) -> None:
    want = {k: v for k, v in want.items() if v > 0}
    assert set(got) == set(want)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15)


UNITS = [3, 1, 4, 1, 5, 9, 2]


@pytest.mark.parametrize("b", [1, 2, 3, 9])
def test_balls_in_bins_law_is_the_bins(b):
    """Bin t takes rounds t, t + b, ...; bins past the last round take none (b = 9 > n = 7)."""
    patterns = [(tuple(range(t, len(UNITS), b)), 1 / b) for t in range(b)]
    assert_same_law(
        law_dict(BallsInBinsSampling(b), UNITS), enumerated_law(patterns, np.array(UNITS))
    )


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_random_allocation_law_is_uniform_over_k_sets(k):
    sets = list(itertools.combinations(range(len(UNITS)), k))
    patterns = [(s, 1 / len(sets)) for s in sets]
    assert_same_law(
        law_dict(RandomAllocationSampling(k), UNITS), enumerated_law(patterns, np.array(UNITS))
    )


@pytest.mark.parametrize(
    "b, p, warm",
    [(1, 0.3, False), (2, 0.5, False), (3, 0.25, True), (2, 1.0, True), (4, 0.7, True)],
)
def test_b_min_sep_law_is_the_process(b, p, warm):
    """The backward recursion against every coin sequence of the forward process (Dong & Ganesh 2026, Alg. 1/2)."""
    patterns = b_min_sep_patterns(len(UNITS), b, p, warm)
    assert sum(w for _, w in patterns) == pytest.approx(1.0, rel=1e-12)
    assert_same_law(
        law_dict(BMinSepSampling(b, p, warm_start=warm), UNITS),
        enumerated_law(patterns, np.array(UNITS)),
    )


@pytest.mark.parametrize("b, q, group", [(1, 0.2, 0), (2, 0.5, 1), (3, 0.9, 2)])
def test_cyclic_poisson_law_is_independent_rounds_of_the_group(b, q, group):
    rounds = list(range(group, len(UNITS), b))
    patterns = []
    for taken in itertools.product([0, 1], repeat=len(rounds)):
        chosen = tuple(r for r, t in zip(rounds, taken) if t)
        patterns.append((chosen, q ** len(chosen) * (1 - q) ** (len(rounds) - len(chosen))))
    assert_same_law(
        law_dict(CyclicPoissonSampling(b, q, group), UNITS),
        enumerated_law(patterns, np.array(UNITS)),
    )


def exact_balls_in_bins_delta(c: np.ndarray, z: float, b: int, eps: float) -> float:
    """delta(eps) of the dominating pair ((1/b) sum_t N(mu_t, z^2 I), N(0, z^2 I)), both directions, for b <= 2:
    the likelihood ratio depends on y only through its projection on span(mu_t), so the divergence is that of the
    projected pair in at most 2 dimensions, integrated by adaptive quadrature."""
    n = c.shape[1]
    means = np.array([c[:, t::b].sum(axis=1) for t in range(b)])
    basis, _ = np.linalg.qr(means.T)
    m = means @ basis  # b x r coordinates
    r = m.shape[1]
    span = float(np.abs(m).max()) + 12 * z

    points = [tuple(float(v) for v in mt) for mt in m]
    norm = (2 * math.pi * z * z) ** (-r / 2)
    threshold = math.exp(eps)

    def densities(y: tuple[float, ...]) -> tuple[float, float]:
        q = norm * math.exp(-sum(v * v for v in y) / (2 * z * z))
        p = (
            sum(
                norm * math.exp(-sum((v - c) ** 2 for v, c in zip(y, mt)) / (2 * z * z))
                for mt in points
            )
            / b
        )
        return p, q

    def remove(*y: float) -> float:
        p, q = densities(y)
        return max(p - threshold * q, 0.0)

    def add(*y: float) -> float:
        p, q = densities(y)
        return max(q - threshold * p, 0.0)

    out = []
    for f in (remove, add):
        if r == 1:
            value = integrate.quad(f, -span, span, epsabs=1e-11, limit=400)[0]
        else:
            value = integrate.dblquad(
                lambda y2, y1: f(y1, y2), -span, span, -span, span, epsabs=1e-8
            )[0]
        out.append(value)
    assert n >= 1
    return max(out)


CASES_B2 = [
    (np.tril(np.ones((4, 4))) / 2.0, 1.0),
    pytest.param(banded_matrix([1.0, 0.5, 0.25], 6), 0.8, marks=pytest.mark.slow),
    pytest.param(
        np.tril(np.random.default_rng(5).uniform(0.0, 1.0, (8, 8))), 2.0, marks=pytest.mark.slow
    ),
]


@pytest.mark.parametrize("c, z", CASES_B2)
def test_exact_delta_lies_between_certified_lower_and_monte_carlo_bound(c, z):
    """b = 2, n in {4, 6, 8}: the exact delta of the dominating pair (quadrature) lies in [certified lower side,
    Monte Carlo confidence bound at beta = 1e-6], and the lower side is below the upper side without
    amplification."""
    run = BallsInBinsMonteCarlo(
        strategy=c, noise_multiplier=z, cycle_length=2, draws=40_000, seed=11
    )
    for eps in (0.0, 1.5):
        exact = exact_balls_in_bins_delta(c, z, 2, eps)
        reading = run.delta(eps, beta=1e-6)
        assert reading.certified_lower <= exact + 1e-7
        assert exact <= reading.confidence_bound
        assert reading.certified_lower <= reading.unamplified_upper
        assert abs(reading.estimate - exact) <= 6 * reading.standard_error + 1e-6


@pytest.mark.parametrize("z", [0.7, 2.0])
def test_one_bin_is_the_gaussian_and_the_lower_side_is_tight(z):
    """b = 1: one pattern (every round), the pair is the Gaussian of shift ||C 1|| / z; the lower side on the
    direction C 1 loses only the PLD grid (within 0.5%), the Monte Carlo bound is above the closed form."""
    c = banded_matrix([1.0, 0.6, 0.3], 5)
    mu = float(np.linalg.norm(c.sum(axis=1))) / z
    run = BallsInBinsMonteCarlo(
        strategy=c, noise_multiplier=z, cycle_length=1, draws=20_000, seed=2
    )
    for eps in (0.0, 1.0, 3.0):
        exact = stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(
            -eps / mu - mu / 2
        )
        reading = run.delta(eps, beta=1e-6)
        assert exact * 0.995 <= reading.certified_lower <= exact + 1e-12
        assert exact <= reading.confidence_bound
        assert reading.unamplified_upper == pytest.approx(exact, rel=1e-6)


def test_lower_side_is_below_a_large_monte_carlo_at_four_bins():
    """b = 4, n = 8: the certified lower side is below the upper confidence bound of a larger Monte Carlo."""
    c = banded_matrix([1.0, 0.7, 0.5, 0.2], 8)
    run = BallsInBinsMonteCarlo(
        strategy=c, noise_multiplier=0.9, cycle_length=4, draws=200_000, seed=7
    )
    for eps in (0.0, 1.0, 2.0):
        reading = run.delta(eps, beta=1e-9)
        assert reading.certified_lower <= reading.confidence_bound
        assert reading.certified_lower <= reading.unamplified_upper
        assert (
            reading.certified_lower > 0.5 * reading.estimate
        )  # the projection keeps most of the amplified delta


EPS = np.array([0.0, 0.5, 1.0, 2.0, 4.0])


@pytest.mark.parametrize(
    "sampling, schema",
    [
        (RandomAllocationSampling(2), dict(min_separation=1, max_participations=2)),
        (BMinSepSampling(2, 0.4), dict(min_separation=2)),
        (CyclicPoissonSampling(3, 0.5), dict(min_separation=3, participation="fixed_epochs")),
        (BallsInBinsSampling(3), dict(min_separation=3, participation="fixed_epochs")),
    ],
)
def test_lower_side_below_the_unamplified_upper_side(sampling, schema):
    """Every scheme's patterns are patterns of the unamplified schema (k of n, at least b apart, one group's
    fixed epochs), so the certified lower side is at most DPFTRL's upper side, at every eps."""
    c = np.tril(np.random.default_rng(3).uniform(0.1, 1.0, (9, 9)))
    for z in (0.5, 1.5):
        lower = RealizableLowerSide(
            strategy=c, rounds=9, noise_multiplier=z, sampling=sampling
        ).delta(EPS)
        upper = DPFTRL(rounds=9, noise_multiplier=z, strategy=c, **schema).delta(EPS)
        assert (lower <= upper).all()
        assert (lower > 0).all()


def test_cyclic_poisson_lower_side_below_the_amplified_upper_side():
    """A banded C under cyclic Poisson: the projected realizable pair is below AmplifiedBandedMF's certified upper
    side (the projection loses what AmplifiedBandedMF's round-by-round realizable pair keeps, so it is lower)."""
    c = banded_matrix([1.0, 0.5], 8)
    amplified = AmplifiedBandedMF(
        rounds=8, noise_multiplier=1.0, sampling_rate=0.3, strategy=Banded([1.0, 0.5])
    )
    lower = RealizableLowerSide(
        strategy=c,
        rounds=8,
        noise_multiplier=1.0,
        sampling=CyclicPoissonSampling(2, 0.3),
        shift_cells=1024,
    ).delta(EPS)
    upper = amplified.delta(EPS, bound="upper")
    assert (lower <= upper).all()
    assert (lower > 0).all()


def test_direction_rules():
    """A C with negative entries has no default direction proved non-negative on its columns: refused, naming
    direction; an explicit direction with every projection >= 0 is accepted, a wrong length refused."""
    c = np.array([[1.0, 0.0], [-2.0, 1.0]])
    with pytest.raises(ValueError, match="direction"):
        RealizableLowerSide(
            strategy=c, rounds=2, noise_multiplier=1.0, sampling=BallsInBinsSampling(2)
        )
    side = RealizableLowerSide(
        strategy=c,
        rounds=2,
        noise_multiplier=1.0,
        sampling=BallsInBinsSampling(2),
        direction=[1.0, 0.25],
    )
    assert side.delta(0.0) > 0
    with pytest.raises(ValueError, match="direction"):
        RealizableLowerSide(
            strategy=c,
            rounds=2,
            noise_multiplier=1.0,
            sampling=BallsInBinsSampling(2),
            direction=[1.0],
        )
    with pytest.raises(ValueError, match="sampling"):
        RealizableLowerSide(strategy=c, rounds=2, noise_multiplier=1.0, sampling="balls_in_bins")
    with pytest.raises(ValueError, match="participations"):
        RealizableLowerSide(
            strategy=np.eye(2), rounds=2, noise_multiplier=1.0, sampling=RandomAllocationSampling(3)
        )


def test_monte_carlo_refuses_what_the_dominating_pair_does_not_cover():
    with pytest.raises(ValueError, match="non-negative"):
        BallsInBinsMonteCarlo(
            strategy=[[1.0, 0.0], [-0.5, 1.0]], noise_multiplier=1.0, cycle_length=2
        )
    with pytest.raises(ValueError, match="lower-triangular"):
        BallsInBinsMonteCarlo(
            strategy=[[1.0, 0.5], [0.0, 1.0]], noise_multiplier=1.0, cycle_length=2
        )
    run = BallsInBinsMonteCarlo(
        strategy=np.eye(2), noise_multiplier=1.0, cycle_length=2, draws=10, seed=0
    )
    with pytest.raises(ValueError, match="beta"):
        run.delta(1.0, beta=1.5)


def test_monte_carlo_seeds_reproduce_and_words_say_estimate():
    kwargs = dict(
        strategy=np.tril(np.ones((4, 4))), noise_multiplier=2.0, cycle_length=2, draws=5000
    )
    a = BallsInBinsMonteCarlo(seed=4, **kwargs).delta(0.5)
    b = BallsInBinsMonteCarlo(seed=4, **kwargs).delta(0.5)
    c = BallsInBinsMonteCarlo(seed=5, **kwargs).delta(0.5)
    assert a == b
    assert a.estimate != c.estimate
    words = a.statement() + repr(BallsInBinsMonteCarlo(seed=4, **kwargs))
    assert "certified" not in words.lower()
    assert "with probability >= 0.999 over the Monte Carlo draws" in a.statement()
    assert "Monte Carlo estimate" in words


@pytest.mark.parametrize("draws, beta", [(100, 0.05), (10_000, 1e-6)])
def test_kl_bound_closed_form_at_zero_and_coverage_order(draws, beta):
    """At mean 0 the bound solves N log(1 / (1 - m)) = log(1 / beta): m = 1 - beta^(1/N); above the mean always,
    and above the Hoeffding-free normal interval's centre."""
    assert kl_upper_confidence(0.0, draws, beta) == pytest.approx(1 - beta ** (1 / draws), rel=1e-9)
    for mean in (0.01, 0.3, 0.9):
        bound = kl_upper_confidence(mean, draws, beta)
        assert mean < bound <= 1.0
        # Hoeffding's additive bound sqrt(log(1/beta) / (2N)) is never tighter than the KL bound
        assert bound <= mean + math.sqrt(math.log(1 / beta) / (2 * draws)) + 1e-12


def test_confidence_bound_covers_the_truth_across_seeds():
    """b = 1 (the Gaussian, closed form): over 20 seeds of 2000 draws at beta = 0.2, the bound fails at most as
    often as a binomial(20, 0.2) count's 99.9% quantile allows, and it is not vacuous: on average it exceeds the
    truth by less than twice Hoeffding's additive width sqrt(log(2 / beta) / (2N)) (the KL width near a mean
    of 0.4 is about that width, plus the upward bias of the larger of the two directions' means)."""
    c = np.eye(3)
    z, eps, beta, draws = 1.2, 0.5, 0.2, 2000
    mu = math.sqrt(3) / z
    exact = stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
    bounds = [
        BallsInBinsMonteCarlo(
            strategy=c, noise_multiplier=z, cycle_length=1, draws=draws, seed=seed
        )
        .delta(eps, beta=beta)
        .confidence_bound
        for seed in range(20)
    ]
    assert sum(b < exact for b in bounds) <= stats.binom.ppf(0.999, 20, beta)
    assert np.mean(bounds) - exact < 2 * math.sqrt(math.log(2 / beta) / (2 * draws))
