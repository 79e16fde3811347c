"""Poisson sampling of clients, each sampled client adding its own noise share: the observer's amplified bracket
against the exact sampled pair at d = 1, the server's number unchanged by sampling."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest

from hockeystick.secagg import DistributedDiscreteGaussian, DistributedSkellam


def _one_client_dg(s: float, half: int = 12) -> dict[int, mpmath.mpf]:
    w = {
        y: mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * mpmath.mpf(s) ** 2))
        for y in range(-half, half + 1)
    }
    z = mpmath.fsum(w.values())
    return {y: v / z for y, v in w.items()}


def _convolve(a: dict, b: dict) -> dict:
    out: dict = {}
    for (x, p), (y, q) in itertools.product(a.items(), b.items()):
        out[x + y] = out.get(x + y, 0) + p * q
    return out


def _noise(kind: str, clients: int) -> dict[int, mpmath.mpf]:
    """The summed noise of ``clients`` shares at s = 0.8 (the discrete Gaussian's n-fold sum, or Skellam(n s^2))."""
    if kind == "ddg":
        one = total = _one_client_dg(0.8)
        for _ in range(clients - 1):
            total = _convolve(total, one)
        return total
    v = mpmath.mpf(clients * 0.64)
    return {x: mpmath.besseli(abs(x), v) * mpmath.exp(-v) for x in range(-40, 41)}


def _loss_law(first: dict, second: dict) -> dict:
    """The privacy loss log(first / second) under first, as loss -> mass."""
    law: dict = {}
    for x, p in first.items():
        if p > 0:
            q = second.get(x, 0)
            key = mpmath.log(p / q) if q > 0 else mpmath.inf
            law[key] = law.get(key, 0) + p
    return law


def _hockey_stick(law: dict, eps: float, rounds: int) -> float:
    total = {mpmath.mpf(0): mpmath.mpf(1)}
    for _ in range(rounds):
        merged: dict = {}
        for (x, p), (y, q) in itertools.product(total.items(), law.items()):
            key = mpmath.nstr(x + y, 30)
            value, mass = merged.get(key, (x + y, 0))
            merged[key] = (value, mass + p * q)
        total = dict(merged.values())
    return float(mpmath.fsum(p * (1 - mpmath.exp(eps - x)) for x, p in total.items() if x > eps))


@pytest.mark.parametrize(
    ("cls", "kind"), [(DistributedDiscreteGaussian, "ddg"), (DistributedSkellam, "skellam")]
)
@pytest.mark.parametrize("rounds", [1, 2])
def test_the_exact_sampled_pair_lies_in_the_observer_bracket(cls, kind, rounds):
    # d = 1, c / gamma = 4: the shift 4 is realized; two other clients survive, each sampled client adds its own
    # share: q (N_3 + 4) + (1 - q) N_2 against q N_3 + (1 - q) N_2
    q = 0.3
    acc = cls(
        clip_norm=1.0,
        granularity=0.25,
        dimension=1,
        local_sigma=0.2,
        min_surviving_clients=2,
        rounds=rounds,
        sampling_rate=q,
    )
    with mpmath.workdps(40):
        fewer, more = _noise(kind, 2), _noise(kind, 3)
        shifted = {x + 4: p for x, p in more.items()}
        outcomes = set(fewer) | set(more) | set(shifted)
        mixture = {x: q * shifted.get(x, 0) + (1 - q) * fewer.get(x, 0) for x in outcomes}
        unshifted = {x: q * more.get(x, 0) + (1 - q) * fewer.get(x, 0) for x in outcomes}
        forward, backward = _loss_law(mixture, unshifted), _loss_law(unshifted, mixture)
        for eps in (0.25, 0.5, 1.0, 2.0):
            lower, upper = acc.delta(eps, bound="both", against="observer")
            realized = _hockey_stick(forward, eps, rounds)
            assert lower <= realized * (1 + 1e-9) <= upper
            assert realized > 0.8 * lower  # the lower side is that pair's, up to the grid
            assert (
                _hockey_stick(backward, eps, rounds) <= upper
            )  # the other direction is covered too
            server_lower, server_upper = acc.delta(eps, bound="both")
            assert upper <= server_upper and lower <= server_lower


@pytest.mark.parametrize("cls", [DistributedDiscreteGaussian, DistributedSkellam])
def test_sampling_changes_only_the_observer_number(cls):
    run = dict(
        clip_norm=1.0,
        granularity=0.02,
        dimension=1000,
        local_sigma=0.5,
        min_surviving_clients=50,
        rounds=20,
    )
    full, sampled = cls(**run), cls(**run, sampling_rate=0.05)
    deltas = np.array([1e-9, 1e-5])
    np.testing.assert_array_equal(sampled.epsilon(deltas), full.epsilon(deltas))
    np.testing.assert_array_equal(full.epsilon(deltas, against="observer"), full.epsilon(deltas))
    amplified = sampled.epsilon(deltas, against="observer")
    assert (amplified < 0.5 * full.epsilon(deltas)).all()
    low, high = sampled.epsilon(deltas, bound="both", against="observer")
    assert (0 < low).all() and (low <= high).all() and (high == amplified).all()


@pytest.mark.parametrize("cls", [DistributedDiscreteGaussian, DistributedSkellam])
@pytest.mark.parametrize("q", [0.01, 0.2, 0.7])
def test_the_observer_bound_falls_with_the_rate(cls, q):
    run = dict(
        clip_norm=1.0,
        granularity=0.1,
        dimension=16,
        local_sigma=0.3,
        min_surviving_clients=8,
        rounds=5,
    )
    at_q = cls(**run, sampling_rate=q).epsilon(1e-6, against="observer")
    at_more = cls(**run, sampling_rate=min(1.0, 1.5 * q)).epsilon(1e-6, against="observer")
    assert at_q <= at_more <= cls(**run).epsilon(1e-6)


# google-research/federated distributed_dp/accounting_utils.py (commit 5e27a86323a35c2018fb97fbbe755c7ade9370ab, as in
# test_secagg_rdp_bounds.py), run at development time with its RDP calls served by dp_accounting:
# ddgauss_epsilon(gamma, local_stddev, 1000, 1.0, e^{-1/2}, 10^6, q, 2000, 1e-6) at the cross-device example's
# (gamma, local_stddev), q = 1 and q = 1e-3 (its sampled curve: Zhu & Wang's general bound for a fixed number of
# noise shares, orders 2..128 and 256, each order's minimum with the unsampled curve)
CROSS_DEVICE = dict(granularity=0.00034073954964729036, local_sigma=0.8178681542682358)
ACCOUNTING_UTILS = {1.0: 10.011239003271271, 1e-3: 0.06490406731010345}


def test_the_cross_device_example_against_accounting_utils():
    acc = DistributedDiscreteGaussian(
        clip_norm=1.0,
        dimension=10**6,
        min_surviving_clients=1000,
        rounds=2000,
        beta=float(np.exp(-0.5)),
        sampling_rate=1e-3,
        **CROSS_DEVICE,
    )
    server, observer = acc.epsilon(1e-6), acc.epsilon(1e-6, against="observer")
    assert (
        ACCOUNTING_UTILS[1.0] * 0.99 <= server <= ACCOUNTING_UTILS[1.0]
    )  # the same bound, the tight conversion
    # accounting_utils amplifies as if every round's sum held a fixed number of shares; with each sampled client
    # adding its own, the convexity bound is linear in q and lies well above that quadratic amplification
    assert observer > 4 * ACCOUNTING_UTILS[1e-3]
    assert observer < 0.05 * server
