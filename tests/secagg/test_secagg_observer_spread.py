"""The observer's lower side over every coordinate (``secagg.observer_spread``): below the exact pair enumerated on
Z^d at small d, above the shifted coordinate alone, near the pair that reveals participation where d / n^2 is large,
and its binomial masses against mpmath at 50 digits."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from hockeystick.pld.mechanisms.constructors import from_distributions
from hockeystick.secagg import DistributedDiscreteGaussian, DistributedSkellam
from hockeystick.secagg.lattice_pld import ddg_sum_masses, skellam_masses
from hockeystick.secagg.observer_shares import shares_pair_pld
from hockeystick.secagg.observer_spread import (
    binomial_bin_masses,
    exceedance_interval,
    spread_pair_pld,
)


def _exact_delta(fewer, more, shift: int, rate: float, dimension: int, epsilon: float) -> float:
    """sum (P - e^eps Q)_+ of the round on Z^d, every outcome of the windows enumerated (d small)."""
    x0, m0, _, _ = fewer
    x1, m1, _, _ = more
    lo, hi = (
        x0,
        x0 + m0.size,
    )  # outcomes where N_n has a mass; N_{n+1} read there (0 outside its window)

    def at(x, m, y):
        i = y - x
        return m[i] if 0 <= i < m.size else 0.0

    ys = range(lo, hi)
    f = np.array([at(x0, m0, y) for y in ys])
    g = np.array([at(x1, m1, y) for y in ys])
    g_shift = np.array([at(x1, m1, y - shift) for y in ys])
    total = 0.0
    rest_f, rest_g = f, g
    for _ in range(dimension - 2):
        rest_f, rest_g = np.multiply.outer(rest_f, f), np.multiply.outer(rest_g, g)
    rest_f, rest_g = rest_f.ravel(), rest_g.ravel()
    for i in range(len(ys)):
        p = rate * g_shift[i] * rest_g + (1 - rate) * f[i] * rest_f
        q = rate * g[i] * rest_g + (1 - rate) * f[i] * rest_f
        total += float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum())
    return total


@pytest.mark.parametrize(
    ("variance", "shift", "rate", "dimension"), [(3.0, 2, 0.5, 3), (2.0, 1, 0.3, 4)]
)
def test_the_lower_side_is_below_the_exact_pair_on_small_dimensions(
    variance, shift, rate, dimension
):
    # Skellam shares of variance mu each, n = 1 survivor besides the client: N_1 = Sk(mu), N_2 = Sk(2 mu)
    fewer, more = skellam_masses(variance, shift), skellam_masses(2 * variance, shift)
    pair = spread_pair_pld(fewer, more, shift, rate, dimension, 1e-4)
    one_coordinate = shares_pair_pld(fewer, more, shift, rate, 1e-4)
    for eps in (0.0, 0.2, 0.5):
        exact = _exact_delta(fewer, more, shift, rate, dimension, eps)
        low = float(pair.delta(eps, bound="lower"))
        assert low <= exact * (1 + 1e-9) + 1e-12
        assert (
            low >= 0.5 * exact
        )  # the count of wide coordinates reads much of what d coordinates tell
        # the statistic refines y_1 alone: never below the shifted coordinate's lower side
        assert low >= float(one_coordinate.delta(eps, bound="lower")) - 1e-6


def test_the_lower_side_nears_the_pair_that_reveals_participation_at_large_dimension():
    """Revealing the bit is more information than the release (an upper bound on it); at d / n^2 = 10^6 the spread
    tells the bit almost surely, and the lower side is within 1% of that pair's delta, q delta_shift(eps)."""
    sigma, n, shift, rate = 3.0, 2, 4, 0.1
    fewer, more = ddg_sum_masses(sigma, n, shift), ddg_sum_masses(sigma, n + 1, shift)
    pair = spread_pair_pld(fewer, more, shift, rate, 4 * 10**6, 1e-4)
    x0, m, _, _ = more
    revealed = from_distributions(
        np.concatenate([m, np.zeros(shift)]),
        np.concatenate([np.zeros(shift), m]),
        value_discretization_interval=1e-4,
    )
    for eps in (0.1, 0.5, 1.0):
        bound = rate * float(revealed.delta(eps, bound="upper"))
        low = float(pair.delta(eps, bound="lower"))
        assert low <= bound * (1 + 1e-6)
        assert low >= 0.99 * bound


