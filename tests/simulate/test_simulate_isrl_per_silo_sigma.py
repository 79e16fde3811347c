"""Per-silo sigma_i in the simulator's ISRL-DP runs (paper 003 Thm H.1): a scalar and an all-equal array are
bit-identical to today's runs; a heterogeneous array noises each silo with its own sigma_i and reports each
silo's guarantee, the run's being the worst silo's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hockeystick.simulate as sim
from hockeystick.simulate import privacy

RUNS = {
    "minibatch": lambda data, **kw: sim.isrl_minibatch_sgd(data, batch=4, **kw),
    "local": lambda data, **kw: sim.isrl_local_sgd(data, local_steps=3, **kw),
}


@pytest.fixture(scope="module")
def data():
    return sim.synthetic("logistic", 4, 30, 3, seed=3)


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_scalar_and_all_equal_array_are_bit_identical(data, kind):
    kw = dict(rounds=12, rate=0.1, clip=1.0, seed=4)
    scalar = RUNS[kind](data, sigma=1.3, **kw)
    array = RUNS[kind](data, sigma=np.full(data.n_clients, 1.3), **kw)
    assert np.array_equal(scalar.weights, array.weights)
    assert np.array_equal(scalar.loss, array.loss) and np.array_equal(
        scalar.accuracy, array.accuracy
    )
    assert scalar.epsilons(1e-5) == array.epsilons(1e-5)
    assert "silo_privacy" not in array.config


@pytest.mark.parametrize("kind", sorted(RUNS))
def test_each_silo_gets_its_own_guarantee_and_the_run_the_worst(data, kind):
    sigmas = np.array([0.8, 1.5, 3.0, 6.0])
    run = RUNS[kind](data, sigma=sigmas, rounds=10, rate=0.1, clip=1.0, seed=1)
    per_silo = run.config["silo_privacy"]
    assert len(per_silo) == data.n_clients
    sizes = np.diff(data.offsets)
    eps = [g.epsilon(1e-5) for g in per_silo]
    for i, (s, size) in enumerate(zip(sigmas, sizes)):
        ref = (
            privacy.isrl_one_sample_steps(1.0, s, 10 * 3, int(size))
            if kind == "local"
            else privacy.isrl_minibatch_rounds(1.0, s, 4, 10, int(size))
        )
        assert eps[i] == ref.epsilon(1e-5)
    assert eps == sorted(eps, reverse=True)  # more noise, less spent
    composed, worst = run.privacy
    assert worst.epsilon(1e-5) == max(eps)
    assert worst.delta(1.0) == max(g.delta(1.0) for g in per_silo)
    assert run.best_epsilon(1e-5) == min(worst.epsilon(1e-5), composed.epsilon(1e-5))
    assert composed.epsilon(1e-5) == privacy.isrl_composition(
        1.0, 0.8, 10 * (3 if kind == "local" else 1)
    ).epsilon(1e-5)


def test_minibatch_noise_is_the_mean_of_the_selected_silos_noise(data):
    """Only silo 0 noisy (sigma_0 = s): the server's noise is N(0, s^2 / m^2), the scalar run's at s / sqrt(m)
    with the same draws."""
    m, s = data.n_clients, 2.0
    kw = dict(rounds=8, rate=0.1, clip=1.0, seed=6)
    het = sim.isrl_minibatch_sgd(data, batch=4, sigma=np.array([s, 0.0, 0.0, 0.0]), **kw)
    same = sim.isrl_minibatch_sgd(data, batch=4, sigma=s / math.sqrt(m), **kw)
    np.testing.assert_allclose(het.weights, same.weights, rtol=1e-12, atol=1e-15)
    assert het.privacy == []  # a silo without noise has no guarantee, so neither has the run


def test_refusals(data):
    with pytest.raises(ValueError, match="one value per silo"):
        sim.isrl_minibatch_sgd(data, batch=4, sigma=np.ones(3), rounds=2, rate=0.1)
    with pytest.raises(ValueError, match="sigma >= 0"):
        sim.isrl_local_sgd(
            data, local_steps=2, sigma=np.array([1.0, -1.0, 1.0, 1.0]), rounds=2, rate=0.1
        )
