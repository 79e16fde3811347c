"""The default bracket under rare participation against dp_accounting's default, asked live (its
pessimistic PLD on the 1e-4 grid, uncertified): a default answer is never looser than a peer's
default, so wherever dp_accounting's epsilon is at or above our certified lower side (where it may
be the truth), our upper side is at most it; where it is below our certified lower side it is below
the truth, and no certified upper side can reach it.

A bracket within the tolerance but wider than a sixteenth of it has its lower side read by the
aligned cells on ``rare_finer_core.FIRST_INTERVAL`` (the core's ``tight_bracket``,
cpp/include/hockeystick/pld/refine/rare_finer_grids.hpp): at the
issue's run (sigma 0.6, q 1e-5, 10^6 rounds, delta 1e-10) dp_accounting's 1.077178 fell between our
sides [1.077060, 1.077423]; the cells certify 1.077214.  At sigma 0.5, q 1e-4, 10^4 rounds, delta
1e-8 its 3.5796137 fell between [3.5795432, 3.5796268]; the cells certify 3.5796156.

The raised lower side is held below certified upper sides of other constructions: the pessimistic
tilted read on a grid finer still (``tilted_windows.upper_read``) and the RDP conversion
(``question.rdp_upper``); the upper side above the max-of-outputs test's certified lower bound
(``reads.max_of_outputs``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.refine import question

from .rare_box import RareReads, assert_box_rule, references
from .rare_finer_core import FIRST_INTERVAL, finer_bracket
from .tilted_windows import upper_read

TIGHT_SHARE = _core.pld_refine.finer_tight_share


def tight_applies(
    point: tuple[float, float, float, float], delta: float, lower: float, upper: float
) -> bool:
    """The core's ``tight_applies`` of the bracket at ``point``."""
    return bool(
        _core.pld_refine.tight_applies(
            sampling_rate=point[1], rounds=int(point[2]), delta=delta, lower=lower, upper=upper
        )
    )


pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

ISSUE_POINT = (0.6, 1e-5, 1e6, 1.0)
CHEAP_POINT = (0.5, 1e-4, 1e4, 1.0)
# the box's deltas read here (issue 90 item 4), under the box's whole rule
# (``rare_box.assert_box_rule``): the issue's run covers the box's corner at q 1e-5, T q 10 and the
# small-sigma end; its delta 1e-8 is test_rare_participation_fine_upper's (sigma 0.5, the same rate
# and rounds: the upper side at most dp_accounting's, within the tolerance, on the safe side)
BOX_DELTAS = (1e-10, 1e-12)


@pytest.fixture(scope="module")
def reads() -> RareReads:
    """The module's brackets and dp_accounting's composition of the issue's run, each read once."""
    return RareReads()


@pytest.mark.slow
@pytest.mark.parametrize("delta", [1e-5, *BOX_DELTAS])
def test_the_upper_side_is_at_most_dp_accounting_wherever_that_is_above_our_lower_side(
    delta: float, reads: RareReads
) -> None:
    """About 2 to 6 CPU s a delta, dp_accounting's composition once for all: the house rule against
    the peer's default, asked live, at the issue's run (sigma 0.6, q 1e-5, 10^6 rounds) at delta
    1e-5, outside the box, and at the box's deltas with the box's rule.  The rule at sigma 0.5, q
    1e-4, 10^4 rounds, delta 1e-8 is the box's (``test_rare_participation_box``, read by
    default)."""
    sigma, q, rounds, _ = ISSUE_POINT
    lower, upper = reads.bracket(sigma, q, int(rounds), delta)
    peer = reads.peer(sigma, q, int(rounds), delta)
    test, rdp = references(sigma, q, int(rounds), delta)
    assert test <= upper <= rdp and lower <= upper  # on the safe side of the references
    assert upper <= peer or peer < lower, (lower, upper, peer)
    if delta in BOX_DELTAS:
        assert_box_rule((sigma, q, int(rounds), delta), lower, upper, peer)


