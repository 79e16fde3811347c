"""hockeystick's own dp_accounting-style events for balls-in-bins and shuffled epochs, through the adapter."""

from __future__ import annotations

import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as ev  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation  # noqa: E402

from hockeystick.fdp.gaussian_mechanism import GaussianMechanism  # noqa: E402
from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.interop.dp_accounting.allocation_events import (
    BallsInBinsGaussianDpEvent,
    ShuffledBatchGaussianDpEvent,
)  # noqa: E402
from hockeystick.training import DPSGD  # noqa: E402


def test_epochs_of_balls_in_bins_match_the_facade() -> None:
    accountant = HockeystickPLDAccountant()
    accountant.compose(BallsInBinsGaussianDpEvent(noise_multiplier=1.0, num_steps=94), count=5)
    expected = DPSGD(
        dataset_size=6000, batch_size=64, epochs=5, noise_multiplier=1.0, sampling="balls_in_bins"
    )
    # the same rounds, read on the adapter's default grid (7/8 of the facade's 1e-4): within 1e-6
    assert accountant.get_epsilon_bracket(1e-6) == pytest.approx(
        expected.epsilon(1e-6, bound="both"), abs=1e-6
    )


def test_shuffled_epochs_lie_between_the_realizable_pair_and_the_gaussian() -> None:
    accountant = HockeystickPLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    accountant.compose(
        ShuffledBatchGaussianDpEvent(noise_multiplier=2.0, dataset_size=600, batch_size=64), count=3
    )
    lower, upper = accountant.get_epsilon_bracket(1e-6)
    exact_gaussian = GaussianMechanism(sigma=2.0, sensitivity=2.0, rounds=3).epsilon(1e-6)
    facade = DPSGD(
        dataset_size=600, batch_size=64, epochs=3, noise_multiplier=2.0, sampling="shuffle"
    )
    assert exact_gaussian <= upper <= exact_gaussian + 1e-3  # the grid Gaussian above the exact one
    # the same realizable pair as the facade's, read on the adapter's default grid (7/8 of the
    # facade's 1e-4): both certified, within 1e-6
    assert lower == pytest.approx(facade.epsilon(1e-6, bound="lower"), abs=1e-6)


def test_the_events_compose_with_dp_accounting_events() -> None:
    accountant = HockeystickPLDAccountant()
    one_epoch = BallsInBinsGaussianDpEvent(noise_multiplier=1.5, num_steps=10)
    accountant.compose(ev.ComposedDpEvent([one_epoch, ev.GaussianDpEvent(3.0)]), count=2)
    alone = HockeystickPLDAccountant()
    alone.compose(one_epoch, count=2)
    assert accountant.get_epsilon(1e-6) > alone.get_epsilon(1e-6)


@pytest.mark.parametrize(
    ("event", "relation", "match"),
    [
        (BallsInBinsGaussianDpEvent(1.0, 10), NeighboringRelation.REPLACE_ONE, "ADD_OR_REMOVE_ONE"),
        (
            ShuffledBatchGaussianDpEvent(1.0, 100, 10),
            NeighboringRelation.ADD_OR_REMOVE_ONE,
            "REPLACE_ONE",
        ),
    ],
)
def test_each_event_is_refused_under_a_relation_it_does_not_bound(
    event: ev.DpEvent, relation: NeighboringRelation, match: str
) -> None:
    accountant = HockeystickPLDAccountant(neighboring_relation=relation)
    assert not accountant.supports(event)
    with pytest.raises(Exception, match=match):
        accountant.compose(event)


@pytest.mark.parametrize(
    ("event", "match"),
    [
        (BallsInBinsGaussianDpEvent(1.0, 0), "num_steps"),
        (BallsInBinsGaussianDpEvent(-1.0, 10), "noise_multiplier"),
        (ShuffledBatchGaussianDpEvent(1.0, 10, 20), "batch_size"),
    ],
)
def test_bad_fields_are_named(event: ev.DpEvent, match: str) -> None:
    relation = (
        NeighboringRelation.REPLACE_ONE
        if isinstance(event, ShuffledBatchGaussianDpEvent)
        else NeighboringRelation.ADD_OR_REMOVE_ONE
    )
    with pytest.raises(ValueError, match=match):
        HockeystickPLDAccountant(neighboring_relation=relation).compose(event)
