"""A ledger's ``accuracy=``: ``PrivacyLedger.from_run`` carries a run's accuracy, so the ledger's bracket of the run
is the run's at that accuracy; rounds with no finer read keep the grid's bracket and say when it is wider than asked;
the accuracy is part of the ledger's saved configuration and of its budget's check."""

from __future__ import annotations

import json
import warnings

import pytest

from hockeystick.ledger import BudgetExceeded, PrivacyLedger, Round
from hockeystick.pld.refine import AccuracyNotMetWarning
from hockeystick.training import DPSGD, DPFedAvg

RUNS = {
    "readme": lambda **k: DPSGD(
        dataset_size=60_000, batch_size=256, steps=14_100, noise_multiplier=1.1, **k
    ),
    "fedavg": lambda **k: DPFedAvg(sample_rate=1e-3, rounds=5000, noise_multiplier=1.0, **k),
}


def _quiet(read):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotMetWarning)
        return read()


@pytest.mark.parametrize(
    "run, delta",
    [
        ("readme", 1e-10),
        pytest.param("readme", 1e-5, marks=pytest.mark.slow),
        pytest.param("readme", 1e-12, marks=pytest.mark.slow),
        pytest.param("fedavg", 1e-10, marks=pytest.mark.slow),
        pytest.param("fedavg", 1e-12, marks=pytest.mark.slow),
    ],
)
def test_from_run_gives_the_runs_bracket_at_its_accuracy(run, delta):
    """The run's own bracket at accuracy 1e-4 and the ledger's are one bracket (at 1e-10 narrower than the
    default's: [3.740983, 3.741038] against [3.740429, 3.741038] for the README run).  The ledger door at this
    accuracy over both runs at 1e-5 and 1e-10 is in tests/pld/question/test_doors_accuracy.py."""
    accurate = RUNS[run](accuracy=1e-4)
    ledger = PrivacyLedger.from_run(accurate)
    assert ledger.accuracy == 1e-4
    answer = _quiet(lambda: ledger.composition(delta))
    assert (answer.epsilon_lower, answer.epsilon) == _quiet(
        lambda: accurate.epsilon(delta, bound="both")
    )


def test_an_accuracy_given_to_from_run_wins_over_the_runs():
    ledger = PrivacyLedger.from_run(RUNS["readme"](accuracy=1e-4), accuracy=1e-3)
    assert ledger.accuracy == 1e-3
    assert PrivacyLedger.from_run(RUNS["readme"]()).accuracy is None


def test_rounds_without_a_finer_read_keep_the_grids_bracket_and_say_so():
    """Two kinds of round: no read finer than the grid's (the question's tilted composition of the factors), so an
    accuracy finer than that bracket leaves it as it is and warns; one it meets leaves it silent."""
    rounds = [
        (Round.subsampled_gaussian(1.1, 0.01), 30),
        (Round.subsampled_gaussian(0.9, 0.01), 20),
    ]

    def ledger(accuracy):
        out = PrivacyLedger(adaptive=False, accuracy=accuracy)
        for one, count in rounds:
            out.record(one, rounds=count)
        return out

    default = ledger(None).composition(1e-5)
    with pytest.warns(AccuracyNotMetWarning, match="1 of 1 epsilon brackets"):
        tight = ledger(1e-12).composition(1e-5)
    assert (tight.epsilon_lower, tight.epsilon) == (default.epsilon_lower, default.epsilon)
    assert default.epsilon - default.epsilon_lower > 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("error", AccuracyNotMetWarning)
        loose = ledger(1.0).composition(1e-5)
    assert (loose.epsilon_lower, loose.epsilon) == (default.epsilon_lower, default.epsilon)


def test_a_coarser_accuracy_is_never_looser_than_the_ledgers_default():
    """accuracy 1e-2 is coarser than the default's tolerance: the front door's bracket at it is wider than the
    default's, and the ledger intersects it with its grid's, so its bracket is the default's or narrower."""
    one = Round.subsampled_gaussian(1.1, 256 / 60_000)
    coarse = PrivacyLedger(adaptive=False, accuracy=1e-2)
    coarse.record(one, rounds=14_100)
    plain = PrivacyLedger(adaptive=False)
    plain.record(one, rounds=14_100)
    answer, default = coarse.composition(1e-5), plain.composition(1e-5)
    assert default.epsilon_lower <= answer.epsilon_lower <= answer.epsilon <= default.epsilon


def test_the_accuracy_is_saved_and_refused_by_name():
    ledger = PrivacyLedger.from_run(RUNS["readme"](accuracy=1e-4))
    state = json.loads(ledger.to_json())
    assert state["accuracy"] == 1e-4
    assert PrivacyLedger.from_json(ledger.to_json()).accuracy == 1e-4
    assert "accuracy" not in PrivacyLedger(adaptive=False).state_dict()
    with pytest.raises(ValueError, match="accuracy"):
        PrivacyLedger.from_state_dict({**state, "accuracy": -1.0})
    with pytest.raises(ValueError, match="accuracy"):
        PrivacyLedger(adaptive=False, accuracy=0.0)
    fresh = PrivacyLedger(adaptive=False)
    with pytest.raises(ValueError, match="accuracy"):
        fresh.load_state_dict(state)


def test_the_budget_is_checked_on_the_bracket_at_the_accuracy():
    """A budget at the run's certified upper side at its accuracy admits the run; one below its lower side
    refuses it."""
    accurate = RUNS["readme"](accuracy=1e-4)
    lower, upper = accurate.epsilon(1e-5, bound="both")
    assert PrivacyLedger.from_run(accurate, epsilon=upper, delta=1e-5).rounds == 14_100
    with pytest.raises(BudgetExceeded):
        PrivacyLedger.from_run(accurate, epsilon=lower * (1 - 1e-9), delta=1e-5)
