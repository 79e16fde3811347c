"""Record-level privacy inside FL (``RecordLevelFedAvg``): the round as Poisson sampling of the client's composed
local steps, against dp_accounting's PLD, DP-FedAvg at one local step, the generic sampling map against the
closed form of full-batch steps, and FL4Health's instance-level rule beside it (below it: no upper bound)."""

from __future__ import annotations

import math

import pytest

from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import PlanProfile, PoissonGeneric
from hockeystick.training import DPFedAvg, RecordLevelFedAvg


def _dp_accounting_epsilon(sigma: float, q: float, steps: int, delta: float) -> float:
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3)
    accountant.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps)
    return float(accountant.get_epsilon(delta))


def test_the_issue_run_and_fl4health_rule_against_dp_accounting() -> None:
    run = RecordLevelFedAvg(noise_multiplier=1.0, client_sample_rate=0.01, local_steps=10, rounds=100)
    lower, upper = run.epsilon(1e-5, bound="both")
    # a round with 10 full-batch local steps is the Poisson-sampled Gaussian of multiplier 1 / sqrt(10)
    theirs = _dp_accounting_epsilon(1.0 / math.sqrt(10.0), 0.01, 100, 1e-5)
    assert upper <= theirs < upper + 5e-3 and round(upper, 1) == 23.3  # theirs: pessimistic, on a coarser grid
    # the instance-level rule: 1000 independent steps at rate 0.01, far below the run's epsilon
    rule = run.instance_level_rule_epsilon(1e-5)
    assert rule <= _dp_accounting_epsilon(1.0, 0.01, 1000, 1e-5) < rule + 5e-3 and round(rule, 2) == 1.83
    assert rule < lower


def test_one_local_step_is_dp_fedavg_exactly() -> None:
    run = RecordLevelFedAvg(noise_multiplier=0.8, client_sample_rate=0.05, local_steps=1, rounds=50)
    assert run.epsilon(1e-6, bound="both") == DPFedAvg(sample_rate=0.05, rounds=50, noise_multiplier=0.8).epsilon(
        1e-6, bound="both"
    )


def test_full_batch_closed_form_agrees_with_the_generic_sampling_map() -> None:
    # tau Gaussians folded, then Poisson-sampled through the inner's certified curves: a separate code path
    inner = CompositionPlan()
    inner.add_gaussian(1.0 / 1.5, 4)
    generic = PlanProfile(CompositionPlan({PoissonGeneric(0.05, inner.key()).spec(): 20}), 1e-3, None)
    g_lower, g_upper = generic.epsilon(1e-5)
    run = RecordLevelFedAvg(noise_multiplier=1.5, client_sample_rate=0.05, local_steps=4, rounds=20)
    lower, upper = run.epsilon(1e-5, bound="both")
    assert lower <= g_upper and g_lower <= upper and upper <= g_upper


def test_sampled_local_batches_bracket_and_directions() -> None:
    run = RecordLevelFedAvg(
        noise_multiplier=1.0, client_sample_rate=0.01, local_steps=[1, 10], rounds=100, local_sample_rate=0.1
    )
    lower, upper = run.epsilon(1e-5, bound="both")
    rule = run.instance_level_rule_epsilon(1e-5)
    # one local step: the rule's two nested Poisson samplings are one at rate q_c q_l, exact, inside the bracket
    assert lower[0] <= rule[0] <= upper[0] and upper[0] - lower[0] < 1e-3
    # ten local steps: the record is in the client's ten steps jointly, above the rule's independent ones
    assert rule[1] < lower[1] <= upper[1] and upper[1] - lower[1] < 1e-3
    # full-batch local steps dominate sampled ones
    full = RecordLevelFedAvg(noise_multiplier=1.0, client_sample_rate=0.01, local_steps=10, rounds=100)
    assert upper[1] < full.epsilon(1e-5, bound="lower")


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ({"client_sample_rate": 0.0}, "client_sample_rate"),
        ({"local_steps": 2.5}, "local_steps"),
        ({"local_sample_rate": 1.5}, "local_sample_rate"),
        ({"rounds": 0}, "rounds"),
        ({"noise_multiplier": -1.0}, "noise_multiplier"),
    ],
)
def test_refusals_name_the_argument(words: dict[str, float], message: str) -> None:
    base = {"noise_multiplier": 1.0, "client_sample_rate": 0.01, "local_steps": 2, "rounds": 10}
    with pytest.raises(ValueError, match=message):
        RecordLevelFedAvg(**{**base, **words})
