r"""Per-client epsilons: each client's guarantee from its own participation, reported as a distribution.

``per_client_epsilon``: client c takes part in each of T rounds independently with probability q_c
(Poisson sampling at its own rate, fixed before the run), and every round adds Gaussian noise of
multiplier sigma to the sum of the clipped contributions.  Client c's privacy is that of T rounds of
the Poisson-subsampled Gaussian at rate q_c: its Rényi curve is T rho(alpha; sigma, q_c) (Mironov,
Talwar & Zhang 2019), and its epsilon the tight conversion (Balle et al. 2020) minimized over the
orders.  For many clients the rates are rounded up to a grid of at most ``GRID_POINTS`` rates
(geometric between the smallest and the largest rate, which is on it): rho is nondecreasing in q
(E_Q[(P_q / Q)^alpha] is convex in q and least, 1, at q = 0), so a client's epsilon at its grid rate
is an upper bound on its own.

``realized_client_epsilon``: a client known to have taken part in k given rounds of unsampled
Gaussian noise sigma (a realized record, with no amplification by sampling) is sqrt(k) / sigma-GDP
exactly (Dong, Roth & Su 2022): its epsilon is the Gaussian mechanism's, on the certified upper side
(``certified_theta``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.validation import count, delta_target, in_interval, nonnegative_integer, positive_number
from ..numerics.certified_theta import theta_epsilon_upper
from ..rdp.conversion import rdp_to_epsilon
from ..rdp.integer_orders import subsampled_gaussian_rdp_upper
from .round_rdp import check_integer_orders

__all__ = ["GRID_POINTS", "ClientEpsilons", "per_client_epsilon", "realized_client_epsilon"]

GRID_POINTS = 2048


@dataclass(frozen=True)
class ClientEpsilons:
    """Each client's epsilon at one delta, and the distribution's summary.

    Parameters
    ----------
    epsilons : numpy.ndarray
        One upper bound per client, in the order of the rates given.
    delta : float
        The delta.
    assumption : str
        What the epsilons hold under.
    """

    epsilons: np.ndarray
    delta: float
    assumption: str

    @property
    def worst(self) -> float:
        """The largest client epsilon.

        Returns
        -------
        float
            max over clients.
        """
        return float(self.epsilons.max())

    @property
    def median(self) -> float:
        """The median client epsilon.

        Returns
        -------
        float
            The median over clients.
        """
        return float(np.median(self.epsilons))

    def quantiles(self, levels: Any = (0.5, 0.9, 0.99, 1.0)) -> dict[float, float]:
        """The client epsilons' quantiles.

        Parameters
        ----------
        levels : sequence of float, optional
            Levels in [0, 1] (default 0.5, 0.9, 0.99, 1).

        Returns
        -------
        dict of float to float
            Level -> epsilon (numpy's linear interpolation between clients).
        """
        lv = in_interval(levels, "levels", 0.0, 1.0, open_low=False, open_high=False)
        return {
            float(p): float(v)
            for p, v in zip(np.atleast_1d(lv), np.quantile(self.epsilons, lv), strict=True)
        }


def _grid(rates: np.ndarray) -> np.ndarray:
    distinct = np.unique(rates)
    if distinct.size <= GRID_POINTS:
        return distinct
    grid = np.geomspace(distinct[0], distinct[-1], GRID_POINTS)
    grid[-1] = distinct[-1]
    return np.maximum.accumulate(np.maximum(grid, distinct[0]))


def per_client_epsilon(
    participation_rates: Any, sigma: float, rounds: int, delta: float, *, orders: Any = None
) -> ClientEpsilons:
    r"""Each client's epsilon at ``delta`` from its own Poisson participation rate (the module docstring).

    :math:`\varepsilon_c = \min_\alpha T \rho(\alpha; \sigma, q_c) + \log(1 - 1/\alpha)
    - \log(\delta \alpha)/(\alpha - 1)` (Balle et al. 2020), q_c rounded up to the rate grid.

    Parameters
    ----------
    participation_rates : array_like
        Each client's probability of taking part in a round, in (0, 1] (1-d).
    sigma : float
        Noise multiplier of every round, finite and > 0.
    rounds : int
        Number of rounds T >= 1.
    delta : float
        0 < delta < 1.
    orders : sequence of int, optional
        Integer Rényi orders (default ``round_rdp.DEFAULT_ORDERS``).

    Returns
    -------
    ClientEpsilons
        Per client epsilons with ``worst``, ``median`` and ``quantiles``.

    Raises
    ------
    ValueError
        If a rate lies outside (0, 1], ``participation_rates`` is empty or not 1-d, or another
        argument is out of its range.

    Examples
    --------
    >>> from hockeystick.ledger.per_client import per_client_epsilon
    >>> report = per_client_epsilon([0.01, 0.02, 0.05], sigma=1.0, rounds=1000, delta=1e-5)
    >>> report.worst > report.median
    True
    """
    rates = in_interval(
        participation_rates, "participation_rates", 0.0, 1.0, open_low=True, open_high=False
    )
    if rates.ndim != 1 or rates.size == 0:
        raise ValueError(
            "participation_rates must be a non-empty 1-d sequence of rates, one per client"
        )
    s = positive_number(sigma, "sigma")
    t = count(rounds, "rounds")
    d = delta_target(delta)
    chosen = check_integer_orders(orders)
    grid = _grid(rates)
    curves = np.stack([subsampled_gaussian_rdp_upper(s, float(q), chosen) for q in grid])
    with np.errstate(over="ignore"):
        total = np.nextafter(curves * float(t) * (1.0 + 2.0**-52), np.inf)
    at_grid = np.asarray(
        rdp_to_epsilon(total, np.asarray(chosen, dtype=np.float64), d), dtype=np.float64
    )
    at_grid = np.maximum.accumulate(
        at_grid
    )  # the conversion's own rounding never lets a larger rate look safer
    index = np.minimum(np.searchsorted(grid, rates, side="left"), grid.size - 1)
    return ClientEpsilons(
        epsilons=at_grid[index],
        delta=d,
        assumption=(
            "each client takes part in each round independently with its own probability, fixed before the run "
            f"(Poisson sampling), every round adding Gaussian noise of multiplier {s:g} to the clipped sum; "
            "add/remove of one client's data; rates rounded up to a grid of at most "
            f"{GRID_POINTS} rates (an upper bound)"
        ),
    )


def realized_client_epsilon(participations: Any, sigma: float, delta: float) -> np.ndarray:
    """Each client's epsilon from the rounds it is known to have taken part in, without amplification.

    k rounds of unsampled Gaussian noise sigma are sqrt(k) / sigma-GDP (Dong, Roth & Su 2022);
    epsilon at ``delta`` is the Gaussian mechanism's, certified upper side.

    Parameters
    ----------
    participations : array_like
        Each client's number of rounds taken part in (whole numbers >= 0).
    sigma : float
        Noise multiplier of every round, finite and > 0.
    delta : float
        0 < delta < 1.

    Returns
    -------
    numpy.ndarray
        One epsilon per client (0 for a client that took part in no round).

    Raises
    ------
    ValueError
        If a count is negative or not whole, or ``sigma`` or ``delta`` is out of range.

    Examples
    --------
    >>> from hockeystick.ledger.per_client import realized_client_epsilon
    >>> realized_client_epsilon([0, 4], sigma=2.0, delta=1e-5).round(4)
    array([0.    , 4.3772])
    """
    k = nonnegative_integer(participations, "participations")
    s = positive_number(sigma, "sigma")
    d = delta_target(delta)
    with np.errstate(
        over="ignore"
    ):  # a sigma near the least double: an infinite radius, epsilon inf
        radius = np.nextafter(np.sqrt(k) / s * (1.0 + 1e-15), np.inf)
    return np.where(k == 0, 0.0, np.asarray(theta_epsilon_upper(radius, d), dtype=np.float64))
