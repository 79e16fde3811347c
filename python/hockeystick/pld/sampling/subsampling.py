"""Poisson subsampling of any mechanism given by a finite dominating pair: exact finite PLDs.

If (P, Q) dominates a mechanism M under remove (P the output with the record, Q without), then
running M on a Poisson sample of rate q is dominated, for add/remove neighbours, by
    remove: ((1 - q) Q + q P, Q)      add: (Q, (1 - q) Q + q P)
(Zhu, Dong, Wang, "Optimal accounting of differential privacy via characteristic function",
AISTATS 2022, Thm 11: both directions are kept and the worse composition is reported, as for the
subsampled Gaussian).  For a pair on finitely many outcomes both are finite pairs, so both sides of
their PLDs are exact up to the grid (``from_distributions``; atoms at +infinity kept exactly).
Continuous mechanisms are subsampled through their location-mixture form instead
(``gaussian_mixture``, ``laplace_mixture``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ...base import validation as _validation
from ...base.elementwise import ArrayLike
from ..grid.distribution import PrivacyLossDistribution
from ..mechanisms.constructors import DEFAULT_INTERVAL, from_distributions
from ..mechanisms.discrete_gaussian import discrete_gaussian_pair
from ..mechanisms.discrete_laplace import discrete_laplace_pair
from ..mechanisms.mechanism import Mechanism, Pair, two_directions

if TYPE_CHECKING:
    from ..mechanisms.largest_loss import Directions


def poisson_subsampled_pair(
    p: ArrayLike, q: ArrayLike, sampling_rate: float
) -> tuple[np.ndarray, np.ndarray]:
    """((1 - rate) Q + rate P, Q), after checking the rate lies in [0, 1]."""
    rate = float(
        _validation.in_interval(
            _validation.single(sampling_rate, "sampling_rate"),
            "sampling_rate",
            0.0,
            1.0,
            open_low=False,
            open_high=False,
        )
    )
    pa, qa = _distribution(p, "p"), _distribution(q, "q")
    if pa.shape != qa.shape:
        raise ValueError(f"p and q must have one shape, got {pa.shape} and {qa.shape}")
    return (1.0 - rate) * qa + rate * pa, qa


def _distribution(masses: ArrayLike, name: str) -> np.ndarray:
    """A finite distribution's masses, checked as given (finite, >= 0, summing to 1 within 1e-9), so
    that a refusal names the argument, not the mixture built from it."""
    arr = np.ravel(_validation.nonnegative(masses, name))
    if abs(float(arr.sum()) - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1, got a sum of {float(arr.sum())!r}")
    return arr


def poisson_subsampled(
    p: ArrayLike,
    q: ArrayLike,
    sampling_rate: float,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> PrivacyLossDistribution:
    r"""Discretized remove and add PLDs of a mechanism given by a finite dominating pair, Poisson-sampled.

    If (P, Q) dominates a mechanism under remove (P the output with the record, Q without), running
    it on a Poisson sample of rate q is dominated, for add/remove neighbours, by

    .. math::

        \text{remove: } \bigl((1 - q) Q + q P,\ Q\bigr), \qquad \text{add: } \bigl(Q,\ (1 - q) Q + q P\bigr).

    Both are finite pairs, so both sides are exact up to the grid (``from_distributions``).

    Parameters
    ----------
    p : array_like
        Masses of P, finite, >= 0, summing to 1 within 1e-9 (flattened).
    q : array_like
        Masses of Q on the same outcomes, same shape and rules as ``p``.
    sampling_rate : float
        Poisson sampling probability, 0 <= sampling_rate <= 1 (0 releases nothing about the record).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).

    Returns
    -------
    PrivacyLossDistribution
        The remove and the add direction.

    Raises
    ------
    ValueError
        If ``sampling_rate`` lies outside [0, 1], a mass is negative or not finite, ``p`` or ``q``
        does not sum to 1 within 1e-9, they differ in shape, or ``value_discretization_interval``
        lies outside (0, 100].
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Zhu, Dong & Wang, AISTATS 2022, Thm 11.

    Examples
    --------
    >>> import hockeystick.pld as pld
    >>> d = pld.poisson_subsampled([0.75, 0.25], [0.25, 0.75], 0.1)
    >>> round(d.delta(0.0), 6)
    0.05
    """
    mixed, base = poisson_subsampled_pair(p, q, sampling_rate)
    return from_distributions(
        mixed, base, value_discretization_interval=value_discretization_interval, exact_zeros=False
    )  # computed masses: a 0 may be an underflow


@dataclass(frozen=True)
class PoissonDiscreteLaplace(Mechanism):
    """The discrete Laplace DLap(a), integer sensitivity s, on a Poisson sample of rate q: its exact
    pair (``discrete_laplace``) through the sampling map above, remove and add (Zhu, Dong, Wang
    2022, Thm 11); a finite pair, composed as exact atoms."""

    name: ClassVar[str] = "poisson_discrete_laplace"
    a: float
    s: int
    q: float

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return poisson_subsampled(
            *discrete_laplace_pair(self.a, self.s), self.q, value_discretization_interval=h
        )

    def finite_pairs(self) -> list[Pair] | None:
        return two_directions(
            poisson_subsampled_pair(*discrete_laplace_pair(self.a, self.s), self.q)
        )

    def largest_losses(self) -> Directions | None:
        """The discrete Laplace's a s both ways through the sampling map
        (``largest_loss.poisson_sampled_losses``: exact on the realizable pair of an empty sample
        against the record alone)."""
        from fractions import Fraction

        from ..mechanisms.largest_loss import both_ways, poisson_sampled_losses

        return poisson_sampled_losses(self.q, both_ways(Fraction(self.a) * self.s))


@dataclass(frozen=True)
class PoissonDiscreteGaussian(Mechanism):
    """The discrete Gaussian N_Z(0, sigma^2), integer sensitivity s, on a Poisson sample of rate q:
    its dominating pair (``discrete_gaussian``) through the sampling map above (Zhu, Dong, Wang
    2022, Thm 11). Put on the grid, not composed as atoms: the sampled losses log(1 - q + q e^l) of
    the window's ~76 sigma outcomes lie on no lattice, and their exact compositions would be merged
    onto ever coarser sub-grids."""

    name: ClassVar[str] = "poisson_discrete_gaussian"
    sigma: float
    s: int
    q: float

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return poisson_subsampled(
            *discrete_gaussian_pair(self.sigma, self.s), self.q, value_discretization_interval=h
        )
