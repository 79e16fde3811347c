"""A privacy-loss distribution with certified two-sided bounds, composed lazily.

A ``PrivacyLossDistribution`` is a multiset of discretized factors (each a
pessimistic and an optimistic grid PMF of one mechanism) per neighbouring
direction.  Composition only merges multisets and multiplies counts; the FFT
runs once, at the first ``delta``/``epsilon`` call, over the distinct factors
(``compose.compose``), so T rounds of one mechanism cost one forward transform.

Directions.  For subsampled mechanisms the remove and the add neighbour give
different PLDs.  A run has one pair of neighbouring datasets, so its delta is
the larger of the all-remove and the all-add compositions (Zhu, Dong, Wang,
AISTATS 2022, Sec. 5); both are kept and the maximum is reported, for the
upper and the lower bound alike.  Symmetric mechanisms have one direction,
which broadcasts against two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence, Union

import numpy as np

from .. import _validation
from .._elementwise import ArrayLike
from .compose import DEFAULT_TAIL, compose_many
from .pmf import GridPMF

Bound = Literal["upper", "lower", "both"]
Result = Union[float, np.ndarray, tuple]


def epsilon_values(epsilon: ArrayLike) -> np.ndarray:
    """epsilon as float64, or a ValueError if any is negative or NaN (``_validation.epsilon_values``)."""
    return _validation.epsilon_values(epsilon)


def evaluate_into(dist: "PrivacyLossDistribution", method: str, x: np.ndarray, bound: Bound,
                  lower: np.ndarray, upper: np.ndarray, where: np.ndarray) -> None:
    """lower[where], upper[where] = dist.<method>(x[where]) on the sides ``bound`` asks for."""
    if bound in ("upper", "both"):
        upper[where] = getattr(dist, method)(x[where], bound="upper")
    if bound in ("lower", "both"):
        lower[where] = getattr(dist, method)(x[where], bound="lower")


def bound_result(lower: np.ndarray, upper: np.ndarray, bound: Bound, scalar: bool) -> Result:
    """The side(s) ``bound`` asks for: one array (or float), or (lower, upper) for "both"."""
    pick = {"upper": (upper,), "lower": (lower,), "both": (lower, upper)}[bound]
    out = tuple(float(v) if scalar else v for v in pick)
    return out if bound == "both" else out[0]


def delta_values(delta: ArrayLike) -> np.ndarray:
    """delta as float64, or a ValueError unless every value lies in (0, 1) (``_validation.delta_values``)."""
    return _validation.delta_values(delta)


@dataclass(frozen=True, eq=False)
class Factor:
    """One mechanism's PLD on the grid: pessimistic and optimistic PMFs (None: not computed)."""

    name: str
    upper: GridPMF
    lower: GridPMF | None
    connect_dots: bool


@dataclass
class PrivacyLossDistribution:
    directions: list[dict[Factor, int]]
    tail: float = DEFAULT_TAIL
    _composed: dict = field(default_factory=dict, repr=False)

    @property
    def value_discretization_interval(self) -> float:
        return next(iter(self.directions[0])).upper.h

    def compose(self, other: "PrivacyLossDistribution") -> "PrivacyLossDistribution":
        """The PLD of running both mechanisms (on the same neighbouring pair)."""
        if other.value_discretization_interval != self.value_discretization_interval:
            raise ValueError("compose needs one value_discretization_interval on both sides")
        a, b = self.directions, other.directions
        if len(a) != len(b):
            if len(a) == 1:
                a = a * len(b)
            elif len(b) == 1:
                b = b * len(a)
            else:
                raise ValueError("cannot pair the neighbouring directions of the two PLDs")
        merged = []
        for x, y in zip(a, b):
            z = dict(x)
            for f, c in y.items():
                z[f] = z.get(f, 0) + c
            merged.append(z)
        return PrivacyLossDistribution(merged, min(self.tail, other.tail))

    def self_compose(self, count: int) -> "PrivacyLossDistribution":
        """``count`` independent runs of this mechanism."""
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count <= 2 ** 53:
            raise ValueError(f"count must be an integer with 1 <= count <= 2^53, got {_validation.describe(count)}")
        return PrivacyLossDistribution([{f: c * int(count) for f, c in d.items()} for d in self.directions],
                                       self.tail)

    def composed(self, pessimistic: bool) -> list[GridPMF]:
        """The composed PMF of each direction (computed once)."""
        compose_all([self], pessimistic)
        return self._composed[bool(pessimistic)]

    def delta(self, epsilon: ArrayLike, bound: Bound = "upper") -> Result:
        """delta(eps) = sum_l (1 - e^{eps - l})_+ p(l) + p(inf), maximised over directions.

        ``bound="upper"`` certifies delta from above, ``"lower"`` from below,
        ``"both"`` returns (lower, upper).
        """
        eps = _validation.real(epsilon, "epsilon")
        return self._both(lambda pmf: pmf.delta(eps), eps.ndim == 0, bound, np.maximum)

    def epsilon(self, delta: ArrayLike, bound: Bound = "upper") -> Result:
        """Smallest eps >= 0 with delta(eps) <= delta (upper: certified, lower: a lower bound).

        The upper side is ``inf`` when ``delta`` lies below what can be certified: the mass
        at +infinity plus the composition's truncation and round-off charges.
        """
        d = delta_values(delta)
        return self._both(lambda pmf: np.maximum(pmf.epsilon(d), 0.0), d.ndim == 0, bound, np.maximum)

    def _both(self, evaluate, scalar: bool, bound: Bound, combine) -> Result:
        _validation.bound_side(bound)
        sides = {"upper": [True], "lower": [False], "both": [False, True]}[bound]
        values = []
        for pessimistic in sides:
            per_direction = [evaluate(pmf) for pmf in self.composed(pessimistic)]
            v = per_direction[0]
            for w in per_direction[1:]:
                v = combine(v, w)
            values.append(float(v) if scalar else v)
        return tuple(values) if bound == "both" else values[0]


def compose_all(plds: Sequence[PrivacyLossDistribution], pessimistic: bool) -> None:
    """Composes, on one side, every direction of every PLD not yet composed on it, in one batch.

    A sweep over many PLDs then pays one ``compose_many`` (shared 2-d FFTs) per tail
    instead of one composition per direction; each PLD keeps its result.
    """
    key = bool(pessimistic)
    todo: dict[float, list[PrivacyLossDistribution]] = {}
    for pld in plds:
        if key not in pld._composed:
            todo.setdefault(pld.tail, []).append(pld)
    for tail, group in todo.items():
        items = [[(f.upper if key else f.lower, c) for f, c in d.items()] for pld in group for d in pld.directions]
        if any(pmf is None for item in items for pmf, _ in item):
            raise ValueError("this PLD was built without its optimistic side (optimistic=False): "
                             "only bound=\"upper\" is available")
        composed = iter(compose_many(items, pessimistic=key, tail=tail))
        for pld in group:
            pld._composed[key] = [next(composed) for _ in pld.directions]
