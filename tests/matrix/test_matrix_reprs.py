"""``DPFTRL`` and ``MonteCarloDelta`` reprs say what they hold: the run as given with its sensitivity and mu, and
which numbers of a Monte Carlo reading are certified and which are not."""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np

from hockeystick.matrix import DPFTRL, BallsInBinsMonteCarlo, Banded


def test_dpftrl_repr_gives_the_run_and_what_it_holds():
    text = repr(DPFTRL(rounds=16, noise_multiplier=2.0, min_separation=4))
    assert text == (
        "DPFTRL(rounds=16, noise_multiplier=2, min_separation=4, strategy='tree', participation='min_separation'): "
        # the certified mu, 3.000000000000004 (sensitivity 6 over z 2, rounded up), printed up
        "sensitivity 6 (exact), mu 3.00001; no amplification claimed"
    )
    sampled = repr(
        DPFTRL(
            rounds=16,
            noise_multiplier=2.0,
            sampling="poisson",
            sampling_rate=0.1,
            strategy=Banded([1, 0.5]),
        )
    )
    assert "sampling_rate=0.1" in sampled and "Banded(coefficients=[1.0, 0.5])" in sampled
    assert (
        "participation='cyclic_poisson'" in sampled
        and "certified sides of the random participation" in sampled
    )


def test_a_dense_strategy_is_shown_by_its_shape_and_arrays_by_their_first_values():
    run = DPFTRL(rounds=[16, 32], noise_multiplier=2.0, min_separation=4, strategy="tree_restart")
    assert repr(run).startswith(
        "DPFTRL(rounds=array([16, 32], shape=(2,)), noise_multiplier=array([2, 2], shape=(2,))"
    )
    assert "sensitivity array([3.4641, 4.89898], shape=(2,)) ([exact, exact])" in repr(run)
    dense = DPFTRL(rounds=8, noise_multiplier=1.0, strategy=np.eye(8))
    assert "strategy=<matrix (8, 8)>" in repr(dense) and "sensitivity" in repr(dense)


def test_monte_carlo_delta_repr_says_the_estimate_is_not_certified_and_the_proved_sides_are():
    reading = BallsInBinsMonteCarlo(
        strategy=np.tril(np.ones((4, 4))), noise_multiplier=1.0, cycle_length=2, draws=1000, seed=1
    ).delta(1.0)
    text = repr(reading)
    assert text.startswith("MonteCarloDelta(epsilon=1: estimate ")
    estimated, proved = text.split("not certified;")
    assert f"{reading.estimate:.6g}" in estimated and f"{reading.confidence_bound:.6g}" in estimated
    assert "probability >= 0.999 over 1000 draws a direction, seed 1" in estimated
    # the proved sides rounded outward at six digits: the lower one down, the upper one up
    lower = re.search(r"certified_lower (\S+) and", proved)
    upper = re.search(r"unamplified_upper (\S+): certified\)", proved)
    assert lower is not None and upper is not None, proved
    unit = Decimal("1e-6")
    assert 0 <= Decimal(reading.certified_lower) - Decimal(lower.group(1)) < unit
    assert 0 <= Decimal(upper.group(1)) - Decimal(reading.unamplified_upper) < unit
    assert str(reading) == text
