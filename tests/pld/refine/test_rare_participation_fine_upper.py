"""The default's upper side under rare participation (issue 90 item 4): a bracket the fine read brings
within the default tolerance but not within half of it has its upper side read again on a finer grid
(``tilted_question.rare_pending``, ``rare_upper``), so that it is no looser than dp_accounting's
default (its pessimistic estimate on the 1e-4 grid, asked live here).

Each read is certified: the upper side is held above the max-of-outputs test's certified lower bound
(``reads.max_of_outputs``) and at most the RDP conversion's certified upper bound
(``question.rdp_upper``)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.reads.max_of_outputs import max_of_outputs_epsilon
from hockeystick.pld.refine import question

from . import rare_finer_core, tilted_core

# sigma 0.5, q 1e-4, 10^4 rounds, delta 1e-8: its fine read's window (~1.2 M points on 5e-5) fits
# the cap on the grid twice finer, not four times finer
CHEAP_POINT = (0.5, 1e-4, 1e4, 1.0)
CHEAP_DELTA = 1e-8


def fine_read(point: tuple[float, float, float, float], delta: float) -> tuple[float, float]:
    """The certified lower side of the max-of-outputs test and the fine read's upper side from the
    RDP conversion's (both independent of the read under test)."""
    sigma, q, rounds, sensitivity = point
    lower = max_of_outputs_epsilon([((sigma, q, sensitivity), int(rounds))], delta)
    rdp = float(question.rdp_upper(point, np.array([delta]))[0])
    upper, grid = tilted_core.fine_upper(point, delta, rdp, math.inf)
    assert grid == question.FINE_INTERVAL and lower <= upper <= rdp
    return lower, upper


def test_the_finer_read_is_certified_and_lowers_the_fine_upper_side() -> None:
    """The core's rare read (``rare_upper``: uncut windows on the finest rare grid that fits) of
    the fine read's upper side: between the max-of-outputs test's certified lower side and the
    fine read's certified upper side, and below the latter (the finer grid's excess is smaller)."""
    lower, upper = fine_read(CHEAP_POINT, CHEAP_DELTA)
    finer = tilted_core.rare_upper(CHEAP_POINT, CHEAP_DELTA, upper)
    assert lower <= finer < upper


def test_the_rare_grids_and_rate_are_the_cores() -> None:
    """One set of constants: the package's rate and first grid are read from the core, whose rare
    grids are a quarter and a half of the fine read's."""
    assert question.RARE_FINE_RATE == _core.pld_refine.tilt_rare_rate
    quarter, half = _core.pld_refine.tilt_rare_upper_grids
    assert (quarter, half) == (question.FINE_INTERVAL / 4, question.FINE_INTERVAL / 2)
    assert rare_finer_core.FIRST_INTERVAL == _core.pld_refine.tilt_rare_lower_grid == quarter


@pytest.mark.parametrize(
    "q, lower, upper, pending",
    [
        (1e-5, 2.0, 2.0 + 0.9e-3, True),  # within the tolerance (1e-3), not within half of it
        (1e-5, 2.0, 2.0 + 0.4e-3, False),  # within half: as close as the refined default's
        (1e-5, 2.0, 2.0 + 1.1e-3, False),  # wider than the tolerance: the later reads take it
        (1e-5, 8.0, 8.0 + 1.9e-3, True),  # the relative tolerance, 2.5e-4 x 8 = 2e-3
        (1e-5, 2.0, math.inf, False),
        (2e-4, 2.0, 2.0 + 0.9e-3, False),  # not rare participation
    ],
)
def test_rare_pending_takes_brackets_within_the_tolerance_and_wider_than_half(
    q: float, lower: float, upper: float, pending: bool
) -> None:
    assert tilted_core.rare_pending(q, lower, upper) is pending


@pytest.mark.slow
def test_the_default_upper_side_is_below_dp_accounting_at_sigma_0_5_q_1e_5() -> None:
    """sigma 0.5, q 1e-5, 10^6 rounds, delta 1e-8: the fine read on 5e-5 alone reads 2.159259,
    above dp_accounting's 2.159087; within the tolerance, nothing later lowered it."""
    P = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    sigma, q, rounds, delta = 0.5, 1e-5, 10**6, 1e-8
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a default bracket left wide warns: it must not
        lower, upper = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(
            delta, bound="both"
        )
    lower, upper = float(lower), float(upper)
    assert question.within_tolerance(np.array(lower), np.array(upper)), (lower, upper)
    assert max_of_outputs_epsilon([((sigma, q, 1.0), rounds)], delta) <= upper
    assert upper <= float(question.rdp_upper((sigma, q, float(rounds), 1.0), np.array([delta]))[0])
    theirs = P.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=1e-4)
    estimate = float(theirs.self_compose(rounds).get_epsilon_for_delta(delta))
    assert lower <= estimate  # a certified lower side below a pessimistic estimate
    assert upper <= estimate, (upper, estimate)


@pytest.mark.slow
@pytest.mark.parametrize(
    "delta, lower, upper",
    [
        (1e-10, 1.0772138641018294, 1.0774228292733814),
        (1e-12, 1.9078605011740966, 1.908031384327416),
    ],
)
def test_the_rare_run_default_reads_the_cores_rare_reads(
    delta: float, lower: float, upper: float
) -> None:
    """About 7 CPU s each.  sigma 0.6, q 1e-5, 10^6 rounds (issue 90's rare run): the default's
    bracket is the core's rare reads' (``rare_upper``: the uncut windows on 1.25e-5, the read the C
    library's epsilon call makes at accuracy 1e-4, tests/core/test_capi_tilted.py; then the aligned
    cells' lower side on that grid, the core's ``tight_bracket`` of rare_finer_grids.hpp), within 1e-9 of each side
    read here: without the core's upper read the fine read's 1.077652 and 1.908132 stand."""
    found = SubsampledGaussianPLD(sigma=0.6, sampling_rate=1e-5, rounds=10**6).epsilon(
        delta, bound="both"
    )
    assert abs(float(found[0]) - lower) <= 1e-9 and abs(float(found[1]) - upper) <= 1e-9, found
