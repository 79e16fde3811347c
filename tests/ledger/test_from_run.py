"""``PrivacyLedger.from_run``: a Poisson-sampled DP-SGD / DP-FedAvg run (plain or in stages) as a ledger of its
rounds, whose certified composition overlaps the run's own certified bracket; several runs and other samplings
are refused by name."""

from __future__ import annotations

import pytest

from hockeystick.ledger import BudgetExceeded, PrivacyLedger, Round
from hockeystick.training import DPSGD, DPFedAvg

STAGES = [{"noise_multiplier": 1.1, "epochs": 3}, {"noise_multiplier": 0.9, "epochs": 2}]


def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


@pytest.mark.parametrize(
    "run",
    [
        DPSGD(dataset_size=10_000, batch_size=100, stages=STAGES),
        DPFedAvg(sample_rate=0.02, rounds=200, noise_multiplier=1.0, clipped_count_stddev=5.0),
    ],
    ids=["staged DP-SGD", "DP-FedAvg with adaptive clipping"],
)
def test_the_ledgers_composition_overlaps_the_runs_bracket(run):
    ledger = PrivacyLedger.from_run(run)
    assert ledger.rounds == int(run.steps) and not ledger.adaptive
    answer = ledger.composition(1e-5)
    assert answer.kind == "certified composition"
    assert overlap((answer.epsilon_lower, answer.epsilon), run.epsilon(1e-5, bound="both"))


def test_the_rounds_are_the_runs_steps_in_order():
    staged = PrivacyLedger.from_run(DPSGD(dataset_size=10_000, batch_size=100, stages=STAGES))
    assert staged.counts() == {
        Round.subsampled_gaussian(1.1, 0.01): 300,
        Round.subsampled_gaussian(0.9, 0.01): 200,
    }
    plain = PrivacyLedger.from_run(
        DPSGD(sample_rate=0.01, steps=40, noise_multiplier=2.0), adaptive=True
    )
    assert plain.adaptive and plain.counts() == {Round.subsampled_gaussian(2.0, 0.01): 40}


def test_a_budget_the_run_passes_is_refused():
    with pytest.raises(BudgetExceeded):
        PrivacyLedger.from_run(
            DPSGD(sample_rate=0.01, steps=500, noise_multiplier=0.8), epsilon=0.5, delta=1e-5
        )


@pytest.mark.parametrize(
    "run, message",
    [
        (DPSGD(sample_rate=0.01, steps=[10, 20], noise_multiplier=1.0), "records one run, got 2"),
        (
            DPSGD(
                dataset_size=1000, batch_size=10, steps=10, noise_multiplier=1.0, sampling="shuffle"
            ),
            '"shuffle"',
        ),
        (Round.gaussian(1.0), "must be a training run"),
    ],
)
def test_refusals(run, message):
    with pytest.raises(ValueError, match=message):
        PrivacyLedger.from_run(run)
