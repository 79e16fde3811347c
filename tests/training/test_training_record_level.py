"""Record-level privacy inside FL (``RecordLevelFedAvg``): the round as Poisson sampling of the client's composed
local steps, against dp_accounting's PLD, DP-FedAvg at one local step, the generic sampling map against the
closed form of full-batch steps, and FL4Health's instance-level rule beside it (below it: no upper bound)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hockeystick.pld import SubsampledGaussianPLD
from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import PlanProfile, PoissonGeneric
from hockeystick.pld.refine.unmet import AccuracyNotMetWarning
from hockeystick.training import DPFedAvg, RecordLevelFedAvg


def _dp_accounting_epsilon(sigma: float, q: float, steps: int, delta: float) -> float:
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3)
    accountant.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps)
    return float(accountant.get_epsilon(delta))


def test_the_issue_run_and_fl4health_rule_against_dp_accounting() -> None:
    run = RecordLevelFedAvg(
        noise_multiplier=1.0, client_sample_rate=0.01, local_steps=10, rounds=100
    )
    lower, upper = run.epsilon(1e-5, bound="both")
    # a round with 10 full-batch local steps is the Poisson-sampled Gaussian of multiplier 1 / sqrt(10)
    theirs = _dp_accounting_epsilon(1.0 / math.sqrt(10.0), 0.01, 100, 1e-5)
    assert (
        upper <= theirs < upper + 5e-3 and round(upper, 1) == 23.3
    )  # theirs: pessimistic, on a coarser grid
    # the instance-level rule: 1000 independent steps at rate 0.01, far below the run's epsilon
    rule = run.instance_level_rule_epsilon(1e-5)
    assert (
        rule <= _dp_accounting_epsilon(1.0, 0.01, 1000, 1e-5) < rule + 5e-3
        and round(rule, 2) == 1.83
    )
    assert rule < lower


def test_one_local_step_is_dp_fedavg_exactly() -> None:
    run = RecordLevelFedAvg(noise_multiplier=0.8, client_sample_rate=0.05, local_steps=1, rounds=50)
    assert run.epsilon(1e-6, bound="both") == DPFedAvg(
        sample_rate=0.05, rounds=50, noise_multiplier=0.8
    ).epsilon(1e-6, bound="both")


def test_full_batch_rounds_read_only_the_side_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Full-batch local steps: each side is read from its own accountant (the noise rounded down for
    the upper side, up for the lower), so a side asked alone is read alone, and each side asked alone
    is the same number as in the bracket."""
    asked: list[str] = []
    for method in ("delta", "epsilon"):
        real = getattr(SubsampledGaussianPLD, method)

        def recorded(self, x, *, bound="upper", _real=real):  # type: ignore[no-untyped-def]
            asked.append(bound)
            return _real(self, x, bound=bound)

        monkeypatch.setattr(SubsampledGaussianPLD, method, recorded)
    run = RecordLevelFedAvg(
        noise_multiplier=2.0,
        client_sample_rate=0.05,
        local_steps=4,
        rounds=10,
        value_discretization_interval=1e-2,
    )
    for method, x in (("delta", 0.5), ("epsilon", 1e-6)):
        both = getattr(run, method)(x, bound="both")
        asked.clear()
        sides = tuple(getattr(run, method)(x, bound=side) for side in ("lower", "upper"))
        assert asked == ["lower", "upper"]
        assert [v.hex() for v in sides] == [v.hex() for v in both]


def test_full_batch_closed_form_agrees_with_the_generic_sampling_map() -> None:
    # tau Gaussians folded, then Poisson-sampled through the inner's certified curves: a separate code path
    inner = CompositionPlan()
    inner.add_gaussian(1.0 / 1.5, 4)
    generic = PlanProfile(
        CompositionPlan({PoissonGeneric(0.05, inner.key()).spec(): 20}), 1e-3, None
    )
    g_lower, g_upper = generic.epsilon(1e-5)
    run = RecordLevelFedAvg(noise_multiplier=1.5, client_sample_rate=0.05, local_steps=4, rounds=20)
    lower, upper = run.epsilon(1e-5, bound="both")
    assert lower <= g_upper and g_lower <= upper and upper <= g_upper


