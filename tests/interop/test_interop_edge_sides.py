"""Certified sides of the dp_accounting adapter at the edges of its events' parameters.

Each side is checked against an independent value: a lower side never above its own upper side nor above
a closed form of the truth, an upper side finite wherever the RDP adapter or a closed form certifies a
finite value, and no RuntimeWarning on the way.
"""

from __future__ import annotations

import functools
import warnings

import mpmath as mp
import pytest
from dp_accounting import dp_event as E

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant
from hockeystick.interop.dp_accounting.catalogue_events import (
    DiscreteGaussianDpEvent,
    EpsilonDeltaDpEvent,
)
from hockeystick.interop.dp_accounting.selection_events import (
    ExponentialMechanismDpEvent,
    PermuteAndFlipDpEvent,
)
from hockeystick.rdp.zcdp import zcdp_to_delta

MP_DPS = 50


def bracket(event, delta=1e-5, count=1):
    a = HockeystickPLDAccountant()
    a.compose(event, count)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return a.get_epsilon_bracket(delta)


@functools.cache
def exponential_mechanism_bracket(epsilon: float, count: int) -> tuple[float, float]:
    """``bracket`` of ``count`` exponential mechanisms of ``epsilon`` at delta 1e-5, read once per process: a
    read costs 8-13 CPU s at epsilon 1500-3000 (a grid of 1.5e7 loss points and more), and two tests below read
    EM(1500) once composed."""
    return bracket(ExponentialMechanismDpEvent(epsilon), count=count)


def rdp_epsilon(event, delta=1e-5, count=1):
    a = HockeystickRdpAccountant()
    a.compose(event, count)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return a.get_epsilon(delta)


@pytest.mark.parametrize("count", [1, 3])
@pytest.mark.parametrize("epsilon", [1480.0, 1500.0, 3000.0])
def test_exponential_mechanism_lower_side_below_the_upper_side_and_the_realizable_pair(
    epsilon, count
):
    """The lower side is the better of two realizable pairs (randomized response of eps/2, losses +-eps/2, and the
    many-candidate pair, losses ~eps - log 2 and -log 2): finite, above count eps / 2, and never above the
    certified upper side (at most count epsilon)."""
    lo, up = exponential_mechanism_bracket(epsilon, count)
    assert count * epsilon / 2.0 < lo <= up <= count * epsilon


def test_exponential_mechanism_of_the_least_double_has_a_finite_upper_side():
    """EM(5e-324) is 5e-324-DP: delta(0) <= tanh(eps / 2) < 1e-300, so epsilon(1e-5) = 0 on both sides."""
    assert bracket(ExponentialMechanismDpEvent(5e-324)) == (0.0, 0.0)
    a = HockeystickPLDAccountant()
    a.compose(ExponentialMechanismDpEvent(5e-324), 1000)
    lo, up = a.get_delta_bracket(0.0)
    assert lo == 0.0 and up <= 1e-300


@pytest.mark.parametrize("rho", [1e307, 1e308, 1.7e308])
def test_zcdp_of_huge_rho_brackets_rho(rho):
    """A rho-zCDP event: the Gaussian of that rho has epsilon(1e-5) above rho - 1 (its loss is N(rho, 2 rho)), and
    the CKS conversion is within a few ulp of rho + 2 sqrt(rho log(1/delta)); the RDP adapter certifies as much."""
    lo, up = bracket(E.ZCDpEvent(rho))
    assert rho * (1 - 1e-14) - 1 <= lo <= up <= rho * (1 + 1e-14)
    assert up <= rdp_epsilon(E.ZCDpEvent(rho)) * (1 + 1e-14)


def test_zcdp_to_delta_at_the_largest_epsilon_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = zcdp_to_delta(0.5, 1e308)
    assert 0.0 <= d <= 1e-300


RDP_EXTREMES = [
    DiscreteGaussianDpEvent(1e308),
    DiscreteGaussianDpEvent(5e-324),
    DiscreteGaussianDpEvent(1e308, 2**40),
    PermuteAndFlipDpEvent(1e308),
    ExponentialMechanismDpEvent(1e308),
    EpsilonDeltaDpEvent(1e308, 0.0),
    E.ZCDpEvent(1e308),
    E.ZCDpEvent(1.0, 1e308),
    E.GaussianDpEvent(5e-324),
    E.GaussianDpEvent(1e308),
    E.LaplaceDpEvent(5e-324),
    E.PoissonSampledDpEvent(0.5, E.GaussianDpEvent(5e-324)),
    E.PoissonSampledDpEvent(0.5, E.GaussianDpEvent(1e308)),
]


