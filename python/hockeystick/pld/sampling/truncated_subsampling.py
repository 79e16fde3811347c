"""The Gaussian mechanism on a truncated Poisson sample (dp_accounting's ``TruncatedSubsampledGaussianDpEvent``).

Each of n records is sampled with probability q; a sample larger than B is cut to a uniformly random
subset of B; the sum of the kept records' contributions (each of norm at most 1) plus N(0,
sigma^2 I) is released.  Neighbours are add/remove: D' = D + {x}, n counting x, so the other records' sample
size is K ~ Binomial(n - 1, q).

Upper side (``analysis="conditioned"``, the default).  Condition on K = k and on the kept subset.
- k <= B - 1: nothing is cut on either side; x is kept with probability q.  The pair is the
  Poisson-subsampled Gaussian (1 - q) N(s, sigma^2) + q N(s + g_x, sigma^2) vs N(s, sigma^2).
- k >= B: on D the kept set is a uniform B-subset of the k others; write it as A + {y}, A a uniform
  (B - 1)-subset and y uniform among the rest.  On D', x is sampled and kept with probability p_k =
  q B / (k + 1); kept, the rest of the batch is a uniform (B - 1)-subset A of the others (draw y as
  before, unused); otherwise the batch is a uniform B-subset A + {y}, as on D.  Given (k, A, y) the
  pair is (1 - p_k) N(s, sigma^2) + p_k N(s - g_y + g_x, sigma^2) vs N(s, sigma^2) with s = sum(A) +
  g_y and |g_x - g_y| <= 2: the Poisson-subsampled Gaussian at rate p_k and sensitivity 2.
By joint convexity of the hockey-stick divergence E_gamma (an f-divergence, every gamma >= 0) the
mechanism's E_gamma in each direction is at most sum_k P(K = k) E_gamma(pair_k), which is the
E_gamma of the disjoint union of the pairs weighted by P(K = k): that union dominates one round
(Zhu, Dong, Wang, AISTATS 2022, Def. 7), and so its composition dominates the composition (their
Thm. 10).  E_gamma of the subsampled pair grows with the rate (it is convex in the rate and least at
rate 0, in both directions), so the k >= B part is grouped into a few buckets of k, each at the rate
of its smallest k (``CENTRAL_BUCKETS`` geometric in k + 1 over the central 1 - 2e-6 of K's law,
``OUTER_BUCKETS`` over its central 1 - 2e-30, one bucket for each tail beyond); each bucket's mass
is computed from the tail of K's law it lies in.  Each weight is raised by a relative
``WEIGHT_MARGIN``, above the error of the regularized incomplete beta function they come from, so
every component keeps at least its true weight (a dominating sum of non-negative terms).

``analysis="dp_accounting"`` is the mixture of Ganesh 2025, arXiv:2508.15089 (as in dp_accounting's
``from_truncated_subsampled_gaussian_mechanism``): with t = P(K >= B) and
q' = P(Binomial(n, q) > B) B / (t n), the mixture (1 - t) [Poisson-subsampled Gaussian (sigma, q)]
+ t [(1 - q') N(0, s^2) + q' N(1, s^2) vs (1 - q') N(0, s^2) + q' N(-1, s^2), s = sigma / 2].
It is valid; its second component moves the record's slot to both sides of the shared part
(a shift of 4 between its two mixtures), where the conditioned pair moves it once (a shift of 2 from
a pure Gaussian), and it mixes one average rate q' where the conditioned pair keeps the rates apart.
Where K is nearly constant (q = 1) the conditioned pair is the mechanism's own worst case; it is
kept to reproduce published values.

Lower side: the mechanism itself on one pair of datasets in one dimension (a realizable pair, so its
composition is a lower bound; the optimistic discretization only lowers it further), the one of
two with the larger one-round Kullback-Leibler divergence in either direction (a proxy for which
gives the larger delta after many rounds, where the composition is close to Gaussian):
- the others at 0 and x at 1: the output is (1 - p) N(0, sigma^2) + p N(1, sigma^2) vs N(0, sigma^2)
  with p = q P(K <= B - 1) + B P(Binomial(n, q) > B) / n, the probability that x is kept
  (E[1{K >= B} B / (K + 1)] = B P(Binomial(n, q) >= B + 1) / (n q));
- the others at -1 and x at +1 (exact when q = 1: D gives -B, D' gives -B + 2 with probability
  B / n): outputs -min(K, B) on D; on D' the same unless x is sampled, then -K + 1 if K <= B - 1,
  and if K >= B, -B + 2 when x is kept and -B otherwise.  The pair of Gaussian mixtures is binned
  (a post-processing: its hockey-stick curve and its compositions lie below the mechanism's) into
  cells of width sigma / 16 around -B (``OPPOSITE_BINS_PER_SIGMA``, ``OPPOSITE_HALF_WIDTH`` sigmas
  either side) with one cell for each outer half-line (atoms more than ``FAR_ATOMS`` sigmas past the
  cells are counted wholly in the outer cell: their mass inside is below e^-800, beneath every
  double); the first distribution's masses are lowered
  and the second's raised by a relative ``WEIGHT_MARGIN`` (each cell's mass is a sum of accurate
  Gaussian interval masses), which only lowers every term p (1 - e^{eps - log(p / q)})_+ of the
  composed curve.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from ... import _core
from ...base import validation as _validation
from ...base.event_fields import check_reach, integer, noise, probability, require_relation
from ...base.event_refusal import NonPrivateRun
from ...base.parameter_range import gaussian_reach
from ..grid.distribution import Factor, PrivacyLossDistribution
from ..grid.tail import DEFAULT_TAIL
from ..mechanisms.constructors import (
    DEFAULT_INTERVAL,
    MAX_CELLS,
    checked_interval,
    from_distributions,
    subsampled_gaussians,
)
from ..mechanisms.gaussian_mixture import normal_interval
from ..mechanisms.mechanism import Mechanism
from ..mechanisms.monotone import core_side_factor
from ..mechanisms.neighbouring import relations_bounded
from ..mechanisms.pld_mixture import mixture

Analysis = Literal["conditioned", "dp_accounting"]

CENTRAL_BUCKETS = 24  # buckets of k >= B, geometric in k + 1, over K's central 1 - 2e-6
CENTRAL_TAIL = 1e-6
OUTER_BUCKETS = 4  # and over its central 1 - 2e-30 (the rest: one bucket each side)
BULK_TAIL = 1e-30
WEIGHT_MARGIN = 1e-13  # relative: above the incomplete beta function's error (few 1e-15)
OPPOSITE_BINS_PER_SIGMA = 16  # cells per sigma of the binned opposite-records pair
OPPOSITE_HALF_WIDTH = 10.0  # sigmas of cells either side of the outputs -B .. -B + 2
OPPOSITE_MAX_CELLS = (
    1 << 16
)  # cells widened past sigma / 16 where sigma is small (atoms far apart in sigmas)
FAR_ATOMS = 40.0  # sigmas past the cells beyond which an atom's mass is all in the outer cell


def _binomial_cdf(k: np.ndarray | int, m: int, q: float) -> np.ndarray:
    """P(Binomial(m, q) <= k), 0 below 0 and 1 from m on."""
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    return np.asarray(stats.binom.cdf(k, m, q), dtype=np.float64)


def _quantile_below(m: int, q: float, tail: float) -> int:
    """The largest k with P(Binomial(m, q) < k) <= tail (bisection: scipy's ppf fails below ~1e-17)."""
    lo, hi = 0, m
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if float(_binomial_cdf(mid - 1, m, q)) <= tail:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _quantile_above(m: int, q: float, tail: float) -> int:
    """The least k with P(Binomial(m, q) > k) <= tail."""
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    lo, hi = 0, m
    while lo < hi:
        mid = (lo + hi) // 2
        if float(stats.binom.sf(mid, m, q)) <= tail:
            hi = mid
        else:
            lo = mid + 1
    return lo


def conditioned_components(n: int, q: float, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weights, rates, sensitivities) of the conditioned dominating pair (module docstring): the
    component k <= B - 1 (rate q, sensitivity 1), then the buckets of k >= B, each at the rate
    q B / (k_lo + 1) of its least k and sensitivity 2, weights raised by ``WEIGHT_MARGIN``."""
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    m = n - 1
    if b > m:
        return np.ones(1), np.array([q]), np.ones(1)
    edges = [b]
    for tail, count in ((BULK_TAIL, OUTER_BUCKETS), (CENTRAL_TAIL, CENTRAL_BUCKETS)):
        lo = max(b, _quantile_below(m, q, tail))
        hi = max(lo, _quantile_above(m, q, tail))
        edges += [
            lo,
            hi + 1,
            *np.ceil(np.exp(np.linspace(np.log(lo + 1.0), np.log(hi + 1.0), count + 1)) - 1.0),
        ]
    starts = np.unique(np.asarray(edges, dtype=np.int64))
    starts = starts[(starts >= b) & (starts <= m)]
    ends = np.append(starts[1:] - 1, m)
    below = _binomial_cdf(b - 1, m, q)
    # each bucket's mass from the tail it lies in (no cancellation against 1)
    upper_tail = starts > m * q
    mass = np.where(
        upper_tail,
        stats.binom.sf(starts - 1, m, q) - stats.binom.sf(ends, m, q),
        _binomial_cdf(ends, m, q) - _binomial_cdf(starts - 1, m, q),
    )
    weights = np.concatenate([np.atleast_1d(below), mass]) * (1.0 + WEIGHT_MARGIN)
    rates = np.concatenate([[q], q * b / (starts + 1.0)])
    sensitivities = np.concatenate([[1.0], np.full(starts.size, 2.0)])
    keep = weights > 0.0
    return weights[keep], rates[keep], sensitivities[keep]


def _dp_accounting_upper(
    n: int, q: float, b: int, sigma: float, h: float, tail: float
) -> PrivacyLossDistribution:
    """The dominating mixture of Ganesh 2025, arXiv:2508.15089 (module docstring)."""
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    poisson = subsampled_gaussians(
        [sigma], [q], value_discretization_interval=h, tail=tail, optimistic=False
    )[0]
    t = float(stats.binom.sf(b - 1, n - 1, q))
    if t == 0.0:
        return poisson
    q_kept = min(float(stats.binom.sf(b, n, q)) * b / (t * n), 1.0)
    # (1 - q') N(0, s^2) + q' N(1, s^2) vs (1 - q') N(0, s^2) + q' N(-1, s^2), s = sigma / 2, in the
    # core (pld/mechanisms/replace_one_mixture.hpp); its add direction is its remove direction
    s = sigma / 2.0
    remove, _ = _core.pld_sampling.replace_one_mixture(
        sigma=s, sampling_rate=q_kept, tail=tail, h=h, max_cells=MAX_CELLS
    )
    forward = core_side_factor(f"replace_pair(s={s}, q={q_kept}), remove", remove)
    return mixture([poisson, PrivacyLossDistribution([{forward: 1}], tail)], [1.0 - t, t])


def _conditioned_upper(
    n: int, q: float, b: int, sigma: float, h: float, tail: float
) -> PrivacyLossDistribution:
    weights, rates, sens = conditioned_components(n, q, b)
    parts = subsampled_gaussians(
        np.full(rates.size, sigma),
        rates,
        sensitivity=sens,
        value_discretization_interval=h,
        tail=tail,
        optimistic=False,
    )
    return parts[0] if weights.size == 1 else mixture(parts, weights)


def kept_probability(n: int, q: float, b: int) -> float:
    """P(x is sampled and kept) = q P(K <= B - 1) + B P(Binomial(n, q) > B) / n, rounded down (q
    where no cut is possible, B >= n)."""
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    if b >= n:
        return q
    below = float(_binomial_cdf(b - 1, n - 1, q))
    above = float(stats.binom.sf(b, n, q)) * b / n
    return min(q, (q * below + above) * (1.0 - WEIGHT_MARGIN))


def _cell_edges(sigma: float, span: float) -> np.ndarray:
    """Cell edges from -OPPOSITE_HALF_WIDTH sigma to span + OPPOSITE_HALF_WIDTH sigma, sigma / 16
    apart (wider where that would exceed ``OPPOSITE_MAX_CELLS``)."""
    half = OPPOSITE_HALF_WIDTH * sigma
    width = max(sigma / OPPOSITE_BINS_PER_SIGMA, (span + 2.0 * half) / OPPOSITE_MAX_CELLS)
    return np.arange(-half, span + half + width, width)


def _binned(atoms: np.ndarray, edges: np.ndarray, sigma: float) -> np.ndarray:
    """Cell masses of sum_j atoms[j] N(j, sigma^2) over (-inf, edges[0]], ..., (edges[-1], inf)."""
    loc = np.arange(atoms.size, dtype=np.float64)[:, None]
    z = (np.concatenate([[-np.inf], edges, [np.inf]])[None, :] - loc) / sigma
    masses: np.ndarray = atoms @ normal_interval(z[:, :-1], z[:, 1:])
    return masses


def opposite_records_pair(n: int, q: float, b: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Cell masses (P on D', Q on D) of the others-at--1, x-at-+1 outputs, binned around -B (docstring).

    In u = output + B: Q has atoms at 0 (mass P(K >= B)) and at d = 1 .. B (mass P(K = B - d)); D'
    is (1 - q) Q + q R with R's atoms at d + 1 (mass P(K = B - d), d >= 1), at 2 (x kept after a
    cut, mass B P(Binomial(n, q) > B) / (n q)) and at 0 (the rest of P(K >= B)).  Returned
    unmargined."""
    from scipy import stats  # lazy: scipy loads at its first use, not with the package

    m = n - 1
    edges = _cell_edges(sigma, 2.0)
    far = int(min(b, np.ceil(edges[-1] + FAR_ATOMS * sigma)))
    d = np.arange(0, far + 1)
    atoms_q = np.empty(d.size)
    atoms_q[0] = float(stats.binom.sf(b - 1, m, q))
    atoms_q[1:] = stats.binom.pmf(b - d[1:], m, q)
    kept_after_cut = float(stats.binom.sf(b, n, q)) * b / (n * q)
    atoms_r = np.zeros(far + 2)
    atoms_r[0] = max(atoms_q[0] - kept_after_cut, 0.0)
    atoms_r[2] += kept_after_cut
    atoms_r[2:] += atoms_q[1:]
    lump = float(
        _binomial_cdf(b - far - 1, m, q)
    )  # counts k < B - far: Q's atoms past ``far``, R's past far + 1

    cq, cr = _binned(atoms_q, edges, sigma), _binned(atoms_r, edges, sigma)
    cq[-1] += lump
    cr[-1] += lump
    return (1.0 - q) * cq + q * cr, cq


def _kl(p: np.ndarray, q: np.ndarray) -> float:
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    keep = p > 0
    return float(np.sum(special.rel_entr(p[keep], q[keep])))


def others_at_zero(
    n: int, q: float, b: int, sigma: float, h: float, tail: float = DEFAULT_TAIL
) -> PrivacyLossDistribution:
    """The realizable pair with the others at 0 and x at 1 (module docstring), both directions."""
    return subsampled_gaussians(
        [sigma], [kept_probability(n, q, b)], value_discretization_interval=h, tail=tail
    )[0]


def others_opposite(n: int, q: float, b: int, sigma: float, h: float) -> PrivacyLossDistribution:
    """The realizable pair with the others at -1 and x at +1, binned (``opposite_records_pair``),
    both directions, each first distribution's masses lowered and second's raised by
    ``WEIGHT_MARGIN``."""
    p_cells, q_cells = opposite_records_pair(n, q, b, sigma)
    low, high = 1.0 - WEIGHT_MARGIN, 1.0 + WEIGHT_MARGIN
    forward = from_distributions(
        p_cells * low,
        q_cells * high,
        value_discretization_interval=h,
        symmetric=True,
        exact_zeros=False,
    )
    backward = from_distributions(
        q_cells * low,
        p_cells * high,
        value_discretization_interval=h,
        symmetric=True,
        exact_zeros=False,
    )
    return PrivacyLossDistribution([forward.directions[0], backward.directions[0]])


def _lower_factors(n: int, q: float, b: int, sigma: float, h: float, tail: float) -> list[Factor]:
    """Per direction (D' vs D, D vs D'), the optimistic side of the realizable pair with the larger KL."""
    kept = kept_probability(n, q, b)
    chosen = others_at_zero(n, q, b, sigma, h, tail)
    if b <= n - 1 and kept < q:  # a cut is possible
        p_cells, q_cells = opposite_records_pair(n, q, b, sigma)
        if max(_kl(p_cells, q_cells), _kl(q_cells, p_cells)) > _poisson_kl(kept, sigma):
            chosen = others_opposite(n, q, b, sigma, h)
    return [next(iter(d)) for d in chosen.directions]


def _poisson_kl(p: float, sigma: float) -> float:
    """max of the two KL divergences of (1 - p) N(0, sigma^2) + p N(1, sigma^2) and N(0, sigma^2),
    by the same binning as ``opposite_records_pair`` (for choosing a pair only)."""
    edges = _cell_edges(sigma, 1.0)
    a = _binned(np.array([1.0]), edges, sigma)
    mixed = _binned(np.array([1.0 - p, p]), edges, sigma)
    return max(_kl(mixed, a), _kl(a, mixed))


def truncated_subsampled_gaussian(
    dataset_size: int,
    sampling_probability: float,
    truncated_batch_size: int,
    noise_multiplier: float,
    *,
    analysis: Analysis = "conditioned",
    value_discretization_interval: float = DEFAULT_INTERVAL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyLossDistribution:
    r"""Discretized remove and add PLDs of the Gaussian mechanism on a truncated Poisson sample.

    Each of the n records is sampled with probability q; a sample larger than B is cut to a
    uniformly random subset of B; the sum of the kept records' contributions (each of norm at
    most 1) plus N(0, sigma^2 I) is released.  Neighbours are add/remove, so the other records' sample
    size is K ~ Binomial(n - 1, q).

    The upper side is, for ``analysis="conditioned"``, the disjoint union over K = k of
    Poisson-subsampled Gaussian pairs (rate q and shift 1 for k <= B - 1, rate p_k = q B / (k + 1)
    and shift 2 for k >= B, grouped in buckets of k at the rate of their smallest k), weighted by
    P(K = k) rounded up:

    .. math::

        E_\gamma(\text{mechanism}) \le \sum_k P(K = k)\, E_\gamma(\text{pair}_k)

    by joint convexity; for ``analysis="dp_accounting"`` it is the mixture of Ganesh 2025 (as
    dp_accounting computes it).  The lower side, either way, is a realizable pair of datasets in one
    dimension.

    Parameters
    ----------
    dataset_size : int
        Number of records n, an integer >= 1 (counting the added record).
    sampling_probability : float
        Poisson sampling probability q, 0 < q <= 1.
    truncated_batch_size : int
        Largest batch B, an integer >= 1.
    noise_multiplier : float
        Standard deviation sigma of the Gaussian noise over the contributions' norm bound, sigma
        > 0.
    analysis : {"conditioned", "dp_accounting"}, optional
        The upper side's dominating pair (default ``"conditioned"``).
    value_discretization_interval : float, optional
        Spacing h of the loss grid, 0 < h <= 100 (default 1e-4).
    tail : float, optional
        Probability mass cut from the Gaussian pairs' tails, 1e-300 <= tail < 1e-3 (default 1e-15).

    Returns
    -------
    PrivacyLossDistribution
        The remove and the add direction (one direction when q = 1 and nothing is cut: the Gaussian
        mechanism).

    Raises
    ------
    ValueError
        If ``dataset_size`` or ``truncated_batch_size`` is not an integer >= 1,
        ``sampling_probability`` lies outside (0, 1], ``noise_multiplier`` is not finite and > 0,
        ``analysis`` is not one of the two, ``value_discretization_interval`` lies outside (0, 100],
        ``tail`` outside [1e-300, 1e-3), or the grid would need more than 2**26 cells.
    ParameterTypeError
        If an argument is a string, a boolean or None.

    References
    ----------
    Zhu, Dong & Wang, AISTATS 2022, Def. 7 and Thm 10; Ganesh 2025, arXiv:2508.15089;
    dp_accounting's ``TruncatedSubsampledGaussianDpEvent``.

    Examples
    --------
    With q = 1 and B >= n nothing is cut: the Gaussian mechanism.

    >>> import hockeystick.pld as pld
    >>> d = pld.truncated_subsampled_gaussian(10, 1.0, 20, 1.0, value_discretization_interval=1e-3)
    >>> [round(x, 6) for x in d.delta(1.0, bound="both")]
    [0.126937, 0.126937]
    """
    n = _validation.count(dataset_size, "dataset_size")
    b = _validation.count(truncated_batch_size, "truncated_batch_size")
    q = float(
        _validation.in_interval(
            _validation.single(sampling_probability, "sampling_probability"),
            "sampling_probability",
            0.0,
            1.0,
            open_low=True,
            open_high=False,
        )
    )
    sigma = float(
        _validation.positive(
            _validation.single(noise_multiplier, "noise_multiplier"), "noise_multiplier"
        )
    )
    if analysis not in ("conditioned", "dp_accounting"):
        raise ValueError(f"analysis must be 'conditioned' or 'dp_accounting', got {analysis!r}")
    h = checked_interval(value_discretization_interval)
    build = _conditioned_upper if analysis == "conditioned" else _dp_accounting_upper
    try:
        upper = build(n, q, b, sigma, h, tail)
    except ValueError as err:  # the grid's cell cap, stated for the Gaussian's sigma
        raise ValueError(
            f"noise_multiplier={sigma!r} with truncated_batch_size={b}: {err}"
        ) from None
    lower = _lower_factors(n, q, b, sigma, h, tail)
    up = [next(iter(d)) for d in upper.directions]
    if len(up) == 1:
        up = up * 2
    directions = [
        {
            Factor(
                f"truncated_subsampled_gaussian(n={n}, q={q}, B={b}, sigma={sigma})",
                u.upper,
                lo.lower,
                u.connect_dots,
            ): 1
        }
        for u, lo in zip(up, lower)
    ]
    if len(lower) == 1:  # q = 1 and no cut: the Gaussian mechanism, one symmetric direction
        directions = directions[:1]
    return PrivacyLossDistribution(directions, tail)


@dataclass(frozen=True)
class TruncatedGaussian(Mechanism):
    """The Gaussian (noise sigma) on a Poisson sample of rate q from n records cut to at most b:
    above, the conditioned dominating pair (a disjoint union of Poisson-subsampled Gaussians by the
    sample size of the others, by joint convexity; Zhu, Dong, Wang 2022, Def. 7); below, a
    realizable pair of datasets (module docstring; ``truncated_subsampled_gaussian``)."""

    name: ClassVar[str] = "truncated_gaussian"
    dp_event: ClassVar[str] = "dp_accounting.dp_event.TruncatedSubsampledGaussianDpEvent"
    dp_event_field: ClassVar[str] = "noise_multiplier"
    n: int
    q: float
    b: int
    sigma: float

    @classmethod
    def from_dp_event(cls, event: Any, relation: str) -> TruncatedGaussian | NonPrivateRun | None:
        """One ``TruncatedSubsampledGaussianDpEvent``: add/remove and replace-special only; None
        where nothing is sampled (q, n or the cut 0), non-private at noise 0."""
        require_relation(
            event,
            relation,
            relations_bounded("add_or_remove_one"),
            "`TruncatedSubsampledGaussianDpEvent`",
        )
        q = probability(event, "sampling_probability")
        n = integer(event, "dataset_size", 0)
        b = integer(event, "truncated_batch_size", 0)
        sigma = noise(event, "noise_multiplier")
        if not (q > 0 and n > 0 and b > 0):
            return None
        if sigma > 0:
            check_reach(event, "noise_multiplier", gaussian_reach(1.0 / sigma))
        return NonPrivateRun(cls.name) if sigma == 0 else cls(n, q, b, sigma)

    def loss_reach(self) -> float:
        """``gaussian_reach(1 / sigma)``: each part of the dominating pair is a Poisson-subsampled
        Gaussian of radius 1 / sigma, whose loss the Gaussian's bounds."""
        return gaussian_reach(1.0 / self.sigma)

    def group_loss_reach(self, c: float) -> float:
        """``gaussian_reach(c / sigma)``."""
        return gaussian_reach(c / self.sigma)

    def grid_pld(self, h: float) -> PrivacyLossDistribution:
        return truncated_subsampled_gaussian(
            self.n, self.q, self.b, self.sigma, value_discretization_interval=h
        )
