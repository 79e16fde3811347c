"""Federated learning with a trusted aggregator that releases only the last model
(paper 000, Algorithm 1, Theorem 2), constant learning rate and noise.

    delta(eps) = (m/n) sum_{t=1..T} theta_eps(r1) theta_eps(r2)^{T-t}
               = (m/n) theta_eps(r1) (1 - theta_eps(r2)^T) / (1 - theta_eps(r2)),
    r1 = 2L / (sqrt(m) sigma)          (sensitivity 2 L eta / m over the aggregate noise eta sigma / sqrt(m))
    r2 = D sqrt(m) / (eta sigma)       (D the diameter of the image of the projection ball)

with n users, batch size m drawn without replacement, per-user noise std sigma,
step eta, L-Lipschitz loss, projection onto the ball of radius rho:

    TrustedAggregator               convex, beta-smooth, eta <= 2/beta:  D = 2 rho     (000 Thm 2)
    NonconvexTrustedAggregator      no convexity/smoothness:             D = 2(rho + eta L)
                                                                         (000, remark after Thm 2)
    StronglyConvexTrustedAggregator lambda-strongly convex, eta <= 2/(beta+lambda):
                                    D = 2 rho M, M = sqrt(1 - 2 eta beta lambda/(beta+lambda))
                                    (000 remark after Thm 2, with 002 eq. 14's M)

Rounds rule.  Each user belongs to exactly one batch, with probability m/n for each
round t <= floor(n/m) (when m does not divide n, the n mod m users left over are
never used and so are perfectly private).  The proof's sum (000 eq. 15) therefore
holds for any number of rounds T <= floor(n/m): `rounds` defaults to floor(n/m)
(the paper's T = n/m) and a larger value raises ValueError (a second pass over the
data reuses records, which the theorem does not cover).  For q = 0.3, n = 100
(000 Fig. 2) this gives T = 3, where the paper's closed form would use the
non-integer exponent n/m = 10/3.

The closed form is evaluated as (m/n) theta(r1) (-expm1(T log b)) / (1 - b) with
1 - b computed directly (no cancellation when b -> 1) and log b = log1p(-(1 - b)),
all in log space below 1e-250; see cpp/include/hockeystick/contraction_sums.hpp.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.elementwise import FloatOrArray
from . import _checks, _kernels


class TrustedAggregator:
    """(eps, delta)-DP of the last model of 000 Algorithm 1: Theorem 2, constant schedule.

    Parameters (all broadcast with each other and with epsilon / delta)
    ----------
    n : total number of users (whole number >= 1)
    batch_size : users per round m (whole number, 1 <= m <= n); the rate is q = m/n
    sigma : per-user Gaussian noise std (> 0)
    learning_rate : step eta (> 0)
    lipschitz : Lipschitz constant L of the loss (> 0)
    radius : projection radius rho (> 0)
    rounds : T, whole number with 1 <= T <= floor(n/m); default floor(n/m)
    smoothness : beta; if given, eta <= 2/beta is checked (the theorem's condition).
        If omitted, the caller vouches for it.

    ``delta(epsilon)`` is the theorem's delta (an upper bound on the hockey-stick
    divergence between the outputs on neighbouring datasets); ``epsilon(delta)`` the
    smallest epsilon >= 0 whose delta is <= the given one.
    """

    def __init__(
        self,
        *,
        n: npt.ArrayLike,
        batch_size: npt.ArrayLike,
        sigma: npt.ArrayLike,
        learning_rate: npt.ArrayLike,
        lipschitz: npt.ArrayLike,
        radius: npt.ArrayLike,
        rounds: npt.ArrayLike | None = None,
        smoothness: npt.ArrayLike | None = None,
    ) -> None:
        _checks.broadcastable(
            n=n,
            batch_size=batch_size,
            sigma=sigma,
            learning_rate=learning_rate,
            lipschitz=lipschitz,
            radius=radius,
            rounds=rounds,
            smoothness=smoothness,
        )
        self.n = _checks.positive_integer(n, "n")
        self.batch_size = _checks.positive_integer(batch_size, "batch_size")
        _checks.at_most(self.batch_size, self.n, "batch_size must be <= n")
        max_rounds = np.floor(self.n / self.batch_size)
        if rounds is None:
            self.rounds = max_rounds
        else:
            self.rounds = _checks.positive_integer(rounds, "rounds")
            _checks.at_most(
                self.rounds,
                max_rounds,
                "rounds must be <= floor(n / batch_size): each user is in one batch "
                "(sampling without replacement); more rounds reuse records, which 000 Thm 2 does not cover",
            )
        self.sigma = _checks.positive(sigma, "sigma")
        self.learning_rate = _checks.positive(learning_rate, "learning_rate")
        self.lipschitz = _checks.positive(lipschitz, "lipschitz")
        self.radius = _checks.positive(radius, "radius")
        self._check_loss(smoothness)
        root_m = np.sqrt(self.batch_size)
        self._weight = self.batch_size / self.n
        with np.errstate(over="ignore"):
            self._r_first = 2.0 * self.lipschitz / (root_m * self.sigma)
            self._r_product = self.diameter() * root_m / (self.learning_rate * self.sigma)
        _checks.finite_radii(
            r1=(self._r_first, "2 lipschitz / (sqrt(batch_size) sigma)"),
            r2=(self._r_product, "diameter sqrt(batch_size) / (learning_rate sigma), diameter from radius"),
        )

    def _check_loss(self, smoothness: npt.ArrayLike | None) -> None:
        _checks.smoothness_rate(self.learning_rate, smoothness)

    def diameter(self) -> np.ndarray:
        """Diameter D of the gradient step's image of the ball: 2 rho (convex, eta <= 2/beta)."""
        return 2.0 * self.radius

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """delta(eps) = (m/n) theta_eps(r1) (1 - theta_eps(r2)^T) / (1 - theta_eps(r2))  (000 Thm 2)."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.geometric_delta(
            _checks.epsilon_values(epsilon), self._weight, self.rounds, self._r_first, self._r_product, threads
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """Smallest eps >= 0 with delta(eps) <= delta (bracketed Newton in C++, per point)."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.geometric_epsilon(
            _checks.delta_values(delta), self._weight, self.rounds, self._r_first, self._r_product, threads
        )


