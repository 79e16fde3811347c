"""The balls-in-bins Renyi bound with correlated noise (BallsInBinsRDP, balls_in_bins_moments) against independent
references: the remove moment summed over every bin sequence and by two-dimensional Gauss-Hermite quadrature, the
Gaussian's closed form at one bin, Monte Carlo of the dominating pair, the exact random-allocation PLD at C = I;
and each bound's direction (never below the truth)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hockeystick.fdp import GaussianMechanism
from hockeystick.matrix import DPFTRL, BallsInBinsRDP, Banded, labelled_reading
from hockeystick.matrix.balls_in_bins_moments import (
    add_rdp_bound,
    banded_split,
    bin_gram,
    remove_log_moments_banded,
    remove_log_moments_exact,
)
from hockeystick.pld import BallsInBinsGaussianPLD


def random_gram(rng: np.random.Generator, bins: int, rows: int = 6) -> np.ndarray:
    m = rng.random((rows, bins))
    return m.T @ m


def log_moment_by_sequences(gram: np.ndarray, sigma: float, alpha: int) -> float:
    """log E_Q[(P/Q)^alpha] = log E_r exp(sum_{j<j'} G_{r_j r_j'} / sigma^2), r uniform in [b]^alpha (every r)."""
    b = gram.shape[0]
    values = [
        sum(gram[r[j], r[k]] for j in range(alpha) for k in range(j + 1, alpha)) / sigma**2
        for r in itertools.product(range(b), repeat=alpha)
    ]
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values) / len(values))


def quadrature_moments(
    gram: np.ndarray, sigma: float, alpha: float, nodes: int = 80
) -> tuple[float, float]:
    """(E_Q[(P/Q)^alpha], E_Q[(Q/P)^(alpha - 1)]) for b = 2 by Gauss-Hermite quadrature on u = (<m_i, y>)_i,
    u ~ N(0, sigma^2 G) under Q (the likelihood ratio depends on y through u only)."""
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    factor = np.linalg.cholesky(gram) * sigma
    g1, g2 = np.meshgrid(x, x, indexing="ij")
    u = np.einsum("ij,jkl->ikl", factor, np.stack([g1, g2]))
    ratio = 0.5 * sum(np.exp((2 * u[i] - gram[i, i]) / (2 * sigma**2)) for i in range(2))
    weight = np.outer(w, w)
    return float((weight * ratio**alpha).sum()), float((weight * ratio ** (1.0 - alpha)).sum())


def loss_samples(
    gram: np.ndarray, sigma: float, draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Privacy losses l = log P/Q of the dominating pair at y ~ P and at y ~ Q (exact sampling on u)."""
    rng = np.random.default_rng(seed)
    b = gram.shape[0]
    factor = np.linalg.cholesky(gram + 1e-12 * np.eye(b)) * sigma
    noise_q = rng.standard_normal((draws, b)) @ factor.T
    noise_p = rng.standard_normal((draws, b)) @ factor.T + gram[rng.integers(0, b, draws)]

    def loss(u: np.ndarray) -> np.ndarray:
        z = (2 * u - np.diag(gram)) / (2 * sigma**2)
        top = z.max(axis=1)
        return top + np.log(np.exp(z - top[:, None]).mean(axis=1))

    return loss(noise_p), loss(noise_q)


# the remove direction -------------------------------------------------------------------------------------


@pytest.mark.parametrize("bins", [1, 2, 3, 4])
def test_count_vector_sum_is_the_sum_over_every_bin_sequence(bins: int) -> None:
    rng = np.random.default_rng(bins)
    gram, sigma = random_gram(rng, bins), 1.3
    orders = np.arange(2, 6)
    computed = remove_log_moments_exact(gram, sigma, orders)
    reference = np.array([log_moment_by_sequences(gram, sigma, int(a)) for a in orders])
    assert (computed >= reference).all()  # rounded up
    np.testing.assert_allclose(computed, reference, rtol=1e-8, atol=1e-8)


def test_remove_moment_at_two_bins_is_the_quadrature() -> None:
    rng = np.random.default_rng(7)
    gram, sigma = random_gram(rng, 2), 1.1
    for alpha in (2, 3, 5):
        exact = float(remove_log_moments_exact(gram, sigma, np.array([alpha]))[0])
        assert exact == pytest.approx(
            math.log(quadrature_moments(gram, sigma, alpha)[0]), rel=1e-7, abs=1e-9
        )


