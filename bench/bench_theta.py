"""theta throughput: hockeystick (1 and 2 threads) against scipy's naive vectorized formula.

Full size: 10^7 points (HOCKEYSTICK_BENCH_FULL=1); the side-by-side table with
accuracy comes from ``python bench/compare_theta.py``.  The ratio benchmarks (bench/run.py,
gated in CI) time both sides interleaved in CPU time, warm, on the same points.
"""

from __future__ import annotations

import numpy as np
import pytest
from ratio import Pair, Size, ratio
from theta_points import hard_points, naive_theta, typical_points

import hockeystick as hs


@pytest.fixture(scope="module")
def points(request):
    from conftest import pick

    return typical_points(pick(10_000_000, 20_000))


@pytest.mark.parametrize("threads", [1, 2])
def test_theta_hockeystick(benchmark, points, threads):
    r, eps = points
    out = benchmark(hs.theta, r, eps, threads=threads)
    assert out.shape == r.shape and np.all((out >= 0) & (out <= 1))


def test_theta_naive_scipy(benchmark, points):
    r, eps = points
    with np.errstate(all="ignore"):
        benchmark(naive_theta, r, eps)


def test_theta_epsilon_inverse(benchmark):
    from conftest import pick

    n = pick(1_000_000, 2_000)
    rng = np.random.default_rng(3)
    r = 10.0 ** rng.uniform(-1, 1, n)
    delta = 10.0 ** rng.uniform(-12, -3, n)
    eps = benchmark(hs.theta_epsilon, r, delta)
    assert np.all(eps >= 0)


def _agree(ours: np.ndarray, naive: np.ndarray) -> None:
    """Where the naive formula is trustworthy (theta > 1e-3, no cancellation) the two agree."""
    ok = np.isfinite(naive) & (ours > 1e-3)
    np.testing.assert_allclose(naive[ok], ours[ok], rtol=1e-6)


@ratio(
    "theta_1thread",
    title="θ on typical points, 1 thread",
    anchor="scipy naive `ndtr` formula",
    table="theta",
    unit="points",
    clock="cpu",
    goal=5.0,
)
def theta_1thread(size: Size) -> Pair:
    """hs.theta on one thread against Q(a - r/2) - e^eps Q(a + r/2) with scipy.special.ndtr (CPU time)."""
    r, eps = typical_points(10_000_000 if size == "full" else 1_000_000)

    def naive() -> np.ndarray:
        with np.errstate(all="ignore"):
            return naive_theta(r, eps)

    return Pair(
        ours=lambda: hs.theta(r, eps, threads=1),
        anchor=naive,
        ours_items=r.size,
        anchor_items=r.size,
        check=_agree,
    )


@ratio(
    "theta_hard_1thread",
    title="θ on the hard points (W5), 1 thread",
    anchor="scipy naive `ndtr` formula",
    table="theta",
    unit="points",
    clock="cpu",
)
def theta_hard_1thread(size: Size) -> Pair:
    """The same on the five hard regions, where the naive formula returns 0, NaN or a wrong value."""
    r, eps = hard_points(2_000_000 if size == "full" else 500_000)

    def naive() -> np.ndarray:
        with np.errstate(all="ignore"):
            return naive_theta(r, eps)

    return Pair(
        ours=lambda: hs.theta(r, eps, threads=1),
        anchor=naive,
        ours_items=r.size,
        anchor_items=r.size,
    )
