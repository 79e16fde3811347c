"""The default grid, tail and accuracy come from the question (``pld.refine.question``): at small delta, small
sampling rates and long runs the default bracket is readable (at most max(1e-2, 1e-2 eps) wide), its upper side
no looser than the peers' defaults (dp_accounting's PLD, the RDP conversion), checked live against them."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick import _core
from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.accountants.subsampled_gaussian import AccuracyNotMetWarning
from hockeystick.pld.mechanisms.constructors import MAX_CELLS
from hockeystick.pld.refine import question
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
    return (
        pld_privacy_accountant.PLDAccountant().compose(_event(sigma, q, rounds)).get_epsilon(delta)
    )


def their_rdp(sigma: float, q: float, rounds: int, delta: float) -> float:
    """dp_accounting's RDP conversion at its default orders."""
    return (
        rdp_privacy_accountant.RdpAccountant().compose(_event(sigma, q, rounds)).get_epsilon(delta)
    )


def readable(lower: float, upper: float) -> bool:
    return upper - lower <= max(1e-2, 1e-2 * upper)


def no_looser(lower: float, upper: float, peer: float) -> bool:
    """The default's upper side at most a peer's finite epsilon to seven significant digits
    (``question.EXACT_RELATIVE``), unless the peer's estimate (uncertified) is below our certified lower side, so
    below the truth."""
    return (
        not math.isfinite(peer) or peer < lower or upper <= peer * (1.0 + question.EXACT_RELATIVE)
    )


def finer_lower(sigma: float, q: float, rounds: int, delta: float) -> float:
    """A certified lower side read under the tilt on a grid a quarter of dp_accounting's (the core's tilted descent
    from that grid, an accuracy every finite bracket meets stopping it there): where dp_accounting's estimate is below it,
    that estimate is below the true epsilon, and no certified upper side can be at most it."""
    (lower,), _ = _core.pld_refine.tilted_descent(
        sigma=sigma,
        sampling_rate=q,
        rounds=rounds,
        delta=np.array([delta]),
        lower=np.zeros(1),
        upper=np.full(1, math.inf),
        start=np.array([2.5e-5]),
        accuracy=1e6,  # met by any finite bracket here: the first grid's read alone
        relative_accuracy=0.0,
        max_cells=MAX_CELLS,
    )
    return float(lower)


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
    accountant = HockeystickPLDAccountant().compose(_event(1.1, 256 / 60_000, 14_100))
    assert accountant.get_epsilon_bracket(1e-10) == DPSGD(**README_RUN).epsilon(1e-10, bound="both")
    # the 1e-4 grid on request: that grid's bracket intersected with the run's reads (pld.question), so no looser
    # than the default, and overlapping it (both certified)
    fixed = HockeystickPLDAccountant(value_discretization_interval=1e-4).compose(
        _event(1.1, 256 / 60_000, 14_100)
    )
    fixed_lower, fixed_upper = fixed.get_epsilon_bracket(1e-10)
    lower, upper = accountant.get_epsilon_bracket(1e-10)
    assert fixed_upper <= upper and fixed_lower <= upper and lower <= fixed_upper


def test_fedavg_billion_clients_at_gboard_delta_is_finite_readable_and_positive():
    run = DPFedAvg(total_clients=10**9, clients_per_round=1000, rounds=10**6, noise_multiplier=1.0)
    lower, upper = quiet_bracket(run, 1.26e-10)
    assert 0 < lower <= upper and readable(lower, upper)
    assert upper <= their_rdp(1.0, 1e-6, 10**6, 1.26e-10)
    assert no_looser(lower, upper, their_pld(1.0, 1e-6, 10**6, 1.26e-10))
    # the grid q / 4 with the same tail, on a fixed grid of the caller's: a certified bracket that must overlap
    fixed = SubsampledGaussianPLD(
        sigma=1.0,
        sampling_rate=1e-6,
        rounds=10**6,
        value_discretization_interval=2.5e-7,
        tail=1e-19,
    ).epsilon(1.26e-10, bound="both")
    assert lower <= fixed[1] and fixed[0] <= upper


