"""The ``accuracy=`` refinement of one point's epsilon at one delta on the core's step reads
(cpp/include/hockeystick/pld/refine/steps_refinement.hpp, ``_core.pld_refine.refined_subsampled_gaussian_epsilon``,
what ``Refinement.core_refined`` and the C library's epsilon call to an accuracy run): its bracket is the
intersection of the step reads of the grids it lists, read again one by one with the direct-bins rule; a grid finer
than the coarsest fit, or one whose window passes the cap on points, stops it with the brackets of the grids before
(nothing before: [0, inf]) and says so; and the accountant's ``accuracy=`` answer is that bracket."""

from __future__ import annotations

import math

import pytest

from hockeystick import _core
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.compose.fft import DEFAULT_MAX_POINTS
from hockeystick.pld.mechanisms.constructors import MAX_CELLS
from hockeystick.pld.refine.grid_rules import next_grid_tuning
from hockeystick.pld.refine.grid_start import grid_policy
from hockeystick.pld.refine.points import coarsest_fit, round_off_charge
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning

from . import tilted_core

TAIL = 1e-15
# (sigma, q, rounds, sensitivity), delta, accuracy: the README's DP-SGD run at a delta whose first grid takes the
# direct bins and at one whose first grid does not, and a DP-FedAvg run
RUNS = [
    ((1.1, 256 / 60_000, 14_100.0, 1.0), 1e-10, 1e-4),
    ((1.1, 256 / 60_000, 14_100.0, 1.0), 1e-5, 1e-4),
    ((1.0, 1e-3, 5_000.0, 1.0), 1e-6, 3e-4),
]
# whether the grids alone meet the accuracy: at delta 1e-10 the plain composition's round-off charge holds the upper
# side about 3e-4 above the truth on every grid (the accountant's tilted reads past the refinement meet it)
MEETS = [False, True, True]


def charge_of(delta: float) -> float | None:
    return round_off_charge(delta)


def refined(point, delta, accuracy, fit=None, max_points=DEFAULT_MAX_POINTS):
    sigma, q, rounds, sensitivity = point
    return _core.pld_refine.refined_subsampled_gaussian_epsilon(
        sigma=sigma,
        sampling_rate=q,
        rounds=int(rounds),
        sensitivity=sensitivity,
        delta=delta,
        accuracy=accuracy,
        tail=TAIL,
        coarsest_fit=coarsest_fit(point, TAIL) if fit is None else fit,
        charge=charge_of(delta),
        policy=grid_policy(),
        tuning=next_grid_tuning(),
        max_cells=MAX_CELLS,
        workers=None,
        max_points=max_points,
    )


def reads(point, delta, accuracy, grids):
    """Each grid's step read, its direct bins by the rule: on the first where the delta's charge is given, on
    every later one (from that charge, else the composition's least)."""
    charge = charge_of(delta)
    return [
        tilted_core.epsilon_step(
            point, delta, h, accuracy, TAIL, charge, i > 0 or charge is not None
        )
        for i, h in enumerate(grids)
    ]


@pytest.mark.parametrize("run, meets", list(zip(RUNS, MEETS)))
def test_the_bracket_is_the_intersection_of_its_grids_reads(run, meets):
    point, delta, accuracy = run
    lower, upper, gave_up, grids = refined(point, delta, accuracy)
    assert not gave_up and len(grids) >= 1 and list(grids) == sorted(grids, reverse=True)
    found = reads(point, delta, accuracy, grids)
    assert lower == max(r[0] for r in found) and upper == min(r[1] for r in found)
    assert 0.0 < lower <= upper and (upper - lower <= accuracy) == meets


def test_a_grid_finer_than_the_coarsest_fit_stops_it_at_the_grids_before():
    point, delta, accuracy = RUNS[0]
    _, _, _, grids = refined(point, delta, accuracy)
    assert len(grids) >= 2
    fit = math.nextafter(
        grids[1], math.inf
    )  # the second grid is finer than the fit, the first is not
    lower, upper, gave_up, stopped = refined(point, delta, accuracy, fit=fit)
    (first,) = reads(point, delta, accuracy, grids[:1])
    assert gave_up and stopped == grids[:1] and (lower, upper) == first[:2]
    lower, upper, gave_up, stopped = refined(point, delta, accuracy, fit=2 * grids[0])
    assert gave_up and stopped == () and (lower, upper) == (0.0, math.inf)


def test_a_refused_window_stops_it_with_nothing_read():
    point, delta, accuracy = RUNS[0]
    lower, upper, gave_up, grids = refined(point, delta, accuracy, max_points=64)
    assert gave_up and len(grids) == 1 and (lower, upper) == (0.0, math.inf)


@pytest.mark.parametrize("point, delta, accuracy", RUNS)
def test_the_accountants_refinement_of_one_point_is_the_cores(monkeypatch, point, delta, accuracy):
    lower, upper, _, _ = refined(point, delta, accuracy)
    asked = []
    one = _core.pld_refine.refined_subsampled_gaussian_epsilon

    def watched(**arguments):
        asked.append(one(**arguments))
        return asked[-1]

    monkeypatch.setattr(_core.pld_refine, "refined_subsampled_gaussian_epsilon", watched)
    sigma, q, rounds, _ = point
    found_lower, found_upper = SubsampledGaussianPLD(
        sigma, q, rounds, accuracy=accuracy, tail=TAIL
    ).epsilon(delta, bound="both")
    assert asked[0][:2] == (lower, upper)
    assert (
        lower <= found_lower <= found_upper <= upper
    )  # the refinement's, no looser after the reads past it


def test_a_stopped_refinement_warns_through_the_accountant(monkeypatch):
    point, delta, accuracy = RUNS[0]
    monkeypatch.setattr("hockeystick.pld.compose.fft.DEFAULT_MAX_POINTS", 64)
    sigma, q, rounds, _ = point
    with pytest.warns(AccuracyNotMetWarning, match="stopped refining"):
        SubsampledGaussianPLD(sigma, q, rounds, accuracy=accuracy, tail=TAIL).epsilon(
            delta, bound="both"
        )
