"""The certified curves a plan's profile and its nested mechanisms share (``plan``): the folded
Gaussian's side, the worst over neighbouring directions, where a curve turns flat, and the
realizable lower side of sampling with replacement."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...numerics.certified_theta import theta_side_at_magnitude
from ..mechanisms.constructors import Laplace
from ..mechanisms.discrete_laplace import DiscreteLaplace
from ..mechanisms.mechanism import Mechanism, Spec
from ..sampling.with_replacement_realizable import (
    Sides,
    discrete_laplace_sides,
    laplace_sides,
    pointwise_max,
)
from .composition_plan import UNIT_ROUNDOFF, CompositionPlan

# A curve within this of its value at the top loss is taken as flat (the grid stops there): a delta
# error of 1e-18 is below any reported digit, and the conservative top losses would make the grid
# needlessly long.
FLAT = 1e-18


def gaussian_side(r: float, eps: np.ndarray, upper: bool, threads: int | None = None) -> np.ndarray:
    """delta(eps) of the Gaussian pair of radius r at any real eps, on one certified side (r the
    radius rounded outward to that side): theta(r, eps) rounded outward and clipped to [0, 1]
    (``certified_theta.theta_side_at_magnitude``) at eps >= 0, and below 0 its mirror 1 - e^eps +
    e^eps theta(r, -eps) (the pair is symmetric), whose round-off (expm1, exp, a product, a sum,
    each within 2 u on non-negative terms) the factor 1 -+ 16 u covers.  ``threads``: theta's
    (None: the core's choice)."""
    eps = np.asarray(eps, dtype=np.float64)
    out, negative = theta_side_at_magnitude(r, eps, upper, threads=threads)  # a fresh array
    if negative:  # the mirror, element by element, at the negative eps alone
        below = ~(eps >= 0)
        e, tb = eps[below], out[below]
        mirrored = (-np.expm1(e) + np.exp(e) * tb) * (
            1.0 + 16.0 * UNIT_ROUNDOFF if upper else 1.0 - 16.0 * UNIT_ROUNDOFF
        )
        out[below] = np.clip(mirrored, 0.0, 1.0)
    return out


def worst(curves: list[Callable[[np.ndarray], np.ndarray]]) -> Callable[[np.ndarray], np.ndarray]:
    """The pointwise maximum of per-direction curves (one side: a bound for every direction)."""
    if len(curves) == 1:
        return curves[0]
    if len(curves) == 2:  # the usual remove / add pair: one ufunc call, no stacked copy
        first, second = curves
        return lambda eps: np.maximum(first(eps), second(eps))
    return lambda eps: np.max([f(eps) for f in curves], axis=0)


def flat_from(curve: Callable[[np.ndarray], np.ndarray], top: float) -> float:
    """The first of 4096 points in (0, top] where the non-increasing ``curve`` is within FLAT of its
    value at ``top``: a grid ending there loses at most FLAT of delta (the rest goes to loss
    +infinity on the upper side); the conservative top losses would make the grid needlessly
    long."""
    x = np.linspace(0.0, top, 4097)[1:]
    values = np.asarray(curve(x), dtype=np.float64)
    return float(x[np.argmax(values <= values[-1] + FLAT)])


def realizable_lower_sides(
    inner: CompositionPlan,
    mechanisms: dict[Spec, Mechanism],
    weights: np.ndarray,
    tail: float,
    h: float,
) -> (
    list[tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray] | None]]
    | None
):
    """The certified lower side of sampling with replacement of ``inner``, per order (remove, add),
    from a realizable pair (``pld.with_replacement_realizable``; ``mechanisms``: the plan's, by
    spec), with the upper side of the same curve for the secants (None: the sampled bound's), or
    None when the bound's own lower side is one.

    - Each Laplace / discrete Laplace spec of the plan gives the realizable pair of that spec alone,
      sum_c b_c N_c vs N_0: a marginal of the plan's realizable pair (in one sampled batch every
      component sees the same c), so a valid lower bound, weaker than the mixture over c of the
      composed group-c pairs when the plan has more than this one component; their pointwise maximum
      is taken.  The secants use that pair's own upper side only when it is the whole plan.
    - A plan of input-oblivious specs only (randomized response, the non-private pair): every group
      pair is the one-record pair, so the bound's lower side, ((1 - eta) Q + eta P, Q), is
      realizable.
    - Otherwise (nested samples, (eps, delta) pairs, a folded Gaussian beside other specs): no
      realizable pair is built and the lower side is the trivial (1 - e^eps)_+ (every curve's
      floor).
    """
    components = [
        spec for spec, m in mechanisms.items() if isinstance(m, (Laplace, DiscreteLaplace))
    ]
    if not components:
        if inner.gaussian_r2 == 0 and all(m.input_oblivious() for m in mechanisms.values()):
            return None
        floor: Callable[[np.ndarray], np.ndarray] = lambda eps: np.maximum(
            -np.expm1(np.minimum(eps, 0.0)), 0.0
        )
        return [(floor, None)]
    sides = [_realizable_sides(mechanisms[spec], weights, tail, h) for spec in components]
    alone = len(components) == 1 and inner.counts[components[0]] == 1 and inner.gaussian_r2 == 0
    return [
        (pointwise_max([s[order][0] for s in sides]), sides[0][order][1] if alone else None)
        for order in (0, 1)
    ]


def _realizable_sides(
    mechanism: Mechanism, weights: np.ndarray, tail: float, h: float
) -> list[Sides]:
    """The realizable with-replacement pair sum_c b_c N_c vs N_0 of one Laplace or discrete Laplace
    mechanism, per order (``pld.with_replacement_realizable``)."""
    if isinstance(mechanism, Laplace):
        return laplace_sides(mechanism.scale, weights, tail, h)
    assert isinstance(mechanism, DiscreteLaplace)
    return discrete_laplace_sides(mechanism.a, mechanism.s, weights, tail)
