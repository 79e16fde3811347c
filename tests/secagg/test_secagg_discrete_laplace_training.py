"""The distributed discrete Laplace in DP-FedAvg's words, and its wrap-around bound against a simulation of the
modular sum."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.secagg import DistributedDiscreteLaplace
from hockeystick.secagg.discrete_laplace_wrap import discrete_laplace_wrap_probability
from hockeystick.training import DistributedDPFedAvg


def test_the_run_in_fedavg_words_is_the_accountants():
    run = DistributedDPFedAvg(
        noise="distributed_discrete_laplace",
        clip_norm=1.0,
        bits=12,
        dimension=1,
        total_clients=10_000,
        clients_per_round=100,
        min_surviving_clients=80,
        rounds=20,
        noise_multiplier=5.0,
    )
    acc = run.accountant
    assert isinstance(acc, DistributedDiscreteLaplace)
    # the full noise's variance, 2 e^-a / (1 - e^-a)^2 integer steps squared, is the central noise's (z C)^2
    variance = 2.0 * math.exp(-acc.decay) / (-math.expm1(-acc.decay)) ** 2 * run.granularity**2
    assert variance == pytest.approx(25.0, rel=1e-9)
    assert acc.expected_clients == 100 and acc.min_surviving_clients == 80
    assert run.wrap_probability <= 1e-4
    direct = DistributedDiscreteLaplace(
        clip_norm=1.0,
        granularity=run.granularity,
        dimension=1,
        scale=acc.scale,
        expected_clients=100,
        min_surviving_clients=80,
        rounds=20,
        beta=math.exp(-0.5),
        sampling_rate=0.01,
    )
    assert run.guarantees(1e-6) == {
        who: direct.epsilon(1e-6, bound="both", against=who) for who in ("server", "observer")
    }


def test_the_wrap_bound_is_above_a_simulated_modular_sum():
    # 12 clients' shares of DLap(1/8) on 16 coordinates, a negligible signal (c / gamma = 0.02), 7 bits: the noise's
    # Chernoff bound against the modular sum simulated
    rng = np.random.default_rng(96)
    n, d, c, gamma, scale, bits, rounds = 12, 16, 0.001, 0.05, 0.4, 7, 20_000
    p = -math.expm1(-gamma / scale)
    shares = sum(
        rng.negative_binomial(1.0 / n, p, (rounds, d))
        - rng.negative_binomial(1.0 / n, p, (rounds, d))
        for _ in range(n)
    )
    wrapped = float(np.mean(np.any(np.abs(shares) >= 2 ** (bits - 1) - n, axis=1)))
    bound = discrete_laplace_wrap_probability(
        bits=bits,
        clients=n,
        expected_clients=n,
        dimension=d,
        clip_norm=c,
        granularity=gamma,
        scale=scale,
    )
    assert (
        0.005 < wrapped <= bound
    )  # the simulation wraps often enough to be read, and below the bound
    assert (
        bound < 25 * wrapped
    )  # Chernoff on an exponential tail: within its polynomial factor (18x here)
