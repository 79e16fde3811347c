"""hockeystick.interop.flower against stand-ins of Flower's types (the suite has no flwr).

The stand-ins carry the fields of flwr 1.42's ``PrivacyConfig`` and ``GaussianPrivacyEvent`` and its
``str`` enums; the members of its ``PrivacyAccountant`` protocol are listed from
flwr/supercore/privacy_accounting/__init__.py.  The references are independent: the exact epsilon of the
composed Gaussian (50-digit theta), dp_accounting's PLD (both estimates) and its RDP accountant, which is
Flower's only backend.  tests/interop/test_interop_flower_real.py runs the adapter inside real Flower.
"""

from __future__ import annotations

import inspect
import json
import math
from dataclasses import dataclass
from enum import Enum

import dp_accounting
import pytest

from hockeystick.interop.flower import HockeystickPrivacyAccountant
from hockeystick.ledger import BudgetExceeded, PrivacyLedger

from ..dp_accounting_pld import their_epsilon
from ..reference import theta


class SamplingMethod(str, Enum):
    POISSON = "poisson"
    WITHOUT_REPLACEMENT = "without-replacement"
    NO_AMPLIFICATION = "no-amplification"


class NeighboringRelation(str, Enum):
    ADD_OR_REMOVE_ONE = "add-or-remove-one"
    REPLACE_ONE = "replace-one"


@dataclass(frozen=True)
class Config:
    target_delta: float
    population_size: int
    neighboring_relation: NeighboringRelation
    sampling_method: SamplingMethod
    max_epsilon: float | None = None


@dataclass(frozen=True)
class Event:
    noise_multiplier: float
    sample_size: int
    population_size: int


# PrivacyAccountant (flwr 1.42): properties config, num_releases; these methods with these parameters.
PROTOCOL_METHODS = {
    "compose": ["self", "event", "count"],
    "get_epsilon": ["self", "delta"],
    "get_delta": ["self", "epsilon"],
    "get_privacy_spent": ["self", "delta"],
    "would_exceed": ["self", "event", "max_epsilon", "count"],
    "state_dict": ["self"],
    "load_state_dict": ["self", "state"],
}
PROTOCOL_DEFAULTS = {
    ("compose", "count"): 1,
    ("get_privacy_spent", "delta"): None,
    ("would_exceed", "max_epsilon"): None,
    ("would_exceed", "count"): 1,
}

NONE = SamplingMethod.NO_AMPLIFICATION
ADD_REMOVE = NeighboringRelation.ADD_OR_REMOVE_ONE


def config(sampling=NONE, relation=ADD_REMOVE, max_epsilon=None, population=1000):
    return Config(1e-5, population, relation, sampling, max_epsilon)


def rdp_epsilon(rounds, delta):
    """Flower's RdpAccountant, as it composes: dp_accounting's RdpAccountant, add-or-remove."""
    accountant = dp_accounting.rdp.RdpAccountant()
    for event, count in rounds:
        accountant.compose(event, count)
    return accountant.get_epsilon(delta)


def test_every_protocol_member_with_its_signature():
    for name, params in PROTOCOL_METHODS.items():
        signature = inspect.signature(getattr(HockeystickPrivacyAccountant, name)).parameters
        assert list(signature) == params, name
        for param in params:
            default = PROTOCOL_DEFAULTS.get((name, param), inspect.Parameter.empty)
            assert signature[param].default == default, (name, param)
    for name in ("config", "num_releases"):
        assert isinstance(inspect.getattr_static(HockeystickPrivacyAccountant, name), property)