def test_sampled_local_batches_bracket_and_directions() -> None:
    run = RecordLevelFedAvg(
        noise_multiplier=1.0,
        client_sample_rate=0.01,
        local_steps=[1, 10],
        rounds=100,
        local_sample_rate=0.1,
    )
    lower, upper = run.epsilon(1e-5, bound="both")
    rule = run.instance_level_rule_epsilon(1e-5)
    # one local step: the rule's two nested Poisson samplings are one at rate q_c q_l, exact, inside the bracket
    assert lower[0] <= rule[0] <= upper[0] and upper[0] - lower[0] < 1e-3
    # ten local steps: the record is in the client's ten steps jointly, above the rule's independent ones
    assert rule[1] < lower[1] <= upper[1] and upper[1] - lower[1] < 1e-3
    # full-batch local steps dominate sampled ones
    full = RecordLevelFedAvg(
        noise_multiplier=1.0, client_sample_rate=0.01, local_steps=10, rounds=100
    )
    assert upper[1] < full.epsilon(1e-5, bound="lower")


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ({"client_sample_rate": 0.0}, "client_sample_rate"),
        ({"local_steps": 2.5}, "local_steps"),
        ({"local_sample_rate": 1.5}, "local_sample_rate"),
        ({"rounds": 0}, "rounds"),
        ({"noise_multiplier": -1.0}, "noise_multiplier"),
        ({"value_discretization_interval": np.array([0.5, 2.0])}, "value_discretization_interval"),
        ({"value_discretization_interval": 0.0}, "value_discretization_interval"),
        ({"accuracy": -1.0}, "accuracy"),
        (
            {"accuracy": 1e-3, "value_discretization_interval": 1e-2},
            "value_discretization_interval or accuracy",
        ),
    ],
)
def test_refusals_name_the_argument(words: dict[str, float], message: str) -> None:
    base = {"noise_multiplier": 1.0, "client_sample_rate": 0.01, "local_steps": 2, "rounds": 10}
    with pytest.raises(ValueError, match=message):
        RecordLevelFedAvg(**{**base, **words})


@pytest.mark.parametrize("local_sample_rate", [1.0, 0.5])
@pytest.mark.parametrize("noise_multiplier", [5e-324, 1e308])
def test_a_noise_no_grid_holds_is_refused_naming_the_noise_multiplier(
    noise_multiplier, local_sample_rate
) -> None:
    run = RecordLevelFedAvg(
        noise_multiplier=noise_multiplier,
        client_sample_rate=0.01,
        local_steps=2,
        rounds=3,
        local_sample_rate=local_sample_rate,
        value_discretization_interval=1e-2,
    )
    with pytest.raises(ValueError, match="^noise_multiplier"):
        run.delta(1.0)


def test_accuracy_refines_both_paths_to_the_width_asked() -> None:
    full = RecordLevelFedAvg(
        noise_multiplier=1.5, client_sample_rate=0.05, local_steps=4, rounds=20, accuracy=1e-3
    )
    lower, upper = full.epsilon(1e-5, bound="both")
    # full-batch rounds: the Poisson-sampled Gaussian of z / sqrt(tau), refined by its own accountant
    theirs = SubsampledGaussianPLD(
        sigma=0.75, sampling_rate=0.05, rounds=20, accuracy=1e-3
    ).epsilon(1e-5, bound="both")
    assert upper - lower <= 1e-3 and lower <= theirs[1] and theirs[0] <= upper
    sampled = RecordLevelFedAvg(
        noise_multiplier=1.5,
        client_sample_rate=0.05,
        local_steps=4,
        rounds=20,
        local_sample_rate=0.5,
        accuracy=1e-2,
    )
    s_lower, s_upper = sampled.epsilon(1e-5, bound="both")
    assert (
        s_upper - s_lower <= 1e-2 and s_upper < lower
    )  # sampled local batches: below full-batch ones


def test_a_bracket_past_the_round_off_floor_warns_naming_accuracy_and_stays_certified() -> None:
    """At a subnormal delta the default grid's bracket stays wide (its lower side sees no mass below the round-off
    charges, its upper side is the RDP conversion's): the warning names accuracy=, which the class takes."""
    run = RecordLevelFedAvg(noise_multiplier=2.0, client_sample_rate=0.01, local_steps=1, rounds=1)
    with pytest.warns(AccuracyNotMetWarning, match="accuracy="):
        lower, upper = run.epsilon(5e-324, bound="both")
    # epsilon(delta) does not increase with delta: the truth at 5e-324 is at least the certified lower side at 1e-300
    at_larger_delta = run.epsilon(1e-300, bound="lower")
    assert lower <= upper and upper >= at_larger_delta > 10.0
