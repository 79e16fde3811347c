"""The allocation accountants over random settings (derandomized Hypothesis): every bracket is ordered and finite,
and its lower side lies below a closed form that bounds the truth from above (the per-epoch Gaussian pair, which
dominates an epoch of balls-in-bins and of shuffled batches, module docstrings of pld/accountants/allocation.py
and pld/sampling/random_allocation.py)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import hockeystick.pld as pld
from hockeystick.fdp.gaussian_mechanism import GaussianMechanism

NOISE = st.floats(math.log(0.5), math.log(100.0)).map(math.exp)
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, database=None)


@SETTINGS
@given(
    sigma=NOISE,
    steps=st.sampled_from([1, 2, 4, 235]),
    epochs=st.integers(1, 3),
    rest=st.integers(0, 3),
)
def test_balls_in_bins_brackets_are_ordered_finite_and_below_the_per_epoch_gaussian(
    sigma: float, steps: int, epochs: int, rest: int
) -> None:
    rounds = epochs * steps + min(rest, steps - 1)
    lower, upper = pld.BallsInBinsGaussianPLD(
        sigma=sigma, steps_per_epoch=steps, rounds=rounds
    ).epsilon(1e-5, bound="both")
    assert 0.0 <= lower <= upper < math.inf, (lower, upper)
    begun = -(-rounds // steps)
    assert lower <= GaussianMechanism(sigma=sigma, rounds=begun).epsilon(1e-5)


@SETTINGS
@given(
    sigma=st.floats(math.log(1.0), math.log(200.0)).map(math.exp),
    batch_size=st.integers(1, 50),
    batches=st.integers(1, 8),
    rounds=st.integers(1, 20),
)
def test_shuffled_batch_brackets_are_ordered_finite_and_the_upper_side_is_the_shift_two_gaussian(
    sigma: float, batch_size: int, batches: int, rounds: int
) -> None:
    n = batch_size * batches - (
        batch_size // 2 if batches > 1 else 0
    )  # a short last batch when there are two
    lower, upper = pld.ShuffledBatchGaussianPLD(
        sigma=sigma, batch_size=batch_size, n=n, rounds=rounds
    ).epsilon(1e-5, bound="both")
    assert 0.0 <= lower <= upper < math.inf, (lower, upper)
    begun = -(-rounds // -(-n // batch_size))
    exact = GaussianMechanism(sigma=sigma, sensitivity=2.0, rounds=begun).epsilon(1e-5)
    assert np.isclose(upper, exact, rtol=1e-9, atol=1e-12) and lower <= exact
