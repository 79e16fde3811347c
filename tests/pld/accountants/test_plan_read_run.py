"""The run a plan profile's brackets already hold (pld/accountants/plan.py, ``read_run``):
on the default grid the composed PLD of several Poisson-subsampled Gaussians reads the run it
describes, so the question's epsilon (``QuestionEpsilon.epsilon``) does not read it again; its
bracket is the one that read again would give, float.hex for float.hex, and certified (at most the
RDP conversion of the same composition)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as E  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickRdpAccountant  # noqa: E402
from hockeystick.interop.dp_accounting.dp_events import plan_for  # noqa: E402
from hockeystick.interop.dp_accounting.pld_accountant import NeighboringRelation  # noqa: E402
from hockeystick.pld.accountants.plan import PlanProfile, default_grid_profile, read_run  # noqa: E402
from hockeystick.pld.accountants.question_plan import (  # noqa: E402
    QuestionEpsilon,
    subsampled_gaussian_segments,
)
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD  # noqa: E402
from hockeystick.pld.question.reader import segments_bracket  # noqa: E402

# two stages of few rounds at a small rate: cheap to compose, and the tilted reads (the split read
# at T q <= 0.1 among them) set the bracket
TWO_STAGES = E.ComposedDpEvent(
    [
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(1e-3, E.GaussianDpEvent(sigma)), 5)
        for sigma in (1.0, 0.8)
    ]
)
DELTA = 1e-5


def _plan():
    return plan_for(TWO_STAGES, 1, NeighboringRelation.ADD_OR_REMOVE_ONE)


def test_the_default_grid_holds_the_runs_read_and_reading_it_again_changes_no_bit():
    plan = _plan()
    segments = subsampled_gaussian_segments(plan)
    assert segments is not None and len(segments) == 2
    profile = default_grid_profile(plan)
    lower, upper = profile.epsilon(DELTA)
    assert read_run(profile) == segments
    again = segments_bracket(
        SubsampledGaussianPLD,
        segments,
        "epsilon",
        np.asarray(DELTA),
        np.asarray(lower),
        np.asarray(upper),
    )
    assert [float(side).hex() for side in again] == [lower.hex(), upper.hex()]
    answered = QuestionEpsilon().epsilon(plan, None, lambda: profile, DELTA, add_or_remove=True)
    assert [side.hex() for side in answered] == [lower.hex(), upper.hex()]
    rdp = HockeystickRdpAccountant().compose(TWO_STAGES).get_epsilon(DELTA)
    assert 0.0 < lower <= upper <= rdp


def test_a_profile_off_a_fixed_grid_holds_no_runs_read():
    """The accuracy-driven grid's composition is read on its own (``composition_only``): the
    question reads the run on top of it."""
    profile = PlanProfile(_plan(), None, 1e-2)
    assert profile.fixed_interval is None and read_run(profile) is None
