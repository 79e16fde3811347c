"""The noise multiplier of a Poisson-sampled training run whose every noise meets the target (epsilon 1e308 or
inf): the run's RDP bound at the smallest noise searched settles it at the search's start, where the PLD is
evaluated and meets the target; no PLD is built at a smaller noise (a subsampled step of small noise has a
loss grid of tens of millions of points, refused only once built)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import registry
from hockeystick.calibrate import calibrate, calibrate_fixed_compute
from hockeystick.pld.refine import round_cache
from hockeystick.training import DPSGD, DPFedAvg

START = 1.0  # the search's start where the run has no central-limit estimate (a target past epsilon 1e307)


@pytest.fixture
def built_noises(monkeypatch):
    """The noises the PLD builder is asked for; a noise below the start fails the test at once."""
    asked: list[float] = []
    original = round_cache.discretized

    def recording(pairs, *args, **kwargs):
        sigmas = [float(pair[0]) for pair in pairs]
        asked.extend(sigmas)
        assert min(sigmas) >= START, f"a PLD built at noise {min(sigmas)!r}, below the start"
        return original(pairs, *args, **kwargs)

    monkeypatch.setattr(round_cache, "discretized", recording)
    return asked


@pytest.mark.parametrize("epsilon", [1e308, math.inf])
def test_fixed_compute_at_a_target_every_noise_meets_builds_no_pld_below_the_start(
    built_noises, epsilon
):
    sizes = [16, 64, 125]
    table = calibrate_fixed_compute(
        dataset_size=1000, epochs=1, epsilon=epsilon, delta=1e-5, batch_sizes=sizes, workers=1
    )
    assert built_noises, "the start is evaluated on the PLD"
    np.testing.assert_array_equal(table.noise_multiplier, START)
    for b, z, e in zip(sizes, table.noise_multiplier, table.epsilon):
        run = DPSGD(noise_multiplier=z, dataset_size=1000, batch_size=b, epochs=1)
        assert (
            run.delta(min(epsilon, 1e308)) <= 1e-5
        )  # certified: the run's upper bound meets the target
        assert e == min(run.epsilon(1e-5), epsilon)


def test_training_runs_in_other_words_are_settled_at_their_start(built_noises):
    by_rate = calibrate(
        "dp_sgd", "noise_multiplier", epsilon=1e308, delta=1e-5, sample_rate=0.01, steps=1000
    )
    assert by_rate == START
    assert DPSGD(noise_multiplier=by_rate, sample_rate=0.01, steps=1000).delta(1e308) <= 1e-5
    clients = dict(total_clients=100, clients_per_round=10, rounds=5)
    fedavg = calibrate("dp_fedavg", "noise_multiplier", epsilon=math.inf, delta=1e-5, **clients)
    assert fedavg == START
    assert DPFedAvg(noise_multiplier=fedavg, **clients).epsilon(1e-5) < math.inf


def test_a_target_beside_it_is_searched_as_alone():
    run = dict(
        dataset_size=1000, batch_size=64, epochs=2, value_discretization_interval=1e-3, workers=1
    )
    both = calibrate("dp_sgd", "noise_multiplier", epsilon=[1e308, 2.0], delta=1e-5, **run)
    alone = calibrate("dp_sgd", "noise_multiplier", epsilon=2.0, delta=1e-5, **run)
    grid = {k: v for k, v in run.items() if k != "workers"}
    estimate = registry.get("dp_sgd").factory.calibration_start(
        "noise_multiplier", np.array([1e308, 2.0]), np.array([1e-5, 1e-5]), grid
    )
    assert both[0] == estimate[0]  # the start the search had: the estimate of both targets
    assert DPSGD(noise_multiplier=both[0], **grid).delta(1e308) <= 1e-5
    assert both[1] == alone
    assert DPSGD(noise_multiplier=alone, **grid).delta(2.0) <= 1e-5
    assert (
        DPSGD(noise_multiplier=alone * (1 - 1e-6), **grid).delta(2.0) > 1e-5
    )  # extremal: less noise breaks it


def test_lower_side_is_zero_without_a_pld(built_noises):
    run = dict(dataset_size=1000, batch_size=64, epochs=1)
    lower = calibrate("dp_sgd", "noise_multiplier", epsilon=1e308, delta=1e-5, bound="lower", **run)
    assert lower == 0.0  # a lower bound meets the target at every noise: nothing is certain
    assert not built_noises
    both = calibrate(
        "dp_sgd", "noise_multiplier", epsilon=[1e308, math.inf], delta=1e-5, bound="both", **run
    )
    np.testing.assert_array_equal(both[0], 0.0)
    np.testing.assert_array_equal(both[1], START)
    assert min(built_noises) == START


@pytest.mark.parametrize("steps_per_epoch", ["ceil", "opacus"])
def test_fixed_compute_under_either_epoch_count_is_settled(built_noises, steps_per_epoch):
    table = calibrate_fixed_compute(
        dataset_size=1000,
        epochs=1,
        epsilon=1e308,
        delta=1e-5,
        batch_sizes=[50],
        steps_per_epoch=steps_per_epoch,
    )
    np.testing.assert_array_equal(table.noise_multiplier, START)
