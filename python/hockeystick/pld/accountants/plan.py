"""A multiset of mechanisms to compose, and its certified (lower, upper) privacy profile.

The dp_accounting adapter turns an event tree into a ``CompositionPlan``: counts per distinct
mechanism (a hashable ``Mechanism`` spec), the Gaussian rounds folded into one radius, and a flag
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
``accuracy`` the grid starts at ``COARSEST_INTERVAL`` and shrinks by 0.9 sqrt(accuracy / width)
(the certified bracket narrows like h^2 for connect-the-dots PMFs) until the bracket at the asked
point is no wider than ``accuracy`` (absolute in epsilon, relative in delta) or the grid reaches
``FINEST_INTERVAL`` or the composed grid would exceed ``MAX_POINTS`` (finite pairs' brackets narrow
only like h, so a tight target can be out of reach) or the bracket stops narrowing (slower than
h^``STALL_ORDER`` between two grids: what is left is no grid error); the final grid's bounds are
reported, so they are certified either way.  Each grid is nudged (by at most 30%) to pass through the
loss atoms of the Laplace-like mechanisms (``PlanProfile._aligned``), where their error falls like h^2
instead of h.  Beside exact atoms, the first grid resolves a narrow grid part (``PlanProfile._resolving``);
a first jump of more than 16x to a grid past ``PROBE_POINTS`` goes ``PROBE_SHRINK`` times finer first, so
a width that is no grid error stalls on a cheap grid rather than the budget's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial
from typing import Any

import numpy as np

from ... import _core
from ...certified_theta import theta_epsilon_lower, theta_epsilon_upper, theta_lower, theta_upper
from ..compose import finite_atoms
from ..compose.distribution import PrivacyLossDistribution
from ..compose.pmf import GridPMF
from ..mechanisms.canonical import canonical_pair, eps_delta_dp
from ..mechanisms.constructors import (
    fixed_size_subsampled_gaussian,
    gaussian,
    laplace,
    subsampled_gaussian,
    with_replacement_subsampled_gaussian,
)
from ..mechanisms.discrete_gaussian import discrete_gaussian_atoms, discrete_gaussian_pair
from ..mechanisms.discrete_laplace import discrete_laplace, discrete_laplace_atoms, discrete_laplace_pair
from ..mechanisms.gaussian_mixture import mixture_of_gaussians
from ..mechanisms.group_of_records import INPUT_OBLIVIOUS, group_mechanism, group_radius2
from ..mechanisms.group_privacy import dyadic_step, group_upper_curves
from ..mechanisms.laplace_mixture import laplace_mixture, laplace_mixture_atom_losses
from ..mechanisms.randomized_response import randomized_response, randomized_response_pair
from ..mechanisms.selection import exponential_mechanism, permute_and_flip
from ..sampling.poisson_replace_one import poisson_replace_one_gaussian
from ..sampling.random_allocation import random_allocation_gaussian
from ..sampling.subsampled_pair import (
    grid_factor,
    poisson_subsampled_curves,
    with_replacement_curves,
    without_replacement_curves,
)
from ..sampling.subsampling import poisson_subsampled, poisson_subsampled_pair
from ..sampling.truncated_subsampling import truncated_subsampled_gaussian
from ..sampling.with_replacement_realizable import discrete_laplace_sides, laplace_sides, pointwise_max
from ..sampling.with_replacement_shift_bound import copy_count_weights, with_replacement_shift_bound
from .allocation import shuffled_epoch
from .zcdp_plan import zcdp_total

COARSEST_INTERVAL = 3e-3  # a cheap first grid; the next is aimed from its measured width
FINEST_INTERVAL = 1e-5
MAX_POINTS = 1 << 20
STALL_ORDER = 0.25  # a bracket narrowing slower than h^0.25 between two grids is not limited by the grid
FIRST_PASS_ATOMS = 64  # up to this many atoms, an epsilon search without hints starts with 7 points in one call
ON_GRID_CELLS = 1e-9  # an atom this close (in cells) below a grid point counts as on it
PLAIN_ALIGNMENT_TERMS = 64  # up to this many (candidate n, atom) terms, _aligned scores the candidates in plain floats
SEARCH_CLUSTER = (
    30  # ... and each call of a search evaluates 30 points spread evenly and 2 x 15 around its false position
)
COPY_COUNT_CUT = 1e-14  # with replacement: copy counts beyond the first whose tail is below this add their mass
GROUP_GRID_POINTS = 1 << 20  # a group bound's loss grid is cut to this many points (beyond: flat, still an upper side)
SMALLEST_DELTA = math.nextafter(0.0, 1.0)  # the least positive double (epsilon at delta = 0 asks for it)
UNIT_ROUNDOFF = 2.0**-53
GROUP_OPERATIONS = 11  # group_radius2: three products, and ROUND_UP's 8 u above them counted as 8 more
FLAT = 1e-18  # a curve within this of its value at the top loss is taken as flat (the grid stops there)
RESOLVE_CELLS = 6.0  # beside exact atoms, a first grid part whose loss s.d. spans fewer cells is refined to this many
RESOLVE_SHRINK = 8.0  # ... by at most this factor (the composed grid grows as much)
PROBE_SHRINK = (
    4.0  # a first aimed jump finer than 1 / PROBE_SHRINK^2 to a grid past PROBE_POINTS goes 1 / PROBE_SHRINK first
)
PROBE_POINTS = 1 << 16

Mechanism = tuple[Any, ...]  # ("name", *parameters): hashable, one per distinct mechanism
# CompositionPlan.key(): ((mechanism, count) pairs sorted, gaussian_r2, non_private, gaussian_r2_operations)
PlanKey = tuple[tuple[tuple[Mechanism, int], ...], float, bool, int]
Pair = tuple[np.ndarray, np.ndarray]


def _two_directions(pair: Pair) -> list[Pair]:
    """Remove (P, Q) and add (Q, P): both kept, the worse composition reported."""
    return [pair, (pair[1], pair[0])]


# Mechanisms with a finite dominating pair: composed exactly as atoms (``pld.finite_atoms``), never
# put on the loss grid.  Each gives its pair per neighbouring direction (one if symmetric).
FINITE_PAIRS: dict[str, Callable[..., list[Pair]]] = {
    "discrete_laplace": lambda a, s: [discrete_laplace_pair(a, s)],
    "poisson_discrete_laplace": lambda a, s, q: _two_directions(
        poisson_subsampled_pair(*discrete_laplace_pair(a, s), q)
    ),
    "randomized_response": lambda p, k, relation: (
        [randomized_response_pair(p, k, relation)]
        if relation == "replace_one"
        else _two_directions(randomized_response_pair(p, k, relation))
    ),
    "eps_delta": lambda eps, delta: [canonical_pair(eps, delta)],
    # the window of the integers with the tails as +-infinity outcomes (``pld.discrete_gaussian``): symmetric
    "discrete_gaussian": lambda sigma, s: [discrete_gaussian_pair(sigma, s)],
    # Poisson sampling of one finite mechanism: its remove pair (P, Q) -> ((1-q) Q + q P, Q) and swapped
    # (Zhu, Dong, Wang 2022, Thm 11); nested samples and every finite inner stay exact atoms.
    "poisson_pair": lambda q, inner: _two_directions(
        poisson_subsampled_pair(*FINITE_PAIRS[inner[0]](*inner[1:])[0], q)
    ),
}


# Finite mechanisms whose atoms have a closed form (per direction, as ``FINITE_PAIRS``): built without
# ``finite_atoms.pair_atoms``' logarithms.
FINITE_ATOMS: dict[str, Callable[..., list[finite_atoms.Atoms]]] = {
    "discrete_laplace": lambda a, s: [discrete_laplace_atoms(a, s)],
    "discrete_gaussian": lambda sigma, s: [discrete_gaussian_atoms(sigma, s)],
}


def _build(mechanism: Mechanism, h: float) -> PrivacyLossDistribution:
    """The PLD of one mechanism spec on grid h."""
    name, *args = mechanism
    builders: dict[str, Callable[..., PrivacyLossDistribution]] = {
        "poisson_gaussian": lambda sigma, q: subsampled_gaussian(sigma, q, value_discretization_interval=h),
        "laplace": lambda scale: laplace(scale, value_discretization_interval=h),
        "laplace_mixture": lambda scale, shifts, weights: laplace_mixture(
            scale, list(shifts), list(weights), value_discretization_interval=h
        ),
        "gaussian_mixture": lambda sigma, shifts, weights: mixture_of_gaussians(
            sigma, list(shifts), list(weights), value_discretization_interval=h
        ),
        "discrete_laplace": lambda a, s: discrete_laplace(a, s, value_discretization_interval=h),
        "poisson_discrete_laplace": lambda a, s, q: poisson_subsampled(
            *discrete_laplace_pair(a, s), q, value_discretization_interval=h
        ),
        # on the grid, not as atoms: the sampled losses log(1 - q + q e^l) of the window's ~76 sigma outcomes lie
        # on no lattice, and their exact compositions would be merged onto ever coarser sub-grids instead
        "poisson_discrete_gaussian": lambda sigma, s, q: poisson_subsampled(
            *discrete_gaussian_pair(sigma, s), q, value_discretization_interval=h
        ),
        "truncated_gaussian": lambda n, q, b, sigma: truncated_subsampled_gaussian(
            n, q, b, sigma, value_discretization_interval=h
        ),
        "random_allocation_gaussian": lambda steps, sigma: random_allocation_gaussian(
            steps, sigma, value_discretization_interval=h
        ),
        "shuffled_gaussian": lambda sigma, b, n: shuffled_epoch(sigma, b, n, value_discretization_interval=h),
        "randomized_response": lambda p, k, relation: randomized_response(
            p, k, relation=relation, value_discretization_interval=h
        ),
        "eps_delta": lambda eps, delta: eps_delta_dp(eps, delta, value_discretization_interval=h),
        "exponential_mechanism": lambda eps: exponential_mechanism(eps, value_discretization_interval=h),
        "permute_and_flip": lambda eps: permute_and_flip(eps, value_discretization_interval=h),
        "poisson_replace_one_gaussian": lambda sigma, q: poisson_replace_one_gaussian(
            sigma, q, value_discretization_interval=h
        ),
        "without_replacement_gaussian": lambda sigma, m, n: fixed_size_subsampled_gaussian(
            sigma, m, n, value_discretization_interval=h
        ),
        "with_replacement_gaussian": lambda sigma, k, n: with_replacement_subsampled_gaussian(
            sigma, k, n, value_discretization_interval=h
        ),
        "poisson_generic": lambda q, key: _generic_subsample("poisson", q, key, h),
        "without_replacement_generic": lambda m, n, key: _generic_subsample("without_replacement", m / n, key, h),
        "with_replacement_generic": lambda k, n, key: _with_replacement_generic(k, n, key, h),
        "group_bound": lambda c, groups, mechanism: _group_bound(c, groups, mechanism, h),
    }
    return builders[name](*args)


# Mechanisms with a second proved upper side, composed separately; the smaller upper bound is reported
# (as ``pld.WithReplacementBatchGaussianPLD`` does): with replacement, the shift-constrained curve.
UPPER_ALTERNATIVES: dict[str, Callable[..., PrivacyLossDistribution]] = {
    "with_replacement_gaussian": lambda sigma, k, n, h: with_replacement_shift_bound(
        sigma, k, n, value_discretization_interval=h
    ),
}


def _generic_subsample(scheme: str, rate: float, key: PlanKey, h: float) -> PrivacyLossDistribution:
    """Any inner plan (given by ``CompositionPlan.key``) sampled at ``rate``, through its certified curves.

    The inner plan's curves on grid h (atoms exact, grid PLDs composed, the folded Gaussian in closed
    form; ``PlanProfile._sides``) are the inner's certified sides, direction 0 the remove (or the
    replace-one) pair and the last the add pair; ``pld.subsampled_pair`` carries them through the
    sampling map, which is monotone in them, and puts the result on grid h.
    """
    inner = PlanProfile(CompositionPlan.from_key(key), h, None)
    upper, lower = inner.curves(h, True), inner.curves(h, False)
    top = inner.top_loss(h)
    inf_lower = float(lower[0](np.array([1e4]))[0])  # delta at eps -> infinity, from below (losses < 1e4)
    if scheme == "poisson":
        return poisson_subsampled_curves(
            (upper[0], lower[0]), (upper[-1], lower[-1]), rate, top, inf_lower, value_discretization_interval=h
        )
    return without_replacement_curves((upper[0], lower[0]), rate, top, inf_lower, value_discretization_interval=h)


def gaussian_side(r: float, eps: np.ndarray, upper: bool) -> np.ndarray:
    """delta(eps) of the Gaussian pair of radius r at any real eps, on one certified side (r the radius
    rounded outward to that side): theta(r, eps) rounded outward (``certified_theta``) at eps >= 0, and
    below 0 its mirror 1 - e^eps + e^eps theta(r, -eps) (the pair is symmetric), whose round-off (expm1,
    exp, a product, a sum, each within 2 u on non-negative terms) the factor 1 -+ 16 u covers."""
    eps = np.asarray(eps, dtype=np.float64)
    t = np.asarray((theta_upper if upper else theta_lower)(r, np.abs(eps)), dtype=np.float64)
    below = np.minimum(eps, 0.0)
    mirrored = (-np.expm1(below) + np.exp(below) * t) * (
        1.0 + 16.0 * UNIT_ROUNDOFF if upper else 1.0 - 16.0 * UNIT_ROUNDOFF
    )
    return np.clip(np.where(eps >= 0, t, mirrored), 0.0, 1.0)


def _worst(curves: list[Callable[[np.ndarray], np.ndarray]]) -> Callable[[np.ndarray], np.ndarray]:
    """The pointwise maximum of per-direction curves (one side: a bound for every direction)."""
    if len(curves) == 1:
        return curves[0]
    if len(curves) == 2:  # the usual remove / add pair: one ufunc call, no stacked copy
        first, second = curves
        return lambda eps: np.maximum(first(eps), second(eps))
    return lambda eps: np.max([f(eps) for f in curves], axis=0)


def group_plan(inner: CompositionPlan, c: int, groups: int) -> CompositionPlan:
    """The replace-one plan ``inner`` run on two batches c slots apart: each mechanism's group-c spec
    (``group_of_records``; ``groups`` the largest c of the caller, for the shared group-bound tables),
    composed (every mechanism sees the same pair of batches)."""
    plan = CompositionPlan(non_private=inner.non_private)
    for mechanism, count in inner.counts.items():
        plan.add(group_mechanism(mechanism, c, groups), count)
    plan.gaussian_r2 = group_radius2(inner.gaussian_r2, c)
    plan.gaussian_r2_operations = inner.gaussian_r2_operations + (GROUP_OPERATIONS if c > 1 else 0)
    return plan


@lru_cache(maxsize=8)  # one build asks for every c of a few mechanisms on one grid
def _group_tables(
    mechanism: Mechanism, h: float, groups: int
) -> tuple[list[Callable[[np.ndarray], np.ndarray]], Callable[[np.ndarray], np.ndarray], float]:
    """``pld.group_privacy``'s upper curves G_1 .. G_groups of one mechanism on grid h (from its
    upper curve over every direction), its own lower side (a lower bound on every group's curve: a
    group of c is at least one step), and its top loss."""
    inner = PlanProfile(CompositionPlan({mechanism: 1}), h, None)
    upper, lower = _worst(inner.curves(h, True)), _worst(inner.curves(h, False))
    top = inner.top_loss(h)
    return group_upper_curves(upper, groups, top, dyadic_step(top, groups, h)), lower, top


def _flat_from(curve: Callable[[np.ndarray], np.ndarray], top: float) -> float:
    """The first of 4096 points in (0, top] where the non-increasing ``curve`` is within FLAT of its
    value at ``top``: a grid ending there loses at most FLAT of delta (the rest goes to loss
    +infinity on the upper side); the conservative top losses would make the grid needlessly long."""
    x = np.linspace(0.0, top, 4097)[1:]
    values = np.asarray(curve(x), dtype=np.float64)
    return float(x[np.argmax(values <= values[-1] + FLAT)])


def _group_bound(c: int, groups: int, mechanism: Mechanism, h: float) -> PrivacyLossDistribution:
    """One mechanism on inputs c replace-one steps apart, by the weak-triangle group bound, on grid h
    (one direction: the bound holds for every ordered pair).  Lower side: the mechanism's own."""
    curves, lower, top = _group_tables(mechanism, h, groups)
    reach = min(_flat_from(curves[c - 1], c * top) + h, 0.5 * GROUP_GRID_POINTS * h)
    factor = grid_factor(f"group_bound(c={c}, {mechanism[0]})", curves[c - 1], lower, -reach, reach, h, 0.0)
    return PrivacyLossDistribution([{factor: 1}])


