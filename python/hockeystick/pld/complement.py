"""Certified bounds on delta near 1, read from bounds on its complement 1 - delta.

Where T rounds leave delta(eps) within ~1e-7 of 1 (sigma 0.5-0.8, q 0.03-0.1, hundreds of rounds and
more: 6,991 of G1's 10^6 points), the composed PMFs bracket delta only to a few 1e-10 whatever the grid
(bench/README.md, session 23): each round's masses carry a relative error (the cells' round-off, their
edges' factor e^{+-e}, the suffix sums' slack) that T rounds turn into an absolute error of delta, while
1 - delta itself is ~1e-8 there and its epsilon width needs it to ~0.2 %.  On the complement every such
error stays relative.  With L_T the loss of the T-fold composition under P,

    1 - delta(eps) = E_P[min(1, e^{eps - L_T})] = min over events A of  P(A^c) + e^eps Q(A)      (1)

(delta = sup_A P(A) - e^eps Q(A): the hockey-stick divergence's dual form; the minimum is the
likelihood-ratio test A = {L_T > eps}, Neyman-Pearson).

**The upper side of delta** is one minus a lower bound on (1).  A pair dominating (P, Q) has a
smaller complement (its profile is larger at every eps), so any composition of the connect-the-dots
PMF (pld_connect_dots.hpp's opening comment; Doroshenko et al., PETS 2022, Sec. 3) bounds (1) from
below.  Its masses are p_j = (d_j + e^h c_{j-1}) / (e^h - 1) from the cells' numbers (pld_cells.hpp);
here each is taken from below, (d_j + e^h c_{j-1} - R_j) / ((e^h - 1) G) with R_j the cells' own
round-off (``cell_round_off`` ((c_j + d_j) + e^h (c_{j-1} + d_{j-1})), the pessimistic PMF's term
taken the other way) and G >= e^e (1 + MASS_SLACK) for the edges' factor and the products' rounding,
and the masses this loses (the tails too) are moved to +infinity, which only makes the pair more
dominating.  Composed T-fold with the truncated and aliased mass subtracted (an optimistic
composition, ``compose_many``: its ``shift``, and twice its round-off charge over all n points, as
``pmf.GridPMF`` charges an optimistic curve), and read at eps - s (s the composed loss shift), it gives

    1 - delta(eps) >= sum_k C_k min(1, e^{eps - s - l_k}) (1 - slack) + shift - 2 charge(n)        (2)

a sum of positive terms (prefix sums below eps, decayed suffix sums above it), so its rounding is
relative: slack = 8 (n + 8) u plus the exponential's 4 u (|eps| + |l| + 1).

**The lower side of delta** is one minus an upper bound on (1), which any event gives.  Label each
output of one round by the grid loss l_j of the cell it falls in (between the cells' rounded edges;
-infinity below the cells, +infinity above them) and take A = {the sum of the T labels > tau}: a test
of the likelihood-ratio kind on a quantized statistic, which for the best tau loses only about
f(eps) T h^2 / 24 (the labels' spread within their cells; their mean offset is absorbed by tau).  Then
P(A^c) and Q(A) are the lower tail of the T-fold composition of the cells' P-masses a_j and the upper
tail of that of their Q-masses b_j, plus the labelled tails:

    1 - delta(eps) <= [A(<= tau) + T a_lo] + e^eps [B(> tau)]                                       (3)

with every mass bounded from above: a_j = c_j + s_j and b_j = e^{-l_j} s_j, s_j = (c_j + d_j) / (e^h - 1)
(pld_cells.hpp's ``cell_mass``), raised by G for the cells' round-off (``cell_round_off`` e^h of a_j,
``cell_round_off`` of s_j: within MASS_SLACK for h <= MAX_INTERVAL) and for their edges (a cell's
kernel takes its edge's loss as l_j, within e: its b_j within e^{+-e}); a_lo the P-mass below the cells
(label -infinity: in A^c whatever the other rounds, so T a_lo bounds its part), b_inf the Q-mass above
them (label +infinity, at most e^{e - l_{N-1}} times their P-mass, the losses there exceeding the top
cell's lower end: T b_inf bounds its part).  The Q-masses are composed tilted, e^{l_j} b_j / N with N their
sum (T rounds of e^{l_j} b_j alone would shrink to e^{-T h / 2} against absolute charges), so that
e^eps B(> tau) = N^T sum_{k > tau / h} B~_k e^{eps - l_k}, a decayed sum.  Both compositions are pessimistic
(``compose_many``: entries bounded by the exact convolution plus the charges; mass truncated above the
window, and below it where the FFT is longer than the window, put at +infinity, which (3) adds to both
tails; ``TRUNCATED``, the compositions' tail, added to both besides, for mass below a window as long as its
FFT, which folds onto the window's top), so each tail is its sum (1 + slack) plus the charge over its
points plus those masses and ``shift``.  Every tau gives a valid bound; the one taken is where the composed
log-likelihood ratio log A_k - log B_k (made non-decreasing) crosses eps, and its neighbours.

Both sides compose with the direct DFT bins (``compose_many``'s ``direct_bins``): without them the
round-off charge after 10^4 rounds (~3e-10) exceeds the ~4e-11 that an epsilon width of 1e-2 needs at
1 - delta ~ 1e-8.  delta is the largest over the neighbouring directions: the upper side is the largest
over both directions' (2), the lower side that of the directions given (3)'s factors (the accountant gives
the remove direction's: it sets delta near 1 in G1, the add direction's complement being the larger there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.signal

from .. import _core
from .compose import DEFAULT_TAIL, compose_many
from .pmf import GridPMF

# The cells' tails: the P-mass below them enters (3) as T a_lo, so it is cut far below any 1 - delta
# resolved here (10^5 rounds: 5e-26).
TAIL = 1e-30
# Relative slack on every mass: covers the cells' round-off (cell_round_off e^h <= 6e-15 for
# h <= MAX_INTERVAL) and the few roundings of forming the masses (a few u).
MASS_SLACK = 1e-12
MAX_INTERVAL = 0.5
MAX_CELLS = 1 << 24
# The compositions' tail (``compose_many``'s default): at most this much mass lies beyond each end of a window
TRUNCATED = DEFAULT_TAIL

_U = 0.5 * np.finfo(np.float64).eps


@dataclass(frozen=True)
class TestFactors:
    """One direction's one-round PMFs for (3) (the module docstring), on one grid."""

    p_masses: GridPMF    # the cells' P-masses a_j bounded above; composed pessimistic
    q_tilted: GridPMF    # e^{l_j} b_j / N bounded above (the Q-masses tilted by e^l, normalized); pessimistic
    log_norm: float      # log N, rounded up: e^{l_j} b_j <= N q_tilted_j
    p_below: float       # the P-mass below the cells, bounded above (label -infinity)
    q_above: float       # the Q-mass above the cells, bounded above (label +infinity)