@pytest.mark.slow
def test_at_the_issue_run_the_aligned_cells_show_dp_accounting_below_the_truth(
    reads: RareReads,
) -> None:
    """About 9 CPU s.  The premise of the rule's second branch at the issue's run, delta 1e-10:
    dp_accounting's default lies below the upper side the default had without the tight read, and the
    cells' certified lower side is above it, itself below a certified upper side of another
    construction (the pessimistic tilted read on a grid twice finer than the cells').  Where below
    depends on the machine: its 10^6-fold FFT power's round-off gives 1.0772 on one x86-64 CPU and
    0.9934 on another, with the same numpy and scipy."""
    delta = 1e-10
    sigma, q, rounds, _ = ISSUE_POINT
    lower, upper = reads.bracket(sigma, q, int(rounds), delta)
    peer = reads.peer(sigma, q, int(rounds), delta)
    # the sides before the tight read (the refinement's optimistic lower side, the core's rare upper
    # read)
    assert peer < 1.07742 < upper < 1.07743
    assert peer < lower
    finer, _ = upper_read(ISSUE_POINT, delta, FIRST_INTERVAL / 2, upper, lower)
    assert lower <= finer <= upper


def test_the_tight_read_raises_a_lower_side_within_the_tolerance_and_stays_certified() -> None:
    """About 2 CPU s.  The bracket of the fine read at sigma 0.5, q 1e-4, 10^4 rounds, delta 1e-8
    (within the tolerance, wider than a sixteenth of it): the cells raise its lower side, never
    above the upper side given nor the RDP conversion."""
    delta, lower, upper = 1e-8, 3.5795432, 3.5796268
    assert tight_applies(CHEAP_POINT, delta, lower, upper)
    raised, kept = finer_bracket(CHEAP_POINT, delta, lower, upper)
    _, rdp = references(0.5, 1e-4, 10**4, delta)
    assert kept == upper and lower < raised <= min(upper, rdp)
    # narrower than the target: the read is not taken again
    assert not tight_applies(CHEAP_POINT, delta, raised, upper)


@pytest.mark.parametrize(
    "point, delta, lower, upper",
    [
        ((0.5, 2e-4, 1e4, 1.0), 1e-8, 3.5790, 3.5796),  # not rare participation
        (CHEAP_POINT, 1e-8, 3.57960, 3.57962),  # within the target already
        (CHEAP_POINT, 1e-8, 3.5796, math.inf),  # no finite upper side
        ((0.5, 1e-4, 100.0, 1.0), 1e-8, 1.0, 1.0005),  # too few rounds for the aligned cells
        (CHEAP_POINT, 1e-25, 9.0, 9.001),  # delta below the aligned cells' tail
    ],
)
def test_a_bracket_outside_the_tight_read_is_returned_as_given(
    point: tuple[float, float, float, float], delta: float, lower: float, upper: float
) -> None:
    assert not tight_applies(point, delta, lower, upper)
    assert finer_bracket(point, delta, lower, upper) == (lower, upper)


def test_a_bracket_wider_than_the_tolerance_takes_the_finer_grids_not_the_tight_read() -> None:
    """About 2 CPU s: the same point's bracket wider than the tolerance is read on the finer grids,
    whose first read lowers its upper side (the tight read would keep it) and brings it within the
    tolerance, so the lower side is kept."""
    delta, lower, upper = 1e-8, 3.5790, 3.5805
    assert not tight_applies(CHEAP_POINT, delta, lower, upper)
    assert _core.pld_refine.finer_applies(
        sampling_rate=CHEAP_POINT[1],
        rounds=int(CHEAP_POINT[2]),
        delta=delta,
        lower=lower,
        upper=upper,
    )
    low, up = finer_bracket(CHEAP_POINT, delta, lower, upper)
    _, rdp = references(0.5, 1e-4, 10**4, delta)
    assert low == lower and up < upper and up <= rdp
    assert question.within_tolerance(np.array(low), np.array(up))


def test_the_target_is_a_sixteenth_of_the_tolerance() -> None:
    tolerance = question.default_tolerance(3.5796)
    assert tight_applies(CHEAP_POINT, 1e-8, 3.5796, 3.5796 + 1.01 * TIGHT_SHARE * tolerance)
    assert not tight_applies(CHEAP_POINT, 1e-8, 3.5796, 3.5796 + 0.99 * TIGHT_SHARE * tolerance)