def _with_replacement_realizable(
    inner: CompositionPlan, weights: np.ndarray, tail: float, h: float
) -> list[tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray] | None]] | None:
    """The certified lower side of sampling with replacement of ``inner``, per order (remove, add), from
    a realizable pair (``pld.with_replacement_realizable``), with the upper side of the same curve
    for the secants (None: the sampled bound's), or None when the bound's own lower side is one.

    - Each Laplace / discrete Laplace spec of the plan gives the realizable pair of that spec alone,
      sum_c b_c N_c vs N_0: a marginal of the plan's realizable pair (in one sampled batch every
      component sees the same c), so a valid lower bound, weaker than the mixture over c of the
      composed group-c pairs when the plan has more than this one component; their pointwise maximum
      is taken.  The secants use that pair's own upper side only when it is the whole plan.
    - A plan of input-oblivious specs only (randomized response, the non-private pair): every group
      pair is the one-record pair, so the bound's lower side, ((1 - eta) Q + eta P, Q), is realizable.
    - Otherwise (nested samples, (eps, delta) pairs, a folded Gaussian beside other specs): no
      realizable pair is built and the lower side is the trivial (1 - e^eps)_+ (every curve's floor).
    """
    components = [m for m in inner.counts if m[0] in ("laplace", "discrete_laplace")]
    if not components:
        if inner.gaussian_r2 == 0 and all(
            m[0] in INPUT_OBLIVIOUS or (m[0] == "eps_delta" and m[2] >= 1.0) for m in inner.counts
        ):
            return None
        floor: Callable[[np.ndarray], np.ndarray] = lambda eps: np.maximum(-np.expm1(np.minimum(eps, 0.0)), 0.0)
        return [(floor, None)]
    sides = [
        laplace_sides(m[1], weights, tail, h)
        if m[0] == "laplace"
        else discrete_laplace_sides(m[1], m[2], weights, tail)
        for m in components
    ]
    alone = len(components) == 1 and inner.counts[components[0]] == 1 and inner.gaussian_r2 == 0
    return [(pointwise_max([s[order][0] for s in sides]), sides[0][order][1] if alone else None) for order in (0, 1)]


