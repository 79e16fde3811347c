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

from ..base.accountant import Bound
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
    """T_G(mu)(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) = Q(mu - Q^{-1}(alpha)), broadcast.

    The type II error of the best level-alpha test between N(0, 1) and N(mu, 1).
    Computed with the library's Q and Q^{-1}, so it keeps full relative accuracy when
    alpha or the result is tiny.
    """
    mu_arr = nonnegative(mu, "mu", finite=False)
    alpha_arr = in_interval(alpha, "alpha", 0.0, 1.0, open_low=False, open_high=False)
    return cast("float | np.ndarray", _gaussian.gaussian_tail(mu_arr - _gaussian.gaussian_tail_inverse(alpha_arr)))


class TradeOffFunction:
    """A trade-off function given as a callable alpha -> type II error, with its privacy profile.

    ``curve`` must accept a numpy array of alpha in [0, 1] and be a valid trade-off function
    (convex, non-increasing, f <= 1 - alpha); construction spot-checks these properties on a grid.
    ``delta(eps)`` maximises 1 - f(alpha) - e^eps alpha over alpha (in log alpha, where the
    objective is unimodal: a grid search, then Brent), to about 1e-12 absolute; ``epsilon(delta)`` inverts it by root finding.
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
            raise ValueError("curve must map an array of alpha to an array of the same shape, without NaN")
        if (values < -tol).any() or (values > 1 - alpha + tol).any():
            raise ValueError("curve must satisfy 0 <= f(alpha) <= 1 - alpha")
        if (np.diff(values) > tol).any():
            raise ValueError("curve must be non-increasing in alpha")
        if (values[:-2] + values[2:] - 2 * values[1:-1] < -1e-9).any():
            raise ValueError("curve must be convex in alpha")

    def __call__(self, alpha: npt.ArrayLike) -> float | np.ndarray:
        """f(alpha): the smallest type II error at type I error alpha."""
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
        best = optimize.minimize_scalar(negative_gain, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13})
        at_zero = 1.0 - float(self._curve(np.array([0.0]))[0])
        return max(0.0, at_zero, float(gains[i]), -float(best.fun))

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> float | np.ndarray:
        """delta(eps) = sup_alpha (1 - f(alpha) - e^eps alpha), element-wise over epsilon (upper side:
        the numerical supremum may fall short by the optimizer's tolerance, so no lower side is claimed)."""
        upper_only(bound, type(self).__name__)
        eps = nonnegative(epsilon, "epsilon")
        out = np.vectorize(self._delta_one, otypes=[np.float64])(eps)
        return scalar_or_array(out)

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> float | np.ndarray:
        """The smallest eps >= 0 with delta(eps) <= delta, element-wise over delta in (0, 1)."""
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
            return cast(float, optimize.brentq(lambda e: self._delta_one(e) - d, 0.0, hi, xtol=1e-13, rtol=1e-13))

        return scalar_or_array(np.vectorize(one, otypes=[np.float64])(target))


class GaussianTradeOff(TradeOffFunction):
    """mu-GDP: f = T_G(mu) (paper 004 Definition 4), with the closed-form profile theta(mu, eps).

    ``mu`` may be an array; calls broadcast over it.  ``a @ b`` (or ``a.compose(b)``) is the
    tensor product T_G(mu_a) (x) T_G(mu_b) = T_G(sqrt(mu_a^2 + mu_b^2)) (Dong et al. 2022, Cor. 3.3).
    """

    def __init__(self, mu: npt.ArrayLike) -> None:
        self.mu = scalar_or_array(nonnegative(mu, "mu", finite=False))
        super().__init__(lambda a: np.asarray(gaussian_tradeoff(self.mu, a)), check=False)

    def __call__(self, alpha: npt.ArrayLike) -> float | np.ndarray:
        return gaussian_tradeoff(self.mu, alpha)

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """theta(mu, eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)  (paper 004 eq. 8), exact;
        reported rounded outward (upper side up, lower side down)."""
        eps = epsilon_values(epsilon)
        return certified_sides(bound, lambda: _ct.theta_lower(self.mu, eps), lambda: _ct.theta_upper(self.mu, eps))

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper") -> Any:
        """The eps solving theta(mu, eps) = delta (0 when theta(mu, 0) <= delta), rounded outward on each side."""
        dlt = delta_values(delta)
        return certified_sides(
            bound, lambda: _ct.theta_epsilon_lower(self.mu, dlt), lambda: _ct.theta_epsilon_upper(self.mu, dlt)
        )

    def compose(self, other: GaussianTradeOff) -> GaussianTradeOff:
        if not isinstance(other, GaussianTradeOff):
            raise ValueError(
                "only Gaussian trade-off functions compose in closed form; "
                "compose other mechanisms with hockeystick.pld"
            )
        return GaussianTradeOff(np.hypot(self.mu, other.mu))

    __matmul__ = compose

    def __repr__(self) -> str:
        return f"GaussianTradeOff(mu={self.mu!r})"
