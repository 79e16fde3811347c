"""dp_accounting's own PLD for an event tree, pessimistic or optimistic, and seeded random event trees.

``their_pld`` follows dp_accounting's ``PLDAccountant._maybe_compose`` event by event, with the
``pessimistic_estimate`` flag its accountant does not expose, so the tests can check our bracket
against both of their estimates.  ``random_tree`` draws trees of depth <= 3 mixing composition,
self-composition, Poisson sampling and mechanisms, with parameters where dp_accounting's PLD
accountant takes well under a second.
"""

from __future__ import annotations

import math

import numpy as np
from dp_accounting import dp_event as E
from dp_accounting.pld import privacy_loss_distribution as P


def their_pld(event, count: int, pessimistic: bool, h: float = 1e-4):
    """dp_accounting's PLD of ``count`` runs of ``event`` (add/remove), or None for no privacy loss."""
    if isinstance(event, E.NoOpDpEvent):
        return None
    if isinstance(event, E.SelfComposedDpEvent):
        return their_pld(event.event, count * event.count, pessimistic, h)
    if isinstance(event, E.ComposedDpEvent):
        out = None
        for e in event.events:
            part = their_pld(e, count, pessimistic, h)
            out = part if out is None else (out if part is None else out.compose(part))
        return out
    if isinstance(event, E.GaussianDpEvent):
        return P.from_gaussian_mechanism(
            event.noise_multiplier / math.sqrt(count),
            pessimistic_estimate=pessimistic,
            value_discretization_interval=h,
        )
    if isinstance(event, E.LaplaceDpEvent):
        return P.from_laplace_mechanism(
            event.noise_multiplier,
            pessimistic_estimate=pessimistic,
            value_discretization_interval=h,
        ).self_compose(count)
    if isinstance(event, E.DiscreteLaplaceDpEvent):
        return P.from_discrete_laplace_mechanism(
            event.noise_parameter,
            sensitivity=event.sensitivity,
            pessimistic_estimate=pessimistic,
            value_discretization_interval=h,
        ).self_compose(count)
    if isinstance(event, E.MixtureOfGaussiansDpEvent):
        return P.from_mixture_gaussian_mechanism(
            event.standard_deviation,
            event.sensitivities,
            event.sampling_probs,
            pessimistic_estimate=pessimistic,
            value_discretization_interval=h,
        ).self_compose(count)
    if isinstance(event, E.PoissonSampledDpEvent):
        q, inner = event.sampling_probability, event.event
        if isinstance(inner, E.GaussianDpEvent):
            return P.from_gaussian_mechanism(
                inner.noise_multiplier,
                sampling_prob=q,
                pessimistic_estimate=pessimistic,
                value_discretization_interval=h,
            ).self_compose(count)
        return P.from_laplace_mechanism(
            inner.noise_multiplier,
            sampling_prob=q,
            pessimistic_estimate=pessimistic,
            value_discretization_interval=h,
        ).self_compose(count)
    raise NotImplementedError(event)


def their_epsilon(event, delta: float, h: float = 1e-4) -> tuple[float, float]:
    """(optimistic, pessimistic) epsilon of dp_accounting's PLD at ``delta``."""
    out = []
    for pessimistic in (False, True):
        pld = their_pld(event, 1, pessimistic, h)
        out.append(0.0 if pld is None else pld.get_epsilon_for_delta(delta))
    return out[0], out[1]


def _leaf(rng: np.random.Generator):
    kind = rng.integers(6)
    if kind == 0:
        return E.GaussianDpEvent(float(rng.uniform(0.8, 5.0)))
    if kind in (1, 2):
        return E.PoissonSampledDpEvent(
            float(10 ** rng.uniform(-3, -0.7)), E.GaussianDpEvent(float(rng.uniform(0.7, 3.0)))
        )
    if kind == 3:
        return E.LaplaceDpEvent(float(rng.uniform(2.0, 20.0)))
    if kind == 4:
        return E.DiscreteLaplaceDpEvent(float(rng.uniform(0.05, 0.5)), int(rng.integers(1, 3)))
    return E.PoissonSampledDpEvent(
        float(rng.uniform(0.01, 0.3)), E.LaplaceDpEvent(float(rng.uniform(1.0, 5.0)))
    )


def random_tree(rng: np.random.Generator, depth: int = 3):
    """A random event tree of depth <= ``depth`` (a leaf is depth 1)."""
    if depth <= 1 or rng.random() < 0.3:
        return _leaf(rng)
    if rng.random() < 0.5:
        return E.SelfComposedDpEvent(random_tree(rng, depth - 1), int(rng.integers(2, 30)))
    return E.ComposedDpEvent([random_tree(rng, depth - 1) for _ in range(int(rng.integers(2, 4)))])
