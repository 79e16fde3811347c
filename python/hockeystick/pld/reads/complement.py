"""Certified bounds on delta near 1, read from bounds on its complement 1 - delta.

Where T rounds leave delta(eps) within ~1e-7 of 1 (sigma 0.5-0.8, q 0.03-0.1, hundreds of rounds and
more), the composed PMFs bracket delta only to a few 1e-10 whatever the grid: each round's masses
carry a relative error (the cells' round-off, their edges' factor e^{+-e}, the suffix sums' slack)
that T rounds turn into an absolute error of delta, while 1 - delta itself is ~1e-8 there and its
epsilon width needs it to ~0.2 %.  On the complement every such error stays relative.  With L_T the
loss of the T-fold composition under P,

    1 - delta(eps) = E_P[min(1, e^{eps - L_T})] = min over events A of  P(A^c) + e^eps Q(A)      (1)

(delta = sup_A P(A) - e^eps Q(A): the hockey-stick divergence's dual form; the minimum is the
likelihood-ratio test A = {L_T > eps}, Neyman-Pearson).

**The upper side of delta** is one minus a lower bound on (1).  A pair dominating (P, Q) has a
smaller complement (its profile is larger at every eps), so any composition of the connect-the-dots
PMF (pld/grid/connect_dots.hpp's opening comment; Doroshenko et al., PETS 2022, Sec. 3) bounds (1)
from below.  Its masses are p_j = (d_j + e^h c_{j-1}) / (e^h - 1) from the cells' numbers
(pld/grid/cells.hpp); here each is taken from below, (d_j + e^h c_{j-1} - R_j) / ((e^h - 1) G) with
R_j the cells' own round-off (``cell_round_off`` ((c_j + d_j) + e^h (c_{j-1} + d_{j-1})), the
pessimistic PMF's term taken the other way) and G >= e^e (1 + MASS_SLACK) for the edges' factor and
the products' rounding, and the masses this loses (the tails too) are moved to +infinity, which only
makes the pair more dominating.  Composed T-fold with the truncated and aliased mass subtracted (an
optimistic composition, ``compose_many``: its ``shift``, and twice its round-off charge over all n
points, as ``pmf.GridPMF`` charges an optimistic curve), and read at eps - s (s the composed loss
shift), it gives

    1 - delta(eps) >= sum_k C_k min(1, e^{eps - s - l_k}) (1 - slack) + shift - 2 charge(n)        (2)

a sum of positive terms (prefix sums below eps, decayed suffix sums above it), so its rounding is
relative: slack = 8 (n + 8) u plus the exponential's 4 u (|eps| + |l| + 1).

**The lower side of delta** is one minus an upper bound on (1), which any event gives.  Label each
output of one round by the grid loss l_j of the cell it falls in (between the cells' rounded edges;
-infinity below the cells, +infinity above them) and take A = {the sum of the T labels > tau}: a
test of the likelihood-ratio kind on a quantized statistic, which for the best tau loses only about
f(eps) T h^2 / 24 (the labels' spread within their cells; their mean offset is absorbed by tau).
Then P(A^c) and Q(A) are the lower tail of the T-fold composition of the cells' P-masses a_j and the
upper tail of that of their Q-masses b_j, plus the labelled tails:

    1 - delta(eps) <= [A(<= tau) + T a_lo] + e^eps [B(> tau)]                                       (3)

with every mass bounded from above: a_j = c_j + s_j and b_j = e^{-l_j} s_j, s_j = (c_j + d_j) /
(e^h - 1) (pld/grid/cells.hpp's ``cell_mass``), raised by G for the cells' round-off (``cell_round_off``
e^h of a_j, ``cell_round_off`` of s_j: within MASS_SLACK for h <= MAX_INTERVAL) and for their edges
(a cell's kernel takes its edge's loss as l_j, within e: its b_j within e^{+-e}); a_lo the P-mass
below the cells (label -infinity: in A^c whatever the other rounds, so T a_lo bounds its part),
b_inf the Q-mass above them (label +infinity, at most e^{e - l_{N-1}} times their P-mass, the losses
there exceeding the top cell's lower end: T b_inf bounds its part).  Both compositions are
pessimistic (``compose_many``: entries bounded by the exact convolution plus the charges; mass
truncated above the window, and below it where the FFT is longer than the window, put at +infinity,
which (3) adds to both tails; ``TRUNCATED``, the compositions' tail, added to both besides, for mass
below a window as long as its FFT, which folds onto the window's top), so each tail is its sum (1 +
slack) plus the charge over its points plus those masses and ``shift``.  Every tau gives a valid
bound; the one taken is where the composed log-likelihood ratio log A_k - log B_k (made
non-decreasing) crosses eps, and its neighbours.

**Tilting.**  Every composition is of tilted masses, and every sum above is read through

    m^{*T}_k = N^T e^{lam l_k} m~^{*T}_k,   m~_j = m_j e^{-lam l_j} / N                              (4)

(the T-fold convolution of masses m_j on the grid, at l_k = k h, against that of the tilted ones;
exact for any lam and N > 0, as e^{-lam l} is multiplicative over a sum of losses).  The
compositions' round-off charges are absolute, a few 1e-12 after 10^5 rounds, and near delta = 1 the
masses that (2) and (3) sum lie in a far tail of the untilted composition (1 - delta ~ 1e-9 at eps
6.5 for sigma 2.471, q 0.1, 10^5 rounds, beside charges of ~1e-11).  Tilted by ``balancing_tilt``'s
lam, the lam in [0, 1] that centres the tilted masses' mean loss at 0 (the dominating masses) or at
-h / 2 (the test's P-masses, whose labels under-state the losses by h / 2 on average; the Q-masses
take lam - 1, tilting them to the same measure), those masses lie near the middle of the tilted
composition for every T, where the charges are small beside them, and N^T e^{lam l} carries them
back.  In (2) the weights of the tilted masses are e^{-lam (l_k - l_j)} below the first grid loss
l_k at or above eps - s and e^{eps - s - l_k} e^{-(1 - lam) (l_j - l_k)} from it up; in (3) e^{-lam
(l' - l_j)} on A^c and e^{-(1 - lam) (l_j - l')} on A, l' the first loss in A: all in [0, 1], so the
shift, the truncated mass and the round-off charge (of the weights' sum and Euclidean norm,
geometric series) enter at most as they are, before N^T e^{lam l} multiplies.  Both sides also
compose with the direct DFT bins (``compose_many``'s ``direct_bins``), which keep those charges
below the FFT's.  delta is the largest over the neighbouring directions: the upper side is the
largest over both directions' (2), the lower side that of the directions given (3)'s factors (the
accountant gives the remove direction's: it sets delta near 1 for the Poisson-subsampled Gaussian,
the add direction's complement being the larger there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np

from ... import _core
from ..compose.fft import DEFAULT_TAIL, compose_many
from ..grid.pmf import GridPMF

# The cells' tails: the P-mass below them enters (3) as T a_lo, so it is cut far below any 1 - delta
# resolved here (10^5 rounds: 5e-26).
TAIL = 1e-30
# Relative slack on every mass: covers the cells' round-off (cell_round_off e^h <= 6e-15 for
# h <= MAX_INTERVAL) and the few roundings of forming the masses (a few u).
MASS_SLACK = 1e-12
MAX_INTERVAL = 0.5
MAX_CELLS = 1 << 24
# The compositions' tail (``compose_many``'s default): at most this much mass lies beyond each end
# of a window
TRUNCATED = DEFAULT_TAIL

_U = 0.5 * np.finfo(np.float64).eps
TINY = float(np.finfo(np.float64).tiny)  # the least normal double


@dataclass(frozen=True)
class Tilted:
    """Masses m_j at losses l_j = (k_lo + j) h tilted by e^{-tilt l_j} and normalized: ``pmf.p[j]``
    is m_j e^{-tilt l_j} / N, bounded on one side, and ``log_norm`` is log N rounded the same way
    (up where the masses are bounded above, down where below), so that the T-fold convolution of the
    m_j at l_k is bounded on that side by N^T e^{tilt l_k} times that of ``pmf``'s masses (4)."""

    pmf: GridPMF
    tilt: float
    log_norm: float


