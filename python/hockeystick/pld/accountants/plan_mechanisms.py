"""The mechanisms a ``CompositionPlan`` composes, by spec: each spec's PLD on a grid, or its finite pair.

A spec is a hashable tuple ("name", *parameters).  ``FINITE_PAIRS`` (and ``FINITE_ATOMS``, their closed
forms) are composed exactly as atoms; every other spec has a grid builder (``build``), and some a second
proved upper side (``UPPER_ALTERNATIVES``).  Specs that carry a whole inner plan (a sampled plan, a
group of records) are built from that plan's certified profile (``plan.PlanProfile``), which in turn
builds its mechanisms here: the two modules recurse, so the profile is imported where it is used.
``gaussian_side`` is the folded Gaussian's closed-form profile.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ...certified_theta import theta_lower, theta_upper
from ..compose import finite_atoms
from ..compose.distribution import PrivacyLossDistribution
from ..mechanisms.canonical import canonical_pair, eps_delta_dp
from ..mechanisms.constructors import (
    fixed_size_subsampled_gaussian,
    laplace,
    subsampled_gaussian,
    with_replacement_subsampled_gaussian,
)
from ..mechanisms.discrete_gaussian import discrete_gaussian_atoms, discrete_gaussian_pair
from ..mechanisms.discrete_laplace import discrete_laplace, discrete_laplace_atoms, discrete_laplace_pair
from ..mechanisms.gaussian_mixture import mixture_of_gaussians
from ..mechanisms.group_of_records import INPUT_OBLIVIOUS, group_mechanism, group_radius2
from ..mechanisms.group_privacy import dyadic_step, group_upper_curves
from ..mechanisms.laplace_mixture import laplace_mixture
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

if TYPE_CHECKING:
    from .plan import CompositionPlan, PlanProfile

# With replacement: copy counts beyond the first whose tail is below this add their mass to delta; a tail
# this small changes no reported digit while the counts kept stay few.
COPY_COUNT_CUT = 1e-14
# A group bound's loss grid is cut to this many points (beyond it the curve is taken flat, still an upper
# side): the cut keeps one group's grid within the memory of one composed grid.
GROUP_GRID_POINTS = 1 << 20
# The unit round-off of the doubles, u = 2^-53: a correctly rounded operation errs by at most u relatively.
UNIT_ROUNDOFF = 2.0**-53
# The correctly rounded operations of group_radius2: three products, and ROUND_UP's 8 u above them counted as
# 8 more, so a group plan's folded radius is widened by their round-off.
GROUP_OPERATIONS = 11
# A curve within this of its value at the top loss is taken as flat (the grid stops there): a delta error of
# 1e-18 is below any reported digit, and the conservative top losses would make the grid needlessly long.
FLAT = 1e-18

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


def build(mechanism: Mechanism, h: float) -> PrivacyLossDistribution:
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
    from .plan import CompositionPlan, PlanProfile  # here: the plan recurses into its mechanisms

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


def worst(curves: list[Callable[[np.ndarray], np.ndarray]]) -> Callable[[np.ndarray], np.ndarray]:
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
    from .plan import CompositionPlan  # here: the plan recurses into its mechanisms

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
    from .plan import CompositionPlan, PlanProfile  # here: the plan recurses into its mechanisms

    inner = PlanProfile(CompositionPlan({mechanism: 1}), h, None)
    upper, lower = worst(inner.curves(h, True)), worst(inner.curves(h, False))
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
    from .plan import CompositionPlan, PlanProfile  # here: the plan recurses into its mechanisms

    inner = CompositionPlan.from_key(key)
    weights, tail = copy_count_weights(int(k), int(n), COPY_COUNT_CUT)
    groups = int(weights.size - 1)
    profiles: dict[int, PlanProfile] = {}

    def profile(c: int) -> PlanProfile:
        if c not in profiles:
            profiles[c] = PlanProfile(group_plan(inner, c, groups), h, None)
        return profiles[c]

    def group(c: int) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
        return worst(profile(c).curves(h, True)), worst(profile(c).curves(h, False))

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
