"""The fixed-size-batch PLD accountants: the accountant contract over the replace-one mechanisms."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld

H = 2e-3


def test_broadcast_grid_equals_the_mechanism_composed_point_by_point():
    sigma = np.array([0.8, 1.5])[:, None]
    rounds = np.array([10, 40])[None, :]
    acc = pld.FixedBatchGaussianPLD(
        sigma=sigma, batch_size=20, n=500, rounds=rounds, value_discretization_interval=H
    )
    lo, up = acc.epsilon(1e-5, bound="both")
    assert lo.shape == up.shape == (2, 2)
    for i, s in enumerate(sigma.ravel()):
        for j, t in enumerate(rounds.ravel()):
            dist = pld.fixed_size_subsampled_gaussian(
                s, 20, 500, value_discretization_interval=H
            ).self_compose(int(t))
            assert (lo[i, j], up[i, j]) == dist.epsilon(1e-5, bound="both")
    assert np.all(lo <= up)
    assert up[0, 1] > up[0, 0] and up[0, 0] > up[1, 0]  # more rounds, less noise: larger epsilon
    assert acc.delta(1.0).shape == (2, 2)
    scalar = pld.FixedBatchGaussianPLD(
        sigma=1.0, batch_size=20, n=500, rounds=10, value_discretization_interval=H
    )
    assert isinstance(scalar.delta(1.0), float)


def test_full_batch_is_the_gaussian_mechanism_with_double_shift():
    """m = n: every round is N(2 Delta) vs N(0); T rounds: theta(2 sqrt(T) Delta / sigma, eps) exactly."""
    acc = pld.FixedBatchGaussianPLD(
        sigma=3.0, batch_size=7, n=7, rounds=25, value_discretization_interval=H
    )
    eps = np.array([0.5, 1.0, 3.0])
    exact = hs.theta(2 * math.sqrt(25) / 3.0, eps)
    lo, up = acc.delta(eps, bound="both")
    assert np.all(lo <= exact * (1 + 1e-12)) and np.all(exact <= up * (1 + 1e-12))
    np.testing.assert_allclose(up, exact, rtol=2e-3)


@pytest.mark.slow
def test_with_replacement_is_looser_than_without_at_equal_batch():
    """K draws with replacement can repeat the record: never more private than a batch of K distinct
    records (same n, sigma, Delta) -- the certified upper bounds are ordered, and both lower bounds
    stay below them."""
    common = dict(sigma=1.0, batch_size=8, n=200, rounds=30, value_discretization_interval=H)
    without = pld.FixedBatchGaussianPLD(**common).epsilon(1e-5, bound="both")
    with_ = pld.WithReplacementBatchGaussianPLD(**common).epsilon(1e-5, bound="both")
    assert with_[1] >= without[1] and without[0] <= without[1] and with_[0] <= with_[1]
    assert (
        pld.WithReplacementBatchGaussianPLD(**dict(common, batch_size=300)).delta(1.0) > 0
    )  # K > n allowed


@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(sigma=0.0), "sigma"),
        (dict(batch_size=2.5), "batch_size"),
        (dict(n=0), "^n must be"),
        (dict(rounds=0), "rounds"),
        (dict(batch_size=600), "batch_size must be <= n"),
        (dict(sensitivity=-1.0), "sensitivity"),
        (dict(value_discretization_interval=0.0), "value_discretization"),
    ],
)
def test_bad_arguments_name_the_argument_and_the_rule(bad, match):
    params = dict(sigma=1.0, batch_size=10, n=500, rounds=5)
    with pytest.raises(ValueError, match=match):
        pld.FixedBatchGaussianPLD(**{**params, **bad})


def test_bad_queries():
    acc = pld.WithReplacementBatchGaussianPLD(
        sigma=1.0, batch_size=4, n=50, rounds=3, value_discretization_interval=H
    )
    with pytest.raises(ValueError, match="epsilon"):
        acc.delta(-1.0)
    with pytest.raises(ValueError, match="delta"):
        acc.epsilon(1.5)
    with pytest.raises(ValueError, match="bound"):
        acc.delta(1.0, bound="middle")


def test_distinct_points_group_by_the_parameters_alone() -> None:
    """Grouping sorts the parameters' own distinct rows, not one row per argument value: a million epsilon values
    at one parameter point take well under a second of CPU, and a mixed broadcast groups every value with the
    parameter row it meets."""
    import time

    from hockeystick.pld.accountants.fixed_batch import DistinctPoints

    x = np.linspace(0.0, 10.0, 1_000_000)
    start = time.process_time()
    grouped = DistinctPoints(x, "epsilon", {"a": np.array(1.0), "b": np.array(2.0)})
    assert time.process_time() - start < 0.5
    assert grouped.points.tolist() == [[1.0, 2.0]] and np.array_equal(
        grouped.at(0), np.arange(x.size)
    )
    a, b = np.array([[1.0], [2.0], [1.0]]), np.array([2.0, 1.0, 2.0, 2.0])
    grouped = DistinctPoints(np.arange(12.0).reshape(3, 4), "epsilon", {"a": a, "b": b})
    rows = np.stack(np.broadcast_arrays(a, b), axis=-1).reshape(-1, 2)
    for i, point in enumerate(grouped.points):
        assert np.array_equal(grouped.at(i), np.flatnonzero((rows == point).all(axis=1)))