def test_unsampled_bracket_holds_the_exact_gaussian_and_sits_below_flowers_rdp():
    """50 releases at z = 4 are sqrt(50)/4-GDP exactly: the bracket holds it, and its upper side is below the
    RDP epsilon Flower's backend reports for the same run."""
    accountant = HockeystickPrivacyAccountant(config(), adaptive=False)
    accountant.compose(Event(4.0, 10, 1000), 50)
    g = accountant.guarantee()
    mu = math.sqrt(50) / 4.0
    assert (
        theta(mu, g.epsilon) <= 1e-5 <= theta(mu, g.epsilon_lower)
    )  # lower <= exact epsilon <= upper
    assert accountant.get_epsilon(1e-5) == g.epsilon
    assert g.epsilon < rdp_epsilon([(dp_accounting.GaussianDpEvent(4.0), 50)], 1e-5)
    assert float(theta(mu, 2.0)) <= accountant.get_delta(2.0) <= float(theta(mu, 2.0)) * 1.01


def test_poisson_bracket_against_dp_accounting_pld_and_below_flowers_rdp():
    """Poisson sampling of 10 clients in 1000, z = 1, 300 rounds: dp_accounting's optimistic PLD (a lower
    bound) is below our upper side, its pessimistic one (an upper bound) above our lower side."""
    accountant = HockeystickPrivacyAccountant(config(SamplingMethod.POISSON), adaptive=False)
    accountant.compose(Event(1.0, 10, 1000), 300)
    assert accountant.round_of(Event(1.0, 10, 1000)).sampling_rate == 0.01
    g = accountant.guarantee(1e-6)
    event = dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0))
    optimistic, pessimistic = their_epsilon(
        dp_accounting.SelfComposedDpEvent(event, 300), 1e-6, h=1e-3
    )
    assert optimistic <= g.epsilon and g.epsilon_lower <= pessimistic
    assert g.epsilon < rdp_epsilon([(event, 300)], 1e-6)


@pytest.mark.parametrize(
    ("sampling", "relation", "named"),
    [
        (
            SamplingMethod.WITHOUT_REPLACEMENT,
            NeighboringRelation.REPLACE_ONE,
            "without-replacement",
        ),
        (SamplingMethod.POISSON, NeighboringRelation.REPLACE_ONE, "neighboring_relation"),
        ("uniform", ADD_REMOVE, "sampling_method"),
    ],
)
def test_models_the_ledger_cannot_certify_are_refused_with_the_fix(sampling, relation, named):
    with pytest.raises(ValueError, match=named) as refused:
        HockeystickPrivacyAccountant(config(sampling, relation), adaptive=False)
    assert any(
        fix in str(refused.value) for fix in ("NO_AMPLIFICATION", "ADD_OR_REMOVE_ONE", "one of")
    )


def test_bad_events_and_arguments_are_refused_by_name():
    accountant = HockeystickPrivacyAccountant(config(), adaptive=False)
    for event, named in [
        (Event(0.0, 10, 1000), "noise_multiplier"),
        (Event(1.0, 10, 999), "population_size"),
        (Event(1.0, 1001, 1000), "sample_size"),
        (Event(float("nan"), 10, 1000), "noise_multiplier"),
    ]:
        with pytest.raises(ValueError, match=named):
            accountant.compose(event)
    for count in (0, 10.9, True, "3", 2**60):  # whole numbers in [1, 2^53] and nothing else
        with pytest.raises(ValueError, match="count"):
            accountant.compose(Event(1.0, 10, 1000), count)
        with pytest.raises(ValueError, match="count"):
            accountant.would_exceed(Event(1.0, 10, 1000), 1.0, count)
    with pytest.raises(ValueError, match="max_epsilon"):
        accountant.would_exceed(Event(1.0, 10, 1000))  # no limit anywhere
    with pytest.raises(ValueError, match="adaptive"):
        HockeystickPrivacyAccountant(config(max_epsilon=1.0), adaptive="yes")
    assert accountant.num_releases == 0 and accountant.get_delta(1.0) == 0.0