@dataclass(frozen=True)
class TestFactors:
    """One direction's one-round PMFs for (3) (the module docstring), on one grid."""

    p_masses: (
        Tilted  # the cells' P-masses a_j bounded above, tilted by e^{-lam l}; composed pessimistic
    )
    q_masses: (
        Tilted  # their Q-masses b_j bounded above, tilted by e^{(1 - lam) l}; composed pessimistic
    )
    p_below: float  # the P-mass below the cells, bounded above (label -infinity)
    q_above: float  # the Q-mass above the cells, bounded above (label +infinity)


@dataclass(frozen=True)
class DirectionFactors:
    """One direction's one-round PMFs on one grid: (2)'s, and (3)'s where that direction's lower side is asked."""

    dominating: (
        Tilted  # connect-the-dots masses bounded below, tilted by e^{-lam l}; composed optimistic
    )
    test: TestFactors | None


def balancing_tilt(masses: np.ndarray, k_lo: int, h: float, offset: float = 0.0) -> float:
    """lam in [0, 1] where the masses m_j at l_j = (k_lo + j) h, tilted by e^{-lam l_j}, have their
    mean loss at ``offset`` (0 or 1 where it lies outside: the tilted mean falls as lam grows), to
    within 1e-9 in lam. Any lam in [0, 1] gives valid bounds; this one centres the T-fold tilted
    composition near loss T offset for every T (the module docstring, (4))."""
    live = np.flatnonzero(masses > 0.0)
    if live.size == 0:
        return 0.0
    loss, log_mass = (k_lo + live) * h, np.log(masses[live])

    def tilted_mean(lam: float) -> float:  # its sign: the mean times a positive number
        w = log_mass - lam * loss
        # an elementwise product and sum, not np.dot: a long dot product wakes OpenBLAS's threads,
        # which then spin on cores the PLD's own threads need
        return float((np.exp(w - w.max()) * (loss - offset)).sum())

    if tilted_mean(0.0) <= 0.0:
        return 0.0
    if tilted_mean(1.0) >= 0.0:
        return 1.0
    import scipy.optimize  # lazy: scipy loads at its first use, not with the package

    return float(scipy.optimize.brentq(tilted_mean, 0.0, 1.0, xtol=1e-9))


