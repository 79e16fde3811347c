"""The core's correctly rounded integers (numerics/correctly_rounded.hpp, ``_core.pld_reads.exact_sum`` and
``rounded_binomial``): the sum of doubles against the exact rational sum (``fractions.Fraction``, rounded by
Python's correctly rounded division) and ``math.fsum`` bit for bit, and C(n, k) against ``float(math.comb(n, k))``."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hockeystick import _core

exact_sum = _core.pld_reads.exact_sum
rounded_binomial = _core.pld_reads.rounded_binomial


def _exact(values: np.ndarray) -> float:
    """The sum of ``values`` as a rational number, rounded once to a double."""
    return float(sum((Fraction(float(v)) for v in values.reshape(-1)), Fraction(0)))


def _masses(rng: np.random.Generator, n: int) -> np.ndarray:
    """n masses over 330 decades (subnormals among them), a random share of them 0."""
    values = rng.random(n) * 10.0 ** -rng.integers(0, 330, n).astype(np.float64)
    values[rng.random(n) < rng.random()] = 0.0
    return values


def _bits(x: float) -> str:
    return float(x).hex() if not math.isnan(x) else "nan"


@pytest.mark.parametrize("seed", range(4))
def test_the_sum_is_the_exact_sum_correctly_rounded(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(150):
        values = _masses(rng, int(rng.integers(0, 400)))
        assert exact_sum(values) == _exact(values) == math.fsum(values)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.floats(-1e300, 1e300, allow_nan=False), max_size=60))
def test_a_signed_sum_is_math_fsum_bit_for_bit(values: list[float]) -> None:
    """Any finite doubles of either sign (subnormals, signed zeros, cancellations) whose sum stays in range."""
    assert _bits(exact_sum(np.array(values, dtype=np.float64))) == _bits(math.fsum(values))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0.0, allow_nan=False, allow_infinity=False), max_size=8))
def test_a_sum_of_any_nonnegative_doubles_is_math_fsum_or_its_overflow(values: list[float]) -> None:
    """Nonnegative doubles up to the largest: the same double as math.fsum, or its OverflowError."""
    try:
        expected = math.fsum(values)
    except OverflowError:
        with pytest.raises(OverflowError):
            exact_sum(np.array(values, dtype=np.float64))
        return
    assert _bits(exact_sum(np.array(values, dtype=np.float64))) == _bits(expected)


def test_halfway_sums_round_to_even_and_equal_powers_add_up() -> None:
    """1 + 2^-53 is halfway between 1 and its successor (rounds to 1, the even one), 1 + 3 2^-53 between
    the successor and the next (rounds up to 1 + 2^-51), and a tiny third term breaks each tie upwards."""
    for middle in (2.0**-53, 3 * 2.0**-53):
        for tiny in (0.0, 2.0**-106, 5e-324):
            values = np.array([1.0, middle, tiny])
            assert exact_sum(values) == _exact(values) == math.fsum(values)
    for power in (-1074, -1022, -600, -1, 0):
        values = np.full(1000, 2.0**power)
        assert exact_sum(values) == 1000 * 2.0**power


def test_many_full_significands_at_one_exponent_carry_exactly() -> None:
    """2^20 copies of the largest significand at one exponent (each sum of its low and high bits near 2^52) and
    their negatives interleaved with 2^-1074: the carries between the 32-bit limbs are exact."""
    top = np.nextafter(2.0, 0.0)  # 2 - 2^-52: every significand bit set
    values = np.full(1 << 20, top)
    assert exact_sum(values) == float(Fraction(top) * (1 << 20))
    mixed = np.empty(2 << 20)
    mixed[0::2], mixed[1::2] = top, -top
    mixed[-1] = 5e-324
    assert exact_sum(mixed) == _exact(mixed) == math.fsum(mixed)


def test_edges_empty_zeros_signs_non_finite_and_overflow() -> None:
    assert exact_sum(np.array([])) == 0.0
    assert math.copysign(1.0, exact_sum(np.array([-0.0, -0.0]))) == 1.0  # as math.fsum: +0.0
    assert exact_sum(np.array([5e-324])) == 5e-324
    assert exact_sum(np.array([1.0, -1.0, 1e-20])) == 1e-20
    assert exact_sum(np.array([-1.0, -(2.0**-60)])) == math.fsum([-1.0, -(2.0**-60)])
    assert math.isnan(exact_sum(np.array([1.0, math.nan])))
    assert exact_sum(np.array([1.0, math.inf])) == math.inf
    assert exact_sum(np.array([1.0, -math.inf])) == -math.inf
    with pytest.raises(ValueError, match="inf"):
        exact_sum(np.array([math.inf, 1.0, -math.inf]))
    with pytest.raises(OverflowError):
        exact_sum(np.full(3, 1.7e308))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**18), st.integers(0, 120))
def test_a_binomial_coefficient_is_math_comb_rounded_once(n: int, k: int) -> None:
    """C(n, k) rounded to a double as Python converts the exact integer (ties to even), inf past the range."""
    try:
        expected = float(math.comb(n, k))
    except OverflowError:
        expected = math.inf
    assert _bits(rounded_binomial(n, k)) == _bits(expected)


def test_binomial_edges() -> None:
    """k past n is 0 (as math.comb), C(n, 0) = C(n, n) = 1, symmetric k, overflow at the double range's edge."""
    assert rounded_binomial(5, 6) == 0.0 and rounded_binomial(5, -1) == 0.0
    assert rounded_binomial(10**18, 0) == rounded_binomial(10**18, 10**18) == 1.0
    assert rounded_binomial(2**62, 2**62 - 3) == float(math.comb(2**62, 3))
    assert rounded_binomial(1026, 513) == float(math.comb(1026, 513))  # about 2^1020.6
    assert rounded_binomial(1030, 515) == math.inf  # about 2^1024.6: float() refuses it
    with pytest.raises(OverflowError):
        float(math.comb(1030, 515))
    assert rounded_binomial(1100, 550) == math.inf  # past the steps' early stop
    assert rounded_binomial(2**53 + 1, 1) == float(2**53 + 1)  # a tie, to the even 2^53
