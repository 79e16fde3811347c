"""dp_accounting's ``RandomAllocationDpEvent(event, num_selected, num_steps)`` (its releases after 0.6.0): each
record joins a uniform k-subset of the t steps.  Where the installed dp_accounting lacks the class, a stand-in with
its name and fields is taken, as the adapter matches it by name and fields."""

from __future__ import annotations

import math

import attr
import pytest
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation, UnsupportedEventError
from scipy.optimize import brentq
from scipy.stats import norm

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.interop.dp_accounting.allocation_events import BallsInBinsGaussianDpEvent
from hockeystick.pld import BallsInBinsGaussianPLD


@attr.s(frozen=True, slots=True, auto_attribs=True)
class RandomAllocationDpEvent(dp_event.DpEvent):
    """A stand-in with the fields of dp_accounting's event (google/differential-privacy, dp_event.py)."""

    event: dp_event.DpEvent
    num_selected: int
    num_steps: int


EVENT = getattr(dp_event, "RandomAllocationDpEvent", RandomAllocationDpEvent)
# dp_accounting's own test value of the event's PLD epsilon: sigma 2, 10 of 100 steps, delta 1e-6
PEER_EPSILON = 2.4265


def _bracket(event: dp_event.DpEvent, delta: float, count: int = 1) -> tuple[float, float]:
    return HockeystickPLDAccountant().compose(event, count).get_epsilon_bracket(delta)


def _gaussian_epsilon(mu: float, delta: float) -> float:
    """epsilon(delta) of the Gaussian pair of radius mu (Balle & Wang 2018, Thm 8), solved by scipy."""

    def excess(eps: float) -> float:
        return norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * norm.cdf(-mu / 2 - eps / mu) - delta

    return brentq(excess, 0.0, 50.0, xtol=1e-12)


def test_ten_of_a_hundred_steps_lies_below_the_peers_value_and_in_the_allocation_bracket():
    lower, upper = _bracket(
        EVENT(dp_event.GaussianDpEvent(2.0), num_selected=10, num_steps=100), 1e-6
    )
    # the peer's value is an epsilon of the same pair: never below our certified lower side; ours is certified
    # above, and no looser than it
    assert lower <= upper <= PEER_EPSILON
    # our own accountant of k of t steps per record (the same decomposition into one-of-10 allocations)
    ours = BallsInBinsGaussianPLD(sigma=2.0, steps_per_epoch=100, rounds=100, steps_per_record=10)
    ours_lower, ours_upper = ours.epsilon(1e-6, bound="both")
    # the same decomposition, read on the adapter's default grid (7/8 of the accountant's 1e-4):
    # both certified, within 1e-6
    assert upper == pytest.approx(ours_upper, abs=1e-6)
    # the lower side is the epoch's summed outputs, the Gaussian of radius k / (sigma sqrt t) = 0.5: on the loss
    # grid here, in closed form there, both certified below it
    exact = _gaussian_epsilon(0.5, 1e-6)
    assert lower <= exact * (1 + 1e-9) and ours_lower <= exact * (1 + 1e-9)
    assert lower == pytest.approx(exact, rel=1e-6)
    assert upper - lower < 0.2


def test_one_step_per_record_is_balls_in_bins_and_every_step_is_the_composed_gaussian():
    one = _bracket(
        EVENT(dp_event.GaussianDpEvent(1.5), num_selected=1, num_steps=20), 1e-5, count=3
    )
    assert one == _bracket(
        BallsInBinsGaussianDpEvent(noise_multiplier=1.5, num_steps=20), 1e-5, count=3
    )
    lower, upper = _bracket(
        EVENT(dp_event.GaussianDpEvent(3.0), num_selected=5, num_steps=5), 1e-5, count=2
    )
    exact = _gaussian_epsilon(math.sqrt(10) / 3.0, 1e-5)  # ten Gaussians of radius 1/3
    assert lower <= exact * (1 + 1e-9) and exact <= upper * (1 + 1e-9) and upper - lower < 1e-6


@pytest.mark.parametrize(
    "event, relation, error, match",
    [
        (
            EVENT(dp_event.GaussianDpEvent(1.0), 2, 10),
            NeighboringRelation.REPLACE_ONE,
            UnsupportedEventError,
            "REPLACE_ONE",
        ),
        (
            EVENT(dp_event.LaplaceDpEvent(1.0), 2, 10),
            NeighboringRelation.ADD_OR_REMOVE_ONE,
            UnsupportedEventError,
            "GaussianDpEvent only",
        ),
        (
            EVENT(dp_event.GaussianDpEvent(1.0), 11, 10),
            NeighboringRelation.ADD_OR_REMOVE_ONE,
            ValueError,
            "num_selected must be <= num_steps",
        ),
        (
            EVENT(dp_event.GaussianDpEvent(1.0), 0, 10),
            NeighboringRelation.ADD_OR_REMOVE_ONE,
            ValueError,
            "num_selected must be an integer >= 1",
        ),
    ],
)
def test_refusals_name_the_rule(event, relation, error, match):
    with pytest.raises(error, match=match):
        HockeystickPLDAccountant(neighboring_relation=relation).compose(event)


@pytest.mark.parametrize(
    "name, bad", [("num_selected", True), ("num_steps", "10"), ("num_steps", None)]
)
def test_a_count_that_is_not_an_integer_is_refused_by_name(name, bad):
    event = attr.evolve(EVENT(dp_event.GaussianDpEvent(1.0), 2, 10), **{name: bad})
    with pytest.raises(ValueError, match=f"RandomAllocationDpEvent.{name} must be an integer"):
        HockeystickPLDAccountant().compose(event)
