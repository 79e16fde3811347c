"""Simulator throughput: one noisy FedAvg round in numba (prange over clients) against the same
round vectorized in numpy, in client-steps per second; first-call compile time; peak memory.

    HOCKEYSTICK_BENCH_FULL=1 pytest bench/bench_simulate.py --benchmark-enable --benchmark-only
        K = 10^4 clients, d = 100, 5 local steps, batch 1, logistic regression (short: 200 x 10).
    python bench/bench_simulate.py --full-run
        the whole K = 10^4, d = 100, T = 10^4 run, with its progress bar, wall time and peak RSS.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest
from ratio import Pair, Size, ratio

import hockeystick.simulate as sim
from hockeystick.simulate.fedavg import average_local_models
from hockeystick.simulate.models import LOGISTIC
from hockeystick.simulate.randomness import NOISE, SAMPLING, ClientStreams, generator

LOCAL_STEPS = 5
SAMPLES_PER_CLIENT = 10
RATE, CLIP, SIGMA = 0.1, 1.0, 0.05


def problem(clients: int, d: int):
    data = sim.synthetic(
        "logistic",
        clients,
        SAMPLES_PER_CLIENT,
        d,
        label_concentration=0.5,
        feature_shift=0.2,
        seed=0,
    )
    u = generator(0, SAMPLING).random((clients, LOCAL_STEPS, 1))
    z = generator(0, NOISE).standard_normal(
        d
    )  # the round's aggregate noise (mean of the uploads' noise)
    return data, u, z


def numpy_round(w, data, norms, uniforms, etas, clip, noise, sigma):
    """The same FedAvg round, vectorized over clients with numpy (one array op per local step); the
    uploads' noise enters through its mean, sigma/sqrt(m) z, as in the simulator."""
    sizes = np.diff(data.offsets)
    local = np.repeat(w[None, :], data.n_clients, axis=0)
    for k in range(etas.shape[0]):
        rows = data.offsets[:-1] + np.minimum(
            (uniforms[:, k, 0] * sizes).astype(np.int64), sizes - 1
        )
        x = data.features[rows]
        z = np.einsum("ij,ij->i", local, x)
        c = 1.0 / (1.0 + np.exp(-z)) - data.labels[rows]
        g_norm = np.abs(c) * norms[rows]
        c *= np.where(g_norm > clip, clip / np.where(g_norm > 0, g_norm, 1.0), 1.0)
        local -= etas[k] * c[:, None] * x
    return local.mean(axis=0) + (sigma / np.sqrt(data.n_clients)) * noise


def numba_round(w, data, norms, uniforms, etas, clip, noise, sigma):
    mean = average_local_models(
        LOGISTIC, 1, w, data.features, norms, data.labels, data.offsets, uniforms, etas, 0.0, clip
    )
    return mean + (sigma / np.sqrt(data.n_clients)) * noise


@pytest.fixture
def fedavg_problem(size):
    clients, d = size(10_000, 200), size(100, 10)
    data, u, z = problem(clients, d)
    return data, data.row_norms, u, z, np.full(LOCAL_STEPS, RATE)


def record(benchmark, client_steps: int) -> None:
    stats = getattr(benchmark, "stats", None)
    if stats is not None and stats.stats.rounds:
        benchmark.extra_info["client_steps_per_second"] = client_steps / stats.stats.min


def test_fedavg_round_numba(benchmark, fedavg_problem):
    data, norms, u, z, etas = fedavg_problem
    w = np.full(data.n_features, 0.01)
    numba_round(w, data, norms, u, etas, CLIP, z, SIGMA)  # compile outside the timing
    out = benchmark(numba_round, w, data, norms, u, etas, CLIP, z, SIGMA)
    np.testing.assert_allclose(
        out, numpy_round(w, data, norms, u, etas, CLIP, z, SIGMA), rtol=1e-12, atol=1e-13
    )
    record(benchmark, data.n_clients * LOCAL_STEPS)


def test_fedavg_round_numpy(benchmark, fedavg_problem):
    data, norms, u, z, etas = fedavg_problem
    w = np.full(data.n_features, 0.01)
    benchmark(numpy_round, w, data, norms, u, etas, CLIP, z, SIGMA)
    record(benchmark, data.n_clients * LOCAL_STEPS)


