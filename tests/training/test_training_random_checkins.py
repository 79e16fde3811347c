"""Random check-ins with central noise (``RandomCheckIns``): Poisson(p) sampling of a 1-of-m random allocation,
against dp_accounting's subsampled Gaussian at one slot, the balls-in-bins accountant at p = 1, and Balle et
al.'s one-client-per-slot protocol refused by name."""

from __future__ import annotations

import pytest

from hockeystick.pld import BallsInBinsGaussianPLD
from hockeystick.training.random_checkins import RandomCheckIns


def test_one_slot_is_the_poisson_subsampled_gaussian_of_dp_accounting() -> None:
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3)
    accountant.compose(dpa.PoissonSampledDpEvent(0.5, dpa.GaussianDpEvent(1.0)), 5)
    theirs = accountant.get_epsilon(1e-5)  # pessimistic, on a coarser grid
    lower, upper = RandomCheckIns(noise_multiplier=1.0, checkin_probability=0.5, slots=1, passes=5).epsilon(
        1e-5, bound="both"
    )
    assert lower <= theirs and abs(theirs - upper) < 1e-3


def test_certain_check_ins_are_balls_in_bins_and_a_smaller_p_spends_less() -> None:
    run = RandomCheckIns(noise_multiplier=1.0, checkin_probability=[0.5, 1.0], slots=10, passes=2)
    lower, upper = run.epsilon(1e-5, bound="both")
    allocation = BallsInBinsGaussianPLD(sigma=1.0, steps_per_epoch=10, rounds=20)
    a_lower, a_upper = allocation.epsilon(1e-5, bound="both")
    assert lower[1] <= a_upper and a_lower <= upper[1]
    assert upper[0] < lower[1]


def test_one_client_per_slot_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match='protocol="one_per_slot".*displace another client'):
        RandomCheckIns(noise_multiplier=1.0, checkin_probability=0.5, slots=10, protocol="one_per_slot")
    with pytest.raises(ValueError, match="slots"):
        RandomCheckIns(noise_multiplier=1.0, checkin_probability=0.5, slots=2.5)
