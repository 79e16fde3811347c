"""zCDP: rdp.zcdp_to_delta / zcdp_to_epsilon and ZCDpEvent in the PLD adapter.

References: the infimum over alpha of the Canonne-Kamath-Steinke conversion (2020, Prop. 12; Cor. 13 for zCDP)
found by mpmath at 50 digits (ours is at a near-optimal alpha: never below it, within 1e-9 of it); the Gaussian
mechanism of radius sqrt(2 rho), exactly rho-zCDP, whose exact delta (theta) lies below; dp_accounting's
RdpAccountant, whose order grid gives at least ours.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest

pytest.importorskip("dp_accounting")
from dp_accounting import dp_event as E  # noqa: E402
from dp_accounting.privacy_accountant import NeighboringRelation, UnsupportedEventError  # noqa: E402
from dp_accounting.rdp import RdpAccountant  # noqa: E402

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant  # noqa: E402
from hockeystick.numerics.certified_theta import theta_lower, theta_upper  # noqa: E402
from hockeystick.rdp import zcdp_to_delta, zcdp_to_epsilon  # noqa: E402

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test


def _mp_delta(rho: float, eps: float, xi: float = 0.0) -> mp.mpf:
    """inf over alpha > 1 of exp((a - 1)(xi + rho a - eps)) (1 - 1/a)^(a - 1) / a, and the TV bound, at 50 digits."""
    r, x, e = mp.mpf(rho), mp.mpf(xi), mp.mpf(eps)

    def log_delta(t):
        a = 1 + mp.e**t
        return (a - 1) * (x + r * a - e) + (a - 1) * mp.log(1 - 1 / a) - mp.log(a)

    grid = [mp.mpf(t) / 4 for t in range(-140, 200)]
    t0 = min(grid, key=log_delta)
    best = mp.findroot(lambda t: mp.diff(log_delta, t), t0)
    value = min(log_delta(best), log_delta(t0))
    return min(mp.e**value, mp.sqrt(1 - mp.e ** (-(x + r))), mp.mpf(1))


def _mp_epsilon(rho: float, delta: float, xi: float = 0.0) -> mp.mpf:
    r, x, d = mp.mpf(rho), mp.mpf(xi), mp.mpf(delta)
    if d**2 >= 1 - mp.e ** (-(x + r)):
        return mp.mpf(0)

    def eps(t):
        a = 1 + mp.e**t
        return x + r * a + mp.log(1 - 1 / a) - (mp.log(d) + mp.log(a)) / (a - 1)

    grid = [mp.mpf(t) / 4 for t in range(-140, 200)]
    t0 = min(grid, key=eps)
    best = mp.findroot(lambda t: mp.diff(eps, t), t0)
    return max(min(eps(best), eps(t0)), mp.mpf(0))


CASES = [(1e-4, 0.05), (0.01, 0.3), (0.05, 0.5), (0.5, 1.0), (0.5, 4.0), (2.0, 3.0), (10.0, 20.0)]


@pytest.mark.parametrize("rho,eps", CASES)
def test_delta_at_the_optimum_and_never_below_it(rho, eps):
    exact = _mp_delta(rho, eps)
    ours = zcdp_to_delta(rho, eps)
    assert mp.mpf(ours) >= exact
    assert ours <= float(exact) * (1 + 1e-9)


@pytest.mark.parametrize(
    "rho,delta", [(1e-4, 1e-5), (0.01, 1e-6), (0.5, 1e-5), (2.0, 1e-10), (10.0, 1e-3)]
)
def test_epsilon_at_the_optimum_and_never_below_it(rho, delta):
    exact = _mp_epsilon(rho, delta)
    ours = zcdp_to_epsilon(rho, delta)
    assert mp.mpf(ours) >= exact
    assert ours <= float(exact) * (1 + 1e-9) + 1e-15


def test_xi_enters_as_the_rdp_offset():
    exact = _mp_delta(0.1, 1.0, xi=0.2)
    ours = zcdp_to_delta(0.1, 1.0, xi=0.2)
    assert exact <= ours <= float(exact) * (1 + 1e-9)
    assert zcdp_to_epsilon(0.1, 1e-5, xi=0.2) >= _mp_epsilon(0.1, 1e-5, xi=0.2)


@pytest.mark.parametrize("mu", [0.05, 0.3, 1.0, 2.5, 6.0])
def test_general_conversion_is_above_the_gaussian(mu):
    # the Gaussian of radius mu is exactly mu^2/2-zCDP: its exact delta (theta) can be no larger
    for eps in (0.0, 0.5, 2.0, 8.0):
        assert zcdp_to_delta(mu * mu / 2, eps) >= float(theta_upper(mu, eps))


def test_never_zero_and_edges():
    assert zcdp_to_delta(1e-6, 1.0) > 0.0  # the true bound underflows: the least subnormal, never 0
    assert zcdp_to_delta(0.0, 1.0) == 0.0 and zcdp_to_epsilon(0.0, 1e-5) == 0.0
    assert zcdp_to_delta(1.0, math.inf) == 0.0
    assert zcdp_to_delta(100.0, 0.0) == 1.0
    assert (
        zcdp_to_epsilon(0.01, 0.5) == 0.0
    )  # delta above the total-variation bound sqrt(1 - e^-rho)


@pytest.mark.parametrize("bad", [-1.0, float("nan"), math.inf, "1", True, [0.1]])
def test_refusals(bad):
    with pytest.raises(ValueError, match="rho"):
        zcdp_to_delta(bad, 1.0)
    with pytest.raises(ValueError, match="xi"):
        zcdp_to_epsilon(0.1, 1e-5, xi=bad)
    with pytest.raises(ValueError, match="delta"):
        zcdp_to_epsilon(0.1, 0.0)


def test_ours_not_above_dp_accounting_rdp():
    theirs = RdpAccountant()
    theirs.compose(E.ZCDpEvent(0.05), 10)
    assert zcdp_to_epsilon(0.5, 1e-5) <= theirs.get_epsilon(1e-5) + 1e-12
    assert zcdp_to_delta(0.5, 2.0) <= theirs.get_delta(2.0) + 1e-15


def test_pld_adapter_brackets_the_class():
    acc = HockeystickPLDAccountant().compose(E.ZCDpEvent(0.05), 10)
    lo, up = acc.get_epsilon_bracket(1e-5)
    assert (
        zcdp_to_epsilon(0.5, 1e-5) <= up <= zcdp_to_epsilon(0.5, 1e-5) * (1 + 1e-12)
    )  # rho's sum rounded up
    # the lower side: the Gaussian of radius 1 (exactly 0.5-zCDP), within the round-off of rho's sum
    g = HockeystickPLDAccountant().compose(E.GaussianDpEvent(1.0)).get_epsilon_bracket(1e-5)
    assert g[0] - 1e-9 <= lo <= g[1]
    d_lo, d_up = acc.get_delta_bracket(1.0)
    assert d_lo <= float(theta_lower(1.0, 1.0)) and zcdp_to_delta(
        0.5, 1.0
    ) <= d_up <= zcdp_to_delta(0.5, 1.0) * (1 + 1e-12)


def test_gaussians_fold_into_rho():
    acc = HockeystickPLDAccountant()
    acc.compose(E.ZCDpEvent(0.3))
    acc.compose(E.GaussianDpEvent(2.0), 3)  # 3 / (2 * 4) = 0.375
    lo, up = acc.get_delta_bracket(1.5)
    assert up >= zcdp_to_delta(0.675, 1.5) and up <= zcdp_to_delta(0.675, 1.5) * (1 + 1e-12)
    assert (
        lo <= float(theta_lower(math.sqrt(1.35), 1.5))
        and float(theta_upper(math.sqrt(1.35), 1.5)) <= up
    )


def test_replace_one_gaussian_shift_two_folds_as_rho():
    acc = HockeystickPLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    acc.compose(E.ZCDpEvent(0.1))
    acc.compose(E.GaussianDpEvent(4.0))  # shift 2: radius 0.5, rho 0.125
    assert acc.get_epsilon(1e-5) >= zcdp_to_epsilon(0.225, 1e-5)


@pytest.mark.parametrize(
    "events",
    [
        [E.ComposedDpEvent([E.ZCDpEvent(0.1), E.LaplaceDpEvent(1.0)])],
        [E.ZCDpEvent(0.1), E.LaplaceDpEvent(1.0)],
        [E.LaplaceDpEvent(1.0), E.ZCDpEvent(0.1)],
        [E.PoissonSampledDpEvent(0.1, E.ZCDpEvent(0.1))],
        [E.PoissonSampledDpEvent(0.1, E.GaussianDpEvent(1.0)), E.ZCDpEvent(0.1)],
    ],
)
def test_mixing_with_a_pld_is_refused(events):
    acc = HockeystickPLDAccountant()
    *first, last = events
    for e in first:
        acc.compose(e)
    assert not acc.supports(last)
    with pytest.raises(UnsupportedEventError, match="ZCDpEvent"):
        acc.compose(last)


def test_sampling_without_replacement_of_zcdp_is_refused():
    acc = HockeystickPLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    with pytest.raises(UnsupportedEventError, match="ZCDpEvent"):
        acc.compose(E.SampledWithoutReplacementDpEvent(100, 10, E.ZCDpEvent(0.1)))


def test_refused_compose_leaves_the_accountant_unchanged():
    acc = HockeystickPLDAccountant().compose(E.ZCDpEvent(0.1))
    before = acc.get_epsilon(1e-5)
    with pytest.raises(UnsupportedEventError):
        acc.compose(E.LaplaceDpEvent(1.0))
    assert acc.get_epsilon(1e-5) == before


def test_rdp_accountant_composes_zcdp_with_anything():
    acc = HockeystickRdpAccountant()
    acc.compose(E.ZCDpEvent(0.1))
    acc.compose(E.LaplaceDpEvent(1.0))
    assert math.isfinite(acc.get_epsilon(1e-5))


@pytest.mark.parametrize("rho,xi", [(-0.1, 0.0), (0.1, -1.0), (float("nan"), 0.0)])
def test_adapter_refuses_bad_parameters(rho, xi):
    with pytest.raises(ValueError, match="rho|xi"):
        HockeystickPLDAccountant().compose(E.ZCDpEvent(rho, xi))


def test_zero_rho_releases_nothing():
    assert HockeystickPLDAccountant().compose(E.ZCDpEvent(0.0)).get_epsilon_bracket(1e-5) == (
        0.0,
        0.0,
    )
