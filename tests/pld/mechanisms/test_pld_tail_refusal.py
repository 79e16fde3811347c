"""``tail`` is refused when an accountant is built, not at its first ``.epsilon``: one rule (1e-300 <= tail < 1e-3,
``constructors.checked_tail``) for the PLD accountants, DP-SGD / DP-FedAvg and the constructors that discretize."""

from __future__ import annotations

import math

import pytest

import hockeystick.pld as pld
from hockeystick.base.validation import ParameterTypeError
from hockeystick.training import DPSGD, DPFedAvg

BUILDS = {
    "SubsampledGaussianPLD": lambda tail: pld.SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.01, rounds=10, tail=tail
    ),
    "PLDAccountant": lambda tail: pld.PLDAccountant(tail=tail),
    "DPSGD": lambda tail: DPSGD(noise_multiplier=1.0, sample_rate=0.01, steps=10, tail=tail),
    "DPFedAvg": lambda tail: DPFedAvg(
        noise_multiplier=1.0, total_clients=1000, clients_per_round=10, rounds=10, tail=tail
    ),
    "subsampled_gaussian": lambda tail: pld.subsampled_gaussian(1.0, 0.01, tail=tail),
}


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_tail_out_of_range_is_refused_when_built_with_the_rule(build):
    for bad in (1e-3, 0.5, 0.0, 1e-301, -1e-15, math.inf):
        with pytest.raises(ValueError, match=r"^tail must lie in \[1e-300, 1e-3\), got "):
            BUILDS[build](bad)
    with pytest.raises(ValueError, match="^tail must not be NaN"):
        BUILDS[build](math.nan)
    with pytest.raises(ParameterTypeError, match="^tail must be a real number"):
        BUILDS[build]("1e-15")


def test_tail_at_the_ends_of_its_range_is_taken_as_given():
    for tail in (1e-300, math.nextafter(1e-3, 0.0)):
        assert (
            pld.SubsampledGaussianPLD(sigma=1.0, sampling_rate=0.01, rounds=10, tail=tail).tail
            == tail
        )
        assert pld.PLDAccountant(tail=tail).tail == tail
