"""f-DP / GDP and RDP benchmarks: 10^6-point FedAvg grids, against straightforward numpy and dp_accounting.

Full sizes:  HOCKEYSTICK_BENCH_FULL=1 pytest bench/bench_fdp.py --benchmark-enable --benchmark-only
CI runs each body once at the short size.  The per-point baselines (a Python loop over grid points,
each a numpy evaluation of eq. 12-16, and dp_accounting's RdpAccountant in a loop) are timed on a
slice of the grid and reported per point in ``extra_info``, to be scaled to the grid's size.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from ratio import Pair, Size, ratio

from hockeystick.fdp import NoisyFedAvg
from hockeystick.rdp import SubsampledGaussianRDP


def fedavg_grid(n_points: int, schedule: str, max_rounds: int) -> dict[str, np.ndarray]:
    """A random grid over (sigma, T, K, m, V, a) with L = 1, n_points long."""
    rng = np.random.default_rng(0)
    return dict(
        clients=rng.integers(2, 200, n_points).astype(float),
        sigma=rng.uniform(0.3, 5.0, n_points),
        clip=rng.uniform(0.1, 10.0, n_points),
        lipschitz=np.ones(n_points),
        learning_rate=10 ** rng.uniform(-4, -1, n_points),
        local_steps=rng.integers(1, 20, n_points).astype(float),
        rounds=rng.integers(1, max_rounds, n_points).astype(float),
        schedule=schedule,
    )


def numpy_engine_mu(p: dict[str, np.ndarray], i: int) -> tuple[float, float]:
    """The straightforward implementation of one point: eta matrix, rho_t, gamma_t, P_t, eq. 16 and composition."""
    T, K = int(p["rounds"][i]), int(p["local_steps"][i])
    a, L, V, m, sigma = (
        p[k][i] for k in ("learning_rate", "lipschitz", "clip", "clients", "sigma")
    )
    t = np.arange(T)[:, None]
    k = np.arange(K)[None, :]
    eta = {"constant": np.full((T, K), a), "stagewise": a / (t + 1) + 0 * k}[p["schedule"]]
    rho = np.prod(1 + eta * L, axis=1)
    gamma = 2 * V / m * eta.sum(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):  # the straightforward way overflows: NaN
        P = np.append(np.cumprod(rho[:0:-1])[::-1], 1.0)  # P_t = prod_{j>t} rho_j
        h0 = (P @ gamma) ** 2 / (P @ P)
    return np.sqrt(m * h0) / sigma, np.sqrt(m * np.sum(gamma**2)) / sigma


def naive_eq17(p: dict[str, np.ndarray]) -> np.ndarray:
    """eq. 17 typed in directly, vectorized: overflows (NaN) once (1 + aL)^{KT} passes 1e308."""
    a, L, K, T, V, m, s = (
        p[k]
        for k in ("learning_rate", "lipschitz", "local_steps", "rounds", "clip", "clients", "sigma")
    )
    r = (1 + a * L) ** K
    with np.errstate(over="ignore", invalid="ignore"):
        return (
            2 * a * V * K / (np.sqrt(m) * s) * np.sqrt((r + 1) / (r - 1) * (r**T - 1) / (r**T + 1))
        )


def time_per_point(fn, p: dict[str, np.ndarray], n: int) -> float:
    start = time.perf_counter()
    for i in range(n):
        fn(p, i)
    return (time.perf_counter() - start) / n


@pytest.mark.parametrize("schedule,max_rounds", [("constant", 10_000), ("stagewise", 1_000)])
def test_fedavg_grid(benchmark, size, schedule: str, max_rounds: int) -> None:
    n = size(1_000_000, 2_000)
    p = fedavg_grid(n, schedule, max_rounds)

    def run() -> np.ndarray:
        # interpolation="h0" (the paper's number, not a valid bound for constant rates) matches the numpy
        # baseline's eq. 16; the constructor computes every mu, so the valid default costs the same.
        acct = NoisyFedAvg(**p)
        return acct.delta(1.0, interpolation="h0")

    delta = benchmark.pedantic(run, rounds=3 if n > 10_000 else 1, iterations=1)
    assert delta.shape == (n,) and np.isfinite(delta).all()
    acct = NoisyFedAvg(**p)
    sample = size(300, 20)
    per_point = time_per_point(numpy_engine_mu, p, sample)
    checked = size(50, 10)
    ref = np.array([numpy_engine_mu(p, i) for i in range(checked)])
    finite = np.isfinite(ref[:, 0])
    err = np.abs(acct.mu_paper_h0[:checked][finite] / ref[finite, 0] - 1).max()
    benchmark.extra_info.update(
        points=n,
        numpy_loop_seconds_per_point=per_point,
        numpy_loop_extrapolated_seconds=per_point * n,
        max_rel_diff_vs_numpy=float(err),
    )
    if schedule == "constant":
        naive = naive_eq17(p)
        benchmark.extra_info["naive_eq17_nan_fraction"] = float(np.mean(~np.isfinite(naive)))
        ok = np.isfinite(naive)
        benchmark.extra_info["naive_eq17_max_rel_diff"] = float(
            np.abs(naive[ok] / acct.mu_paper_h0[ok] - 1).max()
        )


def test_naive_eq17_grid(benchmark, size) -> None:
    """The vectorized eq. 17 typed in directly: the speed floor, and how often it returns NaN."""
    p = fedavg_grid(size(1_000_000, 2_000), "constant", 10_000)
    benchmark.pedantic(naive_eq17, args=(p,), rounds=3, iterations=1)


def test_rdp_sigma_sweep(benchmark, size) -> None:
    """W4 with RDP: q = 0.01, T = 10^4, delta = 1e-5, many sigma in one call vs a dp_accounting loop."""
    dpa = pytest.importorskip("dp_accounting")
    sigma = np.linspace(0.5, 5.0, size(1000, 20))

    def run() -> np.ndarray:
        return SubsampledGaussianRDP(sigma=sigma, sampling_rate=0.01, rounds=10_000).epsilon(1e-5)

    eps = benchmark.pedantic(run, rounds=1, iterations=1)
    looped = sigma[: size(20, 2)]
    start = time.perf_counter()
    ref = []
    for s in looped:
        acct = dpa.rdp.RdpAccountant()
        acct.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(float(s))), 10_000)
        ref.append(acct.get_epsilon(1e-5))
    per_sigma = (time.perf_counter() - start) / looped.size
    benchmark.extra_info.update(
        sigmas=sigma.size,
        dp_accounting_seconds_per_sigma=per_sigma,
        dp_accounting_extrapolated_seconds=per_sigma * sigma.size,
        max_rel_diff=float(np.abs(eps[: looped.size] / np.array(ref) - 1).max()),
    )


# ---- ratio benchmarks (bench/run.py; gated in CI) -------------------------------------------------


def _fedavg_pair(size: Size, schedule: str, max_rounds: int) -> Pair:
    n, looped = (1_000_000, 300) if size == "full" else (2_000, 20)
    p = fedavg_grid(n, schedule, max_rounds)

    def ours() -> np.ndarray:
        return NoisyFedAvg(**p).mu_paper_h0

    def anchor() -> np.ndarray:
        return np.array([numpy_engine_mu(p, i)[0] for i in range(looped)])

    def check(mu: np.ndarray, ref: np.ndarray) -> None:
        ok = np.isfinite(ref)
        np.testing.assert_allclose(mu[:looped][ok], ref[ok], rtol=1e-9)

    return Pair(ours=ours, anchor=anchor, ours_items=n, anchor_items=looped, check=check)


@ratio(
    "fdp_fedavg_constant",
    title="noisy FedAvg μ (paper 004 eq. 16 and the valid μ), constant rate, random "
    "(σ, T ≤ 10^4, K, m, V, a) grid of 10^6 points (short: 2000)",
    anchor="straightforward numpy per point (η matrix, ρ_t, γ_t, P_t), looped over 300 points (short: 20)",
    table="fdp",
    unit="points",
    clock="cpu",
)
def fdp_fedavg_constant(size: Size) -> Pair:
    return _fedavg_pair(size, "constant", 10_000)


@ratio(
    "fdp_fedavg_stagewise",
    title="noisy FedAvg μ, stage-wise rate, T ≤ 1000, 10^6 points (short: 2000)",
    anchor="straightforward numpy per point, looped over 300 points (short: 20)",
    table="fdp",
    unit="points",
    clock="cpu",
)
def fdp_fedavg_stagewise(size: Size) -> Pair:
    return _fedavg_pair(size, "stagewise", 1_000)


@ratio(
    "rdp_sigma_sweep",
    title="RDP ε, q = 0.01, T = 10^4, δ = 1e-5, 1000 σ in [0.5, 5] in one call (short: 20)",
    anchor="dp_accounting `RdpAccountant`, looped (20 σ; short: 2)",
    table="fdp",
    unit="σ",
    clock="cpu",
)
def rdp_sigma_sweep(size: Size) -> Pair:
    import dp_accounting

    sigma = np.linspace(0.5, 5.0, 1000 if size == "full" else 20)
    looped = sigma[:: sigma.size // (20 if size == "full" else 2)]

    def anchor() -> list[float]:
        out = []
        for s in looped:
            acct = dp_accounting.rdp.RdpAccountant()
            acct.compose(
                dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(float(s))),
                10_000,
            )
            out.append(acct.get_epsilon(1e-5))
        return out

    def check(eps: np.ndarray, ref: list[float]) -> None:
        np.testing.assert_allclose(eps[np.searchsorted(sigma, looped)], ref, rtol=1e-9)

    return Pair(
        ours=lambda: SubsampledGaussianRDP(sigma=sigma, sampling_rate=0.01, rounds=10_000).epsilon(
            1e-5
        ),
        anchor=anchor,
        ours_items=sigma.size,
        anchor_items=looped.size,
        check=check,
    )
