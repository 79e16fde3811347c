"""The accountant's epsilon rule reads lower sides to the left of each eps (pld/reads/epsilon_width.py
``left_epsilon_width``): they certify epsilon widths where delta falls steeply, and never raise the
lower side at eps itself (delta at eps - d is larger than at eps).

Reference: one round of the Poisson-subsampled Gaussian in closed form at 50 digits (mpmath): with
P = (1 - q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2) and the loss L(x) = log(1 - q + q e^{(2x - 1) / (2 s^2)})
increasing in x, the remove direction is P(L > eps) - e^eps Q(L > eps), L > eps iff
x > s^2 log((e^eps - 1 + q) / q) + 1/2, and the add direction Q(L < -eps) - e^eps P(L < -eps), L < -eps iff
x < s^2 log((e^-eps - 1 + q) / q) + 1/2 (none once e^-eps <= 1 - q); delta is the larger.
"""

from __future__ import annotations

import mpmath
import numpy as np

from hockeystick import pld
from hockeystick.pld.reads.epsilon_width import left_epsilon_width

MP_DPS = 50
mpmath.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def subsampled_gaussian_delta(sigma: float, q: float, eps: float) -> float:
    s, q, eps = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(eps)
    x = s**2 * mpmath.log((mpmath.exp(eps) - 1 + q) / q) + mpmath.mpf(1) / 2
    remove = (
        (1 - q) * mpmath.ncdf(-x / s)
        + q * mpmath.ncdf(-(x - 1) / s)
        - mpmath.exp(eps) * mpmath.ncdf(-x / s)
    )
    add = mpmath.mpf(0)
    if mpmath.exp(-eps) > 1 - q:
        y = s**2 * mpmath.log((mpmath.exp(-eps) - 1 + q) / q) + mpmath.mpf(1) / 2
        add = mpmath.ncdf(y / s) - mpmath.exp(eps) * (
            (1 - q) * mpmath.ncdf(y / s) + q * mpmath.ncdf((y - 1) / s)
        )
    return float(max(remove, add))


def test_brackets_contain_the_exact_delta_down_to_the_floor():
    """Every bracket holds the exact delta, from 0.1 down to ~1e-10, where delta falls steeply: the lower
    sides of the left rows (delta at eps - 0.005 .. eps - 0.03, 0.3-1.6 % above it and more) are no lower
    bounds at eps; taken for the lower side there (as the right rows' are) they break it."""
    sigma, q = 0.5, 0.3
    eps = np.linspace(1.0, 13.0, 25)
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=1, accuracy=1e-2, delta_accuracy="epsilon"
    ).delta(eps, bound="both")
    exact = np.array([subsampled_gaussian_delta(sigma, q, e) for e in eps])
    steep = np.array([subsampled_gaussian_delta(sigma, q, e - 0.005) for e in eps]) / exact
    assert steep.max() > 1.01
    assert exact.min() < 1e-10
    assert np.all(lo <= exact) and np.all(exact <= up), np.nonzero((lo > exact) | (exact > up))
    # where delta is above the floor the brackets are tight
    assert np.all(lo[exact > 1e-8] > 0.5 * exact[exact > 1e-8])


def test_a_steep_point_refines_until_its_left_lower_side_certifies_the_width():
    """sigma 3.13, q 8.9e-4, 10^5 rounds at eps 0.5 (delta ~ 6e-10, halving every ~0.01 of eps): the
    refinement goes on past h = 1.6e-4 (bracket [2.8e-10, 1.3e-9], chord widths 0.39 and more) until its
    lower side at eps - 0.0099 lies above its upper side at eps."""
    kw = dict(
        sigma=3.1267,
        sampling_rate=8.8587e-4,
        rounds=100000,
        accuracy=1e-2,
        delta_accuracy="epsilon",
    )
    eps = 0.5
    lo, up = pld.SubsampledGaussianPLD(**kw).delta(eps, bound="both")
    left = eps - 0.0099
    lo_left = pld.SubsampledGaussianPLD(**kw).delta(left, bound="lower")
    assert up < 2.0 * lo
    assert left_epsilon_width(eps, up, left, lo_left) <= 1e-2


def test_edge_arguments_keep_their_brackets_and_the_width_rule_certifies_nothing_there():
    """eps = 0, a subnormal and 1e308 (its left arguments round back to it or floor at 0) beside ordinary
    ones, and q = 1 (the closed-form Gaussian, no refinement) in the same call: every bracket holds the
    exact delta; the width rule certifies nothing from a left argument equal to eps."""
    eps = np.array([0.0, 5e-324, 1.0, 8.0, 1e308])
    sigma, q = 0.5, np.array([[0.3], [1.0]])
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=1, accuracy=1e-2, delta_accuracy="epsilon"
    ).delta(eps, bound="both")
    # at 1e308 the closed form cancels beyond 50 digits; delta there is >= 0 and tiny, so the lower side must be 0
    exact = np.array(
        [[subsampled_gaussian_delta(sigma, qi, e) for e in eps[:-1]] for qi in (0.3, 1.0)]
    )
    assert np.all(lo[:, :-1] <= exact) and np.all(exact <= up[:, :-1]), (lo, exact, up)
    assert np.all(lo[:, -1] == 0.0) and np.all(up[:, -1] >= 0.0)
    assert left_epsilon_width(1e308, 1e-9, 1e308 - 0.0099, 1.0) == 1e308  # 1e308 - 0.0099 is 1e308
    assert left_epsilon_width(5e-324, 0.1, 0.0, 0.2) == 5e-324  # at most eps
    assert left_epsilon_width(0.0, 0.1, 0.0, 0.2) == 0.0
