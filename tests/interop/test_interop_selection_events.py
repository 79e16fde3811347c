"""The exponential mechanism and permute-and-flip through the dp_accounting adapter (``pld.selection``).

References are independent: 50-digit mpmath sums and integrals of the exact pairs, the mechanisms
themselves computed from scores (every order of the candidates enumerated for permute-and-flip), and
the exact k-fold composition of (epsilon, 0)-DP (Kairouz, Oh & Viswanath 2015, Thm 3.3).  Directions:
every certified upper side at or above the worst case it bounds, every lower side at or below a
realizable pair's exact value.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import dp_event as E
from dp_accounting.privacy_accountant import NeighboringRelation as NR
from dp_accounting.privacy_accountant import UnsupportedEventError

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.interop.dp_accounting.selection_events import (
    ExponentialMechanismDpEvent,
    PermuteAndFlipDpEvent,
)
from hockeystick.interop.loss_reach import ParameterOutOfRange
from hockeystick.pld.mechanisms.selection import (
    bounded_range_profile,
    exponential_mechanism,
    permute_and_flip,
)

from ..reference import exponential_law, permute_and_flip_law

MP_DPS = 50
mp.mp.dps = MP_DPS  # for the references computed at import; conftest sets it for each test
RELATIONS = [NR.ADD_OR_REMOVE_ONE, NR.REPLACE_ONE, NR.REPLACE_SPECIAL]


def profile(p, q, eps):
    """sum (P - e^eps Q)_+ of a finite pair, 50 digits."""
    g = mp.e ** mp.mpf(eps)
    return sum(max(mp.mpf(a) - g * mp.mpf(b), 0) for a, b in zip(p, q))


def binary_br(epsilon, t, eps):
    """delta(eps) of B_t: losses t (P-mass p_t) and t - epsilon, p_t = (e^epsilon - e^t) / (e^epsilon - 1)."""
    E_, t = mp.e ** mp.mpf(epsilon), mp.mpf(t)
    p = (E_ - mp.e**t) / (E_ - 1)
    return profile([p, 1 - p], [p * mp.e**-t, (1 - p) * mp.e ** (mp.mpf(epsilon) - t)], eps)


def envelope(epsilon, eps):
    """sup over t in [0, epsilon] of delta_{B_t}(eps), by a 50-digit golden-section search (not the closed form)
    on [max(eps, 0), epsilon], where it is unimodal (0 for t <= eps)."""
    lo, hi = max(mp.mpf(eps), mp.mpf(0)), mp.mpf(epsilon)
    r = (mp.sqrt(5) - 1) / 2
    for _ in range(200):
        a, b = hi - r * (hi - lo), lo + r * (hi - lo)
        if binary_br(epsilon, a, eps) < binary_br(epsilon, b, eps):
            lo = a
        else:
            hi = b
    return max(
        binary_br(epsilon, (lo + hi) / 2, eps),
        binary_br(epsilon, 0, eps),
        binary_br(epsilon, epsilon, eps),
    )


def kov_pure(epsilon, k, eps):
    """Exact delta(eps) of k-fold (epsilon, 0)-DP (Kairouz, Oh & Viswanath 2015, Thm 3.3), 50 digits."""
    e, eps = mp.mpf(epsilon), mp.mpf(eps)
    total = mp.mpf(0)
    for i in range(k + 1):
        loss = (k - 2 * i) * e
        if loss > eps:
            total += mp.binomial(k, i) * (mp.e ** ((k - i) * e) - mp.e ** (eps + i * e))
    return total / (1 + mp.e**e) ** k


def composed_binary(p, q, k, eps):
    """Exact delta(eps) of the k-fold composition of a two-outcome pair (binomial sum, 50 digits)."""
    g = mp.e ** mp.mpf(eps)
    return sum(
        max(mp.binomial(k, i) * (p[0] ** i * p[1] ** (k - i) - g * q[0] ** i * q[1] ** (k - i)), 0)
        for i in range(k + 1)
    )


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 4.0])
def test_the_bounded_range_profile_is_the_supremum_over_binary_pairs(epsilon):
    for eps in [-epsilon, -0.5 * epsilon, 0.0, 0.3 * epsilon, 0.9 * epsilon, epsilon]:
        ref = envelope(epsilon, eps)
        got = bounded_range_profile(epsilon, np.array([eps]))[0]
        assert abs(got - float(ref)) <= 1e-13 * float(ref) + 1e-300, (eps, got, ref)
    assert float(envelope(epsilon, 0.0)) == pytest.approx(math.tanh(epsilon / 4), rel=1e-13)


def test_random_bounded_range_pairs_and_exponential_mechanisms_lie_below_the_upper_side():
    rng = np.random.default_rng(5)
    epsilon = 1.3
    em = exponential_mechanism(epsilon)
    grid = [-1.2, -0.4, 0.0, 0.2, 0.6, 1.0]
    upper = [em.delta(max(e, 0.0), bound="upper") if e >= 0 else None for e in grid]
    # the envelope depends on (epsilon, eps) only, not on the pair: computed once per eps
    envelopes = [envelope(epsilon, eps) * (1 + mp.mpf(1e-30)) for eps in grid]
    for _ in range(40):
        k = int(rng.integers(2, 6))
        # any pair whose losses span at most epsilon: random losses in a window of width epsilon
        losses = rng.uniform(0, epsilon, k) + rng.uniform(-epsilon, 0)
        p = rng.dirichlet(np.ones(k))
        q = p * np.exp(-losses)
        p, q = [mp.mpf(x) for x in p], [mp.mpf(x) / mp.mpf(float(q.sum())) for x in q]
        # the exponential mechanism on random scores of sensitivity 1 (two-sided and one-sided moves)
        u = rng.uniform(-3, 3, k)
        v = u + (rng.uniform(-1, 1, k) if rng.random() < 0.5 else rng.uniform(0, 1, k))
        pairs = [(p, q), (exponential_law(u, epsilon), exponential_law(v, epsilon))]
        for a, b in pairs:
            for eps, up, env in zip(grid, upper, envelopes):
                truth = profile(a, b, eps)
                assert truth <= env, (eps, truth)
                if up is not None:
                    assert float(truth) <= up, (eps, float(truth), up)


@pytest.mark.parametrize("relation", RELATIONS)
def test_exponential_mechanism_brackets_hold_the_realizable_and_the_bounding_compositions(relation):
    epsilon, k = 0.8, 2
    acc = HockeystickPLDAccountant(relation).compose(ExponentialMechanismDpEvent(epsilon), k)
    c = mp.mpf(epsilon) / 2
    z = 2 * mp.sinh(c)
    for eps in [0.0, 0.3, 0.9]:
        lo, up = acc.get_delta_bracket(eps)
        # lower: randomized response of epsilon / 2 on two candidates (scores (1, 0) then (0, 1)), composed exactly
        p = exponential_law([1, 0], epsilon)
        realizable = composed_binary(p, p[::-1], k, eps)
        # upper: the bounded-range pair composed twice, exactly: Y1 + Y2 = s has P-density e^s (2c - |s|) / z^2, loss 2s
        g = mp.e ** mp.mpf(eps)
        # (the integrand is positive exactly above s = eps / 2, which lies in [0, 2c] here)
        bound = mp.quad(
            lambda s: (mp.e**s - g * mp.e**-s) * (2 * c - abs(s)) / z**2, [mp.mpf(eps) / 2, 2 * c]
        )
        assert lo <= float(realizable) <= float(bound) <= up, (eps, lo, realizable, bound, up)
        assert up <= float(bound) * (1 + 1e-3) + 1e-6  # tight: the grid's round-off only
        assert (
            up < float(kov_pure(epsilon, k, eps)) or eps >= 2 * epsilon
        )  # below (epsilon, 0)-DP composed


def test_exponential_mechanism_composed_many_times_is_bracketed_and_below_pure_dp():
    epsilon, k = 0.5, 40
    acc = HockeystickPLDAccountant().compose(ExponentialMechanismDpEvent(epsilon), k)
    p = exponential_law([1, 0], epsilon)
    for eps in [1.0, 3.0]:
        lo, up = acc.get_delta_bracket(eps)
        assert lo <= float(composed_binary(p, p[::-1], k, eps)) * (1 + 1e-12) <= up
        assert up < float(kov_pure(epsilon, k, eps))
    lo, up = acc.get_epsilon_bracket(1e-6)
    assert 0 < lo <= up < k * epsilon


def test_permute_and_flip_realizable_pair_is_the_mechanism_and_every_pair_is_below_pure_dp():
    epsilon = 1.1
    pf = permute_and_flip(epsilon)
    p, q = permute_and_flip_law([0, 0], epsilon), permute_and_flip_law([1, -1], epsilon)
    assert float(q[1]) == pytest.approx(math.exp(-epsilon) / 2, rel=1e-14) and float(
        p[0]
    ) == pytest.approx(0.5)
    for eps in [0.0, 0.4]:
        lo, up = pf.delta(eps, bound="both")
        exact = max(profile(p, q, eps), profile(q, p, eps))
        assert lo <= float(exact) <= up
        assert up == pytest.approx(float(kov_pure(epsilon, 1, eps)), rel=1e-3)
    rng = np.random.default_rng(9)
    for _ in range(30):
        k = int(rng.integers(2, 5))
        u = rng.uniform(-2, 2, k)
        v = u + rng.uniform(-1, 1, k)
        a, b = permute_and_flip_law(u, epsilon), permute_and_flip_law(v, epsilon)
        for eps in [0.0, 0.5]:
            assert profile(a, b, eps) <= kov_pure(epsilon, 1, eps) * (1 + mp.mpf(1e-30))


@pytest.mark.parametrize("mechanism", [ExponentialMechanismDpEvent, PermuteAndFlipDpEvent])
@pytest.mark.parametrize(("epsilon", "k"), [(100.0, 1), (700.0, 1), (50.0, 2), (0.5, 3)])
def test_selection_upper_sides_never_exceed_the_pure_dp_epsilon(mechanism, epsilon, k):
    """k selections of epsilon are (k epsilon, 0)-DP: epsilon(delta) <= k epsilon at every delta and delta(eps) = 0
    from k epsilon on, whatever the composed grid leaves (the profile alone gave 100.00045 for one EM(100))."""
    acc = HockeystickPLDAccountant().compose(mechanism(epsilon), k)
    for delta in [1e-9, 1e-3, 0.5]:
        lo, up = acc.get_epsilon_bracket(delta)
        assert lo <= up <= k * epsilon
    assert acc.get_delta_bracket(k * epsilon) == (0.0, 0.0)
    assert acc.get_epsilon_bracket(0.0) == (k * epsilon, k * epsilon)


@pytest.mark.parametrize("relation", RELATIONS)
def test_permute_and_flip_composed_is_bracketed(relation):
    epsilon, k = 0.6, 10
    acc = HockeystickPLDAccountant(relation).compose(PermuteAndFlipDpEvent(epsilon), k)
    p, q = permute_and_flip_law([0, 0], epsilon), permute_and_flip_law([1, -1], epsilon)
    for eps in [0.5, 2.0]:
        lo, up = acc.get_delta_bracket(eps)
        realizable = max(composed_binary(p, q, k, eps), composed_binary(q, p, k, eps))
        assert lo <= float(realizable) <= float(kov_pure(epsilon, k, eps)) <= up
        assert up <= float(kov_pure(epsilon, k, eps)) * (1 + 1e-2) + 1e-6


def test_sampled_and_mixed_selection_events_answer_certified_brackets():
    acc = HockeystickPLDAccountant().compose(
        E.PoissonSampledDpEvent(0.05, ExponentialMechanismDpEvent(1.0)), 50
    )
    acc.compose(E.GaussianDpEvent(5.0), 3).compose(PermuteAndFlipDpEvent(0.2), 2)
    lo, up = acc.get_epsilon_bracket(1e-6)
    assert 0 < lo <= up < math.inf
    with pytest.raises(UnsupportedEventError):  # Poisson under replace-one: Gaussians only
        HockeystickPLDAccountant(NR.REPLACE_ONE).compose(
            E.PoissonSampledDpEvent(0.05, PermuteAndFlipDpEvent(1.0))
        )


def test_zero_epsilon_releases_nothing_and_bad_values_are_refused_naming_the_field():
    acc = (
        HockeystickPLDAccountant()
        .compose(ExponentialMechanismDpEvent(0.0), 5)
        .compose(PermuteAndFlipDpEvent(0.0))
    )
    assert acc.get_epsilon_bracket(1e-6) == (0.0, 0.0)
    for bad in [-1.0, float("nan"), "x"]:
        with pytest.raises(ValueError, match=r"ExponentialMechanismDpEvent\.epsilon"):
            HockeystickPLDAccountant().compose(ExponentialMechanismDpEvent(bad))
    for big in [math.inf, 1e5]:
        with pytest.raises(ParameterOutOfRange, match=r"PermuteAndFlipDpEvent\.epsilon"):
            HockeystickPLDAccountant().compose(PermuteAndFlipDpEvent(big))
