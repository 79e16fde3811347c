"""``plan_rdp.rdp_lowered_upper``: an epsilon bracket's upper side is lowered to the plan's RDP side
exactly where the bracket is wider than the default tolerance (``refine.question.within_tolerance``,
the rule itself as the reference), never below the lower side; a delta bracket where it is wider
than ``DEFAULT_RELATIVE_ACCURACY`` of its lower side."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld.accountants import plan_rdp
from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.refine.question import (
    DEFAULT_ACCURACY,
    DEFAULT_RELATIVE_ACCURACY,
    within_tolerance,
)

# the RDP side the plan is given (the plan's own conversion is not what is tested here)
RDP_SIDE = 0.25
PLAN = CompositionPlan()


@pytest.fixture
def fixed_rdp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan_rdp, "plan_rdp_epsilon", lambda plan, delta: RDP_SIDE)
    monkeypatch.setattr(plan_rdp, "plan_rdp_delta", lambda plan, epsilon: RDP_SIDE / 1e3)


def _widths(upper: float) -> list[float]:
    """Bracket widths about the tolerance at ``upper``: zero, below, at and above each of its two
    terms (the absolute DEFAULT_ACCURACY and the relative DEFAULT_RELATIVE_ACCURACY upper)."""
    relative = DEFAULT_RELATIVE_ACCURACY * upper
    out = [0.0]
    for w in (DEFAULT_ACCURACY, relative):
        out += [w / 2, np.nextafter(w, 0.0), w, np.nextafter(w, np.inf), 2.0 * w]
    return out


@pytest.mark.usefixtures("fixed_rdp")
@pytest.mark.parametrize("upper", [0.5, 3.0, 4.0, 10.0, 1e3])
def test_an_epsilon_bracket_is_lowered_exactly_where_it_is_wide(upper):
    for width in _widths(upper):
        lower = upper - width
        if lower < 0.0:
            continue
        wide = not bool(within_tolerance(np.array(lower), np.array(upper)))
        expected = max(lower, min(upper, RDP_SIDE)) if wide else upper
        read = plan_rdp.rdp_lowered_upper(PLAN, "epsilon", 1e-6, lower, upper)
        assert read == expected, (upper, width, wide, read)


@pytest.mark.usefixtures("fixed_rdp")
def test_an_infinite_upper_side_is_lowered_and_a_delta_outside_0_1_keeps_it():
    assert plan_rdp.rdp_lowered_upper(PLAN, "epsilon", 1e-6, 0.1, np.inf) == RDP_SIDE
    assert plan_rdp.rdp_lowered_upper(PLAN, "epsilon", 1e-6, np.inf, np.inf) == np.inf
    assert plan_rdp.rdp_lowered_upper(PLAN, "epsilon", 1.0, 0.0, 5.0) == 5.0


@pytest.mark.usefixtures("fixed_rdp")
def test_a_delta_bracket_is_lowered_where_wider_than_its_relative_accuracy():
    lower = 1e-5
    assert plan_rdp.rdp_lowered_upper(PLAN, "delta", 1.0, lower, 1e-3) == RDP_SIDE / 1e3
    assert plan_rdp.rdp_lowered_upper(PLAN, "delta", 1.0, lower, 2e-4) == 2e-4
    narrow = lower * (1.0 + DEFAULT_RELATIVE_ACCURACY / 2)
    assert plan_rdp.rdp_lowered_upper(PLAN, "delta", 1.0, lower, narrow) == narrow
