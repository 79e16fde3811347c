"""The with-replacement bracket against the realizable pair, at 50 digits (mpmath).

Every other record and the new one at -1, the old one at +1 (sensitivity 1, replace-one): the old
record is drawn c ~ Binom(K, 1/n) times, so the output is P = sum_c b_c N(2c) against Q = N(0) for
additive noise N (Laplace scale b, discrete Laplace parameter a with shift 2 per copy, Gaussian
sigma); both orders are neighbouring datasets.  The mechanism's worst-case delta is at least the
larger of the two orders' deltas, so a certified lower side must not exceed it and a certified
upper side must not fall below it.  The pair's likelihood ratio is non-decreasing in x, so each
order's integrand (dP - g dQ)_+ changes sign once: its root is found and the integral taken in
closed form (Laplace, Gaussian) or summed exactly over the merged outcomes (discrete Laplace).
"""

from __future__ import annotations

import warnings
from functools import cache

import mpmath as mp
import pytest
from dp_accounting import dp_event as E
from dp_accounting.privacy_accountant import NeighboringRelation

from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
from hockeystick.pld.refine import AccuracyNotMetWarning

EPSILONS = (0.1, 1.0, 3.0)
SIZES = [(n, k) for n in (2, 3, 5) for k in (2, 3, 5)]


def _weights(n: int, k: int) -> list:
    """b_c = Binom(c; K, 1/n), exact at the working precision."""
    return [
        mp.binomial(k, c) * mp.mpf(1) / n**c * (1 - mp.mpf(1) / n) ** (k - c) for c in range(k + 1)
    ]


def _one_crossing(f, lo, hi):
    """The x in [lo, hi] where the non-increasing-sign f crosses 0 (lo if it never is positive, hi if always)."""
    if f(lo) <= 0:
        return lo
    if f(hi) >= 0:
        return hi
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return (lo + hi) / 2


@cache
def laplace_realizable(n: int, k: int, eps: float, scale: float) -> float:
    """max over both orders of int (dP - g dQ)_+, P = sum_c b_c Lap(2c, scale), Q = Lap(0, scale)."""
    with mp.workdps(50):
        b, g = _weights(n, k), mp.e ** mp.mpf(eps)
        b_ = mp.mpf(scale)

        def cdf(x, m):  # Lap(m, b) distribution function
            return mp.exp((x - m) / b_) / 2 if x < m else 1 - mp.exp(-(x - m) / b_) / 2

        def pdf(x, m):
            return mp.exp(-abs(x - m) / b_) / (2 * b_)

        p_cdf = lambda x: sum(bc * cdf(x, 2 * c) for c, bc in enumerate(b))
        ratio = lambda x: (
            sum(bc * pdf(x, 2 * c) for c, bc in enumerate(b)) / pdf(x, 0)
        )  # non-decreasing
        # remove: P - g Q positive where ratio > g (x above the crossing); add: Q - g P where ratio < 1/g
        x1 = _one_crossing(lambda x: g - ratio(x), mp.mpf(-1), mp.mpf(2 * k + 1))
        # (the ratio is constant below 0 and above 2K, so the crossings lie in [-1, 2K + 1] or nowhere)
        remove = (1 - p_cdf(x1)) - g * (1 - cdf(x1, 0))
        x2 = _one_crossing(lambda x: 1 / g - ratio(x), mp.mpf(-1), mp.mpf(2 * k + 1))
        add = cdf(x2, 0) - g * p_cdf(x2)
        return float(max(remove, add, 0))


@cache
def discrete_laplace_realizable(n: int, k: int, eps: float, a: float) -> float:
    """max over both orders of sum_x (P(x) - g Q(x))_+, P = sum_c b_c DLap_a(2c), Q = DLap_a(0), merged
    outcomes x <= 0 and x >= 2K (the ratio is constant there)."""
    with mp.workdps(50):
        b, g, a_ = _weights(n, k), mp.e ** mp.mpf(eps), mp.mpf(a)
        top, norm, t = 2 * k, 1 / (1 + mp.exp(-a_)), mp.tanh(a_ / 2)

        def masses(m):
            return (
                [mp.exp(-a_ * m) * norm]
                + [t * mp.exp(-a_ * abs(x - m)) for x in range(1, top)]
                + [mp.exp(-a_ * (top - m)) * norm]
            )

        q = masses(0)
        p = [
            sum(bc * mc for bc, mc in zip(b, col))
            for col in zip(*[masses(2 * c) for c in range(k + 1)])
        ]
        assert abs(sum(p) - 1) < mp.mpf(10) ** -40 and abs(sum(q) - 1) < mp.mpf(10) ** -40
        remove = sum(max(x - g * y, 0) for x, y in zip(p, q))
        add = sum(max(y - g * x, 0) for x, y in zip(p, q))
        return float(max(remove, add))


