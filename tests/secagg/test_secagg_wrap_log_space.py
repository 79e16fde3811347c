"""The Skellam wrap bound in log space: min over t of t^2 v / 2 + V (cosh t - 1) - t m, against mpmath's minimum
at 60 digits, from a few bits up to 62 (where cosh overflows the doubles long before the grid of t's the bound
once walked, which answered 1.0), and the probability never rounded down to 0."""

from __future__ import annotations

import math

import mpmath
import pytest

from hockeystick.secagg import bits_for, wrap_probability
from hockeystick.secagg.modular_wrap import log_chernoff_tail

RUN = dict(clients=100, dimension=10**4, clip_norm=1.0, granularity=1e-3, local_sigma=0.05)


def _exact_log_tail(m: float, v: float, big_v: float) -> mpmath.mpf:
    """min_t t^2 v / 2 + V (cosh t - 1) - t m at 60 digits: the exponent is convex, its minimum at the root of
    t v + V sinh t = m, found by bisection (no starting guess to go wrong)."""
    with mpmath.workdps(60):
        m, v, big_v = mpmath.mpf(m), mpmath.mpf(v), mpmath.mpf(big_v)
        lo, hi = mpmath.mpf(0), mpmath.asinh(m / big_v)
        for _ in range(400):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if mid * v + big_v * mpmath.sinh(mid) < m else (lo, mid)
        return min(mpmath.mpf(0), lo * lo * v / 2 + big_v * (mpmath.cosh(lo) - 1) - lo * m)


@pytest.mark.parametrize("bits", [8, 12, 14, 16, 21, 30, 40, 53, 54, 58, 62])
@pytest.mark.parametrize("v, big_v", [(1e6, 2.5e5), (1.0, 1e-6), (1e-3, 1e8), (1e12, 1.0)])
def test_the_log_bound_is_mpmaths_minimum_within_1e_12_and_never_below_it(bits, v, big_v):
    m = 2.0 ** (bits - 1) - 100
    ours, exact = log_chernoff_tail(m, v, big_v), _exact_log_tail(m, v, big_v)
    assert (
        ours >= exact * (1 + 1e-13) - 1e-300
    )  # a valid bound: at or above the true minimum (both <= 0)
    assert ours <= exact * (1 - 1e-12) + 1e-12  # and that minimum, not a grid point's or 0


def test_the_skellam_bound_falls_with_the_bits_and_is_never_zero_or_one_past_its_reach():
    skellam = [wrap_probability(bits=b, **RUN, noise="skellam") for b in range(12, 63)]
    assert all(a >= b for a, b in zip(skellam, skellam[1:]))
    assert (
        all(p > 0.0 for p in skellam) and max(skellam[8:]) < 1e-100
    )  # 20 bits and up: astronomically small
    ddg = [wrap_probability(bits=b, **RUN) for b in range(12, 63)]
    assert all(p > 0.0 for p in ddg)
    assert bits_for(1e-9, **RUN, noise="skellam") == bits_for(1e-9, **RUN) == 15


def test_the_skellam_bound_at_16_bits_is_the_exact_minimum():
    """At 16 bits the bound is representable: 2 d e^{min}, widened by 1e-9, against mpmath's minimum."""
    v = (
        100 * 1.0 / 1e-3
    ) ** 2 / 10**4  # the signal's proxy; conditional rounding lowers m by n instead
    big_v = 100 * (0.05 / 1e-3) ** 2
    exact = float(2 * 10**4 * mpmath.exp(_exact_log_tail(2.0**15 - 100, v, big_v)))
    got = wrap_probability(bits=16, **RUN, noise="skellam")
    assert exact <= got <= exact * (1 + 1e-6)
    assert math.log(got) == pytest.approx(math.log(exact), rel=1e-8)


@mpmath.workdps(40)
def test_the_noise_tail_bound_holds_a_gaussian_signal_s_exact_tail():
    """A v-subgaussian signal X ~ N(0, v) beside the sum N of n discrete Gaussians: P(|X + N| >= m), summed exactly
    with mpmath at 40 digits, is below exp(log_noise_tail_bound), which is within a factor 20 of it and below the
    joint Chernoff bound 2 e^{-m^2 / (2 (v + n s^2))}."""
    from hockeystick.secagg.modular_wrap import log_noise_tail_bound

    sigma, clients, v = 2.0, 3, 4.0
    one = {y: mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * sigma**2)) for y in range(-40, 41)}
    z = mpmath.fsum(one.values())
    law = {0: mpmath.mpf(1)}
    for _ in range(clients):
        nxt: dict = {}
        for a, pa in law.items():
            for b, pb in one.items():
                nxt[a + b] = nxt.get(a + b, 0) + pa * pb / z
        law = nxt
    for m in (12.0, 20.0, 28.0):
        exact = mpmath.fsum(
            p * (mpmath.ncdf((-m - y) / mpmath.sqrt(v)) + 1 - mpmath.ncdf((m - y) / mpmath.sqrt(v)))
            for y, p in law.items()
        )
        bound = math.exp(
            log_noise_tail_bound(m, v, "distributed_discrete_gaussian", sigma, clients)
        )
        assert exact <= bound <= 20 * exact
        assert bound < 2 * math.exp(log_chernoff_tail(m, v + clients * sigma**2, 0.0))
