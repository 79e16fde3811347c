"""Q, log Q, Q^{-1} and the Mills ratio against 50-digit mpmath."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hockeystick as hs

from .. import reference


def test_gaussian_tail_relative_error_full_range():
    x = np.concatenate([np.linspace(-40, 38, 1201), [-1e-300, 0.0, 1e-300, 37.5, 38.4]])
    got = hs.gaussian_tail(x)
    worst = 0.0
    for xi, gi in zip(x, got):
        ref = reference.gaussian_tail(xi)
        if ref >= mp.mpf("1e-300"):
            worst = max(worst, float(abs(gi - ref) / ref))
    assert worst <= 1e-12, worst


def test_log_gaussian_tail_far_below_underflow():
    x = np.concatenate([np.linspace(-30, 40, 301), np.geomspace(40, 1e4, 200), [1e6]])
    got = hs.log_gaussian_tail(x)
    assert np.all(np.isfinite(got))
    with mp.workdps(60):
        for xi, gi in zip(x, got):
            ref = mp.log(mp.erfc(mp.mpf(xi) / mp.sqrt(2)) / 2)
            # 1e-10 absolute, or a few ulp of the value itself where |log Q| is huge
            assert abs(gi - ref) <= max(1e-10, 4e-16 * abs(ref)), (xi, gi, ref)


@pytest.mark.parametrize("p", [1e-300, 1e-100, 1e-20, 1e-5, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-12])
def test_gaussian_tail_inverse_round_trip(p):
    x = hs.gaussian_tail_inverse(p)
    assert abs(hs.gaussian_tail(x) - p) <= 1e-13 * p


def test_gaussian_tail_inverse_limits():
    assert hs.gaussian_tail_inverse(0.0) == np.inf
    assert hs.gaussian_tail_inverse(1.0) == -np.inf


def test_mills_ratio_against_mpmath():
    x = np.linspace(-37, 1e3, 500)
    got = hs.mills_ratio(x)
    with mp.workdps(50):
        for xi, gi in zip(x, got):
            xm = mp.mpf(xi)
            ref = mp.erfc(xm / mp.sqrt(2)) / 2 / (mp.exp(-(xm**2) / 2) / mp.sqrt(2 * mp.pi))
            assert abs(gi - ref) <= 1e-13 * ref, (xi, gi, ref)


@settings(max_examples=300, deadline=None)
@given(st.floats(-38, 38), st.floats(-38, 38))
def test_gaussian_tail_decreasing(a, b):
    lo, hi = min(a, b), max(a, b)
    assert hs.gaussian_tail(lo) >= hs.gaussian_tail(hi)


def test_bad_input():
    with pytest.raises(ValueError, match="x must not be NaN"):
        hs.gaussian_tail([0.0, np.nan])
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        hs.gaussian_tail_inverse(1.5)
    with pytest.raises(ValueError, match="x must be a real number"):
        hs.gaussian_tail("one")
