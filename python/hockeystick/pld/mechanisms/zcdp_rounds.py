r"""The ledger's two rounds whose Rényi curve is a zCDP line, registered with the facets it reads.

Neither is a stage a compose file names (``compose_file=False``); the ledger records each as a
``Round`` with fields of its own (``round_fields``) and finds it with ``registry.round_entry``.

Discrete Gaussian noise on an integer query (``discrete_gaussian``): the round adds Y ~ N_Z(0,
sigma^2), P(Y = y) proportional to exp(-y^2 / (2 sigma^2)) on the integers, to a scalar
integer-valued query whose values on neighbouring datasets differ by at most s, a whole number.

* Rényi DP: for integers mu, nu, D_alpha(N_Z(mu, sigma^2) || N_Z(nu, sigma^2)) <= alpha (mu - nu)^2
  / (2 sigma^2), so the round is (s^2 / (2 sigma^2))-zCDP (Canonne, Kamath & Steinke 2020, "The
  discrete Gaussian for differential privacy", Sec. 2); its curve alpha s^2 / (2 sigma^2) is what
  the filters and the odometer add.  (The Rényi divergence of product distributions is the sum of
  the coordinates', so a vector of independent discrete Gaussians with ||q(x) - q(x')||_2 <= s has
  the same curve; the dimension enters CKS's (epsilon, delta) bound for vectors, not this one.)
* PLD, for a fixed schedule's bracket: the pair P = N_Z(s, sigma^2), Q = N_Z(0, sigma^2) dominates
  the round (its shifts have a monotone likelihood ratio), its loss s (2x - s) / (2 sigma^2) on a
  lattice, its window and tails bounded as ``discrete_gaussian`` proves; the grid PLD of that pair
  is certified on both sides (Doroshenko et al. 2022).  sigma above ``discrete_gaussian.MAX_SIGMA``
  (~13 800) is refused there: its window would pass 2^20 outcomes.
* GDP: no parameter is claimed.  The continuous Gaussian is s / sigma-GDP exactly; the discrete
  one has a loss on a lattice whose trade-off curve is not proved to lie above G_{s / sigma}.

A matrix-factorization mechanism's whole release (``matrix_mechanism``): in clip-norm units the
release C x + z N(0, I) is the Gaussian mechanism of L2 sensitivity sens, the strategy's under its
participation schema, known within a certified bracket [lower, upper]; so it is exactly
(sens / z)-GDP, its Rényi curve alpha sens^2 / (2 z^2) (Bun & Steinke 2016, Prop. 1.6), its PLD the
Gaussian's of sensitivity sens and noise z (Dong, Roth & Su 2022, Thm 2.7; with inputs chosen from
earlier outputs, for lower-triangular C: Denisov et al. 2022, Thm 2.1).  Every upper answer is read
at the upper sensitivity; the lower side of a fixed schedule's bracket at the realizable lower one
(``lower``), a lower bound on the true composition.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base.validation import count, positive_number
from ..grid.distribution import PrivacyLossDistribution
from .constructors import DEFAULT_INTERVAL, Gaussian, gaussian
from .discrete_gaussian import DiscreteGaussian
from .registry import stage

__all__ = ["matrix_parameters"]


def zcdp_round_rdp(
    orders: tuple[int, ...], sigma: float, sensitivity: float, sensitivity_lower: Any = None
) -> np.ndarray:
    """alpha s^2 / (2 sigma^2) at integer ``orders``, rounded up (``rdp.integer_orders``).

    Parameters
    ----------
    orders : tuple of int
        Integer Rényi orders >= 2.
    sigma : float
        The noise (the discrete Gaussian's sigma, or the matrix mechanism's z), finite and > 0.
    sensitivity : float
        s: the query's sensitivity (a matrix mechanism's upper one).
    sensitivity_lower : float, optional
        A matrix mechanism's lower sensitivity: not read (the curve is an upper bound).

    Returns
    -------
    numpy.ndarray
        One value per order, never below alpha s^2 / (2 sigma^2) (Canonne, Kamath & Steinke 2020,
        Sec. 2; Bun & Steinke 2016, Prop. 1.6).
    """
    from ...rdp.integer_orders import mu_squared_upper, zcdp_rdp_upper  # lazy: the rdp package

    return zcdp_rdp_upper(mu_squared_upper(sensitivity, sigma), orders)


def discrete_gaussian_checked(sigma: float, sensitivity: Any) -> dict[str, Any]:
    """The discrete Gaussian round's sensitivity as an int >= 1.

    Parameters
    ----------
    sigma : float
        Its sigma (checked as a positive number by the round).
    sensitivity : int
        The query's sensitivity, a whole number >= 1.

    Returns
    -------
    dict
        ``{"sensitivity": int}``.

    Raises
    ------
    ValueError
        If ``sensitivity`` is not a whole number >= 1 (an integer query moves by whole steps; 2.5
        is not rounded).
    """
    return {"sensitivity": count(sensitivity, "sensitivity")}


@stage(compose_file=False, round_fields=True, rdp=zcdp_round_rdp, checked=discrete_gaussian_checked)
def discrete_gaussian(
    sigma: float, sensitivity: float, value_discretization_interval: float = DEFAULT_INTERVAL
) -> PrivacyLossDistribution:
    """The certified grid PLD of one discrete Gaussian round (the module docstring).

    Parameters
    ----------
    sigma : float
        The discrete Gaussian's sigma, finite, > 0 and at most ``discrete_gaussian.MAX_SIGMA``.
    sensitivity : int
        The query's integer sensitivity, >= 1.
    value_discretization_interval : float, optional
        The PLD grid's spacing.

    Returns
    -------
    PrivacyLossDistribution
        Pessimistic and optimistic PMFs of the pair (N_Z(s, sigma^2), N_Z(0, sigma^2)) on the grid.

    Raises
    ------
    ValueError
        If sigma is above ``MAX_SIGMA`` or sensitivity / sigma above 1e150.
    """
    return DiscreteGaussian(sigma=sigma, s=int(sensitivity)).grid_pld(value_discretization_interval)


def matrix_parameters(sensitivity: Any, sensitivity_lower: Any) -> tuple[float, float]:
    """The bracket [lower, upper] of a matrix mechanism's L2 sensitivity, checked.

    Parameters
    ----------
    sensitivity : float
        The certified upper L2 sensitivity, in clip norms, finite and > 0.
    sensitivity_lower : float
        A realizable lower L2 sensitivity, finite, > 0 and <= ``sensitivity``.

    Returns
    -------
    tuple of float
        (upper, lower).

    Raises
    ------
    ValueError
        If either is not a finite number > 0 (a lower side of 0: the strategy's entries underflow,
        so no lower side is realizable; scale C up and the noise multiplier with it), or lower
        exceeds upper.
    """
    upper = positive_number(sensitivity, "sensitivity")
    lower = positive_number(sensitivity_lower, "sensitivity_lower")
    if lower > upper:
        raise ValueError(
            f"sensitivity_lower must be <= sensitivity (a bracket), got {lower!r} above {upper!r}"
        )
    return upper, lower


def _matrix_checked(sigma: float, sensitivity: Any, sensitivity_lower: Any) -> dict[str, Any]:
    upper, lower = matrix_parameters(sensitivity, sensitivity_lower)
    return {"sensitivity": upper, "sensitivity_lower": lower}


def _matrix_compose(
    accountant: Any, rounds: int, sigma: float, sensitivity: float, sensitivity_lower: float
) -> None:
    """One Gaussian of noise z and the given sensitivity, through the accountant's round cache."""
    accountant.compose_subsampled_gaussian(sigma, 1.0, rounds, sensitivity=sensitivity)


