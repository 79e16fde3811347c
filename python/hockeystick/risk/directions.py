"""The two directions of a neighbouring pair: delta_{H1||H0} and delta_{H0||H1} of the accountants
that keep them (a PLD composed direction by direction), the symmetric profile for every other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from .. import pld
from ..base import validation as _validation
from ..base.accountant import Bound
from ..training import DPSGD, DPFedAvg
from ..training.sampling_schemes import sampling_schemes
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
    for classes, pair in _PAIRS + _scheme_pairs():
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


# the accountants that keep their directions, each with how its (remove, add) pair is read, then
# the sampling schemes' (``_scheme_pairs``); the first class an accountant is an instance of decides
_PAIRS: tuple[tuple[type | tuple[type, ...], Callable[[Any], tuple[Any, Any] | None]], ...] = (
    (pld.PLDAccountant, _accountant_pair),
    (pld.PrivacyLossDistribution, _distribution_pair),
    ((DPSGD, DPFedAvg), _run_pair),
)


def _scheme_pairs() -> tuple[tuple[type, Callable[[Any], tuple[Any, Any] | None]], ...]:
    """The sampling schemes' accountants that keep their directions, each with its reader
    (``training.sampling_schemes``: a replace-one scheme's is its symmetric profile)."""
    return tuple(
        (s.accountant_class(), reader)
        for s in sampling_schemes()
        if (reader := s.direction_pair()) is not None
    )
