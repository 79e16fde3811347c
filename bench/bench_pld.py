"""PLD discretization, composition and evaluation (pytest-benchmark).

Full sizes (HOCKEYSTICK_BENCH_FULL=1) are the workloads W1-W3 (bench/README.md,
docs/references.md); CI runs each body once at a short size.  The side-by-side
comparison with dp_accounting and prv_accountant, one fresh process per row with peak
memory, is bench/compare_pld.py; the ratio benchmarks at the end (bench/run.py, gated in
CI) time hockeystick and the anchor interleaved in one process, CPU time, warm.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from ratio import Pair, Size, ratio

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.refine import round_cache


def test_discretize_subsampled_gaussian(benchmark, size):
    """Both directions, both sides, of the q = 0.01, sigma = 1 PLD at h = 1e-4 (short: 1e-3)."""
    h = 1e-4 if size(1, 0) else 1e-3
    out = benchmark(lambda: pld.subsampled_gaussian(1.0, 0.01, value_discretization_interval=h))
    assert len(out.directions) == 2


def test_w1_gaussian_pld_bracket(benchmark, size):
    """W1 through the PLD machinery (not the closed form): sigma = 1, T = 1000 (short: 50), h = 1e-3."""
    rounds = size(1000, 50)
    result = benchmark(
        lambda: (
            pld.gaussian(1.0, value_discretization_interval=1e-3)
            .self_compose(rounds)
            .epsilon(1e-5, bound="both")
        )
    )
    assert result[0] <= result[1]


def test_w2_subsampled_gaussian_bracket(benchmark, size):
    """W2: q = 0.01, sigma = 1, T = 10^4 (short: 100), both bounds at h = 1.5e-4 (short: 1e-3)."""
    rounds, h = size(10_000, 100), (1.5e-4 if size(1, 0) else 1e-3)
    result = benchmark(
        lambda: pld.SubsampledGaussianPLD(
            sigma=1.0, sampling_rate=0.01, rounds=rounds, value_discretization_interval=h
        ).epsilon(1e-5, bound="both")
    )
    assert result[0] <= result[1]


def test_w3_subsampled_gaussian_upper(benchmark, size):
    """W3: q = 0.001, sigma = 0.8, T = 10^5 (short: 1000), upper bound at h = 1e-4 (short: 1e-3)."""
    rounds, h = size(100_000, 1000), (1e-4 if size(1, 0) else 1e-3)
    result = benchmark(
        lambda: pld.SubsampledGaussianPLD(
            sigma=0.8, sampling_rate=0.001, rounds=rounds, value_discretization_interval=h
        ).epsilon(1e-5)
    )
    assert result > 0


def test_hockey_stick_many_epsilons(benchmark, size):
    """delta(eps) of a composed PMF at 10^6 epsilons (short: 10^4): O(grid + n_eps)."""
    composed = (
        pld.gaussian(1.0, value_discretization_interval=1e-3).self_compose(100).composed(True)[0]
    )
    eps = np.linspace(0, 60, size(1_000_000, 10_000))
    out = benchmark(
        lambda: _core.pld_reads.delta(
            composed.p,
            k_lo=composed.k_lo,
            h=composed.h,
            p_inf=composed.p_inf,
            epsilon=eps,
            threads=0,
        )
    )
    assert np.all(np.diff(out) <= 0)


@pytest.mark.parametrize("h", [1e-3, 1e-4])
def test_w4_sigma_sweep_upper(benchmark, size, h):
    """W4: W2 for 1000 sigmas in [0.5, 5] (short: 8 sigmas, T = 100), upper bound at h (short: 1e-3).

    Discretization is batched across sigmas (one C++ call per chunk of up to 64 points), and so
    are the FFTs (one row-wise transform per FFT length in a chunk)."""
    sigmas, rounds = np.linspace(0.5, 5.0, size(1000, 8)), size(10_000, 100)
    h = h if size(1, 0) else 1e-3
    result = benchmark.pedantic(
        lambda: pld.SubsampledGaussianPLD(
            sigma=sigmas, sampling_rate=0.01, rounds=rounds, value_discretization_interval=h
        ).epsilon(1e-5),
        rounds=1,
        iterations=1,
    )
    assert np.all(np.diff(result) <= 0)


def test_isrl_with_replacement_bracket(benchmark, size):
    """Paper 003's silo message (batches drawn with replacement, replace-one): n = 1238, K = 128,
    sigma = 0.0340 L (its App. I calibration for eps = 1.5 at R = 35), R = 35 rounds (short: 5),
    both bounds at delta = 1/n^2, h = 1e-4 (short: 1e-3)."""
    n, K, sigma = 1238, 128, 0.03401
    rounds, h = size(35, 5), (1e-4 if size(1, 0) else 1e-3)
    result = benchmark.pedantic(
        lambda: (
            pld.with_replacement_subsampled_gaussian(
                sigma, K, n, sensitivity=1.0 / K, value_discretization_interval=h
            )
            .self_compose(rounds)
            .epsilon(1.0 / n**2, bound="both")
        ),
        rounds=1,
        iterations=1,
    )
    assert result[0] <= result[1]


# ---- ratio benchmarks against dp_accounting and prv_accountant (W1-W4) ----------------------------

DELTA = 1e-5


def _dp_accounting_epsilon(sigma: float, q: float, rounds: int, h: float) -> float:
    """dp_accounting's PLDAccountant (connect-the-dots pessimistic PMF, no certified round-off charge)."""
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=h)
    event = dp_accounting.GaussianDpEvent(sigma)
    if q < 1:
        event = dp_accounting.PoissonSampledDpEvent(q, event)
    acc.compose(event, rounds)
    return float(acc.get_epsilon(DELTA))


