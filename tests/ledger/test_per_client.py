"""Per-client epsilons: each client's from its own rate equals the repository's RDP accountant at that rate
(the independent series of rdp/mechanisms.py) where the rates are few, and is never below it where they are
rounded up to the grid; a realized record is the exact Gaussian mechanism's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from hockeystick.ledger import per_client_epsilon, realized_client_epsilon
from hockeystick.ledger.per_client import GRID_POINTS
from hockeystick.ledger.round_rdp import DEFAULT_ORDERS
from hockeystick.rdp import rdp_to_epsilon, subsampled_gaussian_rdp

ALPHA = np.asarray(DEFAULT_ORDERS, dtype=float)


def direct(q: float, sigma: float, rounds: int, delta: float) -> float:
    return float(rdp_to_epsilon(rounds * subsampled_gaussian_rdp(sigma, q, ALPHA), ALPHA, delta))


def test_few_rates_are_each_clients_own_and_many_are_rounded_up():
    rates = [0.02, 0.005, 0.02, 0.1]
    report = per_client_epsilon(rates, sigma=1.2, rounds=500, delta=1e-6)
    expected = [direct(q, 1.2, 500, 1e-6) for q in rates]
    assert report.epsilons == pytest.approx(expected, rel=1e-8)
    assert all(e >= x for e, x in zip(report.epsilons, expected, strict=True))
    assert report.worst == pytest.approx(
        max(expected), rel=1e-8
    ) and report.median == pytest.approx(np.median(expected), rel=1e-8)

    many = np.random.default_rng(3).uniform(1e-3, 0.05, GRID_POINTS + 500)
    rounded = per_client_epsilon(many, sigma=1.2, rounds=500, delta=1e-6)
    for i in (0, 17, 1999, len(many) - 1):
        assert rounded.epsilons[i] >= direct(many[i], 1.2, 500, 1e-6) * (1 - 1e-12)
    assert rounded.quantiles([1.0])[1.0] == rounded.worst
    with pytest.raises(ValueError, match="participation_rates"):
        per_client_epsilon([0.0, 0.1], sigma=1.0, rounds=10, delta=1e-5)


def test_a_realized_record_is_the_gaussian_mechanism_without_amplification():
    counts, sigma, delta = np.array([0, 1, 9, 40]), 3.0, 1e-5
    got = realized_client_epsilon(counts, sigma=sigma, delta=delta)
    for k, eps in zip(counts[1:], got[1:], strict=True):
        mu = math.sqrt(k) / sigma

        def excess(e: float, mu: float = mu) -> float:
            return float(
                stats.norm.cdf(-e / mu + mu / 2)
                - math.exp(e) * stats.norm.cdf(-e / mu - mu / 2)
                - delta
            )

        exact = optimize.brentq(excess, 0.0, 60.0, xtol=1e-14)
        assert exact <= eps <= exact * (1 + 1e-9)
    assert got[0] == 0.0
