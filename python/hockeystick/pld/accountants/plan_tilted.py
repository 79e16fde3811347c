"""The bracket of a plan of Poisson samples of inner plans (``plan.PoissonGeneric``) at a delta near
or below the FFT composition's round-off, read under an exponential tilt.

After R rounds the certified composition charges a round-off of the order of u R of the total mass
per grid point (``compose.fft``, a normwise bound): at R = 100 rounds on the 1e-4 grid about 1.4e-11
on delta near epsilon 1.4, so a nested sample's bracket at delta 1e-10 is wide on both sides and at
1e-12 has no finite upper side worth reading. The tilted composition (``compose.tilted``: Keich
2005; Wilson & Keich 2016) composes the same discretized rounds, each factor's masses scaled by
e^{theta k} / M, and carries that charge relative to the Chernoff bound at its tilt, so the same
certified PMFs are read there tightly.  The factors read are the nested samples' sharp ones
(``plan.PoissonGeneric.sharp_pld``: built from the inner's curve read under tilts where the inner
composition's own round-off floors it, ``plan_tilted_curves``), built only when a bracket is wide.
For each neighbouring direction its factors' pessimistic PMFs are composed under the tilt minimizing
the Chernoff epsilon at the round-off model's charge and again at the Chernoff exponent of the best
upper epsilon found (the core's ``chernoff_tilt`` and ``exponent_tilt``, pld/refine/tilted_question.hpp, the
ladder's best of each score), the optimistic
PMFs (their lower terms, ``Factor.lower_terms``) under the latter.  Each read is a certified bound
of the same composition (``compose.tilted``'s module docstring), so the answer is its intersection
with the bracket given.

The add direction of Poisson samples has every loss at most B = sum_m count_m (-log(1 - q_m))
(``plan. add_loss_bound``): its upper epsilon is at most B and its delta 0 at eps >= B.  The lower
side is the larger of the directions' lower reads (delta is the larger of the two directions'
curves, so either bounds it from below).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ... import _core
from ...base.accountant import Quantity
from ..compose import tilted
from ..grid.distribution import Factor
from ..grid.pmf import GridPMF
from ..question.tilted_question import MAX_POINTS
from ..refine.question import DEFAULT_RELATIVE_ACCURACY, within_tolerance

Terms = list[tuple[GridPMF, int]]

# a delta within this factor of the plain composition's round-off charge is read under tilts; above
# it a wide bracket is the grid's spacing, which the same grid's tilted read does not narrow
ROUND_OFF_REACH = 1e4


def direction_lower_terms(direction: dict[Factor, int]) -> Terms | None:
    """The optimistic (PMF, count) terms of one direction, or None where a factor has no optimistic side."""
    terms: Terms = []
    for factor, count in direction.items():
        for pmf, c in factor.lower_terms(count):
            if pmf is None:
                return None
            if c > 0:
                terms.append((pmf, c))
    return terms


def _composed(terms: Terms, lam: float, pessimistic: bool) -> tilted.TiltedComposition | None:
    """``terms`` composed under the tilt lam (theta = lam h), or None where the window passes
    ``MAX_POINTS`` or the tilt overflows a factor's moment (no read there)."""
    try:
        return tilted.compose_tilted(
            terms, lam * terms[0][0].h, pessimistic=pessimistic, max_points=MAX_POINTS
        )
    except ValueError:
        return None


def _upper_epsilon(ups: Terms, lam: float, delta: float, start: float) -> float:
    """The certified upper epsilon at ``delta`` of ``ups`` composed under the tilt lam, searched
    from ``start`` or the window's top (inf where no read)."""
    side = _composed(ups, lam, True)
    return math.inf if side is None else tilted.upper_epsilon(side, delta, min(start, side.top))


def direction_upper_epsilon(direction: dict[Factor, int], delta: float, upper: float) -> float:
    """The certified upper epsilon at ``delta`` of one direction's composition read under the tilt
    of the Chernoff exponent at ``upper`` (the core's ``exponent_tilt``), searched down
    from ``upper``: the same pessimistic masses as the plain composition's, its round-off charged
    relative to the Chernoff bound there instead of to the total mass (module docstring).

    Parameters
    ----------
    direction : dict
        The direction's factors and their counts (``PrivacyLossDistribution.directions``), on one
        grid.
    delta : float
        The delta asked, in (0, 1).
    upper : float
        A certified upper epsilon of this direction, finite.

    Returns
    -------
    float
        The tilted read's upper epsilon; inf where no read is certified (the tilted window past
        its cap, or the tilt past a factor's moment).

    Raises
    ------
    ValueError
        ``direction`` without factors.
    """
    if not direction:
        raise ValueError("a direction to read must hold at least one factor")
    ups: Terms = [(f.upper, c) for f, c in direction.items()]
    return _upper_epsilon(ups, _core.pld_refine.exponent_tilt(ups, eps=upper), delta, upper)


def direction_upper_delta(direction: dict[Factor, int], epsilon: float) -> float:
    """The certified upper delta at ``epsilon`` of one direction's composition read under the tilt
    of the Chernoff exponent at ``epsilon``: ``direction_delta``'s upper side alone.

    Parameters
    ----------
    direction : dict
        The direction's factors and their counts, on one grid.
    epsilon : float
        The epsilon asked (a real number).

    Returns
    -------
    float
        The tilted read's upper delta; 1 where no read is certified.

    Raises
    ------
    ValueError
        ``direction`` without factors.
    """
    if not direction:
        raise ValueError("a direction to read must hold at least one factor")
    ups: Terms = [(f.upper, c) for f, c in direction.items()]
    side = _composed(ups, _core.pld_refine.exponent_tilt(ups, eps=epsilon), True)
    return 1.0 if side is None else side.delta(epsilon)


