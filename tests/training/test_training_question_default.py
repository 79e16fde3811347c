"""The default grid, tail and accuracy come from the question (``pld.refine.question``): at small delta, small
sampling rates and long runs the default bracket is readable (at most max(1e-2, 1e-2 eps) wide), its upper side
no looser than the peers' defaults (dp_accounting's PLD, the RDP conversion), checked live against them."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick.interop.dp_accounting import HockeystickAccountant
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.accountants.subsampled_gaussian import AccuracyNotMetWarning
from hockeystick.training import DPSGD, DPFedAvg

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting.pld import pld_privacy_accountant  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant  # noqa: E402

README_RUN = dict(noise_multiplier=1.1, sample_rate=256 / 60_000, steps=14_100)


def _event(sigma: float, q: float, rounds: int):
    return dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), rounds
    )


def their_pld(sigma: float, q: float, rounds: int, delta: float) -> float:
    """dp_accounting's default PLD epsilon (its 1e-4 grid, pessimistic estimate)."""
    return pld_privacy_accountant.PLDAccountant().compose(_event(sigma, q, rounds)).get_epsilon(delta)


def their_rdp(sigma: float, q: float, rounds: int, delta: float) -> float:
    """dp_accounting's RDP conversion at its default orders."""
    return rdp_privacy_accountant.RdpAccountant().compose(_event(sigma, q, rounds)).get_epsilon(delta)


def readable(lower: float, upper: float) -> bool:
    return upper - lower <= max(1e-2, 1e-2 * upper)


def no_looser(upper: float, peer: float) -> bool:
    """At most the default tolerance, max(1e-3, 0.025 %), above a peer's finite epsilon."""
    return not math.isfinite(peer) or upper <= peer + max(1e-3, 2.5e-4 * peer)


def quiet_bracket(run, delta: float) -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", AccuracyNotMetWarning)
        return run.epsilon(delta, bound="both")


def test_readme_run_at_delta_1e_10_is_readable_and_below_rdp():
    lower, upper = quiet_bracket(DPSGD(**README_RUN), 1e-10)
    assert 0 < lower <= upper and readable(lower, upper)
    assert upper <= their_rdp(1.1, 256 / 60_000, 14_100, 1e-10)
    # not looser than dp_accounting's default PLD either (3.74138; refined to the whole tolerance, 3.74141 was not)
    assert upper <= their_pld(1.1, 256 / 60_000, 14_100, 1e-10)
    # a certified bracket refined independently (explicit accuracy) overlaps it: neither side crosses the other's
    lo_ref, up_ref = DPSGD(**README_RUN, accuracy=0.05).epsilon(1e-10, bound="both")
    assert lower <= up_ref and lo_ref <= upper


def test_readme_run_below_the_plain_round_off_is_read_tilted_readable_and_below_rdp():
    """At delta 1e-20 the plain composition's round-off is far above delta; the tilted reads give a bracket
    within the default's tolerance, below the RDP conversion."""
    lower, upper = quiet_bracket(DPSGD(**README_RUN), 1e-20)
    assert 0 < lower <= upper and readable(lower, upper)
    assert upper <= their_rdp(1.1, 256 / 60_000, 14_100, 1e-20)


def test_readme_run_below_every_tail_is_finite_below_rdp_and_warns():
    """At delta 1e-300 no tail is short enough: the RDP conversion's finite side, with a warning."""
    with pytest.warns(AccuracyNotMetWarning, match="accuracy="):
        lower, upper = DPSGD(**README_RUN).epsilon(1e-300, bound="both")
    rdp = their_rdp(1.1, 256 / 60_000, 14_100, 1e-300)
    assert math.isfinite(upper) and 0 < lower <= upper <= rdp * (1 + 1e-6)


def test_dp_accounting_adapter_chooses_its_grid_at_the_question():
    accountant = HockeystickAccountant().compose(_event(1.1, 256 / 60_000, 14_100))
    assert accountant.get_epsilon_bracket(1e-10) == DPSGD(**README_RUN).epsilon(1e-10, bound="both")
    # the 1e-4 grid on request: dp_accounting's own grid, its looser upper side
    fixed = HockeystickAccountant(value_discretization_interval=1e-4).compose(_event(1.1, 256 / 60_000, 14_100))
    assert fixed.get_epsilon(1e-10) > accountant.get_epsilon(1e-10) + 1.0


def test_fedavg_billion_clients_at_gboard_delta_is_finite_readable_and_positive():
    run = DPFedAvg(total_clients=10**9, clients_per_round=1000, rounds=10**6, noise_multiplier=1.0)
    lower, upper = quiet_bracket(run, 1.26e-10)
    assert 0 < lower <= upper and readable(lower, upper)
    assert upper <= their_rdp(1.0, 1e-6, 10**6, 1.26e-10)
    assert no_looser(upper, their_pld(1.0, 1e-6, 10**6, 1.26e-10))
    # the grid q / 4 with the same tail, on a fixed grid of the caller's: a certified bracket that must overlap
    fixed = SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=1e-6, rounds=10**6, value_discretization_interval=2.5e-7, tail=1e-19
    ).epsilon(1.26e-10, bound="both")
    assert lower <= fixed[1] and fixed[0] <= upper


def test_fedavg_million_clients_at_n_to_the_minus_1_1_meets_dp_accounting_live():
    delta = 1e6**-1.1
    run = DPFedAvg(total_clients=10**6, clients_per_round=10, rounds=10**6, noise_multiplier=1.0)
    lower, upper = quiet_bracket(run, delta)
    assert lower > 0.01 and readable(lower, upper)
    assert no_looser(upper, their_pld(1.0, 1e-5, 10**6, delta))
    assert upper <= their_rdp(1.0, 1e-5, 10**6, delta)


@settings(max_examples=3, deadline=None)
@given(
    sigma=st.floats(1.0, 5.0),
    log_q=st.floats(-3.0, -1.0),
    rounds=st.integers(10, 300),
    log_delta=st.floats(-10.0, -3.0),
)
def test_default_never_looser_than_dp_accounting_live(sigma, log_q, rounds, log_delta):
    """Random settings of the sub-box where dp_accounting answers within a second: the default upper side at most
    max(1e-3, 0.025 %) above its PLD epsilon (where that is below our certified lower side, dp_accounting is the one
    wrong: its fixed grid's estimate is not a bound) and never above the RDP conversion."""
    q, delta = 10.0**log_q, 10.0**log_delta
    lower, upper = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(delta, bound="both")
    theirs = their_pld(sigma, q, rounds, delta)
    assert lower <= upper
    assert theirs < lower or no_looser(upper, theirs)
    assert upper <= their_rdp(sigma, q, rounds, delta) * (1 + 1e-6)


def test_fedavg_local_steps_are_refused_with_the_reason():
    with pytest.raises(TypeError, match="does not depend on the local steps") as refused:
        DPFedAvg(total_clients=1000, clients_per_round=10, rounds=10, noise_multiplier=1.0, local_steps=5)
    assert "did you mean" not in str(refused.value)
