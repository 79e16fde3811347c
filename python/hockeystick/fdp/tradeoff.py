"""Trade-off functions (f-DP, Dong, Roth, Su 2022; paper 004 Definitions 3-4).

A trade-off function f(alpha) is the smallest type II error of any test between the
outputs on two neighbouring datasets whose type I error is at most alpha: convex,
continuous, non-increasing, f(alpha) <= 1 - alpha.  A mechanism is f-DP when its
trade-off curve lies above f.  Its privacy profile is the convex conjugate

    delta(eps) = sup_{alpha in [0, 1]} (1 - f(alpha) - e^eps alpha),

so every trade-off function is also an (eps, delta(eps)) accountant.

``GaussianTradeOff`` is T_G(mu)(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) (paper 004 Definition 4),
whose profile is theta(mu, eps) in closed form (Lemma 7, eq. 8) and which composes by
mu = sqrt(sum mu_i^2).  ``TradeOffFunction`` wraps any other trade-off curve and computes its
profile numerically (a bounded scalar maximisation per epsilon), so user curves can be compared
on the same (eps, delta) footing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.validation import (
    certified_sides,
    delta_values,
    epsilon_values,
    flag,
    in_interval,
    nonnegative,
    scalar_or_array,
    upper_only,
)
from ..numerics import certified_theta as _ct
from ..numerics import gaussian as _gaussian

__all__ = ["TradeOffFunction", "GaussianTradeOff", "gaussian_tradeoff"]


def gaussian_tradeoff(mu: npt.ArrayLike, alpha: npt.ArrayLike) -> float | np.ndarray:
    r"""Gaussian trade-off function T_G(mu)(alpha), the smallest type II error at type I error alpha.

    .. math::

        T_{G(\mu)}(\alpha) = \Phi\big(\Phi^{-1}(1 - \alpha) - \mu\big) = Q\big(\mu - Q^{-1}(\alpha)\big),

    the type II error of the best level-alpha test between N(0, 1) and N(mu, 1). It is computed with
    the library's Q and Q^{-1}, so it keeps full relative accuracy when alpha or the result is tiny.

    Parameters
    ----------
    mu : array_like
        GDP parameter, >= 0 (inf allowed: the curve is 0).
    alpha : array_like
        Type I error in [0, 1]; broadcasts with ``mu``.

    Returns
    -------
    float or numpy.ndarray
        The type II error in [0, 1 - alpha] at each broadcast point (a float for scalar input).

    Raises
    ------
    ValueError
        ``mu`` negative or NaN; ``alpha`` outside [0, 1] or NaN; shapes that do not broadcast.
    ParameterTypeError
        ``mu`` or ``alpha`` a string, bool or None.

    References
    ----------
    Paper 004, Definition 4; Dong, Roth & Su 2022.

    Examples
    --------
    >>> from hockeystick.fdp import gaussian_tradeoff
    >>> round(gaussian_tradeoff(1.0, 0.05), 6)
    0.740489
    """
    mu_arr = nonnegative(mu, "mu", finite=False)
    alpha_arr = in_interval(alpha, "alpha", 0.0, 1.0, open_low=False, open_high=False)
    return cast(
        "float | np.ndarray",
        _gaussian.gaussian_tail(mu_arr - _gaussian.gaussian_tail_inverse(alpha_arr)),
    )


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class TradeOffFunction:
    r"""A trade-off function given as a callable alpha -> type II error, with its privacy profile.

    A trade-off function f(alpha) is the smallest type II error of a test between the outputs on two
    neighbouring datasets at type I error alpha; a mechanism whose trade-off curve lies above f is
    f-DP, and so (eps, delta(eps))-DP for its convex conjugate

    .. math::

        \delta(\varepsilon) = \sup_{\alpha \in [0, 1]} \big(1 - f(\alpha) - e^{\varepsilon} \alpha\big).

    ``delta`` maximises this numerically (over log alpha: a grid search, then a bounded Brent
    search, to about 1e-12 absolute) and ``epsilon`` inverts it by root finding (Brent); both are
    upper sides only.

    Parameters
    ----------
    curve : callable
        Maps a numpy array of alpha in [0, 1] to an array of the same shape: a valid trade-off
        function (convex, non-increasing, 0 <= f(alpha) <= 1 - alpha).
    check : bool, default True
        Spot-check those properties on a grid of 1025 alphas at construction.

    Raises
    ------
    ValueError
        With ``check``: ``curve`` returns another shape or NaN, leaves [0, 1 - alpha], increases, or
        is not convex (each named in the message).
    ParameterTypeError
        ``check`` not a bool.

    References
    ----------
    Paper 004, Definitions 3-4; Dong, Roth & Su 2022.

    Examples
    --------
    >>> from hockeystick.fdp import TradeOffFunction, gaussian_tradeoff
    >>> f = TradeOffFunction(lambda alpha: gaussian_tradeoff(1.0, alpha))
    >>> round(f.delta(1.0), 6)
    0.126937
    """

    def __init__(self, curve: Callable[[np.ndarray], np.ndarray], *, check: bool = True) -> None:
        self._curve = curve
        if flag(check, "check"):
            self._check()

    def _check(self) -> None:
        alpha = np.linspace(0.0, 1.0, 1025)
        values = np.asarray(self._curve(alpha), dtype=np.float64)
        tol = 1e-12
        if values.shape != alpha.shape or np.isnan(values).any():
            raise ValueError(
                "curve must map an array of alpha to an array of the same shape, without NaN"
            )
        if (values < -tol).any() or (values > 1 - alpha + tol).any():
            raise ValueError("curve must satisfy 0 <= f(alpha) <= 1 - alpha")
        if (np.diff(values) > tol).any():
            raise ValueError("curve must be non-increasing in alpha")
        if (values[:-2] + values[2:] - 2 * values[1:-1] < -1e-9).any():
            raise ValueError("curve must be convex in alpha")

    def __call__(self, alpha: npt.ArrayLike) -> float | np.ndarray:
        """Type II error f(alpha), the smallest one at type I error alpha.

        Parameters
        ----------
        alpha : array_like
            Type I error in [0, 1].

        Returns
        -------
        float or numpy.ndarray
            The curve's value at each alpha.
        """
        alpha_arr = in_interval(alpha, "alpha", 0.0, 1.0, open_low=False, open_high=False)
        return scalar_or_array(np.asarray(self._curve(alpha_arr), dtype=np.float64))

    def _delta_one(self, eps: float) -> float:
        from scipy import optimize  # lazy: scipy start-up time (import hockeystick loads no scipy)

        gamma = np.exp(eps)

        def negative_gain(log_alpha: float) -> float:
            alpha = np.exp(log_alpha)
            return cast(float, -(1.0 - float(self._curve(np.array([alpha]))[0]) - gamma * alpha))

        # The gain is flat near alpha = 0, so locate its peak on a log grid before refining.
        grid = np.linspace(-745.0, 0.0, 746)
        gains = 1.0 - np.asarray(self._curve(np.exp(grid)), dtype=np.float64) - gamma * np.exp(grid)
        i = int(np.argmax(gains))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        best = optimize.minimize_scalar(
            negative_gain, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
        )
        at_zero = 1.0 - float(self._curve(np.array([0.0]))[0])
        return max(0.0, at_zero, float(gains[i]), -float(best.fun))

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> float | np.ndarray:
        """Privacy profile delta(eps) = sup_alpha (1 - f(alpha) - e^eps alpha), element-wise over epsilon.

        The numerical supremum may fall short of the exact one by the optimizer's tolerance (about
        1e-12 absolute), so only the upper side is offered.

        Parameters
        ----------
        epsilon : array_like
            Epsilon, finite and >= 0.
        """
        upper_only(bound, type(self).__name__)
        eps = nonnegative(epsilon, "epsilon")
        out = np.vectorize(self._delta_one, otypes=[np.float64])(eps)
        return scalar_or_array(out)

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> float | np.ndarray:
        """Smallest eps >= 0 with delta(eps) <= delta, element-wise over delta.

        Only the upper side is offered, as for ``delta``.

        Returns
        -------
        float or numpy.ndarray
            Brent to 1e-13; 0 where delta(0) <= delta, inf where delta(eps) still exceeds delta at
            eps = 8192 (the search doubles eps from 1 and stops there).
        """
        from scipy import optimize  # lazy: scipy start-up time (import hockeystick loads no scipy)

        upper_only(bound, type(self).__name__)
        target = delta_values(delta)

        def one(d: float) -> float:
            if self._delta_one(0.0) <= d:
                return 0.0
            hi = 1.0
            while self._delta_one(hi) > d:
                hi *= 2.0
                if hi > 1e4:
                    return float("inf")
            return cast(
                float,
                optimize.brentq(lambda e: self._delta_one(e) - d, 0.0, hi, xtol=1e-13, rtol=1e-13),
            )

        return scalar_or_array(np.vectorize(one, otypes=[np.float64])(target))


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class GaussianTradeOff(TradeOffFunction):
    r"""The Gaussian trade-off function T_G(mu) of mu-GDP, with its closed-form profile theta(mu, eps).

    .. math::

        f(\alpha) = \Phi\big(\Phi^{-1}(1 - \alpha) - \mu\big), \qquad
        \delta(\varepsilon) = \Phi\Big(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Big)
          - e^{\varepsilon}\,\Phi\Big(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Big).

    ``delta`` and ``epsilon`` are exact and rounded outward (upper side up, lower side down).
    ``a @ b`` (or ``a.compose(b)``) is the tensor product
    :math:`T_{G(\mu_a)} \otimes T_{G(\mu_b)} = T_{G(\sqrt{\mu_a^2 + \mu_b^2})}`.

    Parameters
    ----------
    mu : array_like
        GDP parameter, >= 0 (inf allowed). An array broadcasts with the argument of every call.

    Raises
    ------
    ValueError
        ``mu`` negative or NaN.
    ParameterTypeError
        ``mu`` a string, bool or None.

    References
    ----------
    Paper 004, Definition 4 and Lemma 7 (eq. 8); Dong, Roth & Su 2022, Corollary 3.3 (composition).

    Examples
    --------
    >>> from hockeystick.fdp import GaussianTradeOff
    >>> composed = GaussianTradeOff(0.6) @ GaussianTradeOff(0.8)
    >>> round(composed.mu, 6), round(composed.delta(1.0), 6)
    (1.0, 0.126937)
    """

    def __init__(self, mu: npt.ArrayLike) -> None:
        self.mu = scalar_or_array(nonnegative(mu, "mu", finite=False))
        super().__init__(lambda a: np.asarray(gaussian_tradeoff(self.mu, a)), check=False)

    def __call__(self, alpha: npt.ArrayLike) -> float | np.ndarray:
        return gaussian_tradeoff(self.mu, alpha)

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """Privacy profile theta(mu, eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), rounded outward.

        Paper 004, Lemma 7 (eq. 8): exact, reported with the upper side rounded up and the lower
        down.
        """
        eps = epsilon_values(epsilon)
        return certified_sides(
            bound, lambda: _ct.theta_lower(self.mu, eps), lambda: _ct.theta_upper(self.mu, eps)
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """Epsilon solving theta(mu, eps) = delta (0 when theta(mu, 0) <= delta), rounded outward on each side."""
        dlt = delta_values(delta)
        return certified_sides(
            bound,
            lambda: _ct.theta_epsilon_lower(self.mu, dlt),
            lambda: _ct.theta_epsilon_upper(self.mu, dlt),
        )

    def compose(self, other: GaussianTradeOff) -> GaussianTradeOff:
        """Tensor product T_G(mu) (x) T_G(mu_other) = T_G(sqrt(mu^2 + mu_other^2)) (also ``self @ other``).

        Parameters
        ----------
        other : GaussianTradeOff
            The second Gaussian trade-off function.

        Returns
        -------
        GaussianTradeOff
            The composed trade-off function.

        Raises
        ------
        ValueError
            ``other`` not a ``GaussianTradeOff`` (compose other mechanisms with
            ``hockeystick.pld``).
        """
        if not isinstance(other, GaussianTradeOff):
            raise ValueError(
                "only Gaussian trade-off functions compose in closed form; "
                "compose other mechanisms with hockeystick.pld"
            )
        return GaussianTradeOff(np.hypot(self.mu, other.mu))

    __matmul__ = compose

    def __repr__(self) -> str:
        return f"GaussianTradeOff(mu={self.mu!r})"
