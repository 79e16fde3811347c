"""AmplifiedBandedMF: banded C with cyclic Poisson sampling (Choquette-Choo et al. 2023) against DP-SGD's
subsampled Gaussian (one band: the same PLD), the mechanism without amplification (DPFTRL, fixed epochs),
jax_privacy's published value and dp_accounting's PLD of jax_privacy's event, 50-digit closed forms of one
round, the realizable pair of a truncated last column, and the refusals."""

from __future__ import annotations

import math
from fractions import Fraction

import dp_accounting
import mpmath
import numpy as np
import pytest

from hockeystick.matrix import BLT, DPFTRL, AmplifiedBandedMF, Banded, DenseStrategy, Tree
from hockeystick.pld import PLDAccountant, SubsampledGaussianPLD

EPSILONS = [0.0, 0.5, 2.0, 8.0]
DELTAS = [1e-3, 1e-6, 1e-10]


def banded_matrix(coefficients: list[float], rounds: int) -> np.ndarray:
    """The n x n lower-triangular Toeplitz C with first column (c_0, ..., c_(b-1), 0, ...)."""
    c = np.zeros((rounds, rounds))
    for lag, value in enumerate(coefficients):
        c += value * np.eye(rounds, k=-lag)
    return c


@pytest.mark.parametrize(
    "rounds, noise, rate", [(1, 1.0, 0.5), (100, 1.0, 0.1), (1000, 0.8, 0.01), (64, 2.5, 1.0)]
)
def test_one_band_is_dp_sgd(rounds, noise, rate):
    """b = 1, C = I: every record in every round with probability q is DP-SGD, and the accountant is DP-SGD's
    subsampled Gaussian PLD itself: both sides equal to the bit, for Banded([1]) and for the identity matrix."""
    dp_sgd = SubsampledGaussianPLD(sigma=noise, sampling_rate=rate, rounds=rounds)
    for strategy in (Banded([1.0]), np.eye(rounds)):
        acc = AmplifiedBandedMF(
            rounds=rounds,
            noise_multiplier=noise,
            sampling_rate=rate,
            strategy=strategy,
            min_separation=1,
        )
        assert (acc.participations, acc.column_norm, acc.column_norm_lower, acc.kind) == (
            rounds,
            1.0,
            1.0,
            "exact",
        )
        for ours, theirs in zip(
            acc.delta(EPSILONS, bound="both"), dp_sgd.delta(EPSILONS, bound="both")
        ):
            np.testing.assert_array_equal(ours, theirs)
        for ours, theirs in zip(
            acc.epsilon(DELTAS, bound="both"), dp_sgd.epsilon(DELTAS, bound="both")
        ):
            np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("bands", [[1.0, 0.6, 0.3], [0.5, 0.5, 0.5, 0.5], [2.0, -1.0], [0.3, 1.0]])
@pytest.mark.parametrize("separation", [4, 7])
def test_amplified_not_above_unamplified(bands, separation):
    """Cyclic Poisson at q < 1 is a post-processing-free mixture of the fixed-epoch mechanism (q = 1: every
    record of group r in rounds r, r + b, ...), whose guarantee DPFTRL gives without amplification: the
    amplified certified upper epsilon lies below the un-amplified certified lower one, and it grows with q.
    At q = 1 with full columns (n a multiple of b) the two are the same Gaussian (orthogonal columns:
    sens^2 = k zeta^2) and their brackets overlap."""
    rounds, noise = 12 * separation, 1.5
    plain = DPFTRL(
        rounds=rounds,
        noise_multiplier=noise,
        min_separation=separation,
        participation="fixed_epochs",
        strategy=Banded(bands),
    )
    plain_low, plain_high = plain.epsilon(1e-6, bound="both")
    uppers = []
    for rate in (0.01, 0.1, 0.5):
        acc = AmplifiedBandedMF(
            rounds=rounds,
            noise_multiplier=noise,
            sampling_rate=rate,
            strategy=Banded(bands),
            min_separation=separation,
        )
        uppers.append(acc.epsilon(1e-6))
    assert uppers[0] < uppers[1] < uppers[2] < plain_low
    full = AmplifiedBandedMF(
        rounds=rounds,
        noise_multiplier=noise,
        sampling_rate=1.0,
        strategy=Banded(bands),
        min_separation=separation,
    )
    assert full.kind == "exact"
    low, high = full.epsilon(1e-6, bound="both")
    assert low <= plain_high and plain_low <= high
    assert high == pytest.approx(plain_high, rel=1e-6)


