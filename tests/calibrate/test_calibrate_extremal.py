"""Every calibration is extremal.

The answer meets the target on the certified upper side (the accountant's own delta, an
upper bound, is <= the target there), and one step past it violates the target: the next
integer for integer parameters, answer * e^rtol (the width calibrate promises in log x,
with a sliver for rounding) for continuous ones; unless the answer is the search bound.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hockeystick.calibrate import calibrate
from hockeystick.sweep import registry

RTOL = 1e-10


def _delta(name: str, params: dict[str, Any], epsilon: float) -> float:
    return float(np.asarray(registry.get(name).build(**params).delta(epsilon)))


def _search_bound(name: str, parameter: str, params: dict[str, Any]) -> float:
    spec = registry.get(name).calibratable[parameter]
    if spec.direction == "decreasing":
        return np.finfo(float).tiny ** 0.25 if spec.lower == 0 else spec.lower
    upper = spec.upper(params) if callable(spec.upper) else spec.upper
    return float(np.floor(upper)) if spec.integer else float(upper)


def _check_extremal(
    name: str, parameter: str, epsilon: float, delta: float, rtol: float = RTOL, **params: Any
) -> float:
    try:
        x = calibrate(name, parameter, epsilon=epsilon, delta=delta, rtol=rtol, **params)
    except ValueError as err:
        assume("unreachable" not in str(err))
        raise
    spec = registry.get(name).calibratable[parameter]
    assert _delta(name, {**params, parameter: x}, epsilon) <= delta, "the answer misses the target"
    if x == _search_bound(
        name, parameter, {k: np.asarray(v, float) for k, v in params.items()}
    ) or math.isinf(x):
        return x
    increasing = spec.direction == "increasing"
    if spec.integer:
        past = x + 1 if increasing else x - 1
    else:
        factor = math.exp(1.001 * rtol)
        past = x * factor if increasing else x / factor
    assert _delta(name, {**params, parameter: past}, epsilon) > delta, (
        f"{parameter}={past!r} also meets the target: {x!r} is not extremal"
    )
    return x


def test_issue_example_sampling_rate_is_extremal() -> None:
    q = _check_extremal(
        "rdp_subsampled_gaussian",
        "sampling_rate",
        epsilon=0.06466397948182104,
        delta=6.17962090740606e-10,
        sigma=1.1993220805029614,
        rounds=203,
    )
    assert q > 4.3e-11  # 4.3e-11 meets the target, so the largest rate is above it (not 1.42e-14)


EPS = st.floats(0.05, 8.0)
DELTA = st.floats(-12.0, -2.0).map(lambda x: 10.0**x)
SIGMA = st.floats(0.3, 30.0)
RATE = st.floats(-4.0, 0.0).map(lambda x: 10.0**x)
ROUNDS = st.integers(1, 10_000)


@settings(max_examples=12, deadline=None)
@given(eps=EPS, delta=DELTA, rounds=ROUNDS, sens=st.floats(0.1, 10.0), sigma=SIGMA)
def test_gaussian(eps: float, delta: float, rounds: int, sens: float, sigma: float) -> None:
    _check_extremal("gaussian", "sigma", eps, delta, rounds=rounds, sensitivity=sens)
    _check_extremal("gaussian", "rounds", eps, delta, sigma=sigma * 10, sensitivity=sens)


@settings(max_examples=25, deadline=None)
@given(eps=EPS, delta=DELTA)
def test_gdp(eps: float, delta: float) -> None:
    _check_extremal("gdp", "mu", eps, delta)


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(eps=EPS, delta=DELTA, sigma=SIGMA, q=RATE, rounds=ROUNDS)
def test_rdp_subsampled_gaussian(
    eps: float, delta: float, sigma: float, q: float, rounds: int
) -> None:
    _check_extremal("rdp_subsampled_gaussian", "sigma", eps, delta, sampling_rate=q, rounds=rounds)
    _check_extremal(
        "rdp_subsampled_gaussian", "sampling_rate", eps, delta, sigma=sigma, rounds=rounds
    )
    _check_extremal("rdp_subsampled_gaussian", "rounds", eps, delta, sigma=sigma, sampling_rate=q)


@settings(max_examples=8, deadline=None)
@given(eps=EPS, delta=DELTA, sigma=SIGMA, batch=st.integers(1, 1000), lr=st.floats(0.01, 1.0))
def test_trusted_aggregator(eps: float, delta: float, sigma: float, batch: int, lr: float) -> None:
    common = dict(n=60_000, batch_size=batch, learning_rate=lr, lipschitz=1.0, radius=1.0)
    _check_extremal("trusted_aggregator", "sigma", eps, delta, rounds=50, **common)
    _check_extremal("trusted_aggregator", "rounds", eps, delta, sigma=sigma, **common)


@settings(max_examples=6, deadline=None)
@given(eps=EPS, delta=DELTA, sigma=SIGMA, rounds=st.integers(1, 500))
def test_noisy_fedavg(eps: float, delta: float, sigma: float, rounds: int) -> None:
    common = dict(clients=20, clip=10.0, lipschitz=1.0, learning_rate=0.01, local_steps=5)
    _check_extremal("noisy_fedavg", "sigma", eps, delta, rounds=rounds, **common)
    _check_extremal("noisy_fedavg", "rounds", eps, delta, sigma=sigma, **common)


@pytest.mark.parametrize(
    "parameter,given_params",
    [
        ("sigma", dict(sampling_rate=0.01, rounds=100)),
        ("sampling_rate", dict(sigma=1.0, rounds=100)),
        ("rounds", dict(sigma=1.0, sampling_rate=0.01)),
    ],
)
def test_pld_subsampled_gaussian(parameter: str, given_params: dict[str, float]) -> None:
    """A PLD bound is noisy at 1e-10 in its parameter (the composed PMF's charged round-off: log delta jumps by
    ~3e-8 where sigma moves by 1e-10, against a slope of ~20; calibrate.refinement.settle), so one step of 1e-10
    past the answer may meet the target again on one machine's rounding and not on another's (sigma at
    q 0.01, 100 rounds: delta 1e-5 (1 - 4e-11) one step past).  A step of 1e-7 clears that noise ~50-fold."""
    _check_extremal(
        "pld_subsampled_gaussian",
        parameter,
        1.0,
        1e-5,
        rtol=1e-7,
        value_discretization_interval=1e-3,
        **given_params,
    )
