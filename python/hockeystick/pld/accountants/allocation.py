"""Accountants for epochs of balls-in-bins batches and of shuffled fixed-size batches, Gaussian noise.

Both draw each epoch's batches anew and release every step; an epoch has t steps and a run T steps,
E = T // t whole epochs and a last one stopped after r = T mod t steps.

``BallsInBinsGaussianPLD`` (add/remove neighbours): each record joins one of the epoch's t steps,
chosen uniformly and independently of the others (``random_allocation.random_allocation_gaussian``).
A whole epoch is that pair; the last, stopped one releases the record's step with probability r / t,
and then it is uniform over the r steps released: the same pair over r steps with the record absent
with probability 1 - r / t. Epochs compose (Zhu, Dong, Wang 2022, Thm. 10).  Both sides certified.

With k > 1 (each record in k of the t steps, a uniform k-subset, independently of the others): the
adaptive epoch is dominated by the same allocation of the one-step Gaussian pair (Feldman & Shenfeld
2025, Thm. 3.1, any k).  For that non-adaptive pair, write t = k m + r and split the t steps by a
uniformly random partition into r blocks of m + 1 and k - r blocks of m, then pick one step per
block uniformly: by symmetry under the permutations of the steps the k-subset so drawn is uniform.
Given the partition the epoch is the product of the blocks' one-of-(m + 1) and one-of-m allocations;
the mixture over partitions is bounded by that product (joint convexity, Q not depending on the
partition), so an epoch is dominated by r compositions of the one-of-(m + 1) pair and k - r of the
one-of-m pair (Feldman & Shenfeld 2025, Lemma 3.2, blocks of t / k when k divides t).  A stopped
epoch releases a prefix of the steps, a post-processing of a whole one, and is counted as whole on
the upper side.  Lower side: a realizable post-processing, the sum of an epoch's released steps:
with the record contributing 1 and the others 0 it is N(k, t sigma^2) vs N(0, t sigma^2), the
Gaussian mechanism of radius k / (sigma sqrt t), E whole epochs composing to radius k sqrt(E) /
(sigma sqrt t) (the stopped one dropped, a post-processing again).  At k = t both sides are the
composed Gaussian; the lower side is loose for k much below t.

``ShuffledBatchGaussianPLD`` (replace-one neighbours: a fixed-size batch keeps its size): each epoch
a fresh uniform permutation of the n records is cut into t = ceil(n / b) batches of b (the last may
be shorter).  Upper side: given the permutation, the replaced record is in exactly one step of the
epoch, where the clipped sum moves by at most 2 (two contributions of norm at most 1), and every
other step is the same mechanism on both data sets; so each epoch is dominated by the Gaussian pair
N(2, sigma^2) vs N(0, sigma^2) (adaptive composition), and so is the mixture over permutations
(joint convexity of every hockey-stick divergence): E epochs and a started one compose to the
Gaussian mechanism with mu = 2 sqrt(E + [r > 0]) / sigma, exact (theta of ``certified_theta``, the
radius and the value rounded up).  The shuffling's amplification is not used: no dominating pair
that uses it is proved for adaptive steps under replace-one.  Lower side: a realizable pair.  Every
other record contributes -1 and the record +1, replaced by one contributing -1; the data set with
the replacement is n copies of one record, so its batch sums (-b, and minus the short batch's size
there) say nothing of the permutation, while with the record the sum of its batch is 2 higher.  Its
batch is uniform over the n slots; an observer who subtracts the known sums and reads only the full
batches (a post-processing) sees the balls-in-bins pair at shift 2, (1/t') sum_j N(2 e_j, sigma^2 I)
vs N(0, sigma^2 I) over those t' steps, the record absent with the probability that it lies in a
short or unreleased batch (``shuffled_lower_parts``), both directions by exchanging the two data
sets.  That pair is the candidate upper side built from the record's uniform position: being
realizable, no upper side of that form can be smaller; it is not proved to dominate (the other
records fill the slots the record leaves, so their places are not independent of its own, as they
are for balls-in-bins), and the gap between the two sides is the price of that missing proof.  Below
``MIN_NOISE`` times 2 of noise the shift-1 pair (the other records at 0, the record 1 replaced by
0), realizable as well, is taken instead.  Chua et al. 2024 show that shuffled batches can cost far
more than the Poisson accounting users report for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...base import progress
from ...base import validation as _validation
from ...base.accountant import Quantity
from ...base.elementwise import ArrayLike, broadcast_float_arrays
from ...base.event_fields import check_reach, integer, noise, require_relation
from ...base.event_refusal import NonPrivateRun
from ...base.parameter_range import gaussian_reach
from ...numerics.certified_theta import (
    radius_down,
    radius_up,
    theta_epsilon_lower,
    theta_epsilon_upper,
    theta_lower,
    theta_upper,
)
from ..compose.fft import DEFAULT_TAIL
from ..grid.distribution import Bound, Factor, PrivacyLossDistribution
from ..mechanisms.constructors import DEFAULT_INTERVAL, checked_interval, gaussian, pair_factor
from ..mechanisms.mechanism import Mechanism
from ..mechanisms.neighbouring import relations_bounded
from ..sampling.random_allocation import (
    DEFAULT_RESOLUTION,
    LARGEST_GAUSSIAN,
    MIN_NOISE,
    random_allocation_gaussian,
)
from .fixed_batch import DistinctPoints, PointwiseCurves


def shuffled_radius(epochs_begun: float | np.ndarray, noise: float | np.ndarray) -> np.ndarray:
    """mu = 2 sqrt(E) / sigma: the radius of the Gaussian mechanism that dominates shuffled batches
    over E epochs begun at noise sigma (module docstring; not rounded).  The relation is symmetric:
    the noise whose upper side has radius mu is 2 sqrt(E) / mu."""
    radius: np.ndarray = 2.0 * np.sqrt(epochs_begun) / noise
    return radius


# The sum grid of the shuffled lower side, twice balls-in-bins' spacing: the pairwise sums cost the
# square of its points, four times fewer, and the side loses a relative 1e-4 of its epsilon, far
# inside a bracket whose upper side is the unamplified Gaussian.
SHUFFLED_RESOLUTION = 2 * DEFAULT_RESOLUTION


def shuffled_lower_shift(noise: float) -> float:
    """The shift of the realizable balls-in-bins pair below shuffled batches at noise sigma over the
    sensitivity (module docstring): 2, or 1 where sigma / 2 is below
    ``random_allocation.MIN_NOISE``."""
    return 2.0 if noise / 2.0 >= MIN_NOISE else 1.0


def shuffled_lower_parts(batch_size: int, n: int, rounds: int) -> list[tuple[int, float, int]]:
    """(steps, absent, epochs) of the realizable lower pair of ``rounds`` steps of shuffled batches
    (module docstring): balls-in-bins over the full batches released, the record absent from them
    with the rest."""
    full = (
        n // batch_size
    )  # full batches per epoch; the record is in one with probability full b / n
    epochs, rest = divmod(rounds, -(-n // batch_size))
    seen = min(rest, full)  # full batches released in the stopped epoch
    parts = [(full, 1.0 - full * batch_size / n, epochs)]
    if seen:
        parts.append((seen, 1.0 - seen * batch_size / n, 1))
    return parts


def shuffled_epoch(
    sigma: float,
    batch_size: int,
    n: int,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    sum_resolution: float = SHUFFLED_RESOLUTION,
) -> PrivacyLossDistribution:
    """One whole epoch of shuffled batches as one PLD: the shift-2 Gaussian's upper side, the
    realizable pair's lower side (the dp_accounting adapter's ``ShuffledBatchGaussianDpEvent``)."""
    h = checked_interval(value_discretization_interval)
    upper = next(
        iter(gaussian(sigma, sensitivity=2.0, value_discretization_interval=h).directions[0])
    )
    (steps, absent, _), *_ = shuffled_lower_parts(batch_size, n, -(-n // batch_size))
    lower = random_allocation_gaussian(
        steps,
        sigma,
        absent=absent,
        sensitivity=shuffled_lower_shift(sigma),
        value_discretization_interval=h,
        sum_resolution=sum_resolution,
    )
    label = f"shuffled_epoch(sigma={sigma}, batch_size={batch_size}, n={n})"
    return PrivacyLossDistribution(
        [
            {Factor(label, upper.upper, next(iter(d)).lower, upper.connect_dots): 1}
            for d in lower.directions
        ]
    )


class _EpochsOfAllocation(PointwiseCurves):
    """Shared: one composed PLD per distinct (sigma, steps per epoch, steps, ...) point, evaluated per point."""

    def __init__(
        self,
        value_discretization_interval: float,
        sum_resolution: float,
        sigma: np.ndarray,
        sensitivity: np.ndarray,
    ) -> None:
        with np.errstate(
            over="ignore"
        ):  # a subnormal sensitivity overflows the ratio: refused below as infinite
            noise = sigma / sensitivity
        if np.any(noise < MIN_NOISE):
            raise ValueError(
                f"sigma / sensitivity (the noise_multiplier over it) must be at least {MIN_NOISE:g} here, got {_validation.describe(np.min(noise))}: "
                "below it one step's likelihood ratio leaves double precision on the allocation's sum grid; at that "
                "little noise each epoch is about the Gaussian mechanism of one step (GaussianMechanism(...))"
            )
        if not np.all(np.isfinite(noise)):
            raise ValueError(
                "sigma / sensitivity (the noise_multiplier over it) must be finite here, got an overflow to infinity (a sensitivity near the "
                "smallest doubles): give sigma and sensitivity in a larger unit"
            )
        self.value_discretization_interval = checked_interval(value_discretization_interval)
        self.sum_resolution = float(
            _validation.positive(
                _validation.single(sum_resolution, "sum_resolution"), "sum_resolution"
            )
        )
        self._cache: dict[tuple[float | str, ...], PrivacyLossDistribution] = {}

    def _shift(self, sigma: float) -> float:
        """The shift of the balls-in-bins pair of the lower parts at noise sigma (over the sensitivity)."""
        return 1.0

    def _epoch(
        self, sigma: float, steps: int, absent: float, bound: Bound = "both"
    ) -> PrivacyLossDistribution:
        """One epoch's PLD; with ``bound`` "upper" its upper side alone (a PLD of both sides serves
        it too: the upper side is the same)."""
        key: tuple[float | str, ...] = (sigma, float(steps), absent)
        if key not in self._cache:
            key += ("upper",) if bound == "upper" else ()
        if key not in self._cache:
            self._cache[key] = random_allocation_gaussian(
                steps,
                sigma,
                absent=absent,
                sensitivity=self._shift(sigma),
                value_discretization_interval=self.value_discretization_interval,
                sum_resolution=self.sum_resolution,
                bound=bound,
            )
        return self._cache[key]

    def _run(
        self, sigma: float, parts: list[tuple[int, float, int]], bound: Bound = "both"
    ) -> PrivacyLossDistribution:
        """The composition of ``count`` epochs of (steps, absent) for each part (``bound`` "upper":
        their upper sides alone)."""
        composed: PrivacyLossDistribution | None = None
        for steps, absent, count in parts:
            if count:
                d = self._epoch(sigma, steps, absent, bound).self_compose(count)
                composed = d if composed is None else composed.compose(d)
        assert composed is not None
        return composed

    def _points(self) -> dict[str, np.ndarray]:
        """The parameter arrays, sigma / sensitivity first."""
        raise NotImplementedError

    @property
    def parameter_arrays(self) -> dict[str, np.ndarray]:
        """The accountant's parameter arrays by name, broadcast together, the noise sigma / sensitivity first.

        Returns
        -------
        dict of str to numpy.ndarray
            One array per parameter, in the order ``epochs_pld`` reads a point's values.
        """
        return self._points()

    def epochs_pld(self, point: tuple[float, ...]) -> PrivacyLossDistribution:
        """The PLD composed from the run's epochs at one point: each kind of epoch self-composed its count of times.

        Parameters
        ----------
        point : tuple of float
            One value of each of ``parameter_arrays``, in their order.

        Returns
        -------
        PrivacyLossDistribution
            The composition over the run's kinds of epoch (steps, absent probability, count) of each
            epoch's random-allocation PLD, the PLD that carries the sides no closed form gives.
        """
        return self._run(float(point[0]), self._parts(point))

    def _parts(self, point: tuple[float, ...]) -> list[tuple[int, float, int]]:
        """(steps, absent, epochs) of each kind of epoch in the run at this point (of ``_points``)."""
        raise NotImplementedError

    def _upper(
        self, point: tuple[float, ...], method: Quantity, x: np.ndarray
    ) -> np.ndarray | None:
        """A closed-form upper side, or None: the parts' PLD carries it."""
        return None

    def _lower(
        self, point: tuple[float, ...], method: Quantity, x: np.ndarray
    ) -> np.ndarray | None:
        """A closed-form lower side, or None: the parts' PLD carries it."""
        return None

    def _fill(self, grouped: DistinctPoints, bound: Bound, method: Quantity) -> None:
        flat_x, flat_lo, flat_up = grouped.x, grouped.lower, grouped.upper
        for i, point in enumerate(grouped.points):
            where, key = grouped.at(i), tuple(point)
            upper = self._upper(key, method, flat_x[where])
            lower = (
                self._lower(key, method, flat_x[where])
                if bound != "upper"
                else np.zeros(where.size)
            )
            if (
                upper is None or lower is None
            ):  # the parts' PLD carries the sides without a closed form
                side = (
                    "both"
                    if upper is None and lower is None
                    else "upper"
                    if upper is None
                    else "lower"
                )
                composed = self._run(
                    float(point[0]), self._parts(key), "upper" if side == "upper" else "both"
                )
                found = getattr(composed, method)(flat_x[where], bound=side)
                if side == "both":
                    lower, upper = found
                elif side == "upper":
                    upper = found
                else:
                    lower = found
            flat_lo[where], flat_up[where] = lower, upper
            progress.advance(where.size)


