"""The core's ``accuracy=`` delta read of one point at one epsilon (cpp/include/hockeystick/pld/refine/accuracy_delta.hpp,
``_core.pld_refine.accuracy_delta``; the package's ``default_reads.accuracy_delta_sides`` and the C library's delta
call both make it): at an accuracy at most the default's it reads the default's bracket once and never ends looser
than it (the package's front door answers an epsilon whose default bracket is within that accuracy by it, with no
refinement: ``default_reads.accuracy_delta_brackets``); at any accuracy a bracket not exact is read by the default's
fine delta read, so an accuracy the refinement meets by the relative rule's floor is still no looser than the default
(it was, by orders of magnitude); an exact bracket at a coarser accuracy comes back as given with nothing read.
Every answer holds the truth the default brackets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.mechanisms.constructors import MAX_CELLS

README = (1.1, 256 / 60_000, 14_100)
FEDAVG = (1.0, 1e-3, 5_000)
RARE = (0.6, 1e-5, 1_000_000)


def default_bracket(run, eps):
    lower, upper = SubsampledGaussianPLD(*run).delta(eps, bound="both")
    return float(lower), float(upper)


def read(run, eps, lower, upper, accuracy, default, by_width=True):
    sigma, q, rounds = run
    asked = []

    def counted(i):
        asked.append(("default", i))
        return default

    found = _core.pld_refine.accuracy_delta(
        sigma=sigma,
        sampling_rate=q,
        rounds=rounds,
        eps=np.array([eps]),
        lower=np.array([lower]),
        upper=np.array([upper]),
        accuracy=accuracy,
        default_accuracy=1e-3,
        delta_floor=1e-9,
        by_width=by_width,
        rare=True,
        read_lower=True,
        default_bracket=counted,
        max_cells=MAX_CELLS,
        split_max_points=1 << 22,
    )
    return (float(found[0][0]), float(found[1][0])), asked


@pytest.mark.parametrize(
    "run, eps",
    [(README, 5.0), (FEDAVG, 1.0), (FEDAVG, 3.0)],
    ids=["readme-5", "fedavg-1", "fedavg-3"],
)
@pytest.mark.parametrize("accuracy", [1e-2, 1e-3, 1e-4])
def test_an_accuracy_is_never_looser_than_the_default(run, eps, accuracy):
    """At delta far below the relative rule's floor (1e-9) the refinement meets 1e-3 with a bracket up to 10^5 times
    the truth (the README run at eps 5: [0, 7.05e-12] against [6.4925e-17, 6.4973e-17]); the fine read brings every
    accuracy to the default's upper side within its round-off (the same reads on another bracket)."""
    lower, upper = SubsampledGaussianPLD(*run, accuracy=accuracy).delta(eps, bound="both")
    d_lower, d_upper = default_bracket(run, eps)
    assert float(upper) <= d_upper * (1 + 1e-9)
    assert float(lower) <= d_upper and d_lower <= float(upper)  # both hold the truth


@pytest.mark.slow
@pytest.mark.parametrize("accuracy", [1e-3, 1e-4])
def test_rare_participation_at_the_default_accuracy_or_finer_is_never_looser(accuracy):
    """At the default's accuracy rare participation's finer grids are read as the default reads them: the
    refinement met 1e-3 at eps 3 with an upper side 1.4e-3 above the default's (3.8384e-15 against 3.8330e-15),
    and the C call read the same.  (A coarser accuracy meets the relative rule's floor, 1e-9, as it stands.)"""
    lower, upper = SubsampledGaussianPLD(*RARE, accuracy=accuracy).delta(3.0, bound="both")
    d_lower, d_upper = default_bracket(RARE, 3.0)
    assert (
        float(upper) <= d_upper * (1 + 1e-9) and float(lower) <= d_upper and d_lower <= float(upper)
    )


@pytest.mark.parametrize("accuracy", [1e-3, 1e-4])
def test_an_accuracy_at_most_the_defaults_reads_the_default_once_and_is_never_looser(accuracy):
    d = default_bracket(FEDAVG, 1.0)
    (lower, upper), asked = read(FEDAVG, 1.0, 0.0, 1.0, accuracy, d)
    assert asked == [("default", 0)]
    assert d[0] <= lower <= upper <= d[1]


def test_the_default_accuracy_is_never_looser_than_the_default_at_the_front_door():
    """Few samples of a record (sigma 0.8, q 1e-5, 5000 rounds) at eps 0.2: the refinement met accuracy=1e-3 with
    [5.6122e-16, 5.6632e-16], its upper side 0.65 % above the default's 5.6265e-16, and no read intersected the two;
    the default's bracket, 2.5e-3 of its upper side wide, does not meet 1e-3 itself, so the refined one is now
    intersected with it."""
    run = (0.8, 1e-5, 5_000)
    lower, upper = SubsampledGaussianPLD(*run, accuracy=1e-3).delta(0.2, bound="both")
    d_lower, d_upper = default_bracket(run, 0.2)
    assert (
        float(upper) <= d_upper * (1 + 1e-12)
        and d_lower <= float(upper)
        and float(lower) <= d_upper
    )


