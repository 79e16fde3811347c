"""The Gaussian mechanism composed over rounds: an exact accountant built on theta alone.

Each of ``rounds`` releases adds N(0, sigma^2 I) noise to a query of L2 sensitivity
``sensitivity``.  One release is mu-GDP with mu = sensitivity / sigma; T adaptive
releases compose to mu = sqrt(T) * sensitivity / sigma (paper 004, GDP composition
below Definition 2; Dong, Roth, Su 2022 Cor. 3.3), and a mu-GDP mechanism has the
exact privacy profile

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = theta_eps(mu)

(paper 004 Lemma 7, eq. 8; paper 000 eq. 6).  It is ``fdp.GaussianDP`` with mu computed
from (sigma, sensitivity, rounds) and rounded up past its exact value (a larger mu is still a
valid guarantee), so with GaussianDP's outward rounding of theta both directions are certified
upper bounds (docs/architecture.md, "Outward rounding").
"""

from __future__ import annotations

import numpy as np

from ._elementwise import ArrayLike
from ._validation import broadcast, positive, positive_integer
from .certified_theta import radius_up
from .fdp.gdp import GaussianDP

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

    ``delta(epsilon)`` = theta_eps(mu) (004 eq. 8) and ``epsilon(delta)`` its inverse, both rounded up.
    """

    def __init__(self, *, sigma: ArrayLike, sensitivity: ArrayLike = 1.0, rounds: ArrayLike = 1) -> None:
        p = broadcast(sigma=positive(sigma, "sigma"), sensitivity=positive(sensitivity, "sensitivity"),
                      rounds=positive_integer(rounds, "rounds"))
        with np.errstate(over="ignore"):  # sigma -> 0 gives mu = inf: delta = 1, exact
            mu = radius_up(np.sqrt(p["rounds"]) * p["sensitivity"] / p["sigma"])   # rounded up: certified
        super().__init__(mu)