def _tilted(
    masses: np.ndarray,
    k_lo: int,
    h: float,
    tilt: float,
    extra: float,
    upward: bool,
    pessimistic: bool,
    loss_shift: float = 0.0,
) -> Tilted:
    """``masses`` (bounded on one side: above where ``upward``) times e^{-extra l_j}, normalized,
    bounded on the same side, as a ``Tilted`` of tilt ``tilt``: each quotient raised (lowered) by 4
    u (|x_j| + |c| + 4) for the roundings of l_j, the exponent x_j = -extra l_j less its largest
    live value c, the exponential, the product and the quotient; log N = c + log(sum) moved the same
    way by 2 u (|c| + |log sum| + 1)."""
    live = masses > 0.0
    if not live.any():
        raise ValueError("the cells carry no mass at this grid")
    x = -extra * ((k_lo + np.arange(masses.size)) * h)
    c = float(x[live].max())
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.where(live, masses * np.exp(x - c), 0.0)
    total = float(scaled.sum())
    if not (total > 0.0 and math.isfinite(total)):
        raise ValueError("the cells' tilted masses do not sum to a positive finite number")
    sign = 1.0 if upward else -1.0
    quotient = scaled / total * (1.0 + sign * 4.0 * _U * (np.abs(x) + abs(c) + 4.0))
    if upward:  # a live mass whose quotient underflowed (lam times the losses' span above ~708) is below TINY
        quotient = np.where(live, quotient + TINY, 0.0)
    log_norm = c + math.log(total)
    log_norm += sign * 2.0 * _U * (abs(c) + abs(log_norm) + 1.0)
    return Tilted(
        GridPMF(k_lo, h, quotient, 0.0, pessimistic=pessimistic, loss_shift=loss_shift),
        tilt,
        log_norm,
    )


