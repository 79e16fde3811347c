"""A question of one side gets that side of the bracket, bit for bit (pld/grid/distribution.py, pld/question/reader.py).

A composed PLD's ``epsilon(delta)`` (``bound="upper"``, the default) asks the front door for the upper side alone;
its answer must be the upper side of ``bound="both"``, float for float, and no lower than the certified lower side
nor above the RDP conversion (an independent certified bound).  A delta keeps asking both sides: the default's fine
and split reads skip a bracket the fixed grid's lower side makes exact, so the upper side read alone can end lower.
``bound="lower"`` is the lower side of ``bound="both"``: the PLD's own composition's lower side raises it too.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.pld.question import RunReader
from hockeystick.rdp import SubsampledGaussianRDP

# (noise multiplier, sampling rate, rounds): the README's DP-SGD run and a cross-device DP-FedAvg run
README = (1.1, 256 / 60_000, 14_100)
FEDAVG = (1.0, 1000 / 1_000_000, 5000)


@pytest.mark.parametrize(
    "run, delta",
    [(README, 1e-5), (README, 1e-10), (FEDAVG, 1e-10)],
    ids=["readme-1e-5", "readme-1e-10", "fedavg-1e-10"],
)
def test_an_upper_only_epsilon_is_the_brackets_upper_side(run, delta):
    sigma, q, rounds = run
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        upper = pld.subsampled_gaussian(sigma, q).self_compose(rounds).epsilon(delta)
        lower, both_upper = (
            pld.subsampled_gaussian(sigma, q).self_compose(rounds).epsilon(delta, bound="both")
        )
    assert float(upper).hex() == float(both_upper).hex(), (upper, both_upper)
    rdp = float(SubsampledGaussianRDP(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(delta))
    assert 0.0 < lower <= upper <= rdp * (1 + 1e-9), (lower, upper, rdp)


class _Spy:
    """A front door that records the side each question asks of ``SubsampledGaussianPLD``."""

    def __init__(self):
        self.asked = []

    def __call__(self, sigma, sampling_rate, rounds):
        accountant = pld.SubsampledGaussianPLD(sigma, sampling_rate, rounds)
        spy = self

        class Asked:
            def epsilon(self, x, *, bound):
                spy.asked.append(("epsilon", bound))
                return accountant.epsilon(x, bound=bound)

            def delta(self, x, *, bound):
                spy.asked.append(("delta", bound))
                return accountant.delta(x, bound=bound)

        return Asked()


def test_the_reader_asks_the_front_door_only_the_side_an_upper_epsilon_needs():
    """Epsilon's upper side alone is asked alone (and is the bracket's, bit for bit, its lower side left 0); a
    bracket, and a delta's upper side, ask both."""
    dist = pld.subsampled_gaussian(1.0, 0.01).self_compose(100)
    x = np.array(1e-6)
    own = (np.array(0.0), np.array(np.inf))
    spy = _Spy()
    reader = RunReader(spy)
    ((low, up),) = reader.read_many([dist], "epsilon", [x], [own], "upper")
    ((both_low, both_up),) = reader.read_many([dist], "epsilon", [x], [own], "both")
    reader.read_many([dist], "delta", [np.array(1.0)], [(np.array(0.0), np.array(1.0))], "upper")
    assert spy.asked == [("epsilon", "upper"), ("epsilon", "both"), ("delta", "both")]
    assert float(up).hex() == float(both_up).hex() and float(low) == 0.0 < float(both_low) <= float(
        up
    )


def test_an_upper_only_delta_keeps_the_brackets_upper_side():
    """sigma 0.5, q 0.3, 5 rounds: the fixed grid's lower side makes these brackets exact, so the bracket's upper
    side is the fixed grid's; ``SubsampledGaussianPLD``'s upper side alone reads the fine and split reads and ends up
    to 1e-7 lower.  The PLD object's upper-only delta asks both sides and is the bracket's upper side."""
    sigma, q, rounds = 0.5, 0.3, 5
    eps = np.array([0.1, 1.0, 3.0])
    upper = pld.subsampled_gaussian(sigma, q).self_compose(rounds).delta(eps)
    lower, both_upper = (
        pld.subsampled_gaussian(sigma, q).self_compose(rounds).delta(eps, bound="both")
    )
    assert [float(v).hex() for v in upper] == [float(v).hex() for v in both_upper]
    assert np.all(lower <= upper) and np.all(upper - lower <= 1e-7 * upper)


def test_a_lower_only_epsilon_is_the_brackets_lower_side():
    """The README run at delta 1e-5: the PLD's own composition's lower side (0x1.3149cd4e0cbeap+1) is above the front
    door's, so the lower side alone must take it as the bracket does; certified, it lies below the RDP conversion."""
    sigma, q, rounds = README
    delta = 1e-5
    lower = pld.subsampled_gaussian(sigma, q).self_compose(rounds).epsilon(delta, bound="lower")
    both_lower, upper = (
        pld.subsampled_gaussian(sigma, q).self_compose(rounds).epsilon(delta, bound="both")
    )
    assert float(lower).hex() == float(both_lower).hex(), (lower, both_lower)
    rdp = float(SubsampledGaussianRDP(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(delta))
    assert 0.0 < lower <= upper <= rdp * (1 + 1e-9), (lower, upper, rdp)
