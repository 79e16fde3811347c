"""Mixtures of privacy-loss distributions: a mechanism that runs one of several mechanisms at random.

If with probability w_i (the same on both neighbours) the mechanism runs M_i, whose PLD in each
direction is dominated by (P_i, Q_i), then it is dominated by the disjoint union of the pairs
weighted by w_i, whose loss PMF is sum_i w_i PMF_i (dp_accounting's ``compute_mixture``).  Mixing
the pessimistic PMFs gives a dominating pair (a mixture of post-processings is a post-processing of
the mixture), mixing the optimistic ones a dominated pair, so both certified sides survive, also
after composition.  Each component must be a single round (one factor, count 1, per direction); a
symmetric component (one direction) serves both directions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.pmf import GridPMF


def _mix(pmfs: Sequence[GridPMF], weights: Sequence[float] | np.ndarray) -> GridPMF:
    k_lo = min(p.k_lo for p in pmfs)
    k_hi = max(p.k_lo + p.p.size for p in pmfs)
    out = np.zeros(k_hi - k_lo)
    for pmf, w in zip(pmfs, weights):
        out[pmf.k_lo - k_lo : pmf.k_lo - k_lo + pmf.p.size] += w * pmf.p
    # each component's true losses lie within its loss_shift of its grid's, so the mixture's within
    # the largest
    return GridPMF(
        k_lo,
        pmfs[0].h,
        out,
        float(sum(w * p.p_inf for p, w in zip(pmfs, weights))),
        0.0,
        pmfs[0].pessimistic,
        loss_shift=max(p.loss_shift for p in pmfs),
    )


def mixture(
    components: Sequence[PrivacyLossDistribution], weights: Sequence[float] | np.ndarray
) -> PrivacyLossDistribution:
    """Discretized PLD of a mechanism that runs component i with probability ``weights[i]``.

    The mixture of dominating pairs (P_i, Q_i) weighted by w_i (the same on both neighbours)
    dominates the mixed mechanism; its loss PMF is sum_i w_i PMF_i.  Mixing the pessimistic PMFs
    gives a dominating pair, mixing the optimistic ones a dominated pair, so both certified sides
    survive, also after composition.

    Parameters
    ----------
    components : sequence of PrivacyLossDistribution
        At least one PLD, each one round of one mechanism (no composition), all on one loss grid.  A
        symmetric component (one direction) serves both directions.
    weights : sequence of float
        One probability per component, >= 0, summing to 1 within 1e-12.

    Returns
    -------
    PrivacyLossDistribution
        As many directions as the components have (one or two); its ``tail`` is the least of theirs.

    Raises
    ------
    ValueError
        If there is no component or not one weight per component, a weight is negative or not
        finite, the weights do not sum to 1, the grids' spacings differ, a component is a
        composition, or the components' directions cannot be paired.

    References
    ----------
    dp_accounting's ``compute_mixture``.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> d = pld.mixture([pld.laplace(1.0), pld.laplace(0.5)], [0.5, 0.5])
    >>> round(d.delta(0.5), 6)
    0.374416
    """
    w = np.asarray(weights, dtype=np.float64)
    _check_components(components, w)
    factors = [_single_round(c) for c in components]
    n_dir = max(len(f) for f in factors)
    if any(len(f) not in (1, n_dir) for f in factors):
        raise ValueError("cannot pair the neighbouring directions of the components")
    directions = [
        {_mixed_factor([f[j] if len(f) > 1 else f[0] for f in factors], w): 1} for j in range(n_dir)
    ]
    return PrivacyLossDistribution(directions, min(c.tail for c in components))


def _check_components(components: Sequence[PrivacyLossDistribution], w: np.ndarray) -> None:
    """One weight per component (at least one), weights >= 0 summing to 1, one grid spacing."""
    if len(components) == 0 or w.shape != (len(components),):
        raise ValueError("mixture needs one weight per component (and at least one component)")
    if not np.all(np.isfinite(w) & (w >= 0)) or abs(w.sum() - 1.0) > 1e-12:
        raise ValueError(f"weights must be >= 0 and sum to 1, got {w.tolist()}")
    if len({c.value_discretization_interval for c in components}) != 1:
        raise ValueError("every component must use one value_discretization_interval")


def _single_round(component: PrivacyLossDistribution) -> list[Factor]:
    """The component's factor per direction, refused unless each direction is one round of one mechanism."""
    if any(len(d) != 1 or next(iter(d.values())) != 1 for d in component.directions):
        raise ValueError("each component must be one round of one mechanism (not a composition)")
    return [next(iter(d)) for d in component.directions]


def _mixed_factor(parts: list[Factor], w: np.ndarray) -> Factor:
    """The factors mixed with weights w: both sides mixed (no lower side where some part has none)."""
    upper = _mix([f.upper for f in parts], w)
    lower = (
        None
        if any(f.lower is None for f in parts)
        else _mix([f.lower for f in parts if f.lower is not None], w)
    )
    name = "mixture(" + ", ".join(f"{wi:g} {f.name}" for wi, f in zip(w, parts)) + ")"
    return Factor(name, upper, lower, all(f.connect_dots for f in parts))