@pytest.mark.parametrize("event", RDP_EXTREMES, ids=repr)
def test_rdp_adapter_at_the_ends_of_the_doubles_warns_nothing_and_bounds_from_above(event):
    """A curve past the doubles is +inf (an upper bound) or 0 where the truth underflows: no RuntimeWarning,
    and epsilon at least the PLD adapter's certified lower side where that one is computed."""
    a = HockeystickRdpAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a.compose(event, 3)
        eps = a.get_epsilon(1e-5)
        delta = a.get_delta(1.0)
    assert eps >= 0.0 and 0.0 <= delta <= 1.0
    try:
        lower = bracket(event, count=3)[0]
    except ValueError:  # refused by the PLD adapter (out of its certified range)
        return
    assert lower <= eps


@pytest.mark.parametrize("epsilon", [745.0, 800.0, 1e4])
def test_permute_and_flip_past_the_subnormal_masses_has_a_finite_upper_side(epsilon):
    """Permute-and-flip is epsilon-DP: epsilon(1e-5) of the (epsilon, 0) pair is log(e^eps - 1e-5 (1 + e^eps))
    (50 digits); the upper side is at or above it, within the grid's 1e-4, and at most the RDP adapter's."""
    truth = mp.mpf(epsilon) + mp.log(1 - mp.mpf(1e-5) * (1 + mp.e ** -mp.mpf(epsilon)))
    lo, up = bracket(PermuteAndFlipDpEvent(epsilon))
    assert lo <= truth <= up <= truth + 1e-4
    assert up <= rdp_epsilon(PermuteAndFlipDpEvent(epsilon))


@pytest.mark.parametrize(("epsilon", "delta"), [(745.0, 0.0), (800.0, 1e-6), (1e5, 1e-7)])
def test_epsilon_delta_event_past_the_subnormal_masses_brackets_its_epsilon(epsilon, delta):
    """An (epsilon, delta)-DP event asked at 1e-5 > delta: the canonical pair's epsilon(1e-5) is
    log(e^eps - (1e-5 - delta) (1 + e^eps) / (1 - delta)) (50 digits)."""
    e, d = mp.mpf(epsilon), mp.mpf(delta)
    truth = e + mp.log(1 - (mp.mpf(1e-5) - d) * (1 + mp.e**-e) / (1 - d))
    lo, up = bracket(EpsilonDeltaDpEvent(epsilon, delta))
    assert lo <= truth <= up <= truth + 1e-6


def _many_candidates_epsilon(epsilon: float, delta: float) -> mp.mpf:
    """epsilon(delta) of the exponential mechanism's realizable pair on 1 + m candidates, m = round(e^{eps/2})
    (floor beyond 2^53): scores (1, 0, ..., 0) on D, (0, 1, ..., 1) on D'; the first candidate's loss t and
    P-mass p, where delta(x) = p (1 - e^{x - t}) for x >= max(t - eps, 0), 50 digits."""
    big = mp.e ** (mp.mpf(epsilon) / 2)
    m = mp.floor(big) if big > 2**53 else mp.mpf(round(float(big)))
    t = mp.mpf(epsilon) / 2 + mp.log((1 + m * big) / (big + m))
    p = big / (big + m)
    return t + mp.log(1 - mp.mpf(delta) / p)


@pytest.mark.parametrize("epsilon", [2.0, 5.0, 20.0, 700.0, 701.0, 1500.0])
def test_exponential_mechanism_lower_side_is_a_realizable_many_candidate_pair(epsilon):
    """The lower side at 1e-5 is at most the realizable (1 + m)-candidate pair's exact epsilon (so it is valid) and
    within the grid's reach of it (the default grid, coarser past 1e7 loss points): e.g. EM(1500) >= 1499.3 where randomized response of eps/2 gave 741."""
    exact = _many_candidates_epsilon(epsilon, 1e-5)
    lo, up = exponential_mechanism_bracket(epsilon, 1)
    assert exact - 1e-2 <= lo <= exact <= up
