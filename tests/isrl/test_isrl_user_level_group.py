"""User-level privacy of a k-record user in paper 003's Noisy MB-SGD silo (GroupNoisyMBSGD): against exhaustive
enumeration of every index sequence on small silos, against group privacy, and its two ends (k = 1, k = n)."""

import itertools
import math

import numpy as np
import pytest

from hockeystick.isrl import (
    GroupNoisyMBSGD,
    NoisyMBSGD,
    UserLevelNoisyMBSGD,
    user_level_group_privacy,
)


def enumerated_delta(
    grads: np.ndarray, new_grads: np.ndarray, batch: int, sigma: float, eps: np.ndarray
) -> np.ndarray:
    """Exact delta(eps) (both orders) of one round: K indices drawn with replacement from the n records, the mean of
    their 1-D gradients plus N(0, sigma^2), for the data set ``grads`` against ``new_grads`` (every index sequence
    enumerated; the two Gaussian mixtures integrated on a fine grid)."""
    n = grads.size
    seqs = np.array(list(itertools.product(range(n), repeat=batch)))
    mean_p, mean_q = grads[seqs].mean(axis=1), new_grads[seqs].mean(axis=1)
    x = np.linspace(-1 - 12 * sigma, 1 + 12 * sigma, 12001)
    dens = lambda means: (
        np.exp(-0.5 * ((x[:, None] - means[None, :]) / sigma) ** 2).mean(axis=1)
        / (sigma * math.sqrt(2 * math.pi))
    )
    p, q = dens(mean_p), dens(mean_q)
    e = np.exp(eps)[:, None]
    return np.maximum(
        np.trapezoid(np.maximum(p - e * q, 0), x, axis=1),
        np.trapezoid(np.maximum(q - e * p, 0), x, axis=1),
    )


@pytest.mark.parametrize(
    "n, batch, group", [(4, 2, 2), (4, 3, 2), pytest.param(6, 2, 3, marks=pytest.mark.slow)]
)
def test_bracket_holds_every_enumerated_configuration(n, batch, group):
    sigma = 0.6
    acc = GroupNoisyMBSGD(
        sigma=sigma,
        lipschitz=1.0,
        batch_size=batch,
        silo_size=n,
        group_size=group,
        rounds=1,
        value_discretization_interval=1e-3,
    )
    eps = np.array([0.0, 0.3, 1.0, 2.0])
    rng = np.random.default_rng(5)
    pairs = []
    for old in itertools.product([-1.0, 1.0], repeat=n):
        for new_group in itertools.product([-1.0, 1.0], repeat=group):
            new = np.array(old)
            new[:group] = new_group
            pairs.append((np.array(old), new))
    for _ in range(10):  # interior gradients too, not only the corners of the box
        old = rng.uniform(-1, 1, n)
        new = old.copy()
        new[:group] = rng.uniform(-1, 1, group)
        pairs.append((old, new))
    worst = np.max([enumerated_delta(a, b, batch, sigma, eps) for a, b in pairs], axis=0)
    lower, upper = acc.delta(eps, bound="both")
    assert np.all(worst <= upper + 1e-7), (worst, upper)
    assert np.all(lower <= worst + 1e-7), (
        lower,
        worst,
    )  # the lower side is realized by a configuration


def test_tighter_than_group_privacy():
    base = dict(
        sigma=1.0,
        lipschitz=1.0,
        batch_size=10,
        silo_size=100,
        rounds=20,
        value_discretization_interval=1e-3,
    )
    delta0 = 1e-6
    eps0 = NoisyMBSGD(**base).epsilon(delta0)
    ratios = []
    for group in (2, 5, 10):
        group_eps, group_delta = user_level_group_privacy(
            epsilon=eps0, delta=delta0, silo_size=group
        )
        certified = GroupNoisyMBSGD(group_size=group, **base).epsilon(min(group_delta, 0.5))
        ratios.append(certified / group_eps)
    assert all(r < 1 for r in ratios) and ratios[-1] < 0.9 and ratios[0] > ratios[-1], ratios


def test_one_record_is_noisy_mb_sgd_and_the_whole_silo_is_the_gaussian_mechanism():
    base = dict(
        sigma=1.5, lipschitz=1.0, batch_size=8, rounds=10, value_discretization_interval=1e-3
    )
    eps = np.array([0.1, 0.5, 1.0, 3.0])
    one = GroupNoisyMBSGD(silo_size=40, group_size=1, **base).delta(eps, bound="both")
    ref = NoisyMBSGD(silo_size=40, **base).delta(eps, bound="both")
    np.testing.assert_array_equal(one[0], ref[0])
    np.testing.assert_array_equal(one[1], ref[1])
    lower, upper = GroupNoisyMBSGD(silo_size=40, group_size=40, **base).delta(eps, bound="both")
    exact = UserLevelNoisyMBSGD(sigma=1.5, lipschitz=1.0, rounds=10).delta(eps)
    assert np.all(lower <= exact) and np.all(exact <= upper)


def test_monotone_in_group_size_and_refusals():
    base = dict(
        sigma=1.0,
        lipschitz=1.0,
        batch_size=10,
        silo_size=60,
        rounds=10,
        value_discretization_interval=1e-3,
    )
    eps = [GroupNoisyMBSGD(group_size=g, **base).epsilon(1e-5) for g in (1, 2, 3, 6, 60)]
    assert all(a <= b for a, b in zip(eps, eps[1:]))
    with pytest.raises(ValueError, match="group_size must divide silo_size"):
        GroupNoisyMBSGD(group_size=7, **base)
    with pytest.raises(ValueError, match="group_size must divide silo_size"):
        GroupNoisyMBSGD(group_size=120, **base)