def test_would_exceed_admits_exactly_the_rounds_whose_certified_epsilon_fits():
    """Halting at the first True: the rounds run keep the exact Gaussian epsilon under the limit, run more
    rounds than Flower's RDP backend admits, and the next round's exact epsilon is within a grid step of it."""
    accountant = HockeystickPrivacyAccountant(config(max_epsilon=2.0), adaptive=False)
    event = Event(5.0, 10, 1000)
    while not accountant.would_exceed(event):
        accountant.compose(event)
    n = accountant.num_releases
    assert accountant.get_epsilon(1e-5) <= 2.0 < accountant.get_privacy_spent().epsilon + 0.2
    assert theta(math.sqrt(n) / 5.0, 2.0) <= 1e-5 < theta(math.sqrt(n + 1) / 5.0, 2.0 + 1e-3)
    rdp_admits = max(
        t
        for t in range(1, n + 1)
        if rdp_epsilon([(dp_accounting.GaussianDpEvent(5.0), t)], 1e-5) <= 2
    )
    assert rdp_admits < n
    assert accountant.would_exceed(event, max_epsilon=10.0, count=10**4)
    assert not accountant.would_exceed(event, max_epsilon=10.0, count=1)


def test_a_restart_in_the_middle_loses_nothing_and_counts_nothing_twice():
    schedule = [
        Event(1.0, 10, 1000),
        Event(1.2, 20, 1000),
        Event(1.0, 10, 1000),
        Event(0.9, 5, 1000),
    ]
    straight = HockeystickPrivacyAccountant(config(SamplingMethod.POISSON), adaptive=False)
    for count, event in enumerate(schedule, start=1):
        straight.compose(event, count)

    first = HockeystickPrivacyAccountant(config(SamplingMethod.POISSON), adaptive=False)
    first.compose(schedule[0], 1)
    first.compose(schedule[1], 2)
    saved = json.loads(json.dumps(first.state_dict()))  # what a checkpoint file holds
    resumed = HockeystickPrivacyAccountant(config(SamplingMethod.POISSON), adaptive=False)
    resumed.load_state_dict(saved)
    resumed.load_state_dict(saved)  # loading replaces: twice is once
    resumed.compose(schedule[2], 3)
    resumed.compose(schedule[3], 4)

    assert resumed.num_releases == straight.num_releases == 10
    assert resumed.state_dict() == straight.state_dict()
    assert resumed.get_epsilon(1e-5) == straight.get_epsilon(1e-5)
    with pytest.raises(ValueError, match="PrivacyConfig"):
        HockeystickPrivacyAccountant(
            config(SamplingMethod.POISSON, max_epsilon=3.0), adaptive=False
        ).load_state_dict(saved)
    with pytest.raises(
        ValueError, match="configuration"
    ):  # the ledger's own check: adaptivity differs
        HockeystickPrivacyAccountant(config(SamplingMethod.POISSON), adaptive=True).load_state_dict(
            saved
        )
    with pytest.raises(ValueError, match="schema"):
        resumed.load_state_dict(
            {"schema_version": 1, "backend": "rdp"}
        )  # Flower's RdpAccountant's state


def test_adaptive_runs_answer_the_filter_and_the_odometer_never_a_composition():
    """sigma follows the round, clients Poisson-sampled: would_exceed is the ledger's Rényi filter of the
    budget in the PrivacyConfig, the running epsilon is the odometer, and a round the filter refuses is
    refused by compose too; the filter's budget sits above the bracket the same rounds would have if fixed."""
    budget = config(SamplingMethod.POISSON, max_epsilon=3.0)
    accountant = HockeystickPrivacyAccountant(budget, adaptive=True)
    ledger = PrivacyLedger(adaptive=True, epsilon=3.0, delta=1e-5)
    fixed = PrivacyLedger(adaptive=False)
    t = 0
    while True:
        event = Event(1.0 if t % 3 else 1.3, 50, 1000)
        one = accountant.round_of(event)
        assert accountant.would_exceed(event) == ledger.would_exceed(one)
        if accountant.would_exceed(event):
            break
        accountant.compose(event)
        ledger.record(one)
        fixed.record(one)
        t += 1
    assert t > 0 and accountant.guarantee().kind == "odometer"
    assert (
        accountant.ledger.guarantee().kind == "filter"
        and accountant.ledger.guarantee().epsilon == 3.0
    )
    assert (
        fixed.composition(1e-5).epsilon < 3.0 < accountant.get_epsilon(1e-5)
    )  # the odometer pays for its union
    with pytest.raises(BudgetExceeded):
        accountant.compose(event)
    assert accountant.num_releases == t
    with pytest.raises(ValueError, match="adaptive"):
        accountant.get_delta(1.0)
    with pytest.raises(ValueError, match="composing"):
        accountant.ledger.composition(1e-5)