def test_jax_privacy_published_epsilon():
    """jax_privacy/accounting.py, module docstring "Example Usage (Calculating Epsilon for DP-SGD)":
    dpsgd_event(noise_multiplier=3, iterations=512, sampling_prob=0.1) gives epsilon 3.77 at delta 1e-6
    (dp_accounting's PLDAccountant); its ``amplified_bandmf_event`` is that event with ceil(iterations /
    num_bands) rounds, the noise multiplier taken for a C of largest column norm 1.  So 512 b rounds of a
    b-banded C of unit columns, b groups, give 3.77 for every b."""
    for b in (1, 2, 4, 16):
        acc = AmplifiedBandedMF(
            rounds=512 * b,
            noise_multiplier=3.0,
            sampling_rate=0.1,
            strategy=Banded(np.full(b, 1.0 / math.sqrt(b))),
        )
        low, high = acc.epsilon(1e-6, bound="both")
        assert round(high, 2) == 3.77 and round(low, 2) == 3.77


@pytest.mark.parametrize(
    "bands, rounds, separation, noise, rate",
    [
        ([1.0, 0.6, 0.3], 300, 3, 1.0, 0.05),
        ([0.8, 0.5], 1000, 10, 2.0, 0.2),
        ([1.0, 0.9, 0.8, 0.7], 97, 5, 0.9, 0.02),
    ],
)
def test_against_dp_accounting_pld_of_jax_privacy_event(bands, rounds, separation, noise, rate):
    """jax_privacy's ``amplified_bandmf_event`` (jax_privacy/accounting.py) is dpsgd_event(z, ceil(n / b), q) for a
    C of unit column norm: for any C that is the noise multiplier z / zeta.  dp_accounting 0.6.0's PLD of that
    event (a pessimistic estimate on its grid, not certified) lies in our bracket up to its grid's error."""
    acc = AmplifiedBandedMF(
        rounds=rounds,
        noise_multiplier=noise,
        sampling_rate=rate,
        strategy=Banded(bands),
        min_separation=separation,
    )
    zeta = math.sqrt(sum(c * c for c in bands))
    assert acc.column_norm == pytest.approx(zeta, rel=1e-15) and acc.column_norm >= zeta * (
        1 - 1e-16
    )
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(rate, dp_accounting.GaussianDpEvent(noise / zeta)),
        math.ceil(rounds / separation),
    )
    theirs = (
        dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
        .compose(event)
        .get_epsilon(1e-6)
    )
    low, high = acc.epsilon(1e-6, bound="both")
    assert low <= theirs <= high + 1e-3
    assert theirs == pytest.approx(high, rel=2e-3)


