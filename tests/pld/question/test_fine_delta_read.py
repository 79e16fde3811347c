"""The default's fine delta read (``tilted_question.fine_delta_brackets``) reads only the brackets the
max-of-outputs test's lower side leaves wider than exact (``question.exact``): a read could lower an
exact bracket's upper side by at most ``question.EXACT_RELATIVE`` of it.  At one round the test
thresholds the one output (the remove direction's likelihood-ratio test), so its lower delta is
close to the truth wherever the remove direction is the larger.

The reference is the closed form of one round evaluated with mpmath (the extreme parameters' tests).
"""

from __future__ import annotations

import numpy as np

from hockeystick.pld.refine import question, tilted_question

from ..mechanisms.test_pld_extreme_parameters import exact_one_round


def test_a_bracket_the_test_makes_exact_is_not_read():
    """One round of sigma 1, q 0.1: at eps 1 a bracket 1e-5 wide becomes exact with the test's lower
    side and is not read (its upper side as given, bit for bit, within 1e-7 of the truth, where the
    fine read would lower it); at eps 6 an upper side twice the truth is read and lowered to it."""
    sigma, q = 1.0, 0.1
    eps = np.array([1.0, 6.0])
    truth = np.array([exact_one_round(sigma, q, float(e)) for e in eps])
    lower, upper = truth * (1.0 - 1e-5), truth * (1.0 + 1e-9)
    upper[1] = 2.0 * truth[1]
    lo, up = tilted_question.fine_delta_brackets((sigma, q, 1.0, 1.0), eps, lower, upper)
    read, _ = tilted_question.fine_delta_brackets((sigma, q, 1.0, 1.0), eps[:1], [0.0], upper[:1])
    assert read[0] < upper[0]  # read from a bracket the test leaves wide, it is lowered
    assert up[0] == upper[0] and question.exact(lo[0], up[0])
    assert np.all(lo <= truth) and np.all(truth <= up)
    assert up[1] <= truth[1] * (1.0 + 1e-6)


def test_an_upper_side_asked_alone_is_the_brackets():
    """One round of sigma 1, q 0.05 (T q <= ``SPLIT_SAMPLED_ROUNDS``: the split read applies) at
    eps 2 to 8 from the trivial bracket [0, 1]: asked its upper side alone, its lower side is the
    max-of-outputs test's alone and its upper side the one the read of both sides gives, bit for
    bit; both brackets hold the closed form of the round (mpmath)."""
    from hockeystick.pld.reads.max_of_outputs import max_of_outputs_delta

    point, eps = (1.0, 0.05, 1.0, 1.0), np.array([2.0, 4.0, 8.0])
    zeros, ones = np.zeros(eps.size), np.ones(eps.size)
    lo, up = tilted_question.fine_delta_brackets(point, eps, zeros, ones, read_lower=False)
    both_lo, both_up = tilted_question.fine_delta_brackets(point, eps, zeros, ones)
    assert [x.hex() for x in up] == [x.hex() for x in both_up]
    tested = max_of_outputs_delta([((1.0, 0.05, 1.0), 1)], eps)
    assert [x.hex() for x in lo] == [float(x).hex() for x in tested]
    truth = np.array([exact_one_round(1.0, 0.05, float(e)) for e in eps])
    assert np.all(lo <= truth) and np.all(truth <= up)
    assert np.all(both_lo <= truth) and np.all(truth <= both_up)
    assert np.all(both_lo >= lo)


def test_every_eps_of_shared_buckets_reads_as_asked_alone():
    """Ten rounds of sigma 2, q 0.01 at eps 0.5 to 2 from upper sides 1 and 1e-4 (four buckets of
    two tails, several of one tilt and tails in a direction, whose windows the reader shares: the
    core's held windows, tests/pld/refine/test_held_windows.py): every bracket is the one its eps
    gets asked alone, bit for bit."""
    point, eps = (2.0, 0.01, 10.0, 1.0), np.array([0.5, 1.0, 1.5, 2.0])
    given = np.array([1.0, 1e-4, 1.0, 1e-4])  # above the truth (below 1e-10 here)
    lo, up = tilted_question.fine_delta_brackets(point, eps, np.zeros(4), given)
    for j in range(eps.size):
        at = slice(j, j + 1)
        alone = tilted_question.fine_delta_brackets(point, eps[at], np.zeros(1), given[at])
        assert (alone[0][0].hex(), alone[1][0].hex()) == (lo[j].hex(), up[j].hex())
    assert np.all(lo <= up) and np.all(up < given)


def test_the_lower_read_at_other_tails_reads_its_own_window():
    """The core's ``TiltedReader::delta_lower`` of one reader at the same tilt (centre 3) for deltas 1e-6 then
    1e-12 (other tails, the same ladder tilt): the second read is a new reader's, bit for bit, not
    the first window's (whose tails read other values at eps 3 to 5)."""
    point, eps, h = (1.0, 0.05, 2.0, 1.0), np.array([3.0, 4.0, 5.0]), 1e-3
    reader = tilted_question.TiltedReader(point).core
    first = reader.delta_lower(eps=eps, interval=h, centre=3.0, level=1e-6)
    second = reader.delta_lower(eps=eps, interval=h, centre=3.0, level=1e-12)
    alone = tilted_question.TiltedReader(point).core.delta_lower(
        eps=eps, interval=h, centre=3.0, level=1e-12
    )
    assert [x.hex() for x in second] == [x.hex() for x in alone]
    assert [x.hex() for x in second] != [x.hex() for x in first]
