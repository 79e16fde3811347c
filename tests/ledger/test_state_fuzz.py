"""The malformed-input fuzz of a saved ledger: every corrupted state either restores to the ledger that was
saved (the same state, the same answers), or is refused with a ValueError naming the field; never another
exception.  Corruptions (``state_corruption``) are drawn by hypothesis from five valid states: an adaptive
ledger under each filter, a fixed schedule with and without a budget, one with a round of infinite cost.

Two kinds of acceptance besides the original are checked for what they are, not forbidden: a configuration
field changed to another valid value (budget, adaptivity, grid) reads as that configuration, and a running
ledger of the original configuration refuses it, naming the field (``load_state_dict``, the path Flower and a
training loop take); a round's parameter nudged within the sums' round-off tolerance, or changed under a sum
that is infinite either way, reads as that round, with the rounds counted as before and spent sums within the
tolerance of the original's (no check can tell these from the original: the sums are what the filter reads).
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick.ledger import PrivacyLedger, Round

from .state_corruption import corrupted

CONFIGURATION = ("adaptive", "budget", "filter", "orders", "value_discretization_interval")
ONE = Round.subsampled_gaussian(1.0, 0.01)


def _ledgers() -> dict[str, PrivacyLedger]:
    rdp = PrivacyLedger(adaptive=True, epsilon=3.0, delta=1e-5)
    rdp.record(ONE, 100)
    rdp.record(Round.gaussian(8.0), 2)
    rdp.record(Round.subsampled_gaussian(1.2, 0.02), 5)
    rdp.record(ONE)
    gdp = PrivacyLedger(adaptive=True, epsilon=2.0, delta=1e-6, filter="gdp")
    gdp.record(Round.gaussian(10.0), 3)
    gdp.record(Round.gaussian(12.0))
    fixed = PrivacyLedger(adaptive=False, orders=[2, 8, 32])
    fixed.record(Round.laplace(4.0), 2)
    fixed.record(Round.discrete_gaussian(3.0, 2), 4)
    fixed.record(ONE, 10)
    budgeted = PrivacyLedger(
        adaptive=False, epsilon=1.0, delta=1e-5, value_discretization_interval=1e-3
    )
    budgeted.record(ONE, 50)
    infinite = PrivacyLedger(adaptive=True, orders=[3, 7, 64])
    infinite.record(Round.gaussian(4.0))
    infinite.record(Round.gaussian(1e-200))  # sigma^2 underflows: an infinite curve
    return {"rdp": rdp, "gdp": gdp, "fixed": fixed, "budgeted": budgeted, "infinite": infinite}


LEDGERS = _ledgers()
STATES = {name: ledger.state_dict() for name, ledger in LEDGERS.items()}
SEEN: Counter[str] = Counter()


def names_field(message: str, path: tuple[Any, ...]) -> bool:
    """A refusal names the field edited: the state's top-level key (or the state itself at the root)."""
    return ("state" in message) if not path else (str(path[0]) in message)


def answers(ledger: PrivacyLedger) -> tuple[Any, ...]:
    """What a ledger answers without composing PLDs (a fixed schedule's composition and budget read its counts)."""
    probe = ONE if ledger.filter == "rdp" else Round.gaussian(10.0)
    stop = ledger.should_stop(probe) if ledger.adaptive and ledger.budget is not None else None
    return ledger.rounds, ledger.counts(), ledger.odometer(1e-5).epsilon, stop


ANSWERS = {name: answers(ledger) for name, ledger in LEDGERS.items()}


def check(name: str, state: Any, path: tuple[Any, ...], kind: str) -> str:
    """The contract for one corrupted state; returns how it was answered."""
    original, saved = LEDGERS[name], STATES[name]
    try:
        restored = PrivacyLedger.from_state_dict(state)
    except ValueError as err:
        assert names_field(str(err), path), (name, path, kind, str(err))
        outcome = "refused"
    else:
        got = restored.state_dict()
        assert (
            PrivacyLedger.from_state_dict(got).state_dict() == got
        )  # a restored ledger saves what it reads
        if got == saved:
            assert answers(restored) == ANSWERS[name]
            outcome = "read as saved"
        elif any(got[key] != saved[key] for key in CONFIGURATION):
            assert path and path[0] in CONFIGURATION, (name, path, kind)
            assert got["rounds"] == saved["rounds"] and got["rdp_sum"] == saved["rdp_sum"]
            outcome = "another configuration"
        else:  # a round edited within the sums' tolerance (or under an infinite sum): the spent sums agree
            assert path[0] == "rounds", (name, path, kind)
            assert restored.rounds == original.rounds
            for key, terms in (("rdp_sum", "rdp_terms"), ("mu2_sum", "mu2_terms")):
                rtol = 4 * (got[terms] + saved[terms] + 1) * 2.0**-53
                assert np.allclose(got[key], saved[key], rtol=rtol, atol=0), (name, path, kind, key)
            outcome = "a round edited within the sums' round-off"
    # the path a training loop takes: a running ledger of the original configuration (a copy of the one that
    # saved the state: restoring ``saved`` again would cost a full check of its rounds per draw) loads it or
    # names the field
    target = copy.deepcopy(original)
    try:
        target.load_state_dict(state)
    except ValueError as err:
        assert names_field(str(err), path), (name, path, kind, str(err))
    else:
        assert outcome != "another configuration"
        if outcome == "read as saved":
            assert target.state_dict() == saved
    return outcome


@settings(max_examples=240)
@given(st.sampled_from(sorted(STATES)), st.data())
def test_a_corrupted_ledger_state_restores_as_saved_or_is_refused_by_name(name, data):
    state, path, kind = data.draw(corrupted(STATES[name]))
    SEEN[check(name, state, path, kind)] += 1


@pytest.mark.slow
@settings(max_examples=2000)
@given(st.sampled_from(sorted(STATES)), st.data())
def test_many_more_corrupted_ledger_states(name, data):
    """The same contract on 2000 more draws (about 15 s alone)."""
    state, path, kind = data.draw(corrupted(STATES[name]))
    SEEN[check(name, state, path, kind)] += 1


def test_the_fuzz_saw_every_outcome():
    """Run after the fuzz (file order): it refused most states and read some as saved (the counts are printed:
    ``pytest -s``)."""
    if not SEEN:
        pytest.skip("the fuzz did not run in this process")
    print(f"ledger state fuzz: {sum(SEEN.values())} corrupted states, {dict(SEEN)}")
    assert SEEN["refused"] > SEEN["read as saved"] > 0 and SEEN["another configuration"] > 0


def test_the_issue_reproducers_are_refused_by_name():
    saved = STATES["rdp"]
    cases = {
        "rdp_sum": [0.0] * len(saved["rdp_sum"]),
        "mu2_sum": math.inf,
        "rounds": [[ONE.to_dict(), 10.9]],
    }
    for key, value in cases.items():
        with pytest.raises(ValueError, match=key):
            PrivacyLedger.from_state_dict(dict(saved, **{key: value}))
    for count in ("1000", True, 1e300, 10.9):
        bad = [list(pair) for pair in saved["rounds"]]
        bad[0] = [bad[0][0], count]
        with pytest.raises(ValueError, match=r"rounds\[0\] count"):
            PrivacyLedger.from_state_dict(dict(saved, rounds=bad))
