"""The default grid's Gaussian factors without half-cells (``subsampled_gaussians(halves=False)``,
``PlanProfile(half_cells=False)``): the optimistic side built from each cell's own integrals is
still a certified lower side (checked against 50-digit integrals and the Gaussian's closed form),
no tighter than the one from half-cells, and the pessimistic side is the same PMF."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.pld.accountants.composition_plan import CompositionPlan
from hockeystick.pld.accountants.plan import PlanProfile
from hockeystick.pld.mechanisms.constructors import subsampled_gaussians

H = 1e-3
EPSILONS = np.array([0.0, 0.25, 0.5, 1.0, 2.0])
mpmath.mp.dps = 50


def _exact_remove_delta(sigma: float, q: float, eps: float) -> float:
    """delta(eps) of the remove pair ((1-q) N(0, s^2) + q N(1, s^2), N(0, s^2)) at 50 digits:
    P(L > eps) terms in closed form, L(x) = log(1 - q + q e^{(x - 1/2)/s^2}) increasing in x."""
    s, q_, e = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(eps)
    # L(x) > eps  <=>  x > x_eps = s^2 log((e^eps - 1 + q) / q) + 1/2
    x = s**2 * mpmath.log((mpmath.e**e - 1 + q_) / q_) + mpmath.mpf(1) / 2

    def tail(z):  # P(N(0, 1) > z)
        return mpmath.erfc(z / mpmath.sqrt(2)) / 2

    p_above = (1 - q_) * tail(x / s) + q_ * tail((x - 1) / s)
    q_above = tail(x / s)
    return float(p_above - mpmath.e**e * q_above)


def _sides(sigma: float, q: float, halves: bool):
    pld = subsampled_gaussians([sigma], [q], value_discretization_interval=H, halves=halves)[0]
    lower, upper = pld.composed(False)[0], pld.composed(True)[0]
    return lower, upper


@pytest.mark.parametrize("sigma, q", [(0.8, 0.1), (1.5, 0.02), (1.0, 1.0)])
def test_without_halves_the_lower_side_is_certified_and_no_tighter(sigma, q):
    low_plain, up_plain = _sides(sigma, q, halves=False)
    low_halves, up_halves = _sides(sigma, q, halves=True)
    # the pessimistic side does not read the halves: the same masses
    np.testing.assert_array_equal(up_plain.p, up_halves.p)
    assert up_plain.k_lo == up_halves.k_lo
    plain = low_plain.delta(EPSILONS)
    halved = low_halves.delta(EPSILONS)
    upper = up_plain.delta(EPSILONS)
    for e, lo, lo_h, up in zip(EPSILONS, plain, halved, upper, strict=True):
        exact = _exact_remove_delta(sigma, q, float(e))
        assert lo <= exact <= up, (e, lo, exact, up)
        assert lo <= lo_h * (1.0 + 1e-12), (e, lo, lo_h)
        # still a close lower side: at most a few times the half-cells' gap from the truth
        assert exact - lo <= 4.0 * (exact - lo_h) + 1e-12, (e, exact, lo, lo_h)


def test_the_gaussian_closed_form_bounds_both_sides_without_halves():
    """q = 1: delta(eps) = Q(eps / r - r / 2) - e^eps Q(eps / r + r / 2), r = 1 / sigma."""
    sigma = 1.3
    low, up = _sides(sigma, 1.0, halves=False)
    r = mpmath.mpf(1) / sigma
    for e in EPSILONS:
        eps = mpmath.mpf(float(e))
        exact = float(
            mpmath.erfc((eps / r - r / 2) / mpmath.sqrt(2)) / 2
            - mpmath.e**eps * mpmath.erfc((eps / r + r / 2) / mpmath.sqrt(2)) / 2
        )
        assert float(low.delta(np.array([e]))[0]) <= exact <= float(up.delta(np.array([e]))[0])


def test_a_profile_without_half_cells_brackets_the_same_run_no_tighter():
    """A plan of Poisson-subsampled Gaussians and a folded Gaussian on one grid: the profile without
    half-cells has the same upper side and a lower side at most the one with them, both brackets
    holding the same composition (each lower side below the other's upper side)."""
    plan = CompositionPlan({("poisson_gaussian", 1.2, 0.05): 4})
    plan.add_gaussian(1.0 / 3.0, 1)
    with_halves = PlanProfile(plan, H, None).epsilon(1e-5)
    without = PlanProfile(plan, H, None, half_cells=False).epsilon(1e-5)
    assert without[1] == with_halves[1]
    assert without[0] <= with_halves[0] <= without[1]
    assert math.isfinite(without[0]) and without[0] > 0.0
