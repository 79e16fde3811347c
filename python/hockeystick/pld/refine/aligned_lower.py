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
(``_rounded_cells``), up to x where the P-tail is below ``TAIL``.

Mean bounds: log(1 + u) >= u - u^2/2 + u^3/3 - u^4/4 - r, r = 0 for u >= 0 (Lagrange remainder
u^5 / (5 (1 + xi)^5) >= 0) and r = q^5 / (5 (1 - q)^5) for u in [-q, 0).  With e^{jz} dN(0, s^2) =
e^{j (j - 1) / (2 s^2)} dN(j, s^2), E_P[e^{jz}; A] = (1 - q) e^{j (j - 1) / (2 s^2)} N_j(A) + q e^{j
(j + 1) / (2 s^2)} N_{j+1}(A), N_j(A) the N(j, s^2) mass of A from ``numerics.gaussian_tail``
(relative error <= 1e-12, taken as ``TAIL_ERROR``), and E_P[u^k; A] = q^k sum_j C(k, j) (-1)^{k-j}
E_P[e^{jz}; A].  Each sum is lowered by ``SUM_ERROR`` times the sum of its terms' magnitudes (the
tails' error and the double products and sums), and each mass taken on its safe side, so a cell's
atom at g needs lower(int_A l dP) >= g P_+(A) (g >= 0) or >= g P_-(A) (g < 0).  The grid PMF of
masses P_-(A) is composed under the tilt of the Chernoff exponent (``compose.tilted``, its optimistic
side: charged, certified) and read at eps - T b rounded up; the lower epsilon found is moved back by
T b rounded down.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...numerics.gaussian import gaussian_tail
from ..compose import tilted
from ..grid.pmf import GridPMF
from . import question

# the cells' means are aligned up to this u = q (e^z - 1) (loss ~0.01); past it atoms are rounded down
ALIGNED_UP_TO = 1e-2
# the P-tail dropped past the last cell
TAIL = 1e-30
# a Gaussian tail's relative error, with room (``numerics.gaussian``: <= 1e-12)
TAIL_ERROR = 1e-11
# the relative error of a moment sum against the sum of its terms' magnitudes (the tails' error and
# a few dozen double roundings)
SUM_ERROR = 4.0 * TAIL_ERROR
BISECTIONS = 45
# past ALIGNED_UP_TO, cell k starts this share of the way from x_k down to x_{k-1} (``_rounded_cells``):
# below 1/2 so that the cell's mean x, pulled down by the falling density, stays above x_k
CENTRED = 0.45
# the sampling rates at most this take the read (``aligned_lower_side``): its cost, ~2 to 5 CPU s,
# pays where the optimistic reads fall far below the truth (rare participation)
RARE_RATE = 1e-4
# the read is taken from this many rounds up (where the optimistic PMF's per-round bias adds up) and
# at deltas from LEAST_DELTA up (its far tail, past TAIL, is dropped)
LEAST_ROUNDS = 1000
LEAST_DELTA = 1e-20
# the tilted window's tails tried, the least that fits, where the one of 1e-3 delta passes the cap:
# the mass folded in from outside is charged at the untilt factor of the read (``compose.tilted``),
# small where the read lies far below the tilted bulk (sigma 0.5, q 1e-4, 10^6 rounds, delta 1e-12
# on h 2.5e-5: 5.4 M points at 1e-15, 2.9 M at 1e-6, the lower side 9.51313 and 9.51299), not
# everywhere (sigma 0.5, q 1e-5, 10^6 rounds, delta 1e-10: 3.50236 cut at 1e-6, 3.5039 uncut on a
# grid twice coarser)
CUT_TAILS = (1e-12, 1e-10, 1e-8, 1e-6)
# a lower side still wider than the tolerance is read again on a grid twice finer where the window
# read held at most this share of the cap (the finer window holds about twice its points): sigma 1,
# q 1e-4, 10^6 rounds, delta 1e-12 reads 0.85682 on h 2.5e-5 and 0.86028 on 1.25e-5
FINER_ROOM = 0.45
# the most aligned cells (each ~45 bisection steps of 20 Gaussian tails): past it the read stops
MAX_ALIGNED_CELLS = 2000
UNIT_ROUNDOFF = 2.0**-53


