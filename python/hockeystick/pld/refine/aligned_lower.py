"""A certified lower epsilon of many rounds of the Poisson-subsampled Gaussian whose losses are tiny
against any grid (rare participation: q <= 1e-4, 10^4 to 10^8 rounds): each round's loss replaced
by its conditional means on cells whose means lie exactly on a shifted grid (Jensen), then composed.

The optimistic PMF rounds each round's loss down to the grid, a bias of up to a cell per round:
where the loss is of order q (1e-5) against cells of 2.5e-5 to 1e-4, over 10^6 rounds it moves the
lower epsilon by ~0.7 (sigma 0.6, q 1e-5, delta 1e-10), and the lower side left is the
max-of-outputs test's.  Here no loss is rounded in the bulk.

The remove direction, sensitivity c: P = (1 - q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2), s =
sigma / c, loss l(x) = log(1 + u(x)), u = q (e^z - 1), z = (2 x - 1) / (2 s^2), increasing in x.
delta(eps) = E[f(L)], f(L) = (1 - e^{eps - L})_+ convex and nondecreasing, L the sum of T
independent losses under P.  For a partition of the line into cells A, replacing each round's loss
on A by an atom at any m_A <= E_P[l | A] (mass P(A)) lowers E[f(L)]: round by round, conditionally
on the others, by Jensen (convexity) and monotonicity; so does lowering a mass (f >= 0) and dropping
the far tail.  The cells here: the bulk (-inf, t_0] (l(t_0) = log(1 - q) + 2 h), whose mean bound
fixes the grid's offset b (atoms at b + k h); then cells (a, a'] with a' found by bisection so that
the mean bound is the first grid point above l(a) (a second-order loss: each cell spans about two
cells of loss, its conditional variance ~h^2 per round, against the first-order h / 2 per round of
rounding down); past u >= ``ALIGNED_UP_TO``, where the loss is steep enough in x that a cell of one
grid step is narrow, cells centred on the grid losses' edges x_k, each atom at g_k where the cell's
mean x is certified at least x_k (the loss is convex in x: Jensen in x), else a cell lower
(``aligned_pmf``'s rounded cells), up to x where the P-tail is below ``TAIL``.

Mean bounds: log(1 + u) >= u - u^2/2 + u^3/3 - u^4/4 - r, r = 0 for u >= 0 (Lagrange remainder
u^5 / (5 (1 + xi)^5) >= 0) and r = q^5 / (5 (1 - q)^5) for u in [-q, 0).  With e^{jz} dN(0, s^2) =
e^{j (j - 1) / (2 s^2)} dN(j, s^2), E_P[e^{jz}; A] = (1 - q) e^{j (j - 1) / (2 s^2)} N_j(A) + q e^{j
(j + 1) / (2 s^2)} N_{j+1}(A), N_j(A) the N(j, s^2) mass of A from ``numerics.gaussian_tail``
(relative error <= 1e-12, taken as ``TAIL_ERROR``), and E_P[u^k; A] = q^k sum_j C(k, j) (-1)^{k-j}
E_P[e^{jz}; A].  Each sum, taken correctly rounded, is lowered by the tails' error and 8 u of its
terms' magnitudes (the double products and sums), and each mass taken on its safe side, so a cell's
atom at g needs lower(int_A l dP) >= g P_+(A) (g >= 0) or >= g P_-(A) (g < 0).  The grid PMF of
masses P_-(A) is composed under the tilt of the Chernoff exponent (``compose.tilted``, its optimistic
side: charged, certified) and read at eps - T b rounded up; the lower epsilon found is moved back by
T b rounded down.

The cells' numerics (the mean bounds, the bisections, the verified edges, the centring
certificate) are the core's ``pld/refine/aligned_lower.hpp`` (``_core.pld_refine.aligned_*``),
which the C library's question reads too; this module validates, shapes, composes and reads.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ... import _core
from ..grid.pmf import GridPMF
from . import question

# the cells' means are aligned up to this u = q (e^z - 1) (loss ~0.01); past it atoms are rounded down
ALIGNED_UP_TO = 1e-2
# the P-tail dropped past the last cell
TAIL = 1e-30
# a Gaussian tail's relative error, with room (``numerics.gaussian``: <= 1e-12)
TAIL_ERROR = 1e-11
# past ALIGNED_UP_TO, cell k starts this share of the way from x_k down to x_{k-1} (``aligned_pmf``):
# below 1/2 so that the cell's mean x, pulled down by the falling density, stays above x_k
CENTRED = 0.45
# the sampling rates at most this take the read (``aligned_lower_side``): its cost, ~2 to 5 CPU s,
# pays where the optimistic reads fall far below the truth (rare participation)
RARE_RATE: float = _core.pld_refine.aligned_rare_rate
# the read is taken from this many rounds up (where the optimistic PMF's per-round bias adds up) and
# at deltas from LEAST_DELTA up (its far tail, past TAIL, is dropped)
LEAST_ROUNDS: int = _core.pld_refine.aligned_least_rounds
LEAST_DELTA: float = _core.pld_refine.aligned_least_delta
# the tilted window's tails tried, the least that fits, where the one of 1e-3 delta passes the cap:
# the mass folded in from outside is charged at the untilt factor of the read (``compose.tilted``),
# small where the read lies far below the tilted bulk (sigma 0.5, q 1e-4, 10^6 rounds, delta 1e-12
# on h 2.5e-5: 5.4 M points at 1e-15, 2.9 M at 1e-6, the lower side 9.51313 and 9.51299), not
# everywhere (sigma 0.5, q 1e-5, 10^6 rounds, delta 1e-10: 3.50236 cut at 1e-6, 3.5039 uncut on a
# grid twice coarser)
CUT_TAILS: tuple[float, ...] = _core.pld_refine.aligned_cut_tails
# a lower side still wider than the tolerance is read again on a grid twice finer where the window
# read held at most this share of the cap (the finer window holds about twice its points): sigma 1,
# q 1e-4, 10^6 rounds, delta 1e-12 reads 0.85682 on h 2.5e-5 and 0.86028 on 1.25e-5
FINER_ROOM: float = _core.pld_refine.aligned_finer_room
# the most aligned cells (each ~45 bisection steps of 20 Gaussian tails): past it the read stops
MAX_ALIGNED_CELLS = 2000
UNIT_ROUNDOFF = 2.0**-53
# the one-round aligned PMFs kept (``_built_pmf``): up to ~2 M masses (18 MB) each on the finest
# grids read
PMFS_KEPT = 4


def _round_checked(sigma: float, q: float) -> tuple[float, float]:
    """(sigma, q) as floats, a ValueError naming the argument where sigma is not finite and > 0 or q
    not in (0, 1)."""
    sigma, q = float(sigma), float(q)
    if not (math.isfinite(sigma) and sigma > 0.0):
        raise ValueError(
            f"sigma must be finite and > 0 (the noise over the sensitivity), got {sigma!r}"
        )
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must lie strictly between 0 and 1 (the sampling rate), got {q!r}")
    return sigma, q


class RareRound:
    """One round's remove direction at s = sigma / sensitivity and sampling rate q: its loss, the
    inverse of its loss, and the cells' P-mass bounds and lower loss integrals (module docstring;
    the core's ``AlignedRound``)."""

    def __init__(self, s: float, q: float):
        self.s, self.q = _round_checked(s, q)
        self.c = 1.0 / (2.0 * self.s * self.s)

    def loss(self, x: float) -> float:
        """l(x) = log(1 + q (e^z - 1))."""
        return math.log1p(self.q * math.expm1((2.0 * x - 1.0) * self.c))

    def at_loss(self, loss: float) -> float:
        """The x whose loss is ``loss`` (> log(1 - q))."""
        return self.s * self.s * math.log1p(math.expm1(loss) / self.q) + 0.5

    def cell(self, a: float, b: float) -> tuple[float, float, float]:
        """(P_-(A), P_+(A), a lower bound on int_A l dP) for A = (a, b] (the core's
        ``AlignedRound::cell``)."""
        lo, hi, integral = cells(
            self, np.array([a], dtype=np.float64), np.array([b], dtype=np.float64)
        )
        return float(lo[0]), float(hi[0]), float(integral[0])