def test_fedavg_million_clients_at_n_to_the_minus_1_1_meets_dp_accounting_live():
    delta = 1e6**-1.1
    run = DPFedAvg(total_clients=10**6, clients_per_round=10, rounds=10**6, noise_multiplier=1.0)
    lower, upper = quiet_bracket(run, delta)
    assert lower > 0.01 and readable(lower, upper)
    assert no_looser(lower, upper, their_pld(1.0, 1e-5, 10**6, delta))
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
    its PLD epsilon (``no_looser``), or that estimate below the true epsilon (``finer_lower``), or, a gap left, that
    estimate inside our certified bracket and our upper side within 2e-6 (relative) of it: after few rounds of a
    small rate at delta near 1e-10 (sigma 1.27, q 2.6e-3, 20 rounds, delta 3.5e-10: 0.2104316 against 0.2104313)
    the split read's upper side still falls with the grid (0.2104314 at h 1.25e-5), and no certified lower side
    here reaches their estimate; never above the RDP conversion."""
    q, delta = 10.0**log_q, 10.0**log_delta
    lower, upper = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(
        delta, bound="both"
    )
    theirs = their_pld(sigma, q, rounds, delta)
    assert lower <= upper
    assert (
        no_looser(lower, upper, theirs)
        or theirs < finer_lower(sigma, q, rounds, delta)
        or lower <= theirs <= upper <= theirs * (1.0 + 2e-6)
    )
    assert upper <= their_rdp(sigma, q, rounds, delta) * (1 + 1e-6)


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "delta"),
    [(1.0, 1e-3, 10, 1e-8), (1.0, 1e-3, 10, 1e-9), (0.8, 1e-3, 5, 1e-9), (1.0, 1e-2, 10, 1e-9)],
)
def test_few_rounds_of_a_small_rate_at_a_small_delta_no_looser_than_dp_accounting(
    sigma, q, rounds, delta
):
    """Few rounds, a small sampling rate, a small delta: the tilt's Chernoff bound is far above delta, so its read
    keeps a charge of ~1e-3 of delta and the upper side was up to 4e-5 (relative) above dp_accounting's estimate;
    the split read (``tilted_question.binomial_split``: a sum over how many rounds pass lower / T, each term's charges
    relative to its own mass) takes it to at most the estimate, and the bracket within 1e-5 relative."""
    lower, upper = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(
        delta, bound="both"
    )
    assert no_looser(lower, upper, their_pld(sigma, q, rounds, delta))
    assert upper - lower <= 1e-5 * upper


@pytest.mark.parametrize(
    ("sigma", "q", "rounds", "eps"),
    [(1.0, 1e-3, 10, 0.19), (1.0, 1e-3, 10, 0.124), (0.8, 1e-3, 5, 0.6)],
)
def test_few_rounds_of_a_small_rate_delta_no_looser_than_dp_accounting(sigma, q, rounds, eps):
    """The same runs asked delta at the epsilon where it is about 1e-9: the default upper delta at most
    dp_accounting's (to seven digits) through the same split read, the bracket within 1e-4 relative."""
    lower, upper = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).delta(
        eps, bound="both"
    )
    theirs = pld_privacy_accountant.PLDAccountant().compose(_event(sigma, q, rounds)).get_delta(eps)
    assert upper <= theirs * (1.0 + question.EXACT_RELATIVE)
    assert 0.0 < upper - lower <= 1e-4 * upper


@pytest.mark.parametrize("delta", [1e-5, 1e-7, 1e-10])
@pytest.mark.parametrize(
    ("sigma", "q", "rounds"),
    [(1.1, 256 / 60_000, 14_100), (1.0, 0.5, 5), (0.8, 1e-3, 10_000), (1.5, 0.05, 100)],
    ids=["readme", "q-half", "dp-fedavg", "100-rounds"],
)
def test_default_upper_side_at_most_dp_accounting_default(sigma, q, rounds, delta):
    """The runs of the README and the docs: the upper side no looser than dp_accounting's default PLD (on the same
    grid a certified upper side carries charges above its uncharged estimate; the default reads half that grid)."""
    lower, upper = SubsampledGaussianPLD(sigma=sigma, sampling_rate=q, rounds=rounds).epsilon(
        delta, bound="both"
    )
    assert no_looser(lower, upper, their_pld(sigma, q, rounds, delta))


