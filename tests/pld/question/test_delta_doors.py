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

import math
from types import SimpleNamespace

import pytest

import hockeystick.pld as pld
from hockeystick.pld.accountants.stages import compose_stages
from hockeystick.training import DPSGD

from .test_doors import RUNS, _front, _quiet, tolerance

DELTAS = [
    1e-10,
    pytest.param(1e-12, marks=pytest.mark.slow),
    pytest.param(1e-5, marks=pytest.mark.slow),
]


def pld_object(sigma, q, rounds, eps):
    return pld.subsampled_gaussian(sigma, q).self_compose(rounds).delta(eps, bound="both")


def pld_object_coarse(sigma, q, rounds, eps):
    dist = pld.subsampled_gaussian(sigma, q, value_discretization_interval=1e-2)
    return dist.self_compose(rounds).delta(eps, bound="both")


def accountant_default(sigma, q, rounds, eps):
    accountant = pld.PLDAccountant().compose_subsampled_gaussian(sigma, q, rounds)
    return accountant.delta(eps, bound="both")


def accountant_on_grid(sigma, q, rounds, eps):
    accountant = pld.PLDAccountant(value_discretization_interval=1e-4)
    return accountant.compose_subsampled_gaussian(sigma, q, rounds).delta(eps, bound="both")


def subsampled_gaussian_on_grid(sigma, q, rounds, eps):
    accountant = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=1e-4
    )
    return accountant.delta(eps, bound="both")


def dpsgd_on_grid(sigma, q, rounds, eps):
    run = DPSGD(
        noise_multiplier=sigma, sample_rate=q, steps=rounds, value_discretization_interval=1e-4
    )
    return run.delta(eps, bound="both")


def compose_file(sigma, q, rounds, eps):
    stage = {
        "mechanism": "subsampled_gaussian",
        "sigma": sigma,
        "sampling_rate": q,
        "rounds": rounds,
    }
    return compose_stages([stage]).delta(eps, bound="both")


def flower(sigma, q, rounds, eps, sample_size, population):
    # Flower's accountant answers an upper delta alone (its get_delta): the lower side is 0
    from hockeystick.interop.flower import HockeystickPrivacyAccountant

    config = SimpleNamespace(
        target_delta=1e-5,
        population_size=population,
        neighboring_relation="add-or-remove-one",
        sampling_method="poisson",
        max_epsilon=None,
    )
    accountant = HockeystickPrivacyAccountant(config, adaptive=False)
    accountant.compose(
        SimpleNamespace(
            noise_multiplier=sigma, sample_size=sample_size, population_size=population
        ),
        rounds,
    )
    return 0.0, accountant.get_delta(eps)


def _adapter(grid):
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

    def read(sigma, q, rounds, eps):
        event = dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma))
        kwargs = {} if grid is None else {"value_discretization_interval": grid}
        return HockeystickPLDAccountant(**kwargs).compose(event, rounds).get_delta_bracket(eps)

    return read


DOORS = {
    "pld_object": pld_object,
    "pld_object_coarse": pld_object_coarse,
    "accountant_default": accountant_default,
    "accountant_on_grid": accountant_on_grid,
    "subsampled_gaussian_on_grid": subsampled_gaussian_on_grid,
    "dpsgd_on_grid": dpsgd_on_grid,
    "compose": compose_file,
    "flower": flower,
    "dp_accounting": lambda *a: _adapter(None)(*a),
    "dp_accounting_on_grid": lambda *a: _adapter(1e-4)(*a),
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
