"""Randomized response over k buckets: exact finite PLDs under replace-one and replace-special.

With noise parameter p the mechanism outputs its input bucket with probability 1 - p and a
uniformly random bucket with probability p, so R(x) puts 1 - p + p/k on x and p/k elsewhere
(dp_accounting's ``RandomizedResponseDpEvent``; Warner 1965).  Outcomes with one loss are merged
(a lossless post-processing):

- replace-one (x -> x'): P = (1 - p + p/k, p/k, (k-2) p/k) on (x, x', rest), Q the first two
  swapped; swapping P and Q relabels x and x', so the pair is symmetric (one direction);
- replace-special (x -> a record whose output is uniform): P = (1 - p + p/k, (k-1) p/k),
  Q = (1/k, (k-1)/k); both directions are kept.

p = 0 is non-private (Q = 0 where P > 0: loss +infinity, an exact atom); k = 1 or p = 1
releases nothing (loss 0).  Both sides are exact up to the grid (``from_distributions``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...base import validation as _validation
from ...base.event_fields import event_field_at_least_zero, integer, probability, require_relation
from ...base.event_refusal import EventRefused, NonPrivateRun
from ..grid.distribution import PrivacyLossDistribution
from .constructors import DEFAULT_INTERVAL, from_distributions
from .mechanism import Mechanism, Pair, two_directions
from .neighbouring import relations_bounded
from .registry import stage

RELATIONS = ("replace_one", "replace_special")


def randomized_response_pair(
    noise_parameter: float, num_buckets: int, relation: str = "replace_one"
) -> tuple[np.ndarray, np.ndarray]:
    """(P, Q) above, after checking 0 <= p <= 1, k a positive integer and the relation."""
    # a bool or a numeric string is refused (True would silently mean p = 1: nothing released)
    p = float(
        _validation.in_interval(
            _validation.single(noise_parameter, "noise_parameter"),
            "noise_parameter",
            0.0,
            1.0,
            open_low=False,
            open_high=False,
        )
    )
    k = _validation.count(num_buckets, "num_buckets")
    _validation.choice(relation, "relation", RELATIONS)
    stay, move = 1.0 - p + p / k, p / k
    if k == 1:
        return np.array([1.0]), np.array([1.0])
    if relation == "replace_one":
        return np.array([stay, move, (k - 2) * move]), np.array([move, stay, (k - 2) * move])
    return np.array([stay, (k - 1) * move]), np.array([1.0 / k, (k - 1.0) / k])


@stage(relation="replace_one", relations=RELATIONS)
def randomized_response(
    noise_parameter: float,
    num_buckets: int,
    *,
    relation: str = "replace_one",
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> PrivacyLossDistribution:
    """Discretized PLD of k-ary randomized response under replace-one or replace-special neighbours.

    With noise parameter p the mechanism outputs its input bucket with probability 1 - p and a
    uniformly random bucket with probability p, so it puts 1 - p + p/k on its input and p/k on each
    other bucket. Merging outcomes of one loss leaves the exact pairs

    - replace-one (x -> x'): P = (1 - p + p/k, p/k, (k-2) p/k) on (x, x', rest), Q with the first
      two swapped; symmetric, one direction;
    - replace-special (x -> a record whose output is uniform): P = (1 - p + p/k, (k-1) p/k),
      Q = (1/k, (k-1)/k); both directions kept.

    p = 0 is non-private (loss +infinity); k = 1 or p = 1 releases nothing.  Both sides are exact up
    to the grid (``from_distributions``).

    Parameters
    ----------
    noise_parameter : float
        Probability p of answering with a uniformly random bucket, 0 <= p <= 1.
    num_buckets : int
        Number of buckets k, an integer >= 1.
    relation : {"replace_one", "replace_special"}, optional
        The neighbouring relation (default ``"replace_one"``).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).

    Returns
    -------
    PrivacyLossDistribution
        One direction for ``"replace_one"``, two for ``"replace_special"``.

    Raises
    ------
    ValueError
        If ``noise_parameter`` lies outside [0, 1], ``num_buckets`` is not an integer >= 1,
        ``relation`` is not one of the two, or ``value_discretization_interval`` lies outside (0,
        100].
    ParameterTypeError
        If ``noise_parameter`` or ``num_buckets`` is a string, a boolean or None.

    References
    ----------
    Warner 1965; dp_accounting's ``RandomizedResponseDpEvent``.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> round(pld.randomized_response(0.5, 4).delta(0.5), 4)
    0.4189
    """
    p, q = randomized_response_pair(noise_parameter, num_buckets, relation)
    return from_distributions(
        p,
        q,
        value_discretization_interval=value_discretization_interval,
        symmetric=relation == "replace_one",
        exact_zeros=False,
    )


@dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    """k-ary randomized response of noise p (Warner 1965), merged to its exact finite pair per
    relation (module docstring): replace-one, symmetric (one direction); replace-special, both
    directions.  Its replace-one pair (two distinct buckets) dominates any two inputs, so a group of
    c is the mechanism itself."""

    name: ClassVar[str] = "randomized_response"
    dp_event: ClassVar[str] = "dp_accounting.dp_event.RandomizedResponseDpEvent"
    dp_event_field: ClassVar[str] = "noise_parameter"
    p: float
    k: int
    relation: str

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> RandomizedResponse | NonPrivateRun | None:
        """One ``RandomizedResponseDpEvent(noise_parameter=p, num_buckets=k)``: replace-one and
        replace-special (its pair per relation, module docstring); p below 1 (dp_accounting's rule:
        p = 1 releases nothing), None for one bucket, non-private at p = 0."""
        require_relation(
            event,
            relation,
            relations_bounded("replace_one") + relations_bounded("replace_special"),
            "`RandomizedResponseDpEvent`",
        )
        p = probability(event, "noise_parameter")
        if p == 1.0:
            raise ValueError(
                "RandomizedResponseDpEvent.noise_parameter must be below 1, got "
                f"{event.noise_parameter!r}"
            )
        k = integer(event, "num_buckets", 1)
        if not (k > 1 and p < 1):
            return None
        return NonPrivateRun(cls.name) if p == 0 else cls(p, k, relation)

    @classmethod
    def rdp_of_dp_event(cls, event: Any, relation: str, orders: np.ndarray) -> np.ndarray:
        """dp_accounting's closed forms per relation, evaluated without cancellation as p -> 1
        (``rdp.randomized_response``); p = 1 and one bucket give the zero curve."""
        from ...rdp.randomized_response import randomized_response_rdp

        if relation not in ("replace_one", "replace_special"):
            raise EventRefused(
                event,
                "neighboring_relation must be `REPLACE_SPECIAL` or `REPLACE_ONE` for "
                f"`RandomizedResponseDpEvent`. Found NeighboringRelation.{relation.upper()}.",
            )
        p, k = event_field_at_least_zero(event, "noise_parameter"), event.num_buckets
        if not p <= 1:
            raise ValueError(
                f"RandomizedResponseDpEvent.noise_parameter must lie in [0, 1], got {p!r}"
            )
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(
                f"RandomizedResponseDpEvent.num_buckets must be an integer >= 1, got {k!r}"
            )
        return randomized_response_rdp(p, k, orders, relation=relation)

    def loss_reach(self) -> float:
        """log(1 + (1 - p) k / p): the loss of the bucket the input's value lands in."""
        return math.log1p((1.0 - self.p) * self.k / self.p)

    @classmethod
    def from_stage(cls, **parameters: Any) -> RandomizedResponse | None:
        """A ``randomized_response`` stage: ``RandomizedResponse(noise_parameter, num_buckets,
        relation)``, the stage's default relation where it gives none (``grid_pld`` is that
        stage's constructor)."""
        given = dict(parameters)
        relation = given.pop("relation", "replace_one")
        if set(given) != {"noise_parameter", "num_buckets"}:
            return None
        return cls(given["noise_parameter"], given["num_buckets"], relation)

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return randomized_response(
            self.p, self.k, relation=self.relation, value_discretization_interval=h
        )

    def finite_pairs(self) -> list[Pair] | None:
        pair = randomized_response_pair(self.p, self.k, self.relation)
        return [pair] if self.relation == "replace_one" else two_directions(pair)

    def input_oblivious(self) -> bool:
        return True
