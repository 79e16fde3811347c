"""A multiset of mechanisms to compose, and its certified (lower, upper) privacy profile.

The dp_accounting adapter turns an event tree into a ``CompositionPlan``: counts per distinct
mechanism (a hashable spec, its object from the catalogue ``plan_mechanisms``), the Gaussian rounds folded into one radius, and a flag
for non-private events.  Nothing here knows about dp_accounting.

Gaussian rounds.  k rounds of Gaussians with shifts Delta_i / sigma_i compose exactly into one
Gaussian of radius r = sqrt(sum_i (Delta_i / sigma_i)^2) (Dong, Roth, Su 2022, Cor. 3.3: GDP
composes by adding mu^2), so delta = theta(r, eps) (paper 000 eq. 6).  A plan of Gaussians only is
answered in closed form: r^2 as summed carries the round-off of the operations that formed it
(``CompositionPlan.gaussian_r2_operations``), so the upper sides are taken at a radius rounded up past
the exact one and the lower sides at one rounded down (theta and epsilon(delta) grow with r), each
through ``certified_theta`` (theta and its inverses rounded outward; an upper delta below the doubles
is the least subnormal, never 0).  Otherwise the radius enters the PLD composition as one Gaussian factor.

Grid.  With a fixed ``value_discretization_interval`` the PLD is built once on that grid.  With
``accuracy`` the grids are chosen by ``refine.plan_refinement`` (from a coarse grid, each aimed at the
asked width from the last one's, until the bracket is narrow enough, stalls, or the grid budget is
spent) and aligned with the Laplace-like atoms by ``refine.grid_alignment``; the final grid's bounds
are reported, so they are certified either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np

from ...certified_theta import theta_epsilon_lower, theta_epsilon_upper
from ..compose import finite_atoms
from ..compose.distribution import PrivacyLossDistribution
from ..compose.fft import BYTES_PER_POINT
from ..compose.pmf import GridPMF
from ..mechanisms.constructors import DEFAULT_INTERVAL, gaussian
from ..mechanisms.mechanism import Spec
from ..refine.grid_alignment import aligned, alignment_atoms
from ..refine.plan_refinement import GridRefinement
from .plan_mechanisms import UNIT_ROUNDOFF, PlanKey, gaussian_side, mechanism_of, worst
from .zcdp_plan import zcdp_total

# Up to this many atoms, an epsilon search without hints starts with 7 points in one call: for few atoms
# one vectorised call costs about as much as one point, and brackets the root closely.
FIRST_PASS_ATOMS = 64
# ... and each call of such a search evaluates 30 points spread evenly and 2 x 15 around its false position,
# so a few calls narrow the root to the tolerance.
SEARCH_CLUSTER = 30
# The least positive double: epsilon at delta = 0 is bounded below by epsilon at this delta.
SMALLEST_DELTA = math.nextafter(0.0, 1.0)
# The default grid's window cap, 128 MiB of the composition's buffers: a composition needing more there is read
# on the accuracy-driven grid instead, which starts coarse (``default_grid_profile``).
DEFAULT_GRID_POINTS = (128 << 20) // BYTES_PER_POINT
# ... with this bracket width aimed for (in epsilon; relative in delta): the default grid's spacing, the
# resolution a caller who chose no grid is given elsewhere.
FALLBACK_ACCURACY = 1e-4
# The coarse grid that measures the default grid's windows: cheap to compose, and windows scale as 1 / h.
PROBE_INTERVAL = 1e-2


@dataclass
class CompositionPlan:
    """Counts per distinct mechanism, the folded Gaussian radius^2, and a non-private flag.

    ``gaussian_r2_operations``: k, the correctly rounded operations (each a relative error of at most
    u = 2^-53) behind ``gaussian_r2``, all on positive numbers: its relative error is at most
    gamma_k = k u / (1 - k u) (Higham 2002, Lemma 3.1), which ``gaussian_radius_bounds`` charges.
    """

    counts: dict[Spec, int] = field(default_factory=dict)
    gaussian_r2: float = 0.0
    non_private: bool = False
    gaussian_r2_operations: int = 0

    def add(self, mechanism: Spec, count: int) -> None:
        self.counts[mechanism] = self.counts.get(mechanism, 0) + int(count)

    def add_gaussian(self, radius: float, count: int) -> None:
        """``count`` Gaussians of ``radius``, itself one correctly rounded quotient (shift / sigma): five
        operations with the count's conversion to a double, the two products and the sum."""
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
        """(r_lo, r_hi) around the exact folded radius sqrt(r^2): r^2 (1 -+ (2k + 2) u) contains the exact
        r^2 (k = ``gaussian_r2_operations``, (2k + 2) u >= gamma_k + u covers the widening's own
        product while k u <= 1/2), and each square root is stepped one ulp outward."""
        widen = (2 * self.gaussian_r2_operations + 2) * UNIT_ROUNDOFF  # k is a count of calls: k u << 1/2
        with np.errstate(over="ignore"):
            high = float(np.float64(self.gaussian_r2) * (1.0 + widen))  # inf past the largest double: r_hi = inf
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