@dataclass(frozen=True)
class DirectionFactors:
    """One direction's one-round PMFs on one grid: (2)'s, and (3)'s where that direction's lower side is asked."""

    dominating: GridPMF         # connect-the-dots masses bounded below; composed optimistic
    test: TestFactors | None


def subsampled_gaussian_factors(sigma: float, sampling_rate: float, remove: bool, h: float,
                                test: bool = True) -> DirectionFactors:
    """The factors of one direction of the Poisson-subsampled Gaussian (noise ``sigma`` over
    sensitivity 1, rate ``sampling_rate``) on grid ``h`` (at most MAX_INTERVAL), from its cells
    (pld_cells.hpp's ``subsampled_gaussian_cells``, tails cut at TAIL, no half-cells); ``test``: also
    (3)'s.  ValueError where they cannot be built (too many cells, edges too coarse for the grid)."""
    if not 0.0 < h <= MAX_INTERVAL:
        raise ValueError(f"h must lie in (0, {MAX_INTERVAL}] for the complement's slack, got {h!r}")
    cells = _core.pld_subsampled_gaussian_cells(float(sigma), float(sampling_rate), bool(remove), float(h), TAIL,
                                                MAX_CELLS, False)
    c, d, k_lo = cells["c"], cells["d"], int(cells["k_lo"])
    n = c.size
    e = float(cells["edge_error"])
    grow = 1.0 + MASS_SLACK + 2.0 * e   # >= e^e (1 + MASS_SLACK): e <= h / 4 (pld_cells.hpp)
    # connect-the-dots masses at l_0 .. l_n from below: (d_j + e^h c_{j-1} - R_j) / ((e^h - 1) G)
    eh = math.exp(h)
    c_prev, d_prev = np.concatenate([[0.0], c]), np.concatenate([[0.0], d])
    c_next, d_next = np.concatenate([c, [0.0]]), np.concatenate([d, [0.0]])
    own = _core.pld_cell_round_off * ((c_next + d_next) + eh * (c_prev + d_prev))
    low = np.maximum((d_next + eh * c_prev) - own, 0.0) / (math.expm1(h) * grow)
    dominating = GridPMF(k_lo, h, low, 0.0, pessimistic=False,
                         loss_shift=float(np.nextafter(e, np.inf)) if e > 0.0 else 0.0)
    if not test:
        return DirectionFactors(dominating, None)
    # above the cells the losses exceed the top cell's lower end less e: Q <= e^{e - l_{N-1}} P there
    exponent = e - (k_lo + n - 1) * h
    if not exponent < 700.0:
        raise ValueError("the cells' top loss is too low to bound the Q-mass above them")
    q_above = cells["tail_hi"] * math.exp(exponent) * grow
    # the tilted Q-masses sum to about e^{-h/2} (a cell's lower end under-states its losses by h / 2 on
    # average), so T rounds would leave e^{-T h / 2} of them (e^{-41} after 82864 rounds at h 1e-3) against
    # absolute charges: normalized to N = their computed sum (any N > 0 will do; the quotient raised by 4 u)
    tilted = cells["q_mass_scaled"] * grow
    norm = float(np.sum(tilted))
    if not (norm > 0.0 and math.isfinite(norm)):
        raise ValueError("the cells carry no Q-mass at this grid")
    log_norm = math.log(norm)
    return DirectionFactors(dominating, TestFactors(
        GridPMF(k_lo, h, cells["p_mass"] * grow, 0.0, pessimistic=True),
        GridPMF(k_lo, h, tilted / norm * (1.0 + 4.0 * _U), 0.0, pessimistic=True),
        log_norm + 2.0 * _U * (abs(log_norm) + 1.0), float(cells["tail_lo"]) * grow, float(q_above)))


