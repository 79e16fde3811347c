"""The RDP accountant on the selection events: ``rdp.pure_dp`` (permute-and-flip, any epsilon-DP mechanism)
and ``rdp.bounded_range`` (the exponential mechanism).

References are independent of the closed forms: Renyi divergences summed from the definition over
the output laws in 50-digit mpmath (randomized response, the exponential mechanism on small score
vectors, permute-and-flip with every order of the candidates enumerated), the supremum over the
two-point family by a golden-section search over t, and over the one-sided exponential mechanism on
two candidates by a search over its score.  Directions: every curve at or above every pair it bounds,
and within 1e-12 of the supremum it claims; the composed RDP epsilon at or above the PLD adapter's
certified lower bound.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import dp_event as E
from dp_accounting.privacy_accountant import NeighboringRelation as NR
from dp_accounting.privacy_accountant import UnsupportedEventError
from dp_accounting.rdp import rdp_privacy_accountant as R

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant, HockeystickRdpAccountant
from hockeystick.interop.dp_accounting.catalogue_events import (
    DiscreteGaussianDpEvent,
    EpsilonDeltaDpEvent,
)
from hockeystick.interop.dp_accounting.selection_events import (
    ExponentialMechanismDpEvent,
    PermuteAndFlipDpEvent,
)
from hockeystick.rdp.bounded_range import bounded_range_rdp
from hockeystick.rdp.pure_dp import pure_dp_rdp

from ..reference import exponential_law, permute_and_flip_law

MP_DPS = 50
mp.mp.dps = MP_DPS
ORDERS = np.array([1.0001, 1.5, 2.0, 64.0, 256.0])
RELATIONS = [NR.ADD_OR_REMOVE_ONE, NR.REPLACE_ONE, NR.REPLACE_SPECIAL]
TIGHT = 1e-12  # relative: the curves' upward rounding is 2^-44 plus one float


def renyi(p, q, alpha):
    """D_alpha(P || Q) of two finite laws from the definition (mpmath, at the working precision)."""
    a = mp.mpf(alpha)
    return mp.log(mp.fsum(mp.mpf(x) ** a * mp.mpf(y) ** (1 - a) for x, y in zip(p, q))) / (a - 1)


def randomized_response(eps):
    e = mp.e ** mp.mpf(eps)
    return [e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)]


def two_point(eps, alpha, t):
    """D_alpha of B_t: P-mass p_t at loss t, 1 - p_t at loss t - eps, p_t = (e^eps - e^t) / (e^eps - 1)."""
    e, t = mp.mpf(eps), mp.mpf(t)
    p = (mp.e**e - mp.e**t) / (mp.e**e - 1)
    return renyi([p, 1 - p], [p * mp.e**-t, (1 - p) * mp.e ** (e - t)], alpha)


def golden_max(f, lo, hi, steps=100):
    """max of a unimodal f on [lo, hi] (golden-section search at the working precision).

    100 steps narrow [lo, hi] by 0.618^100 < 1e-20; at a smooth maximum the value read at the middle is
    below the maximum by about the square of that width (times f''), far under a double's resolution:
    each reference here rounds to the same double as at 160 steps, at 0.6 of the mpmath evaluations."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    r = (mp.sqrt(5) - 1) / 2
    for _ in range(steps):
        a, b = hi - r * (hi - lo), lo + r * (hi - lo)
        if f(a) < f(b):
            lo = a
        else:
            hi = b
    return f((lo + hi) / 2)


def assert_tight_above(got, ref, what):
    ref = float(ref)
    assert got >= ref, (what, got, ref)
    assert got <= ref * (1 + TIGHT), (what, got, ref, got / ref - 1)


# --- the curves --------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [1e-6, 0.01, 0.5, 1.0, 3.0, 10.0, 100.0])
def test_pure_dp_curve_is_the_renyi_divergence_of_randomized_response(eps):
    orders = np.concatenate([ORDERS, [1 + 1e-9, 4096.0]])
    got = pure_dp_rdp(eps, orders)
    for alpha, g in zip(orders, got):
        assert_tight_above(g, renyi(*randomized_response(eps), alpha), (eps, alpha))