def _same_shape(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The arrays as float64, a ValueError where their shapes differ or one holds a NaN."""
    out = tuple(np.ascontiguousarray(a, dtype=np.float64) for a in arrays)
    if any(a.shape != out[0].shape for a in out):
        raise ValueError("the cells' ends (and points) must be arrays of one shape")
    if any(np.isnan(a).any() for a in out):
        raise ValueError("the cells' ends (and points) must not be NaN")
    return out


def cells(
    r: RareRound, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``RareRound.cell`` over arrays of cells (lo, hi]: their lower and upper P-masses and lower
    bounds on their loss integrals (the core's, one cell an item of its loop)."""
    lo, hi = _same_shape(lo, hi)
    return _core.pld_refine.aligned_cell(sigma=r.s, sampling_rate=r.q, lo=lo, hi=hi)


def aligned_pmf(sigma: float, q: float, h: float, centred: bool = True) -> tuple[GridPMF, float]:
    """One round's lower PMF on grid ``h`` (atoms at b + k h, as the grid PMF's k h) and its offset
    b (module docstring), built by the core (``aligned_pmf`` of ``pld/refine/aligned_lower.hpp``).

    Parameters
    ----------
    sigma : float
        The noise multiplier over the sensitivity, finite and > 0.
    q : float
        The sampling rate, in (0, 1).
    h : float
        The grid interval, finite and > 0.
    centred : bool
        False puts every rounded cell's atom (past ``ALIGNED_UP_TO``) a cell lower: a looser,
        still certified, PMF (the centring certificate's worth).

    Returns
    -------
    tuple of GridPMF and float
        The optimistic grid PMF of the masses P_-(A) and the offset b.

    Raises
    ------
    ValueError
        Where sigma, q or h breaks its rule, more than ``MAX_ALIGNED_CELLS`` cells are aligned, or
        a rounded cell's edge cannot be certified above its grid loss.
    """
    sigma, q = _round_checked(sigma, q)
    h = float(h)
    if not (math.isfinite(h) and h > 0.0):
        raise ValueError(f"h must be finite and > 0 (the grid interval), got {h!r}")
    k_lo, p, offset = _built_pmf(sigma, q, h, bool(centred))
    return GridPMF(k_lo, h, p.copy(), 0.0, pessimistic=False), offset


@functools.lru_cache(maxsize=PMFS_KEPT)
def _built_pmf(sigma: float, q: float, h: float, centred: bool) -> tuple[int, np.ndarray, float]:
    """The core's ``aligned_pmf`` (its first index, masses and offset) of one round, kept for the
    last ``PMFS_KEPT`` (sigma, q, h, centred) asked: the reads of one run at several deltas, and
    the fine read's and the finer grids' lower reads on the same grid, build it once (about a
    second at q 1e-6 on 6.25e-6, 1.9 M masses).  The masses are read-only; ``aligned_pmf`` hands out
    a copy.  A refusal (its ValueError) is not kept."""
    k_lo, p, offset = _core.pld_refine.aligned_pmf(
        sigma=sigma, sampling_rate=q, interval=h, centred=centred
    )
    masses = np.array(p, dtype=np.float64)
    masses.setflags(write=False)
    return int(k_lo), masses, float(offset)


def mean_at_least(r: RareRound, lo: np.ndarray, hi: np.ndarray, x: np.ndarray) -> np.ndarray:
    """True where the P-mean of the cells (lo, hi] is certified at least ``x`` (the core's
    ``aligned_mean_at_least``).  On a cell of width w where the density p = (1 - q) phi_0 + q phi_1
    stays within [m, M], M / m <= rho, the mean is at least lo + w / (1 + sqrt(rho)): the least
    mean over such densities puts M below a threshold c and m above it, and its minimum over c is
    there.  Each phi_j is unimodal, so m is at least the sum of its weighted values at the ends and
    M at most that of its maxima on the cell; the densities are rounded outward by 16 u (1 + z^2)
    and the bound lowered by 8 u of lo and w (w = hi - lo exact where hi <= 2 lo, Sterbenz, which
    the certificate requires)."""
    lo, hi, x = _same_shape(lo, hi, x)
    found = _core.pld_refine.aligned_mean_at_least(sigma=r.s, sampling_rate=r.q, lo=lo, hi=hi, x=x)
    return np.asarray(found) > 0.5


def verified_edges(r: RareRound, ks: np.ndarray, offset: float, h: float) -> np.ndarray:
    """For each grid index k of ``ks``, an x whose loss is at least offset + k h (the core's
    ``aligned_verified_edge``): the inverse of that loss, raised by a relative 1e-12 (about 1e-11
    of loss, far above the roundings) until the loss computed there, lowered by 16 u of itself, is
    at least the grid loss raised by 8 u of its terms.  A ValueError where 8 raises do not reach
    it."""
    k = np.ascontiguousarray(ks, dtype=np.float64)
    return np.asarray(
        _core.pld_refine.aligned_verified_edges(
            sigma=r.s, sampling_rate=r.q, k=k, offset=float(offset), interval=float(h)
        )
    )


def aligned_lower_epsilon(
    sigma: float,
    q: float,
    rounds: int,
    delta: float,
    near: float,
    h: float,
    max_points: int,
) -> float:
    """A certified lower bound on epsilon(delta) of ``rounds`` rounds of the Poisson-subsampled
    Gaussian (sigma / sensitivity ``sigma``, rate ``q``), remove direction, on grid ``h``, searched
    below ``near`` (an upper side); 0 where none is found (``aligned_read``).

    Parameters
    ----------
    sigma : float
        The noise multiplier over the sensitivity, > 0.
    q : float
        The sampling rate, in (0, 1).
    rounds : int
        T, >= 1.
    delta : float
        The delta asked, in (0, 1).
    near : float
        An upper side of epsilon at ``delta``, where the search starts.
    h : float
        The grid interval.
    max_points : int
        The tilted window's cap.

    Returns
    -------
    float
        The certified lower epsilon (module docstring).

    Raises
    ------
    ValueError
        Where the tilted window would pass its cap at every tail (1e-3 delta, then
        ``CUT_TAILS``), more than ``MAX_ALIGNED_CELLS`` cells are aligned, a rounded cell's edge
        cannot be certified (``verified_edges``) or the tilt passes the doubles' moments.
    """
    return aligned_read(sigma, q, rounds, delta, near, h, max_points)[0]


def aligned_read(
    sigma: float,
    q: float,
    rounds: int,
    delta: float,
    near: float,
    h: float,
    max_points: int,
) -> tuple[float, int, bool]:
    """``aligned_lower_epsilon``'s bound (its arguments), the points of the tilted window it read
    (whether a grid twice finer may fit the cap: ``aligned_lower_side``) and whether that window
    was cut at a tail of ``CUT_TAILS`` (its folded mass's charge may have cost the read): the
    core's ``aligned_read`` (pld/refine/aligned_lower.hpp, the C library's too), the aligned PMF
    (``aligned_pmf``) composed under the Chernoff exponent's tilt at ``near`` - T b
    (``tilted_question.exponent_tilt``, the core's), its optimistic side searched below ``near`` -
    T b, the answer moved back by T b rounded down.  Its ValueError: ``aligned_lower_epsilon``'s."""
    lower, points, cut = _core.pld_refine.aligned_read(
        sigma=sigma,
        sampling_rate=q,
        rounds=int(rounds),
        delta=delta,
        near=near,
        interval=h,
        max_points=max_points,
    )
    return float(lower), int(points), bool(cut)


def aligned_lower_delta(
    sigma: float,
    q: float,
    rounds: int,
    eps: np.ndarray,
    centre: float,
    level: float,
    h: float,
    max_points: int,
) -> tuple[np.ndarray, int]:
    """Certified lower bounds on delta at each of ``eps`` of ``rounds`` rounds of the
    Poisson-subsampled Gaussian (sigma / sensitivity ``sigma``, rate ``q``), remove direction (delta
    is the larger of the two directions' curves, so it bounds the point's delta too), on grid ``h``;
    and the points of the tilted window read (the core's ``aligned_lower_delta``,
    pld/refine/aligned_lower.hpp).

    The aligned PMF's composition shifted by T b is below the rounds' loss in the convex order
    (module docstring), and f(L) = (1 - e^{eps - L})_+ is convex and nondecreasing, so delta(eps)
    is at least the aligned composition's delta at eps - T b: its optimistic side read there (its
    charges subtracted), the argument rounded up (delta falls with it).  One composition, under the
    Chernoff exponent's tilt at ``centre`` - T b, serves every eps (any tilt gives a certified read;
    one near the eps asked makes it tight).  The window's tails are 1e-3 ``level`` (a delta expected
    at most the answer), or the least of ``CUT_TAILS`` that fits ``max_points`` where that window
    passes it.

    Parameters
    ----------
    sigma : float
        The noise multiplier over the sensitivity, > 0.
    q : float
        The sampling rate, in (0, 1).
    rounds : int
        T, >= 1.
    eps : numpy.ndarray
        The epsilons asked, finite.
    centre : float
        The epsilon whose Chernoff exponent chooses the tilt.
    level : float
        The least delta expected, in (0, 1): sizes the window's tails.
    h : float
        The grid interval.
    max_points : int
        The tilted window's cap.

    Returns
    -------
    tuple of numpy.ndarray and int
        The certified lower deltas (>= 0, the shape of ``eps``) and the window's points.

    Raises
    ------
    ValueError
        Where the tilted window would pass its cap at every tail, more than ``MAX_ALIGNED_CELLS``
        cells are aligned, a rounded cell's edge cannot be certified (``verified_edges``) or the
        tilt passes the doubles' moments.
    """
    found, points = _core.pld_refine.aligned_lower_delta(
        sigma=sigma,
        sampling_rate=q,
        rounds=int(rounds),
        eps=np.asarray(eps, dtype=np.float64),
        centre=centre,
        level=level,
        interval=h,
        max_points=max_points,
    )
    return np.asarray(found), int(points)


def aligned_lower_side(
    point: tuple[float, float, float, float],
    delta: float,
    lower: float,
    upper: float,
    max_points: int,
) -> float:
    """``lower`` raised to ``aligned_lower_epsilon``'s bound where higher, for a point (sigma, q, T,
    sensitivity) with q at most ``RARE_RATE``, at least ``LEAST_ROUNDS`` rounds, delta at least
    ``LEAST_DELTA`` and a finite ``upper`` side (the search's start), on the grid
    ``question.FINE_INTERVAL`` halved, else on ``question.FINE_INTERVAL`` where that window passes
    its cap; ``lower`` as given where neither fits.  A side still wider than the default tolerance
    on the halved grid is read again on a grid twice finer where its window held at most
    ``FINER_ROOM`` of the cap, or on ``question.FINE_INTERVAL`` too where its window was cut
    (``aligned_read``).  The core's ``aligned_lower_side`` (pld/refine/aligned_lower.hpp), which
    the C library's epsilon call reads too.

    Parameters
    ----------
    point : tuple of float
        (sigma, q, T, sensitivity) of the run.
    delta : float
        The delta asked, in (0, 1).
    lower, upper : float
        A certified epsilon bracket at ``delta``.
    max_points : int
        The tilted window's cap.

    Returns
    -------
    float
        The certified lower side, at least ``lower``.
    """
    sigma, q, rounds, sensitivity = point
    if not 0.0 < q < 1.0:  # q = 1: the Gaussian mechanism, answered in closed form
        return lower
    return float(
        _core.pld_refine.aligned_lower_side(
            sigma=sigma / sensitivity,
            sampling_rate=q,
            rounds=int(rounds),
            delta=delta,
            lower=lower,
            upper=upper,
            accuracy=question.DEFAULT_ACCURACY,
            relative_accuracy=question.DEFAULT_RELATIVE_ACCURACY,
            max_points=max_points,
        )
    )
