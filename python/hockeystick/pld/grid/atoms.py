"""Finite privacy-loss distributions composed exactly: ``Atoms``, P-masses at losses ``index * eta``
and at +infinity with bounds on their loss and round-off errors, and the rules every composition of
them keeps (``finite_atoms``' module docstring): the merge onto a lattice twice as coarse past
``MAX_ATOMS``, the lower side's atoms folded into [-``FOLD_LOSS``, ``FOLD_LOSS``], and the checks
for products near underflow.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar, cast

import numpy as np

UNIT_ROUNDOFF = (
    float(np.finfo(np.float64).eps) / 2
)  # a Python float: scalar arithmetic stays in floats
ETA = 2.0**-32  # sub-grid of losses that lie on no lattice (~2.3e-10)
MAX_ATOMS = 1 << 14
LATTICE_TOLERANCE = 1e-9
MAX_LATTICE_INDEX = 1 << 20
INDEX_LIMIT = 2.0**62  # lattice indices (and a composition's sums of two) stay exact int64
T = TypeVar("T")
DENSE_FILL = 4  # compose on dense lattice arrays (one convolution) while the indices fill >= 1/4 of their span
LEAN_ATOMS = (
    32  # up to this many atoms (or outcomes of a pair), plain Python floats instead of numpy
)
SMALLEST_NORMAL = float(
    np.finfo(np.float64).tiny
)  # below it a mass has no relative round-off bound
SUBNORMAL_SLACK = 16.0 * math.ulp(
    0.0
)  # absolute error allowed to a mass computed below SMALLEST_NORMAL
WINDOW_POINTS = 1 << 13  # ``_window_power``'s entries per window (two are convolved directly)
WINDOW_PRODUCTS = (
    1 << 22
)  # ``_compose_shared`` of more products of atoms composes on a window instead
WINDOW_FLOOR = (
    2.0**-1000
)  # ``_window_power`` drops masses below it (charged): no subnormal mass is kept
INFINITY_FLOOR = WINDOW_FLOOR  # least mass the upper side puts where it pools masses near underflow: products stay normal
FOLD_LOSS = 745.0  # ~ -log 2^-1074: lower-side atoms beyond +-FOLD_LOSS are folded (``_folded``)


@dataclass(frozen=True)
class Atoms:
    """P-masses ``mass`` at losses ``index * eta`` (indices strictly increasing), ``p_inf`` at +infinity.

    Every true loss lies within ``loss_error`` of its ``index * eta``; ``rel_error`` bounds the
    relative round-off of every mass and of ``p_inf`` (of the masses only where ``inf_exact``:
    ``p_inf`` is then the true mass at +infinity, as given).  Where ``lower`` is set (masses near
    underflow, module docstring) these atoms serve the upper side only (each true loss at most
    index * eta + loss_error, each true mass at most mass (1 + rel_error)) and ``lower`` the lower side
    (each true loss at least index * eta - loss_error, each true mass at least mass (1 -
    rel_error)).
    """

    index: np.ndarray
    mass: np.ndarray
    p_inf: float
    eta: float
    loss_error: float
    rel_error: float
    lower_of: Callable[[], Atoms] | None = (
        None  # builds ``lower`` (lazily: upper-only users never pay for it)
    )
    inf_exact: bool = (
        False  # p_inf is exact (a mechanism's own delta, nothing summed): rel_error spares it
    )

    @cached_property
    def lower(self) -> Atoms | None:
        """The lower side's atoms where they differ from these (``lower_of``), else None."""
        return None if self.lower_of is None else self.lower_of()

    @property
    def loss(self) -> np.ndarray:
        return self.index * self.eta

    @cached_property
    def loss_list(self) -> list[float]:
        """``loss`` as Python floats (the lean path)."""
        return cast("list[float]", (self.index * self.eta).tolist())

    @cached_property
    def mass_list(self) -> list[float]:
        """``mass`` as Python floats (the lean path)."""
        return cast("list[float]", self.mass.tolist())

    @cached_property
    def least_mass(self) -> float:
        """The least mass (1 for none): ``_may_underflow`` reads it at every composition (from the
        float list where the lean path has it, else one numpy call)."""
        if "mass_list" in self.__dict__ or self.mass.size <= LEAN_ATOMS:
            return min(self.mass_list, default=1.0)
        return float(self.mass.min())

    @cached_property
    def total_mass(self) -> float:
        """The masses' sum (``_may_underflow``: whether p_inf times it can underflow; a path choice)."""
        if "mass_list" in self.__dict__ or self.mass.size <= LEAN_ATOMS:
            return sum(self.mass_list)
        return float(self.mass.sum())


def _folded(a: Atoms, reach: float = 0.0) -> Atoms:
    """Lower-side atoms with those below -``FOLD_LOSS`` dropped and those above max(``FOLD_LOSS``,
    reach) moved down onto its lattice point (both lower a lower side: masses and losses only fall),
    so composing the far atoms of masses near underflow keeps at most 2 max(FOLD_LOSS, reach) /
    eta + 1 of them; delta below ~700 changes by a relative e^{eps - 745} at most, and the dropped
    P-mass is at most e^-745 (P = e^l Q).  ``reach``: the top finite loss of the upper side's atoms,
    so that atoms the two sides share (a long composition's, past 745) are never moved."""
    top = math.floor(max(FOLD_LOSS, reach) / a.eta)
    if a.index.size == 0 or (int(a.index[0]) >= -top and int(a.index[-1]) <= top):
        return a
    keep = a.index >= -top
    return _merged(
        np.minimum(a.index[keep], top), a.mass[keep], a.p_inf, a.eta, a.loss_error, a.rel_error
    )


