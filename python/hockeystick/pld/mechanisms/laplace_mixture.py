"""Laplace location mixtures: the Poisson-subsampled Laplace mechanism and its generalisations.

Laplace location mixture, scale b, shifts s_i >= 0 with weights w_i:
    remove: P = sum_i w_i Lap(s_i, b)  vs  Q = Lap(0, b);   add: the pair swapped.
Each ratio Lap(s_i, b)/Lap(0, b) = e^{(|x| - |x - s_i|)/b} is non-decreasing (log-concave noise), so
L is non-decreasing: constant for x <= 0 and for x >= max s_i (two exact atoms), strictly increasing
between (one atom per loss cell; certified both sides).  Poisson subsampling at rate q
is the mixture w = (1 - q, q), s = (0, sensitivity) (Zhu, Dong, Wang, AISTATS 2022, Thm 11: the
remove and add pairs dominate the subsampled mechanism under add/remove neighbours).

The cells and both sides are the C++ core's
(cpp/include/hockeystick/pld/mechanisms/laplace_mixture.hpp over monotone.hpp, the proofs in
``monotone``'s docstring), which the C interface's ``hs_pld_laplace`` calls too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ... import _core
from ...base import validation as _validation
from ...base.elementwise import ArrayLike
from ..grid.distribution import PrivacyLossDistribution
from .constructors import (
    DEFAULT_INTERVAL,
    MAX_CELLS,
    _positive,
    checked_interval,
    from_distributions,
    laplace,
)
from .mechanism import Mechanism
from .monotone import check_mixture, core_side_factor
from .registry import stage

if TYPE_CHECKING:
    from .largest_loss import Directions


def _scale(scale: float) -> float:
    """The scale as a positive finite float (a valid Python float skips the array validation)."""
    return scale if type(scale) is float and 0.0 < scale < math.inf else _positive("scale", scale)


def laplace_mixture_atom_losses(
    scale: float, shifts: ArrayLike, weights: ArrayLike
) -> tuple[float, float]:
    """The losses of the remove pair's two atoms, L(x <= 0) <= 0 <= L(x >= max s_i) (the add pair's
    are their negatives): a grid through both keeps them exact (``interop.plan`` picks such
    grids)."""
    s, w = check_mixture(shifts, weights)
    if float(s.max()) == 0.0:
        return 0.0, 0.0
    lo, hi = _core.pld_mechanisms.laplace_mixture_atom_losses(
        scale=_scale(scale), shifts=s, weights=w
    )
    return float(lo), float(hi)


def laplace_mixture(
    scale: float,
    shifts: ArrayLike,
    weights: ArrayLike,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> PrivacyLossDistribution:
    r"""Discretized remove and add PLDs of a Laplace location mixture against Lap(0, scale).

    .. math::

        \text{remove: } P = \sum_i w_i\, \mathrm{Lap}(s_i, b) \text{ vs } Q = \mathrm{Lap}(0, b), \qquad
        \text{add: the pair swapped.}

    Each ratio :math:`e^{(|x| - |x - s_i|)/b}` is non-decreasing, so the loss is constant for x <= 0
    and for x >= max s_i (two exact atoms) and strictly increasing between, where it is discretized
    one atom per loss cell with certified pessimistic and optimistic sides (``monotone``).

    Parameters
    ----------
    scale : float
        Scale b of the Laplace noise, b > 0.
    shifts : array_like
        The locations s_i, finite and >= 0 (1-d, non-empty).
    weights : array_like
        Their probabilities w_i, >= 0 and summing to 1 (one per shift); zero weights are dropped.
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).

    Returns
    -------
    PrivacyLossDistribution
        The remove and the add direction; one direction releasing nothing when every shift is 0.

    Raises
    ------
    ValueError
        If scale is not finite and > 0, a shift is negative or not finite, the weights are negative
        or do not sum to 1, the two arrays are empty or differ in length, or
        ``value_discretization_interval`` lies outside (0, 100].
    ParameterTypeError
        If an argument is a string, a boolean or None.

    See Also
    --------
    subsampled_laplace : the mixture s = (0, sensitivity), w = (1 - q, q).

    References
    ----------
    Zhu, Dong & Wang, AISTATS 2022, Thm 11 (the remove and add pairs of a Poisson-subsampled
    mechanism).

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> round(pld.laplace_mixture(1.0, [0.0, 1.0], [0.9, 0.1]).delta(0.1), 6)
    0.013122
    """
    b = _scale(scale)
    s, w = check_mixture(shifts, weights)
    h = checked_interval(value_discretization_interval)
    if s.max() == 0.0:
        return from_distributions([1.0], [1.0], value_discretization_interval=h, symmetric=True)
    name = f"laplace_mixture(scale={b}, shifts={s.tolist()}, weights={w.tolist()})"
    remove, add = _core.pld_mechanisms.laplace_mixture(
        scale=b, shifts=s, weights=w, h=h, max_cells=MAX_CELLS
    )
    return PrivacyLossDistribution(
        [
            {core_side_factor(f"{name}, remove", remove): 1},
            {core_side_factor(f"{name}, add", add): 1},
        ]
    )


@stage(relation="add_or_remove_one")
def subsampled_laplace(
    scale: float,
    sampling_rate: float,
    *,
    sensitivity: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> PrivacyLossDistribution:
    r"""Discretized PLD of the Poisson-subsampled Laplace mechanism under add/remove neighbours.

    With rate q and b = ``scale``:

    .. math::

        \text{remove: } P = (1-q)\,\mathrm{Lap}(0, b) + q\,\mathrm{Lap}(\text{sensitivity}, b)
        \text{ vs } Q = \mathrm{Lap}(0, b), \qquad \text{add: the pair swapped,}

    i.e. ``laplace_mixture(scale, [0, sensitivity], [1 - q, q])``; q = 1 is ``laplace``.

    Parameters
    ----------
    scale : float
        Scale b of the Laplace noise, b > 0.
    sampling_rate : float
        Poisson sampling probability q, 0 < q <= 1.
    sensitivity : float, optional
        Distance a record moves the query, > 0 (default 1).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).

    Returns
    -------
    PrivacyLossDistribution
        The remove and the add direction (one symmetric direction for q = 1).

    Raises
    ------
    ValueError
        If scale or sensitivity is not finite and > 0, ``sampling_rate`` lies outside (0, 1], or
        ``value_discretization_interval`` lies outside (0, 100].
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Zhu, Dong & Wang, AISTATS 2022, Thm 11.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> round(pld.subsampled_laplace(1.0, 0.1).delta(0.1), 6)
    0.013122
    """
    q = float(
        _validation.in_interval(
            _validation.single(sampling_rate, "sampling_rate"),
            "sampling_rate",
            0.0,
            1.0,
            open_low=True,
            open_high=False,
        )
    )
    if q == 1.0:
        return laplace(
            scale,
            sensitivity=sensitivity,
            value_discretization_interval=value_discretization_interval,
        )
    return laplace_mixture(
        scale,
        [0.0, _positive("sensitivity", sensitivity)],
        [1.0 - q, q],
        value_discretization_interval=value_discretization_interval,
    )


@dataclass(frozen=True)
class LaplaceMixture(Mechanism):
    """A Laplace location mixture (the Poisson-subsampled Laplace, Zhu, Dong, Wang 2022, Thm 11):
    remove P = sum_i w_i Lap(s_i, scale) vs Q = Lap(0, scale), add the pair swapped (module
    docstring; ``laplace_mixture``).  Its loss has atoms at L(x <= 0) and L(x >= max s_i)
    (``loss_atoms``)."""

    name: ClassVar[str] = "laplace_mixture"
    scale: float
    shifts: tuple[float, ...]
    weights: tuple[float, ...]

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return laplace_mixture(
            self.scale, list(self.shifts), list(self.weights), value_discretization_interval=h
        )

    def loss_atoms(self) -> list[float]:
        return [
            abs(x)
            for x in laplace_mixture_atom_losses(self.scale, self.shifts, self.weights)
            if x != 0.0
        ]

    def largest_losses(self) -> Directions | None:
        """The Poisson-sampled Laplace (shifts (0, 1), weights (1 - q, q)): the Laplace's 1 / scale
        both ways through the sampling map (``largest_loss.poisson_sampled_losses``); None for
        other mixtures."""
        from fractions import Fraction

        from .largest_loss import both_ways, poisson_sampled_losses

        if tuple(self.shifts) != (0.0, 1.0):
            return None
        return poisson_sampled_losses(self.weights[1], both_ways(1 / Fraction(self.scale)))