def test_privacy_spent_carries_the_guarantee_kind():
    accountant = HockeystickPrivacyAccountant(config(), adaptive=False)
    accountant.compose(Event(2.0, 10, 1000), 3)
    spent = accountant.get_privacy_spent()
    assert (spent.delta, spent.num_releases, spent.optimal_order) == (1e-5, 3, None)
    assert spent.accounting_method == "hockeystick pld certified composition"
    assert spent.epsilon == accountant.get_epsilon(1e-5)
    assert accountant.get_privacy_spent(1e-3).epsilon < spent.epsilon


class StartWithShouldStop:
    """Flower 1.43's ``Strategy.start`` loop as its release notes state it: after each completed round,
    ``should_stop(server_round, result)``; True ends the run through the normal exit with the rounds so far.  Each
    round releases ``event`` once, after the DP strategies' own check (``would_exceed``, which raises
    ``PrivacyBudgetExhausted`` at the round that would pass the budget)."""

    def __init__(self, accountant: HockeystickPrivacyAccountant, event: Event):
        self.accountant, self.event = accountant, event

    def start(
        self, grid=None, initial_arrays=None, num_rounds=3, timeout=3600.0, *, should_stop=None
    ):
        result: dict[str, int] = {}
        for server_round in range(1, num_rounds + 1):
            if self.accountant.would_exceed(self.event):
                raise RuntimeError(f"PrivacyBudgetExhausted at round {server_round}")
            self.accountant.compose(self.event)
            result["rounds"] = server_round
            if should_stop is not None and should_stop(server_round, result):
                break
        return result


@pytest.mark.parametrize("adaptive", [False, True])
def test_should_stop_ends_the_run_after_the_last_round_the_budget_admits(adaptive):
    """Flower 1.43's ``should_stop`` driven by the accountant: the run returns normally after exactly the rounds the
    budget admits (11 unsampled rounds of z = 2 in eps 8 at 1e-5 on the fixed schedule, the filter's 7 adaptive),
    where without it the strategy's own check raises at the next round; one more round would pass the budget."""
    event = Event(2.0, 50, 1000)
    accountant = HockeystickPrivacyAccountant(config(max_epsilon=8.0), adaptive=adaptive)
    result = StartWithShouldStop(accountant, event).start(
        num_rounds=100, should_stop=accountant.should_stop
    )
    expected = 7 if adaptive else 11
    assert result["rounds"] == accountant.num_releases == expected
    assert accountant.would_exceed(event)
    if not adaptive:
        assert accountant.get_epsilon(1e-5) <= 8.0
        assert (
            theta(math.sqrt(expected) / 2.0, accountant.get_epsilon(1e-5)) <= 1e-5
        )  # at or above the truth
    unguarded = HockeystickPrivacyAccountant(config(max_epsilon=8.0), adaptive=adaptive)
    with pytest.raises(RuntimeError, match=f"round {expected + 1}"):
        StartWithShouldStop(unguarded, event).start(num_rounds=100)


def test_should_stop_is_false_before_any_release_and_without_a_budget():
    accountant = HockeystickPrivacyAccountant(config(max_epsilon=8.0), adaptive=False)
    assert accountant.should_stop(0, None) is False
    unbounded = HockeystickPrivacyAccountant(config(), adaptive=False)
    unbounded.compose(
        Event(0.5, 50, 1000), 1000
    )  # far past any budget: none was set, so none stops it
    assert unbounded.should_stop(1000, None) is False
    parameters = list(inspect.signature(HockeystickPrivacyAccountant.should_stop).parameters)
    assert parameters == [
        "self",
        "server_round",
        "result",
    ]  # Flower calls should_stop(server_round, result)
