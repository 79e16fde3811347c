"""poisson_subsampled_rdp: Zhu & Wang 2019's general bound and convexity, against 50 digits and against the truth."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.rdp import (
    gaussian_rdp,
    poisson_subsampled_rdp,
    poisson_subsampled_remove_rdp,
    subsampled_gaussian_rdp,
)

ORDERS = np.arange(2.0, 65.0)


def _reference(curve: np.ndarray, orders: np.ndarray, q: float) -> list[mpmath.mpf]:
    """min(Zhu & Wang's general bound, convexity) at 50 digits, the curve's values taken as exact."""
    out = []
    with mpmath.workdps(50):
        q_ = mpmath.mpf(q)
        eps = {int(a): mpmath.mpf(float(e)) for a, e in zip(orders, curve, strict=True)}
        for a in (int(x) for x in orders):
            convex = mpmath.log(1 - q_ + q_ * mpmath.exp((a - 1) * eps[a])) / (a - 1)
            total = (1 - q_) ** (a - 1) * (a * q_ - q_ + 1) + mpmath.binomial(a, 2) * q_**2 * (
                1 - q_
            ) ** (a - 2) * mpmath.exp(eps[2])
            total += 3 * mpmath.fsum(
                mpmath.binomial(a, k) * (1 - q_) ** (a - k) * q_**k * mpmath.exp((k - 1) * eps[k])
                for k in range(3, a + 1)
            )
            out.append(min(convex, mpmath.log(total) / (a - 1)))
    return out


@pytest.mark.parametrize("q", [1e-4, 0.01, 0.3, 0.9])
@pytest.mark.parametrize("sigma", [0.6, 2.0])
def test_the_bound_is_its_formula_at_50_digits_rounded_up(q, sigma):
    curve = gaussian_rdp(sigma, ORDERS)
    ours = poisson_subsampled_rdp(curve, ORDERS, q)
    for value, exact in zip(ours, _reference(curve, ORDERS, q), strict=True):
        # the charged rounding is 8u times the log terms' parts (up to ~600 here): within 1e-10 relative
        assert float(exact) <= value <= float(exact) * (1 + 1e-10) + 1e-300


@pytest.mark.parametrize("q", [1e-5, 1e-3, 0.02, 0.1, 0.5, 0.8, 0.99])
@pytest.mark.parametrize("sigma", [0.4, 0.8, 1.0, 2.0, 5.0, 20.0])
def test_never_below_the_exact_subsampled_gaussian(q, sigma):
    orders = np.arange(2.0, 257.0)
    ours = poisson_subsampled_rdp(gaussian_rdp(sigma, orders), orders, q)
    exact = subsampled_gaussian_rdp(sigma, q, orders)
    assert (ours >= exact).all()
    # at order 2 Zhu & Wang's bound is the Gaussian's exact A_2 = 1 - q^2 + q^2 e^{1/sigma^2}: the bound is used, not the
    # convexity one
    assert ours[0] <= exact[0] * (1 + 1e-9) + 1e-300


def _dg_log_masses(shift: int, s: float) -> tuple[np.ndarray, np.ndarray]:
    """log N_Z(shift, s^2) and log N_Z(0, s^2) on a window holding all but e^-90 of each."""
    half = int(14 * s) + shift + 2
    x = np.arange(-half, half + 1, dtype=float)
    log_z = float(np.logaddexp.reduce(-np.square(x) / (2 * s * s)))
    return -np.square(x - shift) / (2 * s * s) - log_z, -np.square(x) / (2 * s * s) - log_z


@pytest.mark.parametrize(("shift", "s", "q"), [(1, 0.8, 0.2), (2, 1.5, 0.05), (1, 0.5, 0.6)])
def test_above_both_directions_of_a_real_subsampled_pair(shift, s, q):
    # the discrete Gaussian's RDP at an integer shift is exactly alpha shift^2 / (2 s^2) (both directions);
    # the subsampled pair is A = q P + (1 - q) Q against Q, both D(A || Q) and D(Q || A) summed directly
    log_p, log_base = _dg_log_masses(shift, s)
    log_mix = np.logaddexp(math.log(q) + log_p, math.log1p(-q) + log_base)
    orders = np.arange(2.0, 41.0)
    ours = poisson_subsampled_rdp(orders * shift**2 / (2 * s * s), orders, q)
    for i, a in enumerate(orders):
        forward = float(np.logaddexp.reduce(a * log_mix + (1 - a) * log_base)) / (a - 1)
        backward = float(np.logaddexp.reduce(a * log_base + (1 - a) * log_mix)) / (a - 1)
        assert max(forward, backward) * (1 - 1e-9) <= ours[i]


def test_rate_one_is_the_base_curve_and_rate_zero_is_zero():
    orders = np.array([1.5, 2.0, 3.0, 4.0, 7.5, 100.0])
    curve = np.array([0.1, 0.2, 0.3, 0.45, 0.9, 12.0])
    at_one = poisson_subsampled_rdp(curve, orders, 1.0)
    assert (at_one >= curve).all() and (at_one <= curve * (1 + 1e-12)).all()
    assert (poisson_subsampled_rdp(curve, orders, 0.0) == 0.0).all()


def test_orders_without_the_integer_chain_take_the_convexity_bound():
    # 512 and 1024 have no chain 2 .. alpha among the orders: there only log(1 - q + q e^{(a-1) eps}) / (a-1)
    orders = np.array([2.0, 3.0, 512.0, 1024.0])
    curve = gaussian_rdp(3.0, orders)
    q = 0.01
    ours = poisson_subsampled_rdp(curve, orders, q)
    with mpmath.workdps(50):
        for i in (2, 3):
            a = int(orders[i])
            convex = mpmath.log1p(q * mpmath.expm1((a - 1) * mpmath.mpf(float(curve[i])))) / (a - 1)
            assert float(convex) <= ours[i] <= float(convex) * (1 + 1e-12)


def test_broadcasts_over_leading_axes():
    curves = np.stack([gaussian_rdp(s, ORDERS) for s in (0.7, 1.0, 3.0)])
    together = poisson_subsampled_rdp(curves, ORDERS, 0.05)
    for row, curve in zip(together, curves, strict=True):
        np.testing.assert_allclose(row, poisson_subsampled_rdp(curve, ORDERS, 0.05), rtol=1e-14)


@pytest.mark.parametrize(
    ("rdp", "orders", "rate", "match"),
    [
        ([0.1, 0.2], [2.0, 3.0], 1.5, "sampling_rate"),
        ([0.1, 0.2], [2.0, 3.0], -0.1, "sampling_rate"),
        ([0.1, 0.2, 0.3], [2.0, 3.0], 0.1, "last axis"),
        ([0.1, -0.2], [2.0, 3.0], 0.1, "rdp values"),
        ([0.1, math.inf], [2.0, 3.0], 0.1, "rdp values"),
        ([0.1, 0.2], [1.0, 3.0], 0.1, "orders must be > 1"),
    ],
)
def test_refusals_name_the_argument(rdp, orders, rate, match):
    with pytest.raises(ValueError, match=match):
        poisson_subsampled_rdp(rdp, orders, rate)


@pytest.mark.parametrize("q", [1e-5, 1e-3, 0.02, 0.5, 0.99, 1.0])
@pytest.mark.parametrize("sigma", [0.5, 1.0, 5.0])
def test_the_remove_direction_is_the_exact_subsampled_gaussian_from_the_gaussian_curve(q, sigma):
    """The binomial expansion is exact in the inner's divergences: from the Gaussian's l / (2 sigma^2) it is the
    Poisson-subsampled Gaussian's remove direction (Mironov, Talwar & Zhang 2019, exact at integer orders), rounded
    up, and never below it."""
    orders = np.arange(2.0, 65.0)
    ours = poisson_subsampled_remove_rdp(gaussian_rdp(sigma, orders), q)
    exact = subsampled_gaussian_rdp(sigma, q, orders)
    assert (ours >= exact).all()
    assert (ours <= exact * (1 + 1e-10) + 1e-300).all()
