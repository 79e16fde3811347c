"""One run, one delta at an epsilon, whatever door it is asked through (pld/question): ``test_doors``' question
turned round.

Each door that answers delta at epsilon (the PLD objects on the default and a coarse grid, the ``PLDAccountant``
by default and on a grid, ``SubsampledGaussianPLD`` and ``DPSGD`` on dp_accounting's grid, the compose stages,
Flower's accountant, the dp_accounting adapter by default and on a grid) is asked at the front door's upper epsilon
for 1e-5, 1e-10 and 1e-12, and must give a bracket overlapping the front door's (both certified), finite, and an
upper side within the epsilon tolerance of the front door's curve: no larger than the front door's upper delta at
epsilon less max(1e-3, 0.1 % epsilon), ``test_doors``' tolerance read on the curve.  A grid given answers with
its own composition where it can (``default_reads.grid_sides``): on the README's run at epsilon 3.74 its upper
delta is 0.36 % above the front door's, an epsilon 2e-4 to the left on the curve.
"""

from __future__ import annotations

import functools
import math

import pytest

from hockeystick.training import DPSGD

from .test_doors import (
    ANSWERING,
    RUNS,
    _front,
    _quiet,
    composed_adapter,
    flower_accountant,
    tolerance,
)

DELTAS = [
    1e-10,
    pytest.param(1e-12, marks=pytest.mark.slow),
    pytest.param(1e-5, marks=pytest.mark.slow),
]


def _delta_of(make, sigma, q, rounds, eps):
    return make(sigma, q, rounds).delta(eps, bound="both")


def flower(sigma, q, rounds, eps, sample_size, population):
    # Flower's accountant answers an upper delta alone (its get_delta): the lower side is 0
    return 0.0, flower_accountant(sigma, rounds, 1e-5, sample_size, population).get_delta(eps)


def dp_accounting_adapter(sigma, q, rounds, eps):
    return composed_adapter(sigma, q, rounds).get_delta_bracket(eps)


def dp_accounting_adapter_on_grid(sigma, q, rounds, eps):
    return composed_adapter(sigma, q, rounds, 1e-4).get_delta_bracket(eps)


DOORS = {
    **{name: functools.partial(_delta_of, make) for name, make in ANSWERING.items()},
    "flower": flower,
    "dp_accounting": dp_accounting_adapter,
    "dp_accounting_on_grid": dp_accounting_adapter_on_grid,
}


def _front_delta(sigma, q, rounds, eps):
    return _quiet(
        lambda: DPSGD(noise_multiplier=sigma, sample_rate=q, steps=rounds).delta(eps, bound="both")
    )


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("door", sorted(DOORS))
def test_every_door_gives_the_front_doors_delta(door, run, delta):
    sigma, sample_size, population, rounds = RUNS[run]
    q = sample_size / population
    eps = _front(sigma, q, rounds, delta)[1]
    extra = (sample_size, population) if door == "flower" else ()
    lower, upper = (float(v) for v in _quiet(lambda: DOORS[door](sigma, q, rounds, eps, *extra)))
    front_lower, front_upper = (float(v) for v in _front_delta(sigma, q, rounds, eps))
    assert lower <= front_upper and front_lower <= upper, (
        door,
        (lower, upper),
        (front_lower, front_upper),
    )
    assert math.isfinite(upper) and 0.0 <= lower <= upper <= 1.0, (door, lower, upper)
    # within the epsilon tolerance on the curve: no more than the front door's delta a tolerance to the left
    _, left_upper = _front_delta(sigma, q, rounds, eps - tolerance(eps))
    assert upper <= float(left_upper), (door, upper, front_upper, float(left_upper))
