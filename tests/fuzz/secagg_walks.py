"""The argument walk's entries (``tests/test_fuzz_public_api.py``) for every public callable of
``hockeystick.secagg``: each argument in turn takes every walk value, the others valid and small (a few clients, a
hundred coordinates, two rounds, a coarse lattice grid); each call answers without NaN or refuses naming it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hockeystick import secagg

from .allocation_walks import both_sides

H = 1e-2  # the walk's coarse loss grid
ROUND = dict(
    clip_norm=1.0,
    granularity=0.05,
    dimension=100,
    local_sigma=0.5,
    min_surviving_clients=10,
    rounds=2,
)


def _sensitivity(**kwargs: Any) -> Any:
    found = secagg.integer_sensitivity(**kwargs)
    return found.l2, found.l1, found.delta_cost


def _calibrated(**kwargs: Any) -> Any:
    found = secagg.calibrate_secure_aggregation(**kwargs)
    return found.local_sigma, found.granularity, found.epsilon, found.mse


def _laplace_calibrated(**kwargs: Any) -> Any:
    """secagg.calibrate_distributed_discrete_laplace's fields (its DiscreteLaplaceCalibration walked here)."""
    found = secagg.calibrate_distributed_discrete_laplace(**kwargs)
    return found.scale, found.epsilon, found.mse


def _poisson_binomial_calibrated(**kwargs: Any) -> Any:
    """secagg.calibrate_poisson_binomial's fields (its PoissonBinomialCalibration walked here)."""
    found = secagg.calibrate_poisson_binomial(**kwargs)
    return found.theta, found.epsilon, found.mse


SECAGG_WALKS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    (
        "secagg.DistributedDiscreteGaussian",
        both_sides(secagg.DistributedDiscreteGaussian),
        dict(**ROUND, beta=0.1, sampling_rate=0.5, value_discretization_interval=H),
    ),
    (
        "secagg.DistributedSkellam",
        both_sides(secagg.DistributedSkellam),
        dict(**ROUND, beta=0.1, sampling_rate=0.5, value_discretization_interval=H),
    ),
    (
        "secagg.DistributedDiscreteLaplace",
        both_sides(secagg.DistributedDiscreteLaplace),
        dict(
            clip_norm=1.0,
            granularity=0.05,
            dimension=4,
            scale=20.0,
            expected_clients=12,
            min_surviving_clients=10,
            rounds=2,
            beta=1e-3,
            sampling_rate=0.5,
            value_discretization_interval=H,
        ),
    ),
    (
        "secagg.PoissonBinomialMechanism",
        both_sides(secagg.PoissonBinomialMechanism),
        dict(
            trials=4,
            theta=0.1,
            min_surviving_clients=10,
            dimension=4,
            rounds=2,
            sampling_rate=0.5,
            value_discretization_interval=H,
        ),
    ),
    (
        "secagg.IntegerSensitivity",
        secagg.IntegerSensitivity,
        dict(l2=3.0, l1=9.0, dimension=100, realizable_shift=2, delta_cost=0.0),
    ),
    (
        "secagg.SecureAggregationCalibration",
        secagg.SecureAggregationCalibration,
        dict(
            local_sigma=0.5,
            granularity=0.05,
            epsilon=1.0,
            wrap_probability=1e-6,
            mse=1.0,
            gaussian_mse=0.9,
        ),
    ),
    (
        "secagg.bits_for",
        secagg.bits_for,
        dict(
            beta=1e-4, clients=10, dimension=100, clip_norm=1.0, granularity=0.05, local_sigma=0.5
        ),
    ),
    (
        "secagg.calibrate_secure_aggregation",
        _calibrated,
        dict(
            epsilon=5.0,
            delta=1e-5,
            min_surviving_clients=10,
            dimension=100,
            clip_norm=1.0,
            bits=20,
            rounds=2,
        ),
    ),
    (
        "secagg.calibrate_distributed_discrete_laplace",
        _laplace_calibrated,
        dict(
            epsilon=5.0,
            delta=1e-2,
            clip_norm=1.0,
            granularity=0.05,
            dimension=4,
            expected_clients=12,
            min_surviving_clients=10,
            rounds=2,
            beta=1e-3,
        ),
    ),
    (
        "secagg.calibrate_poisson_binomial",
        _poisson_binomial_calibrated,
        dict(
            epsilon=5.0,
            delta=1e-5,
            trials=4,
            min_surviving_clients=10,
            rounds=2,
            dimension=4,
            clip_norm=1.0,
            value_discretization_interval=H,
        ),
    ),
    (
        "secagg.distributed_discrete_gaussian_rdp",
        secagg.distributed_discrete_gaussian_rdp,
        dict(sigma=2.0, clients=10, l2=3.0, l1=9.0, dimension=100, orders=np.array([2.0, 8.0])),
    ),
    ("secagg.integer_l1_bound", secagg.integer_l1_bound, dict(l2_bound=3.0, dimension=100)),
    (
        "secagg.integer_sensitivity",
        _sensitivity,
        dict(clip_norm=1.0, granularity=0.05, dimension=100, beta=0.1),
    ),
    (
        "secagg.rounded_l2_norm_bound",
        secagg.rounded_l2_norm_bound,
        dict(norm=20.0, dimension=100, beta=0.1),
    ),
    (
        "secagg.skellam_rdp",
        secagg.skellam_rdp,
        dict(variance=50.0, l2=3.0, l1=9.0, orders=np.array([2.0, 8.0])),
    ),
    (
        "secagg.wrap_probability",
        secagg.wrap_probability,
        dict(bits=20, clients=10, dimension=100, clip_norm=1.0, granularity=0.05, local_sigma=0.5),
    ),
]