def test_round_randomness(benchmark, fedavg_problem):
    """Drawing one round's random numbers: every client's minibatch uniforms (per-block streams, on
    every thread) and the d-vector of aggregate upload noise."""
    data = fedavg_problem[0]
    import numba

    sampling = ClientStreams(1, SAMPLING, data.n_clients, numba.get_num_threads())
    noising = generator(1, NOISE)
    u = np.empty((data.n_clients, LOCAL_STEPS, 1))
    benchmark(
        lambda: (sampling.random((LOCAL_STEPS, 1), out=u), noising.standard_normal(data.n_features))
    )
    sampling.close()


@pytest.mark.skipif(
    os.environ.get("HOCKEYSTICK_BENCH_FULL") != "1",
    reason="compiles every kernel from scratch in a subprocess: measured runs only",
)
def test_first_call_compile_time(benchmark):
    """First call of every kernel with an empty numba cache, then with the cache filled (cache=True)."""
    code = (
        "import time; t = time.perf_counter(); import numpy as np, hockeystick.simulate as sim; "
        "d = sim.synthetic('softmax', 8, 4, 3, n_classes=3); "
        "sim.noisy_fedavg(d, rounds=1, local_steps=1, rate=0.1); "
        "sim.trusted_aggregator(d, batch=2, rate=0.1, sigma=1.0, radius=1.0); "
        "sim.isrl_local_sgd(d, rounds=1, local_steps=1, rate=0.1, sigma=1.0, clip=1.0); "
        "sim.isrl_minibatch_sgd(d, rounds=1, batch=1, rate=0.1, sigma=1.0, clip=1.0); "
        "sim.pnsgd_final_iterates(d, rate=0.1, scale=1.0, diameter=1.0, replicas=2); "
        "print(time.perf_counter() - t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)

        def first_call() -> float:
            return float(
                subprocess.run(
                    [sys.executable, "-c", code],
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
            )

        cold = first_call()
        warm = benchmark.pedantic(first_call, rounds=1, iterations=1)
    benchmark.extra_info["compile_seconds_cold_cache"] = cold
    benchmark.extra_info["import_and_first_calls_seconds_warm_cache"] = warm


@ratio(
    "simulate_fedavg_round",
    title="one noisy FedAvg round, K = 10^4 clients (short: 2000), d = 100, 5 local steps, numba on 1 thread",
    anchor="the same round vectorized in numpy",
    table="simulate",
    unit="client-steps",
    clock="cpu",
)
def simulate_fedavg_round(size: Size) -> Pair:
    """Per core: numba's prange round on one thread against numpy's, identical inputs and result (one thread,
    because idle prange workers waiting at the barrier would count as CPU time on a loaded machine)."""
    import numba

    clients = 10_000 if size == "full" else 2_000
    data, u, z = problem(clients, 100)
    norms, etas = data.row_norms, np.full(LOCAL_STEPS, RATE)
    w = np.full(data.n_features, 0.01)

    def check(ours: np.ndarray, theirs: np.ndarray) -> None:
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)

    def ours() -> np.ndarray:
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            return numba_round(w, data, norms, u, etas, CLIP, z, SIGMA)
        finally:
            numba.set_num_threads(threads)

    steps = clients * LOCAL_STEPS
    return Pair(
        ours=ours,
        anchor=lambda: numpy_round(w, data, norms, u, etas, CLIP, z, SIGMA),
        ours_items=steps,
        anchor_items=steps,
        check=check,
    )


FULL_BATCH_SAMPLES, FULL_BATCH_STEPS = 8, 2


def numpy_full_batch_round(w, data, norms, etas, clip, noise, sigma):
    """The full-batch FedAvg round vectorized over clients in numpy: every row's clipped gradient
    coefficient in one array op per local step, each client's mean gradient by np.add.reduceat over its
    row segment; the uploads' noise enters through its mean, sigma/sqrt(m) z, as in the simulator."""
    sizes = np.diff(data.offsets)
    owner = np.repeat(np.arange(data.n_clients), sizes)
    x, starts = data.features, data.offsets[:-1]
    local = np.repeat(w[None, :], data.n_clients, axis=0)
    for eta in etas:
        c = 1.0 / (1.0 + np.exp(-np.einsum("ij,ij->i", local[owner], x))) - data.labels
        g_norm = np.abs(c) * norms
        c *= np.where(g_norm > clip, clip / np.where(g_norm > 0, g_norm, 1.0), 1.0) / sizes[owner]
        local -= eta * np.add.reduceat(c[:, None] * x, starts, axis=0)
    return local.mean(axis=0) + (sigma / np.sqrt(data.n_clients)) * noise


def full_batch_round(size: Size, dtype: str) -> Pair:
    """Per core: numba's round on one thread (features stored as ``dtype``) against numpy's float64 round on
    identical inputs; float64 results equal to rounding, float32 ones to the features' rounding."""
    import numba

    clients = 10_000 if size == "full" else 2_000
    data = sim.synthetic(
        "logistic",
        clients,
        FULL_BATCH_SAMPLES,
        100,
        label_concentration=0.5,
        feature_shift=0.2,
        seed=0,
    )
    z = generator(0, NOISE).standard_normal(data.n_features)
    norms, etas = data.row_norms, np.full(FULL_BATCH_STEPS, RATE)
    w = np.full(data.n_features, 0.01)
    full_batch = np.empty((clients, FULL_BATCH_STEPS, 0))
    stored = data.astype(dtype)

    def check(ours: np.ndarray, theirs: np.ndarray) -> None:
        tight = dtype == "float64"
        np.testing.assert_allclose(
            ours, theirs, rtol=1e-12 if tight else 1e-5, atol=1e-13 if tight else 1e-7
        )

    def ours() -> np.ndarray:
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            mean = average_local_models(
                LOGISTIC,
                1,
                w,
                stored.features,
                norms,
                data.labels,
                data.offsets,
                full_batch,
                etas,
                0.0,
                CLIP,
            )
            return mean + (SIGMA / np.sqrt(data.n_clients)) * z
        finally:
            numba.set_num_threads(threads)

    steps = clients * FULL_BATCH_STEPS
    return Pair(
        ours=ours,
        anchor=lambda: numpy_full_batch_round(w, data, norms, etas, CLIP, z, SIGMA),
        ours_items=steps,
        anchor_items=steps,
        check=check,
    )


@ratio(
    "simulate_fedavg_full_batch_round",
    title="one noisy FedAvg round, K = 10^4 clients (short: 2000) x 8 "
    "samples, d = 100, 2 local full-batch steps, numba on 1 thread",
    anchor="the same round in numpy (np.add.reduceat over client segments)",
    table="simulate",
    unit="client-steps",
    clock="cpu",
    goal=8.0,
)
def simulate_fedavg_full_batch_round(size: Size) -> Pair:
    """float64 features on both sides (results equal to rounding)."""
    return full_batch_round(size, "float64")


@ratio(
    "simulate_fedavg_full_batch_round_float32",
    title='the same round with the simulator\'s features stored as float32 (dtype="float32")',
    anchor="numpy's float64 round",
    table="simulate",
    unit="client-steps",
    clock="cpu",
    goal=8.0,
)
def simulate_fedavg_full_batch_round_float32(size: Size) -> Pair:
    """float32 features for the simulator (computed in float64), float64 for numpy."""
    return full_batch_round(size, "float32")


def full_run(clients: int, d: int, rounds: int) -> None:
    data = sim.synthetic(
        "logistic",
        clients,
        SAMPLES_PER_CLIENT,
        d,
        label_concentration=0.5,
        feature_shift=0.2,
        seed=0,
    )
    start = time.perf_counter()
    run = sim.noisy_fedavg(
        data,
        rounds=rounds,
        local_steps=LOCAL_STEPS,
        rate=RATE,
        clip=CLIP,
        sigma=SIGMA,
        every=max(1, rounds // 10),
        progress=True,
    )
    wall = time.perf_counter() - start
    steps = clients * rounds * LOCAL_STEPS
    print(run.summary(1e-5))
    print(
        f"clients {clients}, d {d}, rounds {rounds}, local steps {LOCAL_STEPS}: {wall:.1f} s, "
        f"{steps / wall:.3g} client-steps/s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full-run", action="store_true")
    parser.add_argument("--clients", type=int, default=10_000)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10_000)
    args = parser.parse_args()
    if args.full_run:
        full_run(args.clients, args.d, args.rounds)
