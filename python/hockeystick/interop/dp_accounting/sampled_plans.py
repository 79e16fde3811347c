"""dp_accounting's sampled events -> plan entries: Poisson samples and fixed-size samples of any inner event.

``dp_events``' table says which pair each sample becomes; the cases here take the recursive
``visit`` of ``dp_events`` (``event_checks.Visit``) to plan their inner event.
"""

from __future__ import annotations

import math
from typing import cast

try:
    from dp_accounting import dp_event as ev
    from dp_accounting.privacy_accountant import NeighboringRelation
except ModuleNotFoundError:  # name the extra that installs dp_accounting
    from ...base.optional import require_extra

    require_extra("hockeystick.interop.dp_accounting.sampled_plans", "dp_accounting")
    raise

from ...base.event_refusal import NonPrivateRun
from ...pld.accountants import CompositionPlan, group_plan, has_zcdp
from ...pld.mechanisms import (
    Spec,
    mechanism_of,
)
from ..loss_reach import ParameterOutOfRange
from .event_checks import (
    ADD_REMOVE,
    NON_PRIVATE,
    OVERFLOW_REACH,
    ZCDP_MIXED,
    SampledEvent,
    Unsupported,
    Visit,
    add_runs,
    bounded_by,
    check_registered_reach,
    integer,
    plan_with,
    probability,
    registered_mechanism,
    require_relation,
)
from .event_reach import check_group_atoms, check_inner_reach, copies_of


def _refuse_sampled_zcdp(
    event: ev.PoissonSampledDpEvent | SampledEvent, inner: CompositionPlan
) -> None:
    """A sample of an event tree holding a ``ZCDpEvent`` (``inner``: the plan of one run of its
    inner event): zCDP is not amplified by sampling here (``zcdp_plan``)."""
    if has_zcdp(inner):
        raise Unsupported(
            event, "A sample of a `ZCDpEvent` has no analysis in the PLD accountant. " + ZCDP_MIXED
        )


def _inner_plan(inner: CompositionPlan) -> CompositionPlan:
    """The plan of one run of a sampled event's inner event (``inner``); a non-private inner becomes ``NON_PRIVATE``."""
    if inner.non_private:
        return CompositionPlan({NON_PRIVATE: 1})
    return inner


def _single_finite(plan: CompositionPlan) -> Spec | None:
    """The mechanism if the plan is one run of one mechanism with a finite pair (sampled exactly)."""
    if plan.gaussian_r2 == 0 and len(plan.counts) == 1:
        ((mechanism, count),) = plan.counts.items()
        if count == 1 and mechanism_of(mechanism).finite_pairs() is not None:
            return mechanism
    return None


def poisson(
    event: ev.PoissonSampledDpEvent,
    count: int,
    relation: NeighboringRelation,
    plan: CompositionPlan,
    *,
    visit: Visit,
) -> None:
    """Add ``count`` runs of a Poisson sample of ``event.event`` (rate ``sampling_probability``) to ``plan``."""
    q = probability(event, "sampling_probability")
    inner = event.event
    # one run of the inner event, planned once for every case below (at q = 0 too: the inner event
    # must still be supported, and valid)
    inner_plan = plan_with(visit, inner, 1, relation)
    _refuse_sampled_zcdp(event, inner_plan)
    if relation not in ADD_REMOVE:
        _poisson_replace_one(event, q, count, relation, plan, visit, inner_plan)
        return
    if q == 0:
        return
    if q == 1:
        visit(inner, count, relation, plan)
        return
    if inner_plan.non_private:  # released with probability q: delta = q, exactly
        plan.add(("poisson_pair", q, NON_PRIVATE), count)
        return
    registered = registered_mechanism(inner, relation)
    sampled = (
        None
        if registered is None or isinstance(registered, NonPrivateRun)
        else registered.poisson_sampled(q)
    )
    if sampled is None:
        _poisson_generic(event, q, count, relation, plan, inner_plan)
    else:  # the registered mechanism's own sampled pair (``Mechanism.poisson_sampled``)
        if not sampled.composed_as_atoms():  # on the loss grid: the inner's reach bounds it
            check_registered_reach(inner, registered)
        add_runs(plan, sampled.spec(), count, False)


def _poisson_replace_one(
    event: ev.PoissonSampledDpEvent,
    q: float,
    count: int,
    relation: NeighboringRelation,
    plan: CompositionPlan,
    visit: Visit,
    inner: CompositionPlan,
) -> None:
    """Poisson sampling under replace-one: Gaussians only (``pld.sampling.poisson_replace_one``,
    folded into one of add/remove radius half the replace-one one); a non-private inner is exactly
    the pair of (0, q)-DP (the slot is drawn with probability q, the rest of the batch alike on both
    sides).  ``inner``: the plan of one run of the inner event."""
    if q == 0 or (inner.empty and not inner.non_private):
        return
    if q == 1:
        visit(event.event, count, relation, plan)
        return
    if inner.non_private:
        plan.add(("eps_delta", 0.0, q), count)
        return
    if inner.counts:
        raise Unsupported(
            event,
            "Poisson sampling under `REPLACE_ONE` is analysed for Gaussian inner events only (its proof needs "
            "the inner's add/remove and replace-one pairs); use `ADD_OR_REMOVE_ONE`, or a fixed-size sample "
            "under `REPLACE_ONE`.",
        )
    check_inner_reach(event, relation, 1)
    leaf = event.event  # a lone Gaussian keeps its own sigma, exactly; else the folded radius
    sigma = (
        float(leaf.noise_multiplier)
        if isinstance(leaf, ev.GaussianDpEvent)
        else 2.0 / math.sqrt(inner.gaussian_r2)
    )
    add_runs(plan, ("poisson_replace_one_gaussian", sigma, q), count, False)


