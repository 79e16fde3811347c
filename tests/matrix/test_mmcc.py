"""MMCC (matrix.MMCC) checked against the truth and its neighbours: at T <= 8 a Monte Carlo estimate of the
realizable pair's delta (every pattern enumerated, standard error beside it) lies at or below delta at MMCC's
upper epsilon and at or above it at the lower epsilon, and below MMCC's delta(1); C = I is DP-SGD (the subsampled
Gaussian's own bracket); the bound without amplification is never below the upper side, and MMCC's own value is
below it where sampling amplifies; DP-FTRL's Poisson words and the command line's calibration; its contract (not a PLD: compose, to_pld and the PLD export refuse) and its refusals by name."""

from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.cli import main
from hockeystick.interop.exchange.pld_exchange import export_pld
from hockeystick.matrix import BLT, DPFTRL, MMCC, Banded, Tree
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD


def monte_carlo_delta(
    c: np.ndarray, z: float, q: float, eps: list[float], draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """(estimates, standard errors) at each eps of max(H_e^eps(P||Q), H_e^eps(Q||P)) for P = E_S N(C S, z^2 I),
    Q = N(0, z^2 I), S with independent coordinates of probability q: each divergence is E[(1 - e^(eps -+ L))_+]
    over draws of its first law, L = log dP/dQ summed over all 2^n patterns (one set of draws for every eps)."""
    rng = np.random.default_rng(seed)
    n = c.shape[1]
    s = np.array(list(itertools.product((0, 1), repeat=n)), dtype=float)
    log_prior = np.where(s == 1, np.log(q), np.log1p(-q)).sum(axis=1)
    means = s @ c.T
    half = 0.5 * (means * means).sum(axis=1)

    def loss(y: np.ndarray) -> np.ndarray:
        exponent = log_prior + (y @ means.T - half) / (z * z)
        top = exponent.max(axis=1, keepdims=True)
        return (top + np.log(np.exp(exponent - top).sum(axis=1, keepdims=True)))[:, 0]

    noise = z * rng.standard_normal((draws, c.shape[0]))
    picked = means[rng.choice(s.shape[0], size=draws, p=np.exp(log_prior))]
    with_record, without = loss(picked + noise), loss(noise)
    estimates, errors = [], []
    for e in eps:
        remove = np.maximum(1.0 - np.exp(e - with_record), 0.0)
        add = np.maximum(1.0 - np.exp(e + without), 0.0)
        best = max((remove, add), key=lambda v: v.mean())
        estimates.append(best.mean())
        errors.append(best.std(ddof=1) / np.sqrt(draws))
    return np.array(estimates), np.array(errors)


def non_toeplitz(n: int) -> np.ndarray:
    return np.tril(np.random.default_rng(11).uniform(0.2, 1.0, (n, n)))


CASES = {
    "prefix_sums": (np.tril(np.ones((6, 6))), 3.0, 0.2),
    "banded": (Banded([1.0, 0.6, 0.3]).matrix(8)[0], 1.5, 0.2),
    "non_toeplitz": (non_toeplitz(7), 2.0, 0.3),
    "tree": (Tree().matrix(8)[0], 2.0, 0.25),
    # noise well above the shifts: MMCC's delta at its upper epsilon within a factor 5 of the truth, a sharp check
    "prefix_sums_high_noise": (np.tril(np.ones((6, 6))), 10.0, 0.3),
    "banded_high_noise": (Banded([1.0, 0.6, 0.3]).matrix(8)[0], 5.0, 0.3),
    "non_toeplitz_high_noise": (non_toeplitz(7), 6.0, 0.4),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_monte_carlo_truth_between_the_sides(name: str) -> None:
    c, z, q = CASES[name]
    delta = 2e-2
    run = MMCC(strategy=c, rounds=c.shape[1], noise_multiplier=z, sampling_rate=q)
    answer = run.get_epsilon(delta)
    assert 0.0 < answer.lower <= answer.mmcc
    (at_upper, at_lower, at_one), errors = monte_carlo_delta(
        c, z, q, [answer.mmcc, answer.lower, 1.0], 40_000, seed=1
    )
    assert at_upper <= delta + 4.0 * errors[0]
    assert at_lower >= delta - 4.0 * errors[1]
    assert answer.tail_delta + answer.pld_delta <= delta
    assert at_one <= run.delta(1.0) + 4.0 * errors[2]
    if name.endswith("high_noise"):
        assert at_upper >= delta / 5


@pytest.mark.parametrize(("rounds", "z", "q"), [(16, 1.0, 0.1), (64, 2.0, 0.01), (128, 0.8, 0.05)])
def test_identity_is_dp_sgd(rounds: int, z: float, q: float) -> None:
    """C = I: no row holds an earlier row's column, nothing is charged to tail events, and each row is the
    Poisson-subsampled Gaussian, its two atoms (0 and 1) kept exactly on a loss grid of 1e-4: MMCC's upper side
    lies above DP-SGD's certified lower side and within 0.2 % of its upper side (T = 16, z = 1, q = 0.1,
    delta = 1e-6: 3.9812808 against DP-SGD's bracket (3.9812801, 3.9812805))."""
    answer = MMCC(
        strategy=np.eye(rounds), rounds=rounds, noise_multiplier=z, sampling_rate=q
    ).get_epsilon(1e-6)
    lower, upper = SubsampledGaussianPLD(sigma=z, sampling_rate=q, rounds=rounds).epsilon(
        1e-6, bound="both"
    )
    assert answer.tail_delta == 0.0 and answer.pld_delta == 1e-6
    assert lower <= answer.mmcc <= upper * 1.002
    assert answer.lower <= lower


@pytest.mark.parametrize(
    ("strategy", "rounds", "z", "q"),
    [
        (Tree(), 32, 6.0, 0.02),
        (BLT([0.9], [0.3]), 48, 3.0, 0.02),
        (Banded([1.0, 0.5, 0.25]), 48, 2.0, 0.02),
    ],
)
def test_amplification_below_the_bound_without_it(
    strategy: object, rounds: int, z: float, q: float
) -> None:
    answer = MMCC(
        strategy=strategy, rounds=rounds, noise_multiplier=z, sampling_rate=q, lower_side=False
    ).get_epsilon(1e-6)
    assert answer.upper == min(answer.mmcc, answer.unamplified)
    assert answer.mmcc < 0.5 * answer.unamplified
    assert answer.unamplified_rho > 0


def test_without_sampling_the_bound_without_amplification_stands() -> None:
    """q = 1: nothing to amplify; MMCC's charges make its own value larger, and the bracket's upper side is the
    bound without amplification."""
    c = np.tril(np.ones((4, 4)))
    answer = MMCC(
        strategy=c, rounds=4, noise_multiplier=2.0, sampling_rate=1.0, lower_side=False
    ).get_epsilon(1e-5)
    assert answer.mmcc >= answer.unamplified == answer.upper


def test_split_reported_and_chosen() -> None:
    run = MMCC(
        strategy=Banded([1.0, 0.5]),
        rounds=12,
        noise_multiplier=2.0,
        sampling_rate=0.1,
        lower_side=False,
    )
    best = run.get_epsilon(1e-6)
    for fraction in (0.5, 0.1, 0.01):
        alone = MMCC(
            strategy=Banded([1.0, 0.5]),
            rounds=12,
            noise_multiplier=2.0,
            sampling_rate=0.1,
            lower_side=False,
            tail_fractions=[fraction],
        ).get_epsilon(1e-6)
        assert best.mmcc <= alone.mmcc
        assert alone.tail_delta == pytest.approx(fraction * 1e-6)
    assert best.tail_delta in {f * 1e-6 for f in (0.5, 0.1, 0.01)}
    lower, upper = best
    assert (lower, upper) == (best.lower, best.upper)


def test_not_a_pld() -> None:
    run = MMCC(strategy=Banded([1.0, 0.5]), rounds=6, noise_multiplier=2.0, sampling_rate=0.1)
    with pytest.raises(TypeError, match="not a privacy-loss distribution"):
        run.compose(pld.mixture_of_gaussians(1.0, [0.0, 1.0], [0.5, 0.5]))
    with pytest.raises(TypeError, match="cannot be composed"):
        run.to_pld()
    # as every accountant, its certified curve delta(eps) exports (a privacy profile, not a composed PLD): a
    # reader's epsilon is never below MMCC's certified upper epsilon's delta read
    exported = export_pld(run)
    assert exported.delta_floor > 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"strategy": np.array([[1.0, 0.0], [-0.5, 1.0]])},
            r"entries >= 0 for MMCC, got C\[1, 0\]",
        ),
        (
            {"strategy": np.array([[1.0, 0.5], [0.0, 1.0]])},
            r"lower triangular for MMCC, got C\[0, 1\]",
        ),
        ({"strategy": np.zeros((2, 2))}, "non-zero entry"),
        ({"strategy": np.ones((1, 2))}, "at least as many rows"),
        ({"sampling_rate": 0.0}, "sampling_rate must be"),
        ({"sampling_rate": 1.5}, "sampling_rate must lie in"),
        ({"noise_multiplier": -1.0}, "noise_multiplier"),
        ({"tail_fractions": [1.0]}, "tail_fractions must lie"),
        ({"tail_fractions": []}, "tail_fractions must be a non-empty sequence"),
        ({"rounds": 4096, "strategy": Banded([1.0])}, "rounds must be"),
    ],
)
def test_refusals_name_the_argument(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "strategy": np.eye(2),
        "rounds": 2,
        "noise_multiplier": 1.0,
        "sampling_rate": 0.1,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        MMCC(**args)  # type: ignore[arg-type]


def test_delta_refused_outside_unit_interval() -> None:
    run = MMCC(strategy=np.eye(2), rounds=2, noise_multiplier=1.0, sampling_rate=0.1)
    with pytest.raises(ValueError, match="delta must lie"):
        run.get_epsilon(1.0)


def test_dpftrl_poisson_words_use_mmcc() -> None:
    """DPFTRL(sampling="poisson") is cyclic Poisson with one group; its certified upper epsilon is the smaller of
    the Gaussian at every-round participation and MMCC's, labelled amplified; the refusals name the argument."""
    band = Banded([1.0, 0.5, 0.25])
    run = DPFTRL(
        rounds=32, noise_multiplier=4.0, strategy=band, sampling="poisson", sampling_rate=0.02
    )
    same = DPFTRL(
        rounds=32,
        noise_multiplier=4.0,
        strategy=band,
        participation="cyclic_poisson",
        min_separation=1,
        sampling_rate=0.02,
    )
    alone = MMCC(
        strategy=band, rounds=32, noise_multiplier=4.0, sampling_rate=0.02, lower_side=False
    )
    answer = alone.get_epsilon(1e-6)
    assert run.epsilon(1e-6) == same.epsilon(1e-6) == answer.upper < answer.unamplified
    assert run.sampled is not None and run.sampled.upper_kind == "amplified"
    lower, upper = run.epsilon(1e-6, bound="both")
    assert 0.0 < lower <= upper
    assert run.delta(upper) <= 1e-6 * (1 + 1e-9) or run.delta(upper) <= alone.delta(upper)
    with pytest.raises(ValueError, match="sampling='poisson' sets the participation"):
        DPFTRL(
            rounds=8,
            noise_multiplier=1.0,
            strategy=band,
            sampling="poisson",
            sampling_rate=0.1,
            min_separation=2,
        )
    with pytest.raises(ValueError, match="sampling must be"):
        unknown: Any = "uniform"
        DPFTRL(rounds=8, noise_multiplier=1.0, strategy=band, sampling=unknown, sampling_rate=0.1)


def test_signed_c_keeps_the_unamplified_label() -> None:
    """Cyclic Poisson with one group and a C with a negative entry: MMCC does not apply, the upper side stays the
    Gaussian at the schema, labelled unamplified."""
    c = np.tril(np.ones((6, 6))) - 1.5 * np.eye(6, k=-1)
    run = DPFTRL(rounds=6, noise_multiplier=2.0, strategy=c, sampling="poisson", sampling_rate=0.1)
    assert (
        run.sampled is not None
        and run.sampled.mmcc is None
        and run.sampled.upper_kind == "unamplified"
    )


def test_calibrated_noise_meets_the_target_through_mmcc(capsys: pytest.CaptureFixture[str]) -> None:
    """The command line's calibration under i.i.d. Poisson (cyclic Poisson, one group) returns a noise multiplier
    whose certified upper epsilon, MMCC's there, meets the target, one 1% smaller does not, and it is below the
    multiplier the bound without amplification needs."""
    argv = [
        "calibrate",
        "dp_ftrl_banded",
        "--coefficients",
        "1,0.5",
        "--rounds",
        "8",
        "--min-separation",
        "1",
    ]
    argv += [
        "--participation",
        "cyclic_poisson",
        "--sampling-rate",
        "0.05",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
    ]
    assert main([*argv, "--format", "json"]) == 0
    z = float(json.loads(capsys.readouterr().out)["noise_multiplier"])

    def run(noise: float) -> DPFTRL:
        return DPFTRL(
            rounds=8,
            noise_multiplier=noise,
            strategy=Banded([1.0, 0.5]),
            sampling="poisson",
            sampling_rate=0.05,
        )

    assert run(z).epsilon(1e-5) <= 1.0 < run(z * 0.99).epsilon(1e-5)
    assert run(z).sampled is not None and run(z).sampled.mmcc is not None  # type: ignore[union-attr]
    assert (
        MMCC(strategy=Banded([1.0, 0.5]), rounds=8, noise_multiplier=z, sampling_rate=0.05)
        .get_epsilon(1e-5)
        .unamplified
        > 1.0
    )
