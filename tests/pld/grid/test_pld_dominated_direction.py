"""A neighbouring direction's optimistic side is composed only where it can set the maximum.

``distribution.brackets`` skips the optimistic composition of a direction whose upper bound lies at or
below the leading direction's lower bound at every argument; the refinement's epsilon step (the core's
screened_epsilon_step.hpp, given tests/pld/refine/screened_epsilon_reference.py's inputs) screens the
subsampled Gaussian's add direction on a 4x coarser grid, pessimistic side only, before composing it on
the fine grid.  Both must give exactly the bracket of composing every direction on both
sides (the maximum over directions is unchanged), and that bracket must hold the truth: dp_accounting's
pessimistic epsilon is above it, its optimistic one below.
"""

from __future__ import annotations

import numpy as np
import pytest
from dp_accounting import dp_event as E

import hockeystick.pld as pld
from hockeystick.pld.grid.distribution import brackets, compose_all
from hockeystick.pld.mechanisms import constructors as mechanisms
from hockeystick.pld.refine import dominated_direction, round_cache

from ...dp_accounting_pld import their_epsilon
from ..refine import screened_delta_reference
from ..refine.screened_epsilon_reference import epsilon_brackets

DELTAS = np.array([1e-1, 1e-5, 1e-10])
# (sigma, q, rounds, grid h): the screen clears (small q, remove far ahead) and fails (q ~ h: the lower
# side is 0 where the add direction's upper is not; sigma 3: both directions are tiny), at several sizes.
POINTS = [
    (0.8, 1e-3, 2000, 2e-4),
    (1.0, 0.05, 1000, 1e-3),
    (0.5, 0.5, 10, 1e-3),
    (3.0, 0.9, 10, 1e-3),
    (1.0, 1e-3, 10, 1e-3),
    (3.0, 1e-3, 1000, 1e-3),
]


def _value(pmf, method, x):
    """delta(x), or epsilon(x) clipped at 0, of one composed PMF."""
    return pmf.delta(x) if method == "delta" else np.maximum(pmf.epsilon(x), 0.0)


def _eager_bracket(dist, method, x):
    """Every direction composed on both sides, then the maximum over directions (the reference)."""
    sides = {
        s: np.max([_value(p, method, x) for p in dist.composed(s)], axis=0) for s in (True, False)
    }
    return sides[False], sides[True]


@pytest.mark.parametrize("sigma, q, rounds, h", POINTS)
def test_brackets_equal_the_eager_composition(sigma, q, rounds, h):
    eps = np.array([0.0, 0.5, 2.0, 8.0])
    for method, x in (("epsilon", DELTAS), ("delta", eps)):
        lazy = mechanisms.subsampled_gaussian(
            sigma, q, value_discretization_interval=h
        ).self_compose(rounds)
        eager = mechanisms.subsampled_gaussian(
            sigma, q, value_discretization_interval=h
        ).self_compose(rounds)
        lo, up = brackets([lazy], method, [x])[0]
        ref_lo, ref_up = _eager_bracket(eager, method, x)
        np.testing.assert_array_equal(lo, ref_lo)
        np.testing.assert_array_equal(up, ref_up)
        assert np.all(lo <= up)


def test_a_dominated_direction_is_not_composed_optimistically():
    """q = 1e-3, sigma = 0.8, 2000 rounds: the add direction's upper epsilon lies below the remove direction's lower."""
    dist = mechanisms.subsampled_gaussian(
        0.8, 1e-3, value_discretization_interval=2e-4
    ).self_compose(2000)
    brackets([dist], "epsilon", [np.array([1e-5])])
    assert dist._composed[False][0] is not None and dist._composed[False][1] is None
    # asked for later, it is composed then (and the bracket does not change)
    assert dist.composed(False)[1] is not None


@pytest.mark.parametrize("sigma, q, rounds, h", POINTS)
def test_screened_epsilon_equals_the_two_direction_bracket(sigma, q, rounds, h, monkeypatch):
    built = []
    original = screened_delta_reference.subsampled_gaussians

    def recording(*args, **kwargs):
        built.append(
            (kwargs["directions"], kwargs["optimistic"], kwargs["value_discretization_interval"])
        )
        return original(*args, **kwargs)

    monkeypatch.setattr(screened_delta_reference, "subsampled_gaussians", recording)
    round_cache.clear()  # every discretization built here, none kept from an earlier test
    lo, up, _ = epsilon_brackets([(sigma, q, float(rounds), 1.0)], [h], [DELTAS], 1e-15)[0]
    ref_lo, ref_up = (
        mechanisms.subsampled_gaussian(sigma, q, value_discretization_interval=h)
        .self_compose(rounds)
        .epsilon(DELTAS, bound="both", composition_only=True)
    )
    np.testing.assert_array_equal(lo, ref_lo)
    np.testing.assert_array_equal(up, ref_up)
    assert ("add", False, dominated_direction.COARSENING * h) in built
    fine_add = ("add", True, h) in built
    if (sigma, q) == (0.8, 1e-3):
        assert (
            not fine_add
        )  # the screen clears: the add direction is never discretized on the fine grid
    if (sigma, q) == (1.0, 1e-3):
        assert (
            fine_add
        )  # it fails (the lower side is 0 at delta = 0.1): the fine add direction decides


