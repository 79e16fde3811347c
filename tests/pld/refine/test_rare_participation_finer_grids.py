"""Rare participation's reads on grids finer than the tilted reads' window cap
(the core's rare_finer_grids.hpp): the grid choices and the capped reader's reads held on the safe side
of independent references.  The default bracket at the points of the box that only these reads
bring within the tolerance (sigma 0.5, q 1e-5, 10^7 rounds, delta 1e-10: [4.26820, 4.27287] without
them) is held to the box's rule by ``test_rare_participation_box`` (its ``FINER`` points).

References: the max-of-outputs test's certified lower bound (``reads.max_of_outputs``, closed-form
Gaussian tails), the RDP conversion's certified upper bound (``question.rdp_upper``), and, between
each other, the two certified sides of independent constructions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.compose import tilted
from hockeystick.pld.question import tilted_question
from hockeystick.pld.reads.max_of_outputs import max_of_outputs_epsilon
from hockeystick.pld.refine import question

from .aligned_core import aligned_lower_epsilon
from .rare_finer_core import FIRST_INTERVAL, finer_bracket, finer_brackets
from .tilted_windows import composed, remove_round, upper_read

CORE = _core.pld_refine

# sigma 0.5, q 1e-4, 10^4 rounds, delta 1e-8: its window on FIRST_INTERVAL / 2 passes the tilted
# reads' cap (2^22), and dp_accounting composes it in about a second
CHEAP_POINT = (0.5, 1e-4, 1e4, 1.0)
CHEAP_DELTA = 1e-8
WIDE_POINT = (0.5, 1e-5, 1e7, 1.0)
WIDE_DELTA = 1e-10


def references(point: tuple[float, float, float, float], delta: float) -> tuple[float, float]:
    """The certified max-of-outputs lower bound and RDP upper bound at ``delta``."""
    sigma, q, rounds, sensitivity = point
    test = max_of_outputs_epsilon([((sigma, q, sensitivity), int(rounds))], delta)
    rdp = float(question.rdp_upper(point, np.array([delta]))[0])
    return test, rdp


def test_the_lower_grid_is_the_finest_whose_estimated_window_fits() -> None:
    cap, ratio = CORE.finer_lower_max_points, CORE.finer_lower_window_ratio
    finest, coarsest = CORE.finer_lower_grids
    assert finest == FIRST_INTERVAL / 2 and coarsest == FIRST_INTERVAL
    # the finest grid's window is ratio x (FIRST_INTERVAL / finest) times the upper read's
    fits_finest = int(cap / (ratio * FIRST_INTERVAL / finest))
    assert CORE.finer_lower_grid(window=fits_finest) == finest
    assert CORE.finer_lower_grid(window=fits_finest + 1) == coarsest
    assert CORE.finer_lower_grid(window=int(cap / ratio) + 1) == 0.0  # none fits
    assert CORE.finer_lower_grid(window=0) == 0.0


@pytest.mark.parametrize(
    "first, second, lower, halvings",
    [
        # the model's upper side after k halvings: second - fall (1 - 2^-k), its target lower +
        # 0.75 e-3 (the tolerance at epsilon below 4 is 1e-3)
        (2.0 + 4e-3, 2.0 + 2e-3, 2.0, 2),  # 2e-3 - 2e-3 x 3/4 = 5e-4 <= 7.5e-4, not at k = 1
        (2.0 + 2e-3, 2.0 + 1e-3, 2.0, 1),  # 1e-3 - 1e-3 / 2 = 5e-4
        (2.0 + 4e-2, 2.0 + 2e-2, 2.0, 3),  # never meets it: the finest that fits
        (2.0 + 1e-3, 2.0 + 1e-3, 2.0, 0),  # no fall: no model
        (math.inf, 2.0 + 1e-3, 2.0, 0),
    ],
)
def test_upper_halvings_meets_the_target_or_takes_the_finest_grid_that_fits(
    first: float, second: float, lower: float, halvings: int
) -> None:
    assert CORE.finer_halvings(first=first, second=second, lower=lower, window=1000) == halvings


def upper_halvings(first: float, second: float, lower: float, window: int) -> int:
    return int(CORE.finer_halvings(first=first, second=second, lower=lower, window=window))


def test_upper_halvings_is_bounded_by_the_window_cap() -> None:
    cap = CORE.finer_upper_max_points
    # a grid 2^(k + 1) times finer than FIRST_INTERVAL holds 2^(k + 1) times the window
    assert upper_halvings(2.04, 2.02, 2.0, cap // 8) == 2
    assert upper_halvings(2.04, 2.02, 2.0, cap // 4) == 1
    assert upper_halvings(2.04, 2.02, 2.0, cap // 4 + 1) == 0
    assert upper_halvings(2.04, 2.02, 2.0, 0) == 0


@pytest.mark.parametrize(
    "point, delta, lower, upper",
    [
        ((0.5, 2e-4, 1e4, 1.0), 1e-8, 3.0, 3.1),  # not rare participation
        ((0.5, 1e-5, 1e7, 1.0), 1e-10, 4.2690, 4.2695),  # within the tolerance already
        ((0.5, 1e-5, 1e7, 1.0), 1e-10, 4.0, math.inf),  # no finite upper side to search from
        ((0.5, 1e-5, 100.0, 1.0), 1e-10, 0.0, 1.0),  # too few rounds for the aligned cells
        ((0.5, 1e-5, 1e7, 1.0), 1e-25, 4.0, 9.0),  # delta below the aligned cells' tail
    ],
)
def test_a_bracket_outside_the_reads_domain_is_returned_as_given(
    point: tuple[float, float, float, float], delta: float, lower: float, upper: float
) -> None:
    assert finer_bracket(point, delta, lower, upper) == (lower, upper)


@pytest.mark.slow
def test_the_capped_reader_reads_past_the_tilted_cap_on_the_safe_side_of_the_references() -> None:
    """About 3 CPU s.  The upper read on ``FIRST_INTERVAL`` and the aligned cells' lower read on
    the same grid, two certified sides of independent constructions (the pessimistic tilted
    composition and Jensen's cells), meet within 1e-5.  dp_accounting is no reference here: its
    pessimistic estimate on its default grid reads 3.5796137, below both (3.579616 and 3.579621),
    as at other points of the box, and its optimistic side (privacy buckets, 2 CPU s) 3.3511,
    below the max-of-outputs test's certified 3.5675, so the upper side's lower reference is
    that test's bound."""
    test, rdp = references(CHEAP_POINT, CHEAP_DELTA)
    h = FIRST_INTERVAL
    upper, window = upper_read(CHEAP_POINT, CHEAP_DELTA, h, rdp, test)
    # the premise: the window read holds more points than the tilted reads' cap allows
    assert window > tilted_question.MAX_POINTS
    # certified upper side: above the max-of-outputs test's bound, below the RDP conversion
    assert test <= upper <= rdp
    lower = aligned_lower_epsilon(0.5, 1e-4, 10**4, CHEAP_DELTA, upper, h, 1 << 25)
    assert test <= lower <= upper <= lower + 1e-5


@pytest.mark.slow
def test_no_upper_read_where_the_cap_refuses_every_window() -> None:
    test, rdp = references(WIDE_POINT, WIDE_DELTA)
    # the windows all pass 1000 points: each side stays as given
    found = finer_brackets(
        WIDE_POINT,
        np.array([WIDE_DELTA]),
        np.array([test]),
        np.array([rdp]),
        upper_max_points=1000,
        lower_max_points=1000,
    )
    assert (float(found[0][0]), float(found[1][0])) == (test, rdp)
    # under the core's caps the same bracket narrows on both sides
    lower, upper = finer_bracket(WIDE_POINT, WIDE_DELTA, test, rdp)
    assert test < lower <= upper < rdp


def test_a_cut_window_whose_uncut_one_passes_the_cap_is_read_again_charged() -> None:
    """The issue's run (sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10) on 2.5e-5 under a cap of 1.5 M
    points: the remove direction's window cut at the read tail (1e-6, 1.38 M points) may owe its
    read to the cut, so it is read again; the uncut window passes the cap, so the read is the cut
    window's with its cut mass charged by its Chernoff bound (the composition's fallback at
    ``WINDOW_TAIL``, the read tail): the answer that fallback window gives read alone, certified
    between the references."""
    point, delta, start, least = (0.6, 1e-5, 1e6, 1.0), 1e-10, 1.0785, 1.07706
    h, cap = 2.5e-5, 1_500_000
    found, window = upper_read(point, delta, h, start, least, max_points=cap)
    assert window <= cap
    _, factor = remove_round(point, h, delta, optimistic=False)
    lam = _core.pld_refine.exponent_tilt([(factor.upper, int(point[2]))], eps=start)
    fallback = composed([(factor.upper, int(point[2]))], lam, True, max_points=cap)
    assert fallback.above is not None  # the premise: past the cap, the window cut and charged
    reference = tilted.upper_epsilon(fallback, delta, min(start, fallback.top))
    test, rdp = references(point, delta)
    assert test <= found <= rdp
    assert found == pytest.approx(reference, rel=1e-10)  # searched from least first: a few ulps


@pytest.mark.parametrize(
    "cap, fresh_window, uncut_first_window",
    [
        # the uncut window fits: a fresh reader reads the cut window (1.38 M points), finds its read
        # may owe its value to the cut and reads the uncut one (3.83 M); after the read on the
        # coarser grid showed the cut, the reader reads the uncut one alone
        (1 << 22, 1_380_668, 3_834_731),
        # the uncut window passes the cap: both read the cut one with its fallback's charge
        (1_500_000, 1_380_668, 1_380_668),
    ],
)
def test_a_read_after_a_coarser_grid_showed_the_cut_reads_the_uncut_window_first(
    cap: int, fresh_window: int, uncut_first_window: int
) -> None:
    """About 1 CPU s.  The issue's run (sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10): the read on
    2.5e-5 under the exponent's tilt, by a fresh reader and by one that read 5e-5 first (where the
    cut showed); the same certified answer, bit for bit, its least window (the one read first) the
    uncut one where it fits."""
    point, delta, start, least = (0.6, 1e-5, 1e6, 1.0), 1e-10, 1.0785, 1.07706
    reference, window = upper_read(point, delta, 2.5e-5, start, least, max_points=cap)
    assert window == fresh_window
    reader = CORE.TiltedPointReader(
        **tilted_question.core_point(point, 0), max_points=cap
    )  # one reader for both reads
    reader.exponent_read(delta=delta, interval=5e-5, upper=start, least=least)
    found, window = reader.exponent_read(delta=delta, interval=2.5e-5, upper=start, least=least)
    assert window == uncut_first_window
    test, rdp = references(point, delta)
    assert test <= found == reference <= rdp


@pytest.mark.parametrize(
    "change, named",
    [
        ({"sigma": 0.0}, "sigma"),
        ({"sampling_rate": 1.0}, "sampling_rate"),
        ({"rounds": 0}, "rounds"),
        ({"delta": np.array([1.0])}, "delta"),
        ({"lower": np.array([math.nan])}, "lower"),
        ({"upper_max_points": 0}, "upper_max_points"),
        ({"lower": np.array([1.0, 2.0])}, "one size"),
    ],
)
def test_the_binding_refuses_bad_input_naming_the_argument(change: dict, named: str) -> None:
    given = {
        "sigma": 0.5,
        "sampling_rate": 1e-5,
        "rounds": 10**7,
        "delta": np.array([1e-10]),
        "lower": np.array([4.0]),
        "upper": np.array([5.0]),
        "max_cells": 1 << 26,
    }
    with pytest.raises(ValueError, match=named):
        CORE.rare_finer_brackets(**{**given, **change})
