"""Random allocation (balls-in-bins): each record joins one of the t steps of an epoch, chosen uniformly.

Each record is placed in one step of the epoch, uniformly at random and independently of the others
(balls-and-bins sampling, Chua et al. 2025; random allocation with k = 1, Feldman and Shenfeld
2025); step j releases the sum of its records' contributions (each of norm at most 1) plus N(0,
sigma^2 I). Neighbours are add/remove.  With probability ``absent`` the record's step is not
released (a shuffled epoch's short last batch, ignored by the lower side's observer; ``absent = 0``
otherwise).

Dominating pair of one epoch (Chua et al. 2025, Sec. 3: tightly dominating, the steps chosen
adaptively):
    P = absent N(0, sigma^2 I_t) + (1 - absent) (1/t) sum_j N(e_j, sigma^2 I_t)   vs   Q = N(0, sigma^2 I_t)
(remove; add is the pair swapped).  Its likelihood ratio is R = dP/dQ = absent + (1 - absent) S / t
with S = Y_1 + ... + Y_t, Y_j = exp(X_j / sigma - 1 / (2 sigma^2)) independent lognormals (X_j ~
N(0, 1) under Q, E Y = 1), and P is Q tilted by R.  Both directions are functions of R's law under
Q:
    remove: delta(eps) = E_Q (R - e^eps)_+,      add: delta(eps) = E_Q (1 - e^eps R)_+,
and every hockey-stick divergence E_gamma (gamma >= 0) of either direction is E_Q phi(R), phi
convex.  So a law R' at least R in the convex order (same mean) gives a pair whose every E_gamma,
both directions, is at least the true one: it dominates one epoch (Zhu, Dong, Wang, AISTATS 2022,
Def. 7), and its composition dominates many epochs (their Thm. 10).  A law below R in the convex
order gives a pair below it.

Upper law (``spread_sum``): Y's law on each cell of a grid is spread to the cell's two ends keeping
its mass and mean (a mean-preserving spread, so Y' >=cx Y); a sum of independent variables each
above its own in the convex order is above their sum; each partial sum is spread again onto the
grid.  Mass above the top grid point g_top keeps its Q-mass at g_top and puts its excess of mean,
(s - g_top) times its mass, at +infinity as P-mass (the limit of spreading to {g_top, V} as V ->
infinity, whose every E_gamma grows with V). Lower law (``merged_sum``): each cell's mass is merged
at its conditional mean (a mean-preserving contraction; it is the pair of the outputs binned per
coordinate, a post-processing of the pair itself, so the realizable worst case is bounded from below
too); partial sums merged per cell likewise.

The sum grid holds 0 and geometric points whose values carry 16-bit significands, so a sum of two
grid values within a ratio 2^35 is exact in double precision (a sum of two farther apart keeps the
larger term and sends the smaller one's mean to +infinity, a spread); the spread fractions and the
merged masses are then formed with relative errors only.  Every mass carries a relative error bound,
tracked through the sums (a product adds the bounds of its factors, a cell's sum of n positive terms
adds (n + 6) u), and each side's masses are moved by it: the first distribution's raised and the
second's lowered on an upper side, the reverse on a lower side (each term (p - gamma q)_+ of every
composed curve then moves the safe way). Y's cell masses come from scipy's ``ndtr`` of each tail
(``gaussian_mixture.normal_interval``), charged at NDTR_ULPS units of round-off of each end's tail
value.  That charge holds for normal numbers only, so Y's cells end at the grid points whose two
tails (of the mass, and of the weight 1 / sigma lower) stay within
|z| <= NORMAL_TAIL_Z = 37 (``cell_ends``): the first cell [0, g_b) and the last [g_c, inf) take the far tails
whole, the last one's excess of mean sent to +infinity with its cancellation charged.

Large noise: where fewer than MIN_CELLS grid points lie in that band (sigma above about 300 at the
default resolution), the cells are wider than Y's spread and the grid's upper side costs more than
the per-epoch Gaussian pair; the epoch is then bracketed by ``per_epoch_gaussian`` (the Gaussian
pair N(1, s^2) vs N(0, s^2) above, by joint convexity over the record's step; the sum of the epoch's
outputs, a Poisson-subsampled Gaussian at noise s sqrt(t), below).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ... import _core
from ...base import validation as _validation
from ...base.accountant import Bound
from ...base.event_fields import check_reach, integer, noise, require_relation
from ...base.event_refusal import NonPrivateRun
from ...base.parameter_range import gaussian_reach
from ...numerics.gaussian import gaussian_tail_inverse
from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.tail import DEFAULT_TAIL
from ..mechanisms.constructors import (
    DEFAULT_INTERVAL,
    checked_interval,
    gaussian,
    pair_factor,
    pair_sides,
    subsampled_gaussian,
)
from ..mechanisms.gaussian_mixture import normal_interval
from ..mechanisms.mechanism import Mechanism
from ..mechanisms.neighbouring import relations_bounded

UNIT_ROUNDOFF = 2.0**-53
NDTR_ULPS = (
    8.0  # scipy.special.ndtr's relative error (a few ulps) plus the subtraction of two tails
)
SIGNIFICAND_BITS = (
    16  # grid values' significands: a sum of two grid values needs at most 16 + 36 + 1 <= 53 bits
)
EXACT_RATIO = 2.0**35  # up to this ratio of its terms a sum of two grid values is exact
MIN_NOISE = 0.05  # below it the tilted Y's 1e-18 quantile exceeds e^300 (z / s + 1 / (2 s^2) > 300)
# grid points at most: the sums cost their square; at the smallest noise (log range about 800) the
# spacing is then 0.1
MAX_POINTS = 8_000
DEFAULT_RESOLUTION = 0.005  # spacing of the sum grid in log(s)
TAIL_QUANTILE = 1e-18  # the tilted Y above the grid's top has at most this probability
MAX_RELATIVE_ERROR = (
    1e-4  # beyond it the grid is too fine for double precision (the sides move by twice it)
)
BOTTOM_MASS = 1e-30  # Q(every step's Y below the grid's first positive point)
NEGLIGIBLE = 1e-30  # atoms of less mass and weight: spread to {0, +inf} (upper) or dropped (lower)
# Fewer cells of Y inside that band (sigma above about 300 at the default resolution): the spread of
# each step to cells that wide costs more than the per-epoch Gaussian's upper side
# (``per_epoch_gaussian``), which is then taken.
MIN_CELLS = 48
LARGEST_GAUSSIAN = 1e300  # the largest sigma / sensitivity the Gaussian constructors discretize
NORMAL_TAIL_Z = 37.0  # Phi(-37) = 5.7e-300: normal tails beyond it near the subnormals, where ndtr loses accuracy
LAWS_KEPT = 8  # summed laws kept (``summed_law``): the two sides of the last few epochs asked


class SumLaw:
    """A law on the sum grid: Q-masses, their P-weighted sums (``weight`` = E_Q[S; atom]), the mean
    sent to +infinity (``infinite``, sum units), and a relative error bound ``error`` on every mass.

    A spread law's atoms sit on the grid points, so its ``weight`` is q * grid, formed when read
    (give ``grid``); a merged law's atoms sit at their cells' conditional means, so its ``weight``
    is stored."""

    def __init__(
        self,
        q: np.ndarray,
        infinite: float,
        error: float,
        *,
        weight: np.ndarray | None = None,
        grid: np.ndarray | None = None,
    ) -> None:
        assert (weight is None) != (grid is None), "a SumLaw takes its weights or its grid"
        self.q, self.infinite, self.error = q, infinite, error
        self._weight, self._grid = weight, grid

    @property
    def weight(self) -> np.ndarray:
        if self._weight is not None:
            return self._weight
        assert self._grid is not None
        weight: np.ndarray = self.q * self._grid
        return weight


def sum_grid(sigma: float, steps: int, resolution: float) -> np.ndarray:
    """0 and geometric points with 16-bit significands, up to g_top, where the tilted Y exceeds
    g_top with probability TAIL_QUANTILE and g_top >= 16 steps, down to g_1, the lower of: 0.1
    resolution sqrt(steps) (the spread of [0, g_1] to its ends adds a variance g_1^2 / 4 per step,
    far below the grid's own (resolution s)^2 / 4 at s ~ steps) and the point below which all
    ``steps`` Y lie with probability BOTTOM_MASS (that mass sits at R = 0), but not below the band
    of ``cell_ends`` (Y lies below that point with probability 5.7e-300 at most, so neither
    criterion loses anything there).  Spacing ``resolution`` in log(s), widened to keep at most
    MAX_POINTS."""
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    z = float(gaussian_tail_inverse(TAIL_QUANTILE))
    log_top = max(z / sigma + 0.5 / (sigma * sigma), math.log(16.0 * steps))
    below = float(special.ndtri(BOTTOM_MASS ** (1.0 / steps)))  # Phi(below)^steps = BOTTOM_MASS
    log_bottom = min(
        math.log(0.1 * resolution * math.sqrt(steps)), below / sigma - 0.5 / (sigma * sigma)
    )
    # no lower than the band of ``cell_ends``: Y's cell below it has Q-mass Phi(-NORMAL_TAIL_Z) =
    # 5.7e-300 at most
    log_bottom = max(log_bottom, (0.5 / sigma - NORMAL_TAIL_Z) / sigma)
    resolution = max(resolution, (log_top - log_bottom) / (MAX_POINTS - 1))
    count = int(math.ceil((log_top - log_bottom) / resolution)) + 1
    mantissa, exponent = np.frexp(np.exp(np.linspace(log_bottom, log_top, count)))
    values = np.ldexp(np.round(np.ldexp(mantissa, SIGNIFICAND_BITS)), exponent - SIGNIFICAND_BITS)
    return np.concatenate([[0.0], np.unique(values)])


def cell_ends(sigma: float, grid: np.ndarray) -> np.ndarray | None:
    """Grid indices of the lower ends of Y's cells: 0, then every grid point g whose X-threshold z =
    sigma log g + 1 / (2 sigma) (Y <= g  <=>  X <= z) has z - 1 / sigma >= -NORMAL_TAIL_Z and z <=
    NORMAL_TAIL_Z, so the cells' two tails (of the mass, at z, and of the weight, at z - 1 / sigma)
    are normal numbers.  The first cell is [0, first such point), the last [last such point, inf).
    None: no grid point is in that band (sigma so large that Y's whole law sits inside one grid
    cell)."""
    with np.errstate(
        divide="ignore", over="ignore", invalid="ignore"
    ):  # log 0 = -inf, a huge sigma's z = +-inf
        z = sigma * np.log(grid) + 0.5 / sigma
        inside = np.flatnonzero((z - 1.0 / sigma >= -NORMAL_TAIL_Z) & (z <= NORMAL_TAIL_Z))
    if inside.size == 0:
        return None
    return np.concatenate([[0], inside])


def _lognormal_cells(
    sigma: float, grid: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:
    """Q-mass and E_Q[Y; cell] of Y on each cell [g_ends[i], g_ends[i+1]) (the last cell
    [g_ends[-1], inf)), and the largest relative error of those masses (NDTR_ULPS units of each
    end's tail value, over the cell's mass; every tail value is a normal number, ``cell_ends``)."""
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    with np.errstate(divide="ignore"):  # log 0 = -inf: the first cell's lower end
        z = sigma * np.log(grid[ends]) + 0.5 / sigma  # Y <= g  <=>  X <= z
    lo, hi = z, np.append(z[1:], np.inf)
    q = normal_interval(lo, hi)
    weight = normal_interval(
        lo - 1.0 / sigma, hi - 1.0 / sigma
    )  # E_Q[Y; X in (a, b]] = P(a - 1/sigma < X <= b - 1/sigma)

    def bound(a: np.ndarray, b: np.ndarray, mass: np.ndarray) -> float:
        ndtr = special.ndtr
        tails = np.where(  # the two tail values normal_interval subtracts
            b <= 0.0,
            ndtr(b) + ndtr(a),
            np.where(a >= 0.0, ndtr(-a) + ndtr(-b), 1.0 + ndtr(a) + ndtr(-b)),
        )
        live = mass > 0.0
        return (
            float(np.max(NDTR_ULPS * UNIT_ROUNDOFF * tails[live] / mass[live]))
            if live.any()
            else 0.0
        )

    return q, weight, max(bound(lo, hi, q), bound(lo - 1.0 / sigma, hi - 1.0 / sigma, weight))


class SumGridUnfit(ArithmeticError):
    """The sum grid cannot carry Y's law at this setting: fewer than MIN_CELLS cells in the band of
    normal tails (``cell_ends``), or masses whose error bound leaves double precision
    (``random_allocation_gaussian`` then takes the bracket of ``per_epoch_gaussian``)."""


def spread_lognormal(sigma: float, grid: np.ndarray, ends: np.ndarray) -> SumLaw:
    """Y's law spread to the grid (the upper law of one step): each cell's mass to its two ends in
    proportions keeping its mean; the top cell's mass at its lower end and its excess of mean at
    +infinity."""
    q, weight, error = _lognormal_cells(sigma, grid, ends)
    g_lo, g_hi = grid[ends[:-1]], grid[ends[1:]]
    gap = g_hi - g_lo
    low_num = q[:-1] * g_hi - weight[:-1]  # low + high = q and low g_lo + high g_hi = weight
    high_num = weight[:-1] - q[:-1] * g_lo
    live = (q[:-1] > 0.0) & (low_num > 0.0) & (high_num > 0.0)
    if not np.all(live | (q[:-1] == 0.0)):
        raise SumGridUnfit("a cell's conditional mean is not resolved inside the cell")
    # the subtraction magnifies the cells' relative error by (q g_hi + weight) / (its result)
    size = q[:-1] * g_hi + weight[:-1]
    magnified = (
        np.max(size[live] / np.minimum(low_num[live], high_num[live])) if live.any() else 1.0
    )
    out = np.zeros_like(grid)
    np.add.at(out, ends[:-1], np.where(live, low_num / gap, 0.0))
    np.add.at(out, ends[1:], np.where(live, high_num / gap, 0.0))
    out[ends[-1]] += q[-1]
    # the top cell's excess of mean, weight - q g_top, each term within ``error`` of its own size,
    # rounded up
    top_mass = q[-1] * grid[ends[-1]]
    excess = (weight[-1] - top_mass) + (error + 4.0 * UNIT_ROUNDOFF) * (weight[-1] + top_mass)
    infinite = max(excess, 0.0) * (1.0 + 4.0 * UNIT_ROUNDOFF)
    return SumLaw(out, infinite, error * float(magnified) + 8.0 * UNIT_ROUNDOFF, grid=grid)


def merged_lognormal(sigma: float, grid: np.ndarray, ends: np.ndarray) -> SumLaw:
    """Y's law merged per cell at the cell's conditional mean (the lower law of one step; the atom
    of cell i is stored at index ends[i], its position read from its weight)."""
    q, weight, error = _lognormal_cells(sigma, grid, ends)
    q_out, w_out = np.zeros_like(grid), np.zeros_like(grid)
    q_out[ends], w_out[ends] = q, weight
    return SumLaw(q_out, 0.0, error, weight=w_out)


def spread_sum(a: SumLaw, b: SumLaw, grid: np.ndarray) -> SumLaw:
    """The law of A + B (independent; A and B on the grid points) spread onto the grid
    (cpp/include/hockeystick/pld/sampling/allocation_sums.hpp: ``spread_sum``)."""
    out, infinite, terms = _core.pld_sampling.spread_sum(
        grid, a.q, b.q, square=a is b, exact_ratio=EXACT_RATIO, negligible=NEGLIGIBLE
    )
    error = a.error + b.error + (float(terms) + 6.0) * UNIT_ROUNDOFF
    return SumLaw(
        out, a.infinite + b.infinite + infinite * (1.0 + 4.0 * UNIT_ROUNDOFF), error, grid=grid
    )


def merged_sum(a: SumLaw, b: SumLaw, grid: np.ndarray) -> SumLaw:
    """The law of A + B (independent) with the atoms of each grid cell merged at their mean
    (cpp/include/hockeystick/pld/sampling/allocation_sums.hpp: ``merged_sum``)."""
    q, w, terms = _core.pld_sampling.merged_sum(
        grid, a.q, a.weight, b.q, b.weight, square=a is b, negligible=NEGLIGIBLE
    )
    return SumLaw(q, 0.0, a.error + b.error + (float(terms) + 6.0) * UNIT_ROUNDOFF, weight=w)


def _power(
    one: SumLaw,
    count: int,
    combine: Callable[[SumLaw, SumLaw, np.ndarray], SumLaw],
    grid: np.ndarray,
) -> SumLaw:
    """The law of ``count`` independent copies summed, by binary powers (``combine`` spreads or merges each sum)."""
    result: SumLaw | None = None
    square = one
    while True:
        if count & 1:
            result = square if result is None else combine(result, square, grid)
        count >>= 1
        if not count:
            break
        square = combine(square, square, grid)
    assert result is not None
    return result


def _pair(law: SumLaw, steps: int, absent: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Q-masses, P-masses (R q with R = absent + (1 - absent) s / steps) and the P-mass at +infinity."""
    p = absent * law.q + (1.0 - absent) * law.weight / steps
    return law.q, p, (1.0 - absent) * law.infinite / steps


def random_allocation_gaussian(
    steps: int,
    noise_multiplier: float,
    *,
    absent: float = 0.0,
    sensitivity: float = 1.0,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    sum_resolution: float = DEFAULT_RESOLUTION,
    bound: Bound = "both",
) -> PrivacyLossDistribution:
    r"""Discretized remove and add PLDs of one epoch of random allocation (balls-in-bins) with Gaussian noise.

    Each record joins one of the t steps of the epoch, uniformly and independently; each step
    releases the sum of its records' contributions plus Gaussian noise.  With s = noise_multiplier /
    sensitivity and alpha = ``absent``, one epoch is dominated by

    .. math::

        P = \alpha\, N(0, s^2 I_t) + (1 - \alpha)\, \frac{1}{t} \sum_{j=1}^t N(e_j, s^2 I_t)
        \text{ vs } Q = N(0, s^2 I_t)

    (remove; add is the pair swapped).  Both directions are functions of the law of the likelihood
    ratio R = alpha + (1 - alpha) S / t, S a sum of t lognormals, under Q: the upper side spreads
    that law on a geometric grid of sums (a law above it in the convex order, so a pair that
    dominates the epoch), the lower side merges it (the binned realizable pair, below it).  Where
    the noise is so large that the grid holds too few cells (s above about 300 at the default
    resolution), the epoch is bracketed instead by the Gaussian pair N(1, s^2) vs N(0, s^2) above
    and the Poisson-subsampled Gaussian of the epoch's summed outputs below.  Compose epochs with
    ``.self_compose(epochs)``.

    Parameters
    ----------
    steps : int
        Number of steps t per epoch, an integer >= 1.
    noise_multiplier : float
        Standard deviation of each step's Gaussian noise, > 0, in the units of ``sensitivity``;
        noise_multiplier / sensitivity must be at least 0.05.
    absent : float, optional
        Probability that the record's step is not released (a shuffled epoch's short last batch),
        0 <= absent < 1 (default 0).
    sensitivity : float, optional
        Norm bound of one record's contribution, > 0 (default 1).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).
    sum_resolution : float, optional
        Spacing of the sum grid in log(s), 1e-3 <= sum_resolution <= 0.5 (default 0.005); finer is
        tighter and slower (the cost grows as (log range / resolution)^2 log2 t).
    bound : {"both", "upper"}, optional
        The sides computed (default "both"). "upper": the lower side is the identity pair's (every
        delta 0, a valid lower bound) and the merged law is not formed, about half the cost; the
        upper side is the same as with "both".

    Returns
    -------
    PrivacyLossDistribution
        The remove and the add direction of one epoch.

    Raises
    ------
    ValueError
        If ``steps`` is not an integer >= 1, noise_multiplier or sensitivity is not finite and > 0,
        their ratio overflows or lies below 0.05, ``absent`` lies outside [0, 1), ``sum_resolution``
        outside [1e-3, 0.5], ``value_discretization_interval`` outside (0, 100], or ``bound`` is
        neither "both" nor "upper".
    ParameterTypeError
        If an argument is a string, a boolean or None.

    See Also
    --------
    BallsInBinsGaussianPLD : the accountant over epochs.

    References
    ----------
    Chua et al. 2025, Sec. 3 (the tightly dominating pair); Feldman & Shenfeld 2025 (random
    allocation); Zhu, Dong & Wang, AISTATS 2022, Def. 7 and Thm 10 (dominance and its composition).

    Examples
    --------
    One step per epoch is the Gaussian mechanism, whose exact delta the two sides bracket:

    >>> import hockeystick.pld as pld
    >>> from hockeystick import theta
    >>> lower, upper = pld.random_allocation_gaussian(1, 2.0, sum_resolution=0.02).delta(1.0, bound="both")
    >>> bool(lower <= theta(0.5, 1.0) <= upper)
    True
    """
    t = _validation.count(steps, "steps")
    sigma = float(
        _validation.positive(
            _validation.single(noise_multiplier, "noise_multiplier"), "noise_multiplier"
        )
    )
    sens = float(
        _validation.positive(_validation.single(sensitivity, "sensitivity"), "sensitivity")
    )
    alpha = float(
        _validation.in_interval(
            _validation.single(absent, "absent"), "absent", 0.0, 1.0, open_low=False, open_high=True
        )
    )
    resolution = float(
        _validation.in_interval(
            _validation.single(sum_resolution, "sum_resolution"),
            "sum_resolution",
            1e-3,
            0.5,
            open_low=False,
            open_high=False,
        )
    )
    h = checked_interval(value_discretization_interval)
    if bound not in ("both", "upper"):
        raise ValueError(f'bound must be "both" or "upper", got {_validation.describe(bound)}')
    with np.errstate(
        over="ignore"
    ):  # a subnormal sensitivity overflows the ratio: refused below as infinite
        s = sigma / sens
    if not math.isfinite(s):
        raise ValueError(
            "noise_multiplier / sensitivity must be finite, got an overflow to infinity (a sensitivity near the "
            "smallest doubles): give noise_multiplier and sensitivity in a larger unit"
        )
    if not s >= MIN_NOISE:
        raise ValueError(
            f"noise_multiplier / sensitivity must be at least {MIN_NOISE:g}, got {s:g}: below it one step's likelihood "
            "ratio spans more than e^600 and the sum grid leaves double precision; at that little noise each "
            "epoch is about the Gaussian mechanism of one step (GaussianMechanism(sigma=..., rounds=epochs))"
        )
    label = (
        f"random_allocation_gaussian(steps={t}, sigma={sigma}, sensitivity={sens}, absent={alpha})"
    )
    try:
        return _on_sum_grid(s, t, alpha, h, resolution, label, bound == "both")
    except SumGridUnfit:
        return per_epoch_gaussian(s, t, alpha, h, label)


def _merged_error_at_most(one: SumLaw, count: int, size: int) -> float:
    """An upper bound on the ``error`` of ``_power(one, count, merged_sum, grid)`` on a grid of
    ``size`` points: the same sums of errors with each cell's count of terms replaced by the count
    of pairs formed, size^2 (the floating-point sums and products are monotone, so the bound holds
    as computed)."""
    error = _power(
        SumLaw(np.zeros(1), 0.0, one.error, weight=np.zeros(1)),
        count,
        _error_of_merged_sum(size),
        np.zeros(1),
    )
    return error.error


def _error_of_merged_sum(size: int) -> Callable[[SumLaw, SumLaw, np.ndarray], SumLaw]:
    """``merged_sum``'s error, for ``size`` grid points and at most size^2 terms in a cell, without the sum."""
    terms = float(size) * float(size)

    def combine(a: SumLaw, b: SumLaw, grid: np.ndarray) -> SumLaw:
        return SumLaw(a.q, 0.0, a.error + b.error + (terms + 6.0) * UNIT_ROUNDOFF, weight=a.q)

    return combine


@functools.lru_cache(maxsize=LAWS_KEPT)
def summed_law(s: float, steps: int, resolution: float, *, merged: bool) -> SumLaw:
    """The law of S = Y_1 + ... + Y_steps on the sum grid of (``s``, ``steps``, ``resolution``):
    spread (``spread_sum``, above S in the convex order) or ``merged`` (``merged_sum``, below it),
    by binary powers.  It depends on the noise, the steps and the resolution alone, not on the
    PLD's interval or ``absent``, so the last ``LAWS_KEPT`` asked are kept: an epoch read at
    several intervals, on both sides, or built again for each question builds its sums once (the
    sums cost the square of the grid's points: about 0.5 s at s 0.44 over 8 steps, 6617 points).
    The masses are read-only.  The grid is ``_on_sum_grid``'s, fit there first.

    Parameters
    ----------
    s : float
        Noise over sensitivity, at least ``MIN_NOISE``.
    steps : int
        Steps of the epoch, at least 1.
    resolution : float
        The sum grid's spacing in log(s).
    merged : bool
        The merged law (lower side) instead of the spread law (upper side).

    Returns
    -------
    SumLaw
        The law on the grid, its masses read-only.

    Raises
    ------
    SumGridUnfit
        Where the grid has too few cells inside the band of normal tails (not kept).
    """
    grid = sum_grid(s, steps, resolution)
    ends = cell_ends(s, grid)
    if ends is None or ends.size < MIN_CELLS:
        raise SumGridUnfit("too few grid points inside the band of normal tails")
    if merged:
        law = _power(merged_lognormal(s, grid, ends), steps, merged_sum, grid)
    else:
        law = _power(spread_lognormal(s, grid, ends), steps, spread_sum, grid)
    for array in (law.q, law._weight, law._grid):
        if array is not None:
            array.setflags(write=False)
    return law


def _on_sum_grid(
    s: float, t: int, alpha: float, h: float, resolution: float, label: str, with_lower: bool = True
) -> PrivacyLossDistribution:
    """Both sides of ``random_allocation_gaussian`` from the laws of S on the sum grid (module
    docstring), or the upper side alone (``with_lower`` False: the identity pair's lower side);
    raises ``SumGridUnfit`` where the grid cannot carry them.  Without the lower side, the merged
    law's error is bounded without forming it: where that bound is within MAX_RELATIVE_ERROR,
    whether the grid is fit depends on the upper law alone, as with both sides; elsewhere the merged
    law is formed to decide."""
    grid = sum_grid(s, t, resolution)
    ends = cell_ends(s, grid)
    if ends is None or ends.size < MIN_CELLS:
        raise SumGridUnfit("too few grid points inside the band of normal tails")
    upper = summed_law(s, t, resolution, merged=False)
    merged_one = merged_lognormal(s, grid, ends)
    if not with_lower and _merged_error_at_most(merged_one, t, grid.size) <= MAX_RELATIVE_ERROR:
        if upper.error > MAX_RELATIVE_ERROR:
            raise SumGridUnfit(f"the masses' error bound exceeds {MAX_RELATIVE_ERROR:g}")
        return _upper_only(upper, t, alpha, h, label)
    lower = summed_law(s, t, resolution, merged=True)
    if max(upper.error, lower.error) > MAX_RELATIVE_ERROR:
        raise SumGridUnfit(f"the masses' error bound exceeds {MAX_RELATIVE_ERROR:g}")
    # ``absent`` may carry a caller's round-off (1 - r / t): the upper side takes it a few ulps
    # lower (P is then lambda P' + (1 - lambda) Q, a post-processing of the pair taken), the lower
    # side a few ulps higher
    up_q, up_p, up_inf = _pair(upper, t, alpha * (1.0 - 4.0 * UNIT_ROUNDOFF))
    lo_q, lo_p, _ = _pair(lower, t, min(alpha * (1.0 + 4.0 * UNIT_ROUNDOFF), 1.0))
    up, down = 1.0 + 2.0 * upper.error, 1.0 - 2.0 * upper.error
    low_up, low_down = 1.0 + 2.0 * lower.error, 1.0 - 2.0 * lower.error

    # remove: (P, Q); add: (Q, P); the first distribution raised and the second lowered on the upper
    # side; each pair formed on the side it gives alone
    remove = pair_sides(
        (np.append(up_p, up_inf) * up, np.append(up_q, 0.0) * down),
        (lo_p * low_down, lo_q * low_up),
        label,
        h,
    )
    add = pair_sides((up_q * up, up_p * down), (lo_q * low_down, lo_p * low_up), label, h)
    return PrivacyLossDistribution([{remove: 1}, {add: 1}], DEFAULT_TAIL)


def _upper_only(
    upper: SumLaw, t: int, alpha: float, h: float, label: str
) -> PrivacyLossDistribution:
    """The upper side of ``_on_sum_grid`` (the same arrays), beside the identity pair's lower side."""
    up_q, up_p, up_inf = _pair(upper, t, alpha * (1.0 - 4.0 * UNIT_ROUNDOFF))
    up, down = 1.0 + 2.0 * upper.error, 1.0 - 2.0 * upper.error
    identity = (np.ones(1), np.ones(1))  # the identity pair: delta 0, below any pair
    remove = pair_sides(
        (np.append(up_p, up_inf) * up, np.append(up_q, 0.0) * down), identity, label, h
    )
    add = pair_sides((up_q * up, up_p * down), identity, label, h)
    return PrivacyLossDistribution([{remove: 1}, {add: 1}], DEFAULT_TAIL)


def per_epoch_gaussian(
    s: float, t: int, alpha: float, h: float, label: str
) -> PrivacyLossDistribution:
    """A bracket of one epoch without the sum grid, for noise s (over the sensitivity) too large for it.

    Upper side, both directions: the Gaussian pair N(1, s^2) vs N(0, s^2).  Given the step the
    record joins (or none), the epoch's t outputs differ in that step alone, so each conditional
    pair is dominated by the Gaussian's (or is the identity); P is their mixture against the same Q,
    and every hockey-stick divergence is jointly convex, so the mixture is dominated too in both
    directions.  Lower side: the sum of the epoch's outputs, a post-processing, is absent N(0, t
    s^2) + (1 - absent) N(1, t s^2) vs N(0, t s^2), the Poisson-subsampled Gaussian at rate 1 -
    absent and noise s sqrt(t) (rounded up, the rate down: both lower it); above LARGEST_GAUSSIAN of
    noise, or at rate 0, the identity pair's.
    """
    # delta falls as the noise grows, so the Gaussian's upper side at the largest noise it
    # discretizes holds above it
    upper = next(
        iter(gaussian(min(s, LARGEST_GAUSSIAN), value_discretization_interval=h).directions[0])
    )
    rate = 1.0 - min(alpha * (1.0 + 4.0 * UNIT_ROUNDOFF), 1.0)
    noise = float(np.nextafter(np.nextafter(s * math.sqrt(t), np.inf), np.inf))
    if rate > 0.0 and noise <= LARGEST_GAUSSIAN:
        below = subsampled_gaussian(noise, rate, value_discretization_interval=h).directions
        lowers = [next(iter(direction)).lower for direction in below]
        if len(lowers) == 1:  # rate 1: the Gaussian mechanism, one symmetric direction
            lowers *= 2
    else:  # the identity pair: every hockey-stick divergence is at least its own
        lowers = [pair_factor(np.ones(1), np.ones(1), label, h).lower] * 2
    return PrivacyLossDistribution(
        [{Factor(label, upper.upper, lower, upper.connect_dots): 1} for lower in lowers],
        DEFAULT_TAIL,
    )


@dataclass(frozen=True)
class RandomAllocationGaussian(Mechanism):
    """One epoch of random allocation (balls-in-bins) over ``steps`` steps, Gaussian noise sigma:
    remove P = (1/t) sum_j N(e_j, sigma^2 I_t) vs Q = N(0, sigma^2 I_t), add swapped, tightly
    dominating (Chua et al. 2025, Sec. 3); its likelihood ratio's law bracketed on the sum grid
    (module docstring)."""

    name: ClassVar[str] = "random_allocation_gaussian"
    dp_event: ClassVar[str] = (
        "hockeystick.interop.dp_accounting.allocation_events.BallsInBinsGaussianDpEvent"
    )
    dp_event_field: ClassVar[str] = "noise_multiplier"
    steps: int
    sigma: float

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> RandomAllocationGaussian | NonPrivateRun:
        """One ``BallsInBinsGaussianDpEvent(noise_multiplier, num_steps)``: add/remove and
        replace-special only; non-private at noise 0."""
        require_relation(
            event, relation, relations_bounded("add_or_remove_one"), "`BallsInBinsGaussianDpEvent`"
        )
        steps = integer(event, "num_steps", 1)
        sigma = noise(event, "noise_multiplier")
        if sigma > 0:
            check_reach(event, "noise_multiplier", gaussian_reach(1.0 / sigma))
        return NonPrivateRun(cls.name) if sigma == 0 else cls(steps, sigma)

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return random_allocation_gaussian(self.steps, self.sigma, value_discretization_interval=h)