def _charge(pmf: GridPMF, count: np.ndarray) -> np.ndarray:
    """The round-off charge of ``count`` composed masses (``GridPMF._charge_above``; 0 for an uncomposed PMF)."""
    if pmf.total_error == 0.0:
        return np.zeros(np.shape(count))
    return pmf._charge_above(np.asarray(count, dtype=np.float64))


def _decayed_charge(pmf: GridPMF) -> float:
    """The round-off charge of a sum of composed masses weighted by e^{-(j - i) h}, j >= i (any i):
    ``GridPMF._charge_weighted`` with the weights' sum at most 1 / (1 - e^{-h}) and their Euclidean norm at
    most 1 / sqrt(1 - e^{-2h}); 0 for an uncomposed PMF."""
    if pmf.total_error == 0.0:
        return 0.0
    ones = 1.0 / -math.expm1(-pmf.h) * (1.0 + 4.0 * _U)
    root = math.sqrt(1.0 / -math.expm1(-2.0 * pmf.h)) * (1.0 + 4.0 * _U)
    return float(pmf._charge_weighted(np.array(ones), np.array(root))) * (1.0 + 4.0 * _U)


def _decayed_sums(p: np.ndarray, h: float) -> np.ndarray:
    """R_i = sum_{j >= i} p_j e^{-(j - i) h} for i = 0 .. n (R_n = 0), by the recursion R_i = p_i + e^{-h} R_{i+1}
    (relative error below 3 (n + 1) u for p >= 0)."""
    return np.append(scipy.signal.lfilter([1.0], [1.0, -math.exp(-h)], p[::-1])[::-1], 0.0)


