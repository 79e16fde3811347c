"""Amplification by shuffling (FMT clone bound): above an exact shuffled mechanism, below the closed form."""

import math

import numpy as np
import pytest
from scipy import stats

from hockeystick.isrl import ShuffledLDP, closed_form_shuffle_epsilon


def shuffled_randomized_response_delta(eps0: float, n: int, eps: float) -> float:
    """Exact delta of n shuffled binary randomized responses (flip probability 1/(1 + e^eps0)), the other
    n - 1 users holding 0, the target 1 vs 0: the shuffled output is the count of ones.  Any valid
    shuffling bound must be at least this (worst case over the two orders)."""
    q = 1 / (1 + math.exp(eps0))
    k = np.arange(n + 1)
    rest = stats.binom.pmf(k, n - 1, q)
    shifted = np.concatenate([[0.0], rest[:-1]])
    p = (1 - q) * shifted + q * rest  # target holds 1
    r = q * shifted + (1 - q) * rest  # target holds 0
    return max(
        np.maximum(p - math.exp(eps) * r, 0).sum(), np.maximum(r - math.exp(eps) * p, 0).sum()
    )


@pytest.mark.parametrize("eps0, n", [(0.5, 50), (1.0, 200), (2.0, 1000), (4.0, 3000), (0.1, 10)])
def test_clone_bound_is_above_an_exact_shuffled_mechanism(eps0, n):
    acc = ShuffledLDP(epsilon0=eps0, n=n)
    for eps in np.linspace(0, eps0, 9):
        exact = shuffled_randomized_response_delta(eps0, n, float(eps))
        # the reference's own round-off (at eps = eps0 the exact value 0 comes out as ~1e-19)
        assert acc.delta(float(eps)) >= exact - 4 * np.finfo(float).eps * (1 + math.exp(eps))


def test_fmt_reported_example():
    """FMT's repository example: n = 1e5 shuffled 4-DP randomizers are (eps, 1e-6)-DP for eps in
    [0.16754, 0.17279] (their stepped bracket of the same bound, whose exact value lies inside)."""
    eps = ShuffledLDP(epsilon0=4.0, n=100_000, rtol=1e-5).epsilon(1e-6)
    assert 0.16754 <= eps <= 0.17279


def test_numerical_bound_beats_the_closed_form_and_never_exceeds_eps0():
    for eps0, n, delta in [(1.0, 10_000, 1e-6), (2.0, 50_000, 1e-8), (0.5, 2_000, 1e-5)]:
        numerical = ShuffledLDP(epsilon0=eps0, n=n).epsilon(delta)
        assert numerical <= closed_form_shuffle_epsilon(epsilon0=eps0, n=n, delta=delta)
        assert numerical < eps0
    # too few users to amplify much: still never above eps0
    assert ShuffledLDP(epsilon0=1.0, n=3).epsilon(1e-9) <= 1.0


def test_delta_is_monotone_and_zero_at_eps0():
    acc = ShuffledLDP(epsilon0=1.5, n=500)
    deltas = acc.delta(np.linspace(0, 1.5, 16))
    assert np.all(np.diff(deltas) <= 0) and deltas[-1] == 0.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(epsilon0=-1.0, n=10), "epsilon0 must be finite and > 0"),
        (dict(epsilon0=1.0, n=1), "n must be an integer >= 2"),
        (dict(epsilon0=1.0, n=10.5), "n must be an integer >= 2"),
    ],
)
def test_refusals(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ShuffledLDP(**kwargs)
    with pytest.raises(ValueError, match="closed form"):
        closed_form_shuffle_epsilon(epsilon0=5.0, n=100, delta=1e-6)


@pytest.mark.parametrize("eps0, n", [(5e-324, 10), (1e-300, 100), (1e-17, 50), (1e-8, 10**6)])
def test_tiny_epsilon0_gives_a_valid_bound_not_a_crash(eps0, n):
    """alpha = e^eps0 / (e^eps0 + 1) rounds to 1/2: the bound falls back to the local pair's TV, tanh(eps0/2),
    plus the round-off margin: finite, in [0, 1], above the exact shuffled randomized response."""
    acc = ShuffledLDP(epsilon0=eps0, n=n)
    delta0 = acc.delta(0.0)
    assert 0.0 <= delta0 <= 1e-10
    assert delta0 >= shuffled_randomized_response_delta(eps0, n, 0.0) - 1e-16
    assert acc.epsilon(1e-6) == 0.0


def test_populations_beyond_the_exact_sum_are_refused_quickly():
    with pytest.raises(ValueError, match="use closed_form_shuffle_epsilon"):
        ShuffledLDP(epsilon0=0.5, n=10**12).delta(0.1)
    # a huge population at a large epsilon0 still sums few terms (C concentrates near n e^-eps0)
    assert ShuffledLDP(epsilon0=30.0, n=10**9).epsilon(1e-6) <= 30.0
