"""Accountants for T rounds of the Gaussian mechanism on fixed-size batches, replace-one neighbours.

Each round draws a batch of m records from the data set's n, without replacement (the usual
fixed-size DP-SGD batch) or with replacement (paper 003's ISRL-DP silo message: K draws), and
releases a statistic of the batch plus N(0, sigma^2 I); every round is released. The per-round
mechanisms are ``mechanisms.fixed_size_subsampled_gaussian`` and
``mechanisms.with_replacement_subsampled_gaussian`` (their docstrings give the proved upper
pair and the realizable lower pair); these classes follow the library's accountant contract:
keyword parameters that broadcast, ``.delta(epsilon)`` and ``.epsilon(delta)`` returning
certified upper bounds (``bound="lower"`` / ``"both"`` for the certified lower side), one
composed PLD per distinct parameter point.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from ...base import progress
from ...base import validation as _validation
from ...base.accountant import Quantity
from ...base.accountant_docs import accountant_docs
from ...base.elementwise import ArrayLike, broadcast_float_arrays
from ...base.keyword_only import positional_deprecated
from ..compose.fft import DEFAULT_TAIL
from ..grid.distribution import (
    Bound,
    PrivacyLossDistribution,
    Result,
    bound_result,
    compose_all,
    delta_values,
    epsilon_values,
    evaluate_into,
)
from ..mechanisms.constructors import (
    DEFAULT_INTERVAL,
    checked_interval,
    fixed_size_subsampled_gaussian,
    with_replacement_subsampled_gaussian,
)
from ..reads import along_run
from ..sampling.with_replacement_shift_bound import with_replacement_shift_bound


class DistinctPoints:
    """The argument ``x`` broadcast against an accountant's parameter arrays, grouped by distinct parameter point.

    ``x`` is flat; ``points`` holds the distinct rows of the parameter arrays (columns in the order
    given); ``at(i)`` the flat indices of x at row i, ascending; ``lower`` / ``upper`` are flat
    views of the result arrays, filled by the accountant point by point and returned by
    ``result``."""

    def __init__(self, x: ArrayLike, name: str, parameters: dict[str, np.ndarray]) -> None:
        arrays, shape, self.scalar = broadcast_float_arrays(**{name: x}, **parameters)
        self._lower, self._upper = np.empty(shape), np.empty(shape)
        self.x, self.lower, self.upper = (
            arrays[0].ravel(),
            self._lower.reshape(-1),
            self._upper.reshape(-1),
        )
        # distinct rows of the parameters alone (x's length does not enter the sort), then broadcast
        # to x's shape
        own = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in parameters.values()))
        rows = np.stack([a.ravel() for a in own], axis=1)
        self.points, inverse = np.unique(rows, axis=0, return_inverse=True)
        flat = np.broadcast_to(inverse.reshape(own[0].shape), shape).ravel()
        self._order = np.argsort(flat, kind="stable")
        self._ends = np.searchsorted(flat[self._order], np.arange(self.points.shape[0] + 1))

    def at(self, i: int) -> np.ndarray:
        """The flat indices of x at the distinct point ``i``, ascending."""
        return self._order[self._ends[i] : self._ends[i + 1]]

    def count(self, start: int, stop: int) -> int:
        """How many values of x lie at the distinct points start, ..., stop - 1."""
        return int(self._ends[stop] - self._ends[start])

    def result(self, bound: Bound) -> Result:
        return bound_result(self._lower, self._upper, bound, self.scalar)


@accountant_docs()  # completes delta / epsilon docstrings with the contract's sections
class PointwiseCurves(along_run.RoundsCurves):
    """An accountant whose bounds are computed once per distinct parameter point: ``_points`` names
    its parameter arrays, ``_fill`` writes the bounds at each point; ``delta`` and ``epsilon``
    broadcast their argument against the arrays."""

    def _points(self) -> dict[str, np.ndarray]:
        """The parameter arrays, in the order of ``DistinctPoints.points``' columns."""
        raise NotImplementedError

    def _fill(self, grouped: DistinctPoints, bound: Bound, method: Quantity) -> None:
        """``grouped.lower`` / ``grouped.upper`` at every point, on the sides ``bound`` asks for."""
        raise NotImplementedError

    def _evaluate(self, x: ArrayLike, name: str, bound: Bound, method: Quantity) -> Result:
        _validation.bound_side(bound)
        grouped = DistinctPoints(x, name, self._points())
        self._fill(grouped, bound, method)
        return grouped.result(bound)

    @positional_deprecated("bound")
    def delta(self, epsilon: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on the run's delta(epsilon), the hockey-stick divergence at e^epsilon.

        Returns
        -------
        float, numpy.ndarray or tuple
            At ``epsilon = inf`` the upper side is the mass its pair puts at infinite loss (such as
            the tails a ``tail`` parameter cuts; 0 where there is none), the lower side 0.

        Raises
        ------
        ValueError
            The accountant's ``tail`` (where it has one) outside [1e-300, 1e-3).
        """
        return self._evaluate(epsilon_values(epsilon), "epsilon", bound, "delta")

    @positional_deprecated("bound")
    def epsilon(self, delta: ArrayLike, *, bound: Bound = "upper") -> Result:
        """Certified bound on the run's epsilon(delta), the smallest epsilon >= 0 with delta(epsilon) <= delta.

        Returns
        -------
        float, numpy.ndarray or tuple
            The upper side is ``inf`` where ``delta`` is below the mass its pair puts at infinite
            loss.

        Raises
        ------
        ValueError
            The accountant's ``tail`` (where it has one) outside [1e-300, 1e-3).
        """
        return self._evaluate(delta_values(delta), "delta", bound, "epsilon")


class FixedBatchGaussianPLD(PointwiseCurves):
    r"""Certified epsilon and delta of T Gaussian rounds on fixed-size batches drawn without replacement.

    Each of ``rounds`` = T rounds draws a batch of ``batch_size`` = m of the ``n`` records uniformly
    without replacement and releases the batch's sum of contributions (each of norm at most
    ``sensitivity`` = Delta; for a mean of m gradients clipped to L, Delta = L / m) plus
    N(0, sigma^2 I); every round is released; neighbours differ by replacing one record. With
    q = m / n and s = sigma / Delta, one round satisfies, for every epsilon >= 0,

    .. math::

        \delta(\varepsilon) \le q\, \theta_{\log(1 + (e^{\varepsilon} - 1)/q)}(2/s),

    with :math:`\theta_{\varepsilon}(r) = \Phi(r/2 - \varepsilon/r) - e^{\varepsilon}\Phi(-r/2 -
    \varepsilon/r)` the hockey-stick divergence of N(r, 1) and N(0, 1). The bound is attained (the
    other records at -L, the replaced one at +L and its replacement at -L), so the rounds' pair is
    realizable. The upper side composes that pair mirrored below loss 0 (it dominates both orders of
    every neighbouring pair, so it composes adaptively), the lower side the realizable pair itself,
    T-fold by FFT (``hockeystick.pld.fixed_size_subsampled_gaussian`` gives one round). With
    ``batch_size = n`` the rounds are the Gaussian mechanism of shift 2 Delta.

    Parameters
    ----------
    sigma : array_like
        Standard deviation of the Gaussian noise, > 0, in the units of ``sensitivity``; broadcasts.
    batch_size : array_like
        Batch size m, an integer with 1 <= m <= n; broadcasts.
    n : array_like
        Number of records, an integer >= 1 (the keyword ``dataset_size`` is accepted for it, with a
        DeprecationWarning); broadcasts.
    rounds : array_like
        Number of rounds T, an integer with 1 <= T <= 2**53; broadcasts.
    sensitivity : array_like, optional
        Norm bound Delta of one record's contribution, > 0 (default 1); broadcasts.
    value_discretization_interval : float, optional
        Spacing h of the privacy-loss grid, 0 < h <= 100 (default 1e-4); smaller is tighter and
        slower.
    tail : float, optional
        Probability mass of each round's loss cut from the continuous mechanism's tails (sent to
        +infinity on the upper side, dropped on the lower side), 1e-300 <= tail < 1e-3 (default
        1e-15; a value outside is refused by the first ``delta`` or ``epsilon`` call).

    Raises
    ------
    ValueError
        If ``sigma`` or ``sensitivity`` is not finite and > 0, ``batch_size``, ``n`` or ``rounds``
        is not an integer >= 1, ``batch_size`` > ``n`` anywhere (draws with replacement:
        ``WithReplacementBatchGaussianPLD``), or ``value_discretization_interval`` is outside (0,
        100].
    ParameterTypeError
        If a parameter is a string, a boolean or None.

    See Also
    --------
    WithReplacementBatchGaussianPLD : The same rounds with batches drawn with replacement.
    SubsampledGaussianPLD : Poisson-subsampled rounds under add/remove neighbours.

    Notes
    -----
    ``delta(epsilon, bound=...)`` and ``epsilon(delta, bound=...)`` return the certified upper bound
    (default), the certified lower bound (``bound="lower"``) or the pair (lower, upper)
    (``bound="both"``); every parameter and the argument broadcast together, and one composed PLD is
    built per distinct (sigma, batch_size, n, rounds, sensitivity).

    References
    ----------
    Balle, Barthe & Gaboardi 2018, Thm 2 (advanced joint convexity: the per-round bound); paper 000,
    eq. 6 (theta); Zhu, Dong & Wang 2022 (dominating pairs, adaptive composition); Doroshenko et al.
    2022 (the discretization).

    Examples
    --------
    >>> from hockeystick.pld import FixedBatchGaussianPLD
    >>> acc = FixedBatchGaussianPLD(sigma=1.0, batch_size=100, n=10_000, rounds=100)
    >>> [round(e, 3) for e in acc.epsilon(1e-5, bound="both")]
    [6.476, 6.641]
    """

    CURVE_PARAMETERS = ("sigma", "batch_size", "n", "sensitivity")

    _mechanism: Callable[..., PrivacyLossDistribution] = staticmethod(
        fixed_size_subsampled_gaussian
    )
    _with_replacement = False

    @_validation.renamed_keywords(dataset_size="n")
    def __init__(
        self,
        sigma: ArrayLike,
        batch_size: ArrayLike,
        n: ArrayLike,
        rounds: ArrayLike,
        *,
        sensitivity: ArrayLike = 1.0,
        value_discretization_interval: float = DEFAULT_INTERVAL,
        tail: float = DEFAULT_TAIL,
    ):
        (s, m, n, t, c), _, _ = broadcast_float_arrays(
            sigma=_validation.positive(sigma, "sigma"),
            batch_size=_validation.positive_integer(batch_size, "batch_size"),
            n=_validation.positive_integer(n, "n"),
            rounds=_validation.positive_integer(
                rounds, "rounds", maximum=_validation.MAX_EXACT_INTEGER
            ),
            sensitivity=_validation.positive(sensitivity, "sensitivity"),
        )
        if not self._with_replacement and np.any(m > n):
            raise ValueError(
                "batch_size must be <= n (batches drawn without replacement; "
                "use WithReplacementBatchGaussianPLD for draws with replacement)"
            )
        h = checked_interval(value_discretization_interval)
        self.sigma, self.batch_size, self.n, self.rounds, self.sensitivity = s, m, n, t, c
        self.value_discretization_interval = h
        self.tail = float(_validation.real(_validation.single(tail, "tail"), "tail"))
        # one round, per (sigma, m, n, Delta); composed, per (sigma, m, n, Delta, T)
        self._rounds: dict[tuple[float, int, int, float], list[PrivacyLossDistribution]] = {}
        self._plds: dict[tuple[float, int, int, float, int], list[PrivacyLossDistribution]] = {}

    BATCH = 64  # distinct points composed per batch of FFTs (their composed PLDs are then dropped)

    @property
    def dataset_size(self) -> np.ndarray:
        """Deprecated name of ``n`` (the records a batch is drawn from)."""
        warnings.warn("dataset_size is deprecated; use n", DeprecationWarning, stacklevel=2)
        return self.n

    def _round_pairs(
        self, sigma: float, m: int, n: int, sensitivity: float
    ) -> list[PrivacyLossDistribution]:
        """One round's PLDs: the first carries both sides, any further one a second upper side."""
        return [
            self._mechanism(
                sigma,
                m,
                n,
                sensitivity=sensitivity,
                value_discretization_interval=self.value_discretization_interval,
                tail=self.tail,
            )
        ]

    def _composed(
        self, sigma: float, m: int, n: int, rounds: int, sensitivity: float
    ) -> list[PrivacyLossDistribution]:
        point = (sigma, m, n, sensitivity)
        if point not in self._rounds:
            self._rounds[point] = self._round_pairs(sigma, m, n, sensitivity)
        key = (*point, rounds)
        if key not in self._plds:
            self._plds[key] = [d.self_compose(rounds) for d in self._rounds[point]]
        return self._plds[key]

    def _points(self) -> dict[str, np.ndarray]:
        return {
            "sigma": self.sigma,
            "batch_size": self.batch_size,
            "n": self.n,
            "rounds": self.rounds,
            "sensitivity": self.sensitivity,
        }

    def _fill(self, grouped: DistinctPoints, bound: Bound, method: Quantity) -> None:
        # BATCH distinct points at a time are composed in one batch of FFTs per side (a factor
        # shared by several rounds values is transformed once), then evaluated and dropped.
        unique, flat_x, flat_lo, flat_up = grouped.points, grouped.x, grouped.lower, grouped.upper
        for start in range(0, unique.shape[0], self.BATCH):
            block = range(start, min(start + self.BATCH, unique.shape[0]))
            pairs = [
                self._composed(float(si), int(mi), int(ni), int(ti), float(ci))
                for si, mi, ni, ti, ci in unique[block.start : block.stop]
            ]
            # a curve's checkpoints (rounds_curve's copy) on divisors of one FFT length:
            # compose_many's shared_transform
            if bound != "lower":
                compose_all([d for ds in pairs for d in ds], True, shared_transform=self._along_run)
            if bound != "upper":
                compose_all([ds[0] for ds in pairs], False, shared_transform=self._along_run)
            for i, ds in zip(block, pairs):
                where = grouped.at(i)
                evaluate_into(ds[0], method, flat_x, bound, flat_lo, flat_up, where)
                for extra in ds[1:]:  # a further proved upper side: the smaller bound is certified
                    if bound != "lower":
                        flat_up[where] = np.minimum(
                            flat_up[where], getattr(extra, method)(flat_x[where], bound="upper")
                        )
            self._plds.clear()
            progress.advance(grouped.count(block.start, block.stop))


