"""``noise_relative_to``: the noise multiplier read over the clip norm C (the default) or over the replace-one
sensitivity 2C, as dp_accounting's RDP accountant reads ``GaussianDpEvent`` under REPLACE_ONE (its PLD accountant
reads it over C and applies the shift 2)."""

from __future__ import annotations

import dp_accounting as dpa
import pytest
from dp_accounting.pld import PLDAccountant
from dp_accounting.rdp import RdpAccountant

from hockeystick.training import DPSGD, DPFedAvg

REPLACE_ONE = dpa.NeighboringRelation.REPLACE_ONE
DELTA = 1e-6


def _peer(event: dpa.DpEvent, count: int, accountant: type) -> float:
    acc = accountant(neighboring_relation=REPLACE_ONE)
    acc.compose(event, count)
    return float(acc.get_epsilon(DELTA))


def test_every_client_each_round_is_the_gaussian_of_twice_the_noise():
    # m = n: no sampling, T Gaussian rounds under replace-one.  Read over 2C, z = 2 is the noise 4 C:
    # dp_accounting's PLD (which reads z over C, shift 2) for GaussianDpEvent(4.0) lies in the bracket, within
    # its own discretization's tolerance; its RDP for GaussianDpEvent(2.0) (the reading over 2C) is an upper bound
    z, rounds = 2.0, 3
    run = DPFedAvg(
        total_clients=50,
        clients_per_round=50,
        rounds=rounds,
        noise_multiplier=z,
        sampling="fixed_size",
        noise_relative_to="replace_one_sensitivity",
    )
    lower, upper = run.epsilon(DELTA, bound="both")
    pld = _peer(dpa.GaussianDpEvent(2 * z), rounds, PLDAccountant)
    assert lower - 1e-3 <= pld <= upper + 1e-3
    assert upper <= _peer(dpa.GaussianDpEvent(z), rounds, RdpAccountant)
    # the default reading (over C) is dp_accounting's PLD of the same z: a run with half the noise
    default = DPFedAvg(
        total_clients=50,
        clients_per_round=50,
        rounds=rounds,
        noise_multiplier=z,
        sampling="fixed_size",
    )
    low_c, up_c = default.epsilon(DELTA, bound="both")
    assert low_c - 1e-3 <= _peer(dpa.GaussianDpEvent(z), rounds, PLDAccountant) <= up_c + 1e-3
    assert low_c > 2 * upper


def test_fixed_size_sampling_read_over_2c_is_the_default_with_z_doubled_and_below_the_peers_rdp():
    words = {"total_clients": 1000, "clients_per_round": 50, "rounds": 50, "sampling": "fixed_size"}
    peer_reading = DPFedAvg(
        noise_multiplier=0.8, noise_relative_to="replace_one_sensitivity", **words
    )
    doubled = DPFedAvg(noise_multiplier=1.6, **words)
    assert float(peer_reading.noise_multiplier) == 1.6
    assert peer_reading.epsilon(DELTA, bound="both") == doubled.epsilon(DELTA, bound="both")
    # dp_accounting's RDP of the same event, z over 2C (FL4Health's fixed-size client accountant): an upper bound
    rdp = _peer(
        dpa.SampledWithoutReplacementDpEvent(1000, 50, dpa.GaussianDpEvent(0.8)), 50, RdpAccountant
    )
    assert peer_reading.epsilon(DELTA) <= rdp


def test_the_repr_names_the_unit_and_the_peers_z():
    run = DPSGD(
        dataset_size=1000,
        batch_size=50,
        steps=10,
        noise_multiplier=0.8,
        sampling="shuffle",
        noise_relative_to="replace_one_sensitivity",
    )
    assert run.noise_relative_to == "replace_one_sensitivity" and float(run.noise_multiplier) == 1.6
    assert (
        "z per clip norm C; replace-one sensitivity 2C: dp_accounting's REPLACE_ONE GaussianDpEvent(0.8)"
        in repr(run)
    )
    poisson = DPFedAvg(total_clients=1000, clients_per_round=50, rounds=10, noise_multiplier=1.0)
    assert poisson.noise_relative_to == "clip_norm" and "add-or-remove sensitivity" in repr(poisson)
    staged = DPSGD(dataset_size=1000, batch_size=50, stages=[{"noise_multiplier": 1.0, "steps": 5}])
    assert staged.noise_relative_to == "clip_norm"


@pytest.mark.parametrize(
    "words, match",
    [
        (
            {"sampling": "poisson", "noise_relative_to": "replace_one_sensitivity"},
            "add-or-remove neighbours",
        ),
        (
            {"sampling": "balls_in_bins", "noise_relative_to": "replace_one_sensitivity"},
            "add-or-remove neighbours",
        ),
        ({"sampling": "fixed_size", "noise_relative_to": "sensitivity"}, "noise_relative_to"),
        (
            {
                "sampling": "fixed_size",
                "noise_relative_to": "replace_one_sensitivity",
                "noise_multiplier": 1e308,
            },
            "overflows",
        ),
    ],
)
def test_refusals_name_the_rule(words, match):
    kwargs = {
        "total_clients": 100,
        "clients_per_round": 10,
        "rounds": 5,
        "noise_multiplier": 1.0,
        **words,
    }
    with pytest.raises(ValueError, match=match):
        DPFedAvg(**kwargs)
