"""b-min-sep with a banded Toeplitz C (matrix.b_min_sep): Dong & Ganesh's exact loss against their stated check
values and against the loss summed over every pattern; the remove direction's Renyi moment (the dynamic program)
against every tuple of patterns enumerated; the add direction's AM-GM bound above a Monte Carlo of the pair and
exact where the pattern is fixed; the certified (eps, delta) above a Monte Carlo of the pair's delta and below the
unamplified bound where sampling amplifies; DPFTRL's b_min_sep words; refusals by name."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hockeystick.matrix import DPFTRL, Banded
from hockeystick.matrix.b_min_sep import (
    BMinSepRDP,
    add_rdp_bound,
    b_min_sep_patterns,
    b_min_sep_privacy_loss,
    remove_log_moment,
)


def toeplitz(c: list[float], n: int) -> np.ndarray:
    out = np.zeros((n, n))
    for k, ck in enumerate(c):
        out += ck * np.eye(n, k=-k)
    return out


def every_pattern(n: int, b: int, p: float, warm: bool) -> tuple[np.ndarray, np.ndarray]:
    """Every b-min-sep pattern of n rounds with its probability, by the scheme's definition (a walk over the
    rounds: available ones taken with probability p; the warm start's first available round drawn first)."""
    starts = (
        [(0, 1.0)]
        if not warm or b == 1
        else [(0, 1 / (1 + (b - 1) * p))] + [(j, p / (1 + (b - 1) * p)) for j in range(1, b)]
    )
    law: dict[tuple[int, ...], float] = {}
    for first, weight in starts:
        for bits in itertools.product((0, 1), repeat=n):
            prob, free_at = weight, first
            for t, x in enumerate(bits):
                if t < free_at:
                    if x:
                        prob = 0.0
                        break
                    continue
                prob *= p if x else 1 - p
                if x:
                    free_at = t + b
            if prob > 0:
                law[bits] = law.get(bits, 0.0) + prob
    patterns = np.array(list(law), dtype=float)
    return patterns, np.array(list(law.values()))


@pytest.mark.parametrize(
    ("y", "c", "p", "warm", "expected"),
    [
        ([1.0, 1.0, 1.0], [1.0], 0.5, False, 0.6070561),
        ([1.0, 1.0, 1.0], [1.0, 0.5], 0.5, False, 0.9239799),
        ([1.0, 1.0, 1.0], [1.0, 0.5], 0.5, True, 0.8329398),
        ([1.0, 0.0, 1.0, 0.0], [1.0], 1.0, True, math.log(math.cosh(1.0))),
        ([1.0, 0.5, 1.0, 0.5], [1.0, 0.5], 1.0, True, 0.9052974),
    ],
)
def test_loss_meets_the_papers_check_values(
    y: list[float], c: list[float], p: float, warm: bool, expected: float
) -> None:
    """b = 2, sigma = 1: Dong & Ganesh's (arXiv:2602.09338, Sec. 5, Eq. (2): p = .5, n = 3, y = (1, 1, 1));
    and Choquette-Choo et al.'s balls-in-bins loss (arXiv:2410.06266, Lemma 3.2: n = 4, l(y) = log((1/b) sum_i
    exp((2<m_i, y> - ||m_i||^2) / 2)), m_i = C 1_{i, i+2}), which is b-min-sep from the warm start with p = 1;
    its first value is log cosh 1 = 0.4337808."""
    loss = b_min_sep_privacy_loss(
        y,
        coefficients=c,
        noise_multiplier=1.0,
        sampling_rate=p,
        min_separation=2,
        warm_start=warm,
    )
    assert float(loss) == pytest.approx(expected, abs=5e-8)


