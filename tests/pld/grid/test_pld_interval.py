"""Every grid spacing h gives a valid certified bound or is refused.

h >= 710 overflowed e^h in the connect-the-dots masses: the 10-fold Gaussian reported
eps = 0 (exact 17.857) and one round an upper delta of NaN; h = 0 raised ZeroDivisionError.
The exact reference is the composed Gaussian mechanism, delta = theta(sqrt(T)/sigma, eps).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hockeystick as hs
import hockeystick.pld as pld
from hockeystick.pld.mechanisms.constructors import MAX_INTERVAL

SIGMA, ROUNDS = 10.0, 4  # losses span about +-1: the finest grid (1e-6) holds ~2e6 cells
R = math.sqrt(ROUNDS) / SIGMA
EPSILONS = np.array([0.0, 0.05, 0.2, 0.5, 1.0])
DELTAS = np.array([1e-2, 1e-5, 1e-10])
ACCEPTED = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0, 3.0, 10.0, 50.0, MAX_INTERVAL]
REFUSED = [
    0.0,
    -1e-4,
    -1.0,
    math.inf,
    -math.inf,
    math.nan,
    np.nextafter(MAX_INTERVAL, math.inf),
    709.0,
    710.0,
    1e3,
    1e4,
    1e300,
]


def _exact_epsilon(delta: np.ndarray) -> np.ndarray:
    return np.asarray(hs.theta_epsilon(R, delta))


def _check_bracket(lo: np.ndarray, up: np.ndarray, exact: np.ndarray, slack: float) -> None:
    """lower <= exact <= upper, with ``slack`` relative for the reference's own rounding (1e-12)."""
    assert np.all(np.isfinite(lo)) and np.all(np.isfinite(up))
    assert np.all(lo <= exact * (1 + slack) + 1e-300), (lo, exact)
    assert np.all(up >= exact * (1 - slack)), (up, exact)


@pytest.mark.parametrize("h", ACCEPTED)
def test_accepted_spacing_brackets_the_exact_gaussian(h: float) -> None:
    dist = pld.gaussian(SIGMA, value_discretization_interval=h).self_compose(ROUNDS)
    lo, up = dist.delta(EPSILONS, bound="both")
    _check_bracket(lo, up, np.asarray(hs.theta(R, EPSILONS)), 1e-12)
    lo, up = dist.epsilon(DELTAS, bound="both")
    _check_bracket(lo, up, _exact_epsilon(DELTAS), 1e-12)


def test_issue_example_is_refused_not_zero() -> None:
    with pytest.raises(ValueError, match=r"value_discretization_interval must lie in \(0, 100\]"):
        pld.gaussian(1.0, value_discretization_interval=710).self_compose(10).epsilon(1e-5)


def test_largest_accepted_spacing_gives_a_loose_valid_bound() -> None:
    dist = pld.gaussian(1.0, value_discretization_interval=MAX_INTERVAL)
    exact = hs.theta_epsilon(math.sqrt(10), 1e-5)  # 17.857
    lo, up = dist.self_compose(10).epsilon(1e-5, bound="both")
    assert lo <= exact <= up and math.isfinite(up)
    lo, up = dist.delta(1.0, bound="both")
    assert lo <= hs.theta(1.0, 1.0) <= up and math.isfinite(up)


CONSTRUCTORS: list[tuple[str, Callable[[float], Any]]] = [
    ("gaussian", lambda h: pld.gaussian(1.0, value_discretization_interval=h)),
    (
        "subsampled_gaussian",
        lambda h: pld.subsampled_gaussian(1.0, 0.1, value_discretization_interval=h),
    ),
    ("laplace", lambda h: pld.laplace(1.0, value_discretization_interval=h)),
    (
        "fixed_size_subsampled_gaussian",
        lambda h: pld.fixed_size_subsampled_gaussian(1.0, 10, 100, value_discretization_interval=h),
    ),
    (
        "with_replacement_subsampled_gaussian",
        lambda h: pld.with_replacement_subsampled_gaussian(
            1.0, 10, 100, value_discretization_interval=h
        ),
    ),
    (
        "from_distributions",
        lambda h: pld.from_distributions([0.5, 0.5], [0.1, 0.9], value_discretization_interval=h),
    ),
    ("PLDAccountant", lambda h: pld.PLDAccountant(value_discretization_interval=h)),
    (
        "SubsampledGaussianPLD",
        lambda h: pld.SubsampledGaussianPLD(1.0, 0.1, 3, value_discretization_interval=h),
    ),
    (
        "SubsampledGaussianPLD q=1",
        lambda h: pld.SubsampledGaussianPLD(1.0, 1.0, 3, value_discretization_interval=h),
    ),
    (
        "FixedBatchGaussianPLD",
        lambda h: pld.FixedBatchGaussianPLD(
            sigma=1.0, batch_size=10, n=100, rounds=3, value_discretization_interval=h
        ),
    ),
    (
        "WithReplacementBatchGaussianPLD",
        lambda h: pld.WithReplacementBatchGaussianPLD(
            sigma=1.0, batch_size=10, n=100, rounds=3, value_discretization_interval=h
        ),
    ),
]


@pytest.mark.parametrize("h", REFUSED)
@pytest.mark.parametrize("name,make", CONSTRUCTORS, ids=[c[0] for c in CONSTRUCTORS])
def test_every_entry_point_refuses_with_the_rule(
    name: str, make: Callable[[float], Any], h: float
) -> None:
    with pytest.raises(
        ValueError, match=r"value_discretization_interval must lie in \(0, 100\].*coarser|finer"
    ):
        make(h)


@pytest.mark.parametrize("name,make", CONSTRUCTORS, ids=[c[0] for c in CONSTRUCTORS])
def test_every_entry_point_bounds_both_sides_at_the_largest_spacing(
    name: str, make: Callable[[float], Any]
) -> None:
    """At h = MAX_INTERVAL each accountant brackets its own fine-grid (h = 1e-3) bracket."""
    coarse, fine = make(MAX_INTERVAL), make(1e-3)
    if isinstance(coarse, pld.PLDAccountant):
        coarse.compose_subsampled_gaussian(1.0, 0.1, rounds=3)
        fine.compose_subsampled_gaussian(1.0, 0.1, rounds=3)
    for method, args in (
        ("delta", np.array([0.0, 0.5, 2.0])),
        ("epsilon", np.array([0.3, 1e-3, 1e-6])),
    ):
        c_lo, c_up = getattr(coarse, method)(args, bound="both")
        f_lo, f_up = getattr(fine, method)(args, bound="both")
        assert np.all(np.isfinite(c_up)) and np.all(np.isfinite(c_lo))
        assert np.all(c_up >= f_lo) and np.all(c_lo <= f_up), (name, method, c_lo, c_up, f_lo, f_up)
