"""Paper 001's formulas as printed, each against an independent evaluation (mpmath closed forms,
Monte Carlo for the sampling variance, brute force for the feasible rates), and the exact TV
calibration against tv_exact."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from hockeystick import leakage

MP_DPS = 30
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


@pytest.mark.parametrize(
    "var, eps, d", [(1.0, 1e-4, 1), (2.0, 0.3, 9), (0.5, 3.0, 100), (1.0, 0.0, 4)]
)
def test_tv_bracket_is_lemma_5_7(var, eps, d):
    x = mp.mpf(eps) * mp.sqrt(d) / mp.mpf(var)
    lower, upper = leakage.tv_bracket(var, eps, d)
    assert lower == pytest.approx(float(min(1, x) / 100), rel=1e-15, abs=0)
    assert upper == pytest.approx(float(min(1, x) * mp.mpf(3) / 2), rel=1e-15, abs=0)


def test_tv_bracket_broadcasts():
    lower, upper = leakage.tv_bracket(1.0, np.array([0.01, 0.1, 1.0]), np.array([[1], [400]]))
    assert lower.shape == upper.shape == (2, 3)
    np.testing.assert_allclose(upper, 150 * lower, rtol=1e-15)


@pytest.mark.parametrize("xi", [0.0, 1e-12, 1e-5, 0.1, 1.0, 5.0])
def test_c2_and_lemma_b3_bound(xi):
    c2 = (mp.exp(2 * mp.mpf(xi)) - 1) / 2
    assert leakage.c2_constant(xi) == pytest.approx(float(c2), rel=1e-15, abs=0)
    assert leakage.js_bound_from_tv(xi, 0.3) == pytest.approx(
        float(c2 * mp.mpf(0.3)), rel=1e-15, abs=0
    )
    assert leakage.lemma_b1_lower_bound(0.9, xi, 0.01) == pytest.approx(
        float(mp.mpf(0.9) - c2 * mp.mpf(0.01)), rel=1e-14
    )


def test_lemma_5_5_enforces_its_assumption():
    assert leakage.lemma_5_5_upper_bound(0.5, 0.1, 0.2) == pytest.approx(
        float(2 * mp.mpf(0.5) - (mp.exp(mp.mpf(0.2)) - 1) / 2 * mp.mpf(0.2)), rel=1e-14
    )
    with pytest.raises(ValueError, match="assumes C_2 tv <= c1"):
        leakage.lemma_5_5_upper_bound(0.01, 2.0, 0.5)
    with pytest.raises(ValueError, match="tv must lie in"):
        leakage.js_bound_from_tv(1.0, 1.5)


def test_lemma_5_8_calibration_meets_the_bracket_with_equality():
    """eq. 36: the prescribed variance puts Lemma 5.7's lower bound exactly at C_1 - tau."""
    var, d = np.array([0.5, 2.0]), np.array([[1], [64]])
    c1, tau = 0.4, 0.395
    eps = leakage.paper_distortion_variance(var, d, c1, tau)
    assert np.allclose(eps, 100 * var * (c1 - tau) / np.sqrt(d), rtol=1e-15)
    lower, _ = leakage.tv_bracket(var, eps, d)
    np.testing.assert_allclose(lower, c1 - tau, rtol=1e-13)
    assert leakage.paper_required_tv(c1, tau) == pytest.approx(0.005, rel=1e-12)


@pytest.mark.parametrize("c1, tau", [(0.5, 0.5), (0.5, 0.6), (0.5, 0.49), (0.5, 0.3)])
def test_lemma_5_8_refuses_outside_its_range(c1, tau):
    with pytest.raises(ValueError, match=r"0 < c1 - tau < 0.01"):
        leakage.paper_distortion_variance(1.0, 10, c1, tau)


def test_sampling_variance_is_the_variance_of_the_poisson_sampled_gradient_sum():
    """Thm 5.10 (eq. 17) against Monte Carlo: trace Cov[sum_i g_i B_i], B_i ~ Bernoulli(p)."""
    rng = np.random.default_rng(7)
    grads = rng.normal(size=(30, 4))
    p = 0.3
    draws = (rng.random((40_000, 30)) < p).astype(float) @ grads
    empirical = np.trace(np.cov(draws.T))
    formula = leakage.sampling_variance(p, np.sum(grads**2))
    assert formula == pytest.approx(p * (1 - p) * float(np.sum(grads**2)), rel=1e-14)
    assert empirical == pytest.approx(formula, rel=0.03)


