"""dp_accounting events -> a hockeystick ``CompositionPlan`` (which mechanisms, how many times).

Each supported event maps to a mechanism with a proved dominating pair for the neighbouring
relation asked for; anything else raises ``Unsupported`` (the accountant turns it into
dp_accounting's ``UnsupportedEventError``), never a number.  Bad parameter values raise ValueError
naming the field and the rule.  A leaf event is read by the registered mechanism whose ``dp_event``
it is (``Mechanism.from_dp_event`` and its other door facets, in the mechanism's own file under
``pld``), a structural event by its row of ``event_structure``, a secure-aggregation round by its
family (``client_rounds``); the table below says which mechanism each becomes.

| event | relations | mechanism |
|---|---|---|
| Gaussian(sigma) | add/remove, replace-special: shift 1; replace-one: shift 2 | exact Gaussian radius |
| Laplace(b) | add/remove, replace-special: shift 1; replace-one: shift 2 | ``pld.laplace`` |
| DiscreteLaplace(a, s) | add/remove, replace-special: shift s; replace-one: shift 2s | ``pld.mechanisms.discrete_laplace`` |
| MixtureOfGaussians(sigma, s, p) | add/remove, replace-special (not replace-one: see below) | ``pld.mechanisms.gaussian_mixture`` |
| RandomizedResponse(p, k) | replace-one, replace-special | ``pld.randomized_response`` |
| PoissonSampled(q, Gaussian / Laplace / MoG / DiscreteLaplace) | add/remove, replace-special | Zhu, Dong, Wang 2022, Thm 11 (specialised: location mixtures, ``pld.sampling.subsampling`` for the finite pair) |
| PoissonSampled(q, any other supported event) | add/remove, replace-special | one finite pair: exact atoms (``poisson_pair``); Gaussians only: one Gaussian; else ``pld.sampling.subsampled_pair`` on the inner plan's curves |
| TruncatedSubsampledGaussian(n, q, B, sigma) | add/remove, replace-special | ``pld.sampling.truncated_subsampling`` |
| BallsInBinsGaussian(sigma, t) (``allocation_events``) | add/remove, replace-special | ``pld.sampling.random_allocation`` |
| RandomAllocation(Gaussian(sigma), k, t) (dp_accounting after 0.6.0, matched by name and fields) | add/remove, replace-special | k = 1: as BallsInBins; k = t: t Gaussians, exact; else ``pld.accountants.allocation.SelectedStepsGaussian`` (Feldman & Shenfeld 2025, Thm 3.1 and Lemma 3.2 above, the epoch's summed outputs below) |
| ShuffledBatchGaussian(sigma, n, b) (``allocation_events``) | replace-one | ``pld.accountants.allocation.shuffled_epoch`` |
| DiscreteGaussian(sigma, s) (``catalogue_events``) | add/remove, replace-special: shift s; replace-one: shift 2s | ``pld.mechanisms.discrete_gaussian``: exact atoms, the tails (< 2^-1040) at +infinity above, dropped below; Poisson sampled: its pair on the loss grid |
| ExponentialMechanism(eps) (``selection_events``) | any (eps for the relation's score sensitivity) | ``pld.mechanisms.selection``: the pair dominating every eps-bounded-range pair above; below, the larger of randomized response of eps/2 (two candidates) and the pair on 1 + round(e^{eps/2}) candidates |
| PermuteAndFlip(eps) (``selection_events``) | any (as above) | ``pld.mechanisms.selection``: the (eps, 0)-DP canonical pair above, a realizable two-candidate pair below |
| PoissonSampled(q, Gaussians) | replace-one | ``pld.sampling.poisson_replace_one``: (1-q) N(0) + q N(1) vs (1-q) N(0) + q N(-1), proved to dominate there (certified both sides); a non-private inner: the pair of (0, q)-DP |
| EpsilonDelta(eps, delta) (``catalogue_events``) | any (the guarantee as stated) | ``pld.mechanisms.canonical``: the canonical pair, exact atoms |
| ZCDp(rho, xi) | any (as stated), beside Gaussians only | no PLD: (xi, rho) added, Gaussians as r^2 / 2; the CKS 2020 conversion above, the Gaussian of that rho below (``zcdp_plan``); beside other mechanisms or sampled: refused |
| SampledWithoutReplacement(n, m, Gaussian(s)) | replace-one | ``pld.fixed_size_subsampled_gaussian`` |
| SampledWithoutReplacement(n, m, any other supported event) | replace-one | ``pld.sampling.subsampled_pair`` (Balle, Barthe, Gaboardi 2018, Thm 2, mirrored) |
| SampledWithReplacement(n, K, Gaussian(s)) | replace-one | ``pld.with_replacement_subsampled_gaussian`` and the shift-constrained curve (the smaller upper bound) |
| SampledWithReplacement(n, K, any other supported event) | replace-one | ``pld.sampling.subsampled_pair.with_replacement_curves`` on the group-c plans (``group_of_records``): exact for Gaussian / Laplace / discrete Laplace (shift 2c) and randomized response (its pair), ``pld.mechanisms.group_privacy`` (weak triangle inequality) for the rest; n = 1: the group-of-K plan itself |
| Sampled(..., NonPrivate) | as above | exact: the pair of (0, eta)-DP, eta the chance the record is drawn |
| DistributedDiscreteGaussian / DistributedSkellam (``secagg_events``), and PoissonSampled around one | replace-special, replace-one (not add/remove) | alone (with each other): the papers' RDP bounds above (``secagg``; sampled: joint convexity, each sampled client bringing its own noise share), the realizable shift's lattice PLD below (sampled: the pair of n and n + 1 shares) |
| PoissonBinomial / DistributedDiscreteLaplace (``secagg_pair_events``), and PoissonSampled around one | replace-special, replace-one (not add/remove) | alone (with each other): a dominating pair's PLD and randomized response at the round's pure epsilon above (the lesser read), a realized pair's lattice PLD below (sampled: mixed with the client's absence) |
| SelfComposed, Composed, NoOp, NonPrivate | any | counts, sums, nothing, epsilon = inf |

Zero noise is non-private (epsilon = inf); a zero sampling rate, a zero sample or k = 1 buckets
release nothing.

Replace-one additive noise.  The events' noise is relative to the add/remove sensitivity: a record
moves the (scalar) query by at most 1 (s for discrete Laplace), so replacing it moves it by at most
2 (2s), and the noise's pair at the largest shift dominates every smaller one (``group_of_records``:
the noise laws are log-concave, Neyman-Pearson), as dp_accounting's PLD accountant does for the
Gaussian (it refuses Laplace and discrete Laplace under replace-one).  The mixture of Gaussians
stays refused under replace-one: the event gives one record's sensitivity distribution against its
absence, not how the sensitivities of the record and its replacement are coupled.

Sampling with replacement.  The record is drawn c ~ Binom(K, 1/n) times, so the inner mechanism sees
batches c replace-one steps apart (a group of c); ``group_of_records`` gives each inner mechanism's
group-c pair (exact for additive noise and randomized response, the weak-triangle group bound of
``pld.mechanisms.group_privacy`` otherwise) and
``pld.sampling.subsampled_pair.with_replacement_curves`` mixes them (Balle, Barthe & Gaboardi 2018,
Thm 2, and joint convexity).  Its certified lower side is a realizable pair's
(``pld.accountants.plan_sides.realizable_lower_sides``): around Laplace / discrete Laplace the pair
sum_c b_c N_c vs N_0 in both orders (``pld.sampling.with_replacement_realizable``; for a
composition, its best lone Laplace / discrete Laplace part), the bound's own lower side for
input-oblivious inners (randomized response), the trivial (1 - e^eps)_+ otherwise; the Gaussian's is
in ``pld.accountants.fixed_batch``. The true worst case lies between the two sides, which can be far
apart.

Parameter range (``loss_reach``).  A noise scale above ``MAX_NOISE`` (1e150), or a run whose privacy
loss can reach beyond ``MAX_LOSS_REACH`` (1e4; e.g. a Laplace scale below 1e-4, a subsampled
Gaussian's noise multiplier below 0.0094), is refused with ``ParameterOutOfRange`` (a ValueError,
and an OverflowError as dp_accounting raises for most of them) naming the event's field and the
rule; so is a batch drawn with replacement that can hold more than ``MAX_COPIES`` copies of a record
(or, around a discrete Laplace, more than ``MAX_GROUP_ATOMS`` = copies x sensitivity outcomes in one
group pair), or whose group of that many copies has losses beyond ``OVERFLOW_REACH`` (1e300, where
they would overflow doubles: e.g. a discrete Laplace noise_parameter of 1e300), a discrete Laplace
sensitivity above ``MAX_SENSITIVITY`` or a loss a s above ``MAX_FINITE_REACH`` (1e6: exact atoms of
several lattices meet on a 2^-32 grid of int64 indices), and more than 2^53 runs of one grid or
finite mechanism.  A Gaussian alone (closed form) and the other finite pairs (exact atoms) take any
noise.  A sample folded into one grid mechanism (of Gaussians only, or with replacement from one
record) is checked at its folded radius (times the copies of the record a batch can hold); the
generic subsampling transforms take any inner event whose mechanisms pass (their grid stops at loss
700, ``pld.sampling.subsampled_pair``: valid, only looser beyond).

Poisson sampling under replace-one: for Gaussians, the pair dp_accounting composes there, (1-q)
N(0) + q N(1) vs (1-q) N(0) + q N(-1), is realizable and dominates in any dimension (the proof in
``pld.sampling.poisson_replace_one``; docs/paper-003-errata.md explains why its fixed-size analogue
fails); around any other inner event it is refused (the proof is the Gaussian's).
"""

