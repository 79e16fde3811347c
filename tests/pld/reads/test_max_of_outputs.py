"""The max-of-outputs lower bound on epsilon (pld/reads/max_of_outputs.py) against 50-digit mpmath: at each threshold
the certified log bound is at most the exact log((P(S) - delta) / Q(S)), and close to it; the best threshold's bound
is below the exact epsilon of the Gaussian mechanism (one round, q = 1, where the test is the likelihood-ratio test and
so reaches it) and below the certified upper sides of the subsampled runs."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from hockeystick.numerics.certified_theta import theta_epsilon_lower, theta_epsilon_upper
from hockeystick.pld.reads.max_of_outputs import (
    best_threshold,
    log_bound,
    max_of_outputs_delta,
    max_of_outputs_epsilon,
)

mpmath.mp.dps = 50


def exact_log_bound(segments, z: float, delta: float):
    """log((P(S) - delta) / Q(S)) at threshold z in 50 digits (None where P(S) <= delta)."""
    z = mpmath.mpf(z)
    tail = lambda x: mpmath.erfc(x / mpmath.sqrt(2)) / 2  # noqa: E731
    log_keep_p, log_keep_q = mpmath.mpf(0), mpmath.mpf(0)
    for (sigma, q, c), rounds in segments:
        a = tail(z)
        b = (1 - mpmath.mpf(q)) * a + mpmath.mpf(q) * tail(z - mpmath.mpf(c) / mpmath.mpf(sigma))
        log_keep_p += rounds * mpmath.log1p(-b)
        log_keep_q += rounds * mpmath.log1p(-a)
    p = -mpmath.expm1(log_keep_p)
    q_s = -mpmath.expm1(log_keep_q)
    if p <= delta:
        return None
    return mpmath.log((p - delta) / q_s)


CASES = [
    ([((1.2038, 1.148e-6, 1.0), 79)], 8.4e-289),
    ([((0.6, 1e-5, 1.0), 10**6)], 1e-10),
    ([((0.5, 1e-4, 1.0), 10**4)], 1e-12),
    ([((2.0, 1e-6, 1.0), 10**8)], 1e-8),
    ([((1.0, 1.0, 1.0), 1)], 1e-5),
    ([((0.8, 0.01, 2.0), 50), ((1.3, 0.2, 1.0), 7)], 1e-6),
]


@pytest.mark.parametrize("segments, delta", CASES)
def test_each_threshold_below_the_exact_bound(segments, delta):
    zs = np.array([-1.0, 0.0, 2.5, 5.0, 8.0, 12.0, 20.0, 30.0, 36.0, 40.0])
    ours = log_bound(segments, zs, delta)
    for z, got in zip(zs, ours):
        exact = exact_log_bound(segments, float(z), delta)
        if exact is None:
            assert got == -math.inf
            continue
        if got == -math.inf:  # not certified above delta: only where P(S) is within a hair of it
            continue
        assert got <= exact, (z, got, exact)
        assert float(exact) - got <= 1e-8 * (1.0 + abs(float(exact))), (z, got, exact)


@pytest.mark.parametrize("sigma, delta", [(1.0, 1e-5), (0.5, 1e-10), (3.0, 1e-3), (0.3, 1e-200)])
def test_gaussian_mechanism_reaches_its_exact_epsilon(sigma, delta):
    found = max_of_outputs_epsilon([((sigma, 1.0, 1.0), 1)], delta)
    assert found <= float(theta_epsilon_upper(1.0 / sigma, delta))
    assert float(theta_epsilon_lower(1.0 / sigma, delta)) - found <= 1e-6


def test_best_threshold_below_its_exact_bound_at_that_threshold():
    segments, delta = [((1.2038, 1.148e-6, 1.0), 79)], 8.4e-289
    found = max_of_outputs_epsilon(segments, delta)
    z, value = best_threshold(segments, delta)
    assert found == value
    assert found <= float(exact_log_bound(segments, z, delta))
    assert found > 16.0  # the record's one sampled round far out: epsilon is large at delta 1e-289


def test_refuses_bad_arguments():
    with pytest.raises(ValueError, match="delta"):
        max_of_outputs_epsilon([((1.0, 0.1, 1.0), 10)], 0.0)
    with pytest.raises(ValueError, match="segment"):
        max_of_outputs_epsilon([((1.0, 0.0, 1.0), 10)], 1e-5)
    assert max_of_outputs_epsilon([], 1e-5) == 0.0


@pytest.mark.parametrize("sigma, eps", [(1.0, 2.0), (0.5, 10.0), (2.0, 0.1)])
def test_delta_of_the_gaussian_mechanism_reaches_its_exact_delta(sigma, eps):
    from hockeystick.numerics.certified_theta import theta_lower, theta_upper

    found = max_of_outputs_delta([((sigma, 1.0, 1.0), 1)], eps)
    assert found <= float(theta_upper(1.0 / sigma, eps))
    assert found >= float(theta_lower(1.0 / sigma, eps)) * (1.0 - 1e-6)


@pytest.mark.parametrize("segments, delta", CASES[:4])
def test_delta_and_epsilon_agree(segments, delta):
    """At the certified lower epsilon the test's delta exceeds delta (delta falls with eps); a little above it, the
    test certifies no more than the exact bound at its own threshold allows."""
    eps = max_of_outputs_epsilon(segments, delta)
    assert max_of_outputs_delta(segments, eps * (1.0 - 1e-9)) > delta
    assert max_of_outputs_delta(segments, eps + 0.05) < delta


def test_many_epsilons_at_once_are_the_coarse_ladders_bound():
    """``max_of_outputs_deltas`` (a curve's many epsilons on the coarse ladder at once): each value a certified lower
    bound no higher than the point-by-point read (which adds a finer ladder) and within 2 % of it."""
    from hockeystick.pld.reads.max_of_outputs import max_of_outputs_delta, max_of_outputs_deltas

    segments = [((0.6, 1e-5, 1.0), 10**6)]
    eps = np.linspace(0.0, 3.0, 40)
    many = max_of_outputs_deltas(segments, eps)
    one = np.array([max_of_outputs_delta(segments, float(e)) for e in eps])
    assert np.all(many >= 0.0) and np.all(many <= one)
    assert np.all(many >= 0.98 * one)