def test_pure_dp_curve_limits_kl_and_tiny_epsilon():
    for eps in [0.01, 1.0, 7.0]:  # alpha -> 1: the KL divergence eps tanh(eps / 2)
        assert pure_dp_rdp(eps, [1 + 1e-12])[0] == pytest.approx(eps * math.tanh(eps / 2), rel=1e-9)
    for eps in [1e-90, 1e-120]:  # from 400 digits: alpha eps^2 / 2 to 1e-150
        with mp.workdps(400):
            ref = renyi(*randomized_response(eps), 2.0)
        assert_tight_above(pure_dp_rdp(eps, [2.0])[0], ref, eps)
    assert pure_dp_rdp(1e-200, [2.0])[0] > 0  # the true value underflows: never 0
    assert pure_dp_rdp(0.0, [2.0])[0] == 0.0 and pure_dp_rdp(math.inf, [2.0])[0] == math.inf


@pytest.mark.parametrize("eps", [0.01, 0.5, 2.9, 3.1, 10.0, 40.0])
def test_bounded_range_curve_is_the_supremum_over_the_two_point_family(eps):
    got = bounded_range_rdp(eps, ORDERS)
    for alpha, g in zip(ORDERS, got):
        sup = golden_max(lambda t: two_point(eps, alpha, t), 0, eps)
        assert_tight_above(g, sup, (eps, alpha))


def test_bounded_range_curve_at_orders_near_one_is_the_supremum_of_kl():
    for eps in [0.05, 1.0, 6.0]:

        def kl(t):  # KL(B_t) = E_P[L], from the definition
            p = (mp.e**eps - mp.e**t) / (mp.e**eps - 1)
            return p * t + (1 - p) * (t - eps)

        sup = golden_max(kl, 0, eps)
        assert bounded_range_rdp(eps, [1 + 1e-12])[0] == pytest.approx(float(sup), rel=1e-9)
        assert bounded_range_rdp(eps, [1 + 1e-12])[0] >= float(sup) * (1 - 1e-11)


@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_one_sided_exponential_mechanism_on_two_candidates_reaches_the_curve(eps):
    """exp(eps u / Delta) with scores (s, 0) on D and (s - 1, 0) on D': every realizable value is below the
    curve, and the maximum over s equals it (these pairs sweep the whole two-point family)."""
    got = bounded_range_rdp(eps, ORDERS)
    for alpha, g in zip(ORDERS, got):

        def d(s):
            return renyi(
                exponential_law([s, 0], eps, 1), exponential_law([s - 1, 0], eps, 1), alpha
            )

        best = golden_max(d, -60 / eps, 60 / eps)
        assert_tight_above(g, best, (eps, alpha))
        for s in [-2.0, 0.0, 0.7, 3.0]:
            assert d(s) <= g


def test_exponential_mechanism_on_random_scores_stays_below_both_curves():
    rng = np.random.default_rng(11)
    for _ in range(60):
        eps = float(rng.choice([0.1, 0.8, 2.5, 6.0]))
        k = int(rng.integers(2, 6))
        u = rng.uniform(-3, 3, k)
        one_sided = rng.random() < 0.5
        v = u + (rng.uniform(0, 1, k) if one_sided else rng.uniform(-1, 1, k))
        scale = 1 if one_sided else 2
        p, q = exponential_law(u, eps, scale), exponential_law(v, eps, scale)
        alphas = rng.choice(ORDERS, 2, replace=False)
        br, dp = bounded_range_rdp(eps, alphas), pure_dp_rdp(eps, alphas)
        for alpha, b, d in zip(alphas, br, dp):
            for a_, b_ in [(p, q), (q, p)]:  # both directions of the pair (add and remove)
                assert renyi(a_, b_, alpha) <= b <= d, (eps, alpha, u, v)


@pytest.mark.parametrize("eps", [0.2, 1.0, 5.0])
def test_bounded_range_curve_lies_between_its_neighbours(eps):
    """RR(eps/2) (the exponential mechanism on two candidates) <= curve <= min(pure DP, alpha eps^2 / 8) and
    below the divergence of the continuous pair the PLD adapter composes (which is not bounded-range)."""
    orders = np.concatenate([ORDERS, [11.0, 4096.0]])
    br = bounded_range_rdp(eps, orders)
    for alpha, g, rr_half, pure in zip(
        orders, br, pure_dp_rdp(eps / 2, orders), pure_dp_rdp(eps, orders)
    ):
        a, c = mp.mpf(alpha), mp.mpf(eps) / 2
        continuous = mp.log(mp.sinh((2 * a - 1) * c) / ((2 * a - 1) * mp.sinh(c))) / (a - 1)
        assert float(renyi(*randomized_response(eps / 2), alpha)) <= g <= pure
        assert g <= alpha * eps**2 / 8 * (1 + TIGHT)
        assert g < float(continuous)
        assert rr_half <= g * (1 + 1e-12)


