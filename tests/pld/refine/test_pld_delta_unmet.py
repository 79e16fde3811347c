"""Delta asked to an accuracy says where its bracket is wider than asked, by epsilon's rule in the refinement's delta
measure (``refine.unmet.unmet_flags``): a bracket is wider than asked where its width relative to max(upper, 1e-9)
passes the accuracy, the width ``delta_accuracy="relative"``'s refinement drives below it; the dp_accounting
adapter's plans asked delta to an accuracy warn ``AccuracyNotMetWarning`` there, as their epsilon does."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hockeystick.pld.refine import AccuracyNotMetWarning
from hockeystick.pld.refine.unmet import unmet_flags


def test_the_rule_is_the_relative_width_over_the_floor():
    """[0.5, 0.50001] is 2e-5 wide relative, [0.5, 0.5001] 2e-4; [0, 7e-12] is 7e-12 wide over the floor 1e-9 (7e-3
    relative: below 1e-9 an absolute width of 1e-13 is asked); an exact bracket, 0 or 1 included, never is wide."""
    lower = np.array([0.5, 0.5, 0.0, 3e-7, 0.0, 1.0])
    upper = np.array([0.50001, 0.5001, 7e-12, 3e-7, 0.0, 1.0])
    with pytest.warns(
        AccuracyNotMetWarning, match=r"^2 of 6 delta brackets are wider than accuracy=0\.0001"
    ):
        flags = unmet_flags(lower, upper, 1e-4, 0.0, "delta")
    assert flags.tolist() == [False, True, True, False, False, False]
    with warnings.catch_warnings():
        warnings.simplefilter("error", AccuracyNotMetWarning)
        assert not unmet_flags(lower[[0, 3]], upper[[0, 3]], 1e-4, 0.0, "delta").any()


def test_the_quantity_is_refused_by_name():
    with pytest.raises(ValueError, match="quantity"):
        unmet_flags(np.zeros(1), np.ones(1), 1e-4, 0.0, "rdp")  # type: ignore[arg-type]


def test_a_plans_delta_wider_than_asked_warns():
    """Two stages of 3000 steps at q 0.004 through the dp_accounting adapter at eps 2.5 (delta about 1.47e-8): the
    plan refined to 1e-4 and intersected with the default's is 3.3e-10 wide, 2.2e-2 relative, and says so."""
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

    adapter = HockeystickPLDAccountant(accuracy=1e-4)
    for sigma in (1.1, 0.9):
        adapter.compose(
            dp_event.PoissonSampledDpEvent(0.004, dp_event.GaussianDpEvent(sigma)), 3000
        )
    with pytest.warns(AccuracyNotMetWarning, match="1 of 1 delta brackets"):
        lower, upper = adapter.get_delta_bracket(2.5)
    assert upper - lower > 1e-4 * upper
