r"""The Gaussian-DP filter: a budget mu fixed before the run, for runs of unsampled Gaussian rounds
whose noise may be chosen from the outputs released before each round.

Round t is mu_t-GDP with mu_t = 1 / sigma_t (Dong, Roth & Su 2022), mu_t chosen from the past (a
matrix mechanism's whole release is one such round, mu_t = sens / z: ``matrix_round``).  The filter
admits the next round only if mu_1^2 + ... + mu_{t+1}^2 <= mu^2, and the run is then mu-GDP however
the sigmas were chosen (Smith & Thakurta 2022, "Fully adaptive composition for Gaussian differential
privacy"): for this totally ordered family the natural filter is exact, with no cost over a fixed
schedule of the same total. mu-GDP gives delta(epsilon) = theta(mu, epsilon) = Q(epsilon/mu -
mu/2) - e^epsilon Q(epsilon/mu + mu/2) (Dong, Roth & Su 2022).

The budget is the largest mu with theta(mu, epsilon) <= delta, on the certified lower side
(``numerics.certified_theta.theta_radius_lower``), and the spent sum of mu_t^2 is on the upper side
(``RunningSum``): the filter never admits a round that the exact arithmetic would refuse.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..numerics.certified_theta import theta_radius_lower
from .guarantee import PrivacyGuarantee

__all__ = ["GdpFilter"]


@dataclass(frozen=True)
class GdpFilter:
    """The GDP filter of budget (epsilon, delta) (the module docstring).

    Parameters
    ----------
    epsilon : float
        The budget's epsilon, finite and >= 0.
    delta : float
        The budget's delta, 0 < delta < 1.

    Examples
    --------
    >>> from hockeystick.ledger.gdp_filter import GdpFilter
    >>> f = GdpFilter(1.0, 1e-5)
    >>> round(f.mu, 4)
    0.2681
    >>> f.admits(0.05), f.admits(0.08)
    (True, False)
    """

    epsilon: float
    delta: float
    mu: float = field(init=False)
    mu_squared: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        mu = float(theta_radius_lower(self.epsilon, self.delta))
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "mu_squared", math.nextafter(mu * mu, 0.0))

    def admits(self, spent_upper: float) -> bool:
        """Whether sum mu_t^2 (with the next round, on the upper side) is within mu^2.

        Parameters
        ----------
        spent_upper : float
            An upper bound on the sum of mu_t^2 with the next round.

        Returns
        -------
        bool
            True if ``spent_upper`` <= mu^2 (rounded down).
        """
        return spent_upper <= self.mu_squared

    def guarantee(self, rounds: int) -> PrivacyGuarantee:
        """The filter's guarantee: mu-GDP, so the budget's (epsilon, delta), for the whole run.

        Parameters
        ----------
        rounds : int
            The rounds recorded.

        Returns
        -------
        PrivacyGuarantee
            ``kind="filter"``, ``method="gdp"``.
        """
        return PrivacyGuarantee(
            kind="filter",
            method="gdp",
            epsilon=self.epsilon,
            delta=self.delta,
            rounds=rounds,
            assumption=(
                f"every round was a Gaussian mechanism (unsampled, or a matrix mechanism's whole release) admitted "
                f"by this GDP filter (mu = {self.mu:.6g}, fixed before the run); the noise may depend on any output "
                "released before its round (Smith & Thakurta 2022)"
            ),
            cost="none: for unsampled Gaussians the filter is exact",
        )
