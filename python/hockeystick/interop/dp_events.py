"""dp_accounting events -> a hockeystick ``CompositionPlan`` (which mechanisms, how many times).

Each supported event maps to a mechanism with a proved dominating pair for the neighbouring
relation asked for; anything else raises ``Unsupported`` (the accountant turns it into
dp_accounting's ``UnsupportedEventError``), never a number.  Bad parameter values raise ValueError
naming the field and the rule.

| event | relations | mechanism |
|---|---|---|
| Gaussian(sigma) | add/remove, replace-special: shift 1; replace-one: shift 2 | exact Gaussian radius |
| Laplace(b) | add/remove, replace-special | ``pld.laplace`` |
| DiscreteLaplace(a, s) | add/remove, replace-special | ``pld.discrete_laplace.discrete_laplace`` |
| MixtureOfGaussians(sigma, s, p) | add/remove, replace-special | ``pld.gaussian_mixture`` |
| RandomizedResponse(p, k) | replace-one, replace-special | ``pld.randomized_response`` |
| PoissonSampled(q, Gaussian / Laplace / MoG / DiscreteLaplace) | add/remove, replace-special | Zhu, Dong, Wang 2022, Thm 11 (``pld.subsampling`` for the finite pair) |
| TruncatedSubsampledGaussian(n, q, B, sigma) | add/remove, replace-special | ``pld.truncated_subsampling`` |
| SampledWithoutReplacement(n, m, Gaussian) | replace-one | ``pld.fixed_size_subsampled_gaussian`` |
| SampledWithReplacement(n, K, Gaussian) | replace-one | ``pld.with_replacement_subsampled_gaussian`` |
| SelfComposed, Composed, NoOp, NonPrivate | any | counts, sums, nothing, epsilon = inf |

Zero noise is non-private (epsilon = inf); a zero sampling rate, a zero sample or k = 1 buckets
release nothing.  Poisson sampling under replace-one is refused: the pair dp_accounting uses there,
(1-q) N(0) + q N(1) vs (1-q) N(0) + q N(-1), is not proved to dominate here
(docs/paper-003-errata.md explains why its fixed-size analogue fails).
"""

from __future__ import annotations

import math

import numpy as np
from dp_accounting import dp_event as ev
from dp_accounting.privacy_accountant import NeighboringRelation

from .plan import CompositionPlan

ADD_REMOVE = (NeighboringRelation.ADD_OR_REMOVE_ONE, NeighboringRelation.REPLACE_SPECIAL)


class Unsupported(Exception):
    """An event (or relation) with no certified analysis here: carries the offending sub-event."""

    def __init__(self, event: ev.DpEvent, message: str):
        super().__init__(message)
        self.event = event
        self.message = message


def _nonnegative(event: ev.DpEvent, name: str) -> float:
    v = getattr(event, name)
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{type(event).__name__}.{name} must be a real number, got {v!r}") from None
    if not (x >= 0 and math.isfinite(x)):
        raise ValueError(f"{type(event).__name__}.{name} must be finite and >= 0, got {v!r}")
    return x


def _probability(event: ev.DpEvent, name: str) -> float:
    x = _nonnegative(event, name)
    if x > 1:
        raise ValueError(f"{type(event).__name__}.{name} must lie in [0, 1], got {getattr(event, name)!r}")
    return x


def _integer(event: ev.DpEvent, name: str, minimum: int) -> int:
    v = getattr(event, name)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum:
        raise ValueError(f"{type(event).__name__}.{name} must be an integer >= {minimum}, got {v!r}")
    return int(v)


