"""Accountants for T rounds of the Gaussian mechanism on fixed-size batches, replace-one neighbours.

Each round draws a batch of m records from the data set's n, without replacement (the usual
fixed-size DP-SGD batch) or with replacement (paper 003's ISRL-DP silo message: K draws), and
releases a statistic of the batch plus N(0, sigma^2 I); every round is released. The per-round
mechanisms are :func:`mechanisms.fixed_size_subsampled_gaussian` and
:func:`mechanisms.with_replacement_subsampled_gaussian` (their docstrings give the proved upper
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
from ...base.elementwise import ArrayLike, broadcast_float_arrays
from ..compose.distribution import (
    Bound,
    PrivacyLossDistribution,
    Result,
    bound_result,
    compose_all,
    delta_values,
    epsilon_values,
    evaluate_into,
)
from ..compose.fft import DEFAULT_TAIL
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

    ``x`` is flat; ``points`` holds the distinct rows of the parameter arrays (columns in the order given);
    ``at(i)`` the flat indices of x at row i, ascending; ``lower`` / ``upper`` are flat views of the result
    arrays, filled by the accountant point by point and returned by ``result``."""

    def __init__(self, x: ArrayLike, name: str, parameters: dict[str, np.ndarray]) -> None:
        arrays, shape, self.scalar = broadcast_float_arrays(**{name: x}, **parameters)
        self._lower, self._upper = np.empty(shape), np.empty(shape)
        self.x, self.lower, self.upper = arrays[0].ravel(), self._lower.reshape(-1), self._upper.reshape(-1)
        # distinct rows of the parameters alone (x's length does not enter the sort), then broadcast to x's shape
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


class PointwiseCurves(along_run.RoundsCurves):
    """An accountant whose bounds are computed once per distinct parameter point: ``_points`` names its
    parameter arrays, ``_fill`` writes the bounds at each point; ``delta`` and ``epsilon`` broadcast their
    argument against the arrays."""

    def _points(self) -> dict[str, np.ndarray]:
        """The parameter arrays, in the order of ``DistinctPoints.points``' columns."""
        raise NotImplementedError

    def _fill(self, grouped: DistinctPoints, bound: Bound, method: str) -> None:
        """``grouped.lower`` / ``grouped.upper`` at every point, on the sides ``bound`` asks for."""
        raise NotImplementedError

    def _evaluate(self, x: ArrayLike, name: str, bound: Bound, method: str) -> Result:
        _validation.bound_side(bound)
        grouped = DistinctPoints(x, name, self._points())
        self._fill(grouped, bound, method)
        return grouped.result(bound)

    def delta(self, epsilon: ArrayLike, bound: Bound = "upper") -> Result:
        """Certified upper bound on delta(epsilon) (``bound="lower"``: certified lower bound, ``"both"``)."""
        return self._evaluate(epsilon_values(epsilon), "epsilon", bound, "delta")

    def epsilon(self, delta: ArrayLike, bound: Bound = "upper") -> Result:
        """Smallest epsilon >= 0 whose certified delta bound is <= delta (``bound="lower"``, ``"both"``)."""
        return self._evaluate(delta_values(delta), "delta", bound, "epsilon")


class FixedBatchGaussianPLD(PointwiseCurves):
    """T rounds of the Gaussian mechanism on batches of m of n records drawn WITHOUT replacement,
    replace-one neighbours, every round released.

    ``sensitivity`` = Delta bounds one record's contribution (for a mean of m gradients clipped to
    L: Delta = L/m). Per round, for eps >= 0 (q = m/n, s = sigma/Delta):
        delta(eps) <= q theta(2/s, log(1 + (e^eps - 1)/q)),
    attained by a configuration (the other records at -L); composed by FFT over the
    symmetrised pair (upper) and the realizable pair (lower). ``batch_size = n`` is
    the Gaussian mechanism with shift 2 Delta.
    """

    CURVE_PARAMETERS = ("sigma", "batch_size", "n", "sensitivity")

    _mechanism: Callable[..., PrivacyLossDistribution] = staticmethod(fixed_size_subsampled_gaussian)
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
            rounds=_validation.positive_integer(rounds, "rounds", maximum=_validation.MAX_EXACT_INTEGER),
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

    def _round_pairs(self, sigma: float, m: int, n: int, sensitivity: float) -> list[PrivacyLossDistribution]:
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

    def _composed(self, sigma: float, m: int, n: int, rounds: int, sensitivity: float) -> list[PrivacyLossDistribution]:
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

    def _fill(self, grouped: DistinctPoints, bound: Bound, method: str) -> None:
        # BATCH distinct points at a time are composed in one batch of FFTs per side (a factor
        # shared by several rounds values is transformed once), then evaluated and dropped.
        unique, flat_x, flat_lo, flat_up = grouped.points, grouped.x, grouped.lower, grouped.upper
        for start in range(0, unique.shape[0], self.BATCH):
            block = range(start, min(start + self.BATCH, unique.shape[0]))
            pairs = [
                self._composed(float(si), int(mi), int(ni), int(ti), float(ci))
                for si, mi, ni, ti, ci in unique[block.start : block.stop]
            ]
            # a curve's checkpoints (rounds_curve's copy) on divisors of one FFT length: compose_many's shared_transform
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
    """T rounds of the Gaussian mechanism on batches of K indices drawn WITH replacement from n
    records, replace-one neighbours, every round released: paper 003's ISRL-DP silo transcript
    (Noisy MB-SGD, K = batch_size, sensitivity = L/K).

    The replaced record appears c ~ Binomial(K, 1/n) times (b_c its pmf, s = sigma/Delta,
    r_c = 2c/s).  Two proved upper sides are composed and the smaller bound is reported:
    (*) the labelled pair, delta(eps) <= sum_{c>=1} b_c theta(2c/s, log(1 + (e^eps - 1)/eta)),
    eta = 1 - b_0 (exact for K = 1; :func:`mechanisms.with_replacement_subsampled_gaussian`), and
    the shift-constrained curve (Schuchardt et al. 2024's conditional coupling + the Gaussian
    shift inequality; :mod:`with_replacement_shift_bound`)
        D(gamma) = sup_alpha b_0 (1 - gamma) Phi(alpha)
                   + sum_{c>=1} b_c max_{alpha - r_c <= beta <= alpha} [Phi(beta + r_c) - gamma Phi(beta)],
    which is within a few per cent of the lower side at paper 003's App. I rows.  The lower side
    is the realizable pair sum_c b_c N(2c) vs N(0) (other records at -L).  ``batch_size`` may
    exceed ``n``.
    """

    _mechanism = staticmethod(with_replacement_subsampled_gaussian)
    _with_replacement = True

    def _round_pairs(self, sigma: float, m: int, n: int, sensitivity: float) -> list[PrivacyLossDistribution]:
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