def subsampled_gaussian_factors(
    sigma: float, sampling_rate: float, remove: bool, h: float, test: bool = True
) -> DirectionFactors:
    """The factors of one direction of the Poisson-subsampled Gaussian (noise ``sigma`` over
    sensitivity 1, rate ``sampling_rate``) on grid ``h`` (at most MAX_INTERVAL), from its cells
    (pld/grid/cells.hpp's ``subsampled_gaussian_cells``, tails cut at TAIL, no half-cells), each
    tilted by its ``balancing_tilt`` (the test's P- and Q-masses alike by the P-masses', centred at
    -h / 2: the labels under-state the losses by about that); ``test``: also (3)'s.  ValueError
    where they cannot be built (too many cells, edges too coarse for the grid)."""
    if not 0.0 < h <= MAX_INTERVAL:
        raise ValueError(f"h must lie in (0, {MAX_INTERVAL}] for the complement's slack, got {h!r}")
    cells = _core.pld_grid.subsampled_gaussian_cells(
        float(sigma),
        float(sampling_rate),
        remove=bool(remove),
        h=float(h),
        tail=TAIL,
        max_cells=MAX_CELLS,
        halves=False,
    )
    c, d, k_lo = cells.c, cells.d, int(cells.k_lo)
    n = c.size
    e = float(cells.edge_error)
    grow = 1.0 + MASS_SLACK + 2.0 * e  # >= e^e (1 + MASS_SLACK): e <= h / 4 (pld/grid/cells.hpp)
    # connect-the-dots masses at l_0 .. l_n from below: (d_j + e^h c_{j-1} - R_j) / ((e^h - 1) G)
    eh = math.exp(h)
    c_prev, d_prev = np.concatenate([[0.0], c]), np.concatenate([[0.0], d])
    c_next, d_next = np.concatenate([c, [0.0]]), np.concatenate([d, [0.0]])
    own = _core.pld_grid.cell_round_off * ((c_next + d_next) + eh * (c_prev + d_prev))
    low = np.maximum((d_next + eh * c_prev) - own, 0.0) / (math.expm1(h) * grow)
    lam = balancing_tilt(low, k_lo, h)
    dominating = _tilted(
        low,
        k_lo,
        h,
        lam,
        lam,
        upward=False,
        pessimistic=False,
        loss_shift=float(np.nextafter(e, np.inf)) if e > 0.0 else 0.0,
    )
    if not test:
        return DirectionFactors(dominating, None)
    # above the cells the losses exceed the top cell's lower end less e: Q <= e^{e - l_{N-1}} P
    # there
    exponent = e - (k_lo + n - 1) * h
    if not exponent < 700.0:
        raise ValueError("the cells' top loss is too low to bound the Q-mass above them")
    q_above = cells.tail_hi * math.exp(exponent) * grow
    # q_mass_scaled is e^{l_j} b_j: tilted by e^{-lam l} more, b_j e^{(1 - lam) l_j}, a tilt of
    # lam - 1
    p_mass = cells.p_mass * grow
    lam = balancing_tilt(p_mass, k_lo, h, -0.5 * h)
    return DirectionFactors(
        dominating,
        TestFactors(
            _tilted(p_mass, k_lo, h, lam, lam, upward=True, pessimistic=True),
            _tilted(
                cells.q_mass_scaled * grow,
                k_lo,
                h,
                lam - 1.0,
                lam,
                upward=True,
                pessimistic=True,
            ),
            float(cells.tail_lo) * grow,
            float(q_above),
        ),
    )