class WithReplacementBatchGaussianPLD(FixedBatchGaussianPLD):
    r"""Certified epsilon and delta of T Gaussian rounds on batches of K indices drawn with replacement.

    Each of ``rounds`` = T rounds draws ``batch_size`` = K indices uniformly with replacement from
    the ``n`` records (``batch_size`` may exceed ``n``) and releases their summed contributions
    (each of norm at most ``sensitivity`` = Delta) plus N(0, sigma^2 I); every round is released;
    replace-one neighbours. This is paper 003's ISRL-DP silo transcript (Noisy MB-SGD, K =
    batch_size, Delta = L / K). The replaced record appears c ~ Binomial(K, 1/n) times; with
    :math:`b_c` its pmf, s = sigma / Delta, :math:`r_c = 2c/s` and :math:`\eta = 1 - b_0`, two
    proved upper sides are composed and the smaller bound is reported:

    * the labelled pair (exact for K = 1; ``hockeystick.pld.with_replacement_subsampled_gaussian``),

      .. math::

          \delta(\varepsilon) \le \sum_{c \ge 1} b_c\,
          \theta_{\log(1 + (e^{\varepsilon} - 1)/\eta)}(r_c);

    * the shift-constrained curve (the conditional coupling of Schuchardt et al. 2024 and the
      Gaussian shift inequality; ``hockeystick.pld.sampling.with_replacement_shift_bound``),

      .. math::

          D(\gamma) = \sup_{\alpha}\; b_0 (1 - \gamma)\Phi(\alpha)
          + \sum_{c \ge 1} b_c \max_{\alpha - r_c \le \beta \le \alpha}
          \left[\Phi(\beta + r_c) - \gamma\Phi(\beta)\right].

    The lower side is the realizable pair :math:`\sum_c b_c N(2c, s^2)` vs :math:`N(0, s^2)` (the
    other records at -L).

    Parameters
    ----------
    sigma : array_like
        Standard deviation of the Gaussian noise, > 0, in the units of ``sensitivity``; broadcasts.
    batch_size : array_like
        Indices K drawn per round, an integer >= 1 (it may exceed ``n``); broadcasts.
    n : array_like
        Number of records, an integer >= 1 (the keyword ``dataset_size`` is accepted for it, with a
        DeprecationWarning); broadcasts.
    rounds : array_like
        Number of rounds T, an integer with 1 <= T <= 2**53; broadcasts.
    sensitivity : array_like, optional
        Norm bound Delta of one record's contribution, > 0 (default 1); broadcasts.
    value_discretization_interval : float, optional
        Spacing h of the privacy-loss grid, 0 < h <= 100 (default 1e-4); smaller is tighter and
        slower.
    tail : float, optional
        Probability mass of each round's loss cut from the continuous mechanism's tails (sent to
        +infinity on the upper side, dropped on the lower side), 1e-300 <= tail < 1e-3 (default
        1e-15; a value outside is refused by the first ``delta`` or ``epsilon`` call).

    Raises
    ------
    ValueError
        If ``sigma`` or ``sensitivity`` is not finite and > 0, ``batch_size``, ``n`` or ``rounds``
        is not an integer >= 1, or ``value_discretization_interval`` is outside (0, 100].
    ParameterTypeError
        If a parameter is a string, a boolean or None.

    See Also
    --------
    FixedBatchGaussianPLD : The same rounds with batches drawn without replacement.

    Notes
    -----
    ``delta`` and ``epsilon`` are ``FixedBatchGaussianPLD``'s: the certified upper bound (default),
    the certified lower bound (``bound="lower"``) or the pair (``bound="both"``), parameters and
    argument broadcast together.

    References
    ----------
    Paper 003, Alg. 2 (the silo message); Balle, Barthe & Gaboardi 2018, Thm 2 (the labelled pair);
    Schuchardt et al. 2024, Sec. 3 (the conditional coupling); Zhu, Dong & Wang 2022 (adaptive
    composition of dominating pairs).
    """

    _mechanism = staticmethod(with_replacement_subsampled_gaussian)
    _with_replacement = True

    def _round_pairs(
        self, sigma: float, m: int, n: int, sensitivity: float
    ) -> list[PrivacyLossDistribution]:
        return [
            *super()._round_pairs(sigma, m, n, sensitivity),
            with_replacement_shift_bound(
                sigma,
                m,
                n,
                sensitivity=sensitivity,
                value_discretization_interval=self.value_discretization_interval,
                tail=self.tail,
            ),
        ]