def _with_replacement_generic(k: int, n: int, key: PlanKey, h: float) -> PrivacyLossDistribution:
    """Batches of k draws with replacement from n records of any replace-one plan (given by its key):
    ``pld.subsampled_pair.with_replacement_curves`` on the certified curves of the plan's group-c
    plans (``group_plan``), c = 1 .. c_max (the counts past c_max add their tail mass); the lower
    side from a realizable pair (``_with_replacement_realizable``)."""
    inner = CompositionPlan.from_key(key)
    weights, tail = copy_count_weights(int(k), int(n), COPY_COUNT_CUT)
    groups = int(weights.size - 1)
    profiles: dict[int, PlanProfile] = {}

    def profile(c: int) -> PlanProfile:
        if c not in profiles:
            profiles[c] = PlanProfile(group_plan(inner, c, groups), h, None)
        return profiles[c]

    def group(c: int) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
        return _worst(profile(c).curves(h, True)), _worst(profile(c).curves(h, False))

    # the largest group changes over the longest range (its shift is the largest)
    top = _flat_from(group(groups)[0], profile(groups).top_loss(h))
    return with_replacement_curves(
        group,
        int(k),
        int(n),
        top,
        value_discretization_interval=h,
        cut=COPY_COUNT_CUT,
        realizable=_with_replacement_realizable(inner, weights, tail, h),
    )