def normal_mass(mean: float, s: float, a: float, b: float) -> tuple[float, float]:
    """The N(mean, s^2) mass of (a, b] and a bound on its error: the difference of the two tails on
    the side away from the mean (no cancellation of 1 - tail), each within ``TAIL_ERROR`` relative,
    so within ``TAIL_ERROR`` times their sum, plus the difference's rounding."""
    xa, xb = (a - mean) / s, (b - mean) / s
    if xa >= 0.0:
        upper, lower = float(gaussian_tail(xa)), float(gaussian_tail(xb))
    else:
        upper, lower = float(gaussian_tail(-xb)), float(gaussian_tail(-xa))
    return upper - lower, (TAIL_ERROR + UNIT_ROUNDOFF) * (upper + lower)


class RareRound:
    """One round's remove direction at s = sigma / sensitivity and sampling rate q: the cells' P-mass
    bounds and the lower bound of their loss integrals (module docstring)."""

    def __init__(self, s: float, q: float):
        self.s, self.q = s, q
        self.c = 1.0 / (2.0 * s * s)

    def loss(self, x: float) -> float:
        """l(x) = log(1 + q (e^z - 1))."""
        return math.log1p(self.q * math.expm1((2.0 * x - 1.0) * self.c))

    def at_loss(self, loss: float) -> float:
        """The x whose loss is ``loss`` (> log(1 - q))."""
        return self.s * self.s * math.log1p(math.expm1(loss) / self.q) + 0.5

    def cell(self, a: float, b: float) -> tuple[float, float, float]:
        """(P_-(A), P_+(A), a lower bound on int_A l dP) for A = (a, b]."""
        q, c = self.q, self.c
        e, err = [], []
        for j in range(5):
            m0, e0 = normal_mass(j, self.s, a, b)
            m1, e1 = normal_mass(j + 1, self.s, a, b)
            w0, w1 = (1.0 - q) * math.exp(j * (j - 1) * c), q * math.exp(j * (j + 1) * c)
            e.append(w0 * m0 + w1 * m1)
            # the masses' errors, and 16 u of the terms for the weights' exp and the products
            err.append(w0 * e0 + w1 * e1 + 16.0 * UNIT_ROUNDOFF * (w0 * abs(m0) + w1 * abs(m1)))
        bound, error = 0.0, 0.0
        for k in range(1, 5):  # E_P[u^k; A] = q^k sum_j C(k, j) (-1)^(k-j) E_P[e^{jz}; A]
            terms = [math.comb(k, j) * (-1) ** (k - j) * e[j] for j in range(k + 1)]
            spread = sum(
                math.comb(k, j) * (err[j] + 8.0 * UNIT_ROUNDOFF * abs(e[j])) for j in range(k + 1)
            )
            sign = 1.0 if k % 2 else -1.0
            bound += sign * q**k * math.fsum(terms) / k
            error += q**k * spread / k
        mass_lo, mass_hi = max(0.0, e[0] - err[0]), e[0] + err[0]
        remainder = mass_hi * q**5 / (5.0 * (1.0 - q) ** 5)
        low = bound - error - remainder - 8.0 * UNIT_ROUNDOFF * (abs(bound) + error)
        return mass_lo, mass_hi, low


def below(g_up: float, cell: tuple[float, float, float]) -> bool:
    """True where an atom at most ``g_up`` is at most the cell's conditional mean (its bound on the
    integral at least g_up times the mass on the side that makes it so)."""
    lo, hi, integral = cell
    return integral >= g_up * (hi if g_up >= 0.0 else lo)


def aligned_pmf(sigma: float, q: float, h: float) -> tuple[GridPMF, float]:
    """One round's lower PMF on grid ``h`` (atoms at b + k h, as the grid PMF's k h) and its offset
    b (module docstring)."""
    r = RareRound(sigma, q)
    t0 = r.at_loss(math.log1p(-q) + 2.0 * h)
    lo, hi, integral = r.cell(-math.inf, t0)
    offset = integral / (lo if integral < 0.0 else hi)
    offset -= 4.0 * UNIT_ROUNDOFF * abs(offset) + 5e-324  # below the bulk's mean bound
    atoms: dict[int, float] = {0: lo}
    a, cells = t0, 0
    top = 1.0 + r.s * math.sqrt(2.0 * math.log(1.0 / TAIL))
    while q * math.expm1((2.0 * a - 1.0) * r.c) < ALIGNED_UP_TO:
        k = math.floor((r.loss(a) - offset) / h) + 1
        g = offset + k * h
        # the atom's loss is offset + k h exactly; g_up bounds it whatever the rounding of g
        g_up = g + 4.0 * UNIT_ROUNDOFF * (abs(g) + abs(offset) + abs(k * h))
        low_b, high_b = a, r.at_loss(g + 2.0 * h) + r.s
        while high_b <= top and not below(g_up, r.cell(a, high_b)):
            high_b += r.s
        if high_b > top:  # no cell up to the tail reaches g: the rest rounded down
            break
        cells += 1
        if cells > MAX_ALIGNED_CELLS:
            raise ValueError(f"more than {MAX_ALIGNED_CELLS} aligned cells")
        for _ in range(BISECTIONS):
            mid = 0.5 * (low_b + high_b)
            low_b, high_b = (low_b, mid) if below(g_up, r.cell(a, mid)) else (mid, high_b)
        atoms[k] = atoms.get(k, 0.0) + r.cell(a, high_b)[0]
        a = high_b
    _rounded_cells(r, a, top, offset, h, atoms)
    k_lo, k_hi = min(atoms), max(atoms)
    p = np.zeros(k_hi - k_lo + 1)
    for k, m in atoms.items():
        p[k - k_lo] += max(0.0, m)
    return GridPMF(k_lo, h, p, 0.0, pessimistic=False), offset


