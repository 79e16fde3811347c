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
outward rounding of theta (docs/howto-mechanism.md, "Outward rounding").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import ArrayLike
from ..base.validation import (
    broadcast,
    certified_sides,
    epsilon_values,
    positive,
    positive_integer,
    scalar_or_array,
)
from ..numerics.certified_theta import radius_down, radius_up
from .gdp import GaussianDP

__all__ = ["GaussianMechanism"]


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class GaussianMechanism(GaussianDP):
    r"""Privacy profile of the Gaussian mechanism composed over rounds, mu = sqrt(rounds) * sensitivity / sigma.

    Each of T releases adds :math:`N(0, \sigma^2 I)` to a query of L2 sensitivity :math:`\Delta`;
    the composition is exactly mu-GDP with

    .. math::

        \mu = \frac{\sqrt{T}\,\Delta}{\sigma}, \qquad
        \delta(\varepsilon) = \theta(\mu, \varepsilon)
        = \Phi\Big(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Big)
          - e^{\varepsilon}\,\Phi\Big(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Big).

    ``mu`` (the radius of the upper sides) is that value rounded up, ``mu_lower`` (the lower sides')
    rounded down; ``delta(epsilon)`` and ``epsilon(delta)`` grow with mu, so each side is
    ``GaussianDP``'s at that radius, rounded outward.

    Parameters
    ----------
    sigma : array_like
        Standard deviation of the noise added in each round, finite and > 0.
    sensitivity : array_like, default 1.0
        L2 sensitivity of each round's query, finite and > 0.
    rounds : array_like, default 1
        Number of composed releases, a whole number >= 1.

    Raises
    ------
    ValueError
        ``sigma`` or ``sensitivity`` not finite and > 0; ``rounds`` not a whole number >= 1; shapes
        that do not broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None.

    Notes
    -----
    The three parameters are keyword-only and broadcast with each other and with the argument of
    ``delta``/``epsilon``.

    References
    ----------
    Paper 004, Lemma 7 (eq. 8) and GDP composition below Definition 4; paper 000, eq. 6;
    Dong, Roth & Su 2022, Corollary 3.3.

    Examples
    --------
    >>> from hockeystick.fdp import GaussianMechanism
    >>> mechanism = GaussianMechanism(sigma=2.0, rounds=4)
    >>> round(mechanism.mu, 6)
    1.0
    >>> round(mechanism.delta(1.0), 6)
    0.126937
    """

    def __init__(
        self, *, sigma: ArrayLike, sensitivity: ArrayLike = 1.0, rounds: ArrayLike = 1
    ) -> None:
        p = broadcast(
            sigma=positive(sigma, "sigma"),
            sensitivity=positive(sensitivity, "sensitivity"),
            rounds=positive_integer(rounds, "rounds"),
        )
        with np.errstate(over="ignore"):  # sigma -> 0 gives mu = inf: delta = 1, exact
            mu = np.sqrt(p["rounds"]) * p["sensitivity"] / p["sigma"]
        super().__init__(radius_up(mu))
        # finite parameters give a finite mu even where its double overflows: the largest double is
        # below it
        below = np.where(np.isposinf(mu), np.finfo(np.float64).max, mu)
        self.mu_lower = scalar_or_array(np.asarray(radius_down(below)))
        self._lower = GaussianDP(self.mu_lower)

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> Any:
        """Privacy profile delta(eps) = theta(mu, eps) (paper 004 eq. 8), each side rounded outward.

        The upper side is theta at ``mu`` (rounded up), the lower side theta at ``mu_lower``
        (rounded down); theta grows with mu.

        Parameters
        ----------
        threads : int, optional
            OpenMP threads for array input.
        """
        at_inf = None
        if np.any(np.isposinf(self.mu)):
            # sigma, sensitivity and rounds are finite, so the true radius is finite even where it
            # overflows to mu = inf, and delta(inf) = theta(r, inf) = 0 exactly: asked at eps = 0
            # there, then set to 0
            e = epsilon_values(epsilon)
            if np.any(np.isposinf(e)):
                at_inf, epsilon = np.isposinf(e), np.where(np.isposinf(e), 0.0, e)
        sides = certified_sides(
            bound,
            lambda: self._lower.delta(epsilon, bound="lower", threads=threads),
            lambda: super(GaussianMechanism, self).delta(epsilon, threads=threads),
        )
        if at_inf is None:
            return sides
        if isinstance(sides, tuple):
            return tuple(scalar_or_array(np.where(at_inf, 0.0, side)) for side in sides)
        return scalar_or_array(np.where(at_inf, 0.0, sides))

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> Any:
        """Smallest eps >= 0 with theta(mu, eps) <= delta, each side rounded outward.

        The upper side is computed at ``mu`` (rounded up), the lower side at ``mu_lower`` (rounded
        down); epsilon(delta) grows with mu.

        Parameters
        ----------
        threads : int, optional
            OpenMP threads for array input.
        """
        return certified_sides(
            bound,
            lambda: self._lower.epsilon(delta, bound="lower", threads=threads),
            lambda: super(GaussianMechanism, self).epsilon(delta, threads=threads),
        )