def test_the_cross_device_observer_lower_side_rises_above_the_shifted_coordinate_s():
    """d = 10^6 coordinates of 1000 shares each: their spread moves the lower side above the shifted coordinate's."""
    acc = DistributedDiscreteGaussian(
        clip_norm=1.0, granularity=0.00034073954964729036, dimension=10**6, local_sigma=0.8178681542682358,
        min_surviving_clients=1000, rounds=1, sampling_rate=1e-3, value_discretization_interval=1e-5,
    )  # fmt: skip
    n, h = 1000, 1e-5
    fewer, more = acc.noise_masses(n), acc.noise_masses(n + 1)
    alone = shares_pair_pld(fewer, more, acc.sensitivity.realizable_shift, 1e-3, h)
    spread = spread_pair_pld(fewer, more, acc.sensitivity.realizable_shift, 1e-3, 10**6, h)
    eps = 3e-5  # a few grid steps: at eps = 0 both read the total variation, which the grid's rounding blurs
    assert float(spread.delta(eps, bound="lower")) > 1.15 * float(alone.delta(eps, bound="lower"))


@pytest.mark.parametrize(("trials", "rate"), [(999, 0.1), (20000, 0.105), (40, 0.5)])
def test_binomial_bin_masses_hold_mpmath_s(trials, rate):
    mpmath.mp.dps = 50
    sd = math.sqrt(trials * rate * (1 - rate))
    first, last = max(0, int(trials * rate - 6 * sd)), min(trials, int(trials * rate + 6 * sd))
    edges = np.unique(np.linspace(first, last, 9).round().astype(np.int64))
    interval = (rate * (1 - 1e-9), rate * (1 + 1e-9))
    lower, upper = binomial_bin_masses(trials, interval, edges)
    p = mpmath.mpf(rate)

    def pmf(k):
        return mpmath.binomial(trials, k) * p**k * (1 - p) ** (trials - k)

    def at_least(k):  # P(K >= k) = I_p(k, trials - k + 1)
        return mpmath.betainc(k, trials - k + 1, 0, p, regularized=True) if k > 0 else mpmath.mpf(1)

    bounds = [1 - at_least(int(edges[0]))]
    for a, b in itertools.pairwise(edges.tolist()):
        stop = b + 1 if b == edges[-1] else b
        bounds.append(mpmath.fsum(pmf(k) for k in range(a, stop)))
    bounds.append(at_least(int(edges[-1]) + 1) if edges[-1] < trials else mpmath.mpf(0))
    for low, high, exact in zip(lower, upper, bounds, strict=True):
        assert low <= exact <= high
        assert high - low <= 1e-5 * exact + 1e-300


def test_exceedance_interval_holds_the_exact_tail():
    mpmath.mp.dps = 50
    variance, c = 7.5, 3
    lo, hi = exceedance_interval(skellam_masses(variance), c)
    inside = mpmath.fsum(
        mpmath.exp(-variance) * mpmath.besseli(abs(y), variance) for y in range(-c, c + 1)
    )
    assert lo <= 1 - inside <= hi and hi - lo < 1e-8
    with pytest.raises(ValueError, match="threshold"):
        exceedance_interval(skellam_masses(variance), 10**6)


@pytest.mark.parametrize("rate", [0.5, 0.05])
def test_the_observer_bracket_holds_the_exact_round_on_z3(rate):
    """One round, d = 3, one other survivor, Skellam shares of variance 3, the update 2 e_1: the exact pair on Z^3
    (every outcome of the windows) lies in the accountant's bracket, both sides and both readings of the upper."""
    acc = DistributedSkellam(
        clip_norm=2.0, granularity=1.0, dimension=3, local_sigma=math.sqrt(3.0), min_surviving_clients=1,
        sampling_rate=rate,
    )  # fmt: skip
    assert acc.sensitivity.realizable_shift == 2
    fewer, more = skellam_masses(3.0, 2), skellam_masses(6.0, 2)
    for eps in (0.0, 0.3, 1.0):
        exact = _exact_delta(fewer, more, 2, rate, 3, eps)
        low, high = acc.delta(eps, bound="both", against="observer")
        assert low <= exact * (1 + 1e-9) + 1e-12 and exact <= high