def _lower_complement(pmf: GridPMF, eps: np.ndarray) -> np.ndarray:
    """(2): a lower bound on 1 - delta(eps) from the composed dominating PMF (optimistic composition)."""
    at = _core.pld_loss_shifted(eps, pmf.loss_shift, False) if pmf.loss_shift > 0.0 else eps
    p = np.maximum(pmf.p, 0.0)
    n = p.size
    prefix = np.concatenate([[0.0], np.cumsum(p)])
    decayed = _decayed_sums(p, pmf.h)
    with np.errstate(over="ignore", invalid="ignore"):
        k = np.clip(np.ceil(at / pmf.h) - pmf.k_lo, 0, n)   # the first grid point at or above eps - s
    k = np.where(np.isnan(k), n, k).astype(np.int64)
    grid = (pmf.k_lo + k) * pmf.h
    with np.errstate(over="ignore", invalid="ignore"):
        tail = np.where(k < n, np.exp(np.minimum(at - grid, 0.0)) * decayed[k], 0.0)
    slack = 8.0 * (n + 8) * _U + 4.0 * _U * (np.abs(at) + np.abs(grid) + 1.0)
    charge = float(_charge(pmf, np.array(float(n))))
    value = (prefix[k] + tail) * (1.0 - slack) - abs(pmf.shift) - 2.0 * charge
    return np.where(np.isfinite(at), np.maximum(value, 0.0), 0.0)


def _upper_complement(p: GridPMF, q: GridPMF, factors: TestFactors, rounds: int, eps: np.ndarray) -> np.ndarray:
    """(3): an upper bound on 1 - delta(eps) from the composed P-masses ``p`` and tilted Q-masses ``q``
    (pessimistic compositions), at the threshold where their log-likelihood ratio crosses eps and its
    neighbours.  e^eps Q(sum > m h) <= N^T sum_{k > m} Q~_k e^{eps - l_k} = N^T e^{eps - l_{m+1}} R~_{m+1} (the
    decayed sums of the normalized tilted composition Q~), its charge that of the decayed weights, its
    truncated mass at most p_inf + TRUNCATED there (the module docstring), and the Q-mass labelled
    +infinity rounds x ``q_above``."""
    a, b = p.p, q.p
    na, nb = a.size, b.size
    below_a = np.concatenate([[0.0], np.cumsum(a)])   # A(sum <= (k_lo + i - 1) h)
    decayed_b = _decayed_sums(b, q.h)
    fixed_a = p.p_inf + abs(p.shift) + TRUNCATED + rounds * factors.p_below
    # the threshold (absolute grid index m: A^c = {sum <= m h}) where log A_m - log B_m crosses eps
    lo, hi = max(p.k_lo, q.k_lo), min(p.k_lo + na, q.k_lo + nb)
    index, ratio = np.arange(0), np.zeros(0)
    if hi > lo:
        am, bm = a[lo - p.k_lo:hi - p.k_lo], b[lo - q.k_lo:hi - q.k_lo]
        live = (am > 0.0) & (bm > 0.0)
        index = np.arange(lo, hi)[live]
        ratio = np.maximum.accumulate(np.log(am[live]) - np.log(bm[live]) + index * p.h - rounds * factors.log_norm)
    if index.size:
        m0 = index[np.clip(np.searchsorted(ratio, eps) - 1, 0, index.size - 1)]
    else:
        m0 = np.full(eps.shape, lo)
    m = m0[..., None] + np.arange(-3, 4)
    ia = np.clip(m - p.k_lo + 1, 0, na)
    ib = np.clip(m - q.k_lo + 1, 0, nb)
    first = (m + 1) * q.h   # l_{m+1}, the first loss in A
    norm = rounds * factors.log_norm   # T log N
    tail_a = below_a[ia] * (1.0 + 2.0 * (na + 4) * _U) + _charge(p, ia) + fixed_a
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.exp(norm + eps[..., None] - first) * (
            1.0 + 4.0 * _U * (abs(norm) + np.abs(eps[..., None]) + np.abs(first) + 1.0))
        tail_b = scale * (decayed_b[ib] * (1.0 + 8.0 * (nb + 8) * _U) + _decayed_charge(q) + q.p_inf + abs(q.shift)
                          + TRUNCATED)
        plus = np.exp(eps) * (1.0 + 4.0 * _U) * rounds * factors.q_above
        value = (tail_a + tail_b + plus[..., None]) * (1.0 + 4.0 * _U)
    best = np.min(np.where(np.isnan(value), np.inf, value), axis=-1)
    return np.minimum(best, 1.0)


