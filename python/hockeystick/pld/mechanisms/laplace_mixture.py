"""Laplace location mixtures: the Poisson-subsampled Laplace mechanism and its generalisations.

Laplace location mixture, scale b, shifts s_i >= 0 with weights w_i:
    remove: P = sum_i w_i Lap(s_i, b)  vs  Q = Lap(0, b);   add: the pair swapped.
Each ratio Lap(s_i, b)/Lap(0, b) = e^{(|x| - |x - s_i|)/b} is non-decreasing (log-concave noise), so
L is non-decreasing: constant for x <= 0 and for x >= max s_i (two exact atoms), strictly increasing
between (``monotone``: one atom per loss cell; certified both sides).  Poisson subsampling at rate q
is the mixture w = (1 - q, q), s = (0, sensitivity) (Zhu, Dong, Wang, AISTATS 2022, Thm 11: the
remove and add pairs dominate the subsampled mechanism under add/remove neighbours).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import ClassVar, cast

import numpy as np

from ...base import validation as _validation
from ...base.elementwise import ArrayLike
from ..compose.distribution import PrivacyLossDistribution
from .constructors import DEFAULT_INTERVAL, _positive, checked_interval, from_distributions, laplace
from .mechanism import Mechanism
from .monotone import MonotonePair, check_mixture, monotone_factors


def _laplace_interval(a: np.ndarray, c: np.ndarray, m: float, b: float) -> np.ndarray:
    """Lap(m, b) mass of (a, c], from the tail each end lies in (no cancellation)."""
    u, v = (a - m) / b, (c - m) / b
    left = 0.5 * np.exp(np.minimum(v, 0.0)) * -np.expm1(np.minimum(u, 0.0) - np.minimum(v, 0.0))  # both < m
    right = 0.5 * np.exp(-np.maximum(u, 0.0)) * -np.expm1(np.maximum(u, 0.0) - np.maximum(v, 0.0))  # both > m
    both = np.where(v <= 0.0, left, np.where(u >= 0.0, right, 1.0 - 0.5 * np.exp(u) - 0.5 * np.exp(-v)))
    return np.maximum(both, 0.0)


def _terms(x: np.ndarray, components: list[tuple[float, float]], b: float) -> list[np.ndarray]:
    """log w_i + (|x| - |x - s_i|) / b, one array per component (a handful: no (n, m) temporaries)."""
    ax = np.abs(x)
    with np.errstate(over="ignore"):  # a subnormal b: the losses are +-inf, which ``monotone`` refuses by name
        return [lw + (ax - np.abs(x - si)) / b for lw, si in components]


def _log_sum(terms: list[np.ndarray]) -> np.ndarray:
    """log sum_i e^{t_i} (np.logaddexp pairwise: accurate, no overflow)."""
    return functools.reduce(np.logaddexp, terms[1:], terms[0])


def laplace_mixture_inverse(target: np.ndarray, b: float, shifts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """x in (0, max s_i) with L(x) = target, in closed form (an estimate: ``monotone`` checks it).

    Between consecutive shifts t_j <= x < t_{j+1} (t_0 = 0), each component is either past its
    shift (term w_i e^{s_i / b}) or not (w_i e^{(2x - s_i) / b}), so
        L(x) = log(C_j + D_j e^{2x / b}),  C_j = sum_{s_i <= t_j} w_i e^{s_i / b},  D_j = sum_{s_i > t_j} w_i e^{-s_i / b},
    and x = (b / 2) log((e^L - C_j) / D_j) on the piece whose end losses bracket L.  Rounding e^L - C_j
    moves x by at most (b / 2) u e^L / (e^L - C_j), i.e. L(x) by about u: within the check's tolerance.
    """
    ends = np.unique(np.append(shifts[shifts > 0.0], 0.0))  # t_0 = 0 < t_1 < ... (the last is max s_i)
    past = shifts[None, :] <= ends[:, None]  # (piece, component)
    c = np.where(past, weights * np.exp(shifts / b), 0.0).sum(axis=1)
    d = np.where(past, 0.0, weights * np.exp(-shifts / b)).sum(axis=1)
    at_ends = np.log(c + d * np.exp(2.0 * ends / b))
    j = np.clip(np.searchsorted(at_ends, target, side="right") - 1, 0, ends.size - 2)
    return cast(np.ndarray, 0.5 * b * np.log((np.exp(target) - c[j]) / d[j]))


def laplace_mixture_pair(scale: float, shifts: np.ndarray, weights: np.ndarray) -> MonotonePair:
    """The remove pair sum_i w_i Lap(s_i, b) vs Lap(0, b) as a ``MonotonePair`` (max s_i > 0)."""
    b = scale
    top = float(shifts.max())

    components = list(zip(np.log(weights).tolist(), shifts.tolist()))

    def loss(x: np.ndarray) -> np.ndarray:
        return _log_sum(_terms(np.asarray(x, dtype=np.float64), components, b))

    def slope(x: np.ndarray) -> np.ndarray:  # on (0, top): d/dx (|x| - |x - s|) / b = 2/b for x < s, else 0
        x = np.asarray(x, dtype=np.float64)
        t = _terms(x, components, b)
        total = _log_sum(t)
        return cast(np.ndarray, sum(np.exp(ti - total) * (x < si) for ti, (_, si) in zip(t, components)) * (2.0 / b))

    def p_mass(a: np.ndarray, c: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, sum(w * _laplace_interval(a, c, s, b) for w, s in zip(weights, shifts)))

    def q_mass(a: np.ndarray, c: np.ndarray) -> np.ndarray:
        return _laplace_interval(a, c, 0.0, b)

    def inverse(target: np.ndarray) -> np.ndarray:
        return laplace_mixture_inverse(target, b, shifts, weights)

    with np.errstate(over="ignore"):  # s / b past the doubles is -inf in the exponent: e^-inf = 0 is the limit
        p_left = float(np.sum(weights * 0.5 * np.exp(-shifts / b)))  # P(x <= 0)
        p_right = float(np.sum(weights * 0.5 * np.exp((shifts - top) / b)))  # P(x >= top)
    at_left, at_right = (float(x) for x in loss(np.array([0.0, top])))
    atoms = ((at_left, p_left, 0.5), (at_right, p_right, 0.5 * math.exp(-top / b)))
    return MonotonePair(loss, slope, p_mass, q_mass, 0.0, top, atoms, inverse)


def _scale(scale: float) -> float:
    """The scale as a positive finite float (a valid Python float skips the array validation)."""
    return scale if type(scale) is float and 0.0 < scale < math.inf else _positive("scale", scale)


def laplace_mixture_atom_losses(scale: float, shifts: ArrayLike, weights: ArrayLike) -> tuple[float, float]:
    """The losses of the remove pair's two atoms, L(x <= 0) <= 0 <= L(x >= max s_i) (the add pair's are
    their negatives): a grid through both keeps them exact (``interop.plan`` picks such grids)."""
    s, w = check_mixture(shifts, weights)
    top = float(s.max())
    if top == 0.0:
        return 0.0, 0.0
    ends = _log_sum(_terms(np.array([0.0, top]), list(zip(np.log(w).tolist(), s.tolist())), _scale(scale)))
    return float(ends[0]), float(ends[1])


def laplace_mixture(
    scale: float, shifts: ArrayLike, weights: ArrayLike, *, value_discretization_interval: float = DEFAULT_INTERVAL
) -> PrivacyLossDistribution:
    r"""Discretized remove and add PLDs of a Laplace location mixture against Lap(0, scale).

    .. math::

        \text{remove: } P = \sum_i w_i\, \mathrm{Lap}(s_i, b) \text{ vs } Q = \mathrm{Lap}(0, b), \qquad
        \text{add: the pair swapped.}

    Each ratio :math:`e^{(|x| - |x - s_i|)/b}` is non-decreasing, so the loss is constant for x <= 0 and
    for x >= max s_i (two exact atoms) and strictly increasing between, where it is discretized one atom per
    loss cell with certified pessimistic and optimistic sides (``monotone``).

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
        If scale is not finite and > 0, a shift is negative or not finite, the weights are negative or do
        not sum to 1, the two arrays are empty or differ in length, or ``value_discretization_interval`` lies
        outside (0, 100].
    ParameterTypeError
        If an argument is a string, a boolean or None.

    See Also
    --------
    subsampled_laplace : the mixture s = (0, sensitivity), w = (1 - q, q).

    References
    ----------
    Zhu, Dong & Wang, AISTATS 2022, Thm 11 (the remove and add pairs of a Poisson-subsampled mechanism).

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
    remove, add = monotone_factors(
        f"laplace_mixture(scale={b}, shifts={s.tolist()}, weights={w.tolist()})", laplace_mixture_pair(b, s, w), h
    )
    return PrivacyLossDistribution([{remove: 1}, {add: 1}])


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
        return laplace(scale, sensitivity=sensitivity, value_discretization_interval=value_discretization_interval)
    return laplace_mixture(
        scale,
        [0.0, _positive("sensitivity", sensitivity)],
        [1.0 - q, q],
        value_discretization_interval=value_discretization_interval,
    )


@dataclass(frozen=True)
class LaplaceMixture(Mechanism):
    """A Laplace location mixture (the Poisson-subsampled Laplace, Zhu, Dong, Wang 2022, Thm 11): remove
    P = sum_i w_i Lap(s_i, scale) vs Q = Lap(0, scale), add the pair swapped (module docstring;
    ``laplace_mixture``).  Its loss has atoms at L(x <= 0) and L(x >= max s_i) (``loss_atoms``)."""

    name: ClassVar[str] = "laplace_mixture"
    scale: float
    shifts: tuple[float, ...]
    weights: tuple[float, ...]

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return laplace_mixture(self.scale, list(self.shifts), list(self.weights), value_discretization_interval=h)

    def loss_atoms(self) -> list[float]:
        return [abs(x) for x in laplace_mixture_atom_losses(self.scale, self.shifts, self.weights) if x != 0.0]