def _matrix_pair(sigma: float, sensitivity: float, sensitivity_lower: float) -> Gaussian:
    """N(sens, z^2) vs N(0, z^2) at the upper sensitivity: (sens / z)-GDP."""
    return Gaussian(sigma, sensitivity)


def _matrix_lower(sigma: float, sensitivity: float, sensitivity_lower: float) -> dict[str, Any]:
    """The realizable lower side: the same release at the lower sensitivity."""
    return {
        "sigma": sigma,
        "sensitivity": sensitivity_lower,
        "sensitivity_lower": sensitivity_lower,
    }


@stage(
    compose_file=False,
    round_fields=True,
    rdp=zcdp_round_rdp,
    checked=_matrix_checked,
    cached_compose=_matrix_compose,
    gaussian_of=_matrix_pair,
    lower=_matrix_lower,
)
def matrix_mechanism(
    sigma: float,
    sensitivity: float,
    sensitivity_lower: float,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> PrivacyLossDistribution:
    """The PLD of one matrix-mechanism release at its upper sensitivity: the Gaussian's.

    Parameters
    ----------
    sigma : float
        The noise multiplier z, finite and > 0.
    sensitivity : float
        The certified upper L2 sensitivity in clip norms.
    sensitivity_lower : float
        The realizable lower one (the bracket's lower side reads it through ``lower``).
    value_discretization_interval : float, optional
        The PLD grid's spacing.

    Returns
    -------
    PrivacyLossDistribution
        Both certified sides of N(sens, z^2) vs N(0, z^2).
    """
    return gaussian(
        sigma, sensitivity=sensitivity, value_discretization_interval=value_discretization_interval
    )