def _upper_near(slack: float) -> Callable[[object, object], None]:
    """Our certified upper bound is at or above the anchor's estimate minus its own slack, and near it."""

    def check(ours: object, theirs: object) -> None:
        up = (
            np.asarray(ours)[..., -1]
            if np.ndim(ours) and np.shape(ours)[-1] == 2
            else np.asarray(ours)
        )
        theirs = np.asarray(theirs, dtype=float)
        up = up if up.shape == theirs.shape else up[: theirs.size]
        assert np.all(up >= theirs - slack) and np.all(np.abs(up - theirs) <= slack), (up, theirs)

    return check


@ratio(
    "pld_w1_gaussian",
    title="W1: Gaussian σ = 1, T = 1000 (short: 50), certified bracket through the PLD, h = 1e-3",
    anchor="dp_accounting PLDAccountant, h = 1e-4 (short: 1e-3)",
    table="pld",
    unit="runs",
    clock="cpu",
)
def pld_w1_gaussian(size: Size) -> Pair:
    rounds, h_dp = (1000, 1e-4) if size == "full" else (50, 1e-3)

    def ours() -> tuple[float, float]:
        return (
            pld.gaussian(1.0, value_discretization_interval=1e-3)
            .self_compose(rounds)
            .epsilon(DELTA, bound="both")
        )

    def check(bracket: tuple[float, float], theirs: float) -> None:
        assert bracket[0] <= bracket[1] and abs(bracket[1] - theirs) <= 1e-3 * theirs, (
            bracket,
            theirs,
        )

    return Pair(
        ours=ours, anchor=lambda: _dp_accounting_epsilon(1.0, 1.0, rounds, h_dp), check=check
    )


@ratio(
    "pld_w2_both_sides",
    title="W2: q = 0.01, σ = 1, T = 10^4, both certified sides at h = 3e-4 (bracket ≤ 1e-3)",
    anchor="dp_accounting PLDAccountant, h = 1e-4 (upper estimate only)",
    table="pld",
    unit="runs",
    clock="cpu",
    goal=10.0,
)
def pld_w2_both_sides(size: Size) -> Pair:
    def ours() -> tuple[float, float]:
        round_cache.clear()  # every call pays its discretization, as the anchor does
        return pld.SubsampledGaussianPLD(
            sigma=1.0, sampling_rate=0.01, rounds=10_000, value_discretization_interval=3e-4
        ).epsilon(DELTA, bound="both")

    def check(bracket: tuple[float, float], theirs: float) -> None:
        assert bracket[0] <= theirs <= bracket[1] and bracket[1] - bracket[0] <= 1e-3, (
            bracket,
            theirs,
        )

    return Pair(
        ours=ours, anchor=lambda: _dp_accounting_epsilon(1.0, 0.01, 10_000, 1e-4), check=check
    )


@ratio(
    "pld_w2_vs_prv",
    title="W2, both certified sides at h = 3e-4 (bracket ≤ 1e-3)",
    anchor="prv_accountant, eps_error 0.1 (bracket 0.2)",
    table="pld",
    unit="runs",
    clock="cpu",
)
def pld_w2_vs_prv(size: Size) -> Pair:
    from prv_accountant import Accountant

    def ours() -> tuple[float, float]:
        round_cache.clear()  # every call pays its discretization, as the anchor does
        return pld.SubsampledGaussianPLD(
            sigma=1.0, sampling_rate=0.01, rounds=10_000, value_discretization_interval=3e-4
        ).epsilon(DELTA, bound="both")

    def anchor() -> tuple[float, float, float]:
        acc = Accountant(
            noise_multiplier=1.0,
            sampling_probability=0.01,
            delta=DELTA,
            eps_error=0.1,
            max_compositions=10_000,
        )
        return acc.compute_epsilon(num_compositions=10_000)

    def check(bracket: tuple[float, float], theirs: tuple[float, float, float]) -> None:
        assert theirs[0] <= bracket[0] <= bracket[1] <= theirs[2], (bracket, theirs)

    return Pair(ours=ours, anchor=anchor, check=check)


