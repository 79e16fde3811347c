r"""dp_accounting-style events for one round of secure aggregation with distributed discrete noise.

tensorflow_privacy's ``DistributedDiscreteGaussianSumQuery`` and ``DistributedSkellamSumQuery``
report an ``UnsupportedDpEvent``; a pipeline built on them can report these instead.  Each event is
one round: every client's integer vector (scaled, rotated and rounded: ``secagg.sensitivity``) has
L2 norm at most ``l2_norm_bound`` and L1 norm at most ``l1_norm_bound`` (default min(sqrt(d)
Delta_2, Delta_2^2), which every integer vector of that L2 norm meets), every client adds its own
noise, of standard deviation ``local_stddev`` in the same integer units, to each of the
``dimension`` coordinates, and at least ``num_clients`` noises are in the sum the server learns
(dropout: count the survivors).  The bound is the event's: an enforced norm bound (conditional
rounding, or the query's clipping).

* ``DistributedDiscreteGaussianDpEvent``: each client adds N_Z(0, s^2)^d, s = ``local_stddev`` >=
  1/2 (Kairouz, Liu & Steinke 2021, "KLS21"; ``secagg.distributed_discrete_gaussian``: Prop. 14,
  minimised over n' <= n).
* ``DistributedSkellamDpEvent``: each client adds symmetric Skellam noise of variance s^2 (Agarwal,
  Kairouz & Liu 2021; ``secagg.skellam``, at V = n s^2).

Neighbouring relations.  REPLACE_SPECIAL is the papers' own: one client's vector replaced by zero,
its noise still in the sum, an integer shift of L2 norm <= Delta_2 and L1 norm <= Delta_1.
REPLACE_ONE replaces it by another client's vector: the shift is a difference of two such vectors,
L2 <= 2 Delta_2 and L1 <= min(2 Delta_1, sqrt(d) 2 Delta_2, (2 Delta_2)^2) (the triangle inequality;
an integer vector's L1 is at most its L2 squared), and the papers' bounds hold for any integer shift
within those norms.  ADD_OR_REMOVE_ONE is refused: removing a client removes its noise from the sum
too, and neither paper bounds a sum of n noises against a sum of n - 1.

The answer, by ``interop.dp_accounting.HockeystickPLDAccountant`` (a plan of these rounds alone, any
mix and counts; ``SelfComposedDpEvent`` and ``ComposedDpEvent`` of them):

* upper side: each round's RDP curve (above) times its count, summed order by order (RDP composes
  additively, Mironov 2017, Prop. 1), converted by ``rdp.rdp_to_epsilon`` / ``rdp.rdp_to_delta``
  (the tight conversion, Balle et al. 2020, Thm. 21), on the integer orders 2 .. 256, 512 and 1024
  where a Skellam round is present (its bound is stated at integer orders), else
  ``secagg.accountants.DDG_ORDERS``;
* lower side: each round's realizable pair, the shift k = floor(min(Delta_2, Delta_1)) on one
  coordinate (2k under REPLACE_ONE: k e_1 against -k e_1), its exact lattice PLD
  (``secagg.lattice_pld``) composed over the rounds and read on its optimistic side.  A round with
  no realizable shift (Delta below 1), or whose noise masses are not bounded there, is left out of
  the lower side's composition: dropping a factor of a product lowers every hockey-stick divergence
  (the composition's output marginalised), so the rest is still a lower bound.

A ``PoissonSampledDpEvent`` around one round (the cohort a Poisson sample at rate q, each sampled
client adding its own noise share) is taken as ``secagg``'s accountants take it against an observer:
the round without the differing client holds one share fewer, so its upper side is joint convexity,
log(1 - q + q e^{(alpha - 1) eps(alpha)}) / (alpha - 1) per round (``secagg.observer_shares.
shares_sampled_rdp``), and its lower side the pair q (N_{n+1} + k) + (1 - q) N_n against q N_{n+1} +
(1 - q) N_n on one coordinate (``shares_pair_pld``; under REPLACE_ONE the shift k of a vector
replaced by zero).

Refused, with dp_accounting's ``UnsupportedEventError`` and the reason: these rounds beside any
other event in the PLD accountant (their upper side is an RDP curve, with no dominating pair to
compose on the loss grid; ``HockeystickRdpAccountant`` composes unsampled rounds with every event it
takes, upper side only); ADD_OR_REMOVE_ONE; any other sampling event around them (sampling without
or with replacement, or a Poisson sample of a composition of rounds).  dp_accounting's own
``RdpAccountant`` and ``PLDAccountant`` know neither event and raise ``UnsupportedEventError``.

Examples
--------
>>> from dp_accounting import NeighboringRelation, SelfComposedDpEvent
>>> from hockeystick.interop.dp_accounting import HockeystickPLDAccountant
>>> from hockeystick.interop.dp_accounting.secagg_events import DistributedSkellamDpEvent
>>> accountant = HockeystickPLDAccountant(NeighboringRelation.REPLACE_SPECIAL)
>>> round_ = DistributedSkellamDpEvent(local_stddev=6.0, l2_norm_bound=12.0, num_clients=50, dimension=64)
>>> lower, upper = accountant.compose(SelfComposedDpEvent(round_, 100)).get_epsilon_bracket(1e-5)
>>> 0 < lower <= upper
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np
from dp_accounting import dp_event as ev  # installed: the wing's import checked it
from dp_accounting.privacy_accountant import NeighboringRelation

from ...base import validation as _validation
from ...pld.accountants import CompositionPlan
from ...pld.grid import PrivacyLossDistribution
from ...rdp.conversion import rdp_to_delta, rdp_to_epsilon
from ...secagg.accountants import DDG_ORDERS
from ...secagg.distributed_discrete_gaussian import (
    MAX_CLIENTS,
    MIN_SIGMA,
    distributed_discrete_gaussian_rdp,
)
from ...secagg.lattice_pld import Masses, ddg_sum_masses, realizable_shift_pld, skellam_masses
from ...secagg.observer_shares import shares_pair_pld, shares_sampled_rdp
from ...secagg.sensitivity import integer_l1_bound
from ...secagg.skellam import SKELLAM_ORDERS, skellam_rdp
from .client_rounds import ClientRounds, count_field, positive_field
from .event_base import dp_event

__all__ = [
    "DistributedDiscreteGaussianDpEvent",
    "DistributedSkellamDpEvent",
    "SecureAggregationProfile",
    "check_secure_aggregation_alone",
    "secure_aggregation_profile",
    "secure_aggregation_rdp",
    "secure_aggregation_rdp_case",
    "visit_sampled_secure_aggregation",
    "visit_secure_aggregation",
]

SPEC_NAME = "secure_aggregation"
UNIT_ROUNDOFF = 2.0**-53
_SMALL_DELTA = (
    1e-300  # epsilon(0) is at least epsilon at any positive delta: the lower side read here
)


@dp_event
class DistributedDiscreteGaussianDpEvent(ev.DpEvent):
    r"""One round of the distributed discrete Gaussian under secure aggregation (KLS21), in integer units.

    Each client adds :math:`N_{\mathbb Z}(0, s^2)` to each of the d coordinates of its integer
    vector; the server learns the sum.  Taken by ``HockeystickPLDAccountant`` under REPLACE_SPECIAL
    and REPLACE_ONE (the module docstring), and by ``HockeystickRdpAccountant``.

    Parameters
    ----------
    local_stddev : float
        s, each client's discrete Gaussian sigma in integer units (tensorflow_privacy's
        ``local_stddev`` over the granularity), finite and >= 1/2.
    l2_norm_bound : float
        Delta_2, the L2 bound of a client's integer vector (after rounding:
        ``secagg.rounded_l2_norm_bound``), finite and > 0.
    num_clients : int
        n, the fewest clients whose noise is in the sum, 1 <= n <= 10^7.
    dimension : int
        d, the coordinates noised, >= 1.
    l1_norm_bound : float, optional
        Delta_1, finite and > 0 (default min(sqrt(d) Delta_2, Delta_2^2)).

    Notes
    -----
    The event stores its fields unchecked; the accountant's ``compose`` refuses them (ValueError
    naming the field) when out of range.

    References
    ----------
    Kairouz, Liu & Steinke 2021 (arXiv:2102.06387), Prop. 14 and Thm. 1.
    """

    kind: ClassVar[str] = "ddg"  # the noise the plan's spec names (``_spec``)
    local_stddev: float
    l2_norm_bound: float
    num_clients: int
    dimension: int
    l1_norm_bound: float | None = None


@dp_event
class DistributedSkellamDpEvent(ev.DpEvent):
    r"""One round of the distributed Skellam mechanism under secure aggregation (Agarwal et al. 2021), in integer units.

    Each client adds symmetric Skellam noise of variance s^2 (Pois(s^2 / 2) minus an independent
    Pois(s^2 / 2)) to each of the d coordinates of its integer vector; the sum of n noises is
    Skellam of variance n s^2.  Taken by ``HockeystickPLDAccountant`` under REPLACE_SPECIAL and
    REPLACE_ONE (the module docstring), and by ``HockeystickRdpAccountant``.

    Parameters
    ----------
    local_stddev : float
        s, each client's noise standard deviation in integer units (tensorflow_privacy's
        ``local_stddev``), finite and > 0.
    l2_norm_bound : float
        Delta_2, the L2 bound of a client's integer vector, finite and > 0.
    num_clients : int
        n, the fewest clients whose noise is in the sum, >= 1.
    dimension : int
        d, the coordinates noised, >= 1.
    l1_norm_bound : float, optional
        Delta_1, finite and > 0 (default min(sqrt(d) Delta_2, Delta_2^2)).

    Notes
    -----
    The event stores its fields unchecked; the accountant's ``compose`` refuses them (ValueError
    naming the field) when out of range.

    References
    ----------
    Agarwal, Kairouz & Liu 2021 (arXiv:2110.04995), Cor. 3.6.
    """

    kind: ClassVar[str] = "skellam"  # the noise the plan's spec names (``_spec``)
    local_stddev: float
    l2_norm_bound: float
    num_clients: int
    dimension: int
    l1_norm_bound: float | None = None


SecureAggregationEvent = DistributedDiscreteGaussianDpEvent | DistributedSkellamDpEvent


def _positive_field(event: ev.DpEvent, name: str) -> float:
    return _validation.moderate(positive_field(event, name), f"{type(event).__name__}.{name}")


def _spec(
    event: SecureAggregationEvent, relation: NeighboringRelation, rate: float = 1.0
) -> tuple[Any, ...]:
    """The plan's spec (name, kind, s, n, Delta_2, Delta_1, d, realizable shift, sampling rate)
    under ``relation``: the shift 2k under REPLACE_ONE (k e_1 against -k e_1) unsampled, k (k e_1
    against the zero vector, also a client's vector) sampled, where the pair's noise-share mixture
    is not a translate."""
    kind = event.kind
    name = type(event).__name__
    s = _positive_field(event, "local_stddev")
    if kind == "ddg" and s < MIN_SIGMA:
        raise ValueError(
            f"{name}.local_stddev must be >= {MIN_SIGMA} (KLS21's bound holds for a discrete Gaussian sigma of at "
            f"least 1/2 in integer units), got {event.local_stddev!r}: use a finer granularity or more noise"
        )
    n = count_field(
        event, "num_clients", MAX_CLIENTS if kind == "ddg" else _validation.MAX_EXACT_INTEGER
    )
    if kind == "skellam" and not n * s * s < math.inf:
        raise ValueError(
            f"{name}: num_clients local_stddev^2 must be a finite variance, got {n} x {s!r}^2"
        )
    l2 = _positive_field(event, "l2_norm_bound")
    d = count_field(event, "dimension")
    l1 = (
        integer_l1_bound(l2, d)
        if event.l1_norm_bound is None
        else _positive_field(event, "l1_norm_bound")
    )
    shift = int(math.floor(min(l2, l1)))
    if (
        relation == NeighboringRelation.REPLACE_ONE
    ):  # the difference of two vectors (module docstring)
        l1 = min(2.0 * l1, integer_l1_bound(2.0 * l2, d))
        l2, shift = 2.0 * l2, shift if rate < 1.0 else 2 * shift
    return (SPEC_NAME, kind, s, n, l2, l1, d, shift, rate)


def _build(plan: CompositionPlan, interval: float) -> SecureAggregationProfile:
    return SecureAggregationProfile(dict(plan.counts), interval, plan.non_private)


SECURE_AGGREGATION = ClientRounds(
    spec_name=SPEC_NAME,
    classes=(DistributedDiscreteGaussianDpEvent, DistributedSkellamDpEvent),
    label="secure-aggregation",
    spec=_spec,
    replace_only=(
        "neighboring_relation must be `REPLACE_SPECIAL` (a client's vector replaced by zero, its noise kept: the "
        "papers' relation) or `REPLACE_ONE` for `{event}`: removing a client removes its noise "
        "share too, and no bound of a sum of n noises against n - 1 is proved. Found {relation}."
    ),
    mixed=(
        "secure-aggregation rounds compose only with each other in the PLD accountant (their upper side is an RDP "
        "curve, with no dominating pair to compose on the loss grid); use `HockeystickRdpAccountant` to compose them "
        "with other events (upper side only)."
    ),
    build=_build,
    sampled_reason=" (each sampled client brings its own noise share)",
)
SECURE_AGGREGATION_MIXED = SECURE_AGGREGATION.mixed
# the doors' names of the family's plumbing (``client_rounds.ClientRounds``)
visit_secure_aggregation = SECURE_AGGREGATION.visit
visit_sampled_secure_aggregation = SECURE_AGGREGATION.visit_sampled
check_secure_aggregation_alone = SECURE_AGGREGATION.check_alone


def _round_curve(spec: tuple[Any, ...], orders: np.ndarray) -> np.ndarray:
    """One round's RDP curve at ``orders`` (rounded up): KLS21 Prop. 14 or Agarwal et al.'s bound,
    where the Skellam bound at a non-integer order alpha is its value at ceil(alpha) (D_alpha grows
    with alpha)."""
    _, kind, s, n, l2, l1, d, _, rate = spec
    if kind == "ddg":
        curve = distributed_discrete_gaussian_rdp(s, n, l2, l1, d, orders)
    else:
        curve = skellam_rdp(n * s * s, l2, l1, np.maximum(np.ceil(orders), 2.0))
    return curve if rate == 1.0 else shares_sampled_rdp(curve, orders, rate)


def _orders(specs: list[tuple[Any, ...]]) -> np.ndarray:
    return np.asarray(SKELLAM_ORDERS if any(s[1] == "skellam" for s in specs) else DDG_ORDERS)


def _round_pld(spec: tuple[Any, ...], interval: float) -> PrivacyLossDistribution | None:
    """One round's realizable pair on grid ``interval``, or None (no shift, or its masses unbounded: left out)."""
    _, kind, s, n, _, _, _, shift, rate = spec
    if shift == 0:
        return None

    def masses(count: int) -> Masses:
        return (
            ddg_sum_masses(s, count, shift)
            if kind == "ddg"
            else skellam_masses(count * s * s, shift)
        )

    try:
        if rate == 1.0:
            return realizable_shift_pld(masses(n), shift, interval)
        return shares_pair_pld(masses(n), masses(n + 1), shift, rate, interval)
    except ValueError:  # no certified masses: the factor is left out (module docstring)
        return None


@dataclass
class SecureAggregationProfile:
    """The certified (lower, upper) sides of a plan of secure-aggregation rounds (module docstring).

    Parameters
    ----------
    counts : dict
        Each round's spec and its count.
    interval : float
        The lower side's loss-grid spacing.
    non_private : bool
        A non-private event was composed beside them (epsilon inf, delta 1).
    """

    counts: dict[tuple[Any, ...], int]
    interval: float
    non_private: bool = False

    def __post_init__(self) -> None:
        specs = list(self.counts)
        self.orders = _orders(specs)
        terms = [count * _round_curve(spec, self.orders) for spec, count in self.counts.items()]
        total = np.sum(terms, axis=0) if terms else np.zeros(self.orders.size)
        widen = 1.0 + (len(terms) + 2) * UNIT_ROUNDOFF  # one rounding per product and per sum
        self.rdp = np.nextafter(total * widen, np.inf)
        self._lower: PrivacyLossDistribution | None | bool = False  # False: not built yet

    def _lower_pld(self) -> PrivacyLossDistribution | None:
        if self._lower is False:
            total: PrivacyLossDistribution | None = None
            for spec, count in self.counts.items():
                pld = _round_pld(spec, self.interval)
                if pld is not None:
                    step = pld.self_compose(count) if count > 1 else pld
                    total = step if total is None else total.compose(step)
            self._lower = total
        return self._lower if isinstance(self._lower, PrivacyLossDistribution) else None

    def epsilon(self, delta: float) -> tuple[float, float]:
        """Certified (lower, upper) on epsilon(``delta``), delta in [0, 1) (0: the pure-DP epsilon, +inf above)."""
        if self.non_private:
            return math.inf, math.inf
        upper = math.inf if delta == 0.0 else float(rdp_to_epsilon(self.rdp, self.orders, delta))
        pld = self._lower_pld()
        lower = (
            0.0
            if pld is None
            else float(cast(float, pld.epsilon(max(delta, _SMALL_DELTA), bound="lower")))
        )
        return min(lower, upper), upper

    def delta(self, epsilon: float) -> tuple[float, float]:
        """Certified (lower, upper) on delta(``epsilon``), epsilon >= 0."""
        if self.non_private:
            return 1.0, 1.0
        upper = float(rdp_to_delta(self.rdp, self.orders, epsilon))
        pld = self._lower_pld()
        lower = 0.0 if pld is None else float(cast(float, pld.delta(epsilon, bound="lower")))
        return min(lower, upper), upper


def secure_aggregation_profile(
    plan: CompositionPlan, interval: float | None
) -> SecureAggregationProfile | None:
    """The profile of a plan of secure-aggregation rounds (None for a plan without them).

    Parameters
    ----------
    plan : CompositionPlan
        What was composed (secure-aggregation rounds alone: ``check_secure_aggregation_alone``).
    interval : float or None
        The lower side's loss-grid spacing (None: 1e-4).

    Returns
    -------
    SecureAggregationProfile or None
        Its sides, or None where the plan holds no secure-aggregation round.
    """
    return cast(SecureAggregationProfile | None, SECURE_AGGREGATION.profile(plan, interval))


def secure_aggregation_rdp(
    event: SecureAggregationEvent, orders: np.ndarray, relation: NeighboringRelation
) -> np.ndarray:
    """One round's RDP curve at ``orders`` for ``HockeystickRdpAccountant`` (rounded up), refused as
    in the PLD accountant under ADD_OR_REMOVE_ONE.

    Parameters
    ----------
    event : DistributedDiscreteGaussianDpEvent or DistributedSkellamDpEvent
        The round.
    orders : numpy.ndarray
        The accountant's orders, > 1.
    relation : NeighboringRelation
        REPLACE_SPECIAL or REPLACE_ONE.

    Returns
    -------
    numpy.ndarray
        The curve at ``orders``.

    Raises
    ------
    Unsupported
        Under ADD_OR_REMOVE_ONE.
    ValueError
        A field outside its rule.
    """
    plan = CompositionPlan()
    visit_secure_aggregation(event, 1, relation, plan)
    (spec,) = plan.counts
    return _round_curve(spec, np.asarray(orders, dtype=float))


def secure_aggregation_rdp_case(acc: Any, event: SecureAggregationEvent, count: int) -> np.ndarray:
    """``count`` rounds' curve at ``acc.orders`` under ``acc.neighboring_relation``
    (``HockeystickRdpAccountant``'s case for these events)."""
    return count * secure_aggregation_rdp(event, acc.orders, acc.neighboring_relation)
