"""A stage of a compose file recorded in the ledger: the ledger's bracket of a compose file's stages agrees with
``hockeystick compose``'s (``compose_stages``), a sensitivity is folded into the noise rounded down, and the
stages the ledger cannot read are refused by name."""

from __future__ import annotations

from fractions import Fraction

import pytest

from hockeystick.ledger import PrivacyLedger, Round
from hockeystick.pld.accountants.stages import compose_stages

STAGES = [
    {"mechanism": "subsampled_gaussian", "sigma": 1.0, "sampling_probability": 0.01, "rounds": 200},
    {"mechanism": "gaussian", "sigma": 16.0, "sensitivity": 2, "rounds": 10},
    {"mechanism": "laplace", "scale": 4.0},
]


def test_a_compose_files_stages_give_the_compose_commands_bracket():
    delta, h = 1e-5, 1e-3
    ledger = PrivacyLedger(adaptive=False, value_discretization_interval=h)
    for stage in STAGES:
        ledger.record(*Round.from_stage(stage))
    assert ledger.counts() == {
        Round.subsampled_gaussian(1.0, 0.01): 200,
        Round.gaussian(8.0): 10,  # 16 / 2, exact
        Round.laplace(4.0): 1,
    }
    g = ledger.composition(delta)
    lower, upper = compose_stages(STAGES, value_discretization_interval=h).epsilon(
        delta, bound="both"
    )
    assert (
        g.epsilon_lower <= upper and lower <= g.epsilon
    )  # two certified brackets of one composition
    assert g.epsilon == pytest.approx(upper, rel=1e-3)


def test_an_inexact_sensitivity_is_folded_into_the_noise_rounded_down():
    one, rounds = Round.from_stage(
        {"mechanism": "gaussian", "noise_multiplier": 1.0, "sensitivity": 3, "rounds": 7}
    )
    assert (
        rounds == 7
        and Fraction(one.sigma) <= Fraction(1, 3)
        and one.sigma == pytest.approx(1 / 3, rel=1e-15)
    )
    full, _ = Round.from_stage(
        {"mechanism": "subsampled_gaussian", "sigma": 2.0, "sampling_rate": 1.0}
    )
    assert full == Round.gaussian(2.0)


@pytest.mark.parametrize(
    ("stage", "match"),
    [
        (
            {"mechanism": "randomized_response", "epsilon": 1.0},
            "the ledger records stages of gaussian",
        ),
        ({"mechanism": "gausian", "sigma": 1.0}, "did you mean"),
        (
            {"mechanism": "gaussian", "sigma": 1.0, "sampling_rate": 0.1},
            "a gaussian stage takes sigma",
        ),
        ({"mechanism": "laplace"}, "a laplace stage needs scale"),
        ({"mechanism": "gaussian", "sigma": 1.0, "rounds": 0}, "rounds must be an integer >= 1"),
        (
            {"mechanism": "gaussian", "sigma": 1.0, "sensitivity": -1.0},
            "sensitivity must be a finite number > 0",
        ),
        ("gaussian", "a stage must be a table"),
    ],
)
def test_what_the_ledger_cannot_read_is_refused_by_name(stage, match):
    with pytest.raises(ValueError, match=match):
        Round.from_stage(stage)