@ratio(
    "pld_w3_accuracy",
    title="W3: q = 0.001, σ = 0.8, T = 10^5 (short: 10^4), certified bracket through accuracy=1e-3",
    anchor="dp_accounting PLDAccountant, h = 1e-4 (upper estimate only)",
    table="pld",
    unit="runs",
    clock="cpu",
    goal=30.0,
)
def pld_w3_accuracy(size: Size) -> Pair:
    """G3b: the bracket a user gets from ``accuracy=`` (grid and truncations chosen for them)."""
    rounds = 100_000 if size == "full" else 10_000

    def ours() -> tuple[float, float]:
        round_cache.clear()  # every call pays its discretization, as the anchor does
        return pld.SubsampledGaussianPLD(
            sigma=0.8, sampling_rate=0.001, rounds=rounds, accuracy=1e-3
        ).epsilon(DELTA, bound="both")

    def check(bracket: tuple[float, float], theirs: float) -> None:
        # theirs is a pessimistic estimate: at or above the truth, so at or above a certified lower bound
        assert bracket[0] <= theirs and 0.0 <= bracket[1] - bracket[0] <= 1e-3, (bracket, theirs)

    return Pair(
        ours=ours, anchor=lambda: _dp_accounting_epsilon(0.8, 0.001, rounds, 1e-4), check=check
    )


@ratio(
    "pld_w3_upper",
    title="W3: q = 0.001, σ = 0.8, T = 10^5 (short: 10^4), upper bound at h = 1e-4",
    anchor="dp_accounting PLDAccountant, h = 1e-4",
    table="pld",
    unit="runs",
    clock="cpu",
)
def pld_w3_upper(size: Size) -> Pair:
    rounds = 100_000 if size == "full" else 10_000

    def ours() -> float:
        round_cache.clear()  # every call pays its discretization, as the anchor does
        return pld.SubsampledGaussianPLD(
            sigma=0.8, sampling_rate=0.001, rounds=rounds, value_discretization_interval=1e-4
        ).epsilon(DELTA)

    return Pair(
        ours=ours,
        anchor=lambda: _dp_accounting_epsilon(0.8, 0.001, rounds, 1e-4),
        check=_upper_near(1e-3),
    )


def _w4(size: Size, h: float) -> Pair:
    """W2 for many σ in [0.5, 5]: one hockeystick call for all of them, dp_accounting looped over a spread subset."""
    sigmas = np.linspace(0.5, 5.0, 1000 if size == "full" else 16)
    looped = sigmas[
        np.unique(np.linspace(0, sigmas.size - 1, 40 if size == "full" else 4).round().astype(int))
    ]

    def ours() -> np.ndarray:
        round_cache.clear()  # every call pays its discretizations, as the anchor does
        return pld.SubsampledGaussianPLD(
            sigma=sigmas, sampling_rate=0.01, rounds=10_000, value_discretization_interval=h
        ).epsilon(DELTA)

    def anchor() -> list[float]:
        return [_dp_accounting_epsilon(float(s), 0.01, 10_000, h) for s in looped]

    def check(ups: np.ndarray, theirs: list[float]) -> None:
        mine = ups[np.searchsorted(sigmas, looped)]
        assert np.all(mine >= np.asarray(theirs) - 1e-9) and np.all(
            mine - np.asarray(theirs) <= 1e-4
        ), (mine, theirs)

    return Pair(
        ours=ours, anchor=anchor, ours_items=sigmas.size, anchor_items=looped.size, check=check
    )


@ratio(
    "pld_w4_sweep_1e-3",
    title="W4: W2 for 1000 σ in [0.5, 5] (short: 16), upper bound, equal grid h = 1e-3",
    anchor="dp_accounting PLDAccountant h = 1e-3 in a loop (40 σ; short: 4)",
    table="pld",
    unit="σ",
    clock="cpu",
    goal=20.0,
)
def pld_w4_sweep_coarse(size: Size) -> Pair:
    return _w4(size, 1e-3)