def _rounded_cells(
    r: RareRound, a: float, top: float, offset: float, h: float, atoms: dict[int, float]
) -> None:
    """Cells from ``a`` up to about ``top``, one a grid loss g_k = offset + k h, added to
    ``atoms``.  x_k, the edge of g_k, is certified to have a loss at least g_k
    (``verified_edges``); cell k spans (y_k, y_{k+1}], y_k = x_k - ``CENTRED`` (x_k - x_{k-1}) (at
    least x_{k-1} and a), so that x_k sits near its middle.  The loss is convex in x (the log of a
    sum of exponentials of x), so by Jensen the cell's mean loss is at least the loss at its mean
    x; where that mean is certified at least x_k (``mean_at_least``, from the density's spread over
    the cell), the atom is g_k
    (a loss of ~(1/2 - ``CENTRED``) h below the cell's mean), elsewhere g_{k - 1} (every loss of
    the cell is at least l(x_{k-1}) >= g_{k-1}).  Cell 0, (a, y_{first + 1}], goes to g_first, a
    cell below a's loss.  The mass above the last cell (below ``TAIL``) is dropped."""
    s, q = r.s, r.q
    first = math.floor((r.loss(a) - offset) / h) - 1
    last = math.floor((r.loss(top) - offset) / h) + 1
    ks = np.arange(first, last + 1)
    x = verified_edges(r, ks, offset, h)
    x = np.maximum.accumulate(np.maximum(x, a))
    y = np.maximum(x[1:] - CENTRED * (x[1:] - x[:-1]), x[:-1])  # y_k, k = first + 1 .. last
    edges = np.maximum.accumulate(np.concatenate([[a], y]))
    mass = np.zeros(edges.size - 1)
    for j, weight in ((0, 1.0 - q), (1, q)):
        m, err = normal_masses(float(j), s, edges[:-1], edges[1:])
        mass += weight * (m - err)
    # cell i (i >= 1) spans (y_{first + i}, y_{first + i + 1}]: its atom at first + i where its mean
    # x is certified at least x_{first + i}, else at first + i - 1; cell 0 at first
    index = np.arange(edges.size - 1) + first
    centred = np.zeros(edges.size - 1, dtype=bool)
    centred[1:] = mean_at_least(r, edges[1:-1], edges[2:], x[1:-1])
    index = np.where(centred | (index == first), index, index - 1)
    for k, cell_mass in zip(index.tolist(), mass.tolist(), strict=True):
        if cell_mass > 0.0:
            atoms[k] = atoms.get(k, 0.0) + cell_mass


