"""Nested Poisson sampling given no grid (record-level FL with sampled local batches, random check-ins): the default
bracket finite at delta 1e-10 and 1e-12, lower <= upper, the add direction's loss bound, the RDP side against
dp_accounting's, the folded-Gaussian inner's lower side and the q_l -> 1 limit against the subsampled Gaussian."""

from __future__ import annotations

import functools
import math
import warnings

import mpmath
import numpy as np
import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import (
    PlanProfile,
    PoissonGeneric,
    add_loss_bound,
    bounded_add_upper,
    mechanism_of,
)
from hockeystick.pld.accountants.plan_rdp import plan_rdp_delta, plan_rdp_epsilon
from hockeystick.pld.mechanisms.constructors import PoissonGaussian
from hockeystick.pld.refine import question
from hockeystick.pld.refine.question import default_tolerance
from hockeystick.rdp import (
    DEFAULT_ORDERS,
    poisson_subsampled_rdp,
    rdp_to_epsilon,
    subsampled_gaussian_rdp,
)
from hockeystick.training import RecordLevelFedAvg
from hockeystick.training.random_checkins import RandomCheckIns

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting.pld import pld_privacy_accountant  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant  # noqa: E402

# (noise multiplier, client rate, local steps, rounds, local rate)
RECORD_LEVEL_RUNS = [(1.0, 0.01, 10, 100, 0.1), (1.0, 0.05, 5, 20, 0.2)]


def _record_level(
    z: float, q_c: float, tau: int, rounds: int, q_l: float, **words: float
) -> RecordLevelFedAvg:
    return RecordLevelFedAvg(
        noise_multiplier=z,
        client_sample_rate=q_c,
        local_steps=tau,
        rounds=rounds,
        local_sample_rate=q_l,
        **words,
    )


@functools.cache  # one instance a run: its grids, composed at the first delta, serve the second
def _default_record_level(run: tuple[float, float, int, int, float]) -> RecordLevelFedAvg:
    return _record_level(*run)


@functools.cache  # the class's default bracket of a run at delta, read once a process by the tests that compare it
def _default_bracket(
    run: tuple[float, float, int, int, float], delta: float
) -> tuple[float, float]:
    """The class's default (lower, upper) epsilon of ``run`` at ``delta``, read with warnings as errors (the
    default's answer comes without a warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lower, upper = _default_record_level(run).epsilon(delta, bound="both")
    return float(lower), float(upper)


def _nested_plan(z: float, q_c: float, tau: int, rounds: int, q_l: float) -> CompositionPlan:
    inner = CompositionPlan({PoissonGaussian(z, q_l).spec(): tau})
    return CompositionPlan({PoissonGeneric(q_c, inner.key()).spec(): rounds})


def _event(z: float, q: float, steps: int):
    return dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps
    )


def _theirs(z: float, q: float, steps: int, delta: float) -> tuple[float, float]:
    """dp_accounting's default PLD and RDP epsilons of steps Poisson-subsampled Gaussians."""
    event = _event(z, q, steps)
    pld = pld_privacy_accountant.PLDAccountant().compose(event).get_epsilon(delta)
    return float(pld), float(
        rdp_privacy_accountant.RdpAccountant().compose(event).get_epsilon(delta)
    )


def _no_looser(lower: float, upper: float, peer: float) -> bool:
    """At most a peer's epsilon to seven significant digits (``question.EXACT_RELATIVE``), unless the peer's
    estimate (dp_accounting's default PLD, uncertified) is below our certified lower side."""
    return peer < lower or upper <= peer * (1.0 + question.EXACT_RELATIVE)


def _independent_rdp_epsilon(
    z: float, q_c: float, tau: int, rounds: int, q_l: float, delta: float
) -> float:
    """The nested run's RDP conversion from the rdp module's functions, composed here by hand."""
    orders = np.asarray(DEFAULT_ORDERS)
    inner = tau * subsampled_gaussian_rdp(z, q_l, orders)
    keep = np.isfinite(inner)
    outer = rounds * poisson_subsampled_rdp(inner[keep], orders[keep], q_c)
    return float(rdp_to_epsilon(outer, orders[keep], delta))


def test_dp_accounting_does_not_express_the_nested_run() -> None:
    """Why no live comparison for q_c, q_l < 1: neither of dp_accounting's accountants takes a Poisson sample of a
    composition of Poisson samples (if a release adds it, the defaults below must be compared with it)."""
    local = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(0.2, dp_accounting.GaussianDpEvent(1.0)), 5
    )
    event = dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.05, local), 20)
    assert not pld_privacy_accountant.PLDAccountant().supports(event)
    assert not rdp_privacy_accountant.RdpAccountant().supports(event)


