"""The adapters given neither a grid nor an accuracy choose it when the delta is asked
(``pld.accountants.question_plan``): a DP-SGD run gets ``training.DPSGD``'s bracket; another composition the
1e-4 grid's, refined where that is wider than max(1e-2, 1e-2 eps)."""

from __future__ import annotations

import pytest

from hockeystick.interop.opacus import HockeystickOpacusAccountant as OpacusAccountant
from hockeystick.training import DPSGD


def test_opacus_adapter_steps_get_the_dpsgd_bracket_at_small_delta():
    accountant = OpacusAccountant()
    for _ in range(14_100):
        accountant.step(noise_multiplier=1.1, sample_rate=256 / 60_000)
    ours = DPSGD(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=14_100).epsilon(
        1e-10, bound="both"
    )
    assert accountant.get_epsilon_bracket(1e-10) == ours
    assert accountant.get_epsilon(1e-10) == ours[1]


def test_dp_accounting_adapter_answers_a_mixed_composition_below_its_tail_finitely_and_warns():
    """50 subsampled Gaussians and a Laplace at delta 1e-14: the 1e-4 grid's tails leave the upper side inf; the
    default is finite, at most the RDP conversion, meets the fixed grid's lower side, and warns."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant
    from hockeystick.pld.accountants.subsampled_gaussian import AccuracyNotMetWarning

    sampled = dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0))
    event = dp_accounting.ComposedDpEvent(
        [dp_accounting.SelfComposedDpEvent(sampled, 50), dp_accounting.LaplaceDpEvent(20.0)]
    )
    fixed_lower, fixed_upper = (
        HockeystickPLDAccountant(value_discretization_interval=1e-4)
        .compose(event)
        .get_epsilon_bracket(1e-14)
    )
    with pytest.warns(AccuracyNotMetWarning, match="accuracy="):
        lower, upper = HockeystickPLDAccountant().compose(event).get_epsilon_bracket(1e-14)
    rdp = HockeystickRdpAccountant().compose(event).get_epsilon(1e-14)
    assert fixed_upper == float("inf") and max(fixed_lower, lower) <= upper <= rdp * (1 + 1e-6)
