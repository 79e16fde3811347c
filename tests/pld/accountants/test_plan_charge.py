"""The default grid's upper epsilon read again under a tilt where the round-off charge sets it
(pld/accountants/plan_charge.py): the charge's shift bounded from the PMF, the tilted read certified
(never below a certified lower side read on an independent, finer grid) and below the plain one."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hockeystick.pld as hpld
from hockeystick.pld.accountants import plan_charge
from hockeystick.pld.accountants.plan_tilted import direction_upper_delta, direction_upper_epsilon

DELTA = 1e-6
H = 8.75e-5


def _laplaces(h: float = H):
    """26 rounds each of two Laplaces (the event trees' seed 24), whose charge sets the upper side."""
    a = hpld.laplace(12.254371589151235, value_discretization_interval=h).self_compose(26)
    return a.compose(
        hpld.laplace(3.555748297837515, value_discretization_interval=h).self_compose(26)
    )


def _sampled(h: float = H):
    """Eight Poisson-subsampled Gaussian rounds (the trees' seed 23 without its Gaussian)."""
    return hpld.subsampled_gaussian(
        1.7826092425393325, 0.04447793979255788, value_discretization_interval=h
    ).self_compose(8)


def _uncharged_root(pmf, delta: float, hi: float) -> float:
    """The root of the PMF's uncharged hockey-stick curve at delta, by bisection below ``hi``."""
    losses = (pmf.k_lo + np.arange(pmf.p.size)) * pmf.h

    def curve(eps: float) -> float:
        above = losses > eps
        return float(np.sum(pmf.p[above] * -np.expm1(eps - losses[above]))) + pmf.p_inf

    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if curve(mid) > delta else (lo, mid)
    return hi


@pytest.mark.parametrize("make", [_laplaces, _sampled])
def test_the_shift_bound_holds_the_charge_s_shift(make):
    """u - eps_D(delta) <= the bound (the uncharged curve's tangent at u; up to 1e-12, the
    bisection's and the sums' round-off and the PMF's loss shift, which the estimate leaves out),
    and the bound is tight within a factor of 2 here."""
    for pmf in make().composed(True):
        upper = float(pmf.epsilon(np.array([DELTA]))[0])
        shift = upper - _uncharged_root(pmf, DELTA, upper)
        bound = plan_charge.charge_shift(pmf, DELTA, upper)
        assert 0.0 < shift <= bound + 1e-12 and bound <= 2.0 * shift


@pytest.mark.parametrize("make", [_laplaces, _sampled])
def test_the_tilted_read_is_certified_and_below_the_plain_one(make):
    """Below the plain upper side by most of the charge's shift, never below the certified lower
    side of the same composition on a grid a quarter as fine (an independent discretization)."""
    pld = make()
    plain = float(pld.epsilon(DELTA, bound="upper", composition_only=True))
    read = plan_charge.low_charge_upper(pld, DELTA, plain)
    shifts = [
        plan_charge.charge_shift(p, DELTA, float(p.epsilon(np.array([DELTA]))[0]))
        for p in pld.composed(True)
    ]
    assert read < plain - 0.5 * max(shifts)
    lower = float(make(H / 4).epsilon(DELTA, bound="lower", composition_only=True))
    assert lower <= read


def test_no_read_where_the_charge_moves_nothing(monkeypatch):
    """A share past every shift leaves the upper side as given, and no tilted composition is made."""
    monkeypatch.setattr(plan_charge, "CHARGED_EPSILON_SHARE", math.inf)
    monkeypatch.setattr(plan_charge, "direction_upper_epsilon", None)  # would raise if called
    pld = _sampled()
    plain = float(pld.epsilon(DELTA, bound="upper", composition_only=True))
    assert plan_charge.low_charge_upper(pld, DELTA, plain) == plain


@pytest.mark.parametrize(
    "delta, upper", [(DELTA, math.inf), (DELTA, 0.0), (0.0, 1.0), (1.0, 1.0), (math.nan, 1.0)]
)
def test_edges_leave_the_upper_side_as_given(delta, upper):
    assert plan_charge.low_charge_upper(_sampled(), delta, upper) == upper or (
        math.isnan(upper) and math.isnan(plan_charge.low_charge_upper(_sampled(), delta, upper))
    )


def test_no_mass_above_the_upper_side_is_an_infinite_shift():
    pmf = _sampled().composed(True)[0]
    top = (pmf.k_lo + pmf.p.size) * pmf.h + 1.0
    assert plan_charge.charge_shift(pmf, DELTA, top) == math.inf


def test_a_direction_without_factors_is_refused():
    with pytest.raises(ValueError, match="at least one factor"):
        direction_upper_epsilon({}, DELTA, 1.0)


@pytest.mark.parametrize("make", [_laplaces, _sampled])
def test_the_tilted_delta_is_certified_and_below_the_plain_one(make):
    """At the plain upper epsilon: the upper delta read again under the tilt is below the plain one
    (whose charge is more than the share of it), never below the certified lower delta of the same
    composition on a grid a quarter as fine."""
    pld = make()
    eps = float(pld.epsilon(DELTA, bound="upper", composition_only=True))
    plain = float(pld.delta(eps, bound="upper", composition_only=True))
    read = plan_charge.low_charge_upper_delta(pld, eps, plain)
    assert read < plain
    lower = float(make(H / 4).delta(eps, bound="lower", composition_only=True))
    assert lower <= read


@pytest.mark.parametrize(
    "epsilon, upper", [(1.0, 1.0), (1.0, 0.0), (math.inf, 0.5), (math.nan, 0.5)]
)
def test_delta_edges_leave_the_upper_side_as_given(epsilon, upper):
    assert plan_charge.low_charge_upper_delta(_sampled(), epsilon, upper) == upper


def test_a_direction_without_factors_is_refused_its_delta():
    with pytest.raises(ValueError, match="at least one factor"):
        direction_upper_delta({}, 1.0)
