"""PLD discretization, composition and evaluation (pytest-benchmark).

Full sizes (HOCKEYSTICK_BENCH_FULL=1) are the anchors' workloads W1-W3 of
shared/ANCHORS.md; CI runs each body once at a short size.  The side-by-side
comparison with dp_accounting and prv_accountant is bench/compare_pld.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core


def test_discretize_subsampled_gaussian(benchmark, size):
    """Both directions, both sides, of the q = 0.01, sigma = 1 PLD at h = 1e-4 (short: 1e-3)."""
    h = 1e-4 if size(1, 0) else 1e-3
    out = benchmark(lambda: pld.subsampled_gaussian(1.0, 0.01, value_discretization_interval=h))
    assert len(out.directions) == 2


def test_w1_gaussian_pld_bracket(benchmark, size):
    """W1 through the PLD machinery (not the closed form): sigma = 1, T = 1000 (short: 50), h = 1e-3."""
    rounds = size(1000, 50)
    result = benchmark(lambda: pld.gaussian(1.0, value_discretization_interval=1e-3).self_compose(rounds).epsilon(
        1e-5, bound="both"))
    assert result[0] <= result[1]


def test_w2_subsampled_gaussian_bracket(benchmark, size):
    """W2: q = 0.01, sigma = 1, T = 10^4 (short: 100), both bounds at h = 1.5e-4 (short: 1e-3)."""
    rounds, h = size(10_000, 100), (1.5e-4 if size(1, 0) else 1e-3)
    result = benchmark(lambda: pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=rounds,
                                                         value_discretization_interval=h).epsilon(1e-5, bound="both"))
    assert result[0] <= result[1]


def test_w3_subsampled_gaussian_upper(benchmark, size):
    """W3: q = 0.001, sigma = 0.8, T = 10^5 (short: 1000), upper bound at h = 1e-4 (short: 1e-3)."""
    rounds, h = size(100_000, 1000), (1e-4 if size(1, 0) else 1e-3)
    result = benchmark(lambda: pld.SubsampledGaussianPLD(sigma=0.8, sampling_rate=0.001, rounds=rounds,
                                                         value_discretization_interval=h).epsilon(1e-5))
    assert result > 0


def test_hockey_stick_many_epsilons(benchmark, size):
    """delta(eps) of a composed PMF at 10^6 epsilons (short: 10^4): O(grid + n_eps)."""
    composed = pld.gaussian(1.0, value_discretization_interval=1e-3).self_compose(100).composed(True)[0]
    eps = np.linspace(0, 60, size(1_000_000, 10_000))
    out = benchmark(lambda: _core.pld_delta(composed.p, composed.k_lo, composed.h, composed.p_inf, eps, 0))
    assert np.all(np.diff(out) <= 0)


@pytest.mark.parametrize("h", [1e-3, 1e-4])
def test_w4_sigma_sweep_upper(benchmark, size, h):
    """W4: W2 for 1000 sigmas in [0.5, 5] (short: 8 sigmas, T = 100), upper bound at h (short: 1e-3).

    Discretization is batched across sigmas (one C++ call per chunk of up to 64 points), and so
    are the FFTs (one row-wise transform per FFT length in a chunk)."""
    sigmas, rounds = np.linspace(0.5, 5.0, size(1000, 8)), size(10_000, 100)
    h = h if size(1, 0) else 1e-3
    result = benchmark.pedantic(lambda: pld.SubsampledGaussianPLD(
        sigma=sigmas, sampling_rate=0.01, rounds=rounds, value_discretization_interval=h).epsilon(1e-5),
        rounds=1, iterations=1)
    assert np.all(np.diff(result) <= 0)


def test_isrl_with_replacement_bracket(benchmark, size):
    """Paper 003's silo message (batches drawn with replacement, replace-one): n = 1238, K = 128,
    sigma = 0.0340 L (its App. I calibration for eps = 1.5 at R = 35), R = 35 rounds (short: 5),
    both bounds at delta = 1/n^2, h = 1e-4 (short: 1e-3)."""
    n, K, sigma = 1238, 128, 0.03401
    rounds, h = size(35, 5), (1e-4 if size(1, 0) else 1e-3)
    result = benchmark.pedantic(lambda: pld.with_replacement_subsampled_gaussian(
        sigma, K, n, sensitivity=1.0 / K, value_discretization_interval=h).self_compose(rounds).epsilon(
        1.0 / n**2, bound="both"), rounds=1, iterations=1)
    assert result[0] <= result[1]