@pytest.mark.parametrize(
    ("c", "b", "p", "warm"),
    [
        ([1.0], 2, 0.3, False),
        ([1.0, 0.6], 2, 0.5, True),
        ([1.0, 0.7, 0.2], 3, 0.4, True),
        ([0.8], 1, 0.2, False),
    ],
)
def test_loss_equals_the_sum_over_every_pattern(
    c: list[float], b: int, p: float, warm: bool
) -> None:
    n, sigma = 7, 1.3
    patterns, prior = every_pattern(n, b, p, warm)
    assert prior.sum() == pytest.approx(1.0, abs=1e-12)
    matrix = toeplitz(c, n)
    y = np.random.default_rng(4).normal(0.5, 1.5, (20, n))
    means = patterns @ matrix.T
    exponent = (y @ means.T - 0.5 * (means * means).sum(axis=1)) / sigma**2
    exact = np.log(np.exp(exponent) @ prior)
    loss = b_min_sep_privacy_loss(
        y,
        coefficients=c,
        noise_multiplier=sigma,
        sampling_rate=p,
        min_separation=b,
        warm_start=warm,
    )
    assert loss == pytest.approx(exact, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("alpha", [2, 3])
@pytest.mark.parametrize(
    ("c", "b", "p", "warm"),
    [
        ([1.0], 2, 0.3, False),
        ([1.0, 0.6], 2, 0.5, True),
        ([1.0, 0.7, 0.2], 3, 0.4, True),
        ([1.0, 0.5], 3, 1.0, False),
    ],
)
def test_remove_moment_equals_every_tuple_of_patterns(
    alpha: int, c: list[float], b: int, p: float, warm: bool
) -> None:
    """E_Q[(P/Q)^alpha] = sum over alpha-tuples of patterns of their probabilities times
    exp(sum_{k != k'} s_k^T G s_k' / (2 sigma^2)); the dynamic program is at or above it, within 1e-9."""
    n, sigma = 6, 1.1
    patterns, prior = every_pattern(n, b, p, warm)
    matrix = toeplitz(c, n)
    gram = matrix.T @ matrix
    cross = patterns @ gram @ patterns.T / (2 * sigma**2)
    total = 0.0
    for tup in itertools.product(range(len(prior)), repeat=alpha):
        exponent = sum(cross[i, j] for i, j in itertools.permutations(tup, 2))
        total += math.prod(prior[list(tup)]) * math.exp(exponent)
    computed = remove_log_moment(np.array(c), n, sigma, p, b, warm, alpha)
    assert math.log(total) <= computed <= math.log(total) + 1e-9


def test_fixed_pattern_is_the_gaussian_both_ways() -> None:
    """p = 1, b = 1: every round taken, P = N(C 1, sigma^2 I): D_alpha = alpha ||C 1||^2 / (2 sigma^2) both ways
    (the AM-GM bound exact there)."""
    c, n, sigma = np.array([1.0, 0.5]), 5, 2.0
    ones = toeplitz([1.0, 0.5], n) @ np.ones(n)
    gaussian = ones @ ones / (2 * sigma**2)
    # b = 1 needs |c| <= 1: take c = (1) for the remove side, where ||C 1||^2 = n
    remove = remove_log_moment(np.array([1.0]), n, sigma, 1.0, 1, False, 4) / 3
    assert 4 * n / (2 * sigma**2) <= remove <= 4 * n / (2 * sigma**2) * (1 + 1e-9)
    add = add_rdp_bound(c, n, sigma, 1.0, 2, False, np.array([4.0]))
    # with b = 2 and p = 1 the pattern is rounds 0, 2, 4: pi = (1, 0, 1, 0, 1), exact again
    fixed = toeplitz([1.0, 0.5], n) @ np.array([1.0, 0, 1, 0, 1])
    assert (
        4 * (fixed @ fixed) / (2 * sigma**2)
        <= add[0]
        <= 4 * (fixed @ fixed) / (2 * sigma**2) * (1 + 1e-9)
    )
    assert gaussian > 0


def monte_carlo_pair(
    c: list[float], n: int, sigma: float, p: float, b: int, warm: bool, draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """(losses under P, losses under Q) of the b-min-sep pair, from Dong & Ganesh's exact loss."""
    rng = np.random.default_rng(seed)
    patterns = b_min_sep_patterns(
        rng, draws, rounds=n, sampling_rate=p, min_separation=b, warm_start=warm
    )
    matrix = toeplitz(c, n)
    noise = sigma * rng.standard_normal((2, draws, n))
    args = dict(
        coefficients=c, noise_multiplier=sigma, sampling_rate=p, min_separation=b, warm_start=warm
    )
    return b_min_sep_privacy_loss(patterns @ matrix.T + noise[0], **args), b_min_sep_privacy_loss(
        noise[1], **args
    )


def test_patterns_follow_the_scheme() -> None:
    """The sampler's pattern frequencies match the scheme's law (every pattern enumerated), to 5 SE."""
    n, b, p = 5, 2, 0.4
    patterns, prior = every_pattern(n, b, p, True)
    drawn = b_min_sep_patterns(
        np.random.default_rng(3),
        60_000,
        rounds=n,
        sampling_rate=p,
        min_separation=b,
        warm_start=True,
    )
    keys = {tuple(row): i for i, row in enumerate(patterns.astype(int).tolist())}
    counts = (
        np.bincount([keys[tuple(row)] for row in drawn.astype(int).tolist()], minlength=len(prior))
        / 60_000
    )
    assert np.all(np.abs(counts - prior) <= 5 * np.sqrt(prior * (1 - prior) / 60_000) + 1e-4)


@pytest.mark.parametrize("alpha", [2.0, 4.0])
def test_add_bound_above_monte_carlo(alpha: float) -> None:
    """E_Q[(Q/P)^(alpha - 1)] by Monte Carlo (exact loss) is at most exp((alpha - 1) bound)."""
    c, n, sigma, p, b = [1.0, 0.6], 12, 1.5, 0.3, 3
    _, under_q = monte_carlo_pair(c, n, sigma, p, b, True, 200_000, seed=5)
    moment = np.exp(-(alpha - 1) * under_q)
    estimate, error = moment.mean(), moment.std(ddof=1) / np.sqrt(moment.size)
    bound = add_rdp_bound(np.array(c), n, sigma, p, b, True, np.array([alpha]))[0]
    assert estimate <= math.exp((alpha - 1) * bound) + 4 * error
    # not vacuous: the Jensen step loses at most 0.6 per unit of alpha - 1 in the log moment at this noise
    assert (alpha - 1) * bound - math.log(estimate) <= 0.6 * (alpha - 1)


def test_certified_epsilon_above_monte_carlo_and_amplified() -> None:
    c, n, sigma, p, b = [1.0, 0.5], 24, 1.0, 0.1, 4
    run = BMinSepRDP(
        coefficients=c, rounds=n, noise_multiplier=sigma, sampling_rate=p, min_separation=b
    )
    delta = 1e-3
    eps = run.epsilon(delta)
    under_p, under_q = monte_carlo_pair(c, n, sigma, p, b, True, 200_000, seed=9)
    remove = np.maximum(1 - np.exp(eps - under_p), 0.0)
    add = np.maximum(1 - np.exp(eps + under_q), 0.0)
    for sample in (remove, add):
        assert sample.mean() <= delta + 4 * sample.std(ddof=1) / np.sqrt(sample.size)
    assert run.delta(eps) <= delta * (1 + 1e-9)
    unamplified = DPFTRL(
        rounds=n, noise_multiplier=sigma, min_separation=b, strategy=Banded(c)
    ).epsilon(delta)
    assert eps < 0.5 * unamplified


def test_contract_and_refusals() -> None:
    run = BMinSepRDP(
        coefficients=[1.0], rounds=8, noise_multiplier=1.0, sampling_rate=0.2, min_separation=2
    )
    eps = run.epsilon(np.array([1e-3, 1e-6]))
    assert eps.shape == (2,) and eps[0] < eps[1]
    with pytest.raises(ValueError, match='bound must be "upper" for BMinSepRDP'):
        run.epsilon(1e-3, bound="both")
    with pytest.raises(ValueError, match="coefficients must have at most min_separation"):
        BMinSepRDP(
            coefficients=[1.0, 0.5, 0.2],
            rounds=8,
            noise_multiplier=1.0,
            sampling_rate=0.2,
            min_separation=2,
        )
    with pytest.raises(ValueError, match="coefficients must be >= 0"):
        BMinSepRDP(
            coefficients=[1.0, -0.5],
            rounds=8,
            noise_multiplier=1.0,
            sampling_rate=0.2,
            min_separation=2,
        )
    with pytest.raises(ValueError, match="orders must be"):
        BMinSepRDP(
            coefficients=[1.0],
            rounds=8,
            noise_multiplier=1.0,
            sampling_rate=0.2,
            min_separation=2,
            orders=[1.5],
        )
    with pytest.raises(ValueError, match="sampling_rate"):
        b_min_sep_privacy_loss(
            [0.0], coefficients=[1.0], noise_multiplier=1.0, sampling_rate=0.0, min_separation=1
        )
    huge = BMinSepRDP(
        coefficients=[1.0],
        rounds=4000,
        noise_multiplier=1.0,
        sampling_rate=0.2,
        min_separation=8,
        orders=[64],
    )
    assert (
        not huge.available
        and huge.epsilon(1e-6) == math.inf
        and "no order within MAX_WORK" in repr(huge)
    )


def test_dpftrl_b_min_sep_takes_the_renyi_side_where_it_holds() -> None:
    """DPFTRL(participation="b_min_sep") with a banded C >= 0 of at most b bands: the upper side is the smaller of
    the unamplified Gaussian and BMinSepRDP's, labelled amplified, above the realizable lower side; with more
    bands than b it is the unamplified side alone, labelled so."""
    args = dict(
        rounds=64,
        noise_multiplier=2.0,
        min_separation=4,
        participation="b_min_sep",
        sampling_rate=0.05,
    )
    run = DPFTRL(strategy=Banded([1.0, 0.5]), **args)  # type: ignore[arg-type]
    lower, upper = run.epsilon(1e-6, bound="both")
    alone = BMinSepRDP(
        coefficients=[1.0, 0.5],
        rounds=64,
        noise_multiplier=2.0,
        sampling_rate=0.05,
        min_separation=4,
    )
    assert 0.0 < lower <= upper == alone.epsilon(1e-6)
    assert run.sampled is not None and run.sampled.upper_kind == "amplified"
    assert "BMinSepRDP" in run.sampled.upper_method
    wide = DPFTRL(strategy=Banded([1.0, 0.5, 0.4, 0.3, 0.2]), **args)  # type: ignore[arg-type]
    assert (
        wide.sampled is not None
        and wide.sampled.upper_kind == "unamplified"
        and wide.sampled.b_min_sep is None
    )
    assert "the Renyi route needs a banded C >= 0 of at most b bands" in wide.sampled.upper_method