def _upper_delta(pmf: GridPMF, eps: np.ndarray) -> np.ndarray:
    """1 - (2) rounded up: a certified upper delta of the composed dominating PMF's direction."""
    return np.minimum(np.nextafter(1.0 - _lower_complement(pmf, eps), 2.0), 1.0)


def delta_brackets(directions: list[DirectionFactors], rounds: list[int], epsilon: list[np.ndarray],
                   workers: int | None = None,
                   others: list[np.ndarray | None] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Certified (lower, upper) delta at ``epsilon[i]`` (flat arrays) after ``rounds[i]`` rounds, from each
    direction's factors (``subsampled_gaussian_factors``, every direction of the pair, the lead one first):
    the upper side is 1 - (2) rounded up, the largest over the directions; the lower side 1 - (3) rounded
    down, the largest over the directions that carry (3)'s factors (0 where none does, or where it says
    nothing).  ``others[i]``, where given, is a certified upper delta of every direction but the lead one at
    ``epsilon[i]`` (the composed PMFs'): where it is at most the lead direction's (2) at every argument, the
    other directions are not composed for that point, and elsewhere each of their uppers is the least of
    both.  The compositions of all rounds values run in few ``compose_many`` calls, which transform each
    factor once."""
    counts = [int(t) for t in rounds]
    eps = [np.asarray(x, dtype=np.float64) for x in epsilon]
    lead, rest = directions[0], directions[1:]
    tests = [f.test for f in directions if f.test is not None]
    leads = compose_many([[(lead.dominating, t)] for t in counts], pessimistic=False, workers=workers,
                         direct_bins=True)
    masses = compose_many([[(pmf, t)] for t in counts for f in tests for pmf in (f.p_masses, f.q_tilted)],
                          pessimistic=True, workers=workers, direct_bins=True) if tests else []
    upper = [_upper_delta(pmf, x) for pmf, x in zip(leads, eps)]
    given = others if others is not None else [None] * len(counts)
    wanted = [i for i, (known, up) in enumerate(zip(given, upper)) if rest and not np.all(
        known is not None and known <= up)]
    if wanted:
        composed = compose_many([[(f.dominating, counts[i])] for i in wanted for f in rest], pessimistic=False,
                                workers=workers, direct_bins=True)
        for k, i in enumerate(wanted):
            for pmf in composed[k * len(rest):(k + 1) * len(rest)]:
                other = _upper_delta(pmf, eps[i])
                known = given[i]
                upper[i] = np.maximum(upper[i], other if known is None else np.minimum(other, known))
    for i in range(len(counts)):
        if i not in wanted and rest:
            known = given[i]
            assert known is not None
            upper[i] = np.maximum(upper[i], known)
    out = []
    for i, (t, x) in enumerate(zip(counts, eps)):
        lower = np.zeros(x.shape)
        for j, f in enumerate(tests):
            k = 2 * (i * len(tests) + j)
            above = _upper_complement(masses[k], masses[k + 1], f, t, x)
            lower = np.maximum(lower, np.maximum(np.nextafter(1.0 - above, 0.0), 0.0))
        out.append((lower, upper[i]))
    return out
