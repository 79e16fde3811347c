"""MMCC with entries of C down to the subnormals: a certified answer, not "math domain error" (the lattice step
total / cells underflowed to 0 before its log) nor an OverflowError (the lower side's scale 2^(20 - log2 a))."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.matrix import MMCC


@pytest.mark.parametrize("scale", [5e-324, 2.5e-320, 1e-310, 2.0**-1000, 1e-300])
@pytest.mark.parametrize("shape", ["tril", "eye"])
def test_a_strategy_of_subnormal_entries_answers_epsilon_zero_on_both_sides(scale, shape):
    """A shift of at most 8 x 1e-300 clip norms against noise 1 moves delta(0) by under 1e-299: epsilon(1e-5) is
    0 on both certified sides, and delta(0) is a certified bound below delta."""
    c = (np.tril(np.ones((8, 8))) if shape == "tril" else np.eye(8)) * scale
    run = MMCC(strategy=c, rounds=8, noise_multiplier=1.0, sampling_rate=0.1)
    reading = run.get_epsilon(1e-5)
    assert reading.lower == 0.0 and reading.upper == 0.0
    assert 0.0 <= run.delta(0.0) < 1e-5


def test_subnormal_entries_beside_normal_ones_bound_no_more_than_the_entries_rounded_up():
    """One subnormal entry beside ones: the upper side lies between the strategy without it and with it raised
    to 1 (the mechanism's delta is non-decreasing in each non-negative entry)."""
    base = np.tril(np.ones((6, 6)))
    without, tiny, raised = base.copy(), base.copy(), base.copy()
    without[4, 0], tiny[4, 0], raised[4, 0] = 0.0, 5e-324, 1.0
    without[4, 1], tiny[4, 1], raised[4, 1] = 0.0, 5e-324, 1.0

    def upper(c: np.ndarray) -> float:
        return (
            MMCC(strategy=c, rounds=6, noise_multiplier=2.0, sampling_rate=0.2, lower_side=False)
            .get_epsilon(1e-5)
            .upper
        )

    assert upper(tiny) <= upper(raised) + 1e-9
    assert upper(without) <= upper(raised) + 1e-9
