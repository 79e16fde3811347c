"""The catalogue of the mechanisms a ``CompositionPlan`` composes, and the ones built from an inner plan.

A plan counts runs by spec, the hashable tuple ("name", *parameters) of a ``mechanisms.mechanism.Mechanism``;
``MECHANISMS`` maps each name to its class and ``mechanism_of(spec)`` gives the object, which says how
the mechanism is composed (its finite pairs and exact atoms, its grid PLD, a second upper side, the
atoms a grid should pass through, its group of c).  Each class lives in the file of its construction.

The specs that carry a whole inner plan (a sampled plan, a group of records) or an inner spec (a
Poisson-sampled finite pair) live here: they are built from that plan's certified profile
(``plan.PlanProfile``), which in turn builds its mechanisms from this catalogue: the two modules
recurse, so the profile is imported where it is used.  ``gaussian_side`` is the folded Gaussian's
closed-form profile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ...certified_theta import theta_lower, theta_upper
from ..compose.distribution import PrivacyLossDistribution
from ..mechanisms.canonical import EpsDelta
from ..mechanisms.constructors import Laplace, PoissonGaussian, WithoutReplacementGaussian
from ..mechanisms.discrete_gaussian import DiscreteGaussian
from ..mechanisms.discrete_laplace import DiscreteLaplace
from ..mechanisms.gaussian_mixture import GaussianMixture
from ..mechanisms.group_of_records import group_mechanism, group_radius2
from ..mechanisms.group_privacy import dyadic_step, group_upper_curves
from ..mechanisms.laplace_mixture import LaplaceMixture
from ..mechanisms.mechanism import Mechanism, Pair, Spec, two_directions
from ..mechanisms.randomized_response import RandomizedResponse
from ..mechanisms.selection import ExponentialMechanism, PermuteAndFlip
from ..sampling.poisson_replace_one import PoissonReplaceOneGaussian
from ..sampling.random_allocation import RandomAllocationGaussian
from ..sampling.subsampled_pair import (
    grid_factor,
    poisson_subsampled_curves,
    with_replacement_curves,
    without_replacement_curves,
)
from ..sampling.subsampling import (
    PoissonDiscreteGaussian,
    PoissonDiscreteLaplace,
    poisson_subsampled,
    poisson_subsampled_pair,
)
from ..sampling.truncated_subsampling import TruncatedGaussian
from ..sampling.with_replacement_realizable import Sides, discrete_laplace_sides, laplace_sides, pointwise_max
from ..sampling.with_replacement_shift_bound import WithReplacementGaussian, copy_count_weights
from .allocation import ShuffledGaussian
from .zcdp_plan import Zcdp

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

# CompositionPlan.key(): ((spec, count) pairs sorted, gaussian_r2, non_private, gaussian_r2_operations)
PlanKey = tuple[tuple[tuple[Spec, int], ...], float, bool, int]


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


def _group_bound(c: int, groups: int, mechanism: Spec, h: float) -> PrivacyLossDistribution:
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
    mechanisms = {spec: mechanism_of(spec) for spec in inner.counts}
    components = [spec for spec, m in mechanisms.items() if isinstance(m, (Laplace, DiscreteLaplace))]
    if not components:
        if inner.gaussian_r2 == 0 and all(m.input_oblivious() for m in mechanisms.values()):
            return None
        floor: Callable[[np.ndarray], np.ndarray] = lambda eps: np.maximum(-np.expm1(np.minimum(eps, 0.0)), 0.0)
        return [(floor, None)]
    sides = [_realizable_sides(mechanisms[spec], weights, tail, h) for spec in components]
    alone = len(components) == 1 and inner.counts[components[0]] == 1 and inner.gaussian_r2 == 0
    return [(pointwise_max([s[order][0] for s in sides]), sides[0][order][1] if alone else None) for order in (0, 1)]


def _realizable_sides(mechanism: Mechanism, weights: np.ndarray, tail: float, h: float) -> list[Sides]:
    """The realizable with-replacement pair sum_c b_c N_c vs N_0 of one Laplace or discrete Laplace mechanism,
    per order (``pld.with_replacement_realizable``)."""
    if isinstance(mechanism, Laplace):
        return laplace_sides(mechanism.scale, weights, tail, h)
    assert isinstance(mechanism, DiscreteLaplace)
    return discrete_laplace_sides(mechanism.a, mechanism.s, weights, tail)


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


@dataclass(frozen=True)
class PoissonPair(Mechanism):
    """One run of a finite mechanism (its spec ``inner``) on a Poisson sample of rate q: its remove pair
    (P, Q) -> ((1-q) Q + q P, Q), and swapped (Zhu, Dong, Wang 2022, Thm 11); nested samples and every
    finite inner stay exact atoms."""

    name: ClassVar[str] = "poisson_pair"
    q: float
    inner: Spec

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return poisson_subsampled(*self._inner_pair(), self.q, value_discretization_interval=h)

    def finite_pairs(self) -> list[Pair] | None:
        return two_directions(poisson_subsampled_pair(*self._inner_pair(), self.q))

    def _inner_pair(self) -> Pair:
        pairs = mechanism_of(self.inner).finite_pairs()
        if pairs is None:
            raise ValueError(f"poisson_pair's inner must have a finite pair, got {self.inner!r}")
        return pairs[0]


@dataclass(frozen=True)
class PoissonGeneric(Mechanism):
    """Any inner plan (its ``CompositionPlan.key``) on a Poisson sample of rate q: the sampling map of Zhu,
    Dong, Wang 2022, Thm 11, monotone in the inner's certified curves, carried through them
    (``pld.subsampled_pair.poisson_subsampled_curves``; ``_generic_subsample``)."""

    name: ClassVar[str] = "poisson_generic"
    q: float
    key: PlanKey

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return _generic_subsample("poisson", self.q, self.key, h)


@dataclass(frozen=True)
class WithoutReplacementGeneric(Mechanism):
    """Batches of m of n records drawn without replacement around any replace-one inner plan (its key):
    advanced joint convexity (Balle, Barthe, Gaboardi 2018, Thm 2, mirrored) on the inner's certified
    curves at rate m / n (``pld.subsampled_pair.without_replacement_curves``)."""

    name: ClassVar[str] = "without_replacement_generic"
    m: int
    n: int
    key: PlanKey

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return _generic_subsample("without_replacement", self.m / self.n, self.key, h)


@dataclass(frozen=True)
class WithReplacementGeneric(Mechanism):
    """Batches of k draws with replacement from n records around any replace-one inner plan (its key): the
    record is drawn c ~ Binom(k, 1/n) times, the inner sees a group of c (``group_of_records``), mixed by
    joint convexity (Balle, Barthe, Gaboardi 2018, Thm 2); lower side from a realizable pair
    (``_with_replacement_generic``)."""

    name: ClassVar[str] = "with_replacement_generic"
    k: int
    n: int
    key: PlanKey

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return _with_replacement_generic(self.k, self.n, self.key, h)


@dataclass(frozen=True)
class GroupBound(Mechanism):
    """One mechanism (its spec) on inputs c replace-one steps apart: the weak-triangle group bound of
    ``pld.group_privacy`` on its certified upper curve (``groups`` the largest c asked, one table for all),
    one direction (it holds for every ordered pair); lower side the mechanism's own (``_group_bound``)."""

    name: ClassVar[str] = "group_bound"
    c: int
    groups: int
    mechanism: Spec

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return _group_bound(self.c, self.groups, self.mechanism, h)


# Every mechanism a plan may hold, by the name its spec starts with.
MECHANISMS: dict[str, type[Mechanism]] = {
    cls.name: cls
    for cls in (
        PoissonGaussian,
        Laplace,
        LaplaceMixture,
        GaussianMixture,
        DiscreteLaplace,
        PoissonDiscreteLaplace,
        PoissonDiscreteGaussian,
        TruncatedGaussian,
        RandomAllocationGaussian,
        ShuffledGaussian,
        RandomizedResponse,
        EpsDelta,
        ExponentialMechanism,
        PermuteAndFlip,
        PoissonReplaceOneGaussian,
        WithoutReplacementGaussian,
        WithReplacementGaussian,
        DiscreteGaussian,
        PoissonPair,
        PoissonGeneric,
        WithoutReplacementGeneric,
        WithReplacementGeneric,
        GroupBound,
        Zcdp,
    )
}


def mechanism_of(spec: Spec) -> Mechanism:
    """The mechanism a plan's spec names (``MECHANISMS``)."""
    cls = MECHANISMS.get(spec[0]) if spec else None
    if cls is None:
        raise ValueError(f"spec must name a mechanism of the catalogue, got {spec!r}")
    return cls.from_spec(spec)
