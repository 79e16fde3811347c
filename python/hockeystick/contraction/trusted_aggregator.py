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
all in log space below 1e-250; see cpp/include/hockeystick/contraction/sums.hpp.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import FloatOrArray
from . import _checks, _kernels


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class TrustedAggregator:
    r"""Delta(epsilon) of the last model of federated learning with a trusted aggregator (paper 000, Theorem 2).

    Paper 000's Algorithm 1 with a constant step and noise, a convex, L-Lipschitz, beta-smooth loss,
    :math:`\eta \le 2/\beta`, projection onto the ball of radius rho, and only the last model
    released:

    .. math::

        \delta(\varepsilon) = \frac{m}{n} \sum_{t=1}^{T} \theta_\varepsilon(r_1)\, \theta_\varepsilon(r_2)^{T-t}
          = \frac{m}{n}\, \theta_\varepsilon(r_1)\, \frac{1 - \theta_\varepsilon(r_2)^T}{1 - \theta_\varepsilon(r_2)},
        \qquad r_1 = \frac{2L}{\sqrt{m}\,\sigma}, \quad r_2 = \frac{D\sqrt{m}}{\eta\sigma}, \quad D = 2\rho,

    with :math:`\theta_\varepsilon(r) = Q(\varepsilon/r - r/2) - e^\varepsilon Q(\varepsilon/r +
    r/2)` (paper 000, eq. 6), the contraction coefficient of the projected Gaussian kernel (Lemma
    2). ``delta`` reports the value rounded up by 2^-42 relative, and ``epsilon(delta)`` the
    smallest epsilon >= 0 whose reported delta is at most the target; both are upper bounds only.

    Parameters
    ----------
    n : array_like
        Total number of users, a whole number >= 1.
    batch_size : array_like
        Users per round m, a whole number with 1 <= m <= n (drawn without replacement; rate q =
        m/n).
    sigma : array_like
        Standard deviation of each user's Gaussian noise, finite and > 0.
    learning_rate : array_like
        Step eta, finite and > 0.
    lipschitz : array_like
        Lipschitz constant L of the loss, finite and > 0.
    radius : array_like
        Radius rho of the projection ball, finite and > 0.
    rounds : array_like, optional
        Rounds T, a whole number with 1 <= T <= floor(n/m); default floor(n/m) (the paper's T =
        n/m). Each user is in one batch, so more rounds would reuse records, which the theorem does
        not cover.
    smoothness : array_like, optional
        Smoothness beta, finite and > 0; if given, the theorem's :math:`\eta \le 2/\beta` is
        checked. If omitted, the caller vouches for it.

    Raises
    ------
    ValueError
        A parameter outside its range above; ``batch_size > n``; ``rounds > floor(n / batch_size)``;
        ``learning_rate > 2 / smoothness``; a radius r1 or r2 that overflows (noise below ~1e-300
        times its numerator); shapes that do not broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None.

    Notes
    -----
    Each user is in exactly one batch, with probability m/n for each round t <= floor(n/m), so the
    proof's sum holds for any T <= floor(n/m); where m does not divide n the n mod m users left over
    are never used. The parameters are keyword-only and broadcast with each other and with the
    argument of ``delta``/``epsilon``. The paper's appendix prints
    :math:`\theta_\varepsilon(2L\sqrt{m}/\sigma)` in its last display; the theorem and eq. 24 have
    :math:`2L/(\sqrt{m}\,\sigma)`, which is what is computed.

    References
    ----------
    Paper 000, Algorithm 1, Theorem 2 (eq. 6, Lemma 2).

    Examples
    --------
    Paper 000's Figure 2 at q = m/n = 0.1:

    >>> from hockeystick.contraction import TrustedAggregator
    >>> accountant = TrustedAggregator(
    ...     n=100, batch_size=10, sigma=1.5, learning_rate=0.5, lipschitz=1.0, radius=1.0
    ... )
    >>> round(accountant.delta(1.0), 6)
    0.002021
    >>> round(accountant.epsilon(1e-2), 6)
    0.732117
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
            r2=(
                self._r_product,
                "diameter sqrt(batch_size) / (learning_rate sigma), diameter from radius",
            ),
        )

    def _check_loss(self, smoothness: npt.ArrayLike | None) -> None:
        _checks.smoothness_rate(self.learning_rate, smoothness)

    def diameter(self) -> np.ndarray:
        """Diameter D of the gradient step's image of the ball, 2 rho (convex loss, eta <= 2/beta).

        Returns
        -------
        numpy.ndarray
            D at each broadcast point of the parameters.
        """
        return 2.0 * self.radius

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Theorem's delta(eps) = (m/n) theta_eps(r1) (1 - theta_eps(r2)^T) / (1 - theta_eps(r2)), rounded up.

        Paper 000, Theorem 2 (constant schedule), with this class's diameter D in r2; the formula's
        value is rounded up by 2^-42 relative and capped at 1.  Upper side only: the theorem gives
        no lower bound.

        Parameters
        ----------
        threads : int, optional
            OpenMP threads, a positive integer; None (default): automatic (every core for large
            input, one for small).

        Returns
        -------
        float or numpy.ndarray
            The value is 0 at epsilon = inf.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.geometric_delta(
            _checks.epsilon_values(epsilon),
            self._weight,
            self.rounds,
            self._r_first,
            self._r_product,
            threads,
        )

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Smallest epsilon >= 0 whose reported delta(eps) is <= delta (bracketed Newton in C++, per point).

        Parameters
        ----------
        threads : int, optional
            OpenMP threads for array input.

        Returns
        -------
        float or numpy.ndarray
            0 where delta(0) <= delta; within about 1e-15 relative above the root.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.geometric_epsilon(
            _checks.delta_values(delta),
            self._weight,
            self.rounds,
            self._r_first,
            self._r_product,
            threads,
        )


class NonconvexTrustedAggregator(TrustedAggregator):
    r"""Delta(epsilon) of paper 000's Theorem 2 for a loss neither convex nor smooth, diameter 2(rho + eta L).

    A gradient step moves a point by at most :math:`\eta L`, so the image of the ball has diameter
    :math:`D = 2(\rho + \eta L)` (paper 000, remark after Theorem 2) and no condition on the
    learning rate is needed; otherwise ``TrustedAggregator``'s bound,

    .. math::

        \delta(\varepsilon) = \frac{m}{n}\, \theta_\varepsilon(r_1)\, \frac{1 - \theta_\varepsilon(r_2)^T}{1 - \theta_\varepsilon(r_2)},
        \qquad r_1 = \frac{2L}{\sqrt{m}\,\sigma}, \quad r_2 = \frac{2(\rho + \eta L)\sqrt{m}}{\eta\sigma}.

    Parameters
    ----------
    n : array_like
        Total number of users, a whole number >= 1.
    batch_size : array_like
        Users per round m, a whole number with 1 <= m <= n (drawn without replacement; rate q =
        m/n).
    sigma : array_like
        Standard deviation of each user's Gaussian noise, finite and > 0.
    learning_rate : array_like
        Step eta, finite and > 0.
    lipschitz : array_like
        Lipschitz constant L of the loss, finite and > 0.
    radius : array_like
        Radius rho of the projection ball, finite and > 0.
    rounds : array_like, optional
        Rounds T, a whole number with 1 <= T <= floor(n/m); default floor(n/m) (the paper's T =
        n/m). Each user is in one batch, so more rounds would reuse records, which the theorem does
        not cover.
    smoothness : array_like, optional
        Accepted for a common signature; only checked to be finite and > 0 (no condition on eta).

    Raises
    ------
    ValueError
        As ``TrustedAggregator``, without the condition on ``learning_rate``.
    ParameterTypeError
        A parameter that is a string, bool or None.

    References
    ----------
    Paper 000, Theorem 2 and the remark after it.

    Examples
    --------
    >>> from hockeystick.contraction import NonconvexTrustedAggregator
    >>> accountant = NonconvexTrustedAggregator(
    ...     n=100, batch_size=10, sigma=1.5, learning_rate=0.5, lipschitz=1.0, radius=1.0
    ... )
    >>> round(accountant.delta(1.0), 6)
    0.002022
    """

    def _check_loss(self, smoothness: npt.ArrayLike | None) -> None:
        if smoothness is not None:
            _checks.positive(smoothness, "smoothness")

    def diameter(self) -> np.ndarray:
        """Diameter D = 2 (rho + eta L): a gradient step moves a point by at most eta L.

        Returns
        -------
        numpy.ndarray
            D at each broadcast point of the parameters.
        """
        return cast(np.ndarray, 2.0 * (self.radius + self.learning_rate * self.lipschitz))


class StronglyConvexTrustedAggregator(TrustedAggregator):
    r"""Delta(epsilon) of paper 000's Theorem 2 for a strongly convex loss, diameter 2 rho M.

    For a lambda-strongly convex, beta-smooth loss and :math:`\eta \le 2/(\beta + \lambda)` the
    gradient step is an M-contraction (paper 000, remark after Theorem 2; M from paper 002, eq. 14),
    so the image of the ball has diameter :math:`D = 2\rho M`; otherwise ``TrustedAggregator``'s
    bound:

    .. math::

        M = \sqrt{1 - \frac{2\eta\beta\lambda}{\beta + \lambda}}, \qquad
        \delta(\varepsilon) = \frac{m}{n}\, \theta_\varepsilon(r_1)\, \frac{1 - \theta_\varepsilon(r_2)^T}{1 - \theta_\varepsilon(r_2)},
        \qquad r_1 = \frac{2L}{\sqrt{m}\,\sigma}, \quad r_2 = \frac{2\rho M\sqrt{m}}{\eta\sigma}.

    Parameters
    ----------
    n : array_like
        Total number of users, a whole number >= 1.
    batch_size : array_like
        Users per round m, a whole number with 1 <= m <= n (drawn without replacement; rate q =
        m/n).
    sigma : array_like
        Standard deviation of each user's Gaussian noise, finite and > 0.
    learning_rate : array_like
        Step eta, finite and > 0.
    lipschitz : array_like
        Lipschitz constant L of the loss, finite and > 0.
    radius : array_like
        Radius rho of the projection ball, finite and > 0.
    smoothness : array_like
        Smoothness beta, finite and > 0.
    strong_convexity : array_like
        Strong-convexity modulus lambda, finite, > 0 and <= ``smoothness``.
    rounds : array_like, optional
        Rounds T, a whole number with 1 <= T <= floor(n/m); default floor(n/m) (the paper's T =
        n/m). Each user is in one batch, so more rounds would reuse records, which the theorem does
        not cover.

    Raises
    ------
    ValueError
        As ``TrustedAggregator``; ``strong_convexity > smoothness``;
        ``learning_rate > 2 / (smoothness + strong_convexity)``.
    ParameterTypeError
        A parameter that is a string, bool or None.

    References
    ----------
    Paper 000, Theorem 2 and the remark after it; paper 002, eq. 14.

    Examples
    --------
    >>> from hockeystick.contraction import StronglyConvexTrustedAggregator
    >>> accountant = StronglyConvexTrustedAggregator(
    ...     n=100, batch_size=10, sigma=1.5, learning_rate=0.5, lipschitz=1.0, radius=1.0,
    ...     smoothness=1.0, strong_convexity=0.5,
    ... )
    >>> round(accountant.delta(1.0), 6)
    0.002013
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
        self.modulus = _checks.contraction_modulus(
            self.learning_rate, self.smoothness, self.strong_convexity
        )

    def diameter(self) -> np.ndarray:
        """Diameter D = 2 rho M of the contracted ball.

        Returns
        -------
        numpy.ndarray
            D at each broadcast point of the parameters.
        """
        return cast(np.ndarray, 2.0 * self.radius * self.modulus)