def test_an_epsilon_the_default_meets_is_not_refined(monkeypatch):
    """README run to 1e-4: at eps 0.2 and 0.6 the default's brackets are within 1e-4 of their upper sides (2e-5 and
    4e-5), so they answer and the refinement is not asked; at eps 1.5 (1.2e-4) it is, for that eps alone."""
    from hockeystick.pld.refine.points import Refinement

    asked = []
    real = Refinement.refined

    def counted(self, pts, xs, *args, **kwargs):
        asked.append([np.array(x) for x in xs])
        return real(self, pts, xs, *args, **kwargs)

    monkeypatch.setattr(Refinement, "refined", counted)
    eps = np.array([0.2, 0.6, 1.5])
    d_lower, d_upper = SubsampledGaussianPLD(*README).delta(eps, bound="both")
    assert np.all(d_upper - d_lower <= 1e-4 * d_upper, where=[True, True, False])
    assert d_upper[2] - d_lower[2] > 1e-4 * d_upper[2]
    lower, upper = SubsampledGaussianPLD(*README, accuracy=1e-4).delta(eps[:2], bound="both")
    assert asked == [] and np.array_equal(lower, d_lower[:2]) and np.array_equal(upper, d_upper[:2])
    lower, upper = SubsampledGaussianPLD(*README, accuracy=1e-4).delta(eps, bound="both")
    assert len(asked) == 1 and len(asked[0]) == 1
    np.testing.assert_array_equal(asked[0][0], [1.5])
    assert (
        np.array_equal(upper[:2], d_upper[:2]) and d_lower[2] <= lower[2] <= upper[2] <= d_upper[2]
    )


def test_a_coarser_accuracy_reads_the_fine_read_not_the_default():
    d = default_bracket(README, 5.0)
    (lower, upper), asked = read(README, 5.0, 0.0, 7.05e-12, 1e-2, d)
    assert asked == []
    assert lower <= d[1] and d[0] <= upper <= d[1] * (1 + 1e-9)


def test_an_exact_bracket_at_a_coarser_accuracy_reads_nothing():
    d = default_bracket(README, 1.0)
    exact = (d[1] * (1 - 1e-9), d[1])
    (lower, upper), asked = read(README, 1.0, *exact, 1e-2, (0.0, 0.0))
    assert asked == [] and (lower, upper) == exact


def test_the_epsilon_rule_at_a_coarser_accuracy_reads_nothing():
    """by_width=False (delta_accuracy="epsilon"): the refinement met epsilon's width, which does not depend on the
    scale of delta, so a coarser accuracy's bracket comes back as given."""
    given = (0.0, 1e-3)
    (lower, upper), asked = read(README, 3.0, *given, 1e-2, (0.0, 0.0), by_width=False)
    assert asked == [] and (lower, upper) == given


@pytest.mark.parametrize(
    "lower, upper, message",
    [
        (math.nan, 1.0, "0 <= lower <= upper <= 1"),
        (0.5, 0.25, "0 <= lower <= upper <= 1"),
        (0.0, 1.5, "0 <= lower <= upper <= 1"),
    ],
)
def test_a_bracket_that_is_not_a_delta_bracket_is_refused_by_name(lower, upper, message):
    with pytest.raises(ValueError, match=message):
        read(README, 1.0, lower, upper, 1e-3, (0.0, 1.0))


def test_a_nan_epsilon_is_refused_by_name():
    with pytest.raises(ValueError, match="eps must not be NaN"):
        read(README, math.nan, 0.0, 1.0, 1e-3, (0.0, 1.0))


def test_each_element_of_an_array_is_no_looser_than_its_default():
    eps = np.array([1.0, 3.0, 5.0])
    lower, upper = SubsampledGaussianPLD(*README, accuracy=1e-3).delta(eps, bound="both")
    d_lower, d_upper = SubsampledGaussianPLD(*README).delta(eps, bound="both")
    assert np.all(upper <= d_upper * (1 + 1e-9)) and np.all(lower <= d_upper)
    assert np.all(d_lower <= upper)


def test_an_array_finer_than_the_default_reads_the_default_once(monkeypatch):
    from hockeystick.pld.question import default_reads

    calls = []
    real = default_reads.default_delta_brackets

    def counted(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(default_reads, "default_delta_brackets", counted)
    eps = np.array([1.0, 3.0, 5.0])
    lower, upper = SubsampledGaussianPLD(*README, accuracy=1e-4).delta(eps, bound="both")
    assert len(calls) == 1 and np.array_equal(calls[0][0], eps)
    assert np.all(lower <= upper)
