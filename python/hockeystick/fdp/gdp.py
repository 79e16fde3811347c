"""The mu-GDP accountant and its conversions (paper 004 Lemmas 7 and 8; Dong, Roth, Su 2022).

    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = theta(mu, eps)   (eq. 8)
    epsilon(delta): the eps solving theta(mu, eps) = delta
    mu_for(eps, delta): the largest mu that is (eps, delta)-DP (theta(mu, eps) = delta)
    RDP: mu-GDP is (zeta, mu^2 zeta / 2)-RDP for every zeta > 1   (Lemma 8)
    composition: mu = sqrt(sum mu_i^2)

delta(eps) is exact (mu-GDP is equivalent to this whole profile); as an accountant it reports it
rounded outward (docs/howto-mechanism.md, "Outward rounding"): delta(eps) is theta widened by its
documented error (1e-12 relative) and rounded up, epsilon(delta) an eps whose widened theta is <=
delta, and mu_for a mu whose widened theta is <= delta (``hockeystick.numerics.certified_theta``).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.accountant_docs import accountant_docs
from ..base.validation import (
    bound_side,
    broadcast,
    certified_sides,
    delta_values,
    epsilon_values,
    nonnegative,
    positive,
    scalar_or_array,
)
from ..numerics import certified_theta as _ct
from .tradeoff import gaussian_tradeoff

__all__ = ["GaussianDP", "compose_gdp", "gdp_to_rdp"]


def compose_gdp(*mu: npt.ArrayLike) -> float | np.ndarray:
    r"""GDP parameter of the composition of mu_i-GDP mechanisms, sqrt(sum mu_i^2).

    .. math::

        \mu = \sqrt{\textstyle\sum_i \mu_i^2}.

    Parameters
    ----------
    *mu : array_like
        The mechanisms' GDP parameters, each >= 0 (inf allowed); they broadcast together.

    Returns
    -------
    float or numpy.ndarray
        The composed mu (a float for scalar input).

    Raises
    ------
    ValueError
        No ``mu`` given; a ``mu`` negative or NaN (naming ``mu[i]``); shapes that do not broadcast.
    ParameterTypeError
        A ``mu`` that is a string, bool or None.

    References
    ----------
    Dong, Roth & Su 2022, Corollary 3.3; paper 004, GDP composition below Definition 4.

    Examples
    --------
    >>> from hockeystick.fdp import compose_gdp
    >>> round(compose_gdp(3.0, 4.0), 6)
    5.0
    """
    if not mu:
        raise ValueError("give at least one mu")
    arrays = [nonnegative(m, f"mu[{i}]", finite=False) for i, m in enumerate(mu)]
    total = np.sqrt(
        sum(np.square(a) for a in broadcast(**{f"mu{i}": a for i, a in enumerate(arrays)}).values())
    )
    return scalar_or_array(np.asarray(total))


def gdp_to_rdp(mu: npt.ArrayLike, orders: npt.ArrayLike) -> float | np.ndarray:
    r"""Renyi DP of a mu-GDP mechanism at each order zeta > 1, mu^2 zeta / 2.

    .. math::

        \varepsilon_{\mathrm{RDP}}(\zeta) = \frac{\mu^2 \zeta}{2}, \qquad \zeta > 1.

    Parameters
    ----------
    mu : array_like
        GDP parameter, finite and >= 0.
    orders : array_like
        Renyi orders zeta, > 1; broadcasts with ``mu``.

    Returns
    -------
    float or numpy.ndarray
        The RDP epsilon at each order (a float for scalar input).

    Raises
    ------
    ValueError
        ``mu`` negative, infinite or NaN; an order <= 1 or not finite; shapes that do not broadcast.
    ParameterTypeError
        ``mu`` or ``orders`` a string, bool or None.

    References
    ----------
    Paper 004, Lemma 8.

    Examples
    --------
    >>> from hockeystick.fdp import gdp_to_rdp
    >>> gdp_to_rdp(1.0, [2.0, 4.0])
    array([1., 2.])
    """
    mu_arr = nonnegative(mu, "mu")
    zeta = positive(orders, "orders")
    if (zeta <= 1).any():
        raise ValueError("orders must be > 1 (Lemma 8 holds for zeta > 1)")
    return cast("float | np.ndarray", scalar_or_array(0.5 * np.square(mu_arr) * zeta))


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class GaussianDP:
    r"""A mu-GDP guarantee as an accountant, delta(eps) = theta(mu, eps) and its inverse epsilon(delta).

    A mechanism is mu-GDP when its trade-off function is at least
    :math:`T_{G(\mu)}(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)`; that is equivalent to the whole
    privacy profile

    .. math::

        \delta(\varepsilon) = \theta(\mu, \varepsilon)
        = \Phi\Big(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Big)
          - e^{\varepsilon}\,\Phi\Big(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Big),

    which ``delta`` reports rounded outward: theta widened by its documented error (1e-12 relative)
    and rounded up for the upper side, down for the lower (docs/howto-mechanism.md, "Outward
    rounding").

    Parameters
    ----------
    mu : array_like
        GDP parameter, >= 0 (inf allowed: delta = 1). An array broadcasts with the argument of every
        call.

    Raises
    ------
    ValueError
        ``mu`` negative or NaN.
    ParameterTypeError
        ``mu`` a string, bool or None.

    References
    ----------
    Paper 004, Definition 4 and Lemma 7 (eq. 8); paper 000, eq. 6 (the same theta); Dong, Roth &
    Su 2022.

    Examples
    --------
    >>> from hockeystick.fdp import GaussianDP
    >>> round(GaussianDP(1.0).delta(1.0), 6)
    0.126937
    >>> round(GaussianDP(1.0).epsilon(1e-5), 6)
    4.377178
    """

    def __init__(self, mu: npt.ArrayLike) -> None:
        self.mu = scalar_or_array(nonnegative(mu, "mu", finite=False))

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> Any:
        """Privacy profile delta(eps) = theta(mu, eps) (paper 004 Lemma 7, eq. 8), rounded outward.

        The upper side is theta rounded up, the lower side theta rounded down.

        Parameters
        ----------
        threads : int, optional
            OpenMP threads, a positive integer; None (default): automatic (every core for large
            input, one for small).

        Returns
        -------
        float, numpy.ndarray or tuple
            The value is 0 at epsilon = inf.
        """
        bound_side(bound)
        eps = epsilon_values(epsilon)
        return certified_sides(
            bound,
            lambda: _ct.theta_lower(self.mu, eps, threads=threads),
            lambda: _ct.theta_upper(self.mu, eps, threads=threads),
        )

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> Any:
        """Smallest eps >= 0 with theta(mu, eps) <= delta, rounded outward on each side.

        The upper side is an epsilon certainly at or above the exact one, the lower side one at or
        below it.

        Parameters
        ----------
        threads : int, optional
            OpenMP threads, a positive integer; None (default): automatic (every core for large
            input, one for small).

        Returns
        -------
        float, numpy.ndarray or tuple
            0 where theta(mu, 0) <= delta; inf where mu is inf.
        """
        bound_side(bound)
        dlt = delta_values(delta)
        return certified_sides(
            bound,
            lambda: _ct.theta_epsilon_lower(self.mu, dlt, threads=threads),
            lambda: _ct.theta_epsilon_upper(self.mu, dlt, threads=threads),
        )

    def tradeoff(self, alpha: npt.ArrayLike) -> float | np.ndarray:
        """Trade-off function T_G(mu)(alpha), the smallest type II error at type I error alpha.

        Parameters
        ----------
        alpha : array_like
            Type I error in [0, 1]; broadcasts with ``mu``.

        Returns
        -------
        float or numpy.ndarray
            ``gaussian_tradeoff(mu, alpha)``.
        """
        return gaussian_tradeoff(self.mu, alpha)

    def rdp(self, orders: npt.ArrayLike) -> float | np.ndarray:
        """Renyi DP at each order zeta > 1, mu^2 zeta / 2 (paper 004 Lemma 8).

        Parameters
        ----------
        orders : array_like
            Renyi orders zeta, > 1.

        Returns
        -------
        float or numpy.ndarray
            ``gdp_to_rdp(mu, orders)``.
        """
        return gdp_to_rdp(self.mu, orders)

    def compose(self, other: GaussianDP) -> GaussianDP:
        """GDP guarantee of running both mechanisms, mu = sqrt(mu_self^2 + mu_other^2).

        Parameters
        ----------
        other : GaussianDP
            The second guarantee.

        Returns
        -------
        GaussianDP
            The composed guarantee (``compose_gdp``).
        """
        return GaussianDP(compose_gdp(self.mu, other.mu))

    @staticmethod
    def mu_for(
        epsilon: npt.ArrayLike, delta: npt.ArrayLike, *, threads: int | None = None
    ) -> float | np.ndarray:
        """Largest mu whose GDP guarantee is (eps, delta)-DP, the root of theta(mu, eps) = delta, rounded down.

        Parameters
        ----------
        epsilon : array_like
            Epsilon, finite and >= 0.
        delta : array_like
            Delta, strictly between 0 and 1; broadcasts with ``epsilon``.
        threads : int, optional
            OpenMP threads for array input.

        Returns
        -------
        float or numpy.ndarray
            A mu whose widened theta(mu, epsilon) is <= delta (certified).

        Raises
        ------
        ValueError
            ``epsilon`` negative, infinite or NaN; ``delta`` outside (0, 1).
        """
        return _ct.theta_radius_lower(
            nonnegative(epsilon, "epsilon"), delta_values(delta), threads=threads
        )

    def __repr__(self) -> str:
        return f"GaussianDP(mu={self.mu!r})"
