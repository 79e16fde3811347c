"""dp_accounting events -> a hockeystick ``CompositionPlan`` (which mechanisms, how many times).

Each supported event maps to a mechanism with a proved dominating pair for the neighbouring
relation asked for; anything else raises ``Unsupported`` (the accountant turns it into
dp_accounting's ``UnsupportedEventError``), never a number.  Bad parameter values raise ValueError
naming the field and the rule.

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
``pld.mechanisms.group_privacy`` otherwise) and ``pld.sampling.subsampled_pair.with_replacement_curves`` mixes them
(Balle, Barthe & Gaboardi 2018, Thm 2, and joint convexity).  Its certified lower side is a
realizable pair's (``pld.accountants.plan_sides.realizable_lower_sides``): around Laplace / discrete Laplace
the pair sum_c b_c N_c vs N_0 in both orders (``pld.sampling.with_replacement_realizable``; for a composition,
its best lone Laplace / discrete Laplace part), the bound's own lower side for input-oblivious inners
(randomized response), the trivial (1 - e^eps)_+ otherwise; the Gaussian's is in ``pld.accountants.fixed_batch``.
The true worst case lies between the two sides, which can be far apart.

Parameter range (``loss_reach``).  A noise scale above ``MAX_NOISE`` (1e150), or a run whose privacy
loss can reach beyond ``MAX_LOSS_REACH`` (1e4; e.g. a Laplace scale below 1e-4, a subsampled
Gaussian's noise multiplier below 0.0094), is refused with ``ParameterOutOfRange`` (a ValueError,
and an OverflowError as dp_accounting raises for most of them) naming the event's field and the
rule; so is a batch drawn with replacement that can hold more than ``MAX_COPIES`` copies of a
record (or, around a discrete Laplace, more than ``MAX_GROUP_ATOMS`` = copies x sensitivity
outcomes in one group pair), or whose group of that many copies has losses beyond ``OVERFLOW_REACH`` (1e300, where
they would overflow doubles: e.g. a discrete Laplace noise_parameter of 1e300), a discrete Laplace
sensitivity above ``MAX_SENSITIVITY`` or a loss a s above ``MAX_FINITE_REACH`` (1e6: exact atoms of
several lattices meet on a 2^-32 grid of int64 indices), and more than 2^53 runs of one grid or
finite mechanism.  A Gaussian alone (closed form) and the other finite pairs (exact atoms) take any
noise.  A sample folded into one grid mechanism (of Gaussians only, or with replacement from one
record) is checked at its folded radius (times the copies of the record a batch can hold); the
generic subsampling transforms take any inner event whose mechanisms pass (their grid stops at
loss 700, ``pld.sampling.subsampled_pair``: valid, only looser beyond).

Poisson sampling under replace-one: for Gaussians, the pair dp_accounting composes there,
(1-q) N(0) + q N(1) vs (1-q) N(0) + q N(-1), is realizable and dominates in any dimension (the proof
in ``pld.sampling.poisson_replace_one``; docs/paper-003-errata.md explains why its fixed-size analogue fails);
around any other inner event it is refused (the proof is the Gaussian's).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np

try:
    from dp_accounting import dp_event as ev
    from dp_accounting.privacy_accountant import NeighboringRelation
except ModuleNotFoundError:  # name the extra that installs dp_accounting
    from ..base.optional import require_extra

    require_extra("hockeystick.interop.dp_events", "dp_accounting")
    raise

from ..base import validation as _validation
from ..pld.accountants.composition_plan import CompositionPlan
from ..pld.accountants.plan import COPY_COUNT_CUT, group_plan, mechanism_of
from ..pld.accountants.zcdp_plan import Zcdp, has_zcdp, zcdp_alone
from ..pld.mechanisms import discrete_gaussian as dg
from ..pld.mechanisms.mechanism import Spec
from ..pld.mechanisms.neighbouring import relations_bounded
from .allocation_events import BallsInBinsGaussianDpEvent, ShuffledBatchGaussianDpEvent
from .catalogue_events import DiscreteGaussianDpEvent, EpsilonDeltaDpEvent
from .loss_reach import MAX_LOSS_REACH, MAX_NOISE, ParameterOutOfRange, gaussian_reach
from .selection_events import ExponentialMechanismDpEvent, PermuteAndFlipDpEvent

# the fixed-size batch events: sample_size records drawn from source_dataset_size
SampledEvent = ev.SampledWithoutReplacementDpEvent | ev.SampledWithReplacementDpEvent
# one event type's case in a dispatch table (its arguments differ per table: event first)
_Case = Callable[..., Any]


def _bounded(analysed_under: str) -> tuple[NeighboringRelation, ...]:
    """The accountant's relations a mechanism analysed under ``analysed_under`` bounds (pld.neighbouring's table)."""
    return tuple(NeighboringRelation[r.upper()] for r in relations_bounded(analysed_under))


ADD_REMOVE = _bounded("add_or_remove_one")  # add/remove and replace-special
REPLACE_ONE = _bounded("replace_one")
# A non-private inner event as a finite pair: the canonical pair of (0, 1)-DP, P and Q disjoint (it
# dominates every pair and NonPrivate attains it), so a sample of it keeps its exact delta.
NON_PRIVATE = ("eps_delta", 0.0, 1.0)
MAX_RUNS = 1 << 53  # the most runs of one grid or finite mechanism composed (PLD self-composition)
MAX_SENSITIVITY = 1_000_000  # discrete Laplace: the largest (integer) sensitivity taken
MAX_COPIES = 100_000  # with replacement: the most copies of a record (group analyses) computed
MAX_FINITE_REACH = 1e6  # discrete Laplace: the largest loss a * shift of one run taken (exact atoms)
MAX_GROUP_ATOMS = 10_000  # with replacement: copies x discrete Laplace sensitivity of one group pair
OVERFLOW_REACH = 1e300  # with replacement: a group's loss (inner reach x copies) kept finite in doubles


class Unsupported(Exception):
    """An event (or relation) with no certified analysis here: carries the offending sub-event."""

    def __init__(self, event: ev.DpEvent, message: str):
        super().__init__(message)
        self.event = event
        self.message = message


def real_field(event: ev.DpEvent, name: str) -> float:
    """An event's field as one real number (NaN and +-inf pass: the caller's rule decides); a bool, string, None,
    array or list is a ``ParameterTypeError`` (a TypeError and a ValueError) naming the field, and an integer past
    the largest double a ValueError, as at every hockeystick entry point (``_validation.single``)."""
    return _validation.single(getattr(event, name), f"{type(event).__name__}.{name}")


def _nonnegative(event: ev.DpEvent, name: str) -> float:
    v = getattr(event, name)
    x = real_field(event, name)
    if x == math.inf:  # dp_accounting overflows here (OverflowError): so does this refusal
        raise ParameterOutOfRange(f"{type(event).__name__}.{name} must be finite, got {v!r}")
    if not (x >= 0 and math.isfinite(x)):
        raise ValueError(f"{type(event).__name__}.{name} must be finite and >= 0, got {v!r}")
    return x


def _noise(event: ev.DpEvent, name: str) -> float:
    """A noise scale: finite, >= 0 and at most ``MAX_NOISE``."""
    x = _nonnegative(event, name)
    if x > MAX_NOISE:
        raise ParameterOutOfRange(
            f"{type(event).__name__}.{name} must be at most {MAX_NOISE:g} (a larger noise "
            f"scale leaves a privacy loss below double precision, where no certified bound "
            f"is computed), got {getattr(event, name)!r}"
        )
    return x


def _check_reach(
    event: ev.DpEvent,
    name: str,
    reach: float,
    limit: float = MAX_LOSS_REACH,
    why: str = "the loss grid would need tens of millions of points",
) -> None:
    """Refuse a run whose privacy loss reaches beyond ``limit`` (module docstring), naming the field."""
    if not reach <= limit:
        raise ParameterOutOfRange(
            f"{type(event).__name__}.{name} = {getattr(event, name)!r} lets one run's privacy loss reach "
            f"{reach:.4g}, beyond {limit:g} ({why}): no certified bound is computed; use more noise"
        )


def _probability(event: ev.DpEvent, name: str) -> float:
    x = _nonnegative(event, name)
    if x > 1:
        raise ValueError(f"{type(event).__name__}.{name} must lie in [0, 1], got {getattr(event, name)!r}")
    return x


def _integer(event: ev.DpEvent, name: str, minimum: int) -> int:
    """An event's integer field, minimum <= v <= 2^53 (the mechanisms' counts are exact doubles)."""
    v = getattr(event, name)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum:
        raise ValueError(f"{type(event).__name__}.{name} must be an integer >= {minimum}, got {v!r}")
    if v > _validation.MAX_EXACT_INTEGER:
        raise ValueError(f"{type(event).__name__}.{name} must be at most 2^53 = 9007199254740992, got {v!r}")
    return int(v)


def _sensitivity(event: ev.DiscreteLaplaceDpEvent) -> int:
    """A discrete Laplace sensitivity: an integer >= 1 (dp_accounting's rule) and at most
    ``MAX_SENSITIVITY`` (its exact pair has about one atom per integer of the shift)."""
    s = _integer(event, "sensitivity", 1)
    if s > MAX_SENSITIVITY:
        raise ParameterOutOfRange(
            f"DiscreteLaplaceDpEvent.sensitivity must be at most {MAX_SENSITIVITY} (its exact "
            f"pair holds about one atom per integer of the shift), got {s}"
        )
    return s


def _discrete_laplace(event: ev.DiscreteLaplaceDpEvent, copies: int) -> tuple[float, int]:
    """(a, shift) of a discrete Laplace whose sensitivity counts ``copies`` times (2 under replace-one),
    refusing a one-run loss a shift past ``MAX_FINITE_REACH``, naming ``noise_parameter``."""
    a = _nonnegative(event, "noise_parameter")
    shift = copies * _sensitivity(event)
    _check_reach(
        event, "noise_parameter", a * shift, MAX_FINITE_REACH, "its exact atoms would leave the common loss lattice"
    )
    return a, shift


def _discrete_gaussian(event: DiscreteGaussianDpEvent, copies: int) -> tuple[float, int]:
    """(sigma, shift) of a discrete Gaussian whose sensitivity counts ``copies`` times (2 under replace-one),
    refusing a window of more than ``pld.mechanisms.discrete_gaussian.MAX_OUTCOMES`` outcomes or a one-run loss past
    ``MAX_FINITE_REACH`` (as the discrete Laplace), naming ``sigma``; sigma = 0 is non-private."""
    sigma = _noise(event, "sigma")
    shift = copies * _integer(event, "sensitivity", 1)
    if shift > MAX_SENSITIVITY:
        raise ParameterOutOfRange(
            f"DiscreteGaussianDpEvent.sensitivity must be at most {MAX_SENSITIVITY // copies} here (its exact pair "
            f"holds about one atom per integer of the shift), got {event.sensitivity!r}"
        )
    if sigma == 0:
        return sigma, shift
    why = "its exact atoms would leave the common loss lattice"
    ratio = shift / sigma
    if not ratio <= math.sqrt(2.0 * MAX_FINITE_REACH):  # the mode's loss s^2 / (2 sigma^2) alone passes the limit
        _check_reach(event, "sigma", ratio * ratio / 2.0, MAX_FINITE_REACH, why)
    if sigma > dg.MAX_SIGMA or dg.outcomes(sigma, shift) > dg.MAX_OUTCOMES:
        raise ParameterOutOfRange(
            f"DiscreteGaussianDpEvent.sigma = {event.sigma!r} with a shift of {shift} needs more than "
            f"{dg.MAX_OUTCOMES} outcomes for its exact pair: no certified bound is computed; rescale the query "
            f"(a smaller sigma and sensitivity)"
        )
    _check_reach(event, "sigma", dg.discrete_gaussian_top_loss(sigma, shift), MAX_FINITE_REACH, why)
    return sigma, shift


def check_count(count: int) -> int:
    """dp_accounting's rule for composition counts, with its message; more than 2^53 runs (``MAX_RUNS``) are
    refused (``ParameterOutOfRange``): counts multiply and enter the curves as doubles."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"`count` must be positive. Found {count}.")
    if count > MAX_RUNS:
        raise ParameterOutOfRange(
            f"`count` must be at most 2^53 = {MAX_RUNS}, got {_validation.describe(count)}: no certified bound is "
            "computed for more runs"
        )
    return int(count)


def _require(
    event: ev.DpEvent, relation: NeighboringRelation, allowed: tuple[NeighboringRelation, ...], what: str
) -> None:
    if relation not in allowed:
        names = " or ".join(f"`{r.name}`" for r in allowed)
        raise Unsupported(event, f"neighboring_relation must be {names} for {what}. Found {relation}.")


def plan_for(event: ev.DpEvent, count: int, relation: NeighboringRelation) -> CompositionPlan:
    """The plan of ``count`` runs of ``event`` (a new plan; nothing is modified)."""
    plan = CompositionPlan()
    _visit(event, count, relation, plan)
    check_zcdp_alone(plan, event)
    return plan


ZCDP_MIXED = (
    "`ZCDpEvent` composes only with `GaussianDpEvent` and other `ZCDpEvent`s in the PLD accountant (a zCDP "
    "guarantee fixes no privacy-loss distribution; pld.accountants.zcdp_plan); use `HockeystickRdpAccountant` to "
    "compose it with other events."
)


def check_zcdp_alone(plan: CompositionPlan, event: ev.DpEvent) -> None:
    """Refuse a plan holding a ``ZCDpEvent`` run beside any mechanism other than Gaussians (``zcdp_plan``)."""
    if not zcdp_alone(plan):
        raise Unsupported(event, ZCDP_MIXED)


def _refuse_sampled_zcdp(event: ev.PoissonSampledDpEvent | SampledEvent, relation: NeighboringRelation) -> None:
    """A sample of an event tree holding a ``ZCDpEvent``: zCDP is not amplified by sampling here (``zcdp_plan``)."""
    if has_zcdp(plan_for(event.event, 1, relation)):
        raise Unsupported(event, "A sample of a `ZCDpEvent` has no analysis in the PLD accountant. " + ZCDP_MIXED)


def case_of(cases: Mapping[type, _Case], event: ev.DpEvent) -> _Case:
    """The case of ``cases`` for ``event``: the entry of the nearest class in its MRO (as isinstance would
    pick); no entry raises ``Unsupported``."""
    case = _nearest_case(cases, event)
    if case is None:
        raise Unsupported(event, "Unsupported event.")
    return case


def _nearest_case(cases: Mapping[type, _Case], event: ev.DpEvent) -> _Case | None:
    for cls in type(event).__mro__:
        case = cases.get(cls)
        if case is not None:
            return case
    return None


def _visit(event: ev.DpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan) -> None:
    """Add ``count`` runs of ``event`` under ``relation`` to ``plan``: the event's case in ``_VISITS``."""
    case_of(_VISITS, event)(event, count, relation, plan)


def _shift(relation: NeighboringRelation) -> float:
    """An additive noise's shift per unit of the add/remove sensitivity: 2 under replace-one (module docstring)."""
    return 2.0 if relation == NeighboringRelation.REPLACE_ONE else 1.0


def _visit_noop(event: ev.NoOpDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan) -> None:
    """Nothing released."""


def _visit_non_private(
    event: ev.NonPrivateDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    plan.non_private = True


def _visit_self_composed(
    event: ev.SelfComposedDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    _visit(event.event, count * check_count(event.count), relation, plan)


def _visit_composed(
    event: ev.ComposedDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    for e in event.events:
        _visit(e, count, relation, plan)


def _visit_gaussian(
    event: ev.GaussianDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    sigma = _noise(event, "noise_multiplier")
    if sigma == 0:
        plan.non_private = True
        return
    plan.add_gaussian(_shift(relation) / sigma, count)
    if not math.isfinite(plan.gaussian_r2):  # count (shift / sigma)^2 summed past the largest double
        raise ParameterOutOfRange(
            f"GaussianDpEvent.noise_multiplier = {event.noise_multiplier!r} (with {count} runs) makes the "
            f"composed Gaussian's squared radius overflow (sum of count (shift / noise_multiplier)^2 past "
            f"1.8e308): no certified bound is computed; use more noise"
        )


def _visit_laplace(event: ev.LaplaceDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan) -> None:
    b = _noise(event, "noise_multiplier")
    if b > 0:
        _check_reach(event, "noise_multiplier", _shift(relation) / b)
    # replace-one: shift 2 (module docstring), i.e. the scale halved (exact in binary)
    _add(plan, ("laplace", b / 2.0 if relation == NeighboringRelation.REPLACE_ONE else b), count, b == 0)


def _visit_discrete_laplace(
    event: ev.DiscreteLaplaceDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    a, shift = _discrete_laplace(event, 2 if relation == NeighboringRelation.REPLACE_ONE else 1)
    _add(plan, ("discrete_laplace", a, shift), count, a == 0)


def _visit_mixture(
    event: ev.MixtureOfGaussiansDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    _require(
        event,
        relation,
        ADD_REMOVE,
        "`MixtureOfGaussiansDpEvent` (it defines the law of one record against "
        "its absence only; under `REPLACE_ONE` the coupling of the two records' "
        "sensitivities is not given)",
    )
    sigma = _noise(event, "standard_deviation")
    shifts, weights = _mixture(event)
    if max(shifts) > 0:
        if sigma > 0:
            _check_reach(event, "standard_deviation", gaussian_reach(max(shifts) / sigma))
        _add(plan, ("gaussian_mixture", sigma, shifts, weights), count, sigma == 0)


def _visit_randomized_response(
    event: ev.RandomizedResponseDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    _require(event, relation, _bounded("replace_one") + _bounded("replace_special"), "`RandomizedResponseDpEvent`")
    p = _probability(event, "noise_parameter")
    if p == 1.0:  # dp_accounting's rule (its PLD): strictly below 1 (p = 1 releases nothing)
        raise ValueError(f"RandomizedResponseDpEvent.noise_parameter must be below 1, got {event.noise_parameter!r}")
    k = _integer(event, "num_buckets", 1)
    if k > 1 and p < 1:
        name = "replace_one" if relation == NeighboringRelation.REPLACE_ONE else "replace_special"
        _add(plan, ("randomized_response", p, k, name), count, p == 0)


def _visit_truncated_gaussian(
    event: ev.TruncatedSubsampledGaussianDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    _require(event, relation, ADD_REMOVE, "`TruncatedSubsampledGaussianDpEvent`")
    q = _probability(event, "sampling_probability")
    n = _integer(event, "dataset_size", 0)
    b = _integer(event, "truncated_batch_size", 0)
    sigma = _noise(event, "noise_multiplier")
    if q > 0 and n > 0 and b > 0:
        if sigma > 0:
            _check_reach(event, "noise_multiplier", gaussian_reach(1.0 / sigma))
        _add(plan, ("truncated_gaussian", n, q, b, sigma), count, sigma == 0)


def _visit_balls_in_bins(
    event: BallsInBinsGaussianDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    _require(event, relation, ADD_REMOVE, "`BallsInBinsGaussianDpEvent`")
    steps = _integer(event, "num_steps", 1)
    sigma = _noise(event, "noise_multiplier")
    if sigma > 0:
        _check_reach(event, "noise_multiplier", gaussian_reach(1.0 / sigma))
    _add(plan, ("random_allocation_gaussian", steps, sigma), count, sigma == 0)


def _visit_zcdp(event: ev.ZCDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan) -> None:
    rho, xi = _nonnegative(event, "rho"), _nonnegative(event, "xi")
    if rho > 0 or xi > 0:
        _add(plan, Zcdp(rho, xi).spec(), count, False)


def _visit_discrete_gaussian(
    event: DiscreteGaussianDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    sigma, shift = _discrete_gaussian(event, 2 if relation == NeighboringRelation.REPLACE_ONE else 1)
    _add(plan, ("discrete_gaussian", sigma, shift), count, sigma == 0)


def _visit_eps_delta(
    event: EpsilonDeltaDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    eps, delta = _nonnegative(event, "epsilon"), _probability(event, "delta")
    _check_reach(event, "epsilon", eps, MAX_FINITE_REACH, "its exact atoms would leave the common loss lattice")
    _add(plan, ("eps_delta", eps, delta), count, delta == 1.0)  # (eps, 1)-DP: no guarantee


def _visit_shuffled(
    event: ShuffledBatchGaussianDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    _require(event, relation, REPLACE_ONE, "`ShuffledBatchGaussianDpEvent`")
    sigma = _noise(event, "noise_multiplier")
    n = _integer(event, "dataset_size", 1)
    b = _integer(event, "batch_size", 1)
    if b > n:
        raise ValueError(f"ShuffledBatchGaussianDpEvent.batch_size must be <= dataset_size, got {b} > {n}")
    if sigma > 0:
        _check_reach(event, "noise_multiplier", gaussian_reach(2.0 / sigma))
    _add(plan, ("shuffled_gaussian", sigma, b, n), count, sigma == 0)


def _visit_selection(
    event: ExponentialMechanismDpEvent | PermuteAndFlipDpEvent,
    count: int,
    relation: NeighboringRelation,
    plan: CompositionPlan,
) -> None:
    """Any relation (``pld.mechanisms.selection``)."""
    eps = _nonnegative(event, "epsilon")
    _check_reach(event, "epsilon", eps)
    if eps > 0:  # epsilon = 0 selects uniformly: nothing released
        name = "exponential_mechanism" if isinstance(event, ExponentialMechanismDpEvent) else "permute_and_flip"
        _add(plan, (name, eps), count, False)


def _add(plan: CompositionPlan, mechanism: Spec, count: int, non_private: bool) -> None:
    if count > MAX_RUNS:
        raise ParameterOutOfRange(
            f"SelfComposedDpEvent.count (times the `count` of compose) gives {count} runs of "
            f"{mechanism[0]}, more than 2^53: no certified bound is computed for it"
        )
    if non_private:
        plan.non_private = True
    else:
        plan.add(mechanism, count)


def _mixture(event: ev.MixtureOfGaussiansDpEvent) -> tuple[tuple[float, ...], tuple[float, ...]]:
    s = _validation.as_real_array(event.sensitivities, "MixtureOfGaussiansDpEvent.sensitivities").ravel()
    w = _validation.as_real_array(event.sampling_probs, "MixtureOfGaussiansDpEvent.sampling_probs").ravel()
    if s.size == 0 or s.shape != w.shape:
        raise ValueError(
            "MixtureOfGaussiansDpEvent.sensitivities and sampling_probs must be non-empty and of one length"
        )
    if not np.all(np.isfinite(s) & (s >= 0)):
        raise ValueError(f"MixtureOfGaussiansDpEvent.sensitivities must be finite and >= 0, got {s.tolist()}")
    if not np.all(np.isfinite(w) & (w >= 0)) or abs(w.sum() - 1.0) > 1e-9:
        raise ValueError(f"MixtureOfGaussiansDpEvent.sampling_probs must be >= 0 and sum to 1, got {w.tolist()}")
    if not np.any((s > 0) & (w > 0)):  # dp_accounting's rule, with its error type
        raise ValueError(
            "MixtureOfGaussiansDpEvent.sensitivities must have at least one positive value with a "
            f"positive sampling probability, got {s.tolist()} with {w.tolist()}"
        )
    return tuple(s.tolist()), tuple(w.tolist())


def _inner_plan(event: ev.DpEvent, relation: NeighboringRelation) -> CompositionPlan:
    """The plan of one run of a sampled event's inner event; a non-private inner becomes ``NON_PRIVATE``."""
    inner = plan_for(event, 1, relation)
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


def _poisson(event: ev.PoissonSampledDpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan) -> None:
    q = _probability(event, "sampling_probability")
    inner = event.event
    _refuse_sampled_zcdp(event, relation)
    if relation not in ADD_REMOVE:
        _poisson_replace_one(event, q, count, relation, plan)
        return
    if q == 0:
        plan_for(inner, 1, relation)  # the inner event must still be supported (and valid)
        return
    if q == 1:
        _visit(inner, count, relation, plan)
        return
    if plan_for(inner, 1, relation).non_private:  # released with probability q: delta = q, exactly
        plan.add(("poisson_pair", q, NON_PRIVATE), count)
        return
    case = _nearest_case(_POISSON_SAMPLED, inner) or _poisson_generic
    case(event, q, count, relation, plan)


def _poisson_gaussian(
    event: ev.PoissonSampledDpEvent, q: float, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    inner = event.event
    sigma = _noise(inner, "noise_multiplier")
    if sigma > 0:
        _check_reach(inner, "noise_multiplier", gaussian_reach(1.0 / sigma))
    _add(plan, ("poisson_gaussian", sigma, q), count, sigma == 0)


def _poisson_laplace(
    event: ev.PoissonSampledDpEvent, q: float, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    inner = event.event
    b = _noise(inner, "noise_multiplier")
    if b > 0:
        _check_reach(inner, "noise_multiplier", 1.0 / b)
    _add(plan, ("laplace_mixture", b, (0.0, 1.0), (1.0 - q, q)), count, b == 0)


def _poisson_discrete_laplace(
    event: ev.PoissonSampledDpEvent, q: float, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    a, s = _discrete_laplace(cast(ev.DiscreteLaplaceDpEvent, event.event), 1)
    _add(plan, ("poisson_discrete_laplace", a, s, q), count, a == 0)


def _poisson_discrete_gaussian(
    event: ev.PoissonSampledDpEvent, q: float, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    inner = cast(DiscreteGaussianDpEvent, event.event)
    sigma, shift = _discrete_gaussian(inner, 1)
    if sigma > 0:
        _check_reach(inner, "sigma", dg.discrete_gaussian_top_loss(sigma, shift))  # on the loss grid
    _add(plan, ("poisson_discrete_gaussian", sigma, shift, q), count, sigma == 0)


def _poisson_mixture(
    event: ev.PoissonSampledDpEvent, q: float, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    inner = cast(ev.MixtureOfGaussiansDpEvent, event.event)
    sigma = _noise(inner, "standard_deviation")
    shifts, weights = _mixture(inner)
    if max(shifts) > 0:
        if sigma > 0:
            _check_reach(inner, "standard_deviation", gaussian_reach(max(shifts) / sigma))
        _add(
            plan,
            ("gaussian_mixture", sigma, (0.0, *shifts), (1.0 - q, *(q * w for w in weights))),
            count,
            sigma == 0,
        )


def _poisson_replace_one(
    event: ev.PoissonSampledDpEvent, q: float, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    """Poisson sampling under replace-one: Gaussians only (``pld.sampling.poisson_replace_one``, folded into one of
    add/remove radius half the replace-one one); a non-private inner is exactly the pair of (0, q)-DP
    (the slot is drawn with probability q, the rest of the batch alike on both sides)."""
    inner = plan_for(event.event, 1, relation)
    if q == 0 or (inner.empty and not inner.non_private):
        return
    if q == 1:
        _visit(event.event, count, relation, plan)
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
    _check_inner_reach(event, relation, 1)
    leaf = event.event  # a lone Gaussian keeps its own sigma, exactly; else the folded radius
    sigma = float(leaf.noise_multiplier) if isinstance(leaf, ev.GaussianDpEvent) else 2.0 / math.sqrt(inner.gaussian_r2)
    _add(plan, ("poisson_replace_one_gaussian", sigma, q), count, False)


def _event_reach(
    event: ev.DpEvent, relation: NeighboringRelation, group: float = 1.0
) -> tuple[float, ev.DpEvent | None, str]:
    """How far one run's privacy loss can reach (an over-estimate: reaches add over composition), and
    the mechanism event and field contributing the most (None if nothing does), for a group of
    ``group`` copies of the record (each shift times ``group``: quadratic in it for the Gaussians,
    gaussian_reach(group r), linear for the others).  Called on validated events; a zero noise
    (non-private) contributes nothing here (the sampled pair is exact)."""
    case = _nearest_case(_REACHES, event)
    return _NO_REACH if case is None else case(event, relation, group)


_Reach = tuple[float, "ev.DpEvent | None", str]
_NO_REACH: _Reach = (0.0, None, "")


def _gaussian_reach(event: ev.GaussianDpEvent, relation: NeighboringRelation, group: float) -> _Reach:
    if not event.noise_multiplier > 0:
        return _NO_REACH
    return gaussian_reach(group * _shift(relation) / float(event.noise_multiplier)), event, "noise_multiplier"


def _laplace_reach(event: ev.LaplaceDpEvent, relation: NeighboringRelation, group: float) -> _Reach:
    if not event.noise_multiplier > 0:
        return _NO_REACH
    return group * _shift(relation) / float(event.noise_multiplier), event, "noise_multiplier"


def _discrete_laplace_reach(event: ev.DiscreteLaplaceDpEvent, relation: NeighboringRelation, group: float) -> _Reach:
    copies = 2 if relation == NeighboringRelation.REPLACE_ONE else 1
    return group * float(event.noise_parameter) * event.sensitivity * copies, event, "noise_parameter"


def _mixture_reach(event: ev.MixtureOfGaussiansDpEvent, relation: NeighboringRelation, group: float) -> _Reach:
    if not event.standard_deviation > 0:
        return _NO_REACH
    return (
        gaussian_reach(group * max(_mixture(event)[0]) / float(event.standard_deviation)),
        event,
        "standard_deviation",
    )


def _truncated_gaussian_reach(
    event: ev.TruncatedSubsampledGaussianDpEvent, relation: NeighboringRelation, group: float
) -> _Reach:
    if not event.noise_multiplier > 0:
        return _NO_REACH
    return gaussian_reach(group / float(event.noise_multiplier)), event, "noise_multiplier"


def _discrete_gaussian_reach(event: DiscreteGaussianDpEvent, relation: NeighboringRelation, group: float) -> _Reach:
    if not event.sigma > 0:
        return _NO_REACH
    shift = event.sensitivity * (2 if relation == NeighboringRelation.REPLACE_ONE else 1)
    return group * dg.discrete_gaussian_top_loss(event.sigma, shift), event, "sigma"


def _epsilon_reach(
    event: EpsilonDeltaDpEvent | ExponentialMechanismDpEvent | PermuteAndFlipDpEvent,
    relation: NeighboringRelation,
    group: float,
) -> _Reach:
    return group * float(event.epsilon), event, "epsilon"


def _randomized_response_reach(
    event: ev.RandomizedResponseDpEvent, relation: NeighboringRelation, group: float
) -> _Reach:
    if not 0 < event.noise_parameter < 1:
        return _NO_REACH
    p, k = float(event.noise_parameter), int(event.num_buckets)
    return group * math.log1p((1.0 - p) * k / p), event, "noise_parameter"


def _sampled_reach(
    event: ev.PoissonSampledDpEvent | ev.SampledWithoutReplacementDpEvent, relation: NeighboringRelation, group: float
) -> _Reach:
    return _event_reach(event.event, relation, group)


def _with_replacement_reach(
    event: ev.SampledWithReplacementDpEvent, relation: NeighboringRelation, group: float
) -> _Reach:
    return _event_reach(event.event, relation, group * _copies(event))


def _self_composed_reach(event: ev.SelfComposedDpEvent, relation: NeighboringRelation, group: float) -> _Reach:
    reach, leaf, name = _event_reach(event.event, relation, group)
    return reach * event.count, leaf, name


def _composed_reach(event: ev.ComposedDpEvent, relation: NeighboringRelation, group: float) -> _Reach:
    parts = [_event_reach(e, relation, group) for e in event.events]
    top = max(parts, key=lambda part: part[0], default=_NO_REACH)
    return sum(part[0] for part in parts), top[1], top[2]


def _copies(event: SampledEvent) -> int:
    """c_max: the most copies of the record a batch of K draws from n holds, short of the binomial
    tail (``COPY_COUNT_CUT``) whose mass the with-replacement analysis adds to delta (at most 2
    above ``copy_count_weights``'s); more than ``MAX_COPIES`` is refused (one group plan per count)."""
    from scipy import stats  # lazy: scipy.stats costs ~0.3 s of import, off the way to a first answer

    n, k = int(event.source_dataset_size), int(event.sample_size)
    copies = k if n == 1 else min(k, int(stats.binom.isf(COPY_COUNT_CUT, k, 1.0 / n)) + 2)
    if copies > MAX_COPIES:
        raise ParameterOutOfRange(
            f"SampledWithReplacementDpEvent.sample_size = {k} draws from source_dataset_size = {n} records hold up "
            f"to {copies} copies of one record (more than {MAX_COPIES}, one group analysis each): no certified "
            f"bound is computed; sample fewer records per batch"
        )
    return copies


def _largest_sensitivity(event: ev.DpEvent) -> tuple[int, ev.DpEvent | None]:
    """The largest discrete Laplace sensitivity inside an event, and that event (None if it has none)."""
    # Not _event_reach's walk: a maximum of one leaf field (it sizes a group pair's atoms), not a sum of reaches.
    if isinstance(event, ev.DiscreteLaplaceDpEvent):
        return int(event.sensitivity), event
    inner = getattr(event, "event", None)
    parts = list(event.events) if isinstance(event, ev.ComposedDpEvent) else [] if inner is None else [inner]
    return max((_largest_sensitivity(e) for e in parts), key=lambda t: t[0], default=(0, None))


def _check_group_atoms(inner: ev.DpEvent, copies: int) -> None:
    """Refuse a with-replacement group whose discrete Laplace pair would hold more than
    ``MAX_GROUP_ATOMS`` outcomes (copies x sensitivity: its tables grow with that product, to
    gigabytes at 20 000 x 8), naming the sensitivity."""
    s, leaf = _largest_sensitivity(inner)
    if leaf is not None and s * copies > MAX_GROUP_ATOMS:
        raise ParameterOutOfRange(
            f"DiscreteLaplaceDpEvent.sensitivity = {s} drawn up to {copies} times in one batch gives a group pair of "
            f"{s * copies} outcomes (more than {MAX_GROUP_ATOMS}): no certified bound is computed in bounded memory; "
            "use a smaller sensitivity (rescale the query) or sample fewer records per batch"
        )


def _check_inner_reach(
    event: ev.PoissonSampledDpEvent | SampledEvent,
    relation: NeighboringRelation,
    copies: int,
    limit: float = MAX_LOSS_REACH,
    why: str = "the loss grid would need tens of millions of points",
) -> None:
    """Refuse a sampled event whose inner loss, times ``copies`` of the record, reaches beyond
    ``limit`` (``MAX_LOSS_REACH`` where it folds into one grid mechanism: Gaussians only, or a group
    of every draw; ``OVERFLOW_REACH`` for the group analyses of any inner), naming the inner field."""
    reach, leaf, name = _event_reach(event.event, relation, copies)
    if leaf is not None:
        _check_reach(
            leaf, name, reach, limit, f"{copies} cop{'y' if copies == 1 else 'ies'} of the record in one batch: {why}"
        )


def _poisson_generic(
    event: ev.PoissonSampledDpEvent, q: float, count: int, relation: NeighboringRelation, plan: CompositionPlan
) -> None:
    """Any other inner event: its plan's remove/add curves through ``pld.sampling.subsampled_pair`` (exact
    atoms when the inner is one finite pair, a Gaussian when it folds into one)."""
    inner = _inner_plan(event.event, relation)
    if inner.empty:
        return
    finite = _single_finite(inner)
    if finite is not None:
        plan.add(("poisson_pair", q, finite), count)
    elif not inner.counts:  # Gaussians only: one Gaussian of the folded radius (add/remove: shift 1)
        _check_inner_reach(event, relation, 1)
        plan.add(("poisson_gaussian", 1.0 / math.sqrt(inner.gaussian_r2), q), count)
    else:
        plan.add(("poisson_generic", q, inner.key()), count)


def _fixed_size(event: SampledEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan) -> None:
    without = isinstance(event, ev.SampledWithoutReplacementDpEvent)
    n, m = _check_fixed_size(event, relation, without)
    inner = plan_for(event.event, 1, relation)
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
        # Gaussians only (replace-one radius r = 2 / sigma per Gaussian): one Gaussian of the folded radius.
        _check_inner_reach(event, relation, 1 if without else _copies(event))
        name = "without_replacement_gaussian" if without else "with_replacement_gaussian"
        plan.add((name, 2.0 / math.sqrt(inner.gaussian_r2), m, n), count)
    elif without:
        _without_replacement_generic(m, n, inner, count, plan)
    else:
        _with_replacement_generic(cast(ev.SampledWithReplacementDpEvent, event), m, n, inner, count, relation, plan)


def _check_fixed_size(event: SampledEvent, relation: NeighboringRelation, without: bool) -> tuple[int, int]:
    """(n, m) of a fixed-size sample, checked: replace-one only, no zCDP inside, m <= n without replacement."""
    kind = "SampledWithoutReplacementDpEvent" if without else "SampledWithReplacementDpEvent"
    _require(event, relation, _bounded("replace_one"), f"`{kind}`")
    _refuse_sampled_zcdp(event, relation)
    n = _integer(event, "source_dataset_size", 1)
    m = _integer(event, "sample_size", 0)
    if without and m > n:
        raise ValueError(f"{kind}.sample_size must be <= source_dataset_size, got {m} > {n}")
    return n, m


def _check_drawn_below_one(n: int, m: int, inner: CompositionPlan) -> None:
    """With replacement around a mechanism other than a Gaussian (``pld.sampling.subsampled_pair``), the copy-count
    mixture needs the chance the record is drawn below 1 (b_0 = (1 - 1/n)^m >= 2^-53)."""
    if n > 1 and inner.counts and not inner.non_private and -math.expm1(m * math.log1p(-1.0 / n)) >= 1.0:
        raise ParameterOutOfRange(
            f"SampledWithReplacementDpEvent.sample_size = {m} draws one of source_dataset_size = {n} records "
            f"with probability 1 - (1 - 1/n)^m, which rounds to 1: no certified bound is computed; use a larger "
            f"source_dataset_size or a smaller sample_size"
        )


def _without_replacement_generic(m: int, n: int, inner: CompositionPlan, count: int, plan: CompositionPlan) -> None:
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
        _check_inner_reach(event, relation, _copies(event))
        plan.merge(group_plan(inner, m, m).scaled(count))
        return
    # the record is drawn c ~ Binom(m, 1/n) times: the group-c plans (``group_of_records``) mixed
    copies = _copies(event)  # refuses more than MAX_COPIES group analyses
    _check_group_atoms(event.event, copies)
    _check_inner_reach(event, relation, copies, OVERFLOW_REACH, "the group's losses overflow double precision")
    plan.add(("with_replacement_generic", m, n, inner.key()), count)


# Each dp_accounting event type's case (``case_of``: a subclass takes its nearest base's).
_VISITS: dict[type, _Case] = {
    ev.NoOpDpEvent: _visit_noop,
    ev.NonPrivateDpEvent: _visit_non_private,
    ev.SelfComposedDpEvent: _visit_self_composed,
    ev.ComposedDpEvent: _visit_composed,
    ev.GaussianDpEvent: _visit_gaussian,
    ev.LaplaceDpEvent: _visit_laplace,
    ev.DiscreteLaplaceDpEvent: _visit_discrete_laplace,
    ev.MixtureOfGaussiansDpEvent: _visit_mixture,
    ev.RandomizedResponseDpEvent: _visit_randomized_response,
    ev.PoissonSampledDpEvent: _poisson,
    ev.SampledWithoutReplacementDpEvent: _fixed_size,
    ev.SampledWithReplacementDpEvent: _fixed_size,
    ev.TruncatedSubsampledGaussianDpEvent: _visit_truncated_gaussian,
    BallsInBinsGaussianDpEvent: _visit_balls_in_bins,
    ev.ZCDpEvent: _visit_zcdp,
    DiscreteGaussianDpEvent: _visit_discrete_gaussian,
    EpsilonDeltaDpEvent: _visit_eps_delta,
    ShuffledBatchGaussianDpEvent: _visit_shuffled,
    ExponentialMechanismDpEvent: _visit_selection,
    PermuteAndFlipDpEvent: _visit_selection,
}

# Poisson sampling (add/remove) of these inner events: a specialised pair; any other inner, ``_poisson_generic``.
_POISSON_SAMPLED: dict[type, _Case] = {
    ev.GaussianDpEvent: _poisson_gaussian,
    ev.LaplaceDpEvent: _poisson_laplace,
    ev.DiscreteLaplaceDpEvent: _poisson_discrete_laplace,
    DiscreteGaussianDpEvent: _poisson_discrete_gaussian,
    ev.MixtureOfGaussiansDpEvent: _poisson_mixture,
}

# How far one run's loss reaches (``_event_reach``); an event absent here reaches nothing.
_REACHES: dict[type, _Case] = {
    ev.GaussianDpEvent: _gaussian_reach,
    ev.LaplaceDpEvent: _laplace_reach,
    ev.DiscreteLaplaceDpEvent: _discrete_laplace_reach,
    ev.MixtureOfGaussiansDpEvent: _mixture_reach,
    ev.TruncatedSubsampledGaussianDpEvent: _truncated_gaussian_reach,
    DiscreteGaussianDpEvent: _discrete_gaussian_reach,
    EpsilonDeltaDpEvent: _epsilon_reach,
    ExponentialMechanismDpEvent: _epsilon_reach,
    PermuteAndFlipDpEvent: _epsilon_reach,
    ev.RandomizedResponseDpEvent: _randomized_response_reach,
    ev.PoissonSampledDpEvent: _sampled_reach,
    ev.SampledWithoutReplacementDpEvent: _sampled_reach,
    ev.SampledWithReplacementDpEvent: _with_replacement_reach,
    ev.SelfComposedDpEvent: _self_composed_reach,
    ev.ComposedDpEvent: _composed_reach,
}