class NonconvexTrustedAggregator(TrustedAggregator):
    """000 Thm 2 without convexity or smoothness: the diameter becomes 2(rho + eta L)
    (000, remark after Thm 2), so no condition on the learning rate."""

    def _check_loss(self, smoothness: npt.ArrayLike | None) -> None:
        if smoothness is not None:
            _checks.positive(smoothness, "smoothness")

    def diameter(self) -> np.ndarray:
        """D = 2 (rho + eta L): a gradient step moves a point by at most eta L."""
        return cast(np.ndarray, 2.0 * (self.radius + self.learning_rate * self.lipschitz))


class StronglyConvexTrustedAggregator(TrustedAggregator):
    """000 Thm 2 for a lambda-strongly convex, beta-smooth loss: the gradient step is an
    M-contraction, M = sqrt(1 - 2 eta beta lambda / (beta + lambda)) (002 eq. 14), for
    eta <= 2 / (beta + lambda); the diameter becomes 2 rho M."""

    def __init__(
        self,
        *,
        n: npt.ArrayLike,
        batch_size: npt.ArrayLike,
        sigma: npt.ArrayLike,
        learning_rate: npt.ArrayLike,
        lipschitz: npt.ArrayLike,
        radius: npt.ArrayLike,
        smoothness: npt.ArrayLike,
        strong_convexity: npt.ArrayLike,
        rounds: npt.ArrayLike | None = None,
    ) -> None:
        _checks.broadcastable(
            n=n,
            batch_size=batch_size,
            sigma=sigma,
            learning_rate=learning_rate,
            lipschitz=lipschitz,
            radius=radius,
            rounds=rounds,
            smoothness=smoothness,
            strong_convexity=strong_convexity,
        )
        self.strong_convexity = _checks.positive(strong_convexity, "strong_convexity")
        self.smoothness = _checks.positive(smoothness, "smoothness")
        super().__init__(
            n=n,
            batch_size=batch_size,
            sigma=sigma,
            learning_rate=learning_rate,
            lipschitz=lipschitz,
            radius=radius,
            rounds=rounds,
            smoothness=smoothness,
        )

    def _check_loss(self, smoothness: npt.ArrayLike | None) -> None:
        self.modulus = _checks.contraction_modulus(self.learning_rate, self.smoothness, self.strong_convexity)

    def diameter(self) -> np.ndarray:
        """D = 2 rho M."""
        return cast(np.ndarray, 2.0 * self.radius * self.modulus)