def test_one_bin_is_the_gaussian_in_both_directions() -> None:
    """b = 1: D_alpha = alpha ||m||^2 / (2 sigma^2) exactly, both directions (the AM-GM bound is exact there)."""
    gram, sigma = np.array([[2.5]]), 1.7
    orders = np.arange(2.0, 12.0)
    gaussian = orders * 2.5 / (2 * sigma**2)
    remove = remove_log_moments_exact(gram, sigma, orders) / (orders - 1)
    np.testing.assert_allclose(remove, gaussian, rtol=1e-8)
    np.testing.assert_allclose(add_rdp_bound(gram, sigma, orders), gaussian, rtol=1e-14)
    np.testing.assert_allclose(
        remove_log_moments_banded(gram, sigma, 11, 1)[2:] / (orders - 1), gaussian, rtol=1e-8
    )


@pytest.mark.parametrize(("bins", "band"), [(5, 2), (6, 2), (7, 2), (7, 3), (9, 3), (8, 1)])
def test_band_program_is_exact_on_a_cyclically_banded_gram_plus_a_constant(
    bins: int, band: int
) -> None:
    """G = (cyclically band-limited, >= 0) + tau 1 1^T: the program plus its tau term equals the exact sum."""
    rng = np.random.default_rng(bins * 10 + band)
    lag = np.abs(np.subtract.outer(np.arange(bins), np.arange(bins)))
    inside = np.minimum(lag, bins - lag) < band
    noise = rng.random((bins, bins))
    gram = np.where(inside, noise + noise.T + 0.5, 0.0) + 0.4
    sigma, top = 1.2, 6
    _, tau = banded_split(gram, band)
    assert tau == pytest.approx(0.4) or band * 2 - 1 >= bins
    program = remove_log_moments_banded(gram, sigma, top, band)[2:]
    exact = remove_log_moments_exact(gram, sigma, np.arange(2, top + 1))
    np.testing.assert_allclose(program, exact, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize(("bins", "band"), [(5, 1), (5, 2), (6, 2), (7, 3), (9, 4)])
def test_band_programs_bound_the_exact_moment_from_above(bins: int, band: int) -> None:
    """exact <= cyclic program <= chain program (the chain bounds the wrapping pairs by AM-GM)."""
    rng = np.random.default_rng(bins + 100 * band)
    gram, sigma = random_gram(rng, bins), 1.0
    program = remove_log_moments_banded(gram, sigma, 6, band)[2:]
    chain = remove_log_moments_banded(gram, sigma, 6, band, cyclic=False)[2:]
    exact = remove_log_moments_exact(gram, sigma, np.arange(2, 7))
    assert (program >= exact).all() and (chain >= program - 1e-12).all()


@pytest.mark.parametrize(("bins", "band"), [(5, 2), (7, 3), (9, 4)])
def test_chain_program_is_exact_on_a_banded_gram_with_nothing_wrapping(
    bins: int, band: int
) -> None:
    """G = (band-limited in |i - j|, no pair wrapping around, >= 0) + tau 1 1^T: the chain is exact."""
    rng = np.random.default_rng(bins + band)
    lag = np.abs(np.subtract.outer(np.arange(bins), np.arange(bins)))
    noise = rng.random((bins, bins))
    gram = np.where(lag < band, noise + noise.T + 0.5, 0.0) + 0.3
    chain = remove_log_moments_banded(gram, 1.1, 6, band, cyclic=False)[2:]
    exact = remove_log_moments_exact(gram, 1.1, np.arange(2, 7))
    np.testing.assert_allclose(chain, exact, rtol=1e-8, atol=1e-8)


def test_remove_moment_agrees_with_a_monte_carlo_of_the_pair() -> None:
    """Two-sided: the exact log-moment of E_Q[(P/Q)^alpha] lies within 5 standard errors of a Monte Carlo."""
    rng = np.random.default_rng(11)
    gram, sigma = random_gram(rng, 3, rows=4), 2.0
    _, loss_q = loss_samples(gram, sigma, 400_000, seed=1)
    for alpha in (2, 3):
        values = np.exp(alpha * loss_q)
        mean, se = values.mean(), values.std() / math.sqrt(values.size)
        exact = math.exp(float(remove_log_moments_exact(gram, sigma, np.array([alpha]))[0]))
        assert abs(exact - mean) <= 5 * se + 1e-9 * exact


# the add direction ----------------------------------------------------------------------------------------


def test_am_gm_bound_lies_above_the_quadrature_at_two_bins() -> None:
    rng = np.random.default_rng(3)
    gram, sigma = random_gram(rng, 2), 1.0
    for alpha in (1.5, 2.0, 4.0, 8.0):
        exact = math.log(quadrature_moments(gram, sigma, alpha)[1]) / (alpha - 1)
        bound = float(add_rdp_bound(gram, sigma, np.array([alpha]))[0])
        jensen = alpha * float(np.max(np.diag(gram))) / (2 * sigma**2)
        assert exact <= bound <= jensen


@pytest.mark.parametrize("bins", [2, 3, 5])
def test_am_gm_bound_lies_above_a_monte_carlo_of_the_add_moment(bins: int) -> None:
    """E_Q[(Q/P)^(alpha-1)] <= exp((alpha - 1) bound): the bound above the Monte Carlo plus 4 standard errors."""
    rng = np.random.default_rng(20 + bins)
    gram, sigma = random_gram(rng, bins, rows=4), 2.0
    _, loss_q = loss_samples(gram, sigma, 200_000, seed=bins)
    for alpha in (2.0, 3.0):
        values = np.exp(-(alpha - 1) * loss_q)
        mean, se = values.mean(), values.std() / math.sqrt(values.size)
        bound = math.exp((alpha - 1) * float(add_rdp_bound(gram, sigma, np.array([alpha]))[0]))
        assert mean + 4 * se <= bound


# the accountant -------------------------------------------------------------------------------------------


def monte_carlo_delta(
    gram: np.ndarray, sigma: float, eps: float, draws: int, seed: int
) -> tuple[float, float]:
    """max over the directions of the Monte Carlo delta of the dominating pair, with its standard error."""
    loss_p, loss_q = loss_samples(gram, sigma, draws, seed)
    best = (0.0, 0.0)
    for terms in (np.maximum(1 - np.exp(eps - loss_p), 0), np.maximum(1 - np.exp(eps + loss_q), 0)):
        mean, se = float(terms.mean()), float(terms.std() / math.sqrt(terms.size))
        best = max(best, (mean, se))
    return best


@pytest.mark.parametrize(("bins", "eps"), [(2, 0.5), (4, 1.0), (4, 2.0)])
def test_certified_delta_lies_above_the_monte_carlo_of_the_dominating_pair(
    bins: int, eps: float
) -> None:
    band = Banded([1.0, 0.6, 0.3])
    acc = BallsInBinsRDP(strategy=band, rounds=12, noise_multiplier=1.0, bins=bins)
    c, _ = band.matrix(12)
    mean, se = monte_carlo_delta(bin_gram(c, bins), 1.0, eps, 200_000, seed=bins)
    assert mean + 4 * se <= acc.delta(eps)


def test_one_bin_is_never_below_the_exact_gaussian() -> None:
    band = Banded([1.0, 0.5])
    acc = BallsInBinsRDP(strategy=band, rounds=6, noise_multiplier=1.5, bins=1)
    c, _ = band.matrix(6)
    gaussian = GaussianMechanism(sigma=1.5, sensitivity=float(np.linalg.norm(c.sum(axis=1))))
    for delta in (1e-3, 1e-8):
        assert acc.epsilon(delta) >= gaussian.epsilon(delta, bound="upper")


def test_epochs_redrawn_with_identity_lie_above_the_exact_random_allocation() -> None:
    """C = I, a bin drawn each epoch (DP-SGD's balls-in-bins): the Renyi epsilon is above the certified lower side
    of the exact random-allocation PLD, and the amplification is real (well below the unamplified Gaussian)."""
    acc = BallsInBinsRDP(
        strategy=np.eye(64), rounds=64, noise_multiplier=1.0, bins=8, redraw="each_epoch"
    )
    pld = BallsInBinsGaussianPLD(sigma=1.0, steps_per_epoch=8, rounds=64)
    for delta in (1e-4, 1e-8):
        lower, upper = pld.epsilon(delta, bound="both")
        assert lower <= acc.epsilon(delta)
        assert acc.epsilon(delta) < GaussianMechanism(sigma=1.0, sensitivity=math.sqrt(8)).epsilon(
            delta
        )


def test_each_epoch_refuses_bands_across_epochs() -> None:
    with pytest.raises(ValueError, match="no band across epochs"):
        BallsInBinsRDP(
            strategy=Banded([1.0, 0.5]), rounds=8, noise_multiplier=1.0, bins=4, redraw="each_epoch"
        )


@pytest.mark.parametrize(
    ("strategy", "words"),
    [
        (np.array([[1.0, 0.0], [-0.5, 1.0]]), "entries >= 0"),
        (np.array([[1.0, 0.5], [0.0, 1.0]]), "lower triangular"),
        (np.zeros((2, 2)), "non-zero entry"),
    ],
)
def test_refusals_name_the_rule(strategy: np.ndarray, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        BallsInBinsRDP(strategy=strategy, rounds=2, noise_multiplier=1.0, bins=2)


def test_lower_side_and_bad_arguments_are_refused() -> None:
    acc = BallsInBinsRDP(strategy=Banded([1.0]), rounds=4, noise_multiplier=1.0, bins=2)
    with pytest.raises(ValueError, match='bound must be "upper"'):
        acc.delta(1.0, bound="lower")
    with pytest.raises(ValueError, match="redraw must be one of"):
        BallsInBinsRDP(
            strategy=Banded([1.0]), rounds=4, noise_multiplier=1.0, bins=2, redraw="sometimes"
        )  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_order"):
        BallsInBinsRDP(
            strategy=Banded([1.0]), rounds=4, noise_multiplier=1.0, bins=2, max_order=1000
        )
    with pytest.raises(ValueError, match="noise_multiplier"):
        BallsInBinsRDP(strategy=Banded([1.0]), rounds=4, noise_multiplier=-1.0, bins=2)


@pytest.mark.parametrize("redraw", ["never", "each_epoch"])
def test_noise_whose_variance_underflows_gives_the_trivial_bound(redraw: str) -> None:
    """z = 5e-324: z^2 is 0 in floating point, so no finite RDP is certified; the answer is eps = inf, delta = 1
    (never NaN, never a division by zero), and a z just above the underflow gives a finite but huge eps."""
    acc = BallsInBinsRDP(
        strategy=np.eye(4), rounds=4, noise_multiplier=5e-324, bins=2, redraw=redraw
    )  # type: ignore[arg-type]
    assert acc.epsilon(1e-3) == math.inf and acc.delta(1.0) == 1.0
    assert np.all(acc.remove_rdp == math.inf) and np.all(acc.add_rdp == math.inf)
    tiny = BallsInBinsRDP(
        strategy=np.eye(4), rounds=4, noise_multiplier=1e-100, bins=2, redraw=redraw
    )  # type: ignore[arg-type]
    assert 1e190 < tiny.epsilon(1e-3) < math.inf


# through DPFTRL -------------------------------------------------------------------------------------------


def gboard_column(bands: int) -> list[float]:
    out = [1.0]
    for j in range(1, bands):
        out.append(out[-1] * (2 * j - 1) / (2 * j))
    return out


def test_gboard_sized_run_is_amplified_at_small_delta_and_labelled() -> None:
    run = DPFTRL(
        rounds=2000,
        noise_multiplier=6.0,
        strategy=Banded(gboard_column(64)),
        min_separation=64,
        participation="balls_in_bins",
    )
    sides = run.sampled
    assert sides is not None and sides.renyi is not None
    small = {kind: float(v) for kind, _, v in sides.upper_sides("epsilon", np.asarray(1e-10))}
    assert small["amplified"] < small["unamplified"] < 9.92  # the unamplified 9.915
    assert float(run.epsilon(1e-10)) == small["amplified"]
    cited = [text for kind, text in sides.renyi.steps if kind == "cited"]
    assert any("Lemma 3.2" in text and "swapped order" in text for text in cited)
    # at eps = 1 the Gaussian is smaller: the upper side is the unamplified one, and the reading says so
    reading = labelled_reading(run, epsilon=1.0)
    assert reading.upper_kind == "unamplified" and len(reading.upper_sides) == 2
    assert reading.certified_upper == min(value for _, _, value in reading.upper_sides)


def test_random_allocation_of_one_round_is_covered_and_of_two_is_not() -> None:
    one = DPFTRL(
        rounds=8,
        noise_multiplier=1.0,
        strategy=Banded([1.0, 0.5]),
        max_participations=1,
        participation="random_allocation",
    )
    two = DPFTRL(
        rounds=8,
        noise_multiplier=1.0,
        strategy=Banded([1.0, 0.5]),
        max_participations=2,
        participation="random_allocation",
    )
    assert one.sampled is not None and one.sampled.renyi is not None and one.sampled.renyi.bins == 8
    assert two.sampled is not None and two.sampled.renyi is None
    assert "k > 1 rounds" in two.sampled.upper_method
    upper = float(one.epsilon(1e-8))
    assert upper < float(
        DPFTRL(
            rounds=8, noise_multiplier=1.0, strategy=Banded([1.0, 0.5]), max_participations=1
        ).epsilon(1e-8)
    )
    assert float(one.epsilon(1e-8, bound="lower")) <= upper


def test_more_bins_keep_the_exact_sum_at_the_orders_it_reaches() -> None:
    """b = 6 over orders to 32: too many count vectors at the top, so the band programs run, and the orders the
    exact sum reaches are the exact moment (never above it by more than the floating-point pad)."""
    rng = np.random.default_rng(5)
    c = np.tril(rng.random((18, 18)))
    acc = BallsInBinsRDP(strategy=c, rounds=18, noise_multiplier=3.0, bins=6)
    assert acc.remove_method.startswith("exact count sum up to order")
    low = acc.orders <= 12
    gram = bin_gram(c, 6)
    exact = remove_log_moments_exact(gram, 3.0, acc.orders[low]) / (acc.orders[low] - 1)
    gaussian = acc.orders[low] * float(np.max(np.diag(gram))) / 18.0
    np.testing.assert_allclose(acc.remove_rdp[low], np.minimum(exact, gaussian), rtol=1e-8)