def _weights(decay: float, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the sum and the Euclidean norm of weights e^{-decay i}, i = 0, 1, ..., over at most
    ``count`` grid points: min(count, 1 / (1 - e^{-decay})) and min(sqrt(count), 1 / sqrt(1 - e^{-2
    decay})), rounded up."""
    count = np.asarray(count, dtype=np.float64)
    if decay <= 0.0:
        return count, np.sqrt(count)
    up = 1.0 + 4.0 * _U
    return (
        np.minimum(count, 1.0 / -math.expm1(-decay) * up),
        np.minimum(np.sqrt(count), math.sqrt(1.0 / -math.expm1(-2.0 * decay)) * up),
    )


def _charge(pmf: GridPMF, total: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """The round-off charge of composed masses under weights in [0, 1] of sum at most ``total`` and
    Euclidean norm at most ``norm`` (``GridPMF.charge_of_weighted_sum``, rounded up; 0 for an
    uncomposed PMF)."""
    return pmf.charge_of_weighted_sum(
        np.asarray(total, dtype=np.float64), np.asarray(norm, dtype=np.float64)
    ) * (1.0 + 4.0 * _U)


def _decayed_sums(p: np.ndarray, decay: float, at: np.ndarray) -> np.ndarray:
    """after_i = sum_{j >= i} p_j e^{-(j - i) decay} at the indices ``at`` (in [0, n]; after_n = 0),
    by the recursion after_i = p_i + e^{-decay} after_{i+1} (relative error below 3 (n + 1) u for p
    >= 0), in one core pass (pld/reads/complement_scans.hpp)."""
    return _core.pld_reads.geometric_sums_at(p, decay=decay, at=at, rising=False)


def _rising_sums(p: np.ndarray, decay: float, at: np.ndarray) -> np.ndarray:
    """before_i = sum_{j < i} p_j e^{-(i - j) decay} at the indices ``at`` (in [0, n]; before_0 =
    0), by the recursion before_{i+1} = e^{-decay} (before_i + p_i) (relative error below 3 (n + 1)
    u for p >= 0), in one core pass (pld/reads/complement_scans.hpp)."""
    return _core.pld_reads.geometric_sums_at(p, decay=decay, at=at, rising=True)


def _lower_complement(factor: Tilted, pmf: GridPMF, rounds: int, eps: np.ndarray) -> np.ndarray:
    """(2) from the T-fold optimistic composition ``pmf`` of ``factor`` (tilt lam, norm N), through
        (4): with
    l_k the first grid loss at or above eps - s, 1 - delta(eps) >= N^T e^{lam l_k} [before_k +
    e^{eps - s - l_k} after_k - |shift| - 2 charge], before_k = sum_{j < k} C~_j e^{-lam (l_k -
    l_j)} and after_k = sum_{j >= k} C~_j e^{-(1 - lam) (l_j - l_k)}: every weight in [0, 1], so the
    shift and the charge (of those weights' sum and norm) enter as they are."""
    lam, h = factor.tilt, pmf.h
    at = (
        _core.pld_reads.loss_shifted(eps, pmf.loss_shift, up=False) if pmf.loss_shift > 0.0 else eps
    )
    p = np.maximum(pmf.p, 0.0)
    n = p.size
    with np.errstate(over="ignore", invalid="ignore"):
        k = np.clip(np.ceil(at / h) - pmf.k_lo, 0, n)  # the first grid point at or above eps - s
    k = np.where(np.isnan(k), n, k).astype(np.int64)
    before, after = _rising_sums(p, lam * h, k), _decayed_sums(p, (1.0 - lam) * h, k)
    grid = (pmf.k_lo + k) * h
    below, above = (
        _weights(lam * h, np.array(float(n))),
        _weights((1.0 - lam) * h, np.array(float(n))),
    )
    charge = float(
        _charge(
            pmf,
            np.minimum(below[0] + above[0], n),
            np.minimum(np.hypot(below[1], above[1]), math.sqrt(n)),
        )
    )
    norm = rounds * factor.log_norm
    with np.errstate(over="ignore", invalid="ignore"):
        tail = np.where(k < n, np.exp(np.minimum(at - grid, 0.0)) * after, 0.0)
        scale = np.exp(norm + lam * grid)
    with np.errstate(over="ignore", invalid="ignore"):  # eps = -inf: nan here, 0 below
        slack = 8.0 * (n + 8) * _U + 4.0 * _U * (abs(norm) + np.abs(at) + 2.0 * np.abs(grid) + 2.0)
        inner = (before + tail) * (1.0 - slack) - abs(pmf.shift) - 2.0 * charge
        value = scale * np.maximum(inner, 0.0) * (1.0 - slack)
    return np.where(np.isfinite(at) & np.isfinite(value), np.maximum(value, 0.0), 0.0)


def _upper_complement(
    p: GridPMF, q: GridPMF, factors: TestFactors, rounds: int, eps: np.ndarray
) -> np.ndarray:
    """(3) from the T-fold pessimistic compositions ``p`` and ``q`` of the tilted P- and Q-masses
        (tilts lam and
    lam - 1, norms N_a and N_b), through (4), at the threshold m where their log-likelihood ratio
    crosses eps and its neighbours: with l' = l_{m+1} the first loss in A,

        P(A^c) <= N_a^T e^{lam l'} [sum_{j <= m} A~_j e^{-lam (l' - l_j)} + charge + p_inf + |shift| + TRUNCATED]
                  + T p_below,
        e^eps Q(A) <= e^eps N_b^T e^{(lam - 1) l'} [sum_{k > m} B~_k e^{-(1 - lam) (l_k - l')} + charge + p_inf
                  + |shift| + TRUNCATED] + e^eps T q_above,

    every weight in [0, 1] on the losses each event holds (the truncated and folded masses the
    module docstring names included), the charges those of the weights' sums and norms."""
    pa, qb = factors.p_masses, factors.q_masses
    lam, h = pa.tilt, p.h
    a, b = p.p, q.p
    na, nb = a.size, b.size
    norm_a, norm_b = rounds * pa.log_norm, rounds * qb.log_norm
    # the threshold (absolute grid index m: A^c = {sum <= m h}) where log A_m - log B_m crosses eps:
    # over the indices where both carry mass, the last whose running maximum of log A - log B +
    # (norm_a - norm_b) is below eps (pld/reads/complement_scans.hpp)
    m0 = _core.pld_reads.ratio_threshold(
        a, a_lo=p.k_lo, b=b, b_lo=q.k_lo, h=h, offset=norm_a - norm_b, epsilon=eps
    )
    m = m0[..., None] + np.arange(-3, 4)
    ia = np.clip(m - p.k_lo + 1, 0, na)
    ib = np.clip(m - q.k_lo + 1, 0, nb)
    first = (m + 1) * h  # l' = l_{m+1}, the first loss in A
    # the sums' own normalization points move to l' (only where m + 1 lies outside a window: factors
    # <= 1)
    sum_a = _rising_sums(a, lam * h, ia) * np.exp(-lam * (m + 1 - p.k_lo - ia) * h)
    sum_b = _decayed_sums(b, (1.0 - lam) * h, ib) * np.exp(-(1.0 - lam) * (q.k_lo + ib - m - 1) * h)
    charge_a = _charge(p, *_weights(lam * h, ia))
    charge_b = _charge(q, *_weights((1.0 - lam) * h, nb - ib))
    fixed = TRUNCATED
    with np.errstate(over="ignore", invalid="ignore"):
        x = eps[..., None]
        scale_a = np.exp(norm_a + lam * first) * (
            1.0 + 4.0 * _U * (abs(norm_a) + np.abs(first) + 2.0)
        )
        scale_b = np.exp(norm_b + x + (lam - 1.0) * first) * (
            1.0 + 4.0 * _U * (abs(norm_b) + np.abs(x) + np.abs(first) + 2.0)
        )
        tail_a = (
            scale_a
            * (sum_a * (1.0 + 8.0 * (na + 8) * _U) + charge_a + p.p_inf + abs(p.shift) + fixed)
            + rounds * factors.p_below
        )
        tail_b = scale_b * (
            sum_b * (1.0 + 8.0 * (nb + 8) * _U) + charge_b + q.p_inf + abs(q.shift) + fixed
        )
        plus = np.exp(eps) * (1.0 + 4.0 * _U) * rounds * factors.q_above
        # + TINY: the scales' exponentials may underflow (a subnormal is off by up to 2^-1074
        #   absolute)
        value = (tail_a + tail_b + plus[..., None]) * (1.0 + 4.0 * _U) + TINY
    best = np.min(np.where(np.isnan(value), np.inf, value), axis=-1)
    return cast(np.ndarray, np.minimum(best, 1.0))


def _upper_delta(factor: Tilted, pmf: GridPMF, rounds: int, eps: np.ndarray) -> np.ndarray:
    """1 - (2) rounded up: a certified upper delta of the direction whose dominating factor, T-fold, is ``pmf``."""
    return np.minimum(np.nextafter(1.0 - _lower_complement(factor, pmf, rounds, eps), 2.0), 1.0)


def delta_brackets(
    directions: list[DirectionFactors],
    rounds: list[int],
    epsilon: list[np.ndarray],
    workers: int | None = None,
    others: list[np.ndarray | None] | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Certified (lower, upper) delta at ``epsilon[i]`` (flat arrays) after ``rounds[i]`` rounds,
    from each direction's factors (``subsampled_gaussian_factors``, every direction of the pair, the
    leading direction first): the upper side is 1 - (2) rounded up, the largest over the directions;
    the lower side 1 - (3) rounded down, the largest over the directions that carry (3)'s factors (0
    where none does, or where it says nothing).  ``others[i]``, where given, is a certified upper
    delta of every direction but the leading one at ``epsilon[i]`` (the composed PMFs'): where it is
    at most the leading direction's (2) at every argument, the other directions are not composed for
    that point, and elsewhere each of their uppers is the least of both.  The compositions of all
    rounds values run in few ``compose_many`` calls, which transform each factor once.  The brackets
    are tight near delta = 1, where the accountant takes them; far above the tilted compositions'
    centre (delta ~ 1e-10 and below) the charges, carried back by e^{lam l}, leave the upper side
    loose (still certified)."""
    counts = [int(t) for t in rounds]
    eps = [np.asarray(x, dtype=np.float64) for x in epsilon]
    lead, rest = directions[0], directions[1:]
    tests = [f.test for f in directions if f.test is not None]
    leads = compose_many(
        [[(lead.dominating.pmf, t)] for t in counts],
        pessimistic=False,
        workers=workers,
        direct_bins=True,
    )
    masses = _test_compositions(tests, counts, workers)
    upper = [_upper_delta(lead.dominating, pmf, t, x) for pmf, t, x in zip(leads, counts, eps)]
    if rest:
        _with_other_directions(
            upper,
            rest,
            counts,
            eps,
            others if others is not None else [None] * len(counts),
            workers,
        )
    return [
        (_lower_delta(tests, masses, i, t, x), upper[i])
        for i, (t, x) in enumerate(zip(counts, eps))
    ]


def _test_compositions(
    tests: list[TestFactors], counts: list[int], workers: int | None
) -> list[GridPMF]:
    """The pessimistic T-fold compositions of every test's tilted P- and Q-masses, for every count
    in turn: index 2 (i len(tests) + j) is count i's of test j's P-masses, the next its
    Q-masses'."""
    if not tests:
        return []
    return compose_many(
        [[(pmf, t)] for t in counts for f in tests for pmf in (f.p_masses.pmf, f.q_masses.pmf)],
        pessimistic=True,
        workers=workers,
        direct_bins=True,
    )


def _with_other_directions(
    upper: list[np.ndarray],
    rest: list[DirectionFactors],
    counts: list[int],
    eps: list[np.ndarray],
    given: list[np.ndarray | None],
    workers: int | None,
) -> None:
    """Raises each upper[i] to the other directions' upper delta: their (2), the least of it and
    ``given[i]`` where that is known, composed only where ``given[i]`` is not at most upper[i] at
    every argument (there ``given[i]`` itself)."""
    wanted = [
        i
        for i, (known, up) in enumerate(zip(given, upper))
        if not np.all(known is not None and known <= up)
    ]
    if wanted:
        composed = compose_many(
            [[(f.dominating.pmf, counts[i])] for i in wanted for f in rest],
            pessimistic=False,
            workers=workers,
            direct_bins=True,
        )
        for k, i in enumerate(wanted):
            for direction, pmf in zip(rest, composed[k * len(rest) : (k + 1) * len(rest)]):
                other = _upper_delta(direction.dominating, pmf, counts[i], eps[i])
                known = given[i]
                upper[i] = np.maximum(
                    upper[i], other if known is None else np.minimum(other, known)
                )
    for i in range(len(counts)):
        if i not in wanted:
            known = given[i]
            assert known is not None
            upper[i] = np.maximum(upper[i], known)


def _lower_delta(
    tests: list[TestFactors], masses: list[GridPMF], i: int, rounds: int, eps: np.ndarray
) -> np.ndarray:
    """1 - (3) rounded down, the largest over the tests (0 where there is none), for count i of
    ``_test_compositions``."""
    lower = np.zeros(eps.shape)
    for j, f in enumerate(tests):
        k = 2 * (i * len(tests) + j)
        above = _upper_complement(masses[k], masses[k + 1], f, rounds, eps)
        lower = np.maximum(lower, np.maximum(np.nextafter(1.0 - above, 0.0), 0.0))
    return lower
