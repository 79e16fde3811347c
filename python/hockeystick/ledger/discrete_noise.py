r"""Discrete Gaussian noise on an integer query: what the ledger proves about one such round.

The round adds Y ~ N_Z(0, sigma^2), P(Y = y) proportional to exp(-y^2 / (2 sigma^2)) on the
integers, to a scalar integer-valued query q whose values on neighbouring datasets differ by at most
s, a whole number.

* Rényi DP: for integers mu, nu, D_alpha(N_Z(mu, sigma^2) || N_Z(nu, sigma^2)) <= alpha (mu - nu)^2
  / (2 sigma^2), so the round is (s^2 / (2 sigma^2))-zCDP (Canonne, Kamath & Steinke 2020, "The
  discrete Gaussian for differential privacy", Sec. 2: the discrete Gaussian's concentrated-DP
  theorem); its RDP curve alpha s^2 / (2 sigma^2) is what the filters and the odometer add.  (The
  Rényi divergence of product distributions is the sum of the coordinates', so a vector of
  independent discrete Gaussians with
  ||q(x) - q(x')||_2 <= s has the same curve; the dimension enters CKS's (epsilon, delta) bound for vectors,
  not this one.  The ledger's round is the scalar query, whose PLD it also computes exactly.)
* PLD, for the fixed schedule's bracket: the pair P = N_Z(s, sigma^2), Q = N_Z(0, sigma^2) dominates
  the round (its shifts have a monotone likelihood ratio), its loss s (2x - s) / (2 sigma^2) on a
  lattice, its window and tails bounded as ``pld.mechanisms.discrete_gaussian`` proves; the grid PLD
  of that pair is certified on both sides (Doroshenko et al. 2022).  sigma above
  ``pld.mechanisms.discrete_gaussian.MAX_SIGMA`` (~13 800) is refused there: its window would pass
  2^20 outcomes.
* GDP: no parameter is claimed.  The continuous Gaussian is s / sigma-GDP exactly, and the discrete
  one has a loss on a lattice whose trade-off curve is not proved to lie above G_{s / sigma}, so the
  GDP filter refuses the round.
"""

from __future__ import annotations

from typing import Any

from ..base.validation import count
from ..pld.grid import PrivacyLossDistribution
from ..pld.mechanisms import DiscreteGaussian

__all__ = ["discrete_gaussian_pld", "discrete_gaussian_sensitivity"]


def discrete_gaussian_sensitivity(value: Any) -> int:
    """The discrete Gaussian round's sensitivity as an int >= 1, or a ValueError naming ``sensitivity``.

    Parameters
    ----------
    value : int
        The query's sensitivity, a whole number >= 1.

    Returns
    -------
    int
        The sensitivity.

    Raises
    ------
    ValueError
        If ``value`` is not a whole number >= 1 (an integer query moves by whole steps; 2.5 is not
        rounded).
    """
    return count(value, "sensitivity")


def discrete_gaussian_pld(
    sigma: float, sensitivity: int, value_discretization_interval: float
) -> PrivacyLossDistribution:
    """The certified grid PLD of one discrete Gaussian round (the module docstring).

    Parameters
    ----------
    sigma : float
        The discrete Gaussian's sigma, finite, > 0 and at most ``MAX_SIGMA``.
    sensitivity : int
        The query's integer sensitivity, >= 1.
    value_discretization_interval : float
        The PLD grid's spacing.

    Returns
    -------
    PrivacyLossDistribution
        Pessimistic and optimistic PMFs of the pair (N_Z(s, sigma^2), N_Z(0, sigma^2)) on the grid.

    Raises
    ------
    ValueError
        If sigma is above ``MAX_SIGMA`` or sensitivity / sigma above 1e150
        (``pld.mechanisms.discrete_gaussian``).
    """
    return DiscreteGaussian(sigma=sigma, s=sensitivity).grid_pld(value_discretization_interval)
