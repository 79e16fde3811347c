"""A restored ledger is the ledger that was saved, or a refusal naming the field: its spent sums are recomputed
from its rounds and the state's own must agree within the stated round-off tolerance, counts are whole numbers
and nothing else, and the sums a state written call by call (not block by block) holds are read too."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from hockeystick.ledger import BudgetExceeded, PrivacyLedger, Round
from hockeystick.ledger.outward_sum import RunningSum

ROUND = Round.subsampled_gaussian(1.0, 0.01)


def halted() -> PrivacyLedger:
    """The issue's run: an adaptive ledger of budget (3, 1e-5) that halted."""
    ledger = PrivacyLedger(adaptive=True, epsilon=3.0, delta=1e-5)
    ledger.record(ROUND, 1400)
    while not ledger.should_stop(ROUND):
        ledger.record(ROUND)
    return ledger


def test_zeroed_sums_no_longer_restore_a_halted_filter_with_its_budget_whole():
    ledger = halted()
    assert ledger.rounds == 1483
    state = ledger.state_dict()
    for key, zero in (("rdp_sum", [0.0] * len(state["rdp_sum"])), ("mu2_sum", 1.0)):
        with pytest.raises(ValueError, match=f"state's {key} disagrees with its rounds"):
            PrivacyLedger.from_state_dict(dict(state, **{key: zero}))
    halved = dict(state, rdp_sum=[x / 2 for x in state["rdp_sum"]])
    with pytest.raises(ValueError, match="rdp_sum disagrees"):
        PrivacyLedger.from_state_dict(halved)
    restored = PrivacyLedger.from_state_dict(state)
    assert restored.should_stop(ROUND) and restored.state_dict() == state
    with pytest.raises(BudgetExceeded):
        restored.record(ROUND)


@pytest.mark.parametrize("count", [10.9, 10.0, "1000", True, 1e300, 2**53 + 1, 0, -3, None, [10]])
def test_a_count_is_a_whole_number_and_nothing_else(count):
    state = halted().state_dict()
    state["rounds"][0][1] = count
    with pytest.raises(ValueError, match=r"rounds\[0\] count must be a whole number"):
        PrivacyLedger.from_state_dict(state)
    with pytest.raises(ValueError, match="rounds must be a whole number"):
        PrivacyLedger(adaptive=True).record(ROUND, count)


def test_sums_within_the_round_off_tolerance_are_read_and_recomputed_beyond_it_refused():
    ledger = PrivacyLedger(adaptive=True)
    for t in range(30):
        ledger.record(Round.subsampled_gaussian(1.0 + 0.1 * (t % 3), 0.01), rounds=1 + t % 4)
    state = ledger.state_dict()
    terms = state["rdp_terms"]
    # 4 (n + m + 1) u is the stated tolerance: a relative change of (n + m) u is inside it, 8 (n + m + 1) u is not
    inside = dict(state, rdp_sum=[x * (1 + 2 * terms * 2.0**-53) for x in state["rdp_sum"]])
    assert PrivacyLedger.from_state_dict(inside).state_dict() == state
    outside = dict(
        state, rdp_sum=[x * (1 + 8 * (2 * terms + 1) * 2.0**-53) for x in state["rdp_sum"]]
    )
    with pytest.raises(ValueError, match="rdp_sum disagrees with its rounds and orders at order 2"):
        PrivacyLedger.from_state_dict(outside)


def test_a_state_summed_call_by_call_is_read():
    """The sums of a ledger that added each record call on its own (the running sum a state may carry): within
    the tolerance of the block-by-block recomputation, which the restored ledger holds."""
    calls = [(ROUND, 1)] * 5 + [
        (ROUND, 7),
        (Round.gaussian(4.0), 1),
        (Round.gaussian(4.0), 3),
        (ROUND, 2),
    ]
    ledger = PrivacyLedger(adaptive=True)
    rdp, mu2 = RunningSum(len(ledger.orders)), RunningSum(1)
    for one, times in calls:
        ledger.record(one, times)
        rdp.add(one.rdp_upper(ledger.orders), times)
        if one.gdp_mu is not None:
            mu2.add(np.array([one.mu_squared_upper()]), times)
    state = ledger.state_dict()
    assert state["rounds"][0][1] == 12 and state["rdp_terms"] < rdp.terms
    call_by_call = dict(
        state,
        rdp_sum=rdp.values.tolist(),
        rdp_terms=rdp.terms,
        mu2_sum=float(mu2.values[0]),
        mu2_terms=mu2.terms,
    )
    assert PrivacyLedger.from_state_dict(call_by_call).state_dict() == state
    with pytest.raises(ValueError, match="rdp_terms must be a whole number"):
        PrivacyLedger.from_state_dict(dict(call_by_call, rdp_terms=ledger.rounds + 1))


def test_each_field_is_checked_and_named():
    ledger = PrivacyLedger(adaptive=True, epsilon=3.0, delta=1e-5, orders=[4, 8, 16])
    ledger.record(ROUND, 10)
    ledger.record(Round.gaussian(8.0))
    state = ledger.state_dict()
    edits = {
        "adaptive": "true",
        "budget": [3.0, "1e-5"],
        "filter": "RDP",
        "orders": [16, 8, 4],
        "value_discretization_interval": -1.0,
        "rounds": [[{"mechanism": "gaussian", "sigma": "8"}, 1]],
        "rdp_sum": [1.0, math.nan, 1.0],
        "rdp_terms": 2.0,
        "mu2_sum": -1.0,
        "mu2_terms": 5,
    }
    for key, value in edits.items():
        with pytest.raises(ValueError, match=f"state's {key}"):
            PrivacyLedger.from_state_dict(dict(state, **{key: value}))
    with pytest.raises(ValueError, match="state lacks rdp_sum"):
        PrivacyLedger.from_state_dict({k: v for k, v in state.items() if k != "rdp_sum"})
    with pytest.raises(ValueError, match="unknown fields 'note'"):
        PrivacyLedger.from_state_dict(dict(state, note=1))
    with pytest.raises(ValueError, match="state's format"):
        PrivacyLedger.from_state_dict(dict(state, format="hockeystick.ledger/2"))
    split = copy.deepcopy(state)
    split["rounds"][0][1] = 4
    split["rounds"].insert(1, [ROUND.to_dict(), 6])
    with pytest.raises(ValueError, match=r"rounds\[0\] and rounds\[1\] hold the same round"):
        PrivacyLedger.from_state_dict(split)
    gdp = dict(state, filter="gdp")
    with pytest.raises(ValueError, match=r"rounds\[0\] is a subsampled_gaussian round"):
        PrivacyLedger.from_state_dict(gdp)
    with pytest.raises(
        ValueError,
        match=r"state's budget differ.*\[3\.0, 1e-05\] in the state, \[4\.0, 1e-05\] here",
    ):
        PrivacyLedger(adaptive=True, epsilon=4.0, delta=1e-5, orders=[4, 8, 16]).load_state_dict(
            state
        )
