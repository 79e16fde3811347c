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
rounding down); past u >= ``ALIGNED_UP_TO``, cells between grid losses with each atom at the grid
point at or below its lower edge's loss (few rounds fall there), up to x where the P-tail is below
``TAIL``.

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
# the sampling rates at most this take the read (``aligned_lower_side``): its cost, ~2 to 5 CPU s,
# pays where the optimistic reads fall far below the truth (rare participation)
RARE_RATE = 1e-4
# the read is taken from this many rounds up (where the optimistic PMF's per-round bias adds up) and
# at deltas from LEAST_DELTA up (its far tail, past TAIL, is dropped)
LEAST_ROUNDS = 1000
LEAST_DELTA = 1e-20
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
    """Cells from ``a`` to ``top`` between grid losses, each atom at the grid index at or below its
    lower edge's loss (the loss rounded down by its rounding, then a cell more), added to
    ``atoms``."""
    s, q = r.s, r.q
    first = math.floor((r.loss(a) - offset) / h) - 1
    last = math.floor((r.loss(top) - offset) / h) + 1
    ks = np.arange(first + 1, last + 1)
    edges = np.maximum.accumulate(
        np.concatenate([[a], s * s * np.log1p(np.expm1(offset + ks * h) / q) + 0.5])
    )
    mass = np.zeros(ks.size)
    for j, weight in ((0, 1.0 - q), (1, q)):
        t = np.asarray(gaussian_tail((edges - j) / s), dtype=np.float64)  # tails: x above the mean
        below_mean = edges < j
        u = np.asarray(gaussian_tail((j - edges) / s), dtype=np.float64)  # lower tails
        diff = np.where(below_mean[1:], u[1:] - u[:-1], t[:-1] - t[1:])
        scale = np.where(below_mean[1:], u[1:] + u[:-1], t[:-1] + t[1:])
        mass += weight * (diff - (TAIL_ERROR + 4.0 * UNIT_ROUNDOFF) * scale)
    # cell i spans (edges[i], edges[i + 1]]: its lower edge's loss is at least offset + (first + i)
    # h but for the inverse's rounding (cell 0: at least a cell above), so its atom goes a cell
    # lower, at first + i - 1
    for i, m in enumerate(mass.tolist()):
        if m > 0.0:
            atoms[first + i - 1] = atoms.get(first + i - 1, 0.0) + m


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
        Where the tilted window would pass its cap (``tilted.compose_tilted``) or more than
        ``MAX_ALIGNED_CELLS`` cells are aligned.
    """
    pmf, offset = aligned_pmf(sigma, q, h)
    moved = rounds * offset
    moved_up = moved + 4.0 * UNIT_ROUNDOFF * abs(moved)
    lam = tilt(pmf, rounds, near - moved)
    composed = tilted.compose_tilted(
        [(pmf, rounds)], lam * h, pessimistic=False, tail=1e-3 * delta, max_points=max_points
    )
    found = tilted.lower_epsilon(composed, delta, near - moved_up)
    if not found > 0.0:
        return 0.0
    low = found + moved - 4.0 * UNIT_ROUNDOFF * (abs(found) + abs(moved))
    return max(0.0, low)


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
    window passes its cap; ``lower`` as given where neither fits.

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
    for h in (question.FINE_INTERVAL / 2.0, question.FINE_INTERVAL):
        try:
            found = aligned_lower_epsilon(
                sigma / sensitivity, q, int(rounds), delta, upper, h, tilt, max_points
            )
        except ValueError:  # the window past its cap: a coarser grid
            continue
        return max(lower, found)
    return lower
