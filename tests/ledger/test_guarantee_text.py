"""A guarantee in words states its epsilon sides rounded outward: the upper side at or above the
bound, the lower side at or below it (six digits, the README run's bracket at delta = 1e-5)."""

from __future__ import annotations

from hockeystick.ledger.guarantee import PrivacyGuarantee


def test_a_guarantee_s_bracket_is_printed_rounded_away_from_its_sides():
    bracket = PrivacyGuarantee(
        "certified composition",
        "pld",
        2.385143868945805,
        1e-5,
        14100,
        "the schedule is fixed",
        2.38506521025243,
    )
    assert "epsilon in [2.38506, 2.38515] at delta = 1e-05" in str(
        bracket
    )  # nearest: 2.38507, 2.38514
    upper = PrivacyGuarantee("filter", "rdp", 2.385143868945805, 1e-5, 10, "the filter admits it")
    assert "epsilon <= 2.38515 at delta" in str(upper)
