"""The default's fine delta read (``tilted_question.fine_delta_brackets``) reads only the brackets the
max-of-outputs test's lower side leaves wider than exact (``question.exact``): a read could lower an
exact bracket's upper side by at most ``question.EXACT_RELATIVE`` of it.  At one round the test
thresholds the one output (the remove direction's likelihood-ratio test), so its lower delta is
close to the truth wherever the remove direction is the larger.

The reference is the closed form of one round evaluated with mpmath (the extreme parameters' tests).
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.question import tilted_question
from hockeystick.pld.refine import question

from ..mechanisms.test_pld_extreme_parameters import exact_one_round


def held_after(monkeypatch, point, eps, lower, upper):  # type: ignore[no-untyped-def]
    """The fine read of the brackets from a new reader, and the window points that reader then holds
    (its compositions: none for a bracket not read)."""
    from hockeystick.pld.question.kept_readers import KeptReaders

    readers = KeptReaders(
        1, tilted_question._delta_reader, tilted_question.TiltedReader.drop_compositions
    )
    monkeypatch.setattr(tilted_question, "_DELTA_READERS", readers)
    read = tilted_question.fine_delta_brackets(point, eps, lower, upper)
    ((reader, _),) = readers._kept.values()
    return read, reader.core.held_points()


def test_a_bracket_the_test_makes_exact_is_not_read(monkeypatch):
    """One round of sigma 1, q 0.1: at eps 1 a bracket 1e-5 wide becomes exact with the test's lower
    side and is not read (its upper side as given, bit for bit, within 1e-7 of the truth; the reader
    holds no composition more than for eps 6 alone); at eps 6 an upper side twice the truth is read
    and lowered to it."""
    sigma, q = 1.0, 0.1
    point = (sigma, q, 1.0, 1.0)
    eps = np.array([1.0, 6.0])
    truth = np.array([exact_one_round(sigma, q, float(e)) for e in eps])
    lower, upper = truth * (1.0 - 1e-5), truth * (1.0 + 1e-9)
    upper[1] = 2.0 * truth[1]
    (lo, up), held = held_after(monkeypatch, point, eps, lower, upper)
    _, held_alone = held_after(monkeypatch, point, eps[1:], lower[1:], upper[1:])
    assert held == held_alone and held[0] > 0
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


@pytest.mark.parametrize(
    ("run", "eps"),
    [((1.0, 1e-3, 5000.0, 1.0), 5.0), ((0.8, 1e-5, 5000.0, 1.0), 3.2)],
    ids=["dp-fedavg", "sparse"],
)
def test_a_bracket_far_below_its_tails_level_is_read_again_at_its_own(run, eps):
    """DP-FedAvg (sigma 1, q 1e-3, 5000 rounds) at eps 5 and a sparse run (sigma 0.8, q 1e-5) at eps
    3.2, from the fixed grid's round-off floor (upper side 1e-10): the first pass's tails, sized for
    that level, leave an upper side near their charge (8.1e-23 and 5.7e-23, the truth near 1e-30);
    read again at the level found (pld/refine/fine_delta.hpp's kFineDeltaPasses) the bracket is
    within 1e-3 of its upper side."""
    lo, up = tilted_question.fine_delta_brackets(
        run, np.array([eps]), np.zeros(1), np.array([1e-10])
    )
    assert 0.0 < lo[0] <= up[0] <= lo[0] * (1.0 + 1e-3)
    assert up[0] < 1e-25


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"split_max_points": 0}, "split_max_points must be at least 1"),
        ({"eps": np.array([np.nan])}, "eps"),
        ({"lower": np.array([0.5]), "upper": np.array([0.25])}, "0 <= lower <= upper <= 1"),
        ({"upper": np.array([1.0, 1.0])}, "one-dimensional arrays of one length"),
    ],
)
def test_the_core_read_refuses_what_it_cannot_read(given, message):
    """The binding's refusals name the argument and the rule."""
    args = {
        "eps": np.array([1.0]),
        "lower": np.array([0.0]),
        "upper": np.array([1.0]),
        "read_lower": True,
        "split_max_points": 1 << 20,
    }
    args.update(given)
    reader = tilted_question.TiltedReader((1.0, 0.01, 10.0, 1.0)).core
    with pytest.raises(ValueError, match=message):
        reader.fine_delta_brackets(**args)


def test_a_fine_grid_the_round_cannot_resolve_leaves_the_bracket_given():
    """One round of sigma 0.5 at q = 1 - 1e-16, eps 40: the fine grid 5e-5 is finer than that round's loss edges
    resolve in doubles, so the fine read's optimistic side cannot be discretized there; the default answers with the
    bracket read so far (certified: it holds the closed form, mpmath) instead of refusing a grid the caller never
    gave."""
    sigma, q, eps = 0.5, 1.0 - 1e-16, 40.0
    lower, upper = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=1).delta(
        eps, bound="both"
    )
    truth = exact_one_round(sigma, q, eps)
    assert 0.0 < lower <= truth <= upper