def _poisson_generic(
    event: ev.PoissonSampledDpEvent,
    q: float,
    count: int,
    relation: NeighboringRelation,
    plan: CompositionPlan,
    inner_plan: CompositionPlan,
) -> None:
    """Any other inner event (``inner_plan``: the plan of one run of it): its plan's remove/add
    curves through ``pld.sampling.subsampled_pair`` (exact atoms when the inner is one finite pair,
    a Gaussian when it folds into one)."""
    inner = _inner_plan(inner_plan)
    if inner.empty:
        return
    finite = _single_finite(inner)
    if finite is not None:
        plan.add(("poisson_pair", q, finite), count)
    elif (
        not inner.counts
    ):  # Gaussians only: one Gaussian of the folded radius (add/remove: shift 1)
        check_inner_reach(event, relation, 1)
        plan.add(("poisson_gaussian", 1.0 / math.sqrt(inner.gaussian_r2), q), count)
    else:
        plan.add(("poisson_generic", q, inner.key()), count)


def fixed_size(
    event: SampledEvent,
    count: int,
    relation: NeighboringRelation,
    plan: CompositionPlan,
    *,
    visit: Visit,
) -> None:
    """Add ``count`` runs of a fixed-size sample (with or without replacement) of ``event.event`` to ``plan``."""
    without = isinstance(event, ev.SampledWithoutReplacementDpEvent)
    n, m, inner = _check_fixed_size(event, relation, without, visit)
    if m == 0 or (inner.empty and not inner.non_private):
        return
    if not without:
        _check_drawn_below_one(n, m, inner)
    if inner.non_private:
        # The outputs differ only when the record is drawn (probability m/n, or 1 - (1 - 1/n)^m with
        # replacement), and then completely: exactly the pair of (0, eta)-DP.
        eta = m / n if without else -math.expm1(m * math.log1p(-1.0 / n)) if n > 1 else 1.0
        plan.add(("eps_delta", 0.0, eta, False), count)  # eta is computed: its round-off is charged
        return
    if not inner.counts:
        # Gaussians only (replace-one radius r = 2 / sigma per Gaussian): one Gaussian of the folded
        # radius.
        check_inner_reach(event, relation, 1 if without else copies_of(event))
        name = "without_replacement_gaussian" if without else "with_replacement_gaussian"
        plan.add((name, 2.0 / math.sqrt(inner.gaussian_r2), m, n), count)
    elif without:
        _without_replacement_generic(m, n, inner, count, plan)
    else:
        _with_replacement_generic(
            cast(ev.SampledWithReplacementDpEvent, event), m, n, inner, count, relation, plan
        )


def _check_fixed_size(
    event: SampledEvent, relation: NeighboringRelation, without: bool, visit: Visit
) -> tuple[int, int, CompositionPlan]:
    """(n, m, the plan of one run of the inner event) of a fixed-size sample, checked: replace-one
    only, no zCDP inside, m <= n without replacement."""
    kind = "SampledWithoutReplacementDpEvent" if without else "SampledWithReplacementDpEvent"
    require_relation(event, relation, bounded_by("replace_one"), f"`{kind}`")
    inner = plan_with(visit, event.event, 1, relation)
    _refuse_sampled_zcdp(event, inner)
    n = integer(event, "source_dataset_size", 1)
    m = integer(event, "sample_size", 0)
    if without and m > n:
        raise ValueError(f"{kind}.sample_size must be <= source_dataset_size, got {m} > {n}")
    return n, m, inner


def _check_drawn_below_one(n: int, m: int, inner: CompositionPlan) -> None:
    """With replacement around a mechanism other than a Gaussian (``pld.sampling.subsampled_pair``),
    the copy-count mixture needs the chance the record is drawn below 1 (b_0 = (1 - 1/n)^m >=
    2^-53)."""
    if (
        n > 1
        and inner.counts
        and not inner.non_private
        and -math.expm1(m * math.log1p(-1.0 / n)) >= 1.0
    ):
        raise ParameterOutOfRange(
            f"SampledWithReplacementDpEvent.sample_size = {m} draws one of source_dataset_size = {n} records "
            f"with probability 1 - (1 - 1/n)^m, which rounds to 1: no certified bound is computed; use a larger "
            f"source_dataset_size or a smaller sample_size"
        )


def _without_replacement_generic(
    m: int, n: int, inner: CompositionPlan, count: int, plan: CompositionPlan
) -> None:
    """m of n drawn without replacement around any inner plan: all of them is the inner plan itself."""
    if m == n:
        plan.merge(inner.scaled(count))
    else:
        plan.add(("without_replacement_generic", m, n, inner.key()), count)


def _with_replacement_generic(
    event: ev.SampledWithReplacementDpEvent,
    m: int,
    n: int,
    inner: CompositionPlan,
    count: int,
    relation: NeighboringRelation,
    plan: CompositionPlan,
) -> None:
    """m draws with replacement from n around any inner plan other than Gaussians alone."""
    if n == 1:
        # the record fills all m slots: exactly the inner plan on a group of m
        check_inner_reach(event, relation, copies_of(event))
        plan.merge(group_plan(inner, m, m).scaled(count))
        return
    # the record is drawn c ~ Binom(m, 1/n) times: the group-c plans (``group_of_records``) mixed
    copies = copies_of(event)  # refuses more than MAX_COPIES group analyses
    check_group_atoms(event.event, copies)
    check_inner_reach(
        event, relation, copies, OVERFLOW_REACH, "the group's losses overflow double precision"
    )
    plan.add(("with_replacement_generic", m, n, inner.key()), count)