class PlanProfile:
    """Certified (lower, upper) delta(eps) and eps(delta) of a plan, grids built on demand and cached.

    Mechanisms with a finite pair (``Mechanism.finite_pairs``) are composed exactly as atoms, once; the rest
    (and the folded Gaussian) on the loss grid, refined for ``accuracy``; the two are combined by
    ``finite_atoms.delta_with`` (a Gaussian alone beside the atoms in closed form, theta extended
    to eps < 0 by the symmetry of its pair: delta(eps) = 1 - e^eps + e^eps theta(r, -eps)).
    """

    def __init__(self, plan: CompositionPlan, value_discretization_interval: float | None, accuracy: float | None):
        self.plan = plan
        self.fixed_interval = value_discretization_interval
        self.accuracy = accuracy
        self._pairs = {m: mechanism_of(m).finite_pairs() for m in plan.counts}
        self._finite = {m: c for m, c in plan.counts.items() if self._pairs[m] is not None}
        self._grid = {m: c for m, c in plan.counts.items() if self._pairs[m] is None}
        self._composed: dict[tuple[float, int], PrivacyLossDistribution] = {}
        self._factors: dict[tuple[Spec, float, bool], PrivacyLossDistribution] = {}
        self._atoms: list[finite_atoms.Atoms] | None = None

    @property
    def _upper_variants(self) -> tuple[int, ...]:
        """0: every mechanism's own PLD; 1 (if the plan has any): ``Mechanism.upper_alternative`` in their place."""
        return (0, 1) if any(self._alternative(m, 1) for m in self._grid) else (0,)

    def _pld(self, h: float, variant: int = 0) -> PrivacyLossDistribution:
        """The grid part (every mechanism without a finite pair, and the folded Gaussian) on grid h;
        ``variant`` 1 takes each mechanism's alternative upper side (``Mechanism.upper_alternative``; upper only)."""
        if (h, variant) not in self._composed:
            total: PrivacyLossDistribution | None = None
            parts = [(self._factor(m, h, variant), c) for m, c in self._grid.items()]
            if self.plan.gaussian_r2 > 0:
                parts.append((gaussian(1.0 / math.sqrt(self.plan.gaussian_r2), value_discretization_interval=h), 1))
            for pld, count in parts:
                step = pld.self_compose(count) if count > 1 else pld
                total = step if total is None else total.compose(step)
            assert total is not None
            self._composed[(h, variant)] = total
        return self._composed[(h, variant)]

    def window_points(self, h: float) -> float:
        """About how many points the grid part's widest composed window takes on grid h, from its composition on
        this profile's own (coarser) grid: a window spans a loss range, so its points scale as 1 / h.  0 for a
        plan without a grid part (or a zCDP plan, read in closed form)."""
        if not self._grid and self.plan.gaussian_r2 == 0 or self.fixed_interval is None:
            return 0.0
        if zcdp_total(self.plan) is not None:  # zCDP runs beside Gaussians: read without a grid
            return 0.0
        sizes = [pmf.p.size for pmf in self._pld(self.fixed_interval).composed(True)]
        return max(sizes) * self.fixed_interval / h

    def _factor(self, mechanism: Spec, h: float, variant: int = 0) -> PrivacyLossDistribution:
        alternative = self._alternative(mechanism, variant)
        key = (mechanism, h, alternative)
        if key not in self._factors:
            m = mechanism_of(mechanism)
            pld = m.upper_alternative(h) if alternative else m.grid_pld(h)
            assert pld is not None
            self._factors[key] = pld
        return self._factors[key]

    @staticmethod
    def _alternative(mechanism: Spec, variant: int) -> bool:
        """Whether ``variant`` takes the mechanism's second upper side: variant 1 and the mechanism has one."""
        return variant == 1 and mechanism_of(mechanism).has_upper_alternative()

    def _atom_directions(self) -> list[finite_atoms.Atoms]:
        """The finite mechanisms composed exactly, per neighbouring direction (both sides share them)."""
        if self._atoms is None:
            parts = [(self._exact_atoms(m), c) for m, c in self._finite.items()]
            directions = max(len(a) for a, _ in parts)
            self._atoms = [finite_atoms.compose_all([(a[d % len(a)], c) for a, c in parts]) for d in range(directions)]
        return self._atoms

    def _exact_atoms(self, mechanism: Spec) -> list[finite_atoms.Atoms]:
        """One finite mechanism's atoms per direction: in closed form where it has them, else from its pairs."""
        atoms = mechanism_of(mechanism).exact_atoms()
        pairs = self._pairs[mechanism]
        assert pairs is not None
        return atoms if atoms is not None else [finite_atoms.pair_atoms(*p) for p in pairs]

    def _gaussian_side(self, upper: bool) -> Callable[[np.ndarray], np.ndarray]:
        """The folded Gaussian's certified side at any real eps (``gaussian_side``)."""
        return partial(gaussian_side, self.plan.gaussian_radius_bounds()[1 if upper else 0], upper=upper)

    def _sides(self, h: float | None, upper: bool, variant: int = 0) -> list[Callable[[np.ndarray], np.ndarray]]:
        """delta(eps) per direction on one side: the atoms combined with the rest (grid h, or closed form)."""
        atoms = self._atom_directions()
        if not self._grid and self.plan.gaussian_r2 == 0:
            return [partial(finite_atoms.delta, a, upper=upper) for a in atoms]
        if not self._grid:
            g = self._gaussian_side(upper)
            return [partial(finite_atoms.delta_with, a, g, upper=upper) for a in atoms]
        assert h is not None
        pmfs = self._pld(h, variant).composed(upper)
        n = max(len(pmfs), len(atoms))
        return [
            partial(
                finite_atoms.delta_with, atoms[d % len(atoms)], finite_atoms.grid_side(pmfs[d % len(pmfs)]), upper=upper
            )
            for d in range(n)
        ]

    def curves(self, h: float, upper: bool) -> list[Callable[[np.ndarray], np.ndarray]]:
        """The plan's delta(eps) per direction on one certified side, at any real eps (grid h)."""
        if self._finite:
            return self._sides(h, upper)
        if not self._grid:
            return [self._gaussian_side(upper)]
        return [finite_atoms.grid_side(pmf) for pmf in self._pld(h).composed(upper)]

    def top_loss(self, h: float) -> float:
        """A loss above which every direction's delta(eps) is (all but) constant."""
        if self._finite:
            return self._top_loss(h)
        if not self._grid:
            r = math.sqrt(self.plan.gaussian_r2)
            return r * r / 2 + 40.0 * r + 1.0
        return max((p.k_lo + p.p.size) * p.h for p in self._pld(h).composed(True)) + 1.0

    def _top_loss(self, h: float | None, variant: int = 0) -> float:
        """A loss above every finite loss of the composition (delta is constant beyond it)."""
        top = max(
            float(s.loss[-1]) + s.loss_error if s.loss.size else 0.0
            for a in self._atom_directions()
            for s in (a, a.lower or a)
        )  # each side's own atoms
        if self._grid:
            assert h is not None
            top += max((p.k_lo + p.p.size) * p.h for p in self._pld(h, variant).composed(True))
        elif self.plan.gaussian_r2 > 0:
            r = math.sqrt(self.plan.gaussian_r2)
            top += r * r / 2 + 40.0 * r  # theta(r, eps) < 1e-300 beyond
        return max(top, 0.0) + 1.0

    def _evaluate(self, method: str, x: float, h: float | None, hints: tuple[float, ...] = ()) -> tuple[float, float]:
        """(lower, upper) of ``method`` at x on grid h (h unused when nothing is on the grid).

        ``hints``: a coarser grid's bracket, where an epsilon search starts looking (with the lower
        side's answer, for the upper side).
        """
        if not self._finite:
            assert h is not None
            lo, up = getattr(self._pld(h), method)(x, bound="both")
            for variant in self._upper_variants[1:]:  # a further proved upper side: the smaller is certified
                up = min(up, getattr(self._pld(h, variant), method)(x, bound="upper"))
            return float(lo), float(up)
        if method == "epsilon" and not self._grid and self.plan.gaussian_r2 == 0:  # atoms alone: exact roots
            brackets = [finite_atoms.pure_epsilon_bracket(a, x) for a in self._atom_directions()]
            return max(lo for lo, _ in brackets), max(up for _, up in brackets)
        lower = self._evaluate_side(method, x, h, False, 0, hints)
        return lower, min(self._evaluate_side(method, x, h, True, v, hints + (lower,)) for v in self._upper_variants)

    def _evaluate_side(
        self, method: str, x: float, h: float | None, upper: bool, variant: int, hints: tuple[float, ...] = ()
    ) -> float:
        """One side of ``method`` at x with the atoms beside a grid h (``variant`` of the grid part) or the
        folded Gaussian, or (delta only) alone; ``hints``: where an epsilon search starts looking."""
        sides = self._sides(h, upper, variant)
        if method == "delta":
            return max(float(f(np.array([x]))[0]) for f in sides)
        tolerance = 1e-9 if self.accuracy is None else min(float(self.accuracy) / 20.0, 1e-6)
        few = max(a.mass.size for a in self._atom_directions()) <= FIRST_PASS_ATOMS
        return finite_atoms.epsilon_search(
            worst(sides),
            x,
            upper,
            self._top_loss(h, variant),
            tolerance,
            hints=hints,
            first_pass=7 if few else 0,
            cluster=SEARCH_CLUSTER if few else 0,
        )

    def _bracket(self, method: str, x: float) -> tuple[float, float]:
        """(lower, upper) of ``method`` ("delta" or "epsilon") at x, refining the grid for ``accuracy``."""
        if not self._grid and (self._finite or self.plan.gaussian_r2 == 0):
            return self._evaluate(method, x, None)  # nothing on the grid: exact up to round-off
        if self.fixed_interval is not None:
            return self._evaluate(method, x, self.fixed_interval)
        target = float(self.accuracy) if self.accuracy is not None else 0.0
        evaluate = partial(self._evaluate, method, x)
        return self._refinement.bracket(evaluate, relative=method != "epsilon", target=target)

    @property
    def _refinement(self) -> GridRefinement:
        """The grid part as ``plan_refinement`` refines it: composed and aligned here, beside the atoms if any."""
        return GridRefinement(self._composed_upper, self._aligned, self._discard, bool(self._finite))

    def _composed_upper(self, h: float) -> Sequence[GridPMF]:
        return self._pld(h).composed(True)

    def _discard(self, h: float) -> None:
        self._composed.pop((h, 0))

    def _resolving(self, h: float) -> float:
        """The first grid: h, or (beside exact atoms) a finer one resolving a narrow grid part
        (``GridRefinement.resolving``)."""
        return self._refinement.resolving(h)

    def _aligned(self, h: float) -> float:
        """A grid h' in (0.7 h, h] through the loss atoms of the Laplace-like grid mechanisms (``grid_alignment``)."""
        return aligned(h, *self._alignment_atoms)

    @cached_property
    def _alignment_atoms(self) -> tuple[float, list[tuple[int, float]]]:
        """The atom |loss| the aligned grids divide, and (rounds, |loss|) of the others (``alignment_atoms``)."""
        return alignment_atoms({mechanism_of(m): c for m, c in self._grid.items()})

    def delta(self, epsilon: float) -> tuple[float, float]:
        """Certified (lower, upper) on delta(epsilon)."""
        if self.plan.non_private:
            return 1.0, 1.0
        if self.plan.empty:
            return 0.0, 0.0
        zcdp = zcdp_total(self.plan)
        if zcdp is not None:  # zCDP runs beside Gaussians only (``zcdp_plan``): no PLD
            return zcdp.delta(epsilon)
        if not self.plan.counts:
            eps = np.array([epsilon], dtype=np.float64)
            return float(self._gaussian_side(False)(eps)[0]), float(self._gaussian_side(True)(eps)[0])
        return self._bracket("delta", epsilon)

    def epsilon(self, delta: float) -> tuple[float, float]:
        """Certified (lower, upper) on the smallest epsilon >= 0 with delta(epsilon) <= delta."""
        if self.plan.non_private:
            return math.inf, math.inf
        if self.plan.empty or delta >= 1.0:
            return 0.0, 0.0
        zcdp = zcdp_total(self.plan)
        if zcdp is not None:
            return zcdp.epsilon(delta) if delta > 0 else (zcdp.epsilon(SMALLEST_DELTA)[0], math.inf)
        if not self.plan.counts:  # epsilon(delta) is non-increasing: a lower bound at SMALLEST_DELTA holds at 0
            r_lo, r_hi = self.plan.gaussian_radius_bounds()
            upper = math.inf if delta <= 0 else float(theta_epsilon_upper(r_hi, delta))
            return float(theta_epsilon_lower(r_lo, max(delta, SMALLEST_DELTA))), upper
        if delta <= 0:  # epsilon(delta) is non-increasing: any lower bound at a delta' > 0 holds at 0
            return self._bracket("epsilon", SMALLEST_DELTA)[0], math.inf
        return self._bracket("epsilon", delta)


def default_grid_profile(plan: CompositionPlan) -> PlanProfile:
    """The plan's profile on the default grid ``DEFAULT_INTERVAL`` (dp_accounting's ``PLDAccountant``'s and
    ``training.DPSGD``'s), or, for a composition whose loss windows would take more than ``DEFAULT_GRID_POINTS``
    points there (``PlanProfile.window_points``, measured on the coarse grid ``PROBE_INTERVAL``), on the
    accuracy-driven grid (``FALLBACK_ACCURACY``): a caller who chose no grid gets an answer within that memory."""
    try:
        points = PlanProfile(plan, PROBE_INTERVAL, None).window_points(DEFAULT_INTERVAL)
    except ValueError:  # not even the coarse grid holds it
        return PlanProfile(plan, None, FALLBACK_ACCURACY)
    if points <= DEFAULT_GRID_POINTS:
        return PlanProfile(plan, DEFAULT_INTERVAL, None)
    return PlanProfile(plan, None, FALLBACK_ACCURACY)
