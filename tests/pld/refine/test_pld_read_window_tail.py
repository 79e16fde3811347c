"""An upper tilted read cuts its window at ``tilted_question.read_tail`` of the tilted mass, charged at the read: on
the README DP-SGD run, DP-FedAvg and a sampled run at q 0.01 (delta 1e-10, 1e-12 and 1e-5), the remove direction's fine
window holds fewer points than at the composition's default tail wherever the tail is raised, its upper epsilon is
within 1e-6 of that window's and no lower than a certified lower side read without any tilt (the plain composition on
the same grid), and its certified delta there is at most the delta asked; the tail stays at the default where the
Chernoff bound at the read is far above delta (DP-FedAvg, whose rounds sample the record about five times)."""

from __future__ import annotations

import math

import pytest

from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.compose.fft import DEFAULT_TAIL
from hockeystick.pld.refine import question, tilted_question

README = (1.1, 256 / 60_000, 14_100.0, 1.0)
FEDAVG = (1.0, 1e-3, 5_000.0, 1.0)
SAMPLED = (1.0, 0.01, 1_000.0, 1.0)
CASES = [(p, d) for p in (README, FEDAVG, SAMPLED) for d in (1e-10, 1e-12, 1e-5)]


def _fine_read(point, delta, centre):
    """The remove direction's fine upper read under the exponent's tilt at ``centre`` (an upper side found, as the
    default's fine read takes it), searched from it: its window tail, its window and its upper epsilon."""
    reader = tilted_question.TiltedReader(point, None, 1)
    h = question.FINE_INTERVAL
    _, tail, factor = reader.direction("remove", h, delta, optimistic=False)
    lam = tilted_question.exponent_tilt(factor.upper, int(point[2]), centre)
    terms = [(factor.upper, int(point[2]))]
    window_tail = tilted_question.read_tail(terms, lam, delta, centre)
    upper = reader.upper_side(h, "remove", tail, factor.upper, delta, lam, centre)
    return window_tail, reader.composition(h, "remove", tail, terms, lam, True, window_tail), upper


@pytest.mark.parametrize(("point", "delta"), CASES)
def test_the_read_tail_cuts_the_window_and_keeps_the_upper_side_certified_and_tight(
    point, delta, monkeypatch
):
    _, upper = SubsampledGaussianPLD(*point[:3]).epsilon(delta, bound="both")
    centre = upper + 1e-3  # a little above the default's upper side, as the refinement's is
    window_tail, cut, cut_upper = _fine_read(point, delta, centre)
    monkeypatch.setattr(tilted_question, "READ_TAIL", DEFAULT_TAIL)
    default_tail, full, full_upper = _fine_read(point, delta, centre)
    assert default_tail == DEFAULT_TAIL <= window_tail <= 1e-9
    if window_tail > DEFAULT_TAIL:
        assert cut.window.p.size < full.window.p.size
    assert math.isfinite(cut_upper) and abs(cut_upper - full_upper) <= 1e-6
    plain_lower = SubsampledGaussianPLD(
        *point[:3], value_discretization_interval=question.FINE_INTERVAL
    ).epsilon(delta, bound="lower")
    assert cut_upper >= plain_lower
    assert cut.delta(cut_upper) <= delta


def test_the_read_tail_is_raised_where_the_bound_allows_and_kept_at_the_default_elsewhere():
    # README at delta 1e-10: the Chernoff bound at the answer within a few thousand of delta, the tail at its cap
    reader = tilted_question.TiltedReader(README, None, 1)
    _, _, factor = reader.direction("remove", question.FINE_INTERVAL, 1e-10, optimistic=False)
    lam = tilted_question.exponent_tilt(factor.upper, int(README[2]), 3.741)
    terms = [(factor.upper, int(README[2]))]
    assert tilted_question.read_tail(terms, lam, 1e-10, 3.741) == tilted_question.READ_TAIL
    # no answer known yet, or a bound far above delta (a point far below the answer): the default tail
    assert tilted_question.read_tail(terms, lam, 1e-10, math.inf) == DEFAULT_TAIL
    assert tilted_question.read_tail(terms, lam, 1e-10, 0.0) == DEFAULT_TAIL