from __future__ import annotations

import math
from typing import Any

try:
    from dp_accounting import dp_event as ev
    from dp_accounting.privacy_accountant import NeighboringRelation
except ModuleNotFoundError:  # name the extra that installs dp_accounting
    from ...base.optional import require_extra

    require_extra("hockeystick.interop.dp_accounting.dp_events", "dp_accounting")
    raise

from ...base.event_refusal import NonPrivateRun
from ...pld.accountants import CompositionPlan
from ...pld.mechanisms import dp_event_class
from ..loss_reach import ParameterOutOfRange, gaussian_reach
from . import sampled_plans
from .event_checks import (
    ADD_REMOVE,
    add_runs,
    check_count,
    check_reach,
    check_registered_reach,
    integer,
    noise,
    plan_with,
    require_relation,
)
from .event_checks import Unsupported as Unsupported  # re-exported: the adapters' refusal
from .event_structure import structure_case
from .secagg_events import SECURE_AGGREGATION
from .secagg_pair_events import PAIR_ROUNDS

# the families of client rounds under secure aggregation, each reading its own events
# (``client_rounds``): their rounds compose on their own, as the family's profile
CLIENT_ROUNDS = (SECURE_AGGREGATION, PAIR_ROUNDS)


def plan_for(event: ev.DpEvent, count: int, relation: NeighboringRelation) -> CompositionPlan:
    """The plan of ``count`` runs of ``event`` (a new plan; nothing is modified)."""
    return plan_with(_visit, event, count, relation)