def test_permute_and_flip_pairs_and_laplace_stay_below_the_pure_dp_curve():
    rng = np.random.default_rng(12)
    for _ in range(30):
        eps = float(rng.choice([0.3, 1.1, 4.0]))
        k = int(rng.integers(2, 5))
        u = rng.uniform(-2, 2, k)
        v = u + rng.uniform(-1, 1, k)
        a, b = permute_and_flip_law(u, eps), permute_and_flip_law(v, eps)
        for alpha, d in zip(ORDERS, pure_dp_rdp(eps, ORDERS)):
            assert max(renyi(a, b, alpha), renyi(b, a, alpha)) <= d
    # dp_accounting's Laplace RDP (a (1/b)-DP mechanism, Mironov 2017 Prop. 6) is below it, close at small orders
    orders = np.array(R.DEFAULT_RDP_ORDERS, dtype=np.float64)
    for b in [0.5, 2.0, 20.0]:
        theirs = R.RdpAccountant(orders).compose(E.LaplaceDpEvent(b)).rdp
        ours = pure_dp_rdp(1 / b, orders)
        assert np.all(theirs <= ours), b
        assert theirs[0] >= 0.5 * ours[0]


# --- the accountant ----------------------------------------------------------------------------------


@pytest.mark.parametrize("relation", RELATIONS)
def test_composed_selection_events_lie_between_the_pld_brackets(relation):
    for event, k, factor in [
        (ExponentialMechanismDpEvent(0.8), 10, 1.3),
        (PermuteAndFlipDpEvent(0.6), 10, 1.3),
    ]:
        rdp = HockeystickRdpAccountant(neighboring_relation=relation).compose(event, k)
        lo, up = HockeystickPLDAccountant(relation).compose(event, k).get_epsilon_bracket(1e-6)
        eps = rdp.get_epsilon(1e-6)
        assert lo <= eps <= factor * up, (event, lo, eps, up)
        curve = bounded_range_rdp if isinstance(event, ExponentialMechanismDpEvent) else pure_dp_rdp
        np.testing.assert_allclose(rdp.rdp, k * curve(event.epsilon, rdp.orders), rtol=1e-15)


def test_mixed_composition_adds_curves_and_stays_above_the_pld_lower_bound():
    events = [
        E.SelfComposedDpEvent(ExponentialMechanismDpEvent(0.5), 40),
        E.GaussianDpEvent(8.0),
        E.SelfComposedDpEvent(PermuteAndFlipDpEvent(0.2), 5),
    ]
    rdp = HockeystickRdpAccountant().compose(E.ComposedDpEvent(events))
    parts = sum(HockeystickRdpAccountant().compose(e).rdp for e in events)
    np.testing.assert_allclose(rdp.rdp, parts, rtol=1e-15)
    lo, up = HockeystickPLDAccountant().compose(E.ComposedDpEvent(events)).get_epsilon_bracket(1e-6)
    assert lo <= rdp.get_epsilon(1e-6) <= 1.5 * up
    # one exponential mechanism of 0.5 forty times: RDP below the epsilon-DP accounting of the same events
    em = HockeystickRdpAccountant().compose(ExponentialMechanismDpEvent(0.5), 40).get_epsilon(1e-6)
    pf = HockeystickRdpAccountant().compose(PermuteAndFlipDpEvent(0.5), 40).get_epsilon(1e-6)
    assert em < pf < 40 * 0.5


