"""theta(r, eps) = E_{e^eps}(N(r,1) || N(0,1)) against 50-digit mpmath, its limits and shape."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hockeystick as hs

from .. import reference

TINY = mp.mpf("1e-300")


def _grid(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random (r, eps) with r log-uniform in [1e-8, 1e4], eps 0 or log-uniform in [1e-8, 1e4]."""
    rng = np.random.default_rng(seed)
    r = 10.0 ** rng.uniform(-8, 4, n)
    eps = 10.0 ** rng.uniform(-8, 4, n)
    eps[: n // 20] = 0.0
    return r, eps


def _hard_points() -> tuple[np.ndarray, np.ndarray]:
    """Where the naive formula cancels: small r, eps/r >> r, delta far below 1e-16."""
    pts = []
    for r in (1e-8, 1e-6, 1e-4, 1e-2, 0.1, 0.5):
        for k in (0.0, 0.3, 1.0, 3.0, 10.0, 30.0, 37.0):
            pts.append((r, k * r))  # x1 ~ k: theta ~ r phi(k), relative cancellation ~ 1/r
    for eps in (50.0, 200.0, 700.0, 710.0, 1000.0, 5000.0, 1e4):
        for r in (1.0, 5.0, 30.0, math.sqrt(2 * eps), 2 * math.sqrt(2 * eps)):
            pts.append((r, eps))
    r, e = np.array(pts).T
    return r, e


def _worst_relative(r: np.ndarray, eps: np.ndarray) -> tuple[float, int]:
    got = hs.theta(r, eps)
    worst, counted = 0.0, 0
    for ri, ei, gi in zip(r, eps, got):
        ref = reference.theta(ri, ei)
        if ref >= TINY:
            counted += 1
            worst = max(worst, float(abs(gi - ref) / ref))
    return worst, counted


def test_theta_random_points_relative_error():
    worst, counted = _worst_relative(*_grid(1500, seed=1))
    assert counted > 400
    assert worst <= 1e-12, worst


def test_theta_hard_points_relative_error():
    worst, counted = _worst_relative(*_hard_points())
    assert counted > 50
    assert worst <= 1e-12, worst


def test_log_theta_where_theta_underflows():
    r, eps = _grid(1500, seed=2)
    got = hs.log_theta(r, eps)
    checked = 0
    for ri, ei, gi in zip(r, eps, got):
        ref_theta = reference.theta(ri, ei)
        if ref_theta == 0:
            continue
        ref = mp.log(ref_theta)
        if ref < -1e6:
            continue
        checked += 1
        assert math.isfinite(gi)
        assert abs(gi - ref) <= 1e-10, (ri, ei, gi, ref)
    assert checked > 1000


@pytest.mark.parametrize("log10_r", [-8.0, -6.0, -4.0])
def test_log_theta_near_minus_one_million(log10_r):
    # x1 = eps/r - r/2 ~ 1414 gives log theta ~ -1e6, where one ulp is 1.16e-10
    r = 10.0**log10_r
    eps = r * 1414.0
    ref = mp.log(reference.theta(r, eps))
    assert -1.1e6 < ref < -0.9e6
    assert abs(hs.log_theta(r, eps) - ref) <= 1e-10


def test_log_theta_matches_log_of_theta():
    r, eps = _grid(2000, seed=3)
    t = hs.theta(r, eps)
    keep = t > 1e-300
    assert np.allclose(hs.log_theta(r, eps)[keep], np.log(t[keep]), rtol=0, atol=1e-12)


def test_gdp_check_value_from_paper_004():
    # 004 eq. 8 with mu = 1, eps = 1: 0.126937 (printed to 6 digits)
    assert hs.theta(1.0, 1.0) == pytest.approx(0.126937, abs=5e-7)


def test_limits():
    assert hs.theta(0.0, 1.0) == 0.0
    assert hs.theta(np.inf, 3.0) == 1.0
    assert hs.theta(2.0, np.inf) == 0.0
    assert hs.log_theta(0.0, 1.0) == -np.inf
    # theta(r, 0) = 1 - 2 Q(r/2) = erf(r / (2 sqrt 2))
    r = np.geomspace(1e-8, 50, 50)
    assert np.allclose(
        hs.theta(r, 0.0), [math.erf(x / (2 * math.sqrt(2))) for x in r], rtol=1e-14, atol=0
    )


def test_derivative_in_epsilon_matches_finite_difference():
    for r, eps in [(0.5, 0.1), (1.0, 1.0), (3.0, 2.0), (10.0, 40.0)]:
        h = 1e-6 * max(eps, 1.0)
        fd = (hs.theta(r, eps + h) - hs.theta(r, eps - h)) / (2 * h)
        assert hs.theta_depsilon(r, eps) == pytest.approx(fd, rel=1e-7)


@settings(max_examples=400, deadline=None)
@given(st.floats(1e-6, 1e3), st.floats(1e-6, 1e3), st.floats(0, 1e3))
def test_theta_increasing_in_r(r1, r2, eps):
    lo, hi = min(r1, r2), max(r1, r2)
    assert hs.theta(lo, eps) <= hs.theta(hi, eps) * (1 + 1e-14)


@settings(max_examples=400, deadline=None)
@given(st.floats(1e-6, 1e3), st.floats(0, 1e3), st.floats(0, 1e3))
def test_theta_decreasing_in_epsilon(r, e1, e2):
    lo, hi = min(e1, e2), max(e1, e2)
    assert hs.theta(r, lo) * (1 + 1e-14) >= hs.theta(r, hi)


@settings(max_examples=300, deadline=None)
@given(st.floats(1e-3, 1e2), st.floats(-30, -1e-3))
def test_theta_epsilon_round_trip(r, log10_delta):
    delta = 10.0**log10_delta
    eps = hs.theta_epsilon(r, delta)
    if eps == 0.0:
        assert hs.theta(r, 0.0) <= delta
    else:
        assert hs.theta(r, eps) <= delta  # the safe side: eps is never too small
        assert hs.theta(r, eps) == pytest.approx(delta, rel=1e-10)


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 1e3), st.floats(-30, -1e-3))
def test_theta_radius_round_trip(eps, log10_delta):
    delta = 10.0**log10_delta
    r = hs.theta_radius(eps, delta)
    assert hs.theta(r, eps) <= delta  # the safe side: the calibrated noise is never too small
    assert hs.theta(r, eps) == pytest.approx(delta, rel=1e-10)