def _above_grid(cells: float) -> float:
    """How far (in cells) a point lies above the grid point below it (0 within ``ON_GRID_CELLS`` of one)."""
    return max(cells - math.floor(cells + ON_GRID_CELLS), 0.0)


def loss_spread(pmf: GridPMF) -> float:
    """The standard deviation of a grid PMF's finite losses (masses normalised; 0 for no mass): the core's
    grid_loss_variance (pld_hockey_stick.hpp), which the composition's Chernoff windows take too."""
    return math.sqrt(max(_core.pld_loss_variance(np.ascontiguousarray(pmf.p, dtype=np.float64), pmf.h), 0.0))


def _dividing(base: float, n: int) -> float:
    """base / n, raised by ulps until base / h <= n in floating point: the grid builders place an
    atom at the top of their grid only when ceil(atom / h) is the atom's own index (``pld_cells.hpp``,
    ``add_atom``); at base / h = n + 4e-15 the grid gains a cell and the optimistic side moves the
    top atom a cell down every round (11 rounds of Laplace(13.2) at n = 26: a lower bound 0.024 too
    low where every other n gives 1e-5)."""
    h = base / n
    while base / h > n:
        h = math.nextafter(h, math.inf)
    return h


@dataclass
class CompositionPlan:
    """Counts per distinct mechanism, the folded Gaussian radius^2, and a non-private flag.

    ``gaussian_r2_operations``: k, the correctly rounded operations (each a relative error of at most
    u = 2^-53) behind ``gaussian_r2``, all on positive numbers: its relative error is at most
    gamma_k = k u / (1 - k u) (Higham 2002, Lemma 3.1), which ``gaussian_radius_bounds`` charges.
    """

    counts: dict[Mechanism, int] = field(default_factory=dict)
    gaussian_r2: float = 0.0
    non_private: bool = False
    gaussian_r2_operations: int = 0

    def add(self, mechanism: Mechanism, count: int) -> None:
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


