"""The monotone-pair discretizer written with numpy: the reference the core's (cpp/include/hockeystick/pld/mechanisms/
monotone.hpp) is tested against, over each pair's closed forms rebuilt in the tests.

For a pair (P, Q) on the line whose loss L = log dP/dQ is non-decreasing, the grid l_k = k h cuts [x_lo, x_hi] at
x_k = L^{-1}(l_k); each cell merged into one outcome (P_k, Q_k) is dominated by (P, Q) with the same hockey-stick
value at every grid point, so the connect-the-dots PMFs of the atoms bound (P, Q)'s composition from both sides
(Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, PETS 2022, Sec. 3).  A cut is accepted where L there is within
1e-13 max(|l|, 1) of l (the closed-form inverse if given, else safeguarded Newton from a coarse grid's bracket);
the pessimistic masses are raised and the optimistic lowered by ROUNDOFF_CHARGE, the cells' loss error is charged
as the PMFs' loss shift, and an open-ended pair's cut tails go to +infinity on the pessimistic side, rounded up by
OUTSIDE_MARGIN.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

from hockeystick import _core
from hockeystick.pld.grid.distribution import Factor
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.mechanisms.atoms_from_pairs import loss_round_off
from hockeystick.pld.mechanisms.constructors import MAX_CELLS

ROUNDOFF_CHARGE = 1e-10
OUTSIDE_MARGIN = (
    1e-12  # a cut tail's relative error (scipy's ndtr of the tail side, a few ulp, and the sum)
)
_COARSE_POINTS = 4097
_NEWTON_STEPS = 100
_LOSS_TOLERANCE = 1e-13

Curve = Callable[[np.ndarray], np.ndarray]
IntervalMass = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class MonotonePair:
    """A pair on the line with non-decreasing loss, described by what the discretizer needs.

    ``loss(x)``: L(x), strictly increasing on [x_lo, x_hi], ``slope(x)`` its derivative; ``p_mass(a, b)`` and ``q_mass(a, b)``:
    the masses of the intervals (a, b] (arrays); ``atoms``: extra outcomes outside the strictly
    increasing part, as (loss, P-mass, Q-mass) rows (flat parts of L, e.g. Laplace's ends);
    ``inverse``: where L^{-1} has a closed form, an estimate of it (any x: each cut is still accepted
    only where L there is within round-off of its target, else found by the bracketed Newton search);
    ``open_ends``: the laws have mass beyond [x_lo, x_hi] that no atom holds (a cut tail), which the
    pessimistic sides put at +infinity (``monotone_factors``).
    """

    loss: Curve
    slope: Curve
    p_mass: IntervalMass
    q_mass: IntervalMass
    x_lo: float
    x_hi: float
    atoms: tuple[tuple[float, float, float], ...] = ()
    inverse: Curve | None = None
    open_ends: bool = False


def log_sum_exp_rows(terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log sum_i e^{t_i} over the last axis, and the softmax weights (for derivatives)."""
    top = terms.max(axis=-1, keepdims=True)
    e = np.exp(terms - top)
    total = e.sum(axis=-1, keepdims=True)
    return (np.log(total) + top)[..., 0], e / total


def _converged(pair: MonotonePair, x: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Where L(x) is within round-off of the target (the cut's place in x does not matter beyond
    that: only its loss does)."""
    return cast(
        np.ndarray,
        np.abs(pair.loss(x) - targets) <= _LOSS_TOLERANCE * np.maximum(np.abs(targets), 1.0),
    )


def _invert(pair: MonotonePair, targets: np.ndarray) -> np.ndarray:
    """x in [x_lo, x_hi] with L(x) = target: the closed-form ``pair.inverse`` where it is within
    round-off, else a bracket on a coarse grid, then safeguarded Newton.

    Every step keeps a bracket [lo, hi] with L(lo) < target <= L(hi); a Newton step leaving it is
    replaced by the midpoint, so the iteration never diverges; it stops when the step is below a
    few units of round-off of x (quadratic convergence: a handful of steps).
    """
    if pair.inverse is not None and targets.size:
        with np.errstate(divide="ignore", invalid="ignore"):
            guess = np.clip(pair.inverse(targets), pair.x_lo, pair.x_hi)
        good = np.isfinite(guess)
        good[good] = _converged(pair, guess[good], targets[good])
        if good.all():
            return guess
        guess[~good] = _newton(pair, targets[~good])
        return guess
    return _newton(pair, targets)


def _newton(pair: MonotonePair, targets: np.ndarray) -> np.ndarray:
    """``_invert`` without a closed form: a coarse-grid bracket, then safeguarded Newton."""
    coarse = np.linspace(pair.x_lo, pair.x_hi, _COARSE_POINTS)
    at = pair.loss(coarse)
    j = np.clip(np.searchsorted(at, targets, side="left"), 1, coarse.size - 1)
    lo, hi = coarse[j - 1], coarse[j]
    f_lo, f_hi = at[j - 1], at[j]
    x = lo + (hi - lo) * np.clip(
        (targets - f_lo) / np.where(f_hi > f_lo, f_hi - f_lo, 1.0), 0.0, 1.0
    )
    active = np.arange(targets.size)
    for _ in range(_NEWTON_STEPS):
        xa, ta = x[active], targets[active]
        f = pair.loss(xa) - ta
        # Converged where the loss is within round-off of the target (the cut's place in x does
        # not matter beyond that: only its loss does): x stays where f was evaluated.
        done = np.abs(f) <= _LOSS_TOLERANCE * np.maximum(np.abs(ta), 1.0)
        below = f < 0
        lo_a = np.where(below, xa, lo[active])
        hi_a = np.where(below, hi[active], xa)
        lo[active], hi[active] = lo_a, hi_a
        slope = pair.slope(xa)
        with np.errstate(divide="ignore", invalid="ignore"):
            nxt = xa - np.where(slope > 0, f / slope, np.inf)
        nxt = np.where((nxt >= lo_a) & (nxt <= hi_a), nxt, 0.5 * (lo_a + hi_a))
        done |= hi_a - lo_a <= 4 * np.finfo(np.float64).eps * np.maximum(np.abs(xa), 1.0)
        x[active] = np.where(done, xa, nxt)
        active = active[~done]
        if active.size == 0:
            break
    return x


def cell_atoms(pair: MonotonePair, h: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per loss cell on the grid k h: (loss, P-mass, Q-mass) of the merged outcome, plus ``pair.atoms``."""
    l_lo, l_hi = (float(x) for x in pair.loss(np.array([pair.x_lo, pair.x_hi])))
    first, last = np.ceil(l_lo / h), np.floor(l_hi / h)
    cells = last - first + 1
    if not cells <= MAX_CELLS:  # inf or NaN too: a loss range beyond the doubles
        raise ValueError(
            f"the loss range [{l_lo:.4g}, {l_hi:.4g}] needs {cells:.4g} cells of width {h:g} (more than "
            f"{MAX_CELLS}): use a coarser value_discretization_interval, or more noise (a larger scale "
            "or sigma, or a smaller sensitivity)"
        )
    k = np.arange(first, last + 1)
    cuts = np.concatenate([[pair.x_lo], _invert(pair, k * h), [pair.x_hi]])
    cuts = np.maximum.accumulate(cuts)
    a, b = cuts[:-1], cuts[1:]
    pm = np.maximum(pair.p_mass(a, b), 0.0)
    qm = np.maximum(pair.q_mass(a, b), 0.0)
    at_cuts = pair.loss(cuts)  # one evaluation for both ends of every cell
    la, lb = at_cuts[:-1], at_cuts[1:]
    keep = pm > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(qm > 0, np.log(pm) - np.log(qm), np.inf)
    loss = np.clip(loss, la, lb)  # the mean-value loss of a cell lies in it; outside is round-off
    extra = np.array(pair.atoms, dtype=np.float64).reshape(-1, 3)
    return (
        np.concatenate([loss[keep], extra[:, 0]]),
        np.concatenate([pm[keep], extra[:, 1]]),
        np.concatenate([qm[keep], extra[:, 2]]),
    )


def factor_from_atoms(
    name: str,
    loss: np.ndarray,
    p_mass: np.ndarray,
    h: float,
    loss_shift: float,
    outside: float = 0.0,
) -> Factor:
    """Connect-the-dots PMFs (both sides) of the atoms, with the round-off charges above and the
    atoms' loss error ``loss_shift`` (``GridPMF.loss_shift``); ``outside``: mass the atoms leave out, at
    +infinity on the pessimistic side (and dropped on the optimistic one)."""
    live = p_mass > 0
    raw = _core.pld_mechanisms.atoms(
        np.ascontiguousarray(loss[live]),
        np.ascontiguousarray(p_mass[live]),
        h=h,
        max_cells=MAX_CELLS,
    )
    cells_shift = float(
        raw.loss_shift
    )  # the cells' own loss error (atoms snapped to grid points), added rounded up
    shift = math.nextafter(loss_shift + cells_shift, math.inf) if cells_shift > 0.0 else loss_shift
    upper = GridPMF(
        int(raw.k_lo),
        h,
        np.asarray(raw.upper) * (1.0 + ROUNDOFF_CHARGE),
        float(raw.upper_inf) + outside,
        0.0,
        True,
        loss_shift=shift,
    )
    lower = GridPMF(
        int(raw.lower_k_lo),
        h,
        np.asarray(raw.lower) * (1.0 - ROUNDOFF_CHARGE),
        float(raw.lower_inf),
        0.0,
        False,
        loss_shift=shift,
    )
    return Factor(name, upper, lower, bool(raw.connect_dots))


def _largest_abs_log(masses: np.ndarray) -> float:
    """max |log m| over positive masses: at the smallest or the largest."""
    return max(abs(math.log(float(masses.min()))), abs(math.log(float(masses.max()))))


def monotone_factors(name: str, pair: MonotonePair, h: float) -> tuple[Factor, Factor]:
    """The (P, Q) factor and the swapped (Q, P) factor (its loss is -L, also monotone).

    Each merged cell's loss log P_k - log Q_k is computed with an error up to
    ``finite_atoms.loss_round_off``; clamped into its cell it moves toward the true loss, which lies
    there (up to the rounding of L at the cuts), so that bound still holds.  Both factors charge it
    as a shift of the curve (``GridPMF.loss_shift``): a loss computed onto a grid point otherwise left
    the pessimistic side below the truth there by that error, which the relative mass charge
    ``ROUNDOFF_CHARGE`` does not cover (the profile there is 0).
    """
    loss, pm, qm = cell_atoms(pair, h)
    both = (pm > 0) & (qm > 0)
    # loss_round_off grows with |log P_k| + |log Q_k|, at most the largest of each (four logs, not two per cell)
    shift = (
        loss_round_off(_largest_abs_log(pm[both]), _largest_abs_log(qm[both]))
        if both.any()
        else 0.0
    )
    forward = factor_from_atoms(f"{name}, remove", loss, pm, h, shift, _outside(pair.p_mass, pair))
    backward = factor_from_atoms(f"{name}, add", -loss, qm, h, shift, _outside(pair.q_mass, pair))
    return forward, backward


def _outside(mass: IntervalMass, pair: MonotonePair) -> float:
    """The mass beyond [x_lo, x_hi] of an open-ended pair's law (0 otherwise), from its tails, rounded up by
    OUTSIDE_MARGIN: the atoms' masses leave it out, and their sum cannot show a deficit below the doubles'
    resolution at 1 (a cut tail of 1e-16 next to a total of 1)."""
    if not pair.open_ends:
        return 0.0
    tails = mass(np.array([-np.inf, pair.x_hi]), np.array([pair.x_lo, np.inf]))
    return float(np.sum(tails)) * (1.0 + OUTSIDE_MARGIN)
