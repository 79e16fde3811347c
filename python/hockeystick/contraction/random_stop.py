"""000 Corollary 3: Algorithm 1 stopped at a uniformly random round, and alpha-suffix averaging.

With tau uniform on {tau0, ..., T} (tau0 = 1: Corollary 3; tau0 = max(1, ceil(alpha T)):
the alpha-suffix variant mentioned at the end of 000 Section IV), Jensen's inequality
and the proof of Theorem 2 give, with N = T - tau0 + 1 stopping times,

    delta(eps) = (m/n) (1/N) sum_{tau=tau0..T} sum_{t=1..tau} theta_eps(r1_t) prod_{j=t+1..tau} theta_eps(r2_j)

which for tau0 = 1 and T = n/m is the paper's (1/T^2) double sum.  The double sum is
accumulated in O(T) (S_tau = b_tau S_{tau-1} + a_tau, R = sum S_tau).  For a constant
schedule it is the closed form (000 eq. 12)
    (m/n)(1/N) theta(r1) sum_{tau=tau0..T} (1 - theta(r2)^tau) / (1 - theta(r2)),
summed exactly as H(N) + G(tau0) G(N) (contraction/sums.hpp) with no cancellation.

    RandomStopTrustedAggregator          constant eta, sigma; all arguments broadcast
    RandomStopTrustedAggregatorSchedule  per-round eta_t, sigma_t (exact O(T) double sum);
                                         ``paper_closed_form()`` is eq. 12 with eta*, sigma* the minima
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
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
        raise ValueError(
            f"suffix (alpha) must be a scalar with 0 <= alpha < 1, got {describe(suffix)}"
        )
    return float(alpha)


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class RandomStopTrustedAggregator(TrustedAggregator):
    r"""Delta(epsilon) of paper 000's Corollary 3, Algorithm 1 stopped at a uniformly random round.

    The output is the model :math:`W_\tau`, :math:`\tau` uniform on :math:`\{\tau_0, \dots, T\}`
    with :math:`\tau_0 = \max(1, \lceil \alpha T \rceil)` (alpha = 0: Corollary 3; alpha > 0: the
    alpha-suffix averaging mentioned at the end of paper 000's Section IV). With :math:`N = T -
    \tau_0 + 1` and a constant schedule (eq. 12):

    .. math::

        \delta(\varepsilon) = \frac{m}{n} \frac{1}{N} \sum_{\tau=\tau_0}^{T} \sum_{t=1}^{\tau}
          \theta_\varepsilon(r_1)\, \theta_\varepsilon(r_2)^{\tau - t}
          = \frac{m}{n} \frac{1}{N}\, \theta_\varepsilon(r_1) \sum_{\tau=\tau_0}^{T}
            \frac{1 - \theta_\varepsilon(r_2)^\tau}{1 - \theta_\varepsilon(r_2)},

    r1, r2 as in ``TrustedAggregator`` (D = 2 rho); for :math:`\tau_0 = 1` and T = n/m this is the
    paper's :math:`1/T^2` double sum. The sum is evaluated exactly (no cancellation) and rounded up
    by 2^-42 relative.

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
        Smoothness beta, finite and > 0; if given, eta <= 2/beta is checked.
    suffix : float, default 0.0
        alpha, a scalar with 0 <= alpha < 1: the stop tau is uniform on
        {max(1, ceil(alpha T)), ..., T} (0: Corollary 3; > 0: alpha-suffix averaging).

    Raises
    ------
    ValueError
        As ``TrustedAggregator``; ``suffix`` not a scalar in [0, 1).
    ParameterTypeError
        A parameter that is a string, bool or None.

    References
    ----------
    Paper 000, Corollary 3 (eq. 12) and Section IV (alpha-suffix averaging).

    Examples
    --------
    >>> from hockeystick.contraction import RandomStopTrustedAggregator
    >>> accountant = RandomStopTrustedAggregator(
    ...     n=100, batch_size=10, sigma=1.5, learning_rate=0.5, lipschitz=1.0, radius=1.0
    ... )
    >>> round(accountant.delta(1.0), 6)
    0.001112
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

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Corollary's delta(eps) = (m/n)(1/N) theta(r1) sum_{tau=tau0..T} (1 - theta(r2)^tau)/(1 - theta(r2)).

        Paper 000, eq. 12 (with tau0 from ``suffix``); the value is rounded up by 2^-42 relative and
        capped at 1.  Upper side only: the theorem gives no lower bound.

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
        return _kernels.random_stop_delta(
            _checks.epsilon_values(epsilon),
            self._stop_weight,
            self.rounds,
            self._first_stop,
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
    r"""Delta(epsilon) of paper 000's Corollary 3 with per-round eta_t and sigma_t, the double sum in O(T).

    .. math::

        \delta(\varepsilon) = \frac{m}{n} \frac{1}{N} \sum_{\tau=\tau_0}^{T} \sum_{t=1}^{\tau}
          \theta_\varepsilon\Big(\frac{2L}{\sqrt{m}\,\sigma_t}\Big)
          \prod_{j=t+1}^{\tau} \theta_\varepsilon\Big(\frac{D_j\sqrt{m}}{\eta_j\sigma_j}\Big),

    :math:`\tau_0 = \max(1, \lceil \alpha T \rceil)`, :math:`N = T - \tau_0 + 1`, D_j as in
    ``TrustedAggregatorSchedule``; accumulated as :math:`S_\tau = b_\tau S_{\tau-1} + a_\tau`,
    :math:`R = \sum_\tau S_\tau` and rounded up by 2^-42 relative. ``paper_closed_form()`` is eq. 12
    at the smallest eta_t and sigma_t (looser). Only the argument of ``delta``/``epsilon``
    broadcasts.

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
        Step eta_t, finite and > 0: a scalar, or a 1-d array of length T.
    lipschitz : float
        Lipschitz constant L of the loss, finite and > 0 (scalar).
    radius : float
        Radius rho of the projection ball, finite and > 0 (scalar).
    rounds : int, optional
        Rounds T when ``sigma`` and ``learning_rate`` are scalars (default floor(n/m)); otherwise,
        if given, equal to the schedule's length; 1 <= T <= floor(n/m).
    smoothness : array_like, optional
        Smoothness beta, finite and > 0; if given (and not ``nonconvex``), eta_t <= 2/beta is
        checked.
    nonconvex : bool, default False
        Use the diameter 2(rho + eta_t L) (no convexity or smoothness needed).
    suffix : float, default 0.0
        alpha, a scalar with 0 <= alpha < 1: the stop tau is uniform on
        {max(1, ceil(alpha T)), ..., T} (0: Corollary 3; > 0: alpha-suffix averaging).

    Raises
    ------
    ValueError
        As ``TrustedAggregatorSchedule``; ``suffix`` not a scalar in [0, 1).
    ParameterTypeError
        A parameter that is a string, bool or None; ``nonconvex`` not a bool.

    References
    ----------
    Paper 000, Corollary 3 (eq. 12), Theorem 2 and Section IV (alpha-suffix averaging).

    Examples
    --------
    >>> from hockeystick.contraction import RandomStopTrustedAggregatorSchedule
    >>> accountant = RandomStopTrustedAggregatorSchedule(
    ...     n=100, batch_size=10, sigma=1.5, learning_rate=0.5, lipschitz=1.0, radius=1.0
    ... )
    >>> round(accountant.delta(1.0), 6)
    0.001112
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
        """Paper 000 eq. 12's closed form at eta* = min eta_t and sigma* = min sigma_t (a looser bound).

        Returns
        -------
        RandomStopTrustedAggregator
            The constant-schedule accountant at (eta*, sigma*), with the same ``suffix``.

        Raises
        ------
        ValueError
            With ``nonconvex=True`` (eq. 12 is stated for the convex diameter 2 rho).
        """
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