def direction_epsilon(
    direction: dict[Factor, int], delta: float, upper: float
) -> tuple[float, float]:
    """The certified (lower, upper) epsilon at ``delta`` of one direction's composition read under
    the tilts of the module docstring; ``upper`` a certified upper side already known (where the
    searches start).

    Parameters
    ----------
    direction : dict
        The direction's factors and their counts (``PrivacyLossDistribution.directions``), on one
        grid.
    delta : float
        The delta asked, in (0, 1).
    upper : float
        A certified upper epsilon of this direction (or of the run), or inf.

    Returns
    -------
    tuple of float
        (lower, upper): 0 and inf where no read is certified.

    Raises
    ------
    ValueError
        ``direction`` without factors.
    """
    if not direction:
        raise ValueError("a direction to read must hold at least one factor")
    ups: Terms = [(f.upper, c) for f, c in direction.items()]
    up = _upper_epsilon(ups, _core.pld_refine.chernoff_tilt(ups, delta=delta), delta, upper)
    best = min(up, upper)
    if math.isfinite(best):  # re-tilted at the Chernoff exponent of the best upper side so far
        up = min(
            up, _upper_epsilon(ups, _core.pld_refine.exponent_tilt(ups, eps=best), delta, best)
        )
        best = min(up, upper)
    lows = direction_lower_terms(direction)
    if lows is None or not (math.isfinite(best) and best > 0.0):
        return 0.0, up
    side = _composed(lows, _core.pld_refine.exponent_tilt(lows, eps=best), False)
    return (0.0 if side is None else tilted.lower_epsilon(side, delta, best)), up


def direction_delta(direction: dict[Factor, int], epsilon: float) -> tuple[float, float]:
    """The certified (lower, upper) delta at ``epsilon`` of one direction's composition, both sides
    read under the tilt of the Chernoff exponent at ``epsilon`` (0 and 1 where no read).

    Parameters
    ----------
    direction : dict
        The direction's factors and their counts, on one grid.
    epsilon : float
        The epsilon asked (a real number).

    Returns
    -------
    tuple of float
        (lower, upper).

    Raises
    ------
    ValueError
        ``direction`` without factors.
    """
    if not direction:
        raise ValueError("a direction to read must hold at least one factor")
    ups: Terms = [(f.upper, c) for f, c in direction.items()]
    up_side = _composed(ups, _core.pld_refine.exponent_tilt(ups, eps=epsilon), True)
    upper = 1.0 if up_side is None else up_side.delta(epsilon)
    lows = direction_lower_terms(direction)
    low_side = (
        None
        if lows is None
        else _composed(lows, _core.pld_refine.exponent_tilt(lows, eps=epsilon), False)
    )
    return (0.0 if low_side is None else low_side.delta(epsilon)), upper


def _wide(method: Quantity, lower: float, upper: float) -> bool:
    """Whether the bracket is wider than the default tolerance (epsilon:
    ``question.within_tolerance``; delta: relative ``DEFAULT_RELATIVE_ACCURACY``)."""
    if method == "epsilon":
        return not bool(within_tolerance(np.array(lower), np.array(upper)))
    return upper > lower * (1.0 + DEFAULT_RELATIVE_ACCURACY)


def tilted_bracket(
    directions: Callable[[], Sequence[dict[Factor, int]]],
    method: Quantity,
    x: float,
    lower: float,
    upper: float,
    add_bound: float,
    round_off: float,
) -> tuple[float, float]:
    """(``lower``, ``upper``) of ``method`` at x intersected with the tilted reads of the (remove,
    add) directions of a plan of Poisson samples (module docstring), where the bracket is wider than
    the default tolerance and the delta in question (x, or the upper delta) is within
    ``ROUND_OFF_REACH`` times ``round_off``; as given elsewhere (a bracket wide for its grid's
    spacing, which no tilt narrows), or for another number of directions than two.

    Parameters
    ----------
    directions : callable
        Gives the composition's (remove, add) directions (``PrivacyLossDistribution.directions``),
        called only where the bracket is wide (their factors may be dear to build).
    method : {"epsilon", "delta"}
        epsilon at delta x, or delta at epsilon x.
    x : float
        The delta (in (0, 1)) or the epsilon asked.
    lower, upper : float
        A certified bracket of the same composition.
    add_bound : float
        The add direction's loss bound B (``plan.add_loss_bound``).
    round_off : float
        The plain composition's round-off scale: its pessimistic PMFs' largest round-off charge plus
        mass at +infinity.

    Returns
    -------
    tuple of float
        The certified (lower, upper), lower <= upper.

    Raises
    ------
    ValueError
        ``method`` neither of the two.
    """
    if method not in ("epsilon", "delta"):
        raise ValueError(f'method must be "epsilon" or "delta", got {method!r}')
    asked = x if method == "epsilon" else upper
    if not _wide(method, lower, upper) or asked > ROUND_OFF_REACH * round_off:
        return lower, upper
    both = directions()
    if len(both) != 2:
        return lower, upper
    remove, add = both
    if method == "epsilon":
        if not 0.0 < x < 1.0:
            return lower, upper
        r_lo, r_up = direction_epsilon(remove, x, upper)
        a_lo, a_up = (
            direction_epsilon(add, x, min(upper, add_bound)) if add_bound > r_up else (0.0, 0.0)
        )
        new_lower, new_upper = max(r_lo, a_lo), max(r_up, min(a_up, add_bound))
    else:
        r_lo, r_up = direction_delta(remove, x)
        a_lo, a_up = direction_delta(add, x) if x < add_bound else (0.0, 0.0)
        new_lower, new_upper = max(r_lo, a_lo), max(r_up, a_up)
    lower, upper = max(lower, new_lower), min(upper, new_upper)
    return lower, max(lower, upper)