def one_round_delta(mu: mpmath.mpf, q: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    """delta(eps) of one Poisson-subsampled Gaussian of shift mu, the larger of its two directions (50 digits).
    Remove: P = (1 - q) N(0, 1) + q N(mu, 1) against N(0, 1), loss >= eps for x >= x1; add: N(0, 1) against P,
    loss >= eps for x <= x2 (where e^-eps > 1 - q)."""
    e = mpmath.exp(eps)
    x1 = (mpmath.log((e - 1 + q) / q) + mu * mu / 2) / mu
    remove = q * mpmath.ncdf(mu - x1) + (1 - q) * mpmath.ncdf(-x1) - e * mpmath.ncdf(-x1)
    add = mpmath.mpf(0)
    if 1 / e > 1 - q:
        x2 = (mpmath.log((1 / e - (1 - q)) / q) + mu * mu / 2) / mu
        add = mpmath.ncdf(x2) - e * ((1 - q) * mpmath.ncdf(x2) + q * mpmath.ncdf(x2 - mu))
    return max(remove, add)


@pytest.mark.parametrize(
    "bands, noise, rate", [([1.0, 0.6, 0.3], 1.0, 0.1), ([0.7, -0.7], 0.6, 0.5), ([1.0], 2.0, 0.9)]
)
def test_one_round_per_record_against_50_digit_closed_form(bands, noise, rate):
    """n = b rounds and b groups: each record in one round, with probability q; the release is one subsampled
    Gaussian of shift ||c|| / z, exactly (a realizable pair reaches the bound): both sides bracket the 50-digit
    closed form of both directions."""
    mpmath.mp.dps = 50
    b = len(bands)
    acc = AmplifiedBandedMF(
        rounds=b, noise_multiplier=noise, sampling_rate=rate, strategy=Banded(bands)
    )
    assert acc.participations == 1 and acc.kind == "exact"
    mu = mpmath.sqrt(mpmath.fsum(mpmath.mpf(c) ** 2 for c in bands)) / mpmath.mpf(noise)
    for eps in (0.1, 0.5, 1.0, 3.0):
        exact = one_round_delta(mu, mpmath.mpf(rate), mpmath.mpf(eps))
        low, high = acc.delta(eps, bound="both")
        assert low <= exact <= high
        assert float(high - low) <= 1e-3 * float(exact) + 1e-12


def test_truncated_last_column_bracket_holds_the_realizable_pair():
    """n = 3, b = 2, C with bands (1, 0.5): group 0 takes rounds 0 and 2, whose columns have norms sqrt(1.25) and 1
    (the last row cuts column 2).  The upper side composes 2 rounds at sqrt(1.25) (the theorem's bound); one
    record alone in group 0 realizes exactly the composition of shifts sqrt(1.25) / z and 1 / z, bracketed
    here by PLDAccountant: our lower side lies below it, our upper side above it, and the kind says "upper
    bound"."""
    noise, rate = 0.8, 0.3
    acc = AmplifiedBandedMF(
        rounds=3, noise_multiplier=noise, sampling_rate=rate, strategy=Banded([1.0, 0.5])
    )
    assert acc.kind == "upper bound" and acc.participations == 2
    assert acc.lower_pairs == [(2, 1.0), (1, acc.column_norm_lower)]
    realized = PLDAccountant(value_discretization_interval=1e-4)
    realized.compose_subsampled_gaussian(
        sigma=noise, sampling_rate=rate, rounds=1, sensitivity=math.sqrt(1.25)
    )
    realized.compose_subsampled_gaussian(sigma=noise, sampling_rate=rate, rounds=1, sensitivity=1.0)
    for eps in (0.25, 1.0, 2.0):
        low, high = acc.delta(eps, bound="both")
        true_low, true_high = realized.delta(eps, bound="both")
        assert low <= true_high and true_low <= high
        assert (
            low < true_low and true_high < high
        )  # the realizable sub-pairs and the bound are strictly apart
    dense = AmplifiedBandedMF(
        rounds=3,
        noise_multiplier=noise,
        sampling_rate=rate,
        strategy=banded_matrix([1.0, 0.5], 3),
        min_separation=2,
    )
    assert dense.column_norm >= acc.column_norm and dense.column_norm == pytest.approx(
        acc.column_norm, rel=1e-15
    )
    for ours, dense_side in zip(
        acc.delta([0.25, 1.0], bound="both"), dense.delta([0.25, 1.0], bound="both")
    ):
        np.testing.assert_allclose(dense_side, ours, rtol=1e-9)


def test_dense_banded_matrix_column_norms_and_group():
    """A non-Toeplitz banded C: zeta is the largest column norm (bracketed within a few ulps of numpy's), the lower
    pairs come from the group of that column, and the bracket is ordered."""
    rng = np.random.default_rng(7)
    rounds, separation = 40, 5
    c = np.tril(rng.uniform(-1.0, 1.0, (rounds, rounds)))
    c[np.subtract.outer(np.arange(rounds), np.arange(rounds)) >= 3] = 0.0
    acc = AmplifiedBandedMF(
        rounds=rounds,
        noise_multiplier=1.0,
        sampling_rate=0.2,
        strategy=c,
        min_separation=separation,
    )
    norms = np.linalg.norm(c, axis=0)
    assert acc.column_norm_lower <= norms.max() <= acc.column_norm
    assert acc.column_norm == pytest.approx(norms.max(), rel=1e-14)
    group = norms[int(np.argmax(norms)) % separation :: separation]
    assert acc.lower_pairs[0] == (group.size, pytest.approx(group.min(), rel=1e-14))
    low, high = acc.epsilon(1e-6, bound="both")
    assert 0 < low <= high


def test_integer_columns_are_exact():
    """An integer C is summed exactly: the column norm of bands (2, 1) is sqrt(5) to the nearest doubles on each
    side, and bands (3, 4) give 5 exactly."""
    acc = AmplifiedBandedMF(
        rounds=6,
        noise_multiplier=4.0,
        sampling_rate=0.5,
        strategy=banded_matrix([3.0, 4.0], 6),
        min_separation=2,
    )
    assert acc.column_norm == acc.column_norm_lower == 5.0
    five = AmplifiedBandedMF(
        rounds=6, noise_multiplier=4.0, sampling_rate=0.5, strategy=Banded([2.0, 1.0])
    )
    assert Fraction(five.column_norm_lower) ** 2 < 5 < Fraction(five.column_norm) ** 2
    assert math.nextafter(five.column_norm_lower, math.inf) == five.column_norm


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"strategy": "tree", "min_separation": 2}, "b-banded lower-triangular"),
        ({"strategy": Tree(), "min_separation": 2}, "b-banded lower-triangular"),
        ({"strategy": BLT([0.9], [0.1]), "min_separation": 2}, "b-banded lower-triangular"),
        ({"strategy": Banded([1.0, 0.5, 0.2])}, None),
        ({"strategy": Banded([1.0, 0.5, 0.2]), "min_separation": 2}, "band count 3"),
        ({"strategy": np.eye(8)}, "min_separation must be given"),
        ({"strategy": np.ones((8, 8)), "min_separation": 8}, "lower-triangular"),
        ({"strategy": np.tril(np.ones((8, 8))), "min_separation": 4}, "4-banded"),
        ({"strategy": DenseStrategy(np.ones((9, 8))), "min_separation": 8}, "square"),
        ({"strategy": np.zeros((8, 8)), "min_separation": 2}, "non-zero entry"),
        ({"strategy": Banded([1.0]), "sampling_rate": 0.0}, "sampling_rate"),
        ({"strategy": Banded([1.0]), "sampling_rate": 1.5}, "sampling_rate"),
        ({"strategy": Banded([1.0]), "noise_multiplier": 0.0}, "noise_multiplier"),
        ({"strategy": Banded([1.0]), "noise_multiplier": math.nan}, "noise_multiplier"),
        ({"strategy": Banded([1.0]), "min_separation": 0}, "min_separation"),
    ],
)
def test_refusals(kwargs, message):
    """Every input outside the theorem's conditions, or with no valid bound, is refused naming the argument."""
    arguments = {"rounds": 8, "noise_multiplier": 1.0, "sampling_rate": 0.1, **kwargs}
    if message is None:  # the band count is the default number of groups: accepted
        assert AmplifiedBandedMF(**arguments).min_separation == 3
        return
    with pytest.raises(ValueError, match=message):
        AmplifiedBandedMF(**arguments)


def test_bound_argument_and_broadcasting():
    """noise_multiplier and sampling_rate broadcast with the argument; an unknown bound is refused."""
    acc = AmplifiedBandedMF(
        rounds=50,
        noise_multiplier=[1.0, 2.0],
        sampling_rate=[[0.1], [0.2]],
        strategy=Banded([1.0, 0.5]),
    )
    upper = acc.epsilon(1e-5)
    assert np.shape(upper) == (2, 2)
    assert upper[0, 0] > upper[0, 1] and upper[1, 0] > upper[0, 0]
    single = AmplifiedBandedMF(
        rounds=50, noise_multiplier=2.0, sampling_rate=0.2, strategy=Banded([1.0, 0.5])
    )
    assert single.epsilon(1e-5) == upper[1, 1]
    with pytest.raises(ValueError, match="bound"):
        acc.delta(1.0, bound="middle")  # type: ignore[arg-type]
