"""Calibration reads the accountant as built from the caller's parameters: the Poisson-sampled PLD accountants'
default read, chosen from the question, is the one a user checks the answer against, so the largest rounds
calibrated is the last count that read certifies, and the next one it does not."""

from __future__ import annotations

import warnings

import pytest

from hockeystick import registry
from hockeystick.calibrate import calibrate
from hockeystick.training import DPSGD, DPFedAvg

FEDAVG = dict(total_clients=10**6, clients_per_round=1000, noise_multiplier=1.0)


def test_the_largest_rounds_is_the_last_count_the_default_read_certifies():
    """DP-FedAvg, 1000 of 10^6 clients a round at z = 1, target (1, 1e-10): 14 795 rounds (epsilon 0.99997 by
    the run's own read); 14 796 misses (epsilon 1.0000006)."""
    rounds = calibrate("dp_fedavg", "rounds", epsilon=1.0, delta=1e-10, **FEDAVG)
    assert isinstance(rounds, int)
    assert DPFedAvg(**FEDAVG, rounds=rounds).delta(1.0) <= 1e-10
    assert DPFedAvg(**FEDAVG, rounds=rounds).epsilon(1e-10) <= 1.0
    assert DPFedAvg(**FEDAVG, rounds=rounds + 1).delta(1.0) > 1e-10
    assert rounds == 14_795


@pytest.mark.parametrize("name", ["dp_sgd", "pld_subsampled_gaussian"])
def test_a_small_target_delta_calibrates_on_the_default_read(name):
    """At delta 1e-10 the noise calibrated meets the target by the accountant's default read, and 1e-9 less noise
    does not (the answer is the smallest, to rtol): a fixed accuracy would answer for another read."""
    run = (
        dict(sample_rate=256 / 60_000, steps=14_100)
        if name == "dp_sgd"
        else dict(sampling_rate=256 / 60_000, rounds=14_100)
    )
    noise = "noise_multiplier" if name == "dp_sgd" else "sigma"
    sigma = calibrate(name, noise, epsilon=3.0, delta=1e-10, **run)
    entry = registry.get(name)
    assert entry.build(**run, **{noise: sigma}).delta(3.0) <= 1e-10
    assert entry.build(**run, **{noise: sigma * (1 - 1e-9)}).delta(3.0) > 1e-10


def test_readme_run_calibrated_at_delta_1e_10_is_within_half_a_percent_of_the_lower_side():
    run = dict(sample_rate=256 / 60_000, steps=14_100)
    sigma = calibrate("dp_sgd", "noise_multiplier", target_epsilon=3, target_delta=1e-10, **run)
    # 0.5 % less noise certainly misses it (its certified lower epsilon above 3): sigma <= 1.005 sigma_lo
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a bracket wider than 1e-4 is still certified
        lower = DPSGD(noise_multiplier=sigma / 1.005, **run, accuracy=1e-4).epsilon(
            1e-10, bound="lower"
        )
    assert lower > 3
