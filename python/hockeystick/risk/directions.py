"""The two directions of a neighbouring pair: delta_{H1||H0} and delta_{H0||H1} of the accountants
that keep them (a PLD composed direction by direction), the symmetric profile for every other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from .. import pld
from ..base import validation as _validation
from ..base.accountant import Bound
from ..pld.accountants import (
    BallsInBinsGaussianPLD,
    FixedBatchGaussianPLD,
    ShuffledBatchGaussianPLD,
)
from ..pld.mechanisms import subsampled_gaussians
from ..training import DPSGD, DPFedAvg
from .profile import DeltaSides, delta_sides

Direction = Literal["symmetric", "remove", "add"]
DIRECTIONS: tuple[Direction, ...] = ("symmetric", "remove", "add")


def direction_profiles(
    accountant: Any, direction: Any, side: Bound
) -> tuple[DeltaSides, DeltaSides | None]:
    """(delta_{H1||H0}, delta_{H0||H1}) as functions of eps >= 0 on the sides the power's ``side``
    needs (the upper power: upper deltas; the lower power: lower deltas); the second is None where
    it is the first (the symmetric profile)."""
    direction = _validation.choice(direction, "direction", DIRECTIONS)
    if direction == "symmetric":
        return delta_sides(accountant, side), None
    pair = _directional_pair(accountant)
    if pair is None:
        raise ValueError(
            f'direction must be "symmetric" for {type(accountant).__name__}, got {direction!r}: it '
            "reports one profile, the largest over its neighbouring directions, whose lower side "
            "bounds neither direction alone; the directional curves need a PLD that keeps its "
            "directions (pld.SubsampledGaussianPLD, pld.BallsInBinsGaussianPLD with steps_per_record=1, "
            "pld.PLDAccountant, pld.PrivacyLossDistribution, or a training.DPSGD / DPFedAvg run)"
        )
    remove, add = pair
    if add is None:  # one direction: a symmetric pair, both orders the same
        return delta_sides(remove, side), None
    first, second = (remove, add) if direction == "remove" else (add, remove)
    return delta_sides(first, side), delta_sides(second, side)


def _directional_pair(accountant: Any) -> tuple[Any, Any] | None:
    """(remove, add) one-direction PLDs of a PLD accountant (add None: a symmetric, one-direction
    PLD), or None for an accountant that does not keep its directions (``_PAIRS``: the first class
    it is an instance of)."""
    for classes, pair in _PAIRS:
        if isinstance(accountant, classes):
            return pair(accountant)
    return None


def _accountant_pair(accountant: pld.PLDAccountant) -> tuple[Any, Any] | None:
    composed = accountant.composed_pld  # None: nothing released
    return (accountant, None) if composed is None else _directional_pair(composed)


def _distribution_pair(accountant: pld.PrivacyLossDistribution) -> tuple[Any, Any] | None:
    if len(accountant.directions) == 1:
        return accountant, None
    if len(accountant.directions) != 2:
        return None
    remove, add = (pld.PrivacyLossDistribution([d], accountant.tail) for d in accountant.directions)
    return remove, add


def _run_pair(run: DPSGD | DPFedAvg) -> tuple[Any, Any] | None:
    """A training run: the pair of the accountant of its sampling."""
    return _directional_pair(run.accountant)


def _replace_one_pair(accountant: Any) -> tuple[Any, Any]:
    """Replace-one: each order of a neighbouring pair is itself neighbouring, so each direction's
    guarantee is the symmetric profile's."""
    return accountant, None


def _balls_in_bins_pair(accountant: BallsInBinsGaussianPLD) -> tuple[Any, Any] | None:
    points = accountant.parameter_arrays
    if any(np.size(v) != 1 for v in points.values()):
        raise ValueError(
            "accountant must describe one mechanism (single sigma, steps_per_epoch, rounds and "
            f"steps_per_record), got arrays of sizes {[np.size(v) for v in points.values()]}: build one "
            "accountant per point"
        )
    point = tuple(float(np.ravel(v)[0]) for v in points.values())
    if point[3] != 1:  # k > 1: a closed-form Gaussian lower side, no directional pair
        return None
    composed = accountant.epochs_pld(point)
    remove, add = (pld.PrivacyLossDistribution([d], composed.tail) for d in composed.directions)
    return remove, add


def _subsampled_gaussian_pair(accountant: pld.SubsampledGaussianPLD) -> tuple[Any, Any]:
    values = [
        np.ravel(v)
        for v in (
            accountant.sigma,
            accountant.sampling_rate,
            accountant.rounds,
            accountant.sensitivity,
        )
    ]
    if any(v.size != 1 for v in values):
        raise ValueError(
            "accountant must describe one mechanism (single sigma, sampling_rate, rounds and "
            f"sensitivity), got arrays of sizes {[v.size for v in values]}: build one accountant per "
            "point"
        )
    sigma, q, rounds, sensitivity = (float(v[0]) for v in values)
    if q == 1.0:  # the Gaussian mechanism: symmetric, the accountant's closed form
        return accountant, None
    remove, add = (
        subsampled_gaussians(
            [sigma],
            [q],
            sensitivity=[sensitivity],
            value_discretization_interval=accountant.value_discretization_interval,
            tail=accountant.tail,
            directions=d,
        )[0].self_compose(int(rounds))
        for d in ("remove", "add")
    )
    return remove, add


# the accountants that keep their directions, each with how its (remove, add) pair is read; the
# first class an accountant is an instance of decides
_PAIRS: tuple[tuple[type | tuple[type, ...], Callable[[Any], tuple[Any, Any] | None]], ...] = (
    (pld.PLDAccountant, _accountant_pair),
    (pld.PrivacyLossDistribution, _distribution_pair),
    ((DPSGD, DPFedAvg), _run_pair),
    ((FixedBatchGaussianPLD, ShuffledBatchGaussianPLD), _replace_one_pair),
    (BallsInBinsGaussianPLD, _balls_in_bins_pair),
    (pld.SubsampledGaussianPLD, _subsampled_gaussian_pair),
)
