"""000 Theorem 2 with per-round learning rates and noise, and Corollary 1 (eta_t = 1/(lambda t)).

    delta(eps) = (m/n) sum_{t=1..T} theta_eps(2L/(sqrt(m) sigma_t)) prod_{j=t+1..T} theta_eps(D_j sqrt(m)/(eta_j sigma_j))

evaluated by the recursion S_t = b_t S_{t-1} + a_t in O(T) per epsilon (C++,
cpp/include/hockeystick/contraction_sums.hpp).  A schedule is a fixed sequence of
rounds, so here only epsilon / delta broadcast (any shape); the other parameters
are scalars and sigma / learning_rate are scalars or 1-d arrays of length T.
D_j = 2 rho (convex), 2 (rho + eta_j L) (nonconvex), as in trusted_aggregator.py.

Corollary 1 (000 eq. 11): eta_t = 1/(lambda t), sigma_t = sigma, so the product
radii are 2 rho sqrt(m) lambda j / sigma.  (The paper prints theta(2 rho sqrt(lambda m j)/sigma);
2 rho sqrt(m)/(eta_j sigma) with eta_j = 1/(lambda j) gives 2 rho sqrt(m) lambda j / sigma,
which is also what the paper's own upper bound theta(2 rho lambda n/(sqrt(m) sigma)) at j = T implies.)
``paper_closed_form()`` returns eq. 11's looser closed form.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..base import validation as _validation
from ..base.accountant import Bound
from ..base.elementwise import FloatOrArray
from . import _checks, _kernels
from .trusted_aggregator import TrustedAggregator


def _scalar(value: npt.ArrayLike, name: str, check: Callable[[npt.ArrayLike, str], np.ndarray]) -> float:
    arr = check(value, name)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a scalar for a per-round schedule (only epsilon / delta broadcast)")
    return float(arr)


def _per_round(value: npt.ArrayLike, name: str) -> np.ndarray:
    arr = _checks.positive(value, name)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a scalar or a 1-d array with one value per round")
    return arr


class TrustedAggregatorSchedule:
    """000 Theorem 2, general form: per-round sigma_t and eta_t (1-d arrays of length T, or scalars).

    Parameters
    ----------
    n, batch_size : users and users per round (whole numbers, batch_size <= n)
    sigma, learning_rate : scalars or 1-d arrays of one common length T (the rounds)
    lipschitz, radius : L and rho (scalars > 0)
    rounds : T when both sigma and learning_rate are scalars (default floor(n/m))
    smoothness : beta; checked eta_t <= 2/beta for every t when given
    nonconvex : use the diameter 2(rho + eta_t L) (no convexity/smoothness needed)

    The number of rounds must be <= floor(n / batch_size) (see trusted_aggregator.py).
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
            raise ValueError(f"sigma and learning_rate must have the same length (got {sorted(lengths)})")
        max_rounds = math.floor(self.n / self.batch_size)
        if lengths:
            count = lengths.pop()
            if rounds is not None and rounds != count:
                raise ValueError(f"rounds ({rounds}) must equal the schedule length ({count})")
        else:
            count = max_rounds if rounds is None else int(_scalar(rounds, "rounds", _checks.positive_integer))
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
        diameter = 2.0 * (self.radius + self.learning_rate * self.lipschitz) if nonconvex else 2.0 * self.radius
        root_m = math.sqrt(self.batch_size)
        self._weight = self.batch_size / self.n
        with np.errstate(over="ignore"):
            self._r_first = 2.0 * self.lipschitz / (root_m * self.sigma)
            self._r_product = diameter * root_m / (self.learning_rate * self.sigma)
        _checks.finite_radii(
            r1=(self._r_first, "2 lipschitz / (sqrt(batch_size) sigma)"),
            r2=(self._r_product, "diameter sqrt(batch_size) / (learning_rate sigma), diameter from radius"),
        )

    _first_stop = 0  # 0: the last iterate (a random-stop subclass sets tau0 >= 1)

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """(m/n) sum_t theta(r1_t) prod_{j>t} theta(r2_j), O(T) per epsilon."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.schedule_delta(
            _checks.epsilon_values(epsilon), self._weight, self._first_stop, self._r_first, self._r_product, threads
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """Smallest eps >= 0 with delta(eps) <= delta."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.schedule_epsilon(
            _checks.delta_values(delta), self._weight, self._first_stop, self._r_first, self._r_product, threads
        )


MAX_SCHEDULE_ROUNDS = 10**8  # one float64 learning rate per round: 0.8 GB of schedule at most


class InverseTimeRateTrustedAggregator(TrustedAggregatorSchedule):
    """000 Corollary 1: eta_t = 1/(lambda t), sigma_t = sigma, T = floor(n/m) (or ``rounds``).

    The loss is lambda-strongly convex and beta-smooth; when ``smoothness`` is given the
    theorem's eta_t <= 2/beta is checked (it binds at t = 1: lambda >= beta/2).
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
        """000 eq. 11's upper bound: every product factor replaced by the last one (eta_T = 1/(lambda T))."""
        return TrustedAggregator(
            n=self.n,
            batch_size=self.batch_size,
            sigma=float(self.sigma[0]),
            learning_rate=float(self.learning_rate[-1]),
            lipschitz=self.lipschitz,
            radius=self.radius,
            rounds=self.rounds,
        )
