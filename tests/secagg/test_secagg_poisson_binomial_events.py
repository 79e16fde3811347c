"""dp_accounting's words for the Poisson-binomial mechanism: the event's bracket is the accountant's, sampled rounds
are the observer's, and what is not certified is refused with the reason."""

from __future__ import annotations

import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import (  # noqa: E402
    GaussianDpEvent,
    NeighboringRelation,
    PoissonSampledDpEvent,
    SampledWithoutReplacementDpEvent,
    SelfComposedDpEvent,
    UnsupportedEventError,
)

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.interop.dp_accounting.secagg_pair_events import PoissonBinomialDpEvent  # noqa: E402
from hockeystick.secagg import PoissonBinomialMechanism  # noqa: E402

ROUND = PoissonBinomialDpEvent(trials=8, theta=0.1, num_clients=20)


@pytest.mark.parametrize(
    "relation", [NeighboringRelation.REPLACE_SPECIAL, NeighboringRelation.REPLACE_ONE]
)
def test_the_events_bracket_is_the_accountants(relation):
    accountant = HockeystickPLDAccountant(relation).compose(SelfComposedDpEvent(ROUND, 6))
    direct = PoissonBinomialMechanism(trials=8, theta=0.1, min_surviving_clients=20, rounds=6)
    assert accountant.get_epsilon_bracket(1e-5) == direct.epsilon(1e-5, bound="both")
    assert accountant.get_delta_bracket(1.0) == direct.delta(1.0, bound="both")
    # pure DP: each round's d m log((1 + 2 theta) / (1 - 2 theta)), summed
    assert accountant.get_epsilon(0.0) >= 6 * direct.round_epsilon


def test_a_poisson_sampled_round_is_the_observers():
    sampled = PoissonSampledDpEvent(0.05, ROUND)
    accountant = HockeystickPLDAccountant(NeighboringRelation.REPLACE_SPECIAL).compose(
        SelfComposedDpEvent(sampled, 6)
    )
    direct = PoissonBinomialMechanism(
        trials=8, theta=0.1, min_surviving_clients=20, rounds=6, sampling_rate=0.05
    )
    assert accountant.get_epsilon_bracket(1e-5) == direct.epsilon(
        1e-5, bound="both", against="observer"
    )


@pytest.mark.parametrize(
    ("relation", "events", "reason"),
    [
        (NeighboringRelation.ADD_OR_REMOVE_ONE, [ROUND], "REPLACE_SPECIAL"),
        (
            NeighboringRelation.REPLACE_SPECIAL,
            [ROUND, GaussianDpEvent(1.0)],
            "compose only with each other",
        ),
        (
            NeighboringRelation.REPLACE_ONE,
            [SampledWithoutReplacementDpEvent(100, 10, ROUND)],
            "PoissonSampledDpEvent",
        ),
    ],
)
def test_what_is_not_certified_is_refused_with_the_reason(relation, events, reason):
    accountant = HockeystickPLDAccountant(relation)
    with pytest.raises(UnsupportedEventError, match=reason):
        for event in events:
            accountant = accountant.compose(event)


def test_a_field_outside_its_rule_is_named():
    with pytest.raises(ValueError, match="theta"):
        HockeystickPLDAccountant(NeighboringRelation.REPLACE_SPECIAL).compose(
            PoissonBinomialDpEvent(trials=8, theta=0.7, num_clients=20)
        )