def _top_loss(a: Atoms) -> float:
    """The top finite loss of a's own atoms (0 for none): how far ``_folded`` leaves the lower side alone."""
    return float(a.index[-1]) * a.eta + a.loss_error if a.index.size else 0.0


def _lean_merged(
    index: list[int], mass: list[float], p_inf: float, eta: float, loss_error: float, rel: float
) -> Atoms:
    """``_merged`` for a handful of atoms (never past ``MAX_ATOMS``), in plain floats: equal indices
    summed (the same (count - 1)u charge), sorted, the lean paths' lists filled in."""
    merged: dict[int, list[float]] = {}
    for i, m in zip(index, mass):
        merged.setdefault(i, []).append(m)
    keys = sorted(merged)
    masses = [math.fsum(merged[i]) for i in keys]
    grow = (max(len(v) for v in merged.values()) - 1) * UNIT_ROUNDOFF if merged else 0.0
    out = Atoms(
        np.array(keys, dtype=np.int64),
        np.array(masses, dtype=np.float64),
        p_inf,
        eta,
        loss_error,
        rel + grow,
    )
    out.__dict__["loss_list"] = [i * eta for i in keys]  # what the cached properties would compute
    out.__dict__["mass_list"] = masses
    return out


def _side(a: Atoms, upper: bool) -> Atoms:
    """The atoms serving one side: a's own, or on the lower side ``a.lower`` where it is set."""
    return a.lower if not upper and a.lower is not None else a


def _merged(
    index: np.ndarray, mass: np.ndarray, p_inf: float, eta: float, loss_error: float, rel: float
) -> Atoms:
    """Atoms with equal indices summed (their round-off added to ``rel``), coarsened past ``MAX_ATOMS``."""
    if index.size <= MAX_ATOMS and bool(np.all(index[1:] > index[:-1])):
        return Atoms(
            index, mass, p_inf, eta, loss_error, rel
        )  # already distinct and sorted (a pair's atoms)
    while True:
        uniq, inverse, counts = np.unique(index, return_inverse=True, return_counts=True)
        if uniq.size <= MAX_ATOMS:
            break
        index = np.floor_divide(index + 1, 2)  # nearest point of the grid 2 eta (ties up)
        loss_error += (
            eta + UNIT_ROUNDOFF * float(np.abs(uniq).max()) * eta
        )  # an odd index moves by eta
        eta *= 2.0
    summed = np.bincount(inverse, weights=mass, minlength=uniq.size)
    grow = (int(counts.max()) - 1) * UNIT_ROUNDOFF if counts.size else 0.0
    return Atoms(uniq, summed, p_inf, eta, loss_error, rel + grow)


def _on_eta(a: Atoms, eta: float) -> tuple[np.ndarray, float]:
    """a's indices on the grid eta and the added loss error (nothing added when eta is a's own)."""
    if eta == a.eta:
        return a.index, 0.0
    loss = a.index * a.eta
    index = np.round(loss / eta)
    _check_span(float(np.abs(index).max(initial=0.0)), eta)
    return index.astype(np.int64), float(
        (np.abs(loss - index * eta) + 2.0 * UNIT_ROUNDOFF * np.abs(loss)).max()
    )


def _check_span(reach: float, eta: float) -> None:
    """Refuse lattice indices (or sums of two) past 2^62: int64 would wrap them silently."""
    if not reach < INDEX_LIMIT:
        raise ValueError(
            f"a privacy loss of {reach * eta:.4g} lies beyond the common loss lattice (step {eta:.3g}, "
            f"indices below 2^62): no certified bound is computed; use more noise or fewer runs"
        )


def _may_underflow(a: Atoms, b: Atoms) -> bool:
    """Whether a product the composition of a and b forms (of two masses, or of b's +infinity mass
    and a's total) can fall below 2^-1022, where it errs by up to 2^-1075 absolute, not u
    relative."""
    return _underflows(a.least_mass, b.least_mass, a.total_mass, b.p_inf)


def _underflows(least_a: float, least_b: float, total_a: float, p_inf_b: float) -> bool:
    """The one underflow test: whether a product of masses at least ``least_a`` and ``least_b``, or
    the product p_inf_b total_a (a composition's new mass at +infinity), can fall below 2^-1022."""
    return least_a * least_b < SMALLEST_NORMAL or _infinity_may_underflow(total_a, p_inf_b)


def _infinity_may_underflow(total: float, p_inf: float) -> bool:
    """Whether the product p_inf total (a composition's new mass at +infinity) can fall below 2^-1022."""
    return p_inf > 0.0 and p_inf * total < SMALLEST_NORMAL


def _powers_may_underflow(a: Atoms, count: int) -> bool:
    """``_may_underflow`` for ``count`` runs of a: each product formed is at least (least
    mass)^count, each product with p_inf at least p_inf (total mass)^count."""
    return _underflows(a.least_mass ** (count - 1), a.least_mass, a.total_mass**count, a.p_inf)


def _power(x: T, count: int, combine: Callable[[T, T], T]) -> T:
    """``count`` >= 1 copies of x combined, by repeated squaring."""
    result: T | None = None
    k = int(count)
    while True:
        if k & 1:
            result = x if result is None else combine(result, x)
        k >>= 1
        if not k:
            break
        x = combine(x, x)
    assert result is not None
    return result