@pytest.mark.parametrize("sigma, q, rounds, h", POINTS)
@pytest.mark.parametrize("direct", [False, True])
def test_the_add_side_is_the_screens_or_the_add_directions_own_read(sigma, q, rounds, h, direct):
    """The third value is a certified upper side of the add direction's epsilon from this grid's compositions alone
    (the composition engine's read, never a question reader's): the screen's pessimistic read where the screen clears,
    else the smaller of it and the add direction's own on the fine grid; never below that direction's certified lower
    side, and, the screen clearing, at most the remove direction's lower side (it then sets no side)."""
    lo, _, add = epsilon_brackets(
        [(sigma, q, float(rounds), 1.0)], [h], [DELTAS], 1e-15, direct_bins=direct
    )[0]

    def add_direction(grid: float, optimistic: bool):
        (one,) = mechanisms.subsampled_gaussians(
            sigma,
            q,
            value_discretization_interval=grid,
            tail=1e-15,
            optimistic=optimistic,
            directions="add",
        )
        composed = one.self_compose(rounds)
        compose_all([composed], True, direct_bins=direct)
        if optimistic:
            compose_all([composed], False, direct_bins=direct)
        return composed

    screen = add_direction(dominated_direction.COARSENING * h, False)
    screened = screen.epsilon(DELTAS, composition_only=True)
    fine_lo, fine_up = add_direction(h, True).epsilon(DELTAS, bound="both", composition_only=True)
    if np.all(screened <= lo):
        np.testing.assert_array_equal(add, screened)
    else:
        np.testing.assert_array_equal(add, np.minimum(fine_up, screened))
    assert np.all(add >= fine_lo)


@pytest.mark.parametrize("sigma, q, rounds", [(0.8, 1e-3, 20_000), (1.0, 0.02, 2000)])
def test_accuracy_bracket_holds_dp_accountings_estimates(sigma, q, rounds):
    """The accountant's certified bracket lies between dp_accounting's optimistic and pessimistic epsilon
    (each a bound on the truth from its side, at h = 1e-4): lower <= their pessimistic, upper >= their optimistic."""
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-3
    ).epsilon(1e-5, bound="both")
    optimistic, pessimistic = their_epsilon(
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(q, E.GaussianDpEvent(sigma)), rounds), 1e-5
    )
    assert 0 <= up - lo <= 1e-3
    assert lo <= pessimistic and optimistic <= up


def test_directions_are_refused_unless_named():
    with pytest.raises(ValueError, match="directions must be"):
        mechanisms.subsampled_gaussians([1.0], [0.1], directions="both ways")  # type: ignore[arg-type]


def test_a_batch_of_points_on_several_grids_equals_each_point_alone():
    """Points sharing (sigma, q) on one grid share a discretization; each still gets its own bracket."""
    points = [
        (0.8, 1e-3, 2000.0, 1.0),
        (0.8, 1e-3, 500.0, 1.0),
        (1.0, 1e-3, 10.0, 1.0),
        (1.0, 0.05, 100.0, 2.0),
    ]
    hs = [2e-4, 2e-4, 1e-3, 5e-4]
    deltas = [np.array([1e-5]), np.array([1e-5, 1e-8]), DELTAS, np.array([1e-6])]
    got = epsilon_brackets(points, hs, deltas, 1e-15)
    for (s, q, t, c), h, d, (lo, up, _) in zip(points, hs, deltas, got):
        ref_lo, ref_up = (
            mechanisms.subsampled_gaussian(s, q, sensitivity=c, value_discretization_interval=h)
            .self_compose(int(t))
            .epsilon(d, bound="both", composition_only=True)
        )
        np.testing.assert_array_equal(lo, ref_lo)
        np.testing.assert_array_equal(up, ref_up)


@pytest.mark.parametrize("sigma, q, rounds, h", POINTS)
def test_the_relative_rules_screened_bracket_equals_the_unscreened_one(
    sigma, q, rounds, h, monkeypatch
):
    """The relative rule's delta step (the core's screened step at floor 0, which ``SubsampledGaussianPLD(accuracy=
    ...)``'s many-points loop reads each grid with) over the package's factors: its add direction screened on a grid
    ``COARSENING`` times coarser gives the bracket of reading the add direction on the step's own grid, bit for bit,
    and the screen clears somewhere."""
    from hockeystick.pld.refine.grid_rules import points_rules

    from ..refine import screened_delta_reference

    eps = np.array([0.5, 1.0])  # where the add direction is dominated on some grid at two of POINTS
    rules = points_rules(0.05, 0.0, "delta", "relative")

    def bracket():
        ((lo, up, _, _, decisions),) = screened_delta_reference.delta_sides(
            [(sigma, q, float(rounds), 1.0)], [h], [eps], 1e-15, rules, [eps.size], [None], 1
        )
        return lo, up, decisions[0]

    lo, up, cleared = bracket()
    monkeypatch.setattr(dominated_direction, "COARSENING", 1.0)
    ref_lo, ref_up, _ = bracket()
    np.testing.assert_array_equal(lo, ref_lo)
    np.testing.assert_array_equal(up, ref_up)
    assert np.all(lo <= up)
    if (sigma, q) in ((0.8, 1e-3), (1.0, 0.05)):
        assert cleared  # the add direction was not composed on the step's grid