class PlanProfile:
    """Certified (lower, upper) delta(eps) and eps(delta) of a plan, grids built on demand and cached.

    Mechanisms with a finite pair (``FINITE_PAIRS``) are composed exactly as atoms, once; the rest
    (and the folded Gaussian) on the loss grid, refined for ``accuracy``; the two are combined by
    ``finite_atoms.delta_with`` (a Gaussian alone beside the atoms in closed form, theta extended
    to eps < 0 by the symmetry of its pair: delta(eps) = 1 - e^eps + e^eps theta(r, -eps)).
    """

    def __init__(self, plan: CompositionPlan, value_discretization_interval: float | None, accuracy: float | None):
        self.plan = plan
        self.fixed_interval = value_discretization_interval
        self.accuracy = accuracy
        self._finite = {m: c for m, c in plan.counts.items() if m[0] in FINITE_PAIRS}
        self._grid = {m: c for m, c in plan.counts.items() if m[0] not in FINITE_PAIRS}
        self._composed: dict[tuple[float, int], PrivacyLossDistribution] = {}
        self._factors: dict[tuple[Mechanism, float, bool], PrivacyLossDistribution] = {}
        self._atoms: list[finite_atoms.Atoms] | None = None

    @property
    def _upper_variants(self) -> tuple[int, ...]:
        """0: every mechanism's own PLD; 1 (if the plan has any): ``UPPER_ALTERNATIVES`` in their place."""
        return (0, 1) if any(m[0] in UPPER_ALTERNATIVES for m in self._grid) else (0,)

    def _pld(self, h: float, variant: int = 0) -> PrivacyLossDistribution:
        """The grid part (every mechanism without a finite pair, and the folded Gaussian) on grid h;
        ``variant`` 1 takes each mechanism's alternative upper side (``UPPER_ALTERNATIVES``; upper only)."""
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

    def _factor(self, mechanism: Mechanism, h: float, variant: int = 0) -> PrivacyLossDistribution:
        alternative = variant == 1 and mechanism[0] in UPPER_ALTERNATIVES
        key = (mechanism, h, alternative)
        if key not in self._factors:
            self._factors[key] = (
                UPPER_ALTERNATIVES[mechanism[0]](*mechanism[1:], h) if alternative else _build(mechanism, h)
            )
        return self._factors[key]

    def _atom_directions(self) -> list[finite_atoms.Atoms]:
        """The finite mechanisms composed exactly, per neighbouring direction (both sides share them)."""
        if self._atoms is None:
            parts = [
                (
                    FINITE_ATOMS[m[0]](*m[1:])
                    if m[0] in FINITE_ATOMS
                    else [finite_atoms.pair_atoms(*p) for p in FINITE_PAIRS[m[0]](*m[1:])],
                    c,
                )
                for m, c in self._finite.items()
            ]
            directions = max(len(a) for a, _ in parts)
            self._atoms = [finite_atoms.compose_all([(a[d % len(a)], c) for a, c in parts]) for d in range(directions)]
        return self._atoms

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
            _worst(sides),
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
        h = self._resolving(self._aligned(COARSEST_INTERVAL))
        previous: tuple[float, float] | None = None
        hints: tuple[float, ...] = ()
        while True:
            lo, up = self._evaluate(method, x, h, hints)
            hints = (lo, up)  # the next, finer grid's epsilon searches start from this bracket
            width = up - lo if method == "epsilon" else (up - lo) / max(up, 1e-300)
            if width <= target or h <= FINEST_INTERVAL:
                return lo, up
            # width ~ h^k: k = 2 for continuous laws (connect the dots), 1 for atoms; measured once two
            # grids are known, so the next grid is aimed at the target directly.
            k = 2.0
            if previous is not None and math.isfinite(width) and width > previous[1] * (h / previous[0]) ** STALL_ORDER:
                # Narrowing slower than h^STALL_ORDER: the rest of the width is no discretization (e.g. the
                # gap between a symmetrised upper pair and a one-order lower pair): a finer grid cannot close it.
                return lo, up
            if previous is not None and 0 < width < previous[1]:
                k = min(max(math.log(previous[1] / width) / math.log(previous[0] / h), 0.5), 2.0)
            measured = previous is not None
            previous = (h, width)
            shrink = 0.9 * (target / width) ** (1.0 / k) if math.isfinite(width) else 0.5
            # Budget: the composed grid grows like 1/h; stop where the next one would exceed MAX_POINTS
            # (finite pairs' brackets narrow only like h, so their target may be out of reach).
            points = max(pmf.p.size for pmf in self._pld(h).composed(True))
            floor = h * points / MAX_POINTS
            if not measured and shrink < 1.0 / PROBE_SHRINK**2 and points * PROBE_SHRINK**2 > PROBE_POINTS:
                # A big first jump on the assumed h^2 law: probe a grid PROBE_SHRINK times finer first, whose
                # width measures the law (or shows a stall: with replacement around a Laplace, K = n = 1000,
                # the bracket's 7.7 is the gap between bound and realizable pair; a 2^20-point grid cost 7.3 s).
                shrink = 1.0 / PROBE_SHRINK
            nxt = max(h * min(shrink, 0.9), FINEST_INTERVAL, floor)
            if nxt >= 0.95 * h:
                return lo, up
            aligned = self._aligned(nxt)
            h = aligned if aligned >= floor else nxt

    def _resolving(self, h: float) -> float:
        """The first grid: h, or (beside exact atoms) a finer one resolving a narrow grid part.

        Beside the atoms of the finite mechanisms, delta(eps) = sum_i m_i delta_G(eps - l_i), so an
        epsilon crossing just above an atom l_i reads the grid part's profile delta_G near loss 0, inside
        its bulk.  A grid part whose composed loss s.d. spans only a few cells is there a handful of
        masses (the optimistic side can collapse to one at loss 0, i.e. to no privacy loss at all), and
        its bracket narrows erratically (like h^0.8, then h^2.8) until h is well below that s.d., so the
        width-aimed refinement builds grid after grid (tree 169 of the drop-in benchmark, 15 rounds of a
        Poisson-sampled Gaussian, s.d. 0.0045, beside 10 rounds of a discrete Laplace: three grids).
        The grid part is composed at h (the grid builders are cheap next to an epsilon search) and, if
        its pessimistic loss s.d. is below ``RESOLVE_CELLS`` cells, the first search runs on s.d. /
        ``RESOLVE_CELLS`` instead (at most ``RESOLVE_SHRINK`` times finer, aligned as any grid).  This
        only chooses a grid: every grid's bounds are certified.
        """
        if not self._finite:
            return h
        spread = min(loss_spread(pmf) for pmf in self._pld(h).composed(True))
        if not spread < RESOLVE_CELLS * h:
            return h
        finer = max(spread / RESOLVE_CELLS, h / RESOLVE_SHRINK, FINEST_INTERVAL)
        self._composed.pop((h, 0))  # not searched: only its spread was read
        return self._aligned(finer)

    def _aligned(self, h: float) -> float:
        """A grid h' in (0.7 h, h] through the loss atoms of the Laplace-like grid mechanisms.

        Laplace has atoms at +-a = +-1/b (P-mass 1/2 and e^-a/2), a Laplace mixture (the Poisson-
        subsampled Laplace) at L(x <= 0) and L(x >= max shift).  An atom between grid points is
        spread over its cell's two ends, an error of order h per round, so k rounds narrow the bracket
        only like k h; on a grid through the atoms (``pld.laplace`` and ``pld.from_distributions`` keep
        an atom at a grid point there on both sides) only the density between them is discretized,
        whose error falls like h^2.  h' = a / n with a the largest atom |loss| of the mechanism run the
        most rounds (exactly on the grid), n in the range chosen so that every other atom |loss| (the
        top atom of one direction) lies as little above a grid point as it can (in cells, weighted by
        rounds): the optimistic side moves such an atom down to the grid point below, an error of that
        fraction of a cell per round (11 rounds of Laplace(12.25) with one Laplace(17.3): 21.96 cells
        gave a bracket 1.8e-3 wide, 29.04 cells 8.6e-6), where the pessimistic side's chords err only
        like h^2 either way.  Every bound stays certified on any grid; this only picks a better one.
        """
        base, others = self._alignment_atoms
        if base == 0.0:
            return h
        if not base > h:
            return base if base >= 0.7 * h else h
        first = math.ceil(base / h * (1.0 - 1e-12))
        if not others:
            return _dividing(base, first)

        last = max(first, math.floor(base / (0.7 * h)))
        if (last - first + 1) * len(others) <= PLAIN_ALIGNMENT_TERMS:  # plain floats, the same sums as below

            def cost(n: int) -> float:
                return sum(r * _above_grid(loss * n / base) for r, loss in others)

            return _dividing(base, min(range(first, last + 1), key=cost))
        # every candidate n at once: the other atoms' distances to the grid base / n, in cells, weighted by rounds
        n = np.arange(first, last + 1, dtype=np.float64)
        rounds = np.array([r for r, _ in others], dtype=np.float64)
        cells = np.array([loss for _, loss in others])[:, None] * n[None, :] / base
        miss = (rounds[:, None] * np.maximum(cells - np.floor(cells + ON_GRID_CELLS), 0.0)).sum(axis=0)
        return _dividing(base, int(n[int(np.argmin(miss))]))

    @cached_property
    def _alignment_atoms(self) -> tuple[float, list[tuple[int, float]]]:
        """The largest atom |loss| of the Laplace or Laplace-mixture grid mechanism run the most rounds
        (0 if there is none), and (rounds, |loss|) of every other such atom: the grid ``_aligned`` aims at."""
        atoms: list[tuple[int, list[float]]] = []
        for m, count in self._grid.items():
            if m[0] == "laplace":
                atoms.append((count, [1.0 / m[1]]))
            elif m[0] == "laplace_mixture":
                atoms.append((count, [abs(x) for x in laplace_mixture_atom_losses(*m[1:]) if x != 0.0]))
        atoms = [(count, losses) for count, losses in atoms if losses]
        if not atoms:
            return 0.0, []
        lead = max(range(len(atoms)), key=lambda i: atoms[i][0])
        base = max(atoms[lead][1])
        others = [
            (count, loss)
            for i, (count, losses) in enumerate(atoms)
            for loss in losses
            if not (i == lead and loss == base)
        ]
        return base, others

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
