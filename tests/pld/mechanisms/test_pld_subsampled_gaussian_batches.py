"""The subsampled Gaussian's PLD over many (sigma, q) points: one batched C++ discretization gives the
single-point PMFs bit for bit, a sweep longer than a batch equals its points evaluated alone, the grid chosen
from ``accuracy=`` meets it, and ``bound="upper"`` builds no optimistic side and changes no upper bound."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick import _core
from hockeystick.pld.mechanisms.constructors import MAX_CELLS, subsampled_gaussians


def test_batched_discretization_equals_one_at_a_time():
    """One C++ call for many (sigma, q, direction) items gives exactly the single-item PMFs."""
    sigma, q, h, tail = np.array([0.7, 2.0, 0.7]), np.array([0.02, 0.3, 1.0]), 2e-3, 1e-12
    remove = np.array([True, False, True])
    for threads in (1, 2):
        many = _core.pld_mechanisms.subsampled_gaussian_many(
            sigma, q, remove, h=h, tail=tail, max_cells=MAX_CELLS, threads=threads
        )
        for i, got in enumerate(many):
            one = _core.pld_mechanisms.subsampled_gaussian(
                sigma[i], q[i], remove=bool(remove[i]), h=h, tail=tail, max_cells=MAX_CELLS
            )
            assert got.k_lo == one.k_lo and got.upper_inf == one.upper_inf
            np.testing.assert_array_equal(got.upper, one.upper)
            np.testing.assert_array_equal(got.lower, one.lower)


def test_batched_constructor_matches_single_and_rejects_bad_points():
    dists = subsampled_gaussians([1.0, 3.0], [0.05, 1.0], value_discretization_interval=5e-3)
    assert [len(d.directions) for d in dists] == [2, 1]
    single = pld.subsampled_gaussian(1.0, 0.05, value_discretization_interval=5e-3)
    for a, b in zip(dists[0].directions, single.directions):
        np.testing.assert_array_equal(next(iter(a)).upper.p, next(iter(b)).upper.p)
    with pytest.raises(ValueError, match="sampling_rate"):
        subsampled_gaussians([1.0, 1.0], [0.1, 1.5])
    with pytest.raises(ValueError, match="sigma"):
        subsampled_gaussians([1.0, -1.0], 0.1)


def test_accuracy_mode_meets_accuracy_across_sigmas_and_brackets_the_gaussian():
    """Predicted grids: every bracket within accuracy; q = 1 stays the closed form (rounded outward)."""
    acc = pld.SubsampledGaussianPLD(
        sigma=np.array([0.8, 1.5, 4.0]), sampling_rate=0.02, rounds=300, accuracy=2e-3
    )
    lo, up = acc.epsilon(1e-5, bound="both")
    assert np.all(up - lo <= 2e-3) and np.all(lo <= up)
    fine = pld.SubsampledGaussianPLD(
        sigma=np.array([0.8, 1.5, 4.0]),
        sampling_rate=0.02,
        rounds=300,
        value_discretization_interval=2e-4,
    ).epsilon(1e-5, bound="both")
    assert np.all(lo <= fine[1]) and np.all(fine[0] <= up)  # certified brackets must overlap
    gauss = pld.SubsampledGaussianPLD(sigma=2.0, sampling_rate=1.0, rounds=50, accuracy=1e-3)
    exact = hs.theta_epsilon(math.sqrt(50) / 2.0, 1e-5)
    assert gauss.epsilon(1e-5) >= exact and gauss.epsilon(1e-5) == pytest.approx(exact, rel=1e-11)


def test_batched_sweep_equals_pointwise_evaluation():
    """More points than one batch: each sigma's bounds equal its own single-point accountant."""
    sigmas = np.linspace(0.8, 4.0, pld.SubsampledGaussianPLD.BATCH + 3)
    kw = dict(sampling_rate=0.05, rounds=40, value_discretization_interval=4e-3)
    lo, up = pld.SubsampledGaussianPLD(sigma=sigmas, **kw).epsilon(1e-4, bound="both")
    for i in (0, pld.SubsampledGaussianPLD.BATCH, sigmas.size - 1):
        one = pld.SubsampledGaussianPLD(sigma=sigmas[i], **kw).epsilon(1e-4, bound="both")
        assert (lo[i], up[i]) == one
    assert np.all(np.diff(up) <= 0)  # more noise, smaller epsilon


def test_upper_only_skips_the_optimistic_side_and_changes_nothing_else():
    """bound="upper" builds no optimistic PMF; its upper bound equals the two-sided run's bit for bit."""
    kw = dict(
        sigma=np.array([0.9, 2.0]),
        sampling_rate=0.02,
        rounds=300,
        value_discretization_interval=2e-3,
    )
    acc = pld.SubsampledGaussianPLD(**kw)
    up = acc.epsilon(1e-6)
    assert all(f.lower is None for dist in acc._plds.values() for d in dist.directions for f in d)
    lo, up_both = pld.SubsampledGaussianPLD(**kw).epsilon(1e-6, bound="both")
    np.testing.assert_array_equal(up, up_both)
    assert np.all(
        acc.epsilon(1e-6, bound="lower") == lo
    )  # the same accountant rebuilds the lower side
    one_sided = subsampled_gaussians([1.0], [0.02], optimistic=False)[0].self_compose(10)
    with pytest.raises(ValueError, match="optimistic"):
        one_sided.delta(1.0, bound="lower", composition_only=True)
