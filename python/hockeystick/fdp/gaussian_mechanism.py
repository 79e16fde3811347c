"""The Gaussian mechanism composed over rounds: an exact accountant built on theta alone.

Each of ``rounds`` releases adds N(0, sigma^2 I) noise to a query of L2 sensitivity
``sensitivity``.  One release is mu-GDP with mu = sensitivity / sigma; T adaptive
releases compose to mu = sqrt(T) * sensitivity / sigma (paper 004, GDP composition
below Definition 2; Dong, Roth, Su 2022 Cor. 3.3), and a mu-GDP mechanism has the
exact privacy profile

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = theta_eps(mu)

(paper 004 Lemma 7, eq. 8; paper 000 eq. 6).  It is ``fdp.GaussianDP`` with mu computed
from (sigma, sensitivity, rounds) and rounded outward: theta and epsilon(delta) grow with mu,
so the upper sides are those of mu rounded up past its exact value (a larger mu is still a
valid guarantee) and the lower sides those of mu rounded down below it, each with GaussianDP's
outward rounding of theta (docs/architecture.md, "Outward rounding").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.elementwise import ArrayLike
from ..base.validation import broadcast, certified_sides, positive, positive_integer, scalar_or_array
from ..numerics.certified_theta import radius_down, radius_up
from .gdp import GaussianDP

__all__ = ["GaussianMechanism"]


class GaussianMechanism(GaussianDP):
    """T-fold composition of the Gaussian mechanism: mu = sqrt(rounds) * sensitivity / sigma.

    Parameters (numpy arrays broadcast with each other and with the argument)
    ----------
    sigma : array_like, > 0
        Standard deviation of the noise added in each round.
    sensitivity : array_like, > 0
        L2 sensitivity of each round's query (default 1).
    rounds : array_like, integer >= 1
        Number of composed releases (default 1).

    ``delta(epsilon)`` = theta_eps(mu) (004 eq. 8) and ``epsilon(delta)`` its inverse, each side
    rounded outward: ``mu`` (the upper sides' radius) is rounded up, ``mu_lower`` (the lower
    sides') rounded down.
    """

    def __init__(self, *, sigma: ArrayLike, sensitivity: ArrayLike = 1.0, rounds: ArrayLike = 1) -> None:
        p = broadcast(
            sigma=positive(sigma, "sigma"),
            sensitivity=positive(sensitivity, "sensitivity"),
            rounds=positive_integer(rounds, "rounds"),
        )
        with np.errstate(over="ignore"):  # sigma -> 0 gives mu = inf: delta = 1, exact
            mu = np.sqrt(p["rounds"]) * p["sensitivity"] / p["sigma"]
        super().__init__(radius_up(mu))
        self.mu_lower = scalar_or_array(np.asarray(radius_down(mu)))
        self._lower = GaussianDP(self.mu_lower)

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> Any:
        """delta(eps) = theta(mu, eps) (paper 004 eq. 8): the upper side at ``mu`` rounded up, the lower
        side at ``mu_lower`` (theta grows with mu), each rounded outward."""
        return certified_sides(
            bound,
            lambda: self._lower.delta(epsilon, bound="lower", threads=threads),
            lambda: super(GaussianMechanism, self).delta(epsilon, threads=threads),
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> Any:
        """Smallest eps >= 0 with theta(mu, eps) <= delta, delta in (0, 1): the upper side at ``mu``
        rounded up, the lower side at ``mu_lower`` (epsilon(delta) grows with mu), each rounded outward."""
        return certified_sides(
            bound,
            lambda: self._lower.epsilon(delta, bound="lower", threads=threads),
            lambda: super(GaussianMechanism, self).epsilon(delta, threads=threads),
        )