class BallsInBinsGaussianPLD(_EpochsOfAllocation):
    r"""Certified epsilon and delta of Gaussian steps on balls-in-bins batches (random allocation), add/remove.

    Each epoch has ``steps_per_epoch`` = t steps; each record joins ``steps_per_record`` = k of them
    (a uniform k-subset, independently of the other records; k = 1 is balls-in-bins), and each step
    releases its batch's summed contributions (each of norm at most ``sensitivity``) plus N(0,
    sigma^2 I). ``rounds`` = T steps are released: E = T // t whole epochs and a last one stopped
    after T mod t steps. With k = 1 one epoch is dominated, tightly, by the pair

    .. math::

        P = \frac{1}{t} \sum_{j=1}^{t} N(e_j, s^2 I_t) \quad\text{vs}\quad Q = N(0, s^2 I_t),
        \qquad s = \sigma / \Delta

    (remove; add: the pair swapped), computed from laws of its likelihood ratio above and below the
    true one in the convex order (``hockeystick.pld.random_allocation_gaussian``); the stopped epoch
    is the same pair over its steps with the record absent with probability 1 - (T mod t) / t;
    epochs compose. With k > 1 the upper side composes, per epoch begun, r one-of-(m + 1) and k - r
    one-of-m allocations (t = k m + r), and the lower side is the Gaussian mechanism of radius
    :math:`k \sqrt{E} / (s \sqrt{t})` (the sum of an epoch's steps), which is loose for k much
    below t. Both sides are certified.

    Parameters
    ----------
    sigma : array_like
        Standard deviation of the Gaussian noise, > 0, in the units of ``sensitivity``, with
        sigma / sensitivity >= 0.05; broadcasts.
    steps_per_epoch : array_like
        Steps per epoch t, an integer with 1 <= t <= 2**53; broadcasts.
    rounds : array_like
        Steps released T, an integer with 1 <= T <= 2**53; broadcasts.
    steps_per_record : array_like, optional
        Steps k of an epoch that each record joins, an integer with 1 <= k <= t (default 1);
        broadcasts.
    sensitivity : array_like, optional
        Norm bound Delta of one record's contribution, > 0 (default 1); broadcasts.
    value_discretization_interval : float, optional
        Spacing h of the privacy-loss grid, 0 < h <= 100 (default 1e-4); smaller is tighter and
        slower.
    sum_resolution : float, optional
        Spacing in log s of the grid of the likelihood ratio's sum, > 0 (default 0.005); the bracket
        narrows as its square.

    Raises
    ------
    ValueError
        If ``sigma`` or ``sensitivity`` is not finite and > 0, sigma / sensitivity is below 0.05
        (``random_allocation.MIN_NOISE``) or overflows, ``steps_per_epoch``, ``rounds`` or
        ``steps_per_record`` is not an integer >= 1, ``steps_per_record`` > ``steps_per_epoch``,
        ``sum_resolution`` is not > 0, or ``value_discretization_interval`` is outside (0, 100].
    ParameterTypeError
        If a parameter is a string, a boolean or None.

    See Also
    --------
    ShuffledBatchGaussianPLD : Shuffled fixed-size batches under replace-one neighbours.
    SubsampledGaussianPLD : Poisson-subsampled steps.

    Notes
    -----
    ``delta(epsilon, bound=...)`` and ``epsilon(delta, bound=...)`` return the certified upper bound
    (default), the certified lower bound (``bound="lower"``) or the pair (lower, upper)
    (``bound="both"``), parameters and argument broadcast together (``FixedBatchGaussianPLD.delta``
    states their arguments and errors). docs/batches.md derives both sides.

    References
    ----------
    Chua et al. 2025, Sec. 3 (the dominating pair, adaptive steps); Feldman & Shenfeld 2025, Thm 3.1
    and Lemma 3.2 (k steps per record); Zhu, Dong & Wang 2022, Thm 10 (composition of epochs).

    Examples
    --------
    >>> from hockeystick.pld import BallsInBinsGaussianPLD
    >>> acc = BallsInBinsGaussianPLD(sigma=1.0, steps_per_epoch=10, rounds=20)
    >>> [round(e, 3) for e in acc.epsilon(1e-5, bound="both")]
    [2.832, 2.832]
    """

    CURVE_PARAMETERS = ("sigma", "steps_per_epoch", "steps_per_record", "sensitivity")

    def __init__(
        self,
        sigma: ArrayLike,
        steps_per_epoch: ArrayLike,
        rounds: ArrayLike,
        *,
        steps_per_record: ArrayLike = 1,
        sensitivity: ArrayLike = 1.0,
        value_discretization_interval: float = DEFAULT_INTERVAL,
        sum_resolution: float = DEFAULT_RESOLUTION,
    ) -> None:
        (s, t, r, k, c), _, _ = broadcast_float_arrays(
            sigma=_validation.positive(sigma, "sigma"),
            steps_per_epoch=_validation.positive_integer(
                steps_per_epoch, "steps_per_epoch", maximum=_validation.MAX_EXACT_INTEGER
            ),
            rounds=_validation.positive_integer(
                rounds, "rounds", maximum=_validation.MAX_EXACT_INTEGER
            ),
            steps_per_record=_validation.positive_integer(
                steps_per_record, "steps_per_record", maximum=_validation.MAX_EXACT_INTEGER
            ),
            sensitivity=_validation.positive(sensitivity, "sensitivity"),
        )
        if np.any(k > t):
            raise ValueError(
                "steps_per_record must be <= steps_per_epoch (each record joins that many distinct steps of an "
                f"epoch), got steps_per_record {_validation.describe(np.max(k))} above steps_per_epoch "
                f"{_validation.describe(np.min(t))}"
            )
        super().__init__(value_discretization_interval, sum_resolution, s, c)
        self.sigma, self.steps_per_epoch, self.rounds, self.steps_per_record, self.sensitivity = (
            s,
            t,
            r,
            k,
            c,
        )

    def _points(self) -> dict[str, np.ndarray]:
        return {
            "sigma": self.sigma / self.sensitivity,
            "steps_per_epoch": self.steps_per_epoch,
            "rounds": self.rounds,
            "steps_per_record": self.steps_per_record,
        }

    def _parts(self, point: tuple[float, ...]) -> list[tuple[int, float, int]]:
        t, rounds, k = int(point[1]), int(point[2]), int(point[3])
        epochs, rest = divmod(rounds, t)
        if k == 1:
            return [(t, 0.0, epochs), (rest, 1.0 - rest / t, 1 if rest else 0)]
        blocks, longer = divmod(
            t, k
        )  # longer blocks of m + 1 steps, k - longer of m (module docstring)
        begun = epochs + (1 if rest else 0)
        return [(blocks, 0.0, (k - longer) * begun), (blocks + 1, 0.0, longer * begun)]

    def _lower(
        self, point: tuple[float, ...], method: Quantity, x: np.ndarray
    ) -> np.ndarray | None:
        noise, t, rounds, k = point[0], int(point[1]), int(point[2]), int(point[3])
        if k == 1:
            return None  # the realizable allocation pair itself (the parts' PLD)
        mu = radius_down(
            k * np.sqrt(float(rounds // t) / t) / noise
        )  # four roundings (radius_down's contract)
        return np.asarray(theta_lower(mu, x) if method == "delta" else theta_epsilon_lower(mu, x))


class ShuffledBatchGaussianPLD(_EpochsOfAllocation):
    r"""Certified epsilon and delta of Gaussian steps on shuffled fixed-size batches, replace-one neighbours.

    Each epoch a fresh uniform permutation of the ``n`` records is cut into t = ceil(n / b) batches
    of ``batch_size`` = b (the last may be shorter); each step releases its batch's summed
    contributions (each of norm at most ``sensitivity`` = Delta) plus N(0, sigma^2 I); ``rounds`` =
    T steps are released. Upper side: the replaced record lies in exactly one batch per epoch, where
    the sum moves by at most 2 Delta, so the run is dominated by the Gaussian mechanism of radius

    .. math::

        \mu = 2 \sqrt{E_{\mathrm{begun}}}\, \Delta / \sigma, \qquad E_{\mathrm{begun}} = \lceil T / t \rceil,

    evaluated in closed form, rounded up (the shuffling's amplification is not used: no dominating
    pair that uses it is proved for adaptive steps under replace-one). Lower side: a realizable
    pair, the balls-in-bins pair at shift 2 over the full batches released (shift 1 where
    sigma / (2 Delta) is below 0.05). The bracket between the two sides is wide.

    Parameters
    ----------
    sigma : array_like
        Standard deviation of the Gaussian noise, > 0, in the units of ``sensitivity``, with
        sigma / sensitivity >= 0.05; broadcasts.
    batch_size : array_like
        Batch size b, an integer with 1 <= b <= n and b <= 2**53; broadcasts.
    n : array_like
        Number of records, an integer with 1 <= n <= 2**53; broadcasts.
    rounds : array_like
        Steps released T, an integer with 1 <= T <= 2**53; broadcasts.
    sensitivity : array_like, optional
        Norm bound Delta of one record's contribution, > 0 (default 1); broadcasts.
    value_discretization_interval : float, optional
        Spacing h of the privacy-loss grid, 0 < h <= 100 (default 1e-4).
    sum_resolution : float, optional
        Spacing in log s of the lower side's balls-in-bins sum grid, > 0 (default 0.01).

    Raises
    ------
    ValueError
        If ``sigma`` or ``sensitivity`` is not finite and > 0, sigma / sensitivity is below 0.05
        (``random_allocation.MIN_NOISE``) or overflows, ``batch_size``, ``n`` or ``rounds`` is not
        an integer >= 1, ``batch_size`` > ``n``, ``sum_resolution`` is not > 0, or
        ``value_discretization_interval`` is outside (0, 100].
    ParameterTypeError
        If a parameter is a string, a boolean or None.

    See Also
    --------
    BallsInBinsGaussianPLD : Balls-in-bins batches, add/remove neighbours (both sides tight).
    FixedBatchGaussianPLD : Fixed-size batches drawn anew each step.

    Notes
    -----
    ``delta(epsilon, bound=...)`` and ``epsilon(delta, bound=...)`` return the certified upper bound
    (default), the certified lower bound (``bound="lower"``) or the pair (lower, upper)
    (``bound="both"``), parameters and argument broadcast together (``FixedBatchGaussianPLD.delta``
    states their arguments and errors). docs/batches.md derives both sides. Shuffled batches can
    cost far more than the Poisson accounting often reported for them (Chua et al. 2024).

    References
    ----------
    Chua et al. 2024 (shuffled batches against Poisson accounting); Chua et al. 2025 and Feldman &
    Shenfeld 2025 (the balls-in-bins pair of the lower side); paper 000, eq. 6 (theta, the upper
    side).

    Examples
    --------
    >>> from hockeystick.pld import ShuffledBatchGaussianPLD
    >>> acc = ShuffledBatchGaussianPLD(sigma=2.0, batch_size=50, n=1000, rounds=40)
    >>> [round(e, 3) for e in acc.epsilon(1e-5, bound="both")]
    [2.033, 6.573]
    """

    CURVE_PARAMETERS = ("sigma", "batch_size", "n", "sensitivity")

    def __init__(
        self,
        sigma: ArrayLike,
        batch_size: ArrayLike,
        n: ArrayLike,
        rounds: ArrayLike,
        *,
        sensitivity: ArrayLike = 1.0,
        value_discretization_interval: float = DEFAULT_INTERVAL,
        sum_resolution: float = SHUFFLED_RESOLUTION,
    ) -> None:
        (s, b, n_, r, c), _, _ = broadcast_float_arrays(
            sigma=_validation.positive(sigma, "sigma"),
            batch_size=_validation.positive_integer(
                batch_size, "batch_size", maximum=_validation.MAX_EXACT_INTEGER
            ),
            n=_validation.positive_integer(n, "n", maximum=_validation.MAX_EXACT_INTEGER),
            rounds=_validation.positive_integer(
                rounds, "rounds", maximum=_validation.MAX_EXACT_INTEGER
            ),
            sensitivity=_validation.positive(sensitivity, "sensitivity"),
        )
        if np.any(b > n_):
            raise ValueError(
                "batch_size must be <= n (an epoch cuts the n records into batches of batch_size)"
            )
        super().__init__(value_discretization_interval, sum_resolution, s, c)
        self.sigma, self.batch_size, self.n, self.rounds, self.sensitivity = s, b, n_, r, c

    def _points(self) -> dict[str, np.ndarray]:
        return {
            "sigma": self.sigma / self.sensitivity,
            "batch_size": self.batch_size,
            "n": self.n,
            "rounds": self.rounds,
        }

    def _parts(self, point: tuple[float, ...]) -> list[tuple[int, float, int]]:
        return shuffled_lower_parts(int(point[1]), int(point[2]), int(point[3]))

    def _shift(self, sigma: float) -> float:
        return shuffled_lower_shift(sigma)

    def _upper(self, point: tuple[float, ...], method: Quantity, x: np.ndarray) -> np.ndarray:
        b, n, rounds = int(point[1]), int(point[2]), int(point[3])
        begun = -(-rounds // -(-n // b))  # epochs begun
        mu = radius_up(shuffled_radius(float(begun), point[0]))
        return np.asarray(theta_upper(mu, x) if method == "delta" else theta_epsilon_upper(mu, x))


@dataclass(frozen=True)
class ShuffledGaussian(Mechanism):
    """One epoch of shuffled batches of b of n records, Gaussian noise sigma, replace-one: above,
    the Gaussian of shift 2 (the record's one batch moves by at most 2, the others not at all,
    module docstring); below, the realizable balls-in-bins pair of the full batches at shift 2
    (``shuffled_epoch``)."""

    name: ClassVar[str] = "shuffled_gaussian"
    dp_event: ClassVar[str] = (
        "hockeystick.interop.dp_accounting.allocation_events.ShuffledBatchGaussianDpEvent"
    )
    dp_event_field: ClassVar[str] = "noise_multiplier"
    sigma: float
    b: int
    n: int

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> ShuffledGaussian | NonPrivateRun:
        """One ``ShuffledBatchGaussianDpEvent(noise_multiplier, dataset_size, batch_size)``:
        replace-one only, batch_size <= dataset_size; non-private at noise 0."""
        require_relation(
            event, relation, relations_bounded("replace_one"), "`ShuffledBatchGaussianDpEvent`"
        )
        sigma = noise(event, "noise_multiplier")
        n = integer(event, "dataset_size", 1)
        b = integer(event, "batch_size", 1)
        if b > n:
            raise ValueError(
                f"ShuffledBatchGaussianDpEvent.batch_size must be <= dataset_size, got {b} > {n}"
            )
        if sigma > 0:
            check_reach(event, "noise_multiplier", gaussian_reach(2.0 / sigma))
        return NonPrivateRun(cls.name) if sigma == 0 else cls(sigma, b, n)

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return shuffled_epoch(self.sigma, self.b, self.n, value_discretization_interval=h)


@dataclass(frozen=True)
class SelectedStepsGaussian(Mechanism):
    """One epoch of random allocation of k of t steps (each record in a uniform k-subset of the
    steps, independently of the others), Gaussian noise sigma, add/remove.  Above: r one-of-(m + 1)
    and k - r one-of-m balls-in-bins pairs composed, t = k m + r (Feldman & Shenfeld 2025, Thm 3.1
    and Lemma 3.2; the module docstring), each on the sum grid's upper side.  Below: the sum of the
    epoch's outputs, N(k, t sigma^2) vs N(0, t sigma^2), a realizable post-processing (the module
    docstring), carried as k Gaussian factors of radius sqrt(k) / (sigma sqrt t) whose composition
    is that Gaussian of radius k / (sigma sqrt t); each factor's noise sigma sqrt(t / k) is rounded
    up (a smaller radius, a smaller delta)."""

    name: ClassVar[str] = "random_allocation_selected_gaussian"
    steps: int
    selected: int
    sigma: float

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        label = f"{self.name}({self.steps}, {self.selected}, {self.sigma!r})"
        blocks, longer = divmod(
            self.steps, self.selected
        )  # longer blocks of m + 1 steps, k - longer of m
        # sigma sqrt(t / k) within 3 roundings (a few u): the factor 1 + 2^-49 (16 u) rounds it up
        noise = self.sigma * math.sqrt(self.steps / self.selected) * (1.0 + 2.0**-49)
        lower = (
            next(iter(gaussian(noise, value_discretization_interval=h).directions[0])).lower
            if noise <= LARGEST_GAUSSIAN
            else pair_factor(
                np.ones(1), np.ones(1), label, h
            ).lower  # the identity pair: delta 0, below any pair
        )
        parts = [
            (size, count)
            for size, count in ((blocks, self.selected - longer), (blocks + 1, longer))
            if count
        ]
        uppers = [
            (
                random_allocation_gaussian(
                    size, self.sigma, value_discretization_interval=h, bound="upper"
                ),
                count,
            )
            for size, count in parts
        ]
        directions = []
        for d in range(2):  # remove, add
            direction = {}
            for pld, count in uppers:
                upper = next(iter(pld.directions[d % len(pld.directions)]))
                direction[Factor(label, upper.upper, lower, upper.connect_dots)] = count
            directions.append(direction)
        return PrivacyLossDistribution(directions, DEFAULT_TAIL)