def normal_masses(
    mean: float, s: float, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``normal_mass`` over arrays of cells (lo, hi]: the N(mean, s^2) masses and their error
    bounds (the tails on the side away from the mean, each within ``TAIL_ERROR`` relative, and the
    difference's rounding)."""
    above = np.asarray(gaussian_tail((lo - mean) / s), dtype=np.float64)
    above_hi = np.asarray(gaussian_tail((hi - mean) / s), dtype=np.float64)
    below = np.asarray(gaussian_tail((mean - hi) / s), dtype=np.float64)
    below_lo = np.asarray(gaussian_tail((mean - lo) / s), dtype=np.float64)
    upper_side = lo >= mean
    mass = np.where(upper_side, above - above_hi, below - below_lo)
    scale = np.where(upper_side, above + above_hi, below + below_lo)
    return mass, (TAIL_ERROR + 4.0 * UNIT_ROUNDOFF) * scale


def mean_at_least(r: RareRound, lo: np.ndarray, hi: np.ndarray, x: np.ndarray) -> np.ndarray:
    """True where the P-mean of the cells (lo, hi] is certified at least ``x``.  On a cell of width w
    where the density p = (1 - q) phi_0 + q phi_1 stays within [m, M], M / m <= rho, the mean is at
    least lo + w / (1 + sqrt(rho)): the least mean over such densities puts M below a threshold c
    and m above it, and its minimum over c is there (at c = w / (1 + sqrt(rho)), where the mean
    equals c).  Each phi_j is unimodal, so m is at least the sum of its weighted values at the ends
    and M at most that of its maxima on the cell (the peak where the cell holds mu_j); the
    densities are rounded outward by 16 u (1 + z^2) (exp of z^2 / 2) and the bound lowered by 8 u
    of lo and w (w = hi - lo is exact where hi <= 2 lo, Sterbenz)."""
    s, q = r.s, r.q
    norm = 1.0 / (s * math.sqrt(2.0 * math.pi))
    least = np.zeros(lo.size)
    most = np.zeros(lo.size)
    for mu, weight in ((0.0, 1.0 - q), (1.0, q)):
        z_lo, z_hi = (lo - mu) / s, (hi - mu) / s
        d_lo = norm * np.exp(-0.5 * z_lo * z_lo)
        d_hi = norm * np.exp(-0.5 * z_hi * z_hi)
        peak = np.where((lo < mu) & (mu <= hi), norm, np.maximum(d_lo, d_hi))
        e_lo = 16.0 * UNIT_ROUNDOFF * (1.0 + z_lo * z_lo)
        e_hi = 16.0 * UNIT_ROUNDOFF * (1.0 + z_hi * z_hi)
        least += weight * np.minimum(d_lo * (1.0 - e_lo), d_hi * (1.0 - e_hi))
        most += weight * peak * (1.0 + np.maximum(e_lo, e_hi))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = (most / least) * (1.0 + 8.0 * UNIT_ROUNDOFF)
    rho = np.where(least > 0.0, rho, np.inf)
    width = hi - lo
    bound = lo + width / (1.0 + np.sqrt(rho)) * (1.0 - 8.0 * UNIT_ROUNDOFF)
    bound -= 8.0 * UNIT_ROUNDOFF * (np.abs(lo) + np.abs(width))
    return np.asarray((bound >= x) & (hi > lo) & (hi <= 2.0 * lo))


def verified_edges(r: RareRound, ks: np.ndarray, offset: float, h: float) -> np.ndarray:
    """For each grid index k of ``ks``, an x whose loss is at least offset + k h: the inverse of
    that loss (``RareRound.at_loss``, vectorized), raised by a relative 1e-12 (about 1e-11 of loss,
    far above the roundings) until the loss computed there, lowered by 16 u of itself, is at least
    the grid loss raised by 8 u of its terms (log1p, expm1, the products: a few u each)."""
    s, q, c = r.s, r.q, r.c
    grid = offset + ks * h
    grid_up = grid + 8.0 * UNIT_ROUNDOFF * (np.abs(grid) + abs(offset) + np.abs(ks * h))
    edges = s * s * np.log1p(np.expm1(grid) / q) + 0.5
    for _ in range(8):
        loss = np.log1p(q * np.expm1((2.0 * edges - 1.0) * c))
        short = loss - 16.0 * UNIT_ROUNDOFF * np.abs(loss) < grid_up
        if not short.any():
            return edges
        edges = np.where(short, edges + 1e-12 * np.abs(edges) + 1e-300, edges)
    raise ValueError("a rounded cell's edge could not be certified above its grid loss")


def aligned_lower_epsilon(
    sigma: float,
    q: float,
    rounds: int,
    delta: float,
    near: float,
    h: float,
    tilt: Callable[[GridPMF, float, float], float],
    max_points: int,
) -> float:
    """A certified lower bound on epsilon(delta) of ``rounds`` rounds of the Poisson-subsampled
    Gaussian (sigma / sensitivity ``sigma``, rate ``q``), remove direction, on grid ``h``, searched
    below ``near`` (an upper side); 0 where none is found.

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
    tilt : callable
        (pmf, rounds, eps) -> the tilt lam of the Chernoff exponent at eps.
    max_points : int
        The tilted window's cap.

    Returns
    -------
    float
        The certified lower epsilon (module docstring).

    Raises
    ------
    ValueError
        Where the tilted window would pass its cap (``tilted.compose_tilted``) at every tail
        (1e-3 delta, then ``CUT_TAILS``), more than ``MAX_ALIGNED_CELLS`` cells are aligned, or a
        rounded cell's edge cannot be certified (``verified_edges``).
    """
    return aligned_read(sigma, q, rounds, delta, near, h, tilt, max_points)[0]


def aligned_read(
    sigma: float,
    q: float,
    rounds: int,
    delta: float,
    near: float,
    h: float,
    tilt: Callable[[GridPMF, float, float], float],
    max_points: int,
) -> tuple[float, int, bool]:
    """``aligned_lower_epsilon``'s bound (its arguments), the points of the tilted window it read
    (whether a grid twice finer may fit the cap: ``aligned_lower_side``) and whether that window
    was cut at a tail of ``CUT_TAILS`` (its folded mass's charge may have cost the read)."""
    pmf, offset = aligned_pmf(sigma, q, h)
    moved = rounds * offset
    moved_up = moved + 4.0 * UNIT_ROUNDOFF * abs(moved)
    lam = tilt(pmf, rounds, near - moved)
    tails = [1e-3 * delta] + [t for t in CUT_TAILS if t > 1e-3 * delta]
    for i, tail in enumerate(tails):
        try:
            composed = tilted.compose_tilted(
                [(pmf, rounds)], lam * h, pessimistic=False, tail=tail, max_points=max_points
            )
        except ValueError:  # past the cap: a larger tail, the last one's refusal raised
            if i == len(tails) - 1:
                raise
            continue
        break
    points = int(composed.window.p.size)
    found = tilted.lower_epsilon(composed, delta, near - moved_up)
    if not found > 0.0:
        return 0.0, points, i > 0
    low = found + moved - 4.0 * UNIT_ROUNDOFF * (abs(found) + abs(moved))
    return max(0.0, low), points, i > 0


def aligned_lower_side(
    point: tuple[float, float, float, float],
    delta: float,
    lower: float,
    upper: float,
    tilt: Callable[[GridPMF, float, float], float],
    max_points: int,
) -> float:
    """``lower`` raised to ``aligned_lower_epsilon``'s bound where higher, for a point (sigma, q, T,
    sensitivity) with q at most ``RARE_RATE``, at least ``LEAST_ROUNDS`` rounds, delta at least
    ``LEAST_DELTA`` and a finite ``upper`` side (the search's start), on
    the grid ``question.FINE_INTERVAL`` halved, else on ``question.FINE_INTERVAL`` where that
    window passes its cap; ``lower`` as given where neither fits.  A side still wider than the
    tolerance on the halved grid is read again on a grid twice finer where its window held at most
    ``FINER_ROOM`` of the cap, or on ``question.FINE_INTERVAL`` too where its window was cut
    (``aligned_read``).

    Parameters
    ----------
    point : tuple of float
        (sigma, q, T, sensitivity) of the run.
    delta : float
        The delta asked, in (0, 1).
    lower, upper : float
        A certified epsilon bracket at ``delta``.
    tilt : callable
        (pmf, rounds, eps) -> the tilt lam of the Chernoff exponent at eps
        (``tilted_question.exponent_tilt``).
    max_points : int
        The tilted window's cap.

    Returns
    -------
    float
        The certified lower side, at least ``lower``.
    """
    sigma, q, rounds, sensitivity = point
    if not (
        q <= RARE_RATE
        and rounds >= LEAST_ROUNDS
        and delta >= LEAST_DELTA
        and math.isfinite(upper)
        and upper > lower
    ):
        return lower
    s = sigma / sensitivity
    for h in (question.FINE_INTERVAL / 2.0, question.FINE_INTERVAL):
        try:
            found, points, cut = aligned_read(s, q, int(rounds), delta, upper, h, tilt, max_points)
        except ValueError:  # the window past its cap: a coarser grid
            continue
        lower = max(lower, found)
        if question.within_tolerance(np.array(lower), np.array(upper)):
            return lower
        if h < question.FINE_INTERVAL and points <= FINER_ROOM * max_points and not cut:
            # the aligned cells' loss, second order in h, a quarter on a grid twice finer
            try:
                finer = aligned_read(s, q, int(rounds), delta, upper, h / 2.0, tilt, max_points)
                lower = max(lower, finer[0])
            except ValueError:  # past the cap after all
                pass
        if not cut:
            return lower
    return lower