def test_thm_5_11_rates_are_the_solutions_of_eq_18():
    c6, c1, tau, g = 2.0, 0.3, 0.1, np.array([5.0, 40.0])
    low, high = leakage.thm_5_11_sampling_rates(c6, c1, tau, g)
    r = c6 * (c1 - tau) / g
    for lo, hi, rr in zip(low, high, r):
        with mp.workdps(50):  # p^2 - p + r = 0 by the quadratic formula at 50 digits
            half = mp.sqrt(1 - 4 * mp.mpf(rr)) / 2
            roots = [float(mp.mpf(1) / 2 - half), float(mp.mpf(1) / 2 + half)]
        assert lo == pytest.approx(roots[0], rel=1e-14) and hi == pytest.approx(roots[1], rel=1e-14)
        grid = np.linspace(0, 1, 2001)
        inside = grid * (1 - grid) >= rr
        assert np.all((grid[inside] >= lo - 1e-12) & (grid[inside] <= hi + 1e-12))
    with pytest.raises(ValueError, match="no sampling rate satisfies eq. 18"):
        leakage.thm_5_11_sampling_rates(10.0, 0.5, 0.0, 1.0)


def test_eq_20_rates():
    low, high = leakage.eq_20_sampling_rates(0.5, 10.0)
    assert low * (1 - low) * 10.0 == pytest.approx(0.5, rel=1e-13) and high == pytest.approx(
        1 - low, rel=1e-15
    )
    assert leakage.eq_20_sampling_rates(5.0, 10.0) == (0.5, 0.5)  # every p meets eq. 20


def test_tradeoff_formulas():
    gamma, delta, xi, c1, c6 = 3.0, 0.2, 0.4, 0.25, 1.7
    c2 = (mp.exp(2 * mp.mpf(xi)) - 1) / 2
    cd = mp.mpf(gamma) * (mp.exp(2 * mp.mpf(xi)) - 1) / (4 * mp.mpf(delta))
    assert leakage.nfl_constant(gamma, delta, xi) == pytest.approx(float(cd), rel=1e-14)
    assert leakage.nfl_privacy_floor(c1, float(cd), 0.01) == pytest.approx(
        float(c1 - cd * mp.mpf(0.01)), rel=1e-14
    )
    assert leakage.thm_5_12_upper_bound(c1, xi, c6, 0.05) == pytest.approx(
        float(2 * mp.mpf(c1) - c2 / mp.mpf(c6) * mp.mpf(0.05)), rel=1e-14
    )
    # Thm 5.14: at its variance the upper bound of Thm 5.12 equals the NFL's C_1
    v = leakage.thm_5_14_optimal_variance(c1, xi, c6)
    assert v == pytest.approx(float(mp.mpf(c1) * c6 / c2), rel=1e-14)
    assert leakage.thm_5_12_upper_bound(c1, xi, c6, v) == pytest.approx(c1, rel=1e-14)
    with pytest.raises(ValueError, match=r"gamma must lie in \[1/150, 150\]"):
        leakage.nfl_constant(200.0, 1.0, 0.1)


@pytest.mark.parametrize("d", [1, 3, 50, 10_000])
def test_exact_calibration_meets_the_target(d):
    targets = np.array([1e-7, 1e-3, 0.05, 0.3, 0.9, 0.9999])
    eps = leakage.distortion_variance_for_tv(2.5, d, targets)
    np.testing.assert_allclose(leakage.tv_exact(2.5, eps, d), targets, rtol=1e-12)
    assert np.all(leakage.tv_exact(2.5, eps * (1 - 1e-6), d) < targets)  # smallest such variance


def test_paper_calibration_overshoots_the_exact_one():
    """Lemma 5.8's variance reaches at least C_1 - tau (the bracket's lower side holds) but is far
    larger than needed: the exact variance for the same TV target is smaller."""
    d = np.array([1, 10, 1000])
    eps_paper = leakage.paper_distortion_variance(1.0, d, 0.3, 0.295)
    eps_exact = leakage.distortion_variance_for_tv(1.0, d, 0.005)
    assert np.all(leakage.tv_exact(1.0, eps_paper, d) >= 0.005)
    assert np.all(eps_paper > 10 * eps_exact)


def test_calibration_refuses_bad_targets():
    for bad in (0.0, 1.0, -0.1, np.nan):
        with pytest.raises(ValueError, match="target_tv"):
            leakage.distortion_variance_for_tv(1.0, 3, bad)
