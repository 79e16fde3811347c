"""The epsilon bracket of a composed PLD whose factors describe no run the question reader reads
(random allocation's epochs, Laplace, discrete mechanisms, mixtures, a ledger of mixed mechanisms),
read under an exponential tilt on its own grid, from its own factors, by the core
(``_core.pld_refine.own_grid_bracket``: cpp/include/hockeystick/pld/refine/own_grid.hpp, whose
opening comment gives the read, its invariant and its citations), so that the C library and every
Python door read it by one arithmetic.

The plain FFT composition of T rounds carries a round-off charge proportional to the whole mass and
a tail cut of its window, so a delta near or below them is read wide on any grid: the README's
DP-SGD run on balls-in-bins batches (sigma 1.1, 235 steps an epoch, 60 epochs) reads [3.909, 4.999]
at delta 1e-12.  Per neighbouring direction, the core composes the factors' pessimistic PMFs with
their counts under the tilt of the Chernoff exponent at the direction's plain upper epsilon (the
tilted composition, ``compose.tilted``: Keich 2005; Wilson & Keich 2016), and their optimistic PMFs
(``Factor.lower_terms``) likewise; a side is read only where the plain composition's charges there
pass ``CHARGE_SHARE`` of the delta asked, the directions from the largest plain upper side down, and
the answer is the intersection with the plain bracket given, each side certified.  This module hands
the core each direction's plain composed PMF and factors.
"""

from __future__ import annotations

import numpy as np

from ... import _core
from ...base.accountant import Bound
from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.pmf import GridPMF
from .each_bracket import each_bracket

# the plain composition's charges at a side, as a share of the delta read there, above which that
# side is read under a tilt (the core's kOwnGridChargeShare, whose comment gives the reason)
CHARGE_SHARE = float(_core.pld_refine.own_grid_charge_share)


def composed_rounds(pld: PrivacyLossDistribution) -> bool:
    """Whether some direction of ``pld`` composes at least two rounds (a single round has no
    composition round-off to remove).

    Parameters
    ----------
    pld : PrivacyLossDistribution
        Any PLD.

    Returns
    -------
    bool
        True where a direction's counts sum to 2 or more.
    """
    return any(sum(direction.values()) >= 2 for direction in pld.directions)


def direction_pessimistic(direction: dict[Factor, int]) -> list[tuple[GridPMF, int]]:
    """The direction's pessimistic PMFs and their counts."""
    return [(f.upper, int(c)) for f, c in direction.items()]


def direction_optimistic(direction: dict[Factor, int]) -> list[tuple[GridPMF, int]] | None:
    """The direction's optimistic PMFs and their counts (``Factor.lower_terms``), None where a
    factor has none."""
    terms: list[tuple[GridPMF, int]] = []
    for f, count in direction.items():
        for pmf, c in f.lower_terms(int(count)):
            if pmf is None:
                return None
            if c > 0:
                terms.append((pmf, c))
    return terms


def own_grid_bracket(
    pld: PrivacyLossDistribution,
    x: float,
    lower: float,
    upper: float,
    bound: Bound = "both",
) -> tuple[float, float]:
    """(``lower``, ``upper``), ``pld``'s plain epsilon bracket at the delta ``x``, intersected with
    its tilted sides (module docstring) where the plain composition's charges pass ``CHARGE_SHARE``
    of the delta asked, read by the core (``_core.pld_refine.own_grid_bracket``).

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD (``composed_rounds``) whose pessimistic sides are composed already.
    x : float
        The delta asked.
    lower, upper : float
        Its certified plain epsilon bracket (the maximum over the directions of each side).
    bound : {"both", "upper", "lower"}, default "both"
        "upper": the upper side alone is read (the lower side stays ``lower``).

    Returns
    -------
    tuple of float
        The certified (lower, upper).
    """
    directions = [
        (pmf, direction_pessimistic(direction), direction_optimistic(direction))
        for pmf, direction in zip(pld.composed(True), pld.directions)
    ]
    low, up = _core.pld_refine.own_grid_bracket(
        directions,
        delta=float(x),
        lower=float(lower),
        upper=float(upper),
        bound=bound,
        charge_share=CHARGE_SHARE,
    )
    return float(low), float(up)


def own_grid_brackets(
    pld: PrivacyLossDistribution,
    x: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    bound: Bound = "both",
) -> tuple[np.ndarray, np.ndarray]:
    """``own_grid_bracket`` at each element of ``x`` (of the brackets' shape after broadcasting).

    Parameters
    ----------
    pld : PrivacyLossDistribution
        A composed PLD (``composed_rounds``).
    x, lower, upper : numpy.ndarray
        The deltas asked and their certified plain epsilon brackets.
    bound : {"both", "upper", "lower"}, default "both"
        "upper": the upper sides alone are read.

    Returns
    -------
    tuple of numpy.ndarray
        The certified (lower, upper) brackets, of ``lower``'s shape.
    """
    return each_bracket(
        x, lower, upper, lambda at, lo, up: own_grid_bracket(pld, at, lo, up, bound)
    )
