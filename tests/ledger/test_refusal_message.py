"""A refused round says why and what would admit it: the first round of sigma 1, q 1e-3 under the Rényi filter
of budget (1, 1e-8) costs more than the budget at every order, and no other integer order does better; the
message's numbers are checked against what they claim (a larger delta it names admits the round, the
fixed-schedule epsilon it quotes is the ledger's composition), and the other refusals name what failed."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hockeystick.ledger import BudgetExceeded, IndividualRdpFilter, PrivacyLedger, Round, best_order
from hockeystick.ledger.rdp_filter import rdp_budgets
from hockeystick.ledger.round_rdp import MAX_LEDGER_ORDER

FIRST = Round.subsampled_gaussian(1.0, 1e-3)


@pytest.mark.parametrize("delta", [1e-8, 1e-10])
def test_a_first_round_the_rdp_filter_cannot_admit_says_why_and_what_to_change(delta):
    ledger = PrivacyLedger(adaptive=True, epsilon=1.0, delta=delta)
    assert ledger.should_stop(FIRST)
    with pytest.raises(BudgetExceeded) as refused:
        ledger.record(FIRST)
    text = str(refused.value)
    assert (
        text
        == f"stopped before round 1: {ledger.explain(FIRST)}; the run so far: {ledger.guarantee()}"
    )
    cost = re.search(
        r"at order (\d+), the closest of its 25, it costs (\S+) against a budget of (\S+);", text
    )
    assert cost, text
    order, spent, budget = int(cost[1]), float(cost[2]), float(cost[3])
    assert spent > budget
    assert spent == pytest.approx(float(FIRST.rdp_upper((order,))[0]), rel=1e-3)
    assert spent >= float(FIRST.rdp_upper((order,))[0])  # an upper side, printed rounded up
    # the delta it names admits the round with the same orders; a tenth of it does not
    named = float(re.search(r"delta = (\S+) admits it", text)[1])
    assert not PrivacyLedger(adaptive=True, epsilon=1.0, delta=named).should_stop(FIRST)
    assert PrivacyLedger(adaptive=True, epsilon=1.0, delta=named / 1.1).should_stop(FIRST)
    # no single integer order admits it either: checked order by order, and best_order refuses it
    assert "no single integer order in [2, 1024] admits it either" in text
    for alpha in range(2, MAX_LEDGER_ORDER + 1):
        assert FIRST.rdp_upper((alpha,))[0] > rdp_budgets(1.0, delta, (alpha,))[0]
    with pytest.raises(ValueError, match="no order admits one round"):
        best_order(FIRST, 1.0, delta)
    # the fixed-schedule ledger's epsilon it quotes is that ledger's
    fixed = PrivacyLedger(adaptive=False)
    fixed.record(FIRST)
    quoted = float(re.search(r"it alone costs epsilon <= (\S+) at delta", text)[1])
    assert quoted == pytest.approx(fixed.composition(delta).epsilon, rel=1e-3)
    assert quoted >= fixed.composition(delta).epsilon
    assert "PrivacyLedger(adaptive=False)" in text and "filter='gdp'" in text


def test_a_gaussian_round_refused_by_the_rdp_filter_names_the_gdp_filter_that_admits_it():
    ledger = PrivacyLedger(adaptive=True, epsilon=1.0, delta=1e-5)
    one = Round.gaussian(4.0)
    assert (
        "the GDP filter (filter='gdp', exact for unsampled Gaussian rounds) admits it"
        in ledger.explain(one)
    )
    assert not PrivacyLedger(adaptive=True, epsilon=1.0, delta=1e-5, filter="gdp").should_stop(one)
    tight = PrivacyLedger(adaptive=True, epsilon=1.0, delta=1e-5, filter="gdp")
    assert re.search(
        r"more noise \(sigma >= 3\.7\d* times the sensitivity\)", tight.explain(Round.gaussian(1.0))
    )


def test_a_spent_budget_says_how_much_the_rounds_before_spent():
    ledger = PrivacyLedger(adaptive=True, epsilon=3.0, delta=1e-5)
    one = Round.subsampled_gaussian(1.0, 0.01)
    assert ledger.explain(one) is None
    ledger.record(one, 1483)
    text = ledger.explain(one)
    assert text.startswith(
        "after 1483 rounds the RDP filter of budget (3, 1e-05) has no room for one round"
    )
    spent, budget = (
        float(x) for x in re.search(r"have spent (\S+) against a budget of (\S+) ", text).groups()
    )
    assert spent > budget
    fixed = PrivacyLedger(adaptive=False, epsilon=1.0, delta=1e-5)
    fixed.record(one, 100)
    text = fixed.explain(one, 200)
    assert re.match(
        r"after 100 rounds, with 200 rounds of .* at delta = 1e-05 would be \d\.\d+, over 1;", text
    ), text
    with_them = float(re.search(r"would be (\S+), over", text)[1])
    composed = PrivacyLedger(adaptive=False)
    composed.record(one, 300)
    assert with_them == pytest.approx(composed.composition(1e-5).epsilon, rel=1e-5)


def test_the_repr_says_what_the_ledger_holds():
    ledger = PrivacyLedger(adaptive=True, epsilon=3.0, delta=1e-5, orders=[7])
    assert repr(ledger).endswith("rounds=0 (0 distinct), spent=nothing)")
    ledger.record(Round.subsampled_gaussian(1.0, 0.01), 1000)
    shown = repr(ledger)
    assert shown.startswith(
        "PrivacyLedger(adaptive=True, budget=(3, 1e-05), filter='rdp', orders=[7], rounds=1000"
    )
    share = float(re.search(r"spent=(\S+) of the RDP budget at order 7", shown)[1])
    budget = rdp_budgets(3.0, 1e-5, (7,))[0]
    assert share == pytest.approx(
        1000 * Round.subsampled_gaussian(1.0, 0.01).rdp_upper((7,))[0] / budget, rel=2e-4
    )


def test_arguments_are_refused_by_name_and_rule():
    with pytest.raises(
        ValueError, match=r"sampling_rate q must satisfy 0 < q <= 1, got 1\.5 \(a probability"
    ):
        Round.subsampled_gaussian(1.0, 1.5)
    with pytest.raises(ValueError, match="nobody takes part"):
        Round.subsampled_gaussian(1.0, 0.0)
    built = IndividualRdpFilter(3, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5)
    for bad in ("abc", ["1", "2", "3"], [[1.0], [2.0, 3.0], 4.0], None, [1j, 1, 1]):
        with pytest.raises(ValueError, match="grad_norms must be"):
            built.admit(bad)
    assert built.steps == 0
    for records in (2**64, 2**41):
        with pytest.raises(ValueError, match=r"num_records must be a whole number in \[1, 2\^40\]"):
            IndividualRdpFilter(
                records, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5
            )
    assert PrivacyLedger(adaptive=True, orders=np.array(7)).orders == (7,)
    with pytest.raises(ValueError, match=r"orders must be one order or a flat sequence of orders"):
        PrivacyLedger(adaptive=True, orders=np.array([[7, 8]]))


def test_an_individual_filter_state_is_refused_by_field():
    built = IndividualRdpFilter(2, noise_multiplier=1.0, max_grad_norm=1.0, epsilon=1.0, delta=1e-5)
    state = built.state_dict()
    for spent in (
        [["0.1"], ["0.2"]],
        [[0.1], [0.2, 0.3]],
        [[True], [False]],
        [[-1.0], [0.0]],
        None,
    ):
        with pytest.raises(ValueError, match="state's spent must hold numbers >= 0"):
            built.load_state_dict(dict(state, spent=spent))
    for steps in (1.0, "3", True, -1):
        with pytest.raises(ValueError, match="state's steps must be a whole number"):
            built.load_state_dict(dict(state, steps=steps))
    built.load_state_dict(dict(state, steps=4))
    assert built.steps == 4
