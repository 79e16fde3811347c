"""The folded Gaussian read in closed form beside a grid part (pld/accountants/plan_gaussian_beside.py):
each side against a 40-digit mpmath reference of the same composition, the grid path's bracket
containing it, and the gate."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as E  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant  # noqa: E402
from hockeystick.pld.accountants import plan as plan_module  # noqa: E402
from hockeystick.pld.accountants.plan_gaussian_beside import (  # noqa: E402
    beside_pays,
    grid_beside_gaussian,
)
from hockeystick.pld.grid.pmf import GridPMF  # noqa: E402

mp.mp.dps = 25


def _gaussian_delta(r: mp.mpf, t: mp.mpf) -> mp.mpf:
    """delta of the Gaussian pair of radius r at any real t (closed form, Balle & Wang 2018)."""
    return mp.ncdf(-t / r + r / 2) - mp.exp(t) * mp.ncdf(-t / r - r / 2)


def _laplace_beside_gaussian(b: float, q: float, r: float, eps: float, add: bool) -> mp.mpf:
    """delta(eps) of a Laplace(b) run (Poisson-sampled at q: remove direction, or add where ``add``)
    beside a Gaussian of radius r: E_P[delta_G(eps - L)] at 25 digits (the quadrature's error estimate
    returned beside it).

    Off [0, 1] the loss is constant: there the mixture is the unshifted Laplace times
    rho = 1 - q + q e^{-+1/b} (x < 0: -, x > 1: +), whose masses are 1/2 and e^{-1/b}/2, so those
    two pieces are closed forms; the quadrature covers [0, 1], where the loss is linear in x."""
    b, q, r, eps = mp.mpf(b), mp.mpf(q), mp.mpf(r), mp.mpf(eps)

    def lap(x, m):
        return mp.exp(-abs(x - m) / b) / (2 * b)

    def integrand(x):
        p_mix, q0 = (1 - q) * lap(x, 0) + q * lap(x, 1), lap(x, 0)
        p, o = (q0, p_mix) if add else (p_mix, q0)
        return p * _gaussian_delta(r, eps - mp.log(p / o))

    inner, err = mp.quad(integrand, [0, 1], error=True)
    outer = mp.mpf(0)
    for mass, rho in (
        (1 / mp.mpf(2), 1 - q + q * mp.exp(-1 / b)),
        (mp.exp(-1 / b) / 2, 1 - q + q * mp.exp(1 / b)),
    ):
        if add:  # P the unshifted Laplace: its loss there is -log(rho)
            outer += mass * _gaussian_delta(r, eps + mp.log(rho))
        else:  # P the mixture, rho times the unshifted Laplace: its loss there is log(rho)
            outer += mass * rho * _gaussian_delta(r, eps - mp.log(rho))
    return inner + outer, err


def _two_sides(event) -> tuple[HockeystickPLDAccountant, tuple[float, float]]:
    acc = HockeystickPLDAccountant().compose(event)
    return acc, acc.get_epsilon_bracket(1e-6)


@pytest.mark.parametrize(
    "b, q, sigma, count",
    [
        (2.9707526428698157, 1.0, 1.004782385054106, 3),  # a Laplace beside three Gaussians
        (1.4332848112667826, 0.06326753463945113, 2.6904018316835003, 28),  # a sampled Laplace
    ],
)
def test_epsilon_bracket_holds_the_reference(b, q, sigma, count):
    inner = E.LaplaceDpEvent(b)
    leaf = inner if q == 1.0 else E.PoissonSampledDpEvent(q, inner)
    event = E.ComposedDpEvent([leaf, E.SelfComposedDpEvent(E.GaussianDpEvent(sigma), count)])
    acc, (lower, upper) = _two_sides(event)
    r = math.sqrt(count) / sigma
    directions = (False,) if q == 1.0 else (False, True)

    def truth(e):
        values = [_laplace_beside_gaussian(b, q, r, e, add) for add in directions]
        assert all(err < 1e-15 * v for v, err in values)  # the quadrature's own error estimate
        return max(v for v, _ in values)

    # delta(eps) decreases: the true epsilon at 1e-6 lies in [lower, upper] iff these hold
    assert truth(lower) >= 1e-6 >= truth(upper)
    assert upper - lower < 1e-6  # the Laplace's grid alone limits it
    # delta at an epsilon below the answer: the bracket holds the reference too
    lo, up = acc.get_delta_bracket(lower - 0.01)
    ref = truth(lower - 0.01)
    assert lo <= ref <= up and up - lo < 1e-3 * ref


def test_never_wider_than_the_gaussian_on_the_grid(monkeypatch):
    """The same plan with the Gaussian on the grid (the gate shut): its bracket holds the closed
    form's, both certified."""
    event = E.ComposedDpEvent(
        [E.LaplaceDpEvent(2.9707526428698157), E.SelfComposedDpEvent(E.GaussianDpEvent(1.0048), 3)]
    )
    beside = _two_sides(event)[1]
    monkeypatch.setattr(plan_module, "reads_beside", lambda factors, radius2, h: False)
    on_grid = _two_sides(event)[1]
    assert on_grid[0] <= beside[0] <= beside[1] <= on_grid[1]
    assert beside[1] - beside[0] < on_grid[1] - on_grid[0]


