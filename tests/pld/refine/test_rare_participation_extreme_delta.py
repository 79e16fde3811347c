"""The default's lower side under rare participation below the aligned cells' least delta (issue 90
items 1 and 4): there the aligned and rare participation reads are off, and the accuracy's first
tilted grid passes the windows' cap, so a bracket still wider than the tolerance is read on the
coarser grids the C library's descent falls back to (the last step of the core's
pld/refine/last_epsilon_reads.hpp, through tilted_core.py's ``last_brackets``).
Without that read the lower side was the max-of-outputs test's alone, 0.49 below the upper side at
delta 1e-50.

Each side is checked against bounds read independently of it: the lower side never above the RDP
conversion's certified upper side (``question.rdp_upper``), the upper side never below the
max-of-outputs test's certified lower side (``reads.max_of_outputs``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hockeystick.pld.reads.max_of_outputs import max_of_outputs_epsilon
from hockeystick.pld.refine import question
from hockeystick.training import DPSGD

from . import aligned_core, tilted_core

# sigma 0.6, q 1e-5, 10^6 rounds: its accuracy's first tilted grid passes the windows' cap at small delta
RARE = (0.6, 1e-5, 10**6, 1.0)


def test_a_bracket_within_the_tolerance_is_not_read() -> None:
    """The coarser grids read only brackets wider than the default tolerance: with the fine read made
    and a tail given (no wide, rare or finer reads), one within it is returned as given, bit for
    bit, at a delta whose first tilted grid passes the windows' cap."""
    lower, upper = np.array([9.0, 9.0]), np.array([9.0005, 9.0009])
    assert np.all(question.within_tolerance(lower, upper))
    got = tilted_core.last_brackets(
        RARE, np.array([1e-30, 1e-31]), lower, upper, tail=1e-40, fine_done=True
    )
    assert np.array_equal(got[0], lower) and np.array_equal(got[1], upper)


@pytest.mark.slow
def test_below_the_aligned_least_delta_the_lower_side_is_read_on_a_grid() -> None:
    """At delta 1e-50 (below the aligned cells' least delta) the default bracket of the rare run is
    within the warning tolerance max(0.01, 1 % of epsilon), without its warning, and raised well above the max-of-outputs
    test's lower side (14.764, against 15.252 on the grid 5e-5), and both sides stay between the
    independent certified bounds."""
    delta = 1e-50
    assert delta < aligned_core.LEAST_DELTA
    sigma, q, rounds, _ = RARE
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lower, upper = DPSGD(noise_multiplier=sigma, sample_rate=q, steps=rounds).epsilon(
            delta, bound="both"
        )
    test = max_of_outputs_epsilon([((sigma, q, 1.0), rounds)], delta)
    rdp = float(question.rdp_upper(RARE, np.array([delta]))[0])
    assert test <= lower <= upper <= rdp
    assert lower - test > 0.4
    assert upper - lower <= max(0.01, 0.01 * upper)
    unreadable = [w for w in caught if "wider than max(0.01" in str(w.message)]
    assert not unreadable  # question.warn_unreadable's AccuracyNotMetWarning
