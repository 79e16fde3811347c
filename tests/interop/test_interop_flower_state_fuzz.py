"""The malformed-input fuzz of the Flower accountant's saved state: every corrupted state either loads into an
accountant of the same ``PrivacyConfig`` as the state that was saved (the same state, the same answers) or is
refused with a ValueError naming the field, the ledger's own fields included; never another exception.

Corruptions (tests/ledger/state_corruption.py) of three accountants' states, against the stand-ins of Flower's
types the other Flower tests use (flwr is not installed here): a fixed schedule without amplification, an
adaptive Poisson run under the Rényi filter, an adaptive run under the GDP filter.  A configuration edited to
another valid value is refused here (the accountant's own configuration is the reference); a round's parameter
nudged within the sums' round-off reads as that round, with the releases counted as before (tests/ledger/
test_state_fuzz.py says why no check can tell it from the original).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick.interop.flower import HockeystickPrivacyAccountant

from ..ledger.state_corruption import corrupted


@dataclass(frozen=True)
class Config:
    target_delta: float
    population_size: int
    neighboring_relation: str
    sampling_method: str
    max_epsilon: float | None = None


@dataclass(frozen=True)
class Event:
    noise_multiplier: float
    sample_size: int
    population_size: int


SETUPS: dict[str, tuple[Config, dict[str, Any], list[tuple[Event, int]]]] = {
    "fixed": (
        Config(1e-5, 1000, "add-or-remove-one", "no-amplification", 8.0),
        {"adaptive": False},
        [(Event(2.0, 50, 1000), 5), (Event(3.0, 50, 1000), 2)],
    ),
    "rdp": (
        Config(1e-5, 1000, "add-or-remove-one", "poisson", 3.0),
        {"adaptive": True},
        [(Event(1.0, 10, 1000), 100), (Event(1.2, 20, 1000), 3)],
    ),
    "gdp": (
        Config(1e-6, 100, "add-or-remove-one", "no-amplification", 2.0),
        {"adaptive": True, "filter": "gdp"},
        [(Event(10.0, 10, 100), 3)],
    ),
}


def fresh(name: str) -> HockeystickPrivacyAccountant:
    config, options, _ = SETUPS[name]
    return HockeystickPrivacyAccountant(config, **options)


def _run(name: str) -> HockeystickPrivacyAccountant:
    accountant = fresh(name)
    for event, count in SETUPS[name][2]:
        accountant.compose(event, count)
    return accountant


ACCOUNTANTS = {name: _run(name) for name in SETUPS}
STATES = {name: accountant.state_dict() for name, accountant in ACCOUNTANTS.items()}
SEEN: Counter[str] = Counter()


def names_field(message: str, path: tuple[Any, ...]) -> bool:
    """A refusal names the field edited: the state's top-level key and, inside the ledger, the ledger's."""
    if not path:
        return "state" in message
    if str(path[0]) not in message:
        return False
    return path[0] != "ledger" or len(path) < 2 or str(path[1]) in message


def check(name: str, state: Any, path: tuple[Any, ...], kind: str) -> str:
    saved, original = STATES[name], ACCOUNTANTS[name]
    target = fresh(name)
    try:
        target.load_state_dict(state)
    except ValueError as err:
        assert names_field(str(err), path), (name, path, kind, str(err))
        return "refused"
    got = target.state_dict()
    if got == saved:
        assert target.num_releases == original.num_releases
        assert target.ledger.counts() == original.ledger.counts()
        if original.ledger.adaptive:
            delta = original.config.target_delta
            assert target.get_epsilon(delta) == original.get_epsilon(delta)
            event = SETUPS[name][2][0][0]
            assert target.would_exceed(event) == original.would_exceed(event)
        return "loaded as saved"
    assert path[:2] == ("ledger", "rounds"), (name, path, kind)
    assert got["config"] == saved["config"] and target.num_releases == original.num_releases
    for key, terms in (("rdp_sum", "rdp_terms"), ("mu2_sum", "mu2_terms")):
        rtol = 4 * (got["ledger"][terms] + saved["ledger"][terms] + 1) * 2.0**-53
        assert np.allclose(got["ledger"][key], saved["ledger"][key], rtol=rtol, atol=0), (
            name,
            path,
            kind,
        )
    return "a round edited within the sums' round-off"


@settings(max_examples=180)
@given(st.sampled_from(sorted(STATES)), st.data())
def test_a_corrupted_flower_state_loads_as_saved_or_is_refused_by_name(name, data):
    state, path, kind = data.draw(corrupted(STATES[name]))
    SEEN[check(name, state, path, kind)] += 1


@pytest.mark.slow
@settings(max_examples=1500)
@given(st.sampled_from(sorted(STATES)), st.data())
def test_many_more_corrupted_flower_states(name, data):
    """The same contract on 1500 more draws."""
    state, path, kind = data.draw(corrupted(STATES[name]))
    SEEN[check(name, state, path, kind)] += 1


def test_the_flower_fuzz_saw_both_outcomes():
    """Run after the fuzz (file order); the counts are printed (``pytest -s``)."""
    if not SEEN:
        pytest.skip("the fuzz did not run in this process")
    print(f"Flower state fuzz: {sum(SEEN.values())} corrupted states, {dict(SEEN)}")
    assert SEEN["refused"] > SEEN["loaded as saved"] > 0


def test_the_issue_reproducer_is_refused_through_flower():
    """Issue 91: zeroed sums of a halted adaptive run, and counts that are not whole numbers."""
    saved = STATES["rdp"]
    zeroed = dict(
        saved, ledger=dict(saved["ledger"], rdp_sum=[0.0] * len(saved["ledger"]["rdp_sum"]))
    )
    with pytest.raises(
        ValueError, match="state's ledger is refused: state's rdp_sum disagrees with its rounds"
    ):
        fresh("rdp").load_state_dict(zeroed)
    for count in (10.9, "1000", True, 1e300):
        rounds = [list(pair) for pair in saved["ledger"]["rounds"]]
        rounds[0][1] = count
        with pytest.raises(
            ValueError, match=r"state's ledger is refused: state's rounds\[0\] count"
        ):
            fresh("rdp").load_state_dict(dict(saved, ledger=dict(saved["ledger"], rounds=rounds)))
