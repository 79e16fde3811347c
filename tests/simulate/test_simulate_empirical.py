"""Empirical checks: measured sensitivity and Monte-Carlo hockey-stick divergences stay below the bounds."""

from __future__ import annotations

import numpy as np
import pytest

import hockeystick.simulate as sim
from hockeystick.simulate import privacy
from hockeystick.simulate.empirical import (
    hockey_stick_lower_bound,
    sensitivity_bound,
    sensitivity_trajectory,
)
from hockeystick.simulate.models import smoothness_constants
from hockeystick.simulate.schedules import learning_rates


@pytest.mark.parametrize(
    "proximal, schedule",
    [(0.0, "constant"), (0.0, "cyclic"), (2.0, "constant"), (0.5, "continuous")],
)
def test_empirical_sensitivity_below_the_recursion_bound(proximal, schedule):
    """Paper 004 Figure 2's experiment: ||w_t - w'_t|| under shared randomness <= Delta_t."""
    data = sim.synthetic("logistic", 5, 3, 4, label_concentration=0.5, seed=3)
    row = 4
    # same label, reflected features: the two clipped gradients point opposite ways (flipping the
    # label as well would make them equal wherever both are clipped)
    neighbour = data.replace_sample(row, -3.0 * data.features[row], data.labels[row])
    options = dict(
        rounds=30,
        local_steps=4,
        rate=0.3,
        schedule=schedule,
        clip=0.5,
        sigma=0.4,
        proximal=proximal,
        batch_size=1,
        seed=8,
    )
    measured = sensitivity_trajectory(sim.noisy_fedavg, data, neighbour, **options)
    beta = max(
        smoothness_constants("logistic", d.features, d.labels, 0.0)[1] for d in (data, neighbour)
    )
    rho, gamma = privacy.fedprox_sensitivities(
        learning_rates(schedule, 0.3, 30, 4), beta, proximal, 0.5, data.n_clients
    )
    bound = sensitivity_bound(rho, gamma)
    assert measured[0] == 0.0 and measured[-1] > 0.0
    assert np.all(measured <= bound * (1 + 1e-12))


def pnsgd_data(n: int, i: int, label: float) -> sim.FederatedData:
    """1-D linear regression with x = 1: l(y; x, t) = (y - t)^2 / 2, 1-smooth, 1-strongly convex;
    neighbours differ in input i's label (+label vs -label), the rest are 0."""
    labels = np.zeros(n)
    labels[i - 1] = label
    return sim.from_client_arrays([np.ones((n, 1))], [labels], "linear")


@pytest.mark.parametrize(
    "noise, scale, record, random_stop",
    [
        pytest.param("gaussian", 1.0, 6, False, marks=pytest.mark.slow),
        ("gaussian", 1.0, 5, False),
        ("gaussian", 2.0, 6, False),
        ("gaussian", 1.0, 4, False),
        ("gaussian", 1.0, 5, True),
        ("laplace", 1.0, 6, False),
        ("laplace", 1.0, 5, False),
    ],
)
def test_monte_carlo_divergence_below_paper_002_bounds(noise, scale, record, random_stop):
    n, replicas, eta = 6, 100_000, 0.5
    d, d_prime = pnsgd_data(n, record, 1.0), pnsgd_data(n, record, -1.0)
    options = dict(
        rate=eta, noise=noise, scale=scale, diameter=1.0, replicas=replicas, random_stop=random_stop
    )
    p = sim.pnsgd_final_iterates(d, seed=1, **options)
    q = sim.pnsgd_final_iterates(d_prime, seed=2, **options)
    bound = sim.pnsgd_guarantee(
        d, rate=eta, noise=noise, scale=scale, diameter=1.0, record=record, random_stop=random_stop
    )
    grid = np.linspace(-0.5, 0.5, 41)
    lowers = []
    for eps in (0.0, 0.25, 0.5, 1.0):
        lower, estimate = hockey_stick_lower_bound(p, q, eps, grid)
        assert lower <= estimate
        assert lower <= bound.delta(eps), (eps, lower, bound.delta(eps))
        lowers.append(lower)
    assert lowers[0] > 0.03  # the check is not vacuous: the divergence is really there


def test_lower_bound_is_close_for_a_pure_gaussian_shift():
    """Without projection or contraction, P = N(1, 1), P' = N(-1, 1): the bound approaches theta(2, eps)."""
    rng = np.random.default_rng(0)
    p, q = rng.normal(1.0, 1.0, 200_000), rng.normal(-1.0, 1.0, 200_000)
    for eps in (0.0, 0.5, 1.0):
        lower, estimate = hockey_stick_lower_bound(p, q, eps, np.linspace(-3, 3, 121))
        exact = float(privacy.gaussian_dp(2.0, "", "").delta(eps))
        assert lower <= exact < lower + 0.02
        assert estimate == pytest.approx(exact, abs=0.01)
