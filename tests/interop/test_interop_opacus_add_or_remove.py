"""Opacus's steps are Poisson-subsampled Gaussians under add-or-remove neighbours (its RDP and PRV accountants'
relation), and ``HockeystickOpacusAccountant`` asks the question as such: a history the plan's grid leaves with an
infinite upper side at a small delta gets the add-or-remove reads' finite one (the plan's RDP conversion, with a
warning), as the dp_accounting adapter does for the same events."""

from __future__ import annotations

import math
import warnings

import pytest

from hockeystick.interop.opacus import HockeystickOpacusAccountant
from hockeystick.pld.refine import AccuracyNotMetWarning

# 7000 steps of the README's DP-SGD rate, then 3 unsampled steps (q = 1: Gaussians folded into one radius)
HISTORY = [(1.1, 256 / 60_000, 7000), (1.0, 1.0, 3)]
DELTA = 1e-12


def test_a_mixed_history_is_bounded_as_add_or_remove():
    """At delta 1e-12 the plan's default grid puts more than delta at +infinity: read as add-or-remove, the upper
    side is the RDP conversion's, at most dp_accounting's RdpAccountant's for the same events (an independent upper
    bound) by its margin, and within the doors' tolerance of the dp_accounting adapter's (14.2016)."""
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from dp_accounting.rdp import RdpAccountant

    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

    accountant = HockeystickOpacusAccountant()
    accountant.history = HISTORY
    with pytest.warns(AccuracyNotMetWarning):
        lower, upper = accountant.get_epsilon_bracket(DELTA)
    assert math.isfinite(upper) and lower <= upper
    rdp, adapter = RdpAccountant(), HockeystickPLDAccountant()
    for sigma, q, steps in HISTORY:
        event = dp_event.GaussianDpEvent(sigma)
        event = event if q == 1.0 else dp_event.PoissonSampledDpEvent(q, event)
        rdp.compose(event, steps)
        adapter.compose(event, steps)
    assert upper <= rdp.get_epsilon(DELTA) * (1.0 + 1e-6), (upper, rdp.get_epsilon(DELTA))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotMetWarning)
        door_lower, door_upper = adapter.get_epsilon_bracket(DELTA)
    assert lower <= door_upper and door_lower <= upper
    assert abs(upper - door_upper) <= max(1e-3, 1e-3 * door_upper), (upper, door_upper)