@pytest.mark.parametrize("delta", [1e-5, 1e-10])
def test_two_stage_default_at_most_dp_accounting_default(delta):
    """Two noise levels (sigma 1.1 then 0.9, 7050 steps each at q = 256/60 000) through the dp_accounting adapter:
    its default bracket's upper side no looser than dp_accounting's own default PLD."""
    stages = [(1.1, 256 / 60_000, 7050), (0.9, 256 / 60_000, 7050)]
    event = dp_accounting.ComposedDpEvent([_event(*stage) for stage in stages])
    lower, upper = HockeystickPLDAccountant().compose(event).get_epsilon_bracket(delta)
    theirs = pld_privacy_accountant.PLDAccountant().compose(event).get_epsilon(delta)
    assert no_looser(lower, upper, theirs)


@pytest.mark.parametrize(
    ("stages", "delta"),
    [
        ([(1.0, 1e-3, 5), (1.2, 1e-3, 5)], 1e-9),
        ([(1.0, 1e-3, 5), (1.2, 1e-3, 5)], 1e-8),
        ([(0.9, 1e-3, 3), (1.0, 2e-3, 4)], 1e-9),
    ],
)
def test_few_rounds_of_two_stages_no_looser_than_dp_accounting(stages, delta):
    """Few rounds of two small-rate stages at a small delta through the dp_accounting adapter (the plan path): the
    split read of the tilted factors (products over the stages of how many rounds pass lower / T) takes the upper
    side from up to 8.5e-5 (relative) above dp_accounting's estimate to at most it."""
    event = dp_accounting.ComposedDpEvent([_event(*stage) for stage in stages])
    lower, upper = HockeystickPLDAccountant().compose(event).get_epsilon_bracket(delta)
    assert no_looser(
        lower, upper, pld_privacy_accountant.PLDAccountant().compose(event).get_epsilon(delta)
    )


def test_fedavg_local_steps_are_refused_with_the_reason():
    with pytest.raises(TypeError, match="does not depend on the local steps") as refused:
        DPFedAvg(
            total_clients=1000, clients_per_round=10, rounds=10, noise_multiplier=1.0, local_steps=5
        )
    assert "did you mean" not in str(refused.value)


@pytest.mark.parametrize(
    ("stages", "eps"),
    [
        ([(1.1, 256 / 60_000, 14_100)], 2.0),
        ([(0.8, 1e-3, 10_000)], 2.2),
        ([(1.1, 256 / 60_000, 7050), (0.9, 256 / 60_000, 7050)], 3.0),
        ([(1.0, 1e-3, 5), (1.2, 1e-3, 5)], 0.168),
    ],
)
def test_adapter_default_delta_no_looser_than_dp_accounting(stages, eps):
    """The dp_accounting adapter's get_delta on its default: one run as ``SubsampledGaussianPLD``'s default answers
    it, several stages with the tilted factors' reads on half the peers' grid (on the peers' own grid a certified
    upper delta is their estimate plus the round-off charges: 6.1e-10 against 9.6e-11 at sigma 0.8, q 1e-3, 10^4
    rounds, eps 2.2), and the split read at T q <= 0.1: at most dp_accounting's own to seven digits."""
    event = dp_accounting.ComposedDpEvent([_event(*stage) for stage in stages])
    lower, upper = HockeystickPLDAccountant().compose(event).get_delta_bracket(eps)
    theirs = pld_privacy_accountant.PLDAccountant().compose(event).get_delta(eps)
    assert 0.0 <= lower <= upper <= theirs * (1.0 + question.EXACT_RELATIVE)
