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
    # the folded Gaussians as specs and counts (``Mechanism.spec``), the run they are; None once a
    # radius without its spec is folded (read through ``folded_gaussians``)
    gaussians: dict[Spec, int] | None = field(default_factory=dict, compare=False)

    def add(self, mechanism: Spec, count: int) -> None:
        self.counts[mechanism] = self.counts.get(mechanism, 0) + int(count)

    def add_gaussian(self, radius: float, count: int, spec: Spec | None = None) -> None:
        """``count`` Gaussians of ``radius``, itself one correctly rounded quotient (shift / sigma):
        five operations with the count's conversion to a double, the two products and the sum.
        ``spec``: the Gaussian mechanism's (``Mechanism.spec``), kept with its count where given
        (a Gaussian of radius 0 releases nothing and is not kept)."""
        self.gaussian_r2 += count * radius * radius
        self.gaussian_r2_operations += 5
        if spec is None:
            self.gaussians = None
        elif self.gaussians is not None and radius != 0.0:
            self.gaussians[spec] = self.gaussians.get(spec, 0) + int(count)

    def folded_gaussians(self) -> dict[Spec, int] | None:
        """The folded Gaussians' specs and counts where every radius folded came with its spec
        (``add_gaussian``; a plan rebuilt from its key or its radius alone has none), else None.

        Returns
        -------
        dict or None
            Spec -> count of the Gaussians folded into ``gaussian_r2``.
        """
        if self.gaussians is None or (self.gaussian_r2 != 0.0 and not self.gaussians):
            return None
        return self.gaussians

    def merge(self, other: CompositionPlan) -> None:
        for m, c in other.counts.items():
            self.add(m, c)
        mine, theirs = self.folded_gaussians(), other.folded_gaussians()
        self.gaussians = (
            None
            if mine is None or theirs is None
            else {m: mine.get(m, 0) + theirs.get(m, 0) for m in {**mine, **theirs}}
        )
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
        folded = self.folded_gaussians()
        return CompositionPlan(
            {m: c * count for m, c in self.counts.items()},
            self.gaussian_r2 * count,
            self.non_private,
            self.gaussian_r2_operations + 2,
            None if folded is None else {m: c * count for m, c in folded.items()},
        )
