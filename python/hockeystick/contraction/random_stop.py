"""000 Corollary 3: Algorithm 1 stopped at a uniformly random round, and alpha-suffix averaging.

With tau uniform on {tau0, ..., T} (tau0 = 1: Corollary 3; tau0 = max(1, ceil(alpha T)):
the alpha-suffix variant mentioned at the end of 000 Section IV), Jensen's inequality
and the proof of Theorem 2 give, with N = T - tau0 + 1 stopping times,

    delta(eps) = (m/n) (1/N) sum_{tau=tau0..T} sum_{t=1..tau} theta_eps(r1_t) prod_{j=t+1..tau} theta_eps(r2_j)

which for tau0 = 1 and T = n/m is the paper's (1/T^2) double sum.  The double sum is
accumulated in O(T) (S_tau = b_tau S_{tau-1} + a_tau, R = sum S_tau).  For a constant
schedule it is the closed form (000 eq. 12)
    (m/n)(1/N) theta(r1) sum_{tau=tau0..T} (1 - theta(r2)^tau) / (1 - theta(r2)),
summed exactly as H(N) + G(tau0) G(N) (contraction_sums.hpp) with no cancellation.

    RandomStopTrustedAggregator          constant eta, sigma; all arguments broadcast
    RandomStopTrustedAggregatorSchedule  per-round eta_t, sigma_t (exact O(T) double sum);
                                         ``paper_closed_form()`` is eq. 12 with eta*, sigma* the minima
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.elementwise import FloatOrArray
from ..base.validation import describe
from . import _checks, _kernels
from .schedule import TrustedAggregatorSchedule
from .trusted_aggregator import TrustedAggregator


def first_stop(rounds: np.ndarray | float, suffix: float) -> np.ndarray:
    """tau0 = max(1, ceil(alpha T)): the first round tau may stop at."""
    return np.maximum(1.0, np.ceil(suffix * np.asarray(rounds, dtype=np.float64)))


def _check_suffix(suffix: float) -> float:
    alpha = _checks.real(suffix, "suffix")
    if alpha.ndim != 0 or not 0.0 <= float(alpha) < 1.0:
        raise ValueError(f"suffix (alpha) must be a scalar with 0 <= alpha < 1, got {describe(suffix)}")
    return float(alpha)


class RandomStopTrustedAggregator(TrustedAggregator):
    """000 Corollary 3 (suffix = 0) or alpha-suffix averaging (0 < suffix < 1), constant schedule.

    Same parameters as TrustedAggregator (all broadcast), plus ``suffix`` alpha (scalar):
    the output is W_tau with tau uniform on {max(1, ceil(alpha T)), ..., T}.
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
        suffix: float = 0.0,
    ) -> None:
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
        self.suffix = _check_suffix(suffix)
        self._first_stop = first_stop(self.rounds, self.suffix)
        self._stop_weight = self._weight / (self.rounds - self._first_stop + 1.0)

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """(m/n)(1/N) theta(r1) sum_{tau=tau0..T} (1 - theta(r2)^tau)/(1 - theta(r2))  (000 eq. 12)."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.random_stop_delta(
            _checks.epsilon_values(epsilon),
            self._stop_weight,
            self.rounds,
            self._first_stop,
            self._r_first,
            self._r_product,
            threads,
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """Smallest eps >= 0 with delta(eps) <= delta."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.random_stop_epsilon(
            _checks.delta_values(delta),
            self._stop_weight,
            self.rounds,
            self._first_stop,
            self._r_first,
            self._r_product,
            threads,
        )


class RandomStopTrustedAggregatorSchedule(TrustedAggregatorSchedule):
    """000 Corollary 3 with per-round eta_t, sigma_t: the exact double sum in O(T).

    Parameters as TrustedAggregatorSchedule, plus ``suffix`` alpha in [0, 1).
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
        suffix: float = 0.0,
    ) -> None:
        super().__init__(
            n=n,
            batch_size=batch_size,
            sigma=sigma,
            learning_rate=learning_rate,
            lipschitz=lipschitz,
            radius=radius,
            rounds=rounds,
            smoothness=smoothness,
            nonconvex=nonconvex,
        )
        self.suffix = _check_suffix(suffix)
        self.nonconvex = _checks.flag(nonconvex, "nonconvex")
        self._first_stop = int(first_stop(self.rounds, self.suffix))
        self._weight = self._weight / (self.rounds - self._first_stop + 1)

    def paper_closed_form(self) -> RandomStopTrustedAggregator:
        """000 eq. 12: the constant-schedule bound at eta* = min eta_t, sigma* = min sigma_t (looser)."""
        if self.nonconvex:
            raise ValueError(
                "000 eq. 12 is stated for the convex diameter 2 rho; nonconvex=True has no closed form there"
            )
        return RandomStopTrustedAggregator(
            n=self.n,
            batch_size=self.batch_size,
            sigma=float(self.sigma.min()),
            learning_rate=float(self.learning_rate.min()),
            lipschitz=self.lipschitz,
            radius=self.radius,
            rounds=self.rounds,
            suffix=self.suffix,
        )
