"""``binomial_split.exact_sum``: the correctly rounded sum of a round's masses, against the exact rational
sum (``fractions.Fraction``, rounded by Python's correctly rounded integer division) and ``math.fsum``."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from hockeystick.pld.compose import binomial_split
from hockeystick.pld.compose.binomial_split import exact_sum


def _exact(values: np.ndarray) -> float:
    """The sum of ``values`` as a rational number, rounded once to a double."""
    return float(sum((Fraction(float(v)) for v in values.reshape(-1)), Fraction(0)))


def _masses(rng: np.random.Generator, n: int) -> np.ndarray:
    """n masses over 330 decades (subnormals among them), a random share of them 0."""
    values = rng.random(n) * 10.0 ** -rng.integers(0, 330, n).astype(np.float64)
    values[rng.random(n) < rng.random()] = 0.0
    return values


@pytest.mark.parametrize("seed", range(4))
def test_the_sum_is_the_exact_sum_correctly_rounded(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(150):
        values = _masses(rng, int(rng.integers(0, 400)))
        assert exact_sum(values) == _exact(values) == math.fsum(values)


def test_halfway_sums_round_to_even_and_equal_powers_add_up() -> None:
    """1 + 2^-53 is halfway between 1 and its successor (rounds to 1, the even one), 1 + 3 2^-53 between
    the successor and the next (rounds up to 1 + 2^-51), and a tiny third term breaks each tie upwards."""
    for middle in (2.0**-53, 3 * 2.0**-53):
        for tiny in (0.0, 2.0**-106, 5e-324):
            values = np.array([1.0, middle, tiny])
            assert exact_sum(values) == _exact(values)
    for power in (-1074, -1022, -600, -1, 0):
        values = np.full(1000, 2.0**power)
        assert exact_sum(values) == 1000 * 2.0**power


def test_passes_over_chunks_give_the_same_sum(monkeypatch: pytest.MonkeyPatch) -> None:
    """Split into passes of 7 values (the sum carried in a Python integer between them)."""
    values = _masses(np.random.default_rng(11), 500).reshape(20, 25)
    whole = exact_sum(values)
    monkeypatch.setattr(binomial_split, "EXACT_SUM_CHUNK", 7)
    assert exact_sum(values) == whole == _exact(values)


def test_edges_empty_zeros_signs_and_overflow() -> None:
    assert exact_sum(np.array([])) == 0.0
    assert math.copysign(1.0, exact_sum(np.array([-0.0, -0.0]))) == 1.0  # as math.fsum: +0.0
    assert exact_sum(np.array([5e-324])) == 5e-324
    assert exact_sum(np.array([1.0, -1.0, 1e-20])) == 1e-20  # a negative value: math.fsum's sum
    assert math.isnan(exact_sum(np.array([1.0, math.nan])))
    assert exact_sum(np.array([1.0, math.inf])) == math.inf
    with pytest.raises(OverflowError):
        exact_sum(np.full(3, 1.7e308))
