"""Contraction bounds on big grids: hockeystick (1 and 2 threads) against numpy/scipy.

Workloads (full size with HOCKEYSTICK_BENCH_FULL=1, a smoke size in CI):
  delta grid    000 Thm 2, constant schedule, on a 10^7-point (sigma, T, m, eps) grid
                (100 x 10 x 100 x 100, n = 1000, eta = 0.1, L = 1, rho = 1)
  delta points  the same formula on 10^7 unstructured random points (no shared factors)
  epsilon grid  epsilon(delta) on a 10^6-point (sigma, m, delta) grid
The anchor is the same formula written with numpy broadcasting and scipy.special.ndtr
(the textbook closed form, which numpy evaluates on the broadcast of each factor's
own axes too), and scipy.optimize.elementwise.find_root for epsilon(delta).

    HOCKEYSTICK_BENCH_FULL=1 pytest bench/bench_contraction.py --benchmark-enable --benchmark-only
    HOCKEYSTICK_BENCH_FULL=1 python bench/bench_contraction.py      # one side-by-side table, wall and CPU
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pytest
from ratio import Pair, Size, ratio
from scipy.optimize.elementwise import find_root
from scipy.special import ndtr, ndtri

from hockeystick.contraction import TrustedAggregator

N_USERS = 1000
ETA, LIPSCHITZ, RADIUS = 0.1, 1.0, 1.0


def delta_grid(scale: int):
    """(sigma, T, m, eps) axes of a 10^7 * scale-point grid (scale = 1 full, tiny in CI)."""
    k = max(2, round(100 * scale**0.25))
    sigma = np.linspace(0.5, 5.0, k)[:, None, None, None]
    rounds = np.arange(1, 11, dtype=np.float64)[None, :, None, None]
    m = np.linspace(1, 100, k).round()[None, None, :, None]
    eps = np.linspace(0.05, 10.0, k)[None, None, None, :]
    return sigma, rounds, m, eps


def delta_points(count: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    m = rng.integers(1, 101, count).astype(np.float64)
    rounds = np.floor(rng.uniform(0, 1, count) * np.floor(N_USERS / m)) + 1
    return rng.uniform(0.5, 5.0, count), rounds, m, rng.uniform(0.05, 10.0, count)


def epsilon_grid(scale: int):
    k = max(2, round(100 * scale ** (1 / 3)))
    sigma = np.linspace(0.5, 5.0, k)[:, None, None]
    m = np.linspace(1, 100, k).round()[None, :, None]
    delta = np.logspace(-12, -2, k)[None, None, :]
    return sigma, m, delta


# ---- the anchor: the same formula, vectorized numpy / scipy -----------------------------------


def numpy_theta(r, eps):
    """theta_eps(r) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2), the textbook way."""
    return ndtr(r / 2 - eps / r) - np.exp(eps) * ndtr(-eps / r - r / 2)


def numpy_delta(sigma, rounds, m, eps):
    a = numpy_theta(2 * LIPSCHITZ / (np.sqrt(m) * sigma), eps)
    b = numpy_theta(2 * RADIUS * np.sqrt(m) / (ETA * sigma), eps)
    return m / N_USERS * a * (1 - b**rounds) / (1 - b)


def numpy_epsilon(sigma, m, delta):
    """find_root on log delta(eps) - log delta in [0, r1 (Q^{-1}(delta) + r1/2)], vectorized."""
    sigma, m, delta = np.broadcast_arrays(sigma, m, delta)
    rounds = np.floor(N_USERS / m)
    r1 = 2 * LIPSCHITZ / (np.sqrt(m) * sigma)
    hi = r1 * (ndtri(1 - delta) + r1 / 2)
    out = np.zeros(delta.shape)
    at_zero = numpy_delta(sigma, rounds, m, 0.0)
    todo = at_zero > delta

    def f(e, s, t, mm, d):
        return np.log(numpy_delta(s, t, mm, e)) - np.log(d)

    res = find_root(
        f, (np.zeros(todo.sum()), hi[todo]), args=(sigma[todo], rounds[todo], m[todo], delta[todo])
    )
    out[todo] = res.x
    return out


# ---- hockeystick -------------------------------------------------------------------------------


def hockeystick_delta(sigma, rounds, m, eps, threads):
    acc = TrustedAggregator(
        n=N_USERS,
        batch_size=m,
        sigma=sigma,
        learning_rate=ETA,
        lipschitz=LIPSCHITZ,
        radius=RADIUS,
        rounds=rounds,
    )
    return acc.delta(eps, threads=threads)


def hockeystick_epsilon(sigma, m, delta, threads):
    acc = TrustedAggregator(
        n=N_USERS, batch_size=m, sigma=sigma, learning_rate=ETA, lipschitz=LIPSCHITZ, radius=RADIUS
    )
    return acc.epsilon(delta, threads=threads)


def _scale() -> float:
    from conftest import FULL

    return 1.0 if FULL else 1e-4


@pytest.mark.parametrize("threads", [1, 2])
def test_delta_grid_hockeystick(benchmark, threads):
    axes = delta_grid(_scale())
    out = benchmark.pedantic(hockeystick_delta, args=(*axes, threads), rounds=3, iterations=1)
    assert np.all((out >= 0) & (out <= 1))


def test_delta_grid_numpy(benchmark):
    axes = delta_grid(_scale())
    with np.errstate(all="ignore"):
        benchmark.pedantic(numpy_delta, args=axes, rounds=3, iterations=1)


@pytest.mark.parametrize("threads", [1, 2])
def test_delta_points_hockeystick(benchmark, size, threads):
    pts = delta_points(size(10_000_000, 2_000))
    out = benchmark.pedantic(hockeystick_delta, args=(*pts, threads), rounds=3, iterations=1)
    assert np.all((out >= 0) & (out <= 1))


def test_delta_points_numpy(benchmark, size):
    pts = delta_points(size(10_000_000, 2_000))
    with np.errstate(all="ignore"):
        benchmark.pedantic(numpy_delta, args=pts, rounds=3, iterations=1)


@pytest.mark.parametrize("threads", [1, 2])
def test_epsilon_grid_hockeystick(benchmark, threads):
    axes = epsilon_grid(_scale())
    out = benchmark.pedantic(hockeystick_epsilon, args=(*axes, threads), rounds=3, iterations=1)
    assert np.all(out >= 0)


def test_epsilon_grid_scipy(benchmark):
    axes = epsilon_grid(_scale())
    with np.errstate(all="ignore"):
        benchmark.pedantic(numpy_epsilon, args=axes, rounds=1, iterations=1)


# ---- ratio benchmarks (bench/run.py; gated in CI): 1 thread, CPU time, i.e. points per core ----------


def _finite_agree(ours: np.ndarray, theirs: np.ndarray) -> None:
    """Where the textbook formula is finite and not cancelling (delta > 1e-6), it agrees with hockeystick."""
    theirs = np.broadcast_to(theirs, ours.shape)
    ok = np.isfinite(theirs) & (ours > 1e-6)
    assert ok.any()
    np.testing.assert_allclose(theirs[ok], ours[ok], rtol=1e-4)


@ratio(
    "contraction_delta_grid",
    title="000 Thm 2 δ on a (σ, T, m, ε) grid, 1 thread",
    anchor="numpy/scipy broadcasting, same closed form",
    table="contraction",
    unit="points",
    clock="cpu",
)
def contraction_delta_grid(size: Size) -> Pair:
    axes = delta_grid(1.0 if size == "full" else 0.05)
    count = int(np.prod(np.broadcast_shapes(*(np.shape(a) for a in axes))))

    def anchor() -> np.ndarray:
        with np.errstate(all="ignore"):
            return numpy_delta(*axes)

    return Pair(
        ours=lambda: hockeystick_delta(*axes, 1),
        anchor=anchor,
        ours_items=count,
        anchor_items=count,
        check=_finite_agree,
    )


@ratio(
    "contraction_delta_points",
    title="000 Thm 2 δ on unstructured random points, 1 thread",
    anchor="numpy/scipy, same closed form",
    table="contraction",
    unit="points",
    clock="cpu",
)
def contraction_delta_points(size: Size) -> Pair:
    pts = delta_points(10_000_000 if size == "full" else 50_000)

    def anchor() -> np.ndarray:
        with np.errstate(all="ignore"):
            return numpy_delta(*pts)

    return Pair(
        ours=lambda: hockeystick_delta(*pts, 1),
        anchor=anchor,
        ours_items=pts[0].size,
        anchor_items=pts[0].size,
        check=_finite_agree,
    )


@ratio(
    "contraction_epsilon_grid",
    title="000 Thm 2 ε(δ) on a (σ, m, δ) grid, 1 thread",
    anchor="scipy `find_root` on the same closed form",
    table="contraction",
    unit="points",
    clock="cpu",
)
def contraction_epsilon_grid(size: Size) -> Pair:
    axes = epsilon_grid(1.0 if size == "full" else 1e-2)
    count = int(np.prod(np.broadcast_shapes(*(np.shape(a) for a in axes))))

    def anchor() -> np.ndarray:
        with np.errstate(all="ignore"):
            return numpy_epsilon(*axes)

    return Pair(
        ours=lambda: hockeystick_epsilon(*axes, 1),
        anchor=anchor,
        ours_items=count,
        anchor_items=count,
    )


# ---- the side-by-side table ----------------------------------------------------------------------


def _best_of(fn, *args, repeat=3):
    """Best wall time and the CPU time (all threads) of that run: on a shared box the CPU
    time shows what the code costs when the load average exceeds the core count."""
    best, cpu, out = np.inf, np.inf, None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn(*args)
        wall, used = time.perf_counter() - start, time.process_time() - start_cpu
        if wall < best:
            best, cpu = wall, used
    return best, cpu, out


def _accuracy(anchor, ours):
    anchor = np.broadcast_to(anchor, ours.shape)
    bad = ~np.isfinite(anchor)
    rel = np.abs(anchor - ours) / np.where(ours > 0, ours, 1.0)
    wrong = ~bad & (rel > 1e-6)
    return f"{bad.mean():.1%} NaN/inf, {wrong.mean():.1%} off by >1e-6 rel"


def main() -> None:
    sys.path.insert(0, os.path.dirname(__file__))
    full = os.environ.get("HOCKEYSTICK_BENCH_FULL") == "1"
    scale = 1.0 if full else 1e-3
    rows = []
    for name, make, ours, anchor in [
        ("delta, (sigma,T,m,eps) grid", lambda: delta_grid(scale), hockeystick_delta, numpy_delta),
        (
            "delta, random points",
            lambda: delta_points(round(1e7 * scale)),
            hockeystick_delta,
            numpy_delta,
        ),
        (
            "epsilon, (sigma,m,delta) grid",
            lambda: epsilon_grid(scale),
            hockeystick_epsilon,
            numpy_epsilon,
        ),
    ]:
        args = make()
        count = int(np.prod(np.broadcast_shapes(*(np.shape(a) for a in args))))
        results = {}
        for threads in (1, 2):
            t, cpu, out = _best_of(ours, *args, threads)
            results[threads] = out
            rows.append(
                (name, f"hockeystick, {threads} thread{'s' * (threads > 1)}", count, t, cpu, "")
            )
        with np.errstate(all="ignore"):
            t, cpu, out = _best_of(anchor, *args, repeat=1 if "epsilon" in name else 3)
        rows.append((name, "numpy/scipy, same formula", count, t, cpu, _accuracy(out, results[2])))
    print(
        "| workload | implementation | points | wall s | CPU s | points/s (wall) | points per CPU-s "
        "| anchor accuracy vs hockeystick |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, impl, count, t, cpu, acc in rows:
        print(
            f"| {name} | {impl} | {count:.0e} | {t:.3f} | {cpu:.3f} | {count / t:.3g} | {count / cpu:.3g} | {acc} |"
        )


if __name__ == "__main__":
    main()
