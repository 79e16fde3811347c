"""000 Theorem 2 with per-round learning rates and noise, and Corollary 1 (eta_t = 1/(lambda t)).

    delta(eps) = (m/n) sum_{t=1..T} theta_eps(2L/(sqrt(m) sigma_t)) prod_{j=t+1..T} theta_eps(D_j sqrt(m)/(eta_j sigma_j))

evaluated by the recursion S_t = b_t S_{t-1} + a_t in O(T) per epsilon (C++,
cpp/include/hockeystick/contraction/sums.hpp).  A schedule is a fixed sequence of
rounds, so here only epsilon / delta broadcast (any shape); the other parameters
are scalars and sigma / learning_rate are scalars or 1-d arrays of length T.
D_j = 2 rho (convex), 2 (rho + eta_j L) (nonconvex), as in trusted_aggregator.py.

Corollary 1 (000 eq. 11): eta_t = 1/(lambda t), sigma_t = sigma, so the product radii are 2 rho
sqrt(m) lambda j / sigma.  (The paper prints theta(2 rho sqrt(lambda m j)/sigma); 2 rho
sqrt(m)/(eta_j sigma) with eta_j = 1/(lambda j) gives 2 rho sqrt(m) lambda j / sigma, which is also
what the paper's own upper bound theta(2 rho lambda n/(sqrt(m) sigma)) at j = T implies.)
``paper_closed_form()`` returns eq. 11's looser closed form.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..base import validation as _validation
from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import FloatOrArray
from . import _checks, _kernels
from .trusted_aggregator import TrustedAggregator


def _scalar(
    value: npt.ArrayLike, name: str, check: Callable[[npt.ArrayLike, str], np.ndarray]
) -> float:
    arr = check(value, name)
    if arr.ndim != 0:
        raise ValueError(
            f"{name} must be a scalar for a per-round schedule (only epsilon / delta broadcast)"
        )
    return float(arr)


def _per_round(value: npt.ArrayLike, name: str) -> np.ndarray:
    arr = _checks.positive(value, name)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a scalar or a 1-d array with one value per round")
    return arr


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class TrustedAggregatorSchedule:
    r"""Delta(epsilon) of paper 000's Theorem 2 with per-round learning rates eta_t and noise sigma_t.

    .. math::

        \delta(\varepsilon) = \frac{m}{n} \sum_{t=1}^{T} \theta_\varepsilon\Big(\frac{2L}{\sqrt{m}\,\sigma_t}\Big)
          \prod_{j=t+1}^{T} \theta_\varepsilon\Big(\frac{D_j\sqrt{m}}{\eta_j\sigma_j}\Big),
        \qquad D_j = 2\rho \ \text{(convex)}, \quad D_j = 2(\rho + \eta_j L) \ \text{(nonconvex)},

    evaluated by the recursion :math:`S_t = b_t S_{t-1} + a_t` in O(T) per epsilon (C++), rounded up
    by 2^-42 relative. A schedule is one fixed sequence of rounds: only the argument of
    ``delta``/``epsilon`` broadcasts (any shape); the parameters are scalars, ``sigma`` and
    ``learning_rate`` scalars or 1-d arrays of one per round.

    Parameters
    ----------
    n : int
        Total number of users, a whole number >= 1 (scalar).
    batch_size : int
        Users per round m, a whole number with 1 <= m <= n (scalar).
    sigma : array_like
        Per-user noise standard deviation sigma_t, finite and > 0: a scalar, or a 1-d array of
        length T.
    learning_rate : array_like
        Step eta_t, finite and > 0: a scalar, or a 1-d array of length T (the same as ``sigma``'s).
    lipschitz : float
        Lipschitz constant L of the loss, finite and > 0 (scalar).
    radius : float
        Radius rho of the projection ball, finite and > 0 (scalar).
    rounds : int, optional
        Rounds T when ``sigma`` and ``learning_rate`` are both scalars (default floor(n/m));
        otherwise, if given, it must equal the schedule's length. 1 <= T <= floor(n/m) in every
        case.
    smoothness : array_like, optional
        Smoothness beta, finite and > 0; if given (and not ``nonconvex``), eta_t <= 2/beta is
        checked for every t. Ignored when ``nonconvex``.
    nonconvex : bool, default False
        Use the diameter 2(rho + eta_t L), which needs neither convexity nor smoothness.

    Raises
    ------
    ValueError
        A parameter outside its range above or not a scalar; ``sigma`` or ``learning_rate`` with
        more than one axis, or of different lengths; ``rounds`` differing from the schedule's
        length; a number of rounds outside [1, floor(n / batch_size)]; ``batch_size > n``; an eta_t
        above 2 / ``smoothness``; an overflowing radius.
    ParameterTypeError
        A parameter that is a string, bool or None; ``nonconvex`` not a bool.

    References
    ----------
    Paper 000, Algorithm 1, Theorem 2 and the remark after it.

    Examples
    --------
    >>> from hockeystick.contraction import TrustedAggregatorSchedule
    >>> accountant = TrustedAggregatorSchedule(
    ...     n=100, batch_size=10, sigma=1.5, learning_rate=[0.5, 0.4, 0.3], lipschitz=1.0, radius=1.0
    ... )
    >>> accountant.rounds, round(accountant.delta(1.0), 6)
    (3, 0.000606)
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
        rounds: int | None = None,
        smoothness: npt.ArrayLike | None = None,
        nonconvex: bool = False,
    ) -> None:
        self.n = _scalar(n, "n", _checks.positive_integer)
        self.batch_size = _scalar(batch_size, "batch_size", _checks.positive_integer)
        if self.batch_size > self.n:
            raise ValueError("batch_size must be <= n")
        sigma_t = _per_round(sigma, "sigma")
        eta_t = _per_round(learning_rate, "learning_rate")
        lengths = {a.shape[0] for a in (sigma_t, eta_t) if a.ndim == 1}
        if len(lengths) > 1:
            raise ValueError(
                f"sigma and learning_rate must have the same length (got {sorted(lengths)})"
            )
        max_rounds = math.floor(self.n / self.batch_size)
        if lengths:
            count = lengths.pop()
            if rounds is not None and rounds != count:
                raise ValueError(f"rounds ({rounds}) must equal the schedule length ({count})")
        else:
            count = (
                max_rounds
                if rounds is None
                else int(_scalar(rounds, "rounds", _checks.positive_integer))
            )
        if not 1 <= count <= max_rounds:
            raise ValueError(
                f"the number of rounds ({count}) must be between 1 and floor(n / batch_size) = {max_rounds}"
            )
        self.rounds = count
        self.sigma = np.broadcast_to(sigma_t, (count,)).astype(np.float64)
        self.learning_rate = np.broadcast_to(eta_t, (count,)).astype(np.float64)
        self.lipschitz = _scalar(lipschitz, "lipschitz", _checks.positive)
        self.radius = _scalar(radius, "radius", _checks.positive)
        nonconvex = _checks.flag(nonconvex, "nonconvex")
        if not nonconvex:
            _checks.smoothness_rate(self.learning_rate, smoothness)
        diameter = (
            2.0 * (self.radius + self.learning_rate * self.lipschitz)
            if nonconvex
            else 2.0 * self.radius
        )
        root_m = math.sqrt(self.batch_size)
        self._weight = self.batch_size / self.n
        with np.errstate(over="ignore"):
            self._r_first = 2.0 * self.lipschitz / (root_m * self.sigma)
            self._r_product = diameter * root_m / (self.learning_rate * self.sigma)
        _checks.finite_radii(
            r1=(self._r_first, "2 lipschitz / (sqrt(batch_size) sigma)"),
            r2=(
                self._r_product,
                "diameter sqrt(batch_size) / (learning_rate sigma), diameter from radius",
            ),
        )

    _first_stop = 0  # 0: the last iterate (a random-stop subclass sets tau0 >= 1)

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Theorem's delta(eps) = (m/n) sum_t theta(r1_t) prod_{j>t} theta(r2_j), O(T) per epsilon, rounded up.

        Parameters
        ----------
        epsilon : array_like
            Epsilon >= 0 (``inf`` allowed), any shape: the schedule's arrays are per round, not
            broadcast.
        threads : int, optional
            OpenMP threads for array input.

        Returns
        -------
        float or numpy.ndarray
            Of ``epsilon``'s shape.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.schedule_delta(
            _checks.epsilon_values(epsilon),
            self._weight,
            self._first_stop,
            self._r_first,
            self._r_product,
            threads,
        )

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Smallest epsilon >= 0 whose reported delta(eps) is <= delta.

        Parameters
        ----------
        delta : array_like
            Target delta strictly between 0 and 1, any shape: the schedule's arrays are per round,
            not broadcast.
        threads : int, optional
            OpenMP threads for array input.

        Returns
        -------
        float or numpy.ndarray
            Of ``delta``'s shape; 0 where delta(0) <= delta.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.schedule_epsilon(
            _checks.delta_values(delta),
            self._weight,
            self._first_stop,
            self._r_first,
            self._r_product,
            threads,
        )


