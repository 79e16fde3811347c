"""delta(eps) of composed atoms on one certified side, alone or beside any other PLD's side
(``finite_atoms``' module docstring, (*)): each loss moved by ``loss_error`` and the sum
widened (upper) or narrowed (lower) by the masses' relative round-off and its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import numpy as np

from ..grid.atoms import UNIT_ROUNDOFF, Atoms, _side
from ..grid.pmf import GridPMF


def _relative_charge(a: Atoms, extra: float) -> float:
    """The relative round-off of a delta summed over a's atoms: the masses', ``extra`` per term, the sum's."""
    return a.rel_error + extra + (a.mass.size + 4) * UNIT_ROUNDOFF


def _widen(total: np.ndarray, a: Atoms, upper: bool, extra: float) -> np.ndarray:
    """total + p_inf widened (upper side) or narrowed (lower side) by the masses' and the sum's round-off.

    Where ``a.inf_exact``, p_inf is the true mass at +infinity and only the summed ``total`` is
    charged: the sum total (1 +- rel) + p_inf is moved one ulp outward for its own rounding, and
    where total is 0 the value is p_inf itself (so delta(eps) = p_inf exactly past every finite
    loss)."""
    rel = _relative_charge(a, extra)
    if a.inf_exact:
        if upper:
            charged = np.nextafter(total * (1.0 + rel) + a.p_inf, np.inf)
            return np.minimum(np.where(total > 0.0, charged, a.p_inf), 1.0)
        charged = np.nextafter(total * (1.0 - rel) + a.p_inf, -np.inf)
        return np.maximum(np.where(total > 0.0, charged, a.p_inf), 0.0)
    value = total + a.p_inf
    if upper:
        return np.minimum(value * (1.0 + rel), 1.0)
    return np.maximum(value * (1.0 - rel), 0.0)


def _shifted(a: Atoms, eps: np.ndarray, upper: bool) -> np.ndarray:
    """eps - loss_j for every (eps, atom), with the loss error on the side's safe side."""
    e = np.asarray(eps, dtype=np.float64) + (-a.loss_error if upper else a.loss_error)
    return cast(np.ndarray, e[:, None] - a.loss[None, :])


def delta(a: Atoms, epsilon: np.ndarray, upper: bool) -> np.ndarray:
    """delta(eps) of the atoms alone (certified on the side asked for), for a 1-d array of eps."""
    a = _side(a, upper)
    gap = np.minimum(_shifted(a, epsilon, upper), 0.0)
    total = (-np.expm1(gap) * a.mass[None, :]).sum(axis=1)
    return _widen(total, a, upper, 4.0 * UNIT_ROUNDOFF)  # expm1 is accurate to a few ulps


def _lean_delta(a: Atoms, epsilon: float, upper: bool) -> float:
    """``delta`` at one eps in plain floats (few atoms): the same terms, summed in order, the same charge."""
    a = _side(a, upper)
    e = epsilon + (-a.loss_error if upper else a.loss_error)
    total = 0.0
    for loss, mass in zip(a.loss_list, a.mass_list):
        gap = e - loss
        if gap < 0.0:
            total -= math.expm1(gap) * mass
    if a.inf_exact:
        return float(_widen(np.array(total), a, upper, 4.0 * UNIT_ROUNDOFF))
    value = total + a.p_inf
    rel = _relative_charge(a, 4.0 * UNIT_ROUNDOFF)
    return min(value * (1.0 + rel), 1.0) if upper else max(value * (1.0 - rel), 0.0)


def delta_with(
    a: Atoms, other: Callable[[np.ndarray], np.ndarray], epsilon: np.ndarray, upper: bool
) -> np.ndarray:
    """(*) with delta_G = ``other`` (the same certified side of G's profile, at any real eps)."""
    a = _side(a, upper)
    shifted = _shifted(a, epsilon, upper)
    total = (other(shifted.ravel()).reshape(shifted.shape) * a.mass[None, :]).sum(axis=1)
    return _widen(total, a, upper, 2.0 * UNIT_ROUNDOFF)


def grid_side(pmf: GridPMF) -> Callable[[np.ndarray], np.ndarray]:
    """A grid PMF's certified side as a function of a flat array of (any real) eps
    (``delta_tabled``: a root search queries it many times)."""
    return pmf.delta_tabled
