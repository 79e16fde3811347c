"""The delta of a composed PLD whose factors describe no run, read under the tilts of a ladder on its
own grid (``pld.question.tilted_own_grid_delta``, the core's ``OwnGridDeltas``): against the closed form of Gaussian compositions
(mpmath), against the same PLD's epsilon read (a round trip), its plain bracket where the plain
charges are small, one composition per tilt shared by every eps of it and held between calls, and the
binding's refusals."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.grid.distribution import PrivacyLossDistribution
from hockeystick.pld.question import tilted_own_grid_delta
from hockeystick.pld.question.tilted_own_grid import direction_optimistic, direction_pessimistic

from .test_tilted_own_grid import MP_DPS, RUNS, _exact_delta, _exact_epsilon


@pytest.mark.parametrize("run", sorted(RUNS))
def test_delta_of_undescribed_gaussians_is_the_closed_forms(run: str) -> None:
    """At the epsilons of delta 1e-10 and 1e-12 and at eps 12, where the plain bracket is wider than
    1e-3 of the exact delta: the exact value inside, each side within 1e-3 of it relatively; each side
    asked alone is the bracket's, bit for bit."""
    make, r = RUNS[run]
    eps = np.array([_exact_epsilon(r, 1e-10), _exact_epsilon(r, 1e-12), 12.0])
    with mpmath.workdps(MP_DPS):
        exact = np.array([float(_exact_delta(r, mpmath.mpf(e))) for e in eps])
    plain_lower, plain_upper = make().delta(eps, bound="both", composition_only=True)
    assert np.all(plain_upper - plain_lower > 1e-3 * exact)  # the plain read was wide
    lower, upper = make().delta(eps, bound="both")
    assert np.all((lower <= exact) & (exact <= upper)), (lower, exact, upper)
    assert np.all(upper - exact <= 1e-3 * exact) and np.all(exact - lower <= 1e-3 * exact)
    assert [v.hex() for v in make().delta(eps, bound="upper")] == [v.hex() for v in upper]
    assert [v.hex() for v in make().delta(eps, bound="lower")] == [v.hex() for v in lower]


def _allocation() -> PrivacyLossDistribution:
    """Ten epochs of random allocation (balls-in-bins) over 10 steps of noise 1, grid 5e-3."""
    epoch = pld.random_allocation_gaussian(
        10, 1.0, value_discretization_interval=5e-3, sum_resolution=0.1
    )
    return epoch.self_compose(10)


ROUND_TRIPS = {
    "random allocation": _allocation,
    "Laplace x 40": lambda: pld.laplace(10.0).self_compose(40),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
@pytest.mark.parametrize("delta", [1e-10, 1e-12])
def test_delta_at_the_epsilon_bracket_of_delta_meets_delta(name: str, delta: float) -> None:
    """delta at the epsilon bracket of ``delta``: at its upper side a lower delta at most ``delta``
    and an upper delta within 1e-3 of it, at its lower side an upper delta at least ``delta`` and a
    lower delta within 1e-3 of it (the true curve passes ``delta`` between them), where the plain
    composition's delta bracket at one of them misses ``delta`` by more than that."""
    dist = ROUND_TRIPS[name]()
    lower, upper = dist.epsilon(delta, bound="both")
    at_lower = dist.delta(lower, bound="both")
    at_upper = dist.delta(upper, bound="both")
    assert at_upper[0] <= delta <= at_lower[1]
    assert at_upper[1] <= delta * (1.0 + 1e-3) and at_lower[0] >= delta * (1.0 - 1e-3)
    plain_low, plain_up = dist.delta(np.array([lower, upper]), bound="both", composition_only=True)
    assert plain_up[1] > delta * (1.0 + 1e-3) or plain_low[0] < delta * (1.0 - 1e-3)


def test_a_delta_the_plain_charges_leave_exact_is_its_plain_bracket_bit_for_bit() -> None:
    """Laplace(10) x 40 at eps 0.5 to 2 (delta 0.3 to 2e-3): the plain charges are far below 1e-4 of
    delta, so the bracket is the plain one, bit for bit; at eps 3.8 (delta ~1e-13) it is narrower."""
    eps = np.array([0.5, 1.0, 2.0, 3.8])
    plain = pld.laplace(10.0).self_compose(40).delta(eps, bound="both", composition_only=True)
    lower, upper = pld.laplace(10.0).self_compose(40).delta(eps, bound="both")
    assert [v.hex() for v in lower[:3]] == [v.hex() for v in plain[0][:3]]
    assert [v.hex() for v in upper[:3]] == [v.hex() for v in plain[1][:3]]
    assert plain[0][3] < lower[3] <= upper[3] < plain[1][3]


def test_one_composition_per_tilt_shared_by_its_epsilons_and_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The eps of one ladder tilt read one composition per side, each eps's bracket the one it gets
    asked alone, bit for bit; the same PLD built again reads the compositions held; with no memory
    to hold them, a later call composes again."""
    held = _core.pld_refine.OwnGridDeltas()
    monkeypatch.setattr(tilted_own_grid_delta, "HELD", held)

    def build(scale: float = 10.25) -> PrivacyLossDistribution:
        return pld.laplace(scale).self_compose(40)

    eps = np.array([3.4, 3.6, 3.8])  # one rung (sqrt(2)^3 <= eps < 4), delta 1e-11 to 1e-13
    lower, upper = build().delta(eps, bound="both")
    assert held.compositions == (1, 1)
    alone = [build().delta(float(e), bound="both") for e in eps]
    assert [(lo.hex(), up.hex()) for lo, up in alone] == [
        (lo.hex(), up.hex()) for lo, up in zip(lower, upper)
    ]
    assert held.compositions == (1, 1)  # the rebuilt PLDs read the windows held
    held.held_points = 0
    build(10.5).delta(eps, bound="both")  # its windows forget those held
    build().delta(eps, bound="both")
    assert held.compositions == (3, 3)


def test_the_held_reads_refuse_arguments_outside_their_domain() -> None:
    """The core's delta reads refuse a negative budget of held points, arrays of several lengths and
    an unknown bound, each by a ValueError naming the argument."""
    with pytest.raises(ValueError, match="held_points"):
        _core.pld_refine.OwnGridDeltas(held_points=-1)
    dist = pld.laplace(10.0).self_compose(40)
    directions = [
        (pmf, direction_pessimistic(d), direction_optimistic(d))
        for pmf, d in zip(dist.composed(True), dist.directions)
    ]
    held = _core.pld_refine.OwnGridDeltas()
    one = np.ones(1)
    with pytest.raises(ValueError, match="eps, lower and upper"):
        held.deltas(directions, eps=np.ones(2), lower=one, upper=one)
    with pytest.raises(ValueError, match="bound"):
        held.deltas(directions, eps=one, lower=one, upper=one, bound="neither")
    with pytest.raises(ValueError, match="directions"):
        held.deltas([], eps=one, lower=one, upper=one)
