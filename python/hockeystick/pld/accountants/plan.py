"""The certified (lower, upper) privacy profile of a multiset of mechanisms, and the plan-built mechanisms.

The dp_accounting adapter turns an event tree into a ``CompositionPlan`` (``composition_plan``):
counts per distinct mechanism (a hashable spec, its object
``mechanisms.registry.mechanism_of(spec)``), the Gaussian rounds folded into one radius, and a flag
for non-private events; ``PlanProfile`` answers for it.  Nothing here knows about dp_accounting.

Gaussian rounds.  k rounds of Gaussians with shifts Delta_i / sigma_i compose exactly into one
Gaussian of radius r = sqrt(sum_i (Delta_i / sigma_i)^2) (Dong, Roth, Su 2022, Cor. 3.3: GDP
composes by adding mu^2), so delta = theta(r, eps) (paper 000 eq. 6).  A plan of Gaussians only is
answered in closed form: r^2 as summed carries the round-off of the operations that formed it
(``CompositionPlan.gaussian_r2_operations``), so the upper sides are taken at a radius rounded up
past the exact one and the lower sides at one rounded down (theta and epsilon(delta) grow with r),
each through ``certified_theta`` (theta and its inverses rounded outward; an upper delta below the
doubles is the least subnormal, never 0).  Beside exact atoms it stays in closed form; beside a grid
part of few points on a fixed grid (``plan_gaussian_beside``: delta = sum_k p_k delta_G(eps - l_k)
+ p_inf over the grid part's masses) too, where its own grid would take far more points; otherwise
the radius enters the PLD composition as one Gaussian factor.

Grid.  With a fixed ``value_discretization_interval`` the PLD is built once on that grid.  With
``accuracy`` the grids are chosen by ``refine.plan_refinement`` (from a coarse grid, each aimed at
the asked width from the last one's, until the bracket is narrow enough, stalls, or the grid budget
is spent) and aligned with the Laplace-like atoms by ``refine.grid_alignment``; the final grid's
bounds are reported, so they are certified either way.

Nested mechanisms.  The specs that carry a whole inner plan (a sampled plan, a group of records) or
an inner spec (a Poisson-sampled finite pair) are built from that plan's certified profile, which in
turn builds its mechanisms from the catalogue: the profile and these mechanisms recurse, so they
live in this one module.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial
from typing import ClassVar

import numpy as np

from ...base.accountant import Quantity
from ...numerics.certified_theta import theta_epsilon_lower, theta_epsilon_upper
from ..compose import atoms_compose, atoms_delta, atoms_epsilon
from ..compose.fft import BYTES_PER_POINT
from ..grid.atoms import Atoms
from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.pmf import GridPMF
from ..mechanisms import atoms_from_pairs
from ..mechanisms.constructors import (
    DEFAULT_INTERVAL,
    PoissonGaussian,
    subsampled_gaussians,
)
from ..mechanisms.gaussian_mixture import GaussianMixture
from ..mechanisms.group_of_records import group_mechanism, group_radius2
from ..mechanisms.group_privacy import dyadic_step, group_upper_curves
from ..mechanisms.mechanism import Mechanism, Pair, Spec, two_directions
from ..mechanisms.registry import mechanism_of
from ..mechanisms.selection import ExponentialMechanism, PermuteAndFlip
from ..question.described_run import Segment, subsampled_segments
from ..refine.grid_alignment import aligned, alignment_atoms
from ..refine.plan_refinement import GridRefinement
from ..sampling.subsampled_pair import (
    grid_factor,
    poisson_subsampled_curves,
    with_replacement_curves,
    without_replacement_curves,
)
from ..sampling.subsampling import (
    poisson_subsampled,
    poisson_subsampled_pair,
)
from ..sampling.with_replacement_shift_bound import WithReplacementGaussian, copy_count_weights
from .composition_plan import CompositionPlan, PlanKey
from .plan_charge import low_charge_upper, low_charge_upper_delta
from .plan_gaussian_beside import GAUSSIAN_SPAN, beside_bracket, reads_beside
from .plan_lower_directions import side_curve
from .plan_sides import flat_from, gaussian_side, realizable_lower_sides, worst
from .plan_tilted import tilted_bracket
from .plan_tilted_curves import tilted_sides
from .zcdp_plan import zcdp_total

# Up to this many atoms, an epsilon search without hints starts with 7 points in one call: for few
# atoms one vectorised call costs about as much as one point, and brackets the root closely.
FIRST_PASS_ATOMS = 64
# ... and each call of such a search evaluates 30 points spread evenly and 2 x 15 around its false
# position, so a few calls narrow the root to the tolerance.
SEARCH_CLUSTER = 30
# The least positive double: epsilon at delta = 0 is bounded below by epsilon at this delta.
SMALLEST_DELTA = math.nextafter(0.0, 1.0)
# The default grid's window cap, 128 MiB of the composition's buffers: a composition needing more
# there is read on the accuracy-driven grid instead, which starts coarse (``default_grid_profile``).
DEFAULT_GRID_POINTS = (128 << 20) // BYTES_PER_POINT
# ... with this bracket width aimed for (in epsilon; relative in delta): the default grid's spacing,
# the resolution a caller who chose no grid is given elsewhere.
FALLBACK_ACCURACY = 1e-4
# An exponential mechanism's loss cells within this of its epsilon hold P-mass at least e^{-600} h / 2,
# a normal double for grids h >= FLOOR_MIN_INTERVAL (``window_points_floor``).
POSITIVE_LOSS_REACH = 1200.0
FLOOR_MIN_INTERVAL = 1e-30
# ... and permute-and-flip's canonical pair keeps both its atoms, each of P-mass a normal double, up to
# this epsilon.
CANONICAL_NORMAL_EPSILON = 700.0
# The default grid is this much finer than DEFAULT_INTERVAL, dp_accounting's (``default_interval``).
DEFAULT_GRID_SCALE = 0.875
# ... except where a grid through the atoms below DEFAULT_INTERVAL is already at most this much of it
# (the coarser of the two: fewer points, the atoms on the grid either way).
ALIGNED_GRID_SCALE = 0.9
# ... or where the largest atom lies at least this share of a cell off the 1e-4 grid, the grid
# through the atoms below 1e-4 whatever its spacing: dp_accounting's estimate spreads that atom over
# its cell, an error of order h a round, which the grid through it does not make.
MISALIGNED_CELLS = 0.1
# The coarse grid that measures the default grid's windows: cheap to compose, and windows scale as 1
# / h.
PROBE_INTERVAL = 1e-2
# With replacement: copy counts beyond the first whose tail is below this add their mass to delta; a
# tail this small changes no reported digit while the counts kept stay few.
COPY_COUNT_CUT = 1e-14
# A group bound's loss grid is cut to this many points (beyond it the curve is taken flat, still an
# upper side): the cut keeps one group's grid within the memory of one composed grid.
GROUP_GRID_POINTS = 1 << 20
# The correctly rounded operations of group_radius2: three products, and ROUND_UP's 8 u above them
# counted as 8 more, so a group plan's folded radius is widened by their round-off.
GROUP_OPERATIONS = 11
# The add-direction loss bound of Poisson samples, sum_m count_m (-log(1 - q_m)), is widened by this
# (relative): log1p within 2 u, each product and each partial sum within u, for sums of far fewer
# than 10^3 distinct terms.
ADD_BOUND_MARGIN = 1e-12

# Built factors by (mechanism spec, grid, the alternative upper side, half-cells) (``PlanProfile``).
FactorStore = dict[tuple[Spec, float, bool, bool], PrivacyLossDistribution]


class PlanProfile:
    """Certified (lower, upper) delta(eps) and eps(delta) of a plan, grids built on demand and cached.

    Mechanisms with a finite pair (``Mechanism.finite_pairs``) are composed exactly as atoms, once;
    the rest (and the folded Gaussian) on the loss grid, refined for ``accuracy``; the two are
    combined by ``atoms_delta.delta_with`` (a Gaussian alone beside the atoms in closed form, theta
    extended to eps < 0 by the symmetry of its pair: delta(eps) = 1 - e^eps + e^eps theta(r, -eps)).
    ``low_charge``: a grid part's upper epsilon is read again on a composition with a smaller
    round-off charge where the charge sets it (``plan_charge``; the default grid's).
    ``half_cells``: the Gaussian and Poisson-subsampled Gaussian factors' optimistic sides are built
    from their cells' halves too (``subsampled_gaussians``' ``halves``); without them the lower side
    lies about twice as far from the chord, certified alike, for about half the integration work
    (the default grid's, whose brackets are far narrower than the default tolerance either way).
    ``factors``: a store of built factors shared with other profiles of the same plan (keyed by
    mechanism, grid, upper side and ``half_cells``, the arguments a build is a function of), so a
    factor two profiles of one plan read on one grid is built once; a profile of its own without.
    """

    def __init__(
        self,
        plan: CompositionPlan,
        value_discretization_interval: float | None,
        accuracy: float | None,
        low_charge: bool = False,
        half_cells: bool = True,
        factors: FactorStore | None = None,
    ):
        self.plan = plan
        self.fixed_interval = value_discretization_interval
        self.accuracy = accuracy
        self.low_charge = low_charge
        self.half_cells = half_cells
        self._pairs = {m: mechanism_of(m).finite_pairs() for m in plan.counts}
        self._finite = {m: c for m, c in plan.counts.items() if self._pairs[m] is not None}
        self._grid = {m: c for m, c in plan.counts.items() if self._pairs[m] is None}
        self._composed: dict[tuple[float, int], PrivacyLossDistribution] = {}
        self._grid_parts: dict[float, PrivacyLossDistribution] = {}
        self._factors: FactorStore = {} if factors is None else factors
        self._atoms: list[Atoms] | None = None
        self._sharp: dict[float, list[dict[Factor, int]]] = {}

    @property
    def _upper_variants(self) -> tuple[int, ...]:
        """0: every mechanism's own PLD; 1 (if the plan has any): ``Mechanism.upper_alternative`` in their place."""
        return (0, 1) if any(self._alternative(m, 1) for m in self._grid) else (0,)

    def _pld(self, h: float, variant: int = 0) -> PrivacyLossDistribution:
        """The grid part (every mechanism without a finite pair, and the folded Gaussian) on grid h;
        ``variant`` 1 takes each mechanism's alternative upper side
        (``Mechanism.upper_alternative``; upper only)."""
        if (h, variant) not in self._composed:
            parts = [(self._factor(m, h, variant), c) for m, c in self._grid.items()]
            if self.plan.gaussian_r2 > 0:
                sigma = 1.0 / math.sqrt(self.plan.gaussian_r2)
                parts.append((_gaussian_pld(sigma, 1.0, h, self.half_cells), 1))
            self._composed[(h, variant)] = _composed(parts)
        return self._composed[(h, variant)]

    def _grid_part(self, h: float) -> PrivacyLossDistribution:
        """The mechanisms without a finite pair alone on grid h (the folded Gaussian left out)."""
        if h not in self._grid_parts:
            self._grid_parts[h] = _composed(
                [(self._factor(m, h), c) for m, c in self._grid.items()]
            )
        return self._grid_parts[h]

    def _gaussian_beside(self, h: float) -> bool:
        """Whether the folded Gaussian is read beside the grid part in closed form on the fixed grid
        h (``plan_gaussian_beside``): grid mechanisms describing no run the question reader reads
        (``described_run.described_segments`` of their specs), their windows (summed: a bound on
        the composed ones) few enough."""
        return (
            self.fixed_interval is not None
            and self.plan.gaussian_r2 > 0
            and reads_beside(
                [(mechanism_of(m), self._factor(m, h), c) for m, c in self._grid.items()],
                self.plan.gaussian_r2,
                h,
            )
        )

    def _sharp_directions(self, h: float) -> list[dict[Factor, int]]:
        """The grid part's directions with each nested Poisson sample built from its inner's tilted
        curves (``PoissonGeneric.sharp_pld``), for the tilted read at small delta; the other
        mechanisms' factors as built."""
        if h not in self._sharp:
            total: PrivacyLossDistribution | None = None
            for spec, count in self._grid.items():
                m = mechanism_of(spec)
                pld = m.sharp_pld(h) if isinstance(m, PoissonGeneric) else self._factor(spec, h)
                step = pld.self_compose(count) if count > 1 else pld
                total = step if total is None else total.compose(step)
            assert total is not None
            self._sharp[h] = total.directions
        return self._sharp[h]

    def window_points(self, h: float) -> float:
        """About how many points the grid part's widest composed window takes on grid h, from its
        composition on this profile's own (coarser) grid: a window spans a loss range, so its points
        scale as 1 / h.  0 for a plan without a grid part, a plan of Gaussians alone (``delta`` and
        ``epsilon`` read their folded radius in closed form) or a zCDP plan (read in closed
        form)."""
        if (
            not self._grid
            and self.plan.gaussian_r2 == 0
            or self.fixed_interval is None
            or not self.plan.counts
        ):
            return 0.0
        if zcdp_total(self.plan) is not None:  # zCDP runs beside Gaussians: read without a grid
            return 0.0
        sizes = [pmf.p.size for pmf in self._pld(self.fixed_interval).composed(True)]
        return max(sizes) * self.fixed_interval / h

    def _factor(self, mechanism: Spec, h: float, variant: int = 0) -> PrivacyLossDistribution:
        alternative = self._alternative(mechanism, variant)
        key = (mechanism, h, alternative, self.half_cells)
        if key not in self._factors:
            m = mechanism_of(mechanism)
            pld = m.upper_alternative(h) if alternative else _grid_pld(m, h, self.half_cells)
            assert pld is not None
            self._factors[key] = pld
        return self._factors[key]

    @staticmethod
    def _alternative(mechanism: Spec, variant: int) -> bool:
        """Whether ``variant`` takes the mechanism's second upper side: variant 1 and the mechanism has one."""
        return variant == 1 and mechanism_of(mechanism).has_upper_alternative()

    def _atom_directions(self) -> list[Atoms]:
        """The finite mechanisms composed exactly, per neighbouring direction (both sides share them)."""
        if self._atoms is None:
            parts = [(self._exact_atoms(m), c) for m, c in self._finite.items()]
            directions = max(len(a) for a, _ in parts)
            self._atoms = [
                atoms_compose.compose_all([(a[d % len(a)], c) for a, c in parts])
                for d in range(directions)
            ]
        return self._atoms

    def _exact_atoms(self, mechanism: Spec) -> list[Atoms]:
        """One finite mechanism's atoms per direction: in closed form where it has them, else from its pairs."""
        atoms = mechanism_of(mechanism).exact_atoms()
        pairs = self._pairs[mechanism]
        assert pairs is not None
        return atoms if atoms is not None else [atoms_from_pairs.pair_atoms(*p) for p in pairs]

    def _gaussian_side(self, upper: bool) -> Callable[[np.ndarray], np.ndarray]:
        """The folded Gaussian's certified side at any real eps (``gaussian_side``)."""
        return partial(
            gaussian_side, self.plan.gaussian_radius_bounds()[1 if upper else 0], upper=upper
        )

    def _sides(
        self, h: float | None, upper: bool, variant: int = 0
    ) -> list[Callable[[np.ndarray], np.ndarray]]:
        """delta(eps) per direction on one side: the atoms combined with the rest (grid h, or closed form)."""
        atoms = self._atom_directions()
        if not self._grid and self.plan.gaussian_r2 == 0:
            return [partial(atoms_delta.delta, a, upper=upper) for a in atoms]
        if not self._grid:
            g = self._gaussian_side(upper)
            return [partial(atoms_delta.delta_with, a, g, upper=upper) for a in atoms]
        assert h is not None
        pmfs = self._pld(h, variant).composed(upper)
        n = max(len(pmfs), len(atoms))
        return [
            partial(
                atoms_delta.delta_with,
                atoms[d % len(atoms)],
                atoms_delta.grid_side(pmfs[d % len(pmfs)]),
                upper=upper,
            )
            for d in range(n)
        ]

    def curves(self, h: float, upper: bool) -> list[Callable[[np.ndarray], np.ndarray]]:
        """The plan's delta(eps) per direction on one certified side, at any real eps (grid h)."""
        if self._finite:
            return self._sides(h, upper)
        if not self._grid:
            return [self._gaussian_side(upper)]
        return [atoms_delta.grid_side(pmf) for pmf in self._pld(h).composed(upper)]

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

    def _evaluate(
        self, method: Quantity, x: float, h: float | None, hints: tuple[float, ...] = ()
    ) -> tuple[float, float]:
        """(lower, upper) of ``method`` at x on grid h (h unused when nothing is on the grid).

        ``hints``: a coarser grid's bracket, where an epsilon search starts looking (with the lower
        side's answer, for the upper side).
        """
        if not self._finite:
            assert h is not None
            return self._evaluate_grid(method, x, h, hints)
        if (
            method == "epsilon" and not self._grid and self.plan.gaussian_r2 == 0
        ):  # atoms alone: exact roots
            brackets = [atoms_epsilon.pure_epsilon_bracket(a, x) for a in self._atom_directions()]
            return max(lo for lo, _ in brackets), max(up for _, up in brackets)
        lower = self._evaluate_side(method, x, h, False, 0, hints)
        return lower, min(
            self._evaluate_side(method, x, h, True, v, hints + (lower,))
            for v in self._upper_variants
        )

    def _evaluate_grid(
        self, method: Quantity, x: float, h: float, hints: tuple[float, ...] = ()
    ) -> tuple[float, float]:
        """(lower, upper) of ``method`` at x of a plan without exact atoms on grid h: the folded
        Gaussian beside the grid part in closed form, or the grid's own compositions."""
        if self._gaussian_beside(h):
            radius = self.plan.gaussian_radius_bounds()
            return beside_bracket(self._grid_part(h), radius, method, x, hints)
        # the grid's own compositions: the plan's question logic (question_plan) reads the run
        # on top of them; on a grid the caller fixed there is none, so the PLD reads the run it
        # describes as every door does (``pld.question``), its own bracket intersected with the
        # run's
        lo, up = getattr(self._pld(h), method)(
            x, bound="both", composition_only=self.fixed_interval is None
        )
        for variant in self._upper_variants[1:]:  # a further proved upper side: the smaller
            alternative = self._pld(h, variant)
            up = min(up, getattr(alternative, method)(x, bound="upper", composition_only=True))
        if self.low_charge:  # the charge, not the grid, may set it
            read = low_charge_upper if method == "epsilon" else low_charge_upper_delta
            up = read(self._pld(h), x, float(up))
        bound = add_loss_bound(self._grid) if self.plan.gaussian_r2 == 0 else None
        if bound is not None:
            up = min(up, bounded_add_upper(self._pld(h).composed(True), method, x, bound))
            if self.fixed_interval is not None:  # near the composition's round-off: the tilted read
                composed = self._pld(h).composed(True)
                round_off = max(p.total_error + p.p_inf for p in composed)
                sharp = partial(self._sharp_directions, h)
                return tilted_bracket(sharp, method, x, float(lo), float(up), bound, round_off)
        return float(lo), float(up)

    def _evaluate_side(
        self,
        method: Quantity,
        x: float,
        h: float | None,
        upper: bool,
        variant: int,
        hints: tuple[float, ...] = (),
    ) -> float:
        """One side of ``method`` at x with the atoms beside a grid h (``variant`` of the grid part)
        or the folded Gaussian, or (delta only) alone; ``hints``: where an epsilon search starts
        looking."""
        curve = side_curve(self, h, upper, variant, x if method == "epsilon" else None)
        if method == "delta":
            return float(curve(np.array([x]))[0])
        tolerance = 1e-9 if self.accuracy is None else min(float(self.accuracy) / 20.0, 1e-6)
        few = max(a.mass.size for a in self._atom_directions()) <= FIRST_PASS_ATOMS
        return atoms_epsilon.epsilon_search(
            curve,
            x,
            upper,
            self._top_loss(h, variant),
            tolerance,
            hints=hints,
            first_pass=7 if few else 0,
            cluster=SEARCH_CLUSTER if few else 0,
        )

    def _bracket(self, method: Quantity, x: float) -> tuple[float, float]:
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

        def discard(h: float) -> None:  # a grid's composition, once refined past it
            self._composed.pop((h, 0))

        upper = lambda h: self._pld(h).composed(True)  # noqa: E731 (its pessimistic PMFs)
        return GridRefinement(upper, self._aligned, discard, bool(self._finite))

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
            return float(self._gaussian_side(False)(eps)[0]), float(
                self._gaussian_side(True)(eps)[0]
            )
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
        if (
            not self.plan.counts
        ):  # epsilon(delta) is non-increasing: a lower bound at SMALLEST_DELTA holds at 0
            r_lo, r_hi = self.plan.gaussian_radius_bounds()
            upper = math.inf if delta <= 0 else float(theta_epsilon_upper(r_hi, delta))
            return float(theta_epsilon_lower(r_lo, max(delta, SMALLEST_DELTA))), upper
        if (
            delta <= 0
        ):  # epsilon(delta) is non-increasing: any lower bound at a delta' > 0 holds at 0
            return self._bracket("epsilon", SMALLEST_DELTA)[0], math.inf
        return self._bracket("epsilon", delta)


def read_run(profile: PlanProfile) -> list[Segment] | None:
    """The run of Poisson-subsampled Gaussians whose question read ``profile``'s brackets hold.

    On a fixed grid, without atoms or a folded Gaussian read beside the grid part, a bracket is the
    composed PLD's own intersected with the installed question reader's read of the run its factors
    describe (``PlanProfile._evaluate_grid``, ``pld.question``): that run, where it is rounds of
    Poisson-subsampled Gaussians in both directions.

    Parameters
    ----------
    profile : PlanProfile
        The profile whose brackets are read.

    Returns
    -------
    list of ((noise, q, 1.0), rounds) or None
        ``described_run.subsampled_segments`` of the composed PLD; None where no such read is held.
    """
    h = profile.fixed_interval
    if h is None or not profile._grid or profile._finite or profile._gaussian_beside(h):
        return None
    return subsampled_segments(profile._pld(h))


def _gaussian_pld(sigma: float, q: float, h: float, half_cells: bool) -> PrivacyLossDistribution:
    """The Poisson-subsampled Gaussian (``q`` 1: the Gaussian) of noise ``sigma`` on grid h, its
    optimistic side from half-cells where ``half_cells`` (``PlanProfile``)."""
    # one thread: one factor's two directions are too few cells for a team, whose threads would
    # spin on the cores after the call for longer than they save
    return subsampled_gaussians(
        [sigma], [q], value_discretization_interval=h, halves=half_cells, threads=1
    )[0]


def _grid_pld(mechanism: Mechanism, h: float, half_cells: bool) -> PrivacyLossDistribution:
    """``mechanism.grid_pld(h)``; a Poisson-subsampled Gaussian's with half-cells as asked."""
    if isinstance(mechanism, PoissonGaussian):
        return _gaussian_pld(mechanism.sigma, mechanism.q, h, half_cells)
    return mechanism.grid_pld(h)


def _composed(parts: list[tuple[PrivacyLossDistribution, int]]) -> PrivacyLossDistribution:
    """The composition of ``count`` runs of each PLD of ``parts`` (at least one)."""
    total: PrivacyLossDistribution | None = None
    for pld, count in parts:
        step = pld.self_compose(count) if count > 1 else pld
        total = step if total is None else total.compose(step)
    assert total is not None
    return total


def add_loss_bound(counts: dict[Spec, int]) -> float | None:
    """An upper bound on every privacy loss of the add direction of a composition of Poisson samples
    of any inner plans (``PoissonGeneric``, ``counts`` per spec), or None where another mechanism
    takes part.

    Sampled at rate q, the add pair is (Q, q P + (1 - q) Q), whose likelihood ratio dQ / d(q P +
    (1 - q) Q) is at most 1 / (1 - q): each round's loss is at most -log(1 - q), and losses add over
    rounds.  So the add direction's delta(eps) is exactly 0 at eps >= sum_m count_m (-log(1 - q_m));
    the grid PMF does not see it, its read-back and round-off deficits sitting at loss +infinity
    (``subsampled_pair._upper_pmf``).  The sum is widened by ``ADD_BOUND_MARGIN`` (relative) for the
    round-off of log1p, the products and the sum.

    Parameters
    ----------
    counts : dict
        A plan's rounds per mechanism spec (``CompositionPlan.counts``).

    Returns
    -------
    float or None
        The bound B (Zhu, Dong & Wang 2022, Thm. 11's add pair), or None.

    Raises
    ------
    ValueError
        A spec that names no mechanism of the catalogue.
    """
    if not counts:
        return None
    total = 0.0
    for spec, count in counts.items():
        mechanism = mechanism_of(spec)
        if not isinstance(mechanism, PoissonGeneric):
            return None
        total += count * -math.log1p(-mechanism.q)
    return total * (1.0 + ADD_BOUND_MARGIN)


def bounded_add_upper(pmfs: Sequence[GridPMF], method: Quantity, x: float, bound: float) -> float:
    """The upper side of ``method`` at x over the (remove, add) composed pessimistic PMFs, the add
    direction's read at most ``bound`` in epsilon and 0 in delta at eps >= ``bound``
    (``add_loss_bound``).

    Parameters
    ----------
    pmfs : sequence of GridPMF
        The composed pessimistic PMFs per direction, remove first, add second.
    method : {"epsilon", "delta"}
        What is read: epsilon at delta x, or delta at epsilon x.
    x : float
        The delta or the epsilon asked.
    bound : float
        The add direction's loss bound.

    Returns
    -------
    float
        The larger direction's certified upper side; inf for another number of directions (no add
        direction known).

    Raises
    ------
    ValueError
        An argument the PMFs' reads refuse (NaN).
    """
    if len(pmfs) != 2:
        return math.inf
    at = np.array([x], dtype=np.float64)
    if method == "delta":
        add = 0.0 if x >= bound else float(pmfs[1].delta(at)[0])
        return max(float(pmfs[0].delta(at)[0]), add)
    remove = max(float(pmfs[0].epsilon(at)[0]), 0.0)
    return max(remove, min(max(float(pmfs[1].epsilon(at)[0]), 0.0), bound))


def summed_window_points(profile: PlanProfile, h: float) -> float | None:
    """An upper bound on the points of ``profile``'s grid part's widest composed window on grid h,
    from its factors built there (and kept for its reads): a composition's support lies in the sum
    of its factors', so its window is at most count times each factor's widest, summed, the
    folded Gaussian's taken as ``GAUSSIAN_SPAN`` r / h.  None where a mechanism carries an inner
    plan (its factor on grid h is itself a composition, which the coarse probe of
    ``PlanProfile.window_points`` measures first); 0 where that probe is.

    Parameters
    ----------
    profile : PlanProfile
        The plan's profile on grid h (its factors are built there).
    h : float
        The grid spacing.

    Returns
    -------
    float or None
        The bound, or None.

    Raises
    ------
    ValueError
        Where a factor cannot be built on grid h (its window past the cells a build takes).
    """
    if not profile._grid and profile.plan.gaussian_r2 == 0 or not profile.plan.counts:
        return 0.0
    if zcdp_total(profile.plan) is not None:
        return 0.0
    if any(isinstance(mechanism_of(m), _NESTED) for m in profile._grid):
        return None
    total = sum(
        count * max(pmf.p.size for pmf in profile._factor(m, h).composed(True))
        for m, count in profile._grid.items()
    )
    return total + GAUSSIAN_SPAN * math.sqrt(profile.plan.gaussian_r2) / h


def window_points_floor(profile: PlanProfile, h: float) -> float:
    """A lower bound on ``summed_window_points(profile, h)`` known without building a factor, so that
    a composition past ``DEFAULT_GRID_POINTS`` whatever its factors' builds skips them.

    The exponential mechanism's factor (``selection.exponential_mechanism``) is the bounded-range
    pair: on y in [-epsilon/2, epsilon/2], loss 2y, each loss cell of width h is a y-interval
    (a, a + h/2] of P-mass e^{a - epsilon/2} expm1(h/2) / (1 - e^{-epsilon})
    (cpp/include/hockeystick/pld/mechanisms/bounded_range.hpp).  Where its loss 2a is within
    ``POSITIVE_LOSS_REACH`` = 1200 of epsilon that mass is at least e^{-600} h / 2 > 1e-292 for
    h >= ``FLOOR_MIN_INTERVAL``, a normal double computed to a few ulp, so the cell holds an atom
    of the factor's upper PMF: its window spans at least min(2 epsilon, 1200) / h - 2 points.
    Permute-and-flip's upper factor is the (epsilon, 0)-DP canonical pair's (``canonical``): P-masses
    e^epsilon / (1 + e^epsilon) at loss epsilon and 1 / (1 + e^epsilon) at -epsilon, the latter at
    least e^{-700} / 2, a normal double kept exactly, for epsilon <= ``CANONICAL_NORMAL_EPSILON`` =
    700: its window then spans at least 2 epsilon / h - 2 points.  The with-replacement Gaussian's
    upper factor is mirrored about loss 0, its PMF one array over the grid losses from below -T to
    above T, T its ``WithReplacementGaussian.top_loss_floor``: its window spans at least 2 T / h - 2
    points.  The mixture of Gaussians' remove direction's upper PMF holds atoms at losses at least
    ``GaussianMixture.loss_span_floor(h)`` apart (its proof there): its window spans at least
    that over h, less 2, points.  The other mechanisms count 0; 0
    for a plan ``summed_window_points`` answers without factors (zCDP).

    Parameters
    ----------
    profile : PlanProfile
        The plan's profile on grid h.
    h : float
        The grid spacing.

    Returns
    -------
    float
        The lower bound, at most ``summed_window_points(profile, h)`` where that builds its factors.

    Raises
    ------
    ValueError
        A spec of the plan that names no mechanism of the catalogue.
    """
    if h < FLOOR_MIN_INTERVAL or zcdp_total(profile.plan) is not None:
        return 0.0
    total = 0.0
    for spec, count in profile._grid.items():
        mechanism = mechanism_of(spec)
        if isinstance(mechanism, ExponentialMechanism):
            reach = min(2.0 * mechanism.eps, POSITIVE_LOSS_REACH)
        elif isinstance(mechanism, PermuteAndFlip) and mechanism.eps <= CANONICAL_NORMAL_EPSILON:
            reach = 2.0 * mechanism.eps
        elif isinstance(mechanism, WithReplacementGaussian):
            reach = 2.0 * mechanism.top_loss_floor()
        elif isinstance(mechanism, GaussianMixture):
            reach = mechanism.loss_span_floor(h)
        else:
            continue
        total += count * max(reach / h - 2.0, 0.0)
    return total


def default_interval(plan: CompositionPlan) -> float:
    """The default grid's spacing for ``plan``: ``DEFAULT_GRID_SCALE`` times ``DEFAULT_INTERVAL``,
    moved down into (0.7, 1] of that through the atoms of its Laplace-like grid mechanisms
    (``refine.grid_alignment.aligned``); where the grid through the atoms below
    ``DEFAULT_INTERVAL`` itself is at most ``ALIGNED_GRID_SCALE`` of it, that one.

    On dp_accounting's own grid, 1e-4, our pessimistic masses are its pessimistic estimate's
    (connect-the-dots, Doroshenko et al. 2022), so a certified upper side, carrying the
    composition's round-off charge, lies above that estimate.  A finer grid cuts the error of the
    density between grid points like h^2 (by 1 - 0.875^2 = 23 % at the scale), and a grid through
    the atoms leaves no atom spread over a cell (an error of order h a round; ``grid_alignment``):
    the default's upper side then lies below dp_accounting's default wherever that is above our
    certified lower side (``plan_charge`` where the charge alone would not let it).

    Parameters
    ----------
    plan : CompositionPlan
        What was composed.

    Returns
    -------
    float
        The spacing, in (0.7 DEFAULT_GRID_SCALE DEFAULT_INTERVAL, ALIGNED_GRID_SCALE
        DEFAULT_INTERVAL].

    Raises
    ------
    ValueError
        A spec of the plan that names no mechanism of the catalogue.
    """
    profile = PlanProfile(plan, DEFAULT_INTERVAL, None)
    through = profile._aligned(DEFAULT_INTERVAL)
    cells = profile._alignment_atoms[0] / DEFAULT_INTERVAL  # the largest atom, in 1e-4 cells
    if cells > 0 and abs(cells - round(cells)) >= MISALIGNED_CELLS:  # off dp_accounting's grid
        return through
    if through <= DEFAULT_INTERVAL * ALIGNED_GRID_SCALE:  # fine enough already: the coarsest such
        return through
    return profile._aligned(DEFAULT_INTERVAL * DEFAULT_GRID_SCALE)


def default_grid_profile(plan: CompositionPlan, factors: FactorStore | None = None) -> PlanProfile:
    """The plan's profile on the default grid (``default_interval``: finer than dp_accounting's
    ``PLDAccountant``'s 1e-4, through its Laplace-like atoms; its upper epsilon read again with a
    smaller round-off charge where the charge sets it, ``plan_charge``), or, for a composition
    whose loss windows would take more than ``DEFAULT_GRID_POINTS`` points there (at most its
    factors' summed windows there, ``summed_window_points``, not built where a floor known without
    them is past the cap already, ``window_points_floor``; else ``PlanProfile.window_points``,
    measured on the coarse grid ``PROBE_INTERVAL``), on the accuracy-driven grid
    (``FALLBACK_ACCURACY``): a caller who chose no grid gets an answer within that memory.
    ``factors``: the store of built factors the profiles share (``PlanProfile``)."""
    h = default_interval(plan)
    default = PlanProfile(plan, h, None, low_charge=True, half_cells=False, factors=factors)
    try:  # the factors' summed windows bound the composed ones: below the cap, no probe is needed
        past = window_points_floor(default, h) > DEFAULT_GRID_POINTS  # past it whatever the builds
        bound = None if past else summed_window_points(default, h)
    except ValueError:  # a factor alone is past the cells a build takes: the probe decides
        bound = None
    if bound is not None and bound <= DEFAULT_GRID_POINTS:
        return default
    try:
        points = PlanProfile(plan, PROBE_INTERVAL, None, factors=factors).window_points(h)
    except ValueError:  # not even the coarse grid holds it
        return PlanProfile(plan, None, FALLBACK_ACCURACY, factors=factors)
    if points <= DEFAULT_GRID_POINTS:
        return default
    return PlanProfile(plan, None, FALLBACK_ACCURACY, factors=factors)


def _generic_subsample(
    scheme: str, rate: float, key: PlanKey, h: float, sharp: bool = False
) -> PrivacyLossDistribution:
    """Any inner plan (given by ``CompositionPlan.key``) sampled at ``rate``, through its certified curves.

    The inner plan's curves on grid h (atoms exact, grid PLDs composed, the folded Gaussian in
    closed form; ``PlanProfile._sides``) are the inner's certified sides, direction 0 the remove (or
    the replace-one) pair and the last the add pair; ``pld.subsampled_pair`` carries them through
    the sampling map, which is monotone in them, and puts the result on grid h.

    The sampled grid stops where the inner's upper curve turns flat (``flat_from``: within 1e-18 of
    its value at the inner's top loss, the rest at +infinity on the upper side), not at that top
    loss: a folded Gaussian's top, r^2 / 2 + 40 r + 1, lies where its curve is below 1e-199 (132 at
    r = sqrt(10)), and a lower PMF built out there fails its read-back check and falls to the
    trivial lower side (``subsampled_pair._lower_pmf``): 10 full-batch steps of z = 1 at q = 0.01,
    100 rounds, read 0.90 at delta 1e-5 where the truth is 23.31.

    ``sharp``: the first direction's curves (the remove or replace-one pair, whose tail the sampled
    curve carries) are combined with their reads under exponential tilts where the inner
    composition's round-off floors them (``plan_tilted_curves.tilted_sides``), for a plan of grid
    mechanisms only.
    """
    inner = PlanProfile(CompositionPlan.from_key(key), h, None)
    upper, lower = inner.curves(h, True), inner.curves(h, False)
    top = flat_from(worst(upper), inner.top_loss(h))
    if (
        sharp and not inner._finite and inner.plan.gaussian_r2 == 0
    ):  # the first direction's tail read under tilts
        upper[0], lower[0] = tilted_sides(
            inner._pld(h).directions[0], (upper[0], lower[0]), inner.top_loss(h)
        )
    inf_lower = float(
        lower[0](np.array([1e4]))[0]
    )  # delta at eps -> infinity, from below (losses < 1e4)
    if scheme == "poisson":
        return poisson_subsampled_curves(
            (upper[0], lower[0]),
            (upper[-1], lower[-1]),
            rate,
            top,
            inf_lower,
            value_discretization_interval=h,
        )
    return without_replacement_curves(
        (upper[0], lower[0]), rate, top, inf_lower, value_discretization_interval=h
    )


def group_plan(inner: CompositionPlan, c: int, groups: int) -> CompositionPlan:
    """The replace-one plan ``inner`` run on two batches c slots apart: each mechanism's group-c
    spec (``group_of_records``; ``groups`` the largest c of the caller, for the shared group-bound
    tables), composed (every mechanism sees the same pair of batches)."""
    plan = CompositionPlan(non_private=inner.non_private)
    for spec, count in inner.counts.items():
        plan.add(group_mechanism(mechanism_of(spec), c, groups), count)
    plan.gaussian_r2 = group_radius2(inner.gaussian_r2, c)
    plan.gaussian_r2_operations = inner.gaussian_r2_operations + (GROUP_OPERATIONS if c > 1 else 0)
    return plan


@lru_cache(maxsize=8)  # one build asks for every c of a few mechanisms on one grid
def _group_tables(
    mechanism: Spec, h: float, groups: int
) -> tuple[list[Callable[[np.ndarray], np.ndarray]], Callable[[np.ndarray], np.ndarray], float]:
    """``pld.group_privacy``'s upper curves G_1 .. G_groups of one mechanism on grid h (from its
    upper curve over every direction), its own lower side (a lower bound on every group's curve: a
    group of c is at least one step), and its top loss."""
    inner = PlanProfile(CompositionPlan({mechanism: 1}), h, None)
    upper, lower = worst(inner.curves(h, True)), worst(inner.curves(h, False))
    top = inner.top_loss(h)
    return group_upper_curves(upper, groups, top, dyadic_step(top, groups, h)), lower, top


def _group_bound(c: int, groups: int, mechanism: Spec, h: float) -> PrivacyLossDistribution:
    """One mechanism on inputs c replace-one steps apart, by the weak-triangle group bound, on grid
    h (one direction: the bound holds for every ordered pair).  Lower side: the mechanism's own."""
    curves, lower, top = _group_tables(mechanism, h, groups)
    reach = min(flat_from(curves[c - 1], c * top) + h, 0.5 * GROUP_GRID_POINTS * h)
    factor = grid_factor(
        f"group_bound(c={c}, {mechanism[0]})", curves[c - 1], lower, -reach, reach, h, 0.0
    )
    return PrivacyLossDistribution([{factor: 1}])


def _with_replacement_generic(k: int, n: int, key: PlanKey, h: float) -> PrivacyLossDistribution:
    """Batches of k draws with replacement from n records of any replace-one plan (given by its
    key): ``pld.subsampled_pair.with_replacement_curves`` on the certified curves of the plan's
    group-c plans (``group_plan``), c = 1 .. c_max (the counts past c_max add their tail mass); the
    lower side from a realizable pair (``plan_sides.realizable_lower_sides``)."""
    inner = CompositionPlan.from_key(key)
    weights, tail = copy_count_weights(int(k), int(n), COPY_COUNT_CUT)
    groups = int(weights.size - 1)
    profiles: dict[int, PlanProfile] = {}

    def profile(c: int) -> PlanProfile:
        if c not in profiles:
            profiles[c] = PlanProfile(group_plan(inner, c, groups), h, None)
        return profiles[c]

    def group(
        c: int,
    ) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
        return worst(profile(c).curves(h, True)), worst(profile(c).curves(h, False))

    # the largest group changes over the longest range (its shift is the largest)
    top = flat_from(group(groups)[0], profile(groups).top_loss(h))
    return with_replacement_curves(
        group,
        int(k),
        int(n),
        top,
        value_discretization_interval=h,
        cut=COPY_COUNT_CUT,
        realizable=realizable_lower_sides(
            inner, {spec: mechanism_of(spec) for spec in inner.counts}, weights, tail, h
        ),
    )


@dataclass(frozen=True)
class PoissonPair(Mechanism):
    """One run of a finite mechanism (its spec ``inner``) on a Poisson sample of rate q: its remove
    pair (P, Q) -> ((1-q) Q + q P, Q), and swapped (Zhu, Dong, Wang 2022, Thm 11); nested samples
    and every finite inner stay exact atoms."""

    name: ClassVar[str] = "poisson_pair"
    q: float
    inner: Spec

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return poisson_subsampled(*self._inner_pair(), self.q, value_discretization_interval=h)

    def finite_pairs(self) -> list[Pair] | None:
        return two_directions(poisson_subsampled_pair(*self._inner_pair(), self.q))

    def _inner_pair(self) -> Pair:
        pairs: list[Pair] | None = mechanism_of(self.inner).finite_pairs()
        if pairs is None:
            raise ValueError(f"poisson_pair's inner must have a finite pair, got {self.inner!r}")
        return pairs[0]


@dataclass(frozen=True)
class PoissonGeneric(Mechanism):
    """Any inner plan (its ``CompositionPlan.key``) on a Poisson sample of rate q: the sampling map
    of Zhu, Dong, Wang 2022, Thm 11, monotone in the inner's certified curves, carried through them
    (``pld.subsampled_pair.poisson_subsampled_curves``; ``_generic_subsample``)."""

    name: ClassVar[str] = "poisson_generic"
    q: float
    key: PlanKey

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return _generic_subsample("poisson", self.q, self.key, h)

    def sharp_pld(self, h: float) -> PrivacyLossDistribution:
        """``grid_pld`` from the inner's remove curve read under tilts where its round-off floors it
        (``plan_tilted_curves``): certified alike, tighter at small delta, dearer to build."""
        return _generic_subsample("poisson", self.q, self.key, h, sharp=True)


@dataclass(frozen=True)
class WithoutReplacementGeneric(Mechanism):
    """Batches of m of n records drawn without replacement around any replace-one inner plan (its
    key): advanced joint convexity (Balle, Barthe, Gaboardi 2018, Thm 2, mirrored) on the inner's
    certified curves at rate m / n (``pld.subsampled_pair.without_replacement_curves``)."""

    name: ClassVar[str] = "without_replacement_generic"
    m: int
    n: int
    key: PlanKey

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return _generic_subsample("without_replacement", self.m / self.n, self.key, h)


@dataclass(frozen=True)
class WithReplacementGeneric(Mechanism):
    """Batches of k draws with replacement from n records around any replace-one inner plan (its
    key): the record is drawn c ~ Binom(k, 1/n) times, the inner sees a group of c
    (``group_of_records``), mixed by joint convexity (Balle, Barthe, Gaboardi 2018, Thm 2); lower
    side from a realizable pair (``_with_replacement_generic``)."""

    name: ClassVar[str] = "with_replacement_generic"
    k: int
    n: int
    key: PlanKey

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return _with_replacement_generic(self.k, self.n, self.key, h)


@dataclass(frozen=True)
class GroupBound(Mechanism):
    """One mechanism (its spec) on inputs c replace-one steps apart: the weak-triangle group bound
    of ``pld.group_privacy`` on its certified upper curve (``groups`` the largest c asked, one table
    for all), one direction (it holds for every ordered pair); lower side the mechanism's own
    (``_group_bound``)."""

    name: ClassVar[str] = "group_bound"
    c: int
    groups: int
    mechanism: Spec

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return _group_bound(self.c, self.groups, self.mechanism, h)


# The mechanisms whose factor on a grid is itself the composition of an inner plan there.
_NESTED = (PoissonGeneric, WithoutReplacementGeneric, WithReplacementGeneric)