@pytest.mark.parametrize("relation", RELATIONS)
def test_pure_epsilon_delta_events_take_the_pure_dp_curve_and_positive_delta_is_refused(relation):
    """(epsilon, 0)-DP is epsilon-DP: the curve of binary randomized response, above the PLD adapter's certified
    lower bound of the same events (KOV's exact composition); a delta > 0 gives no Renyi bound and is refused."""
    rdp = HockeystickRdpAccountant(neighboring_relation=relation).compose(
        EpsilonDeltaDpEvent(0.5, 0.0), 10
    )
    np.testing.assert_array_equal(rdp.rdp, 10 * pure_dp_rdp(0.5, rdp.orders))
    lo, _ = (
        HockeystickPLDAccountant(relation)
        .compose(EpsilonDeltaDpEvent(0.5, 0.0), 10)
        .get_epsilon_bracket(1e-6)
    )
    assert lo <= rdp.get_epsilon(1e-6) <= 10 * 0.5
    with pytest.raises(UnsupportedEventError, match="EpsilonDeltaDpEvent.delta must be 0"):
        HockeystickRdpAccountant(neighboring_relation=relation).compose(
            EpsilonDeltaDpEvent(0.5, 1e-7)
        )


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("sigma, sensitivity", [(0.7, 1), (3.0, 2)])
def test_discrete_gaussian_curve_lies_above_its_exact_renyi_divergence(
    relation, sigma, sensitivity
):
    """The discrete Gaussian's curve is the continuous one, alpha Delta^2 / (2 sigma^2); the exact Renyi divergence
    of N_Z(Delta, sigma^2) from N_Z(0, sigma^2), summed over the integers at 50 digits, lies below it at every
    order; the composed epsilon lies above the PLD adapter's certified lower one."""
    event = DiscreteGaussianDpEvent(sigma=sigma, sensitivity=sensitivity)
    rdp = HockeystickRdpAccountant(neighboring_relation=relation).compose(event, 5)
    shift = (2 if relation == NR.REPLACE_ONE else 1) * sensitivity
    with mp.workdps(50):
        weight = [mp.e ** (-(mp.mpf(k) ** 2) / (2 * mp.mpf(sigma) ** 2)) for k in range(-400, 401)]
        total = mp.fsum(weight)
        for alpha, got in zip(rdp.orders[::40], rdp.rdp[::40]):
            a = mp.mpf(alpha)
            terms = [
                weight[i] ** a * weight[i + shift] ** (1 - a) for i in range(len(weight) - shift)
            ]
            exact = 5 * mp.log(mp.fsum(terms) / total) / (a - 1)
            assert exact <= got * (1 + 1e-12), (alpha, exact, got)
    lo, _ = HockeystickPLDAccountant(relation).compose(event, 5).get_epsilon_bracket(1e-6)
    assert lo <= rdp.get_epsilon(1e-6)


def test_zero_events_and_refusals_name_the_field():
    assert HockeystickRdpAccountant().get_epsilon(1e-6) == 0.0
    acc = (
        HockeystickRdpAccountant()
        .compose(ExponentialMechanismDpEvent(0.0), 5)
        .compose(PermuteAndFlipDpEvent(0.0))
    )
    assert acc.get_epsilon(1e-6) == 0.0 and not acc.rdp.any()
    assert (
        HockeystickRdpAccountant().compose(PermuteAndFlipDpEvent(math.inf)).get_epsilon(1e-6)
        == math.inf
    )
    for cls in [ExponentialMechanismDpEvent, PermuteAndFlipDpEvent]:
        for bad in [-1.0, -1e-300, float("nan"), "x", "1.0", None, True]:
            with pytest.raises(ValueError, match=rf"{cls.__name__}\.epsilon must be a real number"):
                HockeystickRdpAccountant().compose(cls(bad))
    for fn in [pure_dp_rdp, bounded_range_rdp]:
        with pytest.raises(ValueError, match="epsilon"):
            fn(-0.5, [2.0])
        with pytest.raises(ValueError, match="orders"):
            fn(1.0, [1.0])


def test_dp_accounting_rdp_accountant_on_selection_events_when_it_has_them():
    native = getattr(E, "ExponentialMechanismDpEvent", None)
    if native is None:
        pytest.skip(
            "the installed dp_accounting has no exponential-mechanism event for its RdpAccountant"
        )
    theirs = R.RdpAccountant(ORDERS)
    if not theirs.supports(native(1.0)):
        pytest.skip(
            "the installed dp_accounting's RdpAccountant does not take its exponential-mechanism event"
        )
    theirs.compose(native(1.0))
    ours = bounded_range_rdp(1.0, ORDERS)
    assert np.all(
        ours <= theirs.rdp * (1 + 1e-9) + 1e-12
    )  # ours is the supremum over the event's pairs
