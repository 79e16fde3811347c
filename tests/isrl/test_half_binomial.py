"""The clone sums' table of Bin(c, 1/2) CDFs gives scipy's value for every pair, to the bit, whatever the
table held before: on a first read, on a read back, and when a call's new pairs overflow the table and it is
rebuilt from that call's pairs; and it refuses a k outside [-1, c]."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from scipy import stats

from hockeystick.isrl.half_binomial import half_binomial_cdf


def _hex(values: np.ndarray) -> list[str]:
    return [float(v).hex() for v in values.ravel()]


def test_values_are_scipys_to_the_bit_on_first_read_and_read_back():
    rng = np.random.default_rng(7)
    c = np.arange(1500, 1900)
    for _ in range(3):
        k = np.minimum(rng.integers(-1, 1000, (40, c.size)), c)
        want = stats.binom.cdf(k, np.broadcast_to(c, k.shape), 0.5)
        for _ in range(2):  # the second call reads every pair back from the table
            got = half_binomial_cdf(k, c)
            assert got.shape == k.shape and got.flags.c_contiguous
            assert _hex(got) == _hex(want)


def test_small_trials_match_the_exact_binomial_sums():
    """scipy's values, read through the table, against the exact rational CDF (relative 1e-13)."""
    c = np.arange(0, 41)
    k = np.array([[kk if kk <= cc else cc for cc in c] for kk in range(-1, 41)])
    got = half_binomial_cdf(k, c)
    for (i, j), value in np.ndenumerate(got):
        n, x = int(c[j]), int(k[i, j])
        exact = Fraction(sum(comb(n, t) for t in range(x + 1)), 2**n)
        assert abs(Fraction(value) - exact) <= exact * Fraction(1, 10**13)


def test_a_call_past_the_capacity_rebuilds_the_table_from_its_own_pairs():
    """504 x 1040 pairs, 15 of them held before, with 200 held pairs of other trials: the held and the new
    pass the table's capacity (2^19) whatever it held, so the table is rebuilt from the call's pairs (its 15
    held values kept, the rest new) and a smaller call reads them back from it."""
    c = np.arange(4000, 4000 + 1040)
    k = c // 2 + np.arange(-252, 252)[:, None]  # around the mean: values far from 0 and 1
    want = stats.binom.cdf(k, np.broadcast_to(c, k.shape), 0.5)
    half_binomial_cdf(np.arange(200)[:, None], np.array([300]))  # pairs outside the call
    assert _hex(half_binomial_cdf(k[:3, :5], c[:5])) == _hex(want[:3, :5])
    assert _hex(half_binomial_cdf(k, c)) == _hex(want)
    assert _hex(half_binomial_cdf(k[:3, :5], c[:5])) == _hex(want[:3, :5])


@pytest.mark.parametrize("k, c", [(5, 3), (-2, 3)])
def test_a_point_outside_minus_one_to_c_is_refused(k, c):
    with pytest.raises(ValueError, match=r"k must lie in \[-1, c\]"):
        half_binomial_cdf(np.array([k]), np.array([c]))
