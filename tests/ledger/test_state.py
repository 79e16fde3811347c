"""A restart in the middle of a run loses nothing and counts nothing twice: the ledger saved to JSON after
some rounds and restored continues to the same state, bit for bit, as the ledger that never stopped."""

from __future__ import annotations

import json

import pytest

from hockeystick.ledger import BudgetExceeded, PrivacyLedger, Round

SCHEDULE = [
    Round.subsampled_gaussian(1.0 + 0.01 * (t % 7), 0.01 + 0.001 * (t % 3)) for t in range(40)
] + [Round.gaussian(5.0)] * 5


def build() -> PrivacyLedger:
    return PrivacyLedger(adaptive=True, epsilon=3.0, delta=1e-6)


def test_a_restart_in_the_middle_loses_nothing_and_counts_nothing_twice():
    straight = build()
    for one in SCHEDULE:
        straight.record(one)

    first = build()
    for one in SCHEDULE[:23]:
        first.record(one)
    saved = first.to_json()
    restored = PrivacyLedger.from_json(saved)
    for one in SCHEDULE[23:]:
        restored.record(one)
    assert restored.state_dict() == straight.state_dict()
    assert restored.odometer(1e-6) == straight.odometer(1e-6)

    # loading replaces: twice is once, and a checkpoint of an earlier round rolls the ledger back to it
    again = build()
    again.load_state_dict(json.loads(saved))
    again.load_state_dict(json.loads(saved))
    assert again.rounds == 23 and again.state_dict() == json.loads(saved)
    straight.load_state_dict(json.loads(saved))
    assert straight.rounds == 23


def test_a_state_is_refused_by_a_ledger_of_another_configuration_or_when_altered():
    ledger = build()
    ledger.record(Round.gaussian(5.0), rounds=3)
    state = ledger.state_dict()
    with pytest.raises(ValueError, match="another configuration"):
        PrivacyLedger(adaptive=False, epsilon=3.0, delta=1e-6).load_state_dict(state)
    with pytest.raises(ValueError, match="state_dict"):
        build().load_state_dict({"rounds": []})
    broken = dict(state, rdp_sum=state["rdp_sum"][:-1])
    with pytest.raises(ValueError, match="one number per order"):
        PrivacyLedger.from_state_dict(broken)
    with pytest.raises(ValueError, match="round"):
        PrivacyLedger.from_state_dict(dict(state, rounds=[[{"mechanism": "gaussian"}, 1]]))


def test_a_restored_filter_refuses_what_the_running_one_refused():
    ledger = PrivacyLedger(adaptive=True, epsilon=1.0, delta=1e-5, filter="gdp")
    with pytest.raises(BudgetExceeded):
        while True:
            ledger.record(Round.gaussian(10.0))
    restored = PrivacyLedger.from_json(ledger.to_json())
    assert restored.rounds == ledger.rounds and restored.should_stop(Round.gaussian(10.0))
