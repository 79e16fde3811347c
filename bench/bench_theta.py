"""theta throughput: hockeystick (1 and 2 threads) against scipy's naive vectorized formula.

Full size: 10^7 points (HOCKEYSTICK_BENCH_FULL=1); the side-by-side table with
accuracy comes from ``python bench/compare_theta.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from theta_points import naive_theta, typical_points

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
