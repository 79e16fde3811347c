"""The default's fixed grid discretizes the add direction's optimistic side only where it can raise the lower side
(``fixed_grid.lean_sides``): its sides are ``brackets``' of the fully discretized rounds bit for bit, on both
branches; the lean rounds hold the full discretization's PMFs; the remove direction leads as ``brackets`` takes it;
and a bracket whose add direction lies below the remove direction (the default's epsilon, a delta on a grid given)
discretizes no optimistic add side."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.accountants import fixed_grid
from hockeystick.pld.grid.distribution import brackets, direction_uppers, leading_directions
from hockeystick.pld.mechanisms.constructors import DEFAULT_INTERVAL
from hockeystick.pld.refine import round_cache

TAIL = 1e-15
# (sigma, q, rounds, sensitivity) at its arguments: the add direction's upper side above the remove
# direction's lower side at 1e-3 (its optimistic side read), below it elsewhere
POINTS = [(1.0, 0.01, 1000.0, 1.0), (5.0, 1e-3, 1000.0, 1.0), (0.8, 0.2, 50.0, 1.0)]
ARGUMENTS = {
    "epsilon": [np.array([1e-5, 1e-7]), np.array([1e-3]), np.array([1e-4, 1e-6])],
    "delta": [np.array([0.5, 1.0]), np.array([0.01]), np.array([2.0, 4.0])],
}


def _full(points):
    pairs = [(p[0], p[1], p[3]) for p in points]
    one_round = round_cache.discretized(pairs, DEFAULT_INTERVAL, TAIL, True, 1)
    return [d.self_compose(int(p[2])) for d, p in zip(one_round, points)]


@pytest.mark.parametrize("method", ["epsilon", "delta"])
def test_lean_sides_are_the_full_brackets_bit_for_bit(method):
    xs = ARGUMENTS[method]
    full = _full(POINTS)
    uppers = direction_uppers(full, method, xs, 1)
    expected = brackets(full, method, xs, 1, uppers=uppers)
    asked: list[tuple[float, float, float, float]] = []

    def recorded(points):
        asked.extend(points)
        return _full(points)

    sides, lean_uppers = fixed_grid.lean_sides(
        POINTS, xs, (DEFAULT_INTERVAL, TAIL), method, 1, recorded
    )
    for (lo, up), (want_lo, want_up) in zip(sides, expected):
        np.testing.assert_array_equal(lo, want_lo)
        np.testing.assert_array_equal(up, want_up)
    for got, want in zip(lean_uppers, uppers):
        for got_side, want_side in zip(got, want):
            np.testing.assert_array_equal(got_side, want_side)
    # the full rounds read exactly where the add side can raise the lower one
    if method == "epsilon":
        assert asked == [POINTS[1]]


def test_lean_rounds_hold_the_full_discretizations_pmfs():
    pairs = [(0.7, 0.05, 1.0), (2.0, 0.3, 1.5)]
    round_cache.clear()  # both built afresh, not the full PLD kept
    lean = round_cache.lean_discretized(pairs, 2e-4, 1e-12, 1)
    full = round_cache.discretized(pairs, 2e-4, 1e-12, True, 1)
    for a, b in zip(lean, full):
        assert len(a.directions) == len(b.directions) == 2
        for k, (da, db) in enumerate(zip(a.directions, b.directions)):
            ((fa, ca),), ((fb, cb),) = da.items(), db.items()
            assert ca == cb == 1 and fa.source == fb.source and fa.name == fb.name
            sides = [(fa.upper, fb.upper)] + ([(fa.lower, fb.lower)] if k == 0 else [])
            for pa, pb in sides:
                assert (pa.k_lo, pa.h, pa.p_inf, pa.shift, pa.pessimistic) == (
                    pb.k_lo,
                    pb.h,
                    pb.p_inf,
                    pb.shift,
                    pb.pessimistic,
                )
                assert (pa.entry_error, pa.total_error, pa.loss_shift) == (
                    pb.entry_error,
                    pb.total_error,
                    pb.loss_shift,
                )
                np.testing.assert_array_equal(pa.p, pb.p)
        assert next(iter(a.directions[1])).lower is None


def remove_leads(uppers):
    """Whether the remove direction (the first) is the one ``brackets`` composes first."""
    return leading_directions([uppers])[0] == 0


def test_the_remove_direction_leads_where_brackets_takes_it():
    ties, above, below = np.array([1.0, 2.0]), np.array([3.0, 3.0]), np.array([0.5, 0.5])
    assert remove_leads([ties, ties.copy()])  # a tie: the first direction
    assert remove_leads([above, below])
    assert not remove_leads([below, above])
    # the largest at one argument each: the first
    assert remove_leads([np.array([2.0, 0.0]), np.array([1.0, 1.0])])


@pytest.mark.parametrize("question", ["default epsilon", "delta on a grid given"])
def test_a_bracket_discretizes_no_optimistic_add_side(monkeypatch, question):
    built: list[tuple[str, bool, float]] = []
    real = round_cache.subsampled_gaussians

    def spy(sigma, *args, **kwargs):
        built.append(
            (
                kwargs.get("directions", "both"),
                kwargs["optimistic"],
                kwargs["value_discretization_interval"],
            )
        )
        return real(sigma, *args, **kwargs)

    monkeypatch.setattr(round_cache, "subsampled_gaussians", spy)
    round_cache.clear()
    if question == "default epsilon":
        accountant = SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=1000)
        lo, up = accountant.epsilon(1e-5, bound="both")
    else:
        accountant = SubsampledGaussianPLD(
            sigma=1.0, sampling_rate=0.01, rounds=1000, value_discretization_interval=2e-4
        )
        lo, up = accountant.delta(1.0, bound="both")
    fixed = [(d, o) for d, o, h in built if h == accountant.value_discretization_interval]
    assert ("remove", True) in fixed and ("add", False) in fixed
    assert not any(o and d != "remove" for d, o in fixed)
    assert 0.0 < lo <= up < np.inf
