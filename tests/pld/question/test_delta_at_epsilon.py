"""The default's delta at an epsilon against its epsilon at a delta, and each new read's direction.

The epsilon door certifies delta(eps_up(d)) <= d < delta(eps_lo(d)), so the delta door's certified
lower side at eps_up must be at most d and its upper side at eps_lo at least d (an independent
check of each side's direction), and, read as finely, its upper side at eps_up about d at most and
its lower side at eps_lo about d at least (the round trip).  The new reads' directions are checked
against one round's closed form, evaluated with mpmath (the extreme parameters' tests).
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import pld
from hockeystick.pld.question.tilted_question import (
    MAX_POINTS,
    TiltedReader,
)
from hockeystick.pld.refine import question

from ..mechanisms.test_pld_extreme_parameters import exact_one_round
from ..refine.aligned_core import aligned_lower_delta

# the round trip's slack: delta_up(eps_up(d)) <= d (1 + ROUND_TRIP), delta_lo(eps_lo(d)) >= d (1 -
# ROUND_TRIP)
ROUND_TRIP = 1e-3


@pytest.mark.parametrize(
    "sigma, q, rounds, delta",
    [
        (1.1, 256 / 60000, 14100, 1e-10),  # the README's DP-SGD run
        # rare participation: a rate five times below the fine grid (the fixed grid's and the fine
        # read's upper sides 251 d, the lower sides 4e-13 d)
        (1.5, 1e-5, 2e5, 1e-6),
    ],
)
def test_delta_at_the_epsilon_bracket_round_trips(sigma, q, rounds, delta) -> None:
    """At the epsilon bracket's sides, the delta bracket's sides fall on the right side of the
    delta asked (certified, each against the epsilon door's certificate) and within
    ``ROUND_TRIP`` of it on the side the epsilon read certified."""
    front = pld.SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds)
    eps_lo, eps_up = front.epsilon(delta, bound="both")
    lower, upper = front.delta(np.array([eps_up, eps_lo]), bound="both")
    assert lower[0] <= delta <= upper[1]
    assert upper[0] <= delta * (1.0 + ROUND_TRIP)
    assert lower[1] >= delta * (1.0 - ROUND_TRIP)


def test_the_new_reads_hold_one_rounds_closed_form() -> None:
    """One round of sigma 0.6, q 1e-4 at eps 0.1 and 2: the tilted read of the optimistic PMFs
    (the core's ``TiltedReader::delta_lower``) and the aligned cells' read (``aligned_lower_delta``) are at
    most the true delta and within 1e-3 of it, the tilted upper read at least it and as close."""
    sigma, q = 0.6, 1e-4
    eps = np.array([0.1, 2.0])
    truth = np.array([exact_one_round(sigma, q, float(e)) for e in eps])
    reader = TiltedReader((sigma, q, 1.0, 1.0)).core
    h, level = question.FINE_INTERVAL, 1e-20
    low = reader.delta_lower(eps=eps, interval=h, centre=0.1, level=level)
    up = reader.delta_upper(eps=eps, interval=h, centre=0.1, level=level)
    aligned = np.concatenate(
        [aligned_lower_delta(sigma, q, 1, np.array([e]), e, level, h, MAX_POINTS)[0] for e in eps]
    )
    assert np.all(low <= truth) and np.all(truth <= up) and np.all(aligned <= truth)
    assert np.all(low >= (1.0 - ROUND_TRIP) * truth) and np.all(up <= (1.0 + ROUND_TRIP) * truth)
    assert np.all(aligned >= (1.0 - ROUND_TRIP) * truth)


@pytest.mark.parametrize(
    "given", [{}, {"accuracy": 1e-4}, {"value_discretization_interval": 1e-4}], ids=str
)
def test_a_side_asked_alone_is_the_brackets_side(given):
    """The lower side asked alone is the bracket's: the default's reads raise it (the tilted optimistic read),
    and a grid's default reads are chosen by its upper side (here below the floor at eps 3)."""
    acc = pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=1e-3, rounds=500, **given)
    eps = np.array([0.05, 1.0, 3.0])
    lower, upper = acc.delta(eps, bound="both")
    assert np.array_equal(acc.delta(eps, bound="lower"), lower)
    assert np.array_equal(acc.delta(eps), upper)


def test_rare_participation_at_an_infinite_epsilon_keeps_the_fixed_grids_bracket():
    """eps = inf under rare participation: no finer read takes an infinite epsilon (its tilt and tails are
    chosen from a finite one); the bracket is the fixed grid's, the mass its tails send to infinity."""
    acc = pld.SubsampledGaussianPLD(sigma=2.0, sampling_rate=1e-6, rounds=10**6)
    lower, upper = acc.delta(np.array([np.inf, 1e308]), bound="both")
    assert np.all(lower == 0.0) and np.all((0.0 < upper) & (upper < 1e-8))
    assert upper[1] <= upper[0]  # the mass at infinity bounds every finite epsilon's