def check_count(count: int) -> int:
    """dp_accounting's rule for composition counts, with its message."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"`count` must be positive. Found {count}.")
    return int(count)


def _require(event: ev.DpEvent, relation: NeighboringRelation, allowed: tuple, what: str) -> None:
    if relation not in allowed:
        names = " or ".join(f"`{r.name}`" for r in allowed)
        raise Unsupported(event, f"neighboring_relation must be {names} for {what}. Found {relation}.")


def plan_for(event: ev.DpEvent, count: int, relation: NeighboringRelation) -> CompositionPlan:
    """The plan of ``count`` runs of ``event`` (a new plan; nothing is modified)."""
    plan = CompositionPlan()
    _visit(event, count, relation, plan)
    return plan


def _visit(event: ev.DpEvent, count: int, relation: NeighboringRelation, plan: CompositionPlan) -> None:
    if isinstance(event, ev.NoOpDpEvent):
        return
    if isinstance(event, ev.NonPrivateDpEvent):
        plan.non_private = True
        return
    if isinstance(event, ev.SelfComposedDpEvent):
        _visit(event.event, count * check_count(event.count), relation, plan)
        return
    if isinstance(event, ev.ComposedDpEvent):
        for e in event.events:
            _visit(e, count, relation, plan)
        return
    if isinstance(event, ev.GaussianDpEvent):
        sigma = _nonnegative(event, "noise_multiplier")
        if sigma == 0:
            plan.non_private = True
        else:
            shift = 2.0 if relation == NeighboringRelation.REPLACE_ONE else 1.0
            plan.add_gaussian(shift / sigma, count)
        return
    if isinstance(event, ev.LaplaceDpEvent):
        _require(event, relation, ADD_REMOVE, "`LaplaceDpEvent`")
        b = _nonnegative(event, "noise_multiplier")
        _add(plan, ("laplace", b), count, b == 0)
        return
    if isinstance(event, ev.DiscreteLaplaceDpEvent):
        _require(event, relation, ADD_REMOVE, "`DiscreteLaplaceDpEvent`")
        a = _nonnegative(event, "noise_parameter")
        s = _integer(event, "sensitivity", 0)
        if s > 0:
            _add(plan, ("discrete_laplace", a, s), count, a == 0)
        return
    if isinstance(event, ev.MixtureOfGaussiansDpEvent):
        _require(event, relation, ADD_REMOVE, "`MixtureOfGaussiansDpEvent`")
        sigma = _nonnegative(event, "standard_deviation")
        shifts, weights = _mixture(event)
        if max(shifts) > 0:
            _add(plan, ("gaussian_mixture", sigma, shifts, weights), count, sigma == 0)
        return
    if isinstance(event, ev.RandomizedResponseDpEvent):
        _require(event, relation, (NeighboringRelation.REPLACE_ONE, NeighboringRelation.REPLACE_SPECIAL),
                 "`RandomizedResponseDpEvent`")
        p = _probability(event, "noise_parameter")
        k = _integer(event, "num_buckets", 1)
        if k > 1 and p < 1:
            name = "replace_one" if relation == NeighboringRelation.REPLACE_ONE else "replace_special"
            _add(plan, ("randomized_response", p, k, name), count, p == 0)
        return
    if isinstance(event, ev.PoissonSampledDpEvent):
        _poisson(event, count, relation, plan)
        return
    if isinstance(event, (ev.SampledWithoutReplacementDpEvent, ev.SampledWithReplacementDpEvent)):
        _fixed_size(event, count, relation, plan)
        return
    if isinstance(event, ev.TruncatedSubsampledGaussianDpEvent):
        _require(event, relation, ADD_REMOVE, "`TruncatedSubsampledGaussianDpEvent`")
        q = _probability(event, "sampling_probability")
        n = _integer(event, "dataset_size", 0)
        b = _integer(event, "truncated_batch_size", 0)
        sigma = _nonnegative(event, "noise_multiplier")
        if q > 0 and n > 0 and b > 0:
            _add(plan, ("truncated_gaussian", n, q, b, sigma), count, sigma == 0)
        return
    raise Unsupported(event, "Unsupported event.")


def _add(plan: CompositionPlan, mechanism: tuple, count: int, non_private: bool) -> None:
    if non_private:
        plan.non_private = True
    else:
        plan.add(mechanism, count)


def _mixture(event: ev.MixtureOfGaussiansDpEvent) -> tuple[tuple[float, ...], tuple[float, ...]]:
    s = np.asarray(event.sensitivities, dtype=np.float64).ravel()
    w = np.asarray(event.sampling_probs, dtype=np.float64).ravel()
    if s.size == 0 or s.shape != w.shape:
        raise ValueError("MixtureOfGaussiansDpEvent.sensitivities and sampling_probs must be non-empty and of one length")
    if not np.all(np.isfinite(s) & (s >= 0)):
        raise ValueError(f"MixtureOfGaussiansDpEvent.sensitivities must be finite and >= 0, got {s.tolist()}")
    if not np.all(np.isfinite(w) & (w >= 0)) or abs(w.sum() - 1.0) > 1e-9:
        raise ValueError(f"MixtureOfGaussiansDpEvent.sampling_probs must be >= 0 and sum to 1, got {w.tolist()}")
    return tuple(s.tolist()), tuple(w.tolist())


def _poisson(event: ev.PoissonSampledDpEvent, count: int, relation: NeighboringRelation,
             plan: CompositionPlan) -> None:
    q = _probability(event, "sampling_probability")
    inner = event.event
    if relation == NeighboringRelation.REPLACE_ONE:
        raise Unsupported(event, "Poisson sampling under `REPLACE_ONE` has no proved dominating pair here; "
                                 "use `ADD_OR_REMOVE_ONE` (or a fixed-size sample under `REPLACE_ONE`).")
    if not isinstance(inner, (ev.GaussianDpEvent, ev.LaplaceDpEvent, ev.MixtureOfGaussiansDpEvent,
                              ev.DiscreteLaplaceDpEvent)):
        raise Unsupported(event, "Subevent of `PoissonSampledDpEvent` must be a `GaussianDpEvent`, `LaplaceDpEvent`, "
                                 f"`MixtureOfGaussiansDpEvent` or `DiscreteLaplaceDpEvent`. Found {inner}.")
    if q == 0:
        _visit(ev.NoOpDpEvent(), count, relation, plan)
        return
    if q == 1:
        _visit(inner, count, relation, plan)
        return
    if isinstance(inner, ev.GaussianDpEvent):
        sigma = _nonnegative(inner, "noise_multiplier")
        _add(plan, ("poisson_gaussian", sigma, q), count, sigma == 0)
    elif isinstance(inner, ev.LaplaceDpEvent):
        b = _nonnegative(inner, "noise_multiplier")
        _add(plan, ("laplace_mixture", b, (0.0, 1.0), (1.0 - q, q)), count, b == 0)
    elif isinstance(inner, ev.DiscreteLaplaceDpEvent):
        a = _nonnegative(inner, "noise_parameter")
        s = _integer(inner, "sensitivity", 0)
        if s > 0:
            _add(plan, ("poisson_discrete_laplace", a, s, q), count, a == 0)
    else:
        sigma = _nonnegative(inner, "standard_deviation")
        shifts, weights = _mixture(inner)
        if max(shifts) > 0:
            _add(plan, ("gaussian_mixture", sigma, (0.0, *shifts), (1.0 - q, *(q * w for w in weights))),
                 count, sigma == 0)


def _fixed_size(event, count: int, relation: NeighboringRelation, plan: CompositionPlan) -> None:
    without = isinstance(event, ev.SampledWithoutReplacementDpEvent)
    kind = "SampledWithoutReplacementDpEvent" if without else "SampledWithReplacementDpEvent"
    _require(event, relation, (NeighboringRelation.REPLACE_ONE,), f"`{kind}`")
    if not isinstance(event.event, ev.GaussianDpEvent):
        raise Unsupported(event, f"Subevent of `{kind}` must be a `GaussianDpEvent`. Found {event.event}.")
    n = _integer(event, "source_dataset_size", 1)
    m = _integer(event, "sample_size", 0)
    if without and m > n:
        raise ValueError(f"{kind}.sample_size must be <= source_dataset_size, got {m} > {n}")
    sigma = _nonnegative(event.event, "noise_multiplier")
    if m == 0:
        return
    name = "without_replacement_gaussian" if without else "with_replacement_gaussian"
    _add(plan, (name, sigma, m, n), count, sigma == 0)