MAX_SCHEDULE_ROUNDS = 10**8  # one float64 learning rate per round: 0.8 GB of schedule at most


class InverseTimeRateTrustedAggregator(TrustedAggregatorSchedule):
    r"""Delta(epsilon) of paper 000's Corollary 1, the trusted aggregator with rates eta_t = 1/(lambda t).

    Theorem 2's per-round sum (``TrustedAggregatorSchedule``, convex diameter 2 rho) with
    :math:`\eta_t = 1/(\lambda t)` and :math:`\sigma_t = \sigma`, so the product radii are
    :math:`2\rho\sqrt{m}/(\eta_j\sigma) = 2\rho\sqrt{m}\,\lambda j/\sigma`:

    .. math::

        \delta(\varepsilon) = \frac{m}{n} \sum_{t=1}^{T} \theta_\varepsilon\Big(\frac{2L}{\sqrt{m}\,\sigma}\Big)
          \prod_{j=t+1}^{T} \theta_\varepsilon\Big(\frac{2\rho\sqrt{m}\,\lambda j}{\sigma}\Big).

    The paper's eq. 11 prints :math:`\theta_\varepsilon(2\rho\sqrt{\lambda m j}/\sigma)`, a typo:
    the radius above is what Theorem 2 gives and what the paper's own bound at j = T implies.
    ``paper_closed_form()`` returns eq. 11's looser closed form.

    Parameters
    ----------
    n : int
        Total number of users, a whole number >= 1 (scalar).
    batch_size : int
        Users per round m, a whole number with 1 <= m <= n (scalar).
    sigma : array_like
        Per-user noise standard deviation, finite and > 0: a scalar, or a 1-d array of length T.
    strong_convexity : float
        Strong-convexity modulus lambda, finite and > 0 (scalar), with every 1/(lambda t), t <= T, a
        positive finite double.
    lipschitz : float
        Lipschitz constant L of the loss, finite and > 0 (scalar).
    radius : float
        Radius rho of the projection ball, finite and > 0 (scalar).
    rounds : int, optional
        Rounds T, 1 <= T <= floor(n/m) and at most 1e8; default floor(n/m).
    smoothness : array_like, optional
        Smoothness beta, finite and > 0; if given, eta_t <= 2/beta is checked (it binds at t = 1:
        lambda >= beta/2).

    Raises
    ------
    ValueError
        As ``TrustedAggregatorSchedule``; more than 1e8 rounds; a ``strong_convexity`` that makes a
        rate 1/(lambda t) overflow or underflow to 0.
    ParameterTypeError
        A parameter that is a string, bool or None.

    References
    ----------
    Paper 000, Corollary 1 (eq. 11) and Theorem 2.

    Examples
    --------
    >>> from hockeystick.contraction import InverseTimeRateTrustedAggregator
    >>> accountant = InverseTimeRateTrustedAggregator(
    ...     n=100, batch_size=10, sigma=1.5, strong_convexity=1.0, lipschitz=1.0, radius=1.0
    ... )
    >>> round(accountant.delta(1.0), 6), round(accountant.paper_closed_form().delta(1.0), 6)
    (0.002021, 0.002022)
    """

    def __init__(
        self,
        *,
        n: npt.ArrayLike,
        batch_size: npt.ArrayLike,
        sigma: npt.ArrayLike,
        strong_convexity: npt.ArrayLike,
        lipschitz: npt.ArrayLike,
        radius: npt.ArrayLike,
        rounds: int | None = None,
        smoothness: npt.ArrayLike | None = None,
    ) -> None:
        lam = _scalar(strong_convexity, "strong_convexity", _checks.positive)
        m = _scalar(batch_size, "batch_size", _checks.positive_integer)
        count = (
            math.floor(_scalar(n, "n", _checks.positive_integer) / m)
            if rounds is None
            else _validation.count(rounds, "rounds")
        )
        if count > MAX_SCHEDULE_ROUNDS:
            raise ValueError(
                f"rounds (floor(n / batch_size) when not given) must be at most {MAX_SCHEDULE_ROUNDS:.0e}: "
                f"the schedule holds one learning rate per round, got {count}"
            )
        self.strong_convexity = lam
        with np.errstate(over="ignore"):
            rates = 1.0 / (lam * np.arange(1, int(count) + 1, dtype=np.float64))
        if rates.size and not (np.isfinite(rates[0]) and rates[-1] > 0):
            raise ValueError(
                f"strong_convexity must keep every learning rate 1 / (strong_convexity t), t <= rounds, a "
                f"positive finite double, got {lam!r}"
            )
        super().__init__(
            n=n,
            batch_size=batch_size,
            sigma=sigma,
            learning_rate=rates,
            lipschitz=lipschitz,
            radius=radius,
            rounds=rounds,
            smoothness=smoothness,
        )

    def paper_closed_form(self) -> TrustedAggregator:
        """Paper 000 eq. 11's closed-form upper bound: every product factor replaced by the last one.

        Returns
        -------
        TrustedAggregator
            The constant-schedule accountant at eta = eta_T = 1/(lambda T) and sigma = min_t
            sigma_t, whose ``delta`` is at least this one's: every round's factor grows as eta and
            sigma shrink, and the paper's sigma_1 is that minimum only when the noise is the same in
            every round.
        """
        return TrustedAggregator(
            n=self.n,
            batch_size=self.batch_size,
            sigma=float(self.sigma.min()),
            learning_rate=float(self.learning_rate[-1]),
            lipschitz=self.lipschitz,
            radius=self.radius,
            rounds=self.rounds,
        )