def _visit(
    event: ev.DpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    """Add ``count`` runs of ``event`` under ``relation`` to ``plan``: compositions unwrapped by an
    explicit stack (a run built one ``compose`` at a time nests a ``ComposedDpEvent`` per step:
    thousands deep, past Python's recursion limit), each other event as ``_visit_one`` reads it (a
    random allocation matched by name, ``_is_random_allocation``), in the composition's order."""
    stack: list[tuple[ev.DpEvent, int]] = [(event, count)]
    while stack:
        event, count = stack.pop()
        if isinstance(event, ev.ComposedDpEvent):
            stack.extend((inner, count) for inner in reversed(event.events))
        elif isinstance(event, ev.SelfComposedDpEvent):
            stack.append((event.event, count * check_count(event.count)))
        else:
            _visit_one(event, count, relation, plan)


def _visit_one(
    event: ev.DpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    """``count`` runs of one event that is not a composition (``_visit``): a secure-aggregation
    round (or a sample of one) by its family, a structural event by its case
    (``event_structure``), a leaf by the registered mechanism whose ``dp_event`` it is
    (``Mechanism.from_dp_event``, ``pld.mechanisms.registry.dp_event_class``;
    docs/howto-mechanism.md)."""
    if _is_random_allocation(event):
        _visit_random_allocation(event, count, relation, plan)
        return
    for family in CLIENT_ROUNDS:  # a round of the family or a Poisson sample of one
        if family.visit_event(event, count, relation, plan):
            return
    case = structure_case(event, "plan", globals())
    if case is not None:
        case(event, count, relation, plan)
        return
    reader = dp_event_class(event)  # a leaf: the registered mechanism whose event it is
    if reader is None:
        raise Unsupported(event, "Unsupported event.")
    mechanism = reader.from_dp_event(event, relation.name.lower())
    if isinstance(mechanism, NonPrivateRun):  # released: epsilon = inf
        add_runs(plan, (mechanism.name,), count, True)
    elif mechanism is not None and mechanism.gaussian_radius() is not None:
        _fold_gaussian(event, mechanism, count, plan)
    elif mechanism is not None:  # None: the event releases nothing
        if not mechanism.composed_as_atoms():  # exact atoms: no loss grid to outgrow
            check_registered_reach(event, mechanism)
        add_runs(plan, mechanism.spec(), count, False)


def _visit_poisson(
    event: ev.PoissonSampledDpEvent,
    count: int,
    relation: NeighboringRelation,
    plan: CompositionPlan,
) -> None:
    """A Poisson sample of any event (``sampled_plans.poisson``), its inner planned by ``_visit``."""
    sampled_plans.poisson(event, count, relation, plan, visit=_visit)


def _visit_fixed_size(
    event: ev.SampledWithoutReplacementDpEvent | ev.SampledWithReplacementDpEvent,
    count: int,
    relation: NeighboringRelation,
    plan: CompositionPlan,
) -> None:
    """A fixed-size sample of any event, with or without replacement (``sampled_plans.fixed_size``),
    its inner planned by ``_visit``."""
    sampled_plans.fixed_size(event, count, relation, plan, visit=_visit)


def _fold_gaussian(event: ev.DpEvent, mechanism: Any, count: int, plan: CompositionPlan) -> None:
    """``count`` runs of a Gaussian pair folded into the plan's closed form (its radius squared
    added: no grid, so no loss reach to refuse), refusing a sum past the largest double."""
    plan.add_gaussian(mechanism.gaussian_radius(), count, mechanism.spec())
    if not math.isfinite(plan.gaussian_r2):  # count r^2 summed past the largest double
        field = mechanism.dp_event_field
        raise ParameterOutOfRange(
            f"{type(event).__name__}.{field} = {getattr(event, field)!r} (with {count} runs) makes "
            f"the composed Gaussian's squared radius overflow (sum of count (shift / {field})^2 "
            "past 1.8e308): no certified bound is computed; use more noise"
        )


# dp_accounting's random allocation event (its releases after 0.6.0), read by its class name and
# fields so that every release that has it is taken, and none that lacks it needs it
RANDOM_ALLOCATION = ("RandomAllocationDpEvent", ("event", "num_selected", "num_steps"))


def _is_random_allocation(event: ev.DpEvent) -> bool:
    name, fields = RANDOM_ALLOCATION
    return type(event).__name__ == name and all(hasattr(event, f) for f in fields)


def _visit_random_allocation(
    event: ev.DpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    """Each record joins ``num_selected`` = k of the ``num_steps`` = t steps, a uniform k-subset,
    independently of the others; each step runs ``event`` (a Gaussian) on its records: add/remove
    (replace-special) only, as ``BallsInBinsGaussianDpEvent``, k = 1 its very pair, k = t every step
    (t Gaussians, exact), else the pair of ``pld.accountants.allocation.SelectedStepsGaussian``
    (certified both sides)."""
    require_relation(event, relation, ADD_REMOVE, "`RandomAllocationDpEvent`")
    inner = event.event  # type: ignore[attr-defined]
    if not isinstance(inner, ev.GaussianDpEvent):
        raise Unsupported(
            event,
            f"RandomAllocationDpEvent is taken around a GaussianDpEvent only, got {type(inner).__name__}.",
        )
    steps = integer(event, "num_steps", 1)
    selected = integer(event, "num_selected", 1)
    if selected > steps:
        raise ValueError(
            f"RandomAllocationDpEvent.num_selected must be <= num_steps (each record joins that many distinct "
            f"steps), got {selected} > {steps}"
        )
    if selected == steps:  # every step: the record in all of them
        _visit_one(inner, count * steps, relation, plan)
        return
    sigma = noise(inner, "noise_multiplier")
    if sigma > 0:
        check_reach(inner, "noise_multiplier", gaussian_reach(1.0 / sigma))
    spec = (
        ("random_allocation_gaussian", steps, sigma)
        if selected == 1
        else ("random_allocation_selected_gaussian", steps, selected, sigma)
    )
    add_runs(plan, spec, count, sigma == 0)


def _visit_noop(
    event: ev.NoOpDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    """Nothing released."""


def _visit_non_private(
    event: ev.NonPrivateDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    plan.non_private = True