def test_side_of_a_few_atoms_against_the_reference():
    """A three-atom grid PMF with mass at +infinity beside a Gaussian: each side within a few ulps
    of sum_k p_k delta_G(eps - l_k) + p_inf, on its safe side, at negative and positive eps."""
    pmf = GridPMF(k_lo=-3, h=0.25, p=np.array([0.2, 0.5, 0.29]), p_inf=0.01)
    r = 1.3
    eps = np.array([-2.0, -0.3, 0.0, 0.4, 1.7, 6.0])
    up = grid_beside_gaussian(pmf, r, True)(eps)
    lo = grid_beside_gaussian(pmf, r, False)(eps)
    for e, u, v in zip(eps, up, lo):
        ref = sum(
            mp.mpf(m) * _gaussian_delta(mp.mpf(r), mp.mpf(e) - mp.mpf(k * 0.25))
            for m, k in zip((0.2, 0.5, 0.29), (-3, -2, -1))
        ) + mp.mpf(0.01)
        assert v <= ref <= u
        assert u - v <= 1e-11 * ref  # certified theta rounds outward by ~1e-12


def test_gate_takes_few_points_beside_a_wide_gaussian():
    assert beside_pays(6736, 1.72, 1e-4)  # a Laplace beside three Gaussians of sigma 1
    assert beside_pays(38802, 1.26, 1e-4)  # 23 Laplace runs beside 23 Gaussians
    assert beside_pays(59640, 0.606, 1e-4)  # sampled Laplace and Gaussian beside six Gaussians
    assert not beside_pays(58699, 0.282, 1e-4)  # eight sampled Gaussians beside a narrow one


def test_lower_below_reads_a_certified_lower_side_just_under_the_upper():
    """``lower_below`` on the Gaussian pair's certified lower side (radius 0.7, closed form): the
    epsilon it gives has a true delta above the target (so it is below the true epsilon), within
    ``LOWER_STEPS``' largest share of the upper side; None where no step reaches the root."""
    from hockeystick.numerics.certified_theta import theta_epsilon_upper
    from hockeystick.pld.accountants.plan_gaussian_beside import LOWER_STEPS, lower_below
    from hockeystick.pld.accountants.plan_sides import gaussian_side

    r, delta = 0.7, 1e-6
    upper = float(theta_epsilon_upper(r, delta))
    side = lambda e: gaussian_side(r, np.asarray(e, dtype=np.float64), False)  # noqa: E731
    lower = lower_below(lambda e: side(e) > delta, upper)
    assert lower is not None
    assert float(_gaussian_delta(mp.mpf(r), mp.mpf(lower))) > delta  # below the true epsilon
    assert upper - max(LOWER_STEPS) * max(1.0, upper) <= lower < upper
    # a side far below the truth (a tenth of it) passes no step: the full search answers
    assert lower_below(lambda e: 0.1 * side(e) > delta, upper) is None
    assert lower_below(lambda e: side(e) > delta, math.inf) is None


def test_lower_passes_is_the_maximum_over_directions_compared_with_delta():
    """``lower_passes`` (each direction past the first read only where its upper side does not
    clear delta) against the maximum over both directions' lower sides compared with delta, both
    directions composed: the same at every eps, with either direction first (the weaker first,
    the stronger then decides where the first does not pass), at deltas each direction passes
    somewhere and one neither does."""
    from hockeystick.pld.accountants.plan_gaussian_beside import lower_passes
    from hockeystick.pld.grid.distribution import PrivacyLossDistribution
    from hockeystick.pld.mechanisms.constructors import subsampled_gaussian

    h, radius = 1e-2, (0.79, 0.81)
    eps = np.linspace(0.0, 4.0, 41)
    decided = 0
    for order in ((0, 1), (1, 0)):

        def fresh(order=order) -> PrivacyLossDistribution:
            pld = subsampled_gaussian(1.2, 0.3, value_discretization_interval=h).self_compose(3)
            return PrivacyLossDistribution([pld.directions[d] for d in order])

        reference = fresh()
        lows = [grid_beside_gaussian(p, radius[0], False)(eps) for p in reference.composed(False)]
        for delta in (1e-3, 0.02, 0.3, 0.9):
            expected = np.maximum(lows[0], lows[1]) > delta
            assert np.array_equal(lower_passes(fresh(), radius, delta)(eps), expected)
            decided += int(not np.array_equal(lows[0] > delta, expected))
    assert decided > 0  # the second direction passes where the first does not, somewhere