@pytest.mark.parametrize("delta", [1e-10, 1e-12])
@pytest.mark.parametrize("run", RECORD_LEVEL_RUNS)
def test_record_level_default_is_finite_ordered_and_at_most_the_rdp_side(run, delta: float) -> None:
    lower, upper = _default_bracket(run, delta)  # read with warnings as errors
    assert 0.0 < lower <= upper < math.inf
    assert upper <= _independent_rdp_epsilon(*run, delta) * (1.0 + 1e-9)
    # a bracket on another grid (explicit, plain PLD): neither side crosses the other's
    lo_h, up_h = _record_level(*run, value_discretization_interval=1e-3).epsilon(
        delta, bound="both"
    )
    assert lo_h <= upper and lower <= up_h


@pytest.mark.parametrize("delta", [1e-10, 1e-12])
def test_random_check_ins_default_is_finite_and_narrow_through_the_add_bound(delta: float) -> None:
    """Ten slots, p = 0.5, five passes: the add direction's grid leaves delta at +infinity, its true delta is 0 past
    five times -log(1 - p); the remove direction alone reads the bracket, within 2 % of epsilon."""
    lower, upper = RandomCheckIns(
        noise_multiplier=1.0, checkin_probability=0.5, slots=10, passes=5
    ).epsilon(delta, bound="both")
    assert 0.0 < lower <= upper <= lower * 1.02


@pytest.mark.parametrize(
    ("run", "delta"),
    [
        ("one_slot", 1e-10),
        ("one_slot", 1e-12),
        ("every_client", 1e-10),
        ("every_client", 1e-12),
    ],
)
def test_one_slot_and_every_client_runs_are_no_looser_than_dp_accounting(
    run: str, delta: float
) -> None:
    """Where dp_accounting expresses the run (one slot: 5 passes at p = 0.5; q_c = 1: 100 local steps at q_l = 0.2),
    the default is SubsampledGaussianPLD's: no looser than dp_accounting's PLD and below its RDP conversion."""
    if run == "one_slot":
        ours = RandomCheckIns(noise_multiplier=1.0, checkin_probability=0.5, slots=1, passes=5)
        pld, rdp = _theirs(1.0, 0.5, 5, delta)
    else:
        ours = _record_level(1.0, 1.0, 5, 20, 0.2)
        pld, rdp = _theirs(1.0, 0.2, 100, delta)
    lower, upper = ours.epsilon(delta, bound="both")
    assert lower <= pld and _no_looser(lower, upper, pld) and upper <= rdp


def test_plan_rdp_of_subsampled_gaussians_is_dp_accounting_rdp() -> None:
    plan = CompositionPlan({PoissonGaussian(1.1, 0.01).spec(): 300})
    ours = plan_rdp_epsilon(plan, 1e-8)
    theirs = float(
        rdp_privacy_accountant.RdpAccountant().compose(_event(1.1, 0.01, 300)).get_epsilon(1e-8)
    )
    assert theirs <= ours <= theirs * (1.0 + 1e-8)
    assert plan_rdp_delta(plan, ours) <= 1e-8 * (1.0 + 1e-6)


def test_nested_rdp_side_is_above_the_certified_lower_side() -> None:
    """The RDP conversion is an upper bound: never below the PLD's certified lower side where that is tight."""
    run = (1.0, 0.05, 5, 20, 0.2)
    lower = _record_level(*run).epsilon(1e-5, bound="lower")
    assert lower <= plan_rdp_epsilon(_nested_plan(*run), 1e-5)


def test_add_loss_bound_is_the_sum_of_the_rounds_log_ratios() -> None:
    plan = _nested_plan(1.0, 0.05, 5, 20, 0.2)
    exact = 20 * -mpmath.log(1 - mpmath.mpf(0.05))  # q = 0.05 as the double the plan holds
    bound = add_loss_bound(plan.counts)
    assert bound is not None and exact <= bound <= exact * (1 + mpmath.mpf(1e-11))
    # another mechanism beside the samples: no bound claimed
    mixed = CompositionPlan({**plan.counts, PoissonGaussian(1.0, 0.1).spec(): 1})
    assert add_loss_bound(mixed.counts) is None


def test_add_bound_leaves_the_add_direction_alone_below_it() -> None:
    """Below the bound the add direction's delta is positive (its lower PMF says so), and the bounded upper side
    stays at or above it; at and above the bound, only the remove direction is read."""
    plan = _nested_plan(1.0, 0.05, 5, 20, 0.2)
    bound = add_loss_bound(plan.counts)
    assert bound is not None
    ((spec, rounds),) = plan.counts.items()
    pld = mechanism_of(spec).grid_pld(1e-3).self_compose(rounds)
    upper, lower = pld.composed(True), pld.composed(False)
    below = bound / 10.0
    add_lower = float(lower[1].delta(np.array([below]))[0])
    assert add_lower > 0.0 and bounded_add_upper(upper, "delta", below, bound) >= add_lower
    remove_only = float(upper[0].delta(np.array([bound]))[0])
    assert bounded_add_upper(upper, "delta", bound, bound) == remove_only


