"""The binomial tails and Clopper-Pearson limits of hockeystick.audit.tails against 50-digit mpmath: every
limit on its safe side of the exact root, and within 1e-5 relative of it (the margin covering scipy's
error), at 10^6 trials with 0, 1, a few, all but one and all successes; every widened tail above the exact
one, at counts from 0 to 10^6."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from scipy import special

from hockeystick.audit.tails import (
    binomial_cdf_upper,
    binomial_sf_upper,
    clopper_pearson_lower,
    clopper_pearson_upper,
)

mp.mp.dps = 50
N = 10**6
SIGNIFICANCES = (1e-15, 1e-9, 1e-3, 0.05, 0.5)


def _term(n: int, j: int, q: mp.mpf) -> mp.mpf:
    return mp.exp(
        mp.loggamma(n + 1)
        - mp.loggamma(j + 1)
        - mp.loggamma(n - j + 1)
        + j * mp.log(q)
        + (n - j) * mp.log1p(-q)
    )


def _terms_sum(n: int, first: int, last: int, q: mp.mpf) -> mp.mpf:
    """The sum of the binomial terms j = first..last: the first term from its log-gamma form, each next one
    by the ratio C(n, j + 1) / C(n, j) q / (1 - q) = (n - j) / (j + 1) q / (1 - q). At 60 working digits the
    20,000 products of a sum at 10^6 trials lose under 1e-54 relative, far below the 50 digits read."""
    with mp.workdps(60):
        term = _term(n, first, q)
        ratio = q / (1 - q)
        terms = [term]
        for j in range(first, last):
            term = term * (n - j) / (j + 1) * ratio
            terms.append(term)
        total = mp.fsum(terms)
    return +total


def exact_cdf(k: int, n: int, p: float) -> mp.mpf:
    """P(Binomial(n, p) <= k) at 50 digits: the terms on the short side of the mean, out to 40 standard
    deviations past k or the mean (the rest is below 1e-300 of the sum), subtracted from 1 above the mean."""
    q = mp.mpf(p)
    if k >= n or q == 0:
        return mp.mpf(1)
    if q == 1:
        return mp.mpf(0)
    x = float(q)
    width = int(40 * (n * x * (1 - x)) ** 0.5) + 60
    if k <= n * x:
        return _terms_sum(n, max(0, k - width), k, q)
    top = min(n, max(k + 1, int(n * x)) + width)
    return 1 - _terms_sum(n, k + 1, top, q)


def exact_sf(k: int, n: int, p: float) -> mp.mpf:
    """P(Binomial(n, p) >= k) at 50 digits."""
    return mp.mpf(1) if k <= 0 else 1 - exact_cdf(k - 1, n, p)


def _root(tail, s: float, start: float, rising: bool) -> mp.mpf:
    """The p where the monotone ``tail`` crosses s, by 100 bisection steps in a bracket 1e-6 relative around
    ``start`` (scipy's quantile, far closer than that)."""
    low, high = (
        mp.mpf(start) * (1 - mp.mpf("1e-6")),
        min(mp.mpf(start) * (1 + mp.mpf("1e-6")), mp.mpf(1)),
    )
    assert (tail(low) < s) == rising and (tail(high) > s) == rising
    for _ in range(100):
        middle = (low + high) / 2
        if (tail(middle) < s) == rising:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def exact_upper(k: int, n: int, s: float) -> mp.mpf:
    """The exact Clopper-Pearson upper limit: the p with P(X <= k) = s."""
    if k == 0:
        return 1 - mp.mpf(s) ** (mp.mpf(1) / n)
    if k == n - 1:
        return (1 - mp.mpf(s)) ** (mp.mpf(1) / n)
    return _root(
        lambda p: exact_cdf(k, n, p), s, float(special.betainccinv(k + 1, n - k, s)), rising=False
    )


def exact_lower(k: int, n: int, s: float) -> mp.mpf:
    """The exact Clopper-Pearson lower limit: the p with P(X >= k) = s."""
    if k == n:
        return mp.mpf(s) ** (mp.mpf(1) / n)
    if k == 1:
        return 1 - (1 - mp.mpf(s)) ** (mp.mpf(1) / n)
    return _root(
        lambda p: exact_sf(k, n, p), s, float(special.betaincinv(k, n - k + 1, s)), rising=True
    )


# closed forms at 0, 1, n - 1 and n successes; a root of a 50-digit sum between them
COUNTS = [
    0,
    1,
    pytest.param(3, marks=pytest.mark.slow),
    pytest.param(10, marks=pytest.mark.slow),
    N - 1,
    N,
]


@pytest.mark.parametrize("k", COUNTS)
@pytest.mark.parametrize("s", SIGNIFICANCES)
def test_upper_limit_is_never_below_the_exact_one(k, s):
    got = float(clopper_pearson_upper(np.int64(k), np.int64(N), s))
    if k == N:
        assert got == 1.0
        return
    exact = exact_upper(k, N, s)
    assert got >= exact  # the safe side: P(X <= k) at the limit is at most s
    assert exact_cdf(k, N, got) <= s
    assert got <= 1.0
    if got < 1.0:
        assert (mp.mpf(got) - exact) / exact < 1e-5


@pytest.mark.parametrize(
    "k", [c for c in COUNTS if c != N - 1] + [pytest.param(N - 1, marks=pytest.mark.slow)]
)
@pytest.mark.parametrize("s", SIGNIFICANCES)
def test_lower_limit_is_never_above_the_exact_one(k, s):
    got = float(clopper_pearson_lower(np.int64(k), np.int64(N), s))
    if k == 0:
        assert got == 0.0
        return
    exact = exact_lower(k, N, s)
    assert got <= exact
    assert exact_sf(k, N, got) <= s
    assert (exact - mp.mpf(got)) / exact < 1e-5


def test_scipy_quantile_alone_falls_on_the_unsafe_side_where_the_stepped_limit_does_not():
    # betainccinv's quantile for 10 successes of 10^6 at 0.05 puts P(X <= 10) 4.6e-11 relative above 0.05:
    # as an upper limit it is too low; the stepped limit is not
    k, s = 10, 0.05
    raw = float(special.betainccinv(k + 1, N - k, s))
    assert exact_cdf(k, N, raw) > s
    assert exact_cdf(k, N, float(clopper_pearson_upper(np.int64(k), np.int64(N), s))) <= s


@pytest.mark.parametrize(
    "k",
    [
        0,
        1,
        5,
        30,
        *(pytest.param(c, marks=pytest.mark.slow) for c in (1000, 10_000, N // 2, N - 1000, N - 1)),
    ],
)
def test_widened_tails_are_above_the_exact_ones(k):
    # scipy's bdtr errs by up to 2.4e-9 relative at 10^6 trials (k = N / 2, measured here); the margin is
    # 2^-40 (n + 16) = 9.1e-7
    for shift in (0.97, 0.99, 1.0, 1.01, 1.03):
        p = min(max(k / N * shift, 1e-7), 1 - 1e-7)
        if exact_cdf(k, N, p) < 1e-290 or exact_sf(k, N, p) < 1e-290:
            assert float(binomial_cdf_upper(np.int64(k), np.int64(N), p)) >= 1e-290
            assert float(binomial_sf_upper(np.int64(k), np.int64(N), p)) >= 1e-290
            continue  # below TINY the bound is TINY itself
        assert mp.mpf(float(binomial_cdf_upper(np.int64(k), np.int64(N), p))) >= exact_cdf(k, N, p)
        assert mp.mpf(float(binomial_sf_upper(np.int64(k), np.int64(N), p))) >= exact_sf(k, N, p)


def test_a_tail_below_the_doubles_is_bounded_by_tiny():
    # P(X <= 999000) at p = 1 - 1e-7 is 1.4e-3568: scipy returns 0, the bound TINY
    assert float(binomial_cdf_upper(np.int64(N - 1000), np.int64(N), 1 - 1e-7)) == 1e-290
    assert float(binomial_cdf_upper(np.int64(N - 1000), np.int64(N), 1.0)) == 0.0


def test_limits_vectorize_and_keep_their_order():
    k = np.arange(0, 101)
    low = clopper_pearson_lower(k, np.int64(100), 0.025)
    up = clopper_pearson_upper(k, np.int64(100), 0.025)
    assert low.shape == up.shape == (101,)
    assert np.all(low < up) and np.all(np.diff(low) > 0) and np.all(np.diff(up) > 0)
    assert low[0] == 0.0 and up[-1] == 1.0
