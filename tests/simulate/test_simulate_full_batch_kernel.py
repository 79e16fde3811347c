"""The full-batch FedAvg kernel, its dot product and exponential: fixed summation order, accuracy against mpmath,
the generic kernel's bits, any thread count."""

from __future__ import annotations

import math

import mpmath
import numba
import numpy as np
import pytest
from numba import njit

import hockeystick.simulate as sim
from hockeystick.simulate.exp_nonpositive import exp_nonpositive
from hockeystick.simulate.fedavg import average_local_models
from hockeystick.simulate.lane_dot import LANES, lane_dot
from hockeystick.simulate.models import add_range_gradient, coefficient_count, model_code


@njit
def _lane_dot(a, offset, b):
    return lane_dot(a, offset, b)


def _lanes_in_python(a: np.ndarray, offset: int, b: np.ndarray) -> float:
    """The module docstring's formula, one Python float operation at a time (IEEE double, same order)."""
    lanes = [0.0] * LANES
    for j in range(b.shape[0]):
        lanes[j % LANES] += float(a[offset + j]) * float(b[j])
    while len(lanes) > 1:
        half = len(lanes) // 2
        lanes = [lanes[l] + lanes[l + half] for l in range(half)]
    return lanes[0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lane_dot_sums_in_the_documented_order_bit_for_bit(dtype):
    rng = np.random.default_rng(3)
    for n in range(0, 3 * LANES + 2):
        for offset in (0, 5):
            a = rng.standard_normal(n + offset) * 10.0 ** rng.integers(-3, 4, n + offset)
            b = rng.standard_normal(n).astype(dtype)
            assert _lane_dot(a, offset, b) == _lanes_in_python(a, offset, b), (n, offset)


def test_lane_dot_error_within_the_recursive_summation_bound():
    """|fl(a.b) - a.b| <= gamma_k sum |a_j b_j|, k = ceil(n/8) + 3 (lane length + tree depth) + 1 (the product),
    against 50-digit mpmath; the bound is not vacuous here (catastrophic cancellation is built in)."""
    rng = np.random.default_rng(4)
    mpmath.mp.dps = 50
    u = 2.0**-53
    for n in (1, 7, 8, 9, 100, 1001):
        a = rng.standard_normal(n)
        b = rng.standard_normal(n)
        b[-1] = (
            -float(np.dot(a[:-1], b[:-1])) / a[-1]
        )  # a.b close to 0: relative error would be meaningless
        exact = mpmath.fsum(mpmath.mpf(float(x)) * mpmath.mpf(float(y)) for x, y in zip(a, b))
        k = math.ceil(n / LANES) + 3 + 1
        bound = k * u / (1 - k * u) * float(np.sum(np.abs(a * b)))
        assert abs(mpmath.mpf(_lane_dot(a, 0, b)) - exact) <= bound


@njit
def _exp_nonpositive_all(x, out):
    for i in range(x.shape[0]):
        out[i] = exp_nonpositive(x[i])


def test_exp_nonpositive_within_two_ulp_of_mpmath_and_its_edges():
    rng = np.random.default_rng(10)
    x = np.concatenate(
        [
            -rng.uniform(0, 1, 3000),
            -rng.uniform(0, 40, 3000),
            -rng.uniform(0, 708, 3000),
            -np.logspace(-300, 0, 500),
            -rng.uniform(708, 745, 500),
            [0.0, -0.0, -1e-320],
        ]
    )
    out = np.empty_like(x)
    _exp_nonpositive_all(x, out)
    mpmath.mp.dps = 50
    tiny = np.finfo(np.float64).tiny
    for xi, yi in zip(x, out):
        exact = mpmath.exp(mpmath.mpf(float(xi)))
        ulp = (
            math.ulp(float(exact)) if float(exact) >= tiny else math.ulp(0.0)
        )  # subnormals: absolute
        assert abs(mpmath.mpf(float(yi)) - exact) <= 2 * ulp, xi
    edges = np.array([-746.0, -800.0, -np.inf, np.nan, 3.0])  # e^-746 < 2^-1075: rounds to 0
    _exp_nonpositive_all(edges, out[:5])
    assert list(out[:3]) == [0.0, 0.0, 0.0] and np.isnan(out[3]) and out[4] == 1.0


def _generic_round(model: str, data, w_global, etas, proximal, clip) -> np.ndarray:
    """The mean of the clients' full-batch models from the generic gradient kernel (models.add_range_gradient)
    in Python loops, clients summed in CLIENT_BLOCK blocks as average_local_models sums them."""
    from hockeystick.simulate.fedavg import CLIENT_BLOCK

    code = model_code(model)
    coef = np.empty(coefficient_count(code, data.n_classes))
    grad = np.empty(w_global.shape[0])
    blocks = []
    for first in range(0, data.n_clients, CLIENT_BLOCK):
        total = np.zeros_like(w_global)
        for i in range(first, min(first + CLIENT_BLOCK, data.n_clients)):
            w = w_global.copy()
            for eta in etas:
                add_range_gradient(
                    code,
                    w,
                    data.features,
                    data.row_norms,
                    data.labels,
                    data.offsets[i],
                    data.offsets[i + 1],
                    clip,
                    coef,
                    grad,
                )
                for j in range(w.shape[0]):  # the kernel's update, element by element
                    w[j] -= eta * (grad[j] + proximal * (w[j] - w_global[j]))
            total += w
        blocks.append(total)
    mean = np.zeros_like(w_global)
    for total in blocks:
        mean += total
    return mean / data.n_clients


@pytest.mark.parametrize("model", ["logistic", "linear"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("proximal, clip", [(0.0, 0.3), (0.7, np.inf)])
def test_full_batch_kernel_equals_the_generic_gradient_kernel_bit_for_bit(
    model, dtype, proximal, clip
):
    """Unequal clients (1 to 9 rows: odd counts exercise the unpaired last row), more than one client block."""
    sizes = np.random.default_rng(5).integers(1, 10, 150)
    base = sim.synthetic(model, 150, 9, 13, label_concentration=0.5, seed=6)
    keep = np.concatenate(
        [np.arange(base.offsets[i], base.offsets[i] + s) for i, s in enumerate(sizes)]
    )
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    data = sim.FederatedData(
        base.features[keep], base.labels[keep], offsets, model, base.n_classes
    ).astype(dtype)
    w_global = np.random.default_rng(7).standard_normal(13) * 0.3
    etas = np.array([0.4, 0.25, 0.1])
    code = model_code(model)
    fast = average_local_models(
        code,
        1,
        w_global,
        data.features,
        data.row_norms,
        data.labels,
        data.offsets,
        np.empty((data.n_clients, etas.shape[0], 0)),
        etas,
        proximal,
        clip,
    )
    assert np.array_equal(fast, _generic_round(model, data, w_global, etas, proximal, clip))


def test_full_batch_logistic_fedavg_is_bit_identical_across_thread_counts():
    data = sim.synthetic("logistic", 700, 8, 20, label_concentration=0.5, seed=8)
    before = numba.get_num_threads()
    try:
        runs = [
            sim.noisy_fedavg(
                data,
                rounds=3,
                local_steps=2,
                rate=0.5,
                clip=1.0,
                sigma=0.2,
                batch_size=None,
                seed=9,
                threads=threads,
            )
            for threads in (1, numba.config.NUMBA_NUM_THREADS)
        ]
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(runs[0].weights, runs[1].weights)
    assert np.array_equal(runs[0].loss, runs[1].loss)
