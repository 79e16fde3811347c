"""``matrix.pipeline_delta`` and ``verify_then_release``: the (eps, delta_overall) of verify-then-run.

Checked against (1) the formula minimized independently (scipy's bounded scalar minimizer over tau, the way
jax_privacy's ``get_overall_delta`` computes it) and (2) the pipeline's exact delta for the worst draws the proof
allows, Bernoulli draws: with the mechanism's delta_M, the pass probability is the binomial probability that N
Bernoulli(delta_M) draws average at most delta_b, and the pipeline's delta is p delta_M + (1 - p) delta_b (a
fallback at exactly delta_b), which must never exceed delta_overall whatever delta_M is.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, special, stats

from hockeystick.matrix import (
    BallsInBinsMonteCarlo,
    ImportanceSampledMonteCarlo,
    pipeline_delta,
    verify_then_release,
)
from hockeystick.matrix.verified_release import pipeline_base_delta


def reference_overall(draws: int, base: float, bound: float = 1.0) -> float:
    """min over tau in [1, min(B, 1)/delta_b) of tau delta_b + exp(-N kl(delta_b/B || tau delta_b/B)) (1 - tau delta_b)."""

    def kl(a: float, m: float) -> float:
        return float(special.rel_entr(a, m) + special.rel_entr(1 - a, 1 - m))

    def value(tau: float) -> float:
        m = tau * base / bound
        q = 0.0 if m >= 1 else math.exp(-draws * kl(base / bound, m))
        return tau * base + q * (1 - tau * base)

    top = min(bound, 1.0) / base
    tau = optimize.minimize_scalar(
        value, bounds=(1.0, top), method="bounded", options={"xatol": 1e-12}
    ).x
    return min(value(tau), value(1.0), 1.0)


@pytest.mark.parametrize(
    "draws, base, bound",
    [
        (10**7, 1e-5, 1.0),
        (10**5, 1e-3, 1.0),
        (10**6, 1e-6, 1.0),
        (10**5, 1e-8, 1e-5),
        (2000, 0.01, 0.2),
    ],
)
def test_pipeline_delta_is_the_formula_at_its_minimum(draws, base, bound):
    ours = pipeline_delta(draws, base, support_bound=bound)
    reference = reference_overall(draws, base, bound)
    assert reference <= ours <= reference * (1 + 1e-8)
    assert ours >= base


@pytest.mark.parametrize("draws, base", [(2000, 0.01), (20000, 1e-3), (10**5, 1e-4)])
def test_pipeline_delta_bounds_the_exact_pipeline_with_bernoulli_draws(draws, base):
    """Bernoulli draws attain the Chernoff step's worst case; over delta_M from delta_b / 10 to 100 delta_b, the exact
    pipeline delta p delta_M + (1 - p) delta_b stays at or below delta_overall, and rises above delta_b (so the
    surplus of delta_overall over delta_b is needed)."""
    overall = pipeline_delta(draws, base)
    exact = []
    for delta_m in base * np.exp(np.linspace(math.log(0.1), math.log(100.0), 400)):
        passes = stats.binom.cdf(math.floor(draws * base + 1e-9), draws, delta_m)  # mean <= delta_b
        exact.append(passes * delta_m + (1 - passes) * base)
    assert max(exact) <= overall
    assert max(exact) > 1.04 * base


def test_base_delta_meets_the_target_and_is_the_largest_found():
    for draws, target, bound in [(10**7, 1e-5, 1.0), (10**5, 1e-8, 1e-5), (5000, 0.01, 1.0)]:
        base = pipeline_base_delta(draws, target, support_bound=bound)
        assert 0 < base < target
        assert pipeline_delta(draws, base, support_bound=bound) <= target
        assert pipeline_delta(draws, base * 1.001, support_bound=bound) > target
    # a bound B(alpha) far below 1 lets fewer draws verify a small delta
    assert pipeline_base_delta(10**5, 1e-8, support_bound=1e-5) > 0.3e-8
    assert pipeline_base_delta(10**5, 1e-8) == 0.0


def test_verify_then_release_states_a_pipeline_guarantee():
    """b = 1, mu = 1: delta(4.5) = 5.9e-6 (Gaussian closed form), B(alpha) = 2.7e-5. Verifying eps 4.5 at target 2e-5
    with 20 000 importance-sampled draws passes; at eps 3.5 (delta 3e-4) it fails and the fallback runs. Both state
    (eps, delta_overall)."""
    run = ImportanceSampledMonteCarlo(
        strategy=np.eye(1), noise_multiplier=1.0, cycle_length=1, epsilon=4.5, draws=20000, seed=2
    )
    answer = verify_then_release(run, 4.5, 2e-5)
    assert answer.kind == "pipeline guarantee" and answer.verified
    assert answer.base_delta < answer.delta <= 2e-5 and answer.estimate <= answer.base_delta
    assert 2e-5 < answer.support_bound < 1e-4
    assert "pipeline" in answer.statement() and "not a certificate" in answer.statement()
    assert "pipeline guarantee" in repr(answer) and "not certified" in repr(answer)
    failed = verify_then_release(run, 3.5, 2e-5)
    assert not failed.verified and "fallback" in repr(failed)


def test_verify_then_release_refuses_a_target_beyond_its_draws():
    run = ImportanceSampledMonteCarlo(
        strategy=np.eye(1),
        noise_multiplier=1.0,
        cycle_length=1,
        epsilon=1.0,
        stretch=1.0,
        draws=1000,
        seed=0,
    )
    with pytest.raises(ValueError, match="target_delta .* cannot be reached"):
        verify_then_release(run, 1.0, 1e-6)
    with pytest.raises(ValueError, match="epsilon"):
        verify_then_release(run, math.inf, 1e-2)
    with pytest.raises(ValueError, match="base_delta"):
        pipeline_delta(100, 0.0)
    with pytest.raises(ValueError, match="support_bound"):
        pipeline_delta(100, 0.1, support_bound=-1.0)


def test_plain_draws_verify_too():
    """BallsInBinsMonteCarlo's plain draws (B = 1): C = I over 4 rounds, 2 bins, z = 1, 20 000 draws, target 0.05:
    eps 3 (estimate 0.011) passes at base 0.0437, eps 1 (estimate 0.18) does not."""
    run = BallsInBinsMonteCarlo(
        strategy=np.eye(4), noise_multiplier=1.0, cycle_length=2, draws=20000, seed=0
    )
    passed, failed = verify_then_release(run, 3.0, 0.05), verify_then_release(run, 1.0, 0.05)
    assert passed.verified and not failed.verified and passed.support_bound == 1.0
    assert (
        passed.base_delta == pytest.approx(pipeline_base_delta(20000, 0.05))
        and passed.delta <= 0.05
    )
