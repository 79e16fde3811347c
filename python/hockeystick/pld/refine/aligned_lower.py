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
rounding down); past u >= the core's ``kAlignedUpTo`` (1e-2), where the loss is steep enough in x that a cell of one
grid step is narrow, cells centred on the grid losses' edges x_k, each atom at g_k where the cell's
mean x is certified at least x_k (the loss is convex in x: Jensen in x), else a cell lower
(the core's ``aligned_pmf``'s rounded cells), up to x where the P-tail is below ``kAlignedTail`` (1e-30).

Mean bounds: log(1 + u) >= u - u^2/2 + u^3/3 - u^4/4 - r, r = 0 for u >= 0 (Lagrange remainder
u^5 / (5 (1 + xi)^5) >= 0) and r = q^5 / (5 (1 - q)^5) for u in [-q, 0).  With e^{jz} dN(0, s^2) =
e^{j (j - 1) / (2 s^2)} dN(j, s^2), E_P[e^{jz}; A] = (1 - q) e^{j (j - 1) / (2 s^2)} N_j(A) + q e^{j
(j + 1) / (2 s^2)} N_{j+1}(A), N_j(A) the N(j, s^2) mass of A from ``numerics.gaussian_tail``
(relative error <= 1e-12, taken as ``kAlignedTailError``, 1e-11), and E_P[u^k; A] = q^k sum_j C(k, j) (-1)^{k-j}
E_P[e^{jz}; A].  Each sum, taken correctly rounded, is lowered by the tails' error and 8 u of its
terms' magnitudes (the double products and sums), and each mass taken on its safe side, so a cell's
atom at g needs lower(int_A l dP) >= g P_+(A) (g >= 0) or >= g P_-(A) (g < 0).  The grid PMF of
masses P_-(A) is composed under the tilt of the Chernoff exponent (``compose.tilted``, its optimistic
side: charged, certified) and read at eps - T b rounded up; the lower epsilon found is moved back by
T b rounded down.

The cells, their composition and the reads are the core's (pld/refine/aligned_lower.hpp, bound as
``_core.pld_refine.aligned_*``), which the C library's reads make too; this module is the front end
of the two reads the package's default makes (``aligned_lower_side``, ``aligned_lower_delta``).
"""

from __future__ import annotations

import numpy as np

from ... import _core
from . import question

# the sampling rates at most this take the read (``aligned_lower_side``): its cost, ~2 to 5 CPU s,
# pays where the optimistic reads fall far below the truth (rare participation)
RARE_RATE: float = _core.pld_refine.aligned_rare_rate
# the read is taken from this many rounds up (where the optimistic PMF's per-round bias adds up) and
# at deltas from LEAST_DELTA up (its far tail, past kAlignedTail, is dropped)
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
        Where the tilted window would pass its cap at every tail, more than the core's
        ``kAlignedMaxCells`` cells are aligned, a rounded cell's edge cannot be certified or the
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
    """``lower`` raised to the aligned cells' certified lower epsilon where higher, for a point (sigma, q, T,
    sensitivity) with q at most ``RARE_RATE``, at least ``LEAST_ROUNDS`` rounds, delta at least
    ``LEAST_DELTA`` and a finite ``upper`` side (the search's start), on the grid
    ``question.FINE_INTERVAL`` halved, else on ``question.FINE_INTERVAL`` where that window passes
    its cap; ``lower`` as given where neither fits.  A side still wider than the default tolerance
    on the halved grid is read again on a grid twice finer where its window held at most
    ``FINER_ROOM`` of the cap, or on ``question.FINE_INTERVAL`` too where its window was cut
    (the core's ``aligned_read``).  The core's ``aligned_lower_side`` (pld/refine/aligned_lower.hpp), which
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