@cache
def gaussian_realizable(n: int, k: int, eps: float, sigma: float) -> float:
    """max over both orders of int (dP - g dQ)_+, P = sum_c b_c N(2c, sigma^2), Q = N(0, sigma^2)."""
    with mp.workdps(50):
        b, g, s = _weights(n, k), mp.e ** mp.mpf(eps), mp.mpf(sigma)
        cdf = lambda x, m: mp.ncdf((x - m) / s)
        ratio = lambda x: sum(
            bc * mp.exp((4 * c * x - 4 * c * c) / (2 * s * s)) for c, bc in enumerate(b)
        )
        lo, hi = mp.mpf(-200) * s - 100, mp.mpf(200) * s + 2 * k + 100
        x1 = _one_crossing(lambda x: g - ratio(x), lo, hi)
        remove = sum(bc * (1 - cdf(x1, 2 * c)) for c, bc in enumerate(b)) - g * (1 - cdf(x1, 0))
        x2 = _one_crossing(lambda x: 1 / g - ratio(x), lo, hi)
        add = cdf(x2, 0) - g * sum(bc * cdf(x2, 2 * c) for c, bc in enumerate(b))
        return float(max(remove, add, 0))


def _brackets(event) -> list[tuple[float, float]]:
    """The adapter's delta brackets at accuracy 1e-3: one wider than asked (relative to max(upper, 1e-9): the
    realizable pair's lower side lies below the joint-convexity bound's upper side) warns, one within it does not."""
    accountant = HockeystickPLDAccountant(NeighboringRelation.REPLACE_ONE, accuracy=1e-3).compose(
        event
    )
    return [_warned_if_wide(lambda: accountant.get_delta_bracket(eps), 1e-3) for eps in EPSILONS]


def _warned_if_wide(read, accuracy: float) -> tuple[float, float]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lo, up = read()
    warned = any(w.category is AccuracyNotMetWarning for w in caught)
    assert warned == (up - lo > accuracy * max(up, 1e-9)), (lo, up, warned)
    return lo, up


def _check(brackets, exact):
    for (lo, up), value, eps in zip(brackets, exact, EPSILONS):
        assert 0.0 <= lo <= up, (eps, lo, up)
        assert lo <= value <= up, (eps, lo, value, up)


@pytest.mark.parametrize("scale", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("n,k", SIZES)
def test_laplace_bracket_holds_the_realizable_pair(n, k, scale):
    brackets = _brackets(E.SampledWithReplacementDpEvent(n, k, E.LaplaceDpEvent(scale)))
    _check(brackets, [laplace_realizable(n, k, eps, scale) for eps in EPSILONS])


@pytest.mark.parametrize("a", [0.5, 2.0])
@pytest.mark.parametrize("n,k", SIZES)
def test_discrete_laplace_bracket_holds_the_realizable_pair(n, k, a):
    brackets = _brackets(E.SampledWithReplacementDpEvent(n, k, E.DiscreteLaplaceDpEvent(a, 1)))
    _check(brackets, [discrete_laplace_realizable(n, k, eps, a) for eps in EPSILONS])


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
@pytest.mark.parametrize(
    "n,k",
    [
        (2, 2),
        pytest.param(3, 5, marks=pytest.mark.slow),
        pytest.param(5, 3, marks=pytest.mark.slow),
    ],
)
def test_gaussian_bracket_holds_the_realizable_pair(n, k, sigma):
    brackets = _brackets(E.SampledWithReplacementDpEvent(n, k, E.GaussianDpEvent(sigma)))
    _check(brackets, [gaussian_realizable(n, k, eps, sigma) for eps in EPSILONS])


def test_the_lower_side_is_the_realizable_pair_not_the_bound():
    """At n = K = 2, eps = 1 the joint-convexity bound is 0.35493 and the pair 0.32771: the lower side
    must sit at the pair (within the bracket's accuracy), far below the bound."""
    lo, up = _brackets(E.SampledWithReplacementDpEvent(2, 2, E.LaplaceDpEvent(1.0)))[1]
    exact = laplace_realizable(2, 2, 1.0, 1.0)
    assert exact - 1e-3 <= lo <= exact and up >= 0.3549


@pytest.mark.parametrize(
    "inner",
    [
        E.ComposedDpEvent([E.LaplaceDpEvent(1.0), E.LaplaceDpEvent(2.0)]),
        E.SelfComposedDpEvent(E.LaplaceDpEvent(1.0), 3),
        E.ComposedDpEvent([E.LaplaceDpEvent(1.0), E.DiscreteLaplaceDpEvent(0.5, 1)]),
    ],
)
def test_composed_inner_lower_side_is_below_its_lone_components_pair_and_the_upper_side(inner):
    """A composed inner's lower side is the best lone component's realizable pair (a marginal of the
    composed pair): it must be at least 0 and at most the upper side, and at most the composed realizable
    pair, which is at least each lone pair's value: checked through lower <= upper and lower >= the
    lone Laplace(1)'s pair minus the bracket width (the lone pair is itself a valid lower bound)."""
    for (lo, up), eps in zip(_brackets(E.SampledWithReplacementDpEvent(3, 3, inner)), EPSILONS):
        assert 0.0 <= lo <= up
        assert lo >= laplace_realizable(3, 3, eps, 1.0) - 2e-3
