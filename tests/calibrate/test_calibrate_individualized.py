"""Individualized budgets (Boenisch et al. 2023): each group's certified epsilon at its own rate or noise meets
its budget and a 1 % step past it does not; the shared noise, clip scales and uniform baselines follow their
definitions; bad groups are refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.calibrate import individualized_noise, individualized_sample_rates
from hockeystick.training import DPSGD

BUDGETS, SIZES, DELTA = [1.0, 2.0, 4.0], [500, 300, 200], 1e-5


def test_sample_method_gives_each_group_the_largest_rate_its_budget_allows():
    plan = individualized_sample_rates(
        BUDGETS, SIZES, noise_multiplier=1.0, steps=100, target_delta=DELTA
    )
    at_rates = DPSGD(noise_multiplier=1.0, sample_rate=plan.sample_rates, steps=100).epsilon(DELTA)
    past = DPSGD(noise_multiplier=1.0, sample_rate=plan.sample_rates * 1.01, steps=100).epsilon(
        DELTA
    )
    assert (at_rates <= BUDGETS).all() and (past > BUDGETS).all()
    assert (
        plan.uniform_sample_rate == plan.sample_rates[0]
    )  # the strictest group's rate, for everyone
    assert plan.expected_sample_rate == pytest.approx(0.5 * plan.sample_rates[0] + 0.3 * plan.sample_rates[1] + 0.2 * plan.sample_rates[2], rel=1e-15)  # fmt: skip
    assert plan.batch_lost_to_uniform > 0


def test_scale_method_gives_each_group_the_least_noise_its_budget_allows_through_one_noise_draw():
    # 200 steps at q 0.01 (T q = 2): one read of the rounds per trial (at T q <= 1 the split read takes 4x longer)
    plan = individualized_noise(BUDGETS, SIZES, sample_rate=0.01, steps=200, target_delta=DELTA)
    sigmas = plan.noise_multipliers
    assert (
        DPSGD(noise_multiplier=sigmas, sample_rate=0.01, steps=200).epsilon(DELTA) <= BUDGETS
    ).all()
    assert (
        DPSGD(noise_multiplier=sigmas / 1.01, sample_rate=0.01, steps=200).epsilon(DELTA) > BUDGETS
    ).all()
    # one draw of standard deviation sigma_star * C; group g clipped to C_g = scale_g * C has noise multiplier sigma_g
    assert np.allclose(plan.noise_multiplier / plan.clip_scales, sigmas, rtol=1e-14)
    assert float(np.dot([0.5, 0.3, 0.2], plan.clip_scales)) == pytest.approx(1.0, rel=1e-14)
    assert plan.uniform_noise_multiplier == sigmas[0] > plan.noise_multiplier
    assert plan.noise_added_by_uniform == pytest.approx(
        sigmas[0] - plan.noise_multiplier, rel=1e-15
    )


@pytest.mark.parametrize(
    ("budgets", "sizes", "words"),
    [([1.0, -2.0], [1, 1], "target_epsilons"), ([[1.0]], [1], "target_epsilons"), ([1.0, 2.0], [1], "group_sizes"),
     ([1.0, 2.0], [1, 0], "group_sizes"), ([], [], "target_epsilons")],
)  # fmt: skip
def test_bad_groups_are_refused_by_name(budgets, sizes, words):
    with pytest.raises(ValueError, match=words):
        individualized_noise(budgets, sizes, sample_rate=0.01, steps=10, target_delta=DELTA)
    with pytest.raises(ValueError, match=words):
        individualized_sample_rates(
            budgets, sizes, noise_multiplier=1.0, steps=10, target_delta=DELTA
        )


@pytest.mark.parametrize(("rate", "steps", "words"), [(0.0, 10, "sample_rate"), (True, 10, "sample_rate"), (0.1, 0, "steps"), (0.1, 2.5, "steps")])  # fmt: skip
def test_bad_runs_are_refused_by_name(rate, steps, words):
    with pytest.raises(ValueError, match=words):
        individualized_noise([1.0], [1], sample_rate=rate, steps=steps, target_delta=DELTA)
