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


def test_a_bracket_the_test_makes_exact_is_not_read(monkeypatch):
    """One round of sigma 1, q 0.1: at eps 1 a bracket 1e-5 wide becomes exact with the test's lower
    side and is not read (its upper side as given, within 1e-7 of the truth); at eps 6 an upper side
    twice the truth is read and lowered to it."""
    sigma, q = 1.0, 0.1
    eps = np.array([1.0, 6.0])
    truth = np.array([exact_one_round(sigma, q, float(e)) for e in eps])
    lower, upper = truth * (1.0 - 1e-5), truth * (1.0 + 1e-9)
    upper[1] = 2.0 * truth[1]
    read = []
    bucket = tilted_question._fine_delta_bucket

    def recorded(reader, at, *args):
        read.extend(float(x) for x in at)
        return bucket(reader, at, *args)

    monkeypatch.setattr(tilted_question, "_fine_delta_bucket", recorded)
    lo, up = tilted_question.fine_delta_brackets((sigma, q, 1.0, 1.0), eps, lower, upper)
    assert read == [6.0]
    assert up[0] == upper[0] and question.exact(lo[0], up[0])
    assert np.all(lo <= truth) and np.all(truth <= up)
    assert up[1] <= truth[1] * (1.0 + 1e-6)
