"""A multiset of mechanisms to compose: counts per distinct mechanism spec, the Gaussian rounds
folded into one radius^2 with the round-off of the operations that formed it, and a flag for
non-private events (``CompositionPlan``); ``plan.PlanProfile`` reads its certified privacy
profile."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..mechanisms.mechanism import Spec

# The unit round-off of the doubles, u = 2^-53: a correctly rounded operation errs by at most u
# relatively.
UNIT_ROUNDOFF = 2.0**-53

# CompositionPlan.key(): ((spec, count) pairs sorted, gaussian_r2, non_private,
# gaussian_r2_operations)
PlanKey = tuple[tuple[tuple[Spec, int], ...], float, bool, int]


@dataclass
class CompositionPlan:
    """Counts per distinct mechanism, the folded Gaussian radius^2, and a non-private flag.

    ``gaussian_r2_operations``: k, the correctly rounded operations (each a relative error of at
    most u = 2^-53) behind ``gaussian_r2``, all on positive numbers: its relative error is at most
    gamma_k = k u / (1 - k u) (Higham 2002, Lemma 3.1), which ``gaussian_radius_bounds`` charges.
    """

    counts: dict[Spec, int] = field(default_factory=dict)
    gaussian_r2: float = 0.0
    non_private: bool = False
    gaussian_r2_operations: int = 0

    def add(self, mechanism: Spec, count: int) -> None:
        self.counts[mechanism] = self.counts.get(mechanism, 0) + int(count)

    def add_gaussian(self, radius: float, count: int) -> None:
        """``count`` Gaussians of ``radius``, itself one correctly rounded quotient (shift / sigma):
        five operations with the count's conversion to a double, the two products and the sum."""
        self.gaussian_r2 += count * radius * radius
        self.gaussian_r2_operations += 5

    def merge(self, other: CompositionPlan) -> None:
        for m, c in other.counts.items():
            self.add(m, c)
        self.gaussian_r2 += other.gaussian_r2
        self.gaussian_r2_operations += other.gaussian_r2_operations + 1
        self.non_private |= other.non_private

    @property
    def empty(self) -> bool:
        return not self.counts and self.gaussian_r2 == 0.0

    def gaussian_radius_bounds(self) -> tuple[float, float]:
        """(r_lo, r_hi) around the exact folded radius sqrt(r^2): r^2 (1 -+ (2k + 2) u) contains the
        exact r^2 (k = ``gaussian_r2_operations``, (2k + 2) u >= gamma_k + u covers the widening's
        own product while k u <= 1/2), and each square root is stepped one ulp outward."""
        widen = (
            2 * self.gaussian_r2_operations + 2
        ) * UNIT_ROUNDOFF  # k is a count of calls: k u << 1/2
        with np.errstate(over="ignore"):
            high = float(
                np.float64(self.gaussian_r2) * (1.0 + widen)
            )  # inf past the largest double: r_hi = inf
        return (
            math.nextafter(math.sqrt(self.gaussian_r2 * (1.0 - widen)), 0.0),
            math.nextafter(math.sqrt(high), math.inf),
        )

    def key(self) -> PlanKey:
        """A hashable description of the plan (a mechanism spec may carry a whole inner plan)."""
        return (
            tuple(sorted(self.counts.items(), key=repr)),
            self.gaussian_r2,
            self.non_private,
            self.gaussian_r2_operations,
        )

    @classmethod
    def from_key(cls, key: PlanKey) -> CompositionPlan:
        counts, r2, non_private, operations = key
        return cls(dict(counts), r2, non_private, operations)

    def scaled(self, count: int) -> CompositionPlan:
        """``count`` runs of this plan (a new plan; r^2 times the count: two more rounded operations)."""
        return CompositionPlan(
            {m: c * count for m, c in self.counts.items()},
            self.gaussian_r2 * count,
            self.non_private,
            self.gaussian_r2_operations + 2,
        )