def test_folded_gaussian_inner_lower_side_meets_the_subsampled_gaussian() -> None:
    """Ten full-batch local steps of z = 1 folded into one Gaussian of radius sqrt(10), Poisson-sampled at 0.01 over
    100 rounds through the generic sampling map: its lower side within the default tolerance of the truth, which
    SubsampledGaussianPLD brackets at noise 1 / sqrt(10) (the grid once stopped at the folded Gaussian's loose top
    loss and the lower side fell to the trivial one, 0.90 against 23.31)."""
    inner = CompositionPlan()
    inner.add_gaussian(1.0, 10)
    generic = PlanProfile(
        CompositionPlan({PoissonGeneric(0.01, inner.key()).spec(): 100}), 1e-4, None
    )
    g_lower, g_upper = generic.epsilon(1e-5)
    lower, upper = SubsampledGaussianPLD(
        sigma=1.0 / math.sqrt(10.0), sampling_rate=0.01, rounds=100
    ).epsilon(1e-5, bound="both")
    assert g_lower <= upper and lower <= g_upper
    assert g_lower >= lower - default_tolerance(lower)


def test_sampled_local_batches_meet_full_batch_steps_as_q_l_goes_to_1() -> None:
    """q_l = 1 - 1e-9 through the nested sampling map against q_l = 1 (the subsampled Gaussian of z / sqrt(tau)):
    the brackets overlap and the nested lower side is within the default tolerance of the full-batch one."""
    full = RecordLevelFedAvg(
        noise_multiplier=1.5, client_sample_rate=0.05, local_steps=4, rounds=20
    )
    f_lower, f_upper = full.epsilon(1e-5, bound="both")
    lower, upper = _record_level(1.5, 0.05, 4, 20, 1.0 - 1e-9).epsilon(1e-5, bound="both")
    assert lower <= f_upper and f_lower <= upper
    assert lower >= f_lower - default_tolerance(f_lower) and upper - lower <= default_tolerance(
        lower
    )


def test_dp_accounting_adapter_reads_the_nested_event_as_the_class_does() -> None:
    """The adapter composes the nested event into the same plan: its default bracket is the class's at 1e-10 and at
    1e-12 (the plan's tilted read keeps the upper side finite there: no fall back to the RDP side, no warning)."""
    from hockeystick.interop.dp_accounting import HockeystickPLDAccountant

    z, q_c, tau, rounds, q_l = RECORD_LEVEL_RUNS[1]
    local = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q_l, dp_accounting.GaussianDpEvent(z)), tau
    )
    adapter = HockeystickPLDAccountant()
    adapter.compose(
        dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(q_c, local), rounds)
    )
    assert adapter.get_epsilon_bracket(1e-10) == _default_bracket(RECORD_LEVEL_RUNS[1], 1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lower, upper = adapter.get_epsilon_bracket(1e-12)
    assert (lower, upper) == _default_bracket(RECORD_LEVEL_RUNS[1], 1e-12)
    rdp = _independent_rdp_epsilon(*RECORD_LEVEL_RUNS[1], 1e-12)
    assert 0.0 < lower <= upper <= rdp * (1.0 + 1e-8)


@pytest.mark.parametrize("delta", [1e-5, 1e-10])
def test_remove_side_of_one_local_step_is_the_product_rate_subsampled_gaussian(
    delta: float,
) -> None:
    """A Poisson(q_c) sample of one Poisson(q_l) step is one Poisson(q_c q_l) step: the remove direction's exact
    integer-order sum over the inner's RDP equals the subsampled Gaussian's RDP at rate q_c q_l (orders 2 .. 63),
    so the plan's RDP epsilon is max(that conversion, the add bound)."""
    z, q_c, q_l, rounds = 0.6, 0.1, 0.3, 5
    plan = _nested_plan(z, q_c, 1, rounds, q_l)
    orders = np.arange(2.0, 64.0)
    reference = float(
        rdp_to_epsilon(rounds * subsampled_gaussian_rdp(z, q_c * q_l, orders), orders, delta)
    )
    bound = add_loss_bound(plan.counts)
    assert bound is not None
    expected = max(reference, bound)
    assert expected * (1.0 - 1e-8) <= plan_rdp_epsilon(plan, delta) <= expected * (1.0 + 1e-8)