def test_calibration_round_trip_on_arrays():
    eps = np.array([[0.1], [1.0], [8.0]])
    delta = np.array([1e-3, 1e-5, 1e-9])
    r = hs.theta_radius(eps, delta)
    assert r.shape == (3, 3)
    assert np.allclose(hs.theta_epsilon(r, delta), np.broadcast_to(eps, (3, 3)), rtol=1e-10)


def test_broadcasting_and_scalars():
    assert isinstance(hs.theta(1.0, 1.0), float)
    out = hs.theta(np.ones((2, 1, 3)), np.linspace(0, 1, 4)[:, None])
    assert out.shape == (2, 4, 3)
    assert hs.theta([1.0, 2.0], 1.0).shape == (2,)
    # non-contiguous input
    r = np.linspace(0.1, 5, 20)[::2]
    assert np.array_equal(hs.theta(r, 0.5), hs.theta(r.copy(), 0.5))


def test_threads_give_identical_results():
    r, eps = _grid(200_000, seed=4)
    assert np.array_equal(hs.theta(r, eps, threads=1), hs.theta(r, eps, threads=2))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: hs.theta(-1.0, 1.0), "r must be >= 0"),
        (lambda: hs.theta(1.0, -0.5), "epsilon must be >= 0"),
        (lambda: hs.theta([1.0, np.nan], 1.0), "r must not be NaN"),
        (lambda: hs.theta(np.inf, np.inf), "cannot both be infinite"),
        (lambda: hs.theta(np.ones(3), np.ones(4)), "shapes do not broadcast"),
        (lambda: hs.theta_epsilon(1.0, 0.0), "delta must lie strictly between 0 and 1"),
        (lambda: hs.theta_epsilon(1.0, 1.0), "delta must lie strictly between 0 and 1"),
        (lambda: hs.theta_radius(-1.0, 1e-5), "epsilon must be >= 0"),
        (lambda: hs.theta(1.0, 1.0, threads=0), "threads must be a positive integer"),
        (lambda: hs.laplace_hockey_stick(1.0, 0.0, 1.0), "scale must be > 0"),
    ],
)
def test_bad_input_names_argument_and_rule(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_error_reports_offending_index():
    with pytest.raises(ValueError, match="flat index 2"):
        hs.theta([1.0, 2.0, -3.0], 1.0)


@pytest.mark.parametrize(
    "distance, scale, eps", [(1.0, 1.0, 0.0), (2.0, 0.5, 1.0), (3.0, 1.0, 2.9), (0.5, 2.0, 0.1)]
)
def test_laplace_matches_numerical_integral(distance, scale, eps):
    ref = reference.laplace_hockey_stick(distance, scale, eps)
    assert hs.laplace_hockey_stick(distance, scale, eps) == pytest.approx(float(ref), rel=1e-10)


def test_laplace_zero_beyond_distance_over_scale():
    assert hs.laplace_hockey_stick(1.0, 1.0, 1.0) == 0.0
    assert hs.laplace_hockey_stick(1.0, 1.0, 5.0) == 0.0
    assert hs.laplace_hockey_stick(np.inf, 1.0, 5.0) == 1.0


@pytest.mark.parametrize(
    "r, eps, expected",
    [
        (1e155, 1.0, 1.0),
        (1e-155, 1.0, 0.0),
        (1.0, 1e155, 0.0),
        (1e300, 1e-300, 1.0),
        (1e-300, 1e300, 0.0),
        (1e308, 0.0, 1.0),
        (5e-324, 1.0, 0.0),
        (1e154, 1e154, 1.0),
    ],
)
def test_extreme_valid_inputs_give_the_limit(r, eps, expected):
    # |eps/r -/+ r/2| beyond 1e150: theta is 0 or 1 to double precision, never an error
    assert hs.theta(r, eps) == expected
    assert hs.log_theta(r, eps) == (0.0 if expected == 1.0 else -np.inf)
    assert hs.theta_depsilon(r, eps) <= 0.0


def test_inverses_on_the_safe_side_where_theta_is_steep():
    # near delta = 1e-300 one ulp of r moves theta by ~1400 ulp: the answer must still satisfy theta <= delta
    rng = np.random.default_rng(7)
    eps = 10.0 ** rng.uniform(-8, 3, 5000)
    delta = 10.0 ** rng.uniform(-300, -0.01, 5000)
    assert np.all(hs.theta(hs.theta_radius(eps, delta), eps) <= delta)
    r = 10.0 ** rng.uniform(-3, 3, 5000)
    assert np.all(hs.theta(r, hs.theta_epsilon(r, delta)) <= delta)
    e, d = 2.375244889027305e-06, 2.591660729107911e-299  # found unsafe by review, +2.4e-12
    assert hs.theta(hs.theta_radius(e, d), e) <= d


def test_huge_thread_count_is_capped_not_fatal():
    assert hs.theta(1.0, 1.0, threads=10**9) == hs.theta(1.0, 1.0)
