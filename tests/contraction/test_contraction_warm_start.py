"""epsilon(delta) along a delta axis starts each solve at the point the previous solve
last evaluated, reusing its bound and slope.  The warm answers must be those of a cold
solve of each point alone (safe side, minimal to 1e-12), whatever order the targets come in."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.contraction import _kernels

RNG = np.random.default_rng(20261122)
F = np.float64

CASES = {
    "geometric": (
        lambda e: _kernels.geometric_delta(
            np.asarray(e, dtype=F), F(0.05), F(20.0), F(0.4), F(7.0), 1
        ),
        lambda d: _kernels.geometric_epsilon(d, F(0.05), F(20.0), F(0.4), F(7.0), 1),
    ),
    "random_stop": (
        lambda e: _kernels.random_stop_delta(
            np.asarray(e, dtype=F), F(0.005), F(20.0), F(11.0), F(0.4), F(7.0), 1
        ),
        lambda d: _kernels.random_stop_epsilon(d, F(0.005), F(20.0), F(11.0), F(0.4), F(7.0), 1),
    ),
    "power_gaussian": (
        lambda e: _kernels.power_delta(
            "gaussian", np.asarray(e, dtype=F), F(12.0), F(2.5), F(1.3), 1
        ),
        lambda d: _kernels.power_epsilon("gaussian", d, F(12.0), F(2.5), F(1.3), 1),
    ),
    "power_laplace": (
        lambda e: _kernels.power_delta(
            "laplace", np.asarray(e, dtype=F), F(12.0), F(2.5), F(1.3), 1
        ),
        lambda d: _kernels.power_epsilon("laplace", d, F(12.0), F(2.5), F(1.3), 1),
    ),
}


@pytest.mark.parametrize("order", ["increasing", "decreasing", "shuffled"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_warm_started_axis_matches_cold_solves(case, order):
    delta_of, epsilon_of = CASES[case]
    deltas = np.logspace(-14, -1.5, 120)
    if order == "decreasing":
        deltas = deltas[::-1].copy()
    elif order == "shuffled":
        deltas = RNG.permutation(deltas)
    warm = epsilon_of(deltas)  # one call: warm starts along the axis
    cold = np.array(
        [epsilon_of(np.float64(d)) for d in deltas]
    )  # one solve per call: no warm start
    np.testing.assert_allclose(warm, cold, rtol=1e-13, atol=0)
    back = delta_of(warm)
    assert np.all(back <= deltas), "delta(epsilon(delta)) must not exceed delta"
    positive = warm > 0
    assert positive.any()
    smaller = warm[positive] * (
        1 - 1e-12
    )  # minimal to 1e-12: a slightly smaller epsilon violates the target
    assert np.all(delta_of(smaller) > deltas[positive])
