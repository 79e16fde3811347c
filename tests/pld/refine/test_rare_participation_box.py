"""The default bracket over the rare-participation box (issue 90 item 4: q in [1e-6, 1e-4], T q in
[1, 100], sigma in [0.5, 2], delta in [1e-12, 1e-8]), read at its corners (``rare_box``'s rule:
within the default tolerance, on the safe side of the max-of-outputs test and the RDP conversion,
and never looser than dp_accounting's default PLD where that may be the truth).

The suite reads one corner per branch of the default's chain (``question.default_reads``: which
reads a point reaches and which of them move its bracket), under ``--run-slow``, two tight points by
default; ``CORNERS`` names each point's branch.  A corner whose branch another point reads
(``SAME_BRANCH``, each with the point that reads its branch) is read with ``HOCKEYSTICK_BOX=all`` in
the environment: it walks the same reads on other numbers, at 1 to 7 CPU s a point.  The issue's
run (sigma 0.6, q 1e-5, 10^6 rounds) is read at delta 1e-10 and 1e-12 under the same rule by
``test_rare_participation_peer_default``, which covers the box's corner at q 1e-5, T q 10 and the
small-sigma end there (its delta 1e-8: ``test_rare_participation_fine_upper``).  At 10^7 and 10^8 rounds (``FINER``: sigma 0.5, the points only the reads on
grids finer than the tilted reads' cap bring within the tolerance, the core's rare_finer_grids.hpp; one
of each round count, all six with ``HOCKEYSTICK_BOX=all``), dp_accounting's
composition takes minutes a point, so the rule is checked in its stronger form there.  Each point
is read once, by one test: its bracket and dp_accounting's composition are the module's
(``rare_box.RareReads``)."""

from __future__ import annotations

import os

import pytest

from .rare_box import BoxPoint, RareReads, assert_box_rule

pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

# the corners read, (sigma, q, T, delta), each with its branch of the default's chain: the reads
# that move its bracket (step 3: the tilted reads past the PLD's charges; the fine read; the tilted
# factors' ladder and its blocks; the aligned cells' tight read of rare_finer_grids.hpp, raising the
# lower side or not), the regime it covers.  The corner sigma 0.5, q 1e-5, 10^6 rounds, delta 1e-12
# is covered by the run there (sigma 0.6, the same rate, rounds and delta, under this rule:
# test_rare_participation_peer_default), its delta 1e-8 by test_rare_participation_fine_upper
# (upper side at most dp_accounting's), and T q 100 at sigma 0.5 and q 1e-5 by FINER below
CORNERS: list[BoxPoint] = [
    # the tilted factors' ladder, then its blocks (``block_reads``): the least rate, T q 1, the
    # large-sigma end
    (2.0, 1e-6, 10**6, 1e-12),
    # step 3, the tight read leaving the lower side: rate 1e-5, T q 10, the large-sigma end
    (2.0, 1e-5, 10**6, 1e-12),
    # step 3, the fine read: the largest rate, T q 1, epsilon above 4 (the relative tolerance);
    # dp_accounting below the truth (6.2124)
    (0.5, 1e-4, 10**4, 1e-12),
    # step 3, the fine read, the tight read raising the lower side (default)
    (1.0, 1e-4, 10**4, 1e-12),
    # step 3, the tight read raising the lower side: the large-sigma end
    (2.0, 1e-4, 10**4, 1e-12),
    # step 3, the fine read, the tight read leaving the lower side: T q 100, the widest bracket
    # (0.98 tolerances)
    (1.0, 1e-4, 10**6, 1e-12),
    # the fine read, the tight read raising the lower side: the box's largest delta (default)
    (0.5, 1e-4, 10**4, 1e-8),
]
# corners whose branch a point of CORNERS reads, each with that point, read with
# HOCKEYSTICK_BOX=all (their CPU s a point, with dp_accounting's composition: 6, 6, 1, 7, 2)
SAME_BRANCH: dict[BoxPoint, BoxPoint] = {
    # step 3, the fine read, the tight read raising the lower side: the least rate, T q 1, the
    # small-sigma end
    (0.5, 1e-6, 10**6, 1e-12): (1.0, 1e-4, 10**4, 1e-12),
    # the fine read, the ladder, its blocks: the least rate, T q 1
    (1.0, 1e-6, 10**6, 1e-12): (2.0, 1e-6, 10**6, 1e-12),
    # step 3, the tight read leaving the lower side: rate 1e-5, T q 10
    (1.0, 1e-5, 10**6, 1e-12): (2.0, 1e-5, 10**6, 1e-12),
    # step 3, the fine read, the tight read raising the lower side, epsilon above 4: the largest
    # rate, T q 100, the small-sigma end
    (0.5, 1e-4, 10**6, 1e-12): (1.0, 1e-4, 10**4, 1e-12),
    # step 3, the tight read leaving the lower side: the largest rate, T q 100, the large-sigma end
    (2.0, 1e-4, 10**6, 1e-12): (2.0, 1e-5, 10**6, 1e-12),
}
# the points read by default, each tight and one to two CPU seconds
DEFAULT_POINTS = [(0.5, 1e-4, 10**4, 1e-8), (1.0, 1e-4, 10**4, 1e-12)]
# sigma 0.5 at T q = 100 (10^7 rounds of q 1e-5, 10^8 of q 1e-6): 4.4 to 7.2 tolerances wide on the
# tilted reads' cap, within one with the finer grids' reads (8 to 22 CPU s a point)
FINER = [(0.5, q, t, d) for q, t in ((1e-5, 10**7), (1e-6, 10**8)) for d in (1e-12, 1e-10, 1e-8)]
# of those, the suite reads one point of each round count (the same reads on the same grids as the
# other four; the whole box costs about a CPU minute more; the 10^8 rounds' point under --run-slow
# only, tests/slow_cases.py): HOCKEYSTICK_BOX=all reads all six
WHOLE_BOX = os.environ.get("HOCKEYSTICK_BOX") == "all"
FINER_READ = FINER if WHOLE_BOX else [(0.5, 1e-5, 10**7, 1e-10), (0.5, 1e-6, 10**8, 1e-8)]
# every point read, once
POINTS = CORNERS + (list(SAME_BRANCH) if WHOLE_BOX else []) + FINER_READ


def point_id(point: BoxPoint) -> str:
    """A test id naming the point: sigma, q, T and delta."""
    sigma, q, rounds, delta = point
    return f"sigma{sigma:g}-q{q:g}-T{rounds:g}-delta{delta:g}"


@pytest.fixture(scope="module")
def reads() -> RareReads:
    """The module's brackets and dp_accounting's compositions, each read once."""
    return RareReads()


@pytest.mark.parametrize(
    "point",
    [
        pytest.param(p, id=point_id(p), marks=[] if p in DEFAULT_POINTS else [pytest.mark.slow])
        for p in POINTS
    ],
)
def test_the_bracket_is_within_the_tolerance_on_the_safe_side_and_below_dp_accounting(
    point: BoxPoint, reads: RareReads
) -> None:
    lower, upper = reads.bracket(*point)
    # dp_accounting takes minutes at 10^7 rounds and more: the rule's stronger form there
    peer = None if point in FINER else reads.peer(*point)
    assert_box_rule(point, lower, upper, peer)


def test_each_corner_left_out_names_a_corner_read() -> None:
    """A corner read only with ``HOCKEYSTICK_BOX=all`` names a corner the suite reads, whose branch
    it walks; none is both."""
    assert set(SAME_BRANCH.values()) <= set(CORNERS)
    assert not set(SAME_BRANCH) & set(CORNERS)
