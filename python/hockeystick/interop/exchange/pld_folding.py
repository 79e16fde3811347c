"""A composed grid PMF's charges folded into Google's PLD fields, each side kept certified.

hockeystick's certified curves are read from a composed grid PMF and its charges (pld/grid/pmf.py's
module docstring): with raw(eps) = sum_k p_k (1 - e^{eps - l_k})_+ + p_inf, the upper side is
min(raw(eps - s) (1 + slack) + shift + charge, 1) and the lower side max(raw(eps + s) (1 - slack) +
shift
- 2 charge, 0), where s is the loss shift, slack the suffix sums' relative round-off and charge the
  FFT
round-off bound of the grid points above eps (at most ``charge_of_masses(n)``, that of all n
points).  A reader of Google's fields has none of these, so they move into the masses:

- pessimistic (``pessimistic_fields``): the masses moved up by s (delta falls as eps rises, so the
  curve moved right dominates), onto the grid by whole cells for floor(s / h) h and, for the
  remainder r, each mass p at l split into p - b at l and b = p (1 - e^{-r}) / (1 - e^{-h}) at l + h
  (the pessimistic connect-the-dots split of a mass at l + r: Doroshenko et al., PETS 2022, Sec. 3;
  its curve is at or above that mass's at alpha = 0 and alpha = e^l, hence everywhere), scaled by
  1 + 2 slack (one slack for hockeystick's own bound, one for the reader's summation, of the same
  order), and shift plus the largest charge added at +infinity, every operation rounded up.  Its
  delta(eps) is at or above hockeystick's certified upper bound at every eps, in exact arithmetic;
  and a sum of such curves' masses (a composition by the reader) keeps dominating, since delta of a
  composition is sum_c C(c) delta(eps - c) + C_inf delta(-infinity).
- optimistic (``optimistic_fields``): the masses moved down by ceil(s / h) cells, scaled by 1 - 2
  slack, and the constant C = 2 charge - shift (plus any mass set to 0 from below 0) taken off the
  curve by ``lower_minorant``, every operation rounded down.

``lower_minorant`` takes C off as the largest curve with kinks on the grid below max(delta(eps) - C,
0): the hockey- stick curve is convex in alpha = e^eps with kinks at the grid losses, and so is
max(delta - C, 0); with l_j the highest grid loss where delta(l_j) >= C, the masses below l_{j-1}
stay, the mass at +infinity and above l_j goes, and two masses at l_{j-1} and l_j make the curve
fall linearly (in alpha) from delta(l_{j-1}) - C to 0 at l_j:

    b <= (delta(l_{j-1}) - C) / (1 - e^{-h}) at l_j,    a + b <= T_{j-1} - C at l_{j-1},

T_{j-1} the mass at and above l_{j-1} (+infinity's included).  The difference of the two curves is
then linear in alpha on (0, e^{l_{j-1}}] and >= 0 at both ends, and on [e^{l_{j-1}}, e^{l_j}] the
new curve lies on a chord below the line delta - C >= 0; above e^{l_j} it is 0.  When the mass at
+infinity exceeds C, it alone is lowered.
"""

from __future__ import annotations

import math

import numpy as np

from ...pld.grid import GridPMF
from .pld_format import ExchangedPMF

# The charge's steps sit CHARGE_SPAN above the losses where they fall (``_charge_masses``): each is
# multiplied by 1 / (1 - e^{-CHARGE_SPAN}) = 1.16, and the curve sheds it CHARGE_SPAN above where
# hockeystick's does.
CHARGE_SPAN = 2.0

__all__ = [
    "CHARGE_SPAN",
    "loss_shift_cells",
    "lower_minorant",
    "optimistic_fields",
    "pessimistic_fields",
    "pessimistic_pmf",
]


def _up(x: float) -> float:
    """x rounded up one ulp; an exact 0 (a sum of no charge) stays 0."""
    return float(np.nextafter(x, math.inf)) if x != 0.0 else 0.0


def _down(x: float) -> float:
    """x rounded down one ulp, and never below 0 (a mass lowered further only lowers a lower curve)."""
    return max(float(np.nextafter(x, -math.inf)), 0.0)


def loss_shift_cells(loss_shift: float, h: float) -> int:
    """The least m >= 0 with m h >= ``loss_shift`` in floating point: the cells a grid moves to cover the shift."""
    if loss_shift == 0.0:
        return 0
    m = math.ceil(loss_shift / h)
    while m * h < loss_shift:
        m += 1
    return m


def _trimmed(min_key: int, values: np.ndarray) -> tuple[int, np.ndarray]:
    """The masses from the first to the last positive one, with that first one's key (one 0 when none is)."""
    live = np.flatnonzero(values > 0.0)
    if live.size == 0:
        return min_key, np.zeros(1)
    return min_key + int(live[0]), values[live[0] : live[-1] + 1]


def pessimistic_pmf(
    values: np.ndarray, min_key: int, h: float, infinity_mass: float
) -> ExchangedPMF:
    """A pessimistic PMF of Google's fields whose curve is at or above that of the masses given, at every eps.

    Parameters
    ----------
    values : numpy.ndarray
        Masses at losses (min_key + i) h, any real (round-off below 0 is set to 0: a larger mass
        only raises the curve).
    min_key : int
        The index of the first loss.
    h : float
        The grid's spacing.
    infinity_mass : float
        The mass at +infinity, >= 0.

    Returns
    -------
    ExchangedPMF
        The masses clipped to [0, 1], the part of a mass above 1 moved to +infinity (raising the
        curve), zeros at both ends trimmed; all the mass at +infinity when that reaches 1 (delta = 1
        everywhere).
    """
    positive = np.maximum(np.asarray(values, dtype=np.float64), 0.0)
    over = positive[positive > 1.0]
    infinity = (
        _up(math.fsum([infinity_mass, *(over - 1.0).tolist()]))
        if over.size
        else float(infinity_mass)
    )
    if infinity >= 1.0:
        return ExchangedPMF(h, 0, np.zeros(1), 1.0, True)
    key, kept = _trimmed(min_key, np.minimum(positive, 1.0))
    return ExchangedPMF(h, key, kept, infinity, True)


def pessimistic_fields(pmf: GridPMF) -> ExchangedPMF:
    """The pessimistic composed PMF ``pmf`` with its charges folded in (module docstring): its curve
    is at or above ``pmf.delta``'s certified upper bound at every eps.

    Parameters
    ----------
    pmf : GridPMF
        A pessimistic composed PMF (``PrivacyLossDistribution.composed(True)``'s).

    Returns
    -------
    ExchangedPMF
        Google's fields, ``pessimistic_estimate`` True.
    """
    scale = _up(1.0 + 2.0 * pmf.suffix_sum_slack())
    scaled = np.maximum(pmf.p, 0.0) * scale
    values = np.where(scaled > 0.0, np.nextafter(scaled, math.inf), 0.0)
    infinity = _up(math.fsum([_up(max(pmf.p_inf, 0.0) * scale), max(pmf.shift, 0.0)]))
    cells = math.floor(pmf.loss_shift / pmf.h)
    moved = _moved_up(values, pmf.loss_shift - cells * pmf.h, cells, pmf.h)
    charges, offset = _charge_masses(pmf, CHARGE_SPAN)
    total = np.zeros(max(cells + moved.size, offset + charges.size))
    total[cells : cells + moved.size] = moved
    summed = total[offset : offset + charges.size] + charges
    total[offset : offset + charges.size] = np.where(
        summed > 0.0, np.nextafter(summed, math.inf), 0.0
    )
    return pessimistic_pmf(total, pmf.k_lo, pmf.h, infinity)


def _charge_masses(pmf: GridPMF, span: float) -> tuple[np.ndarray, int]:
    """Masses whose curve is at or above the round-off charge the pessimistic side adds at eps, at
    every eps, and the grid index (from ``pmf.k_lo``) of the first: the charge c(eps) of the grid
    points above eps - s (s the loss shift; pld/reads/charged_curve.hpp's ``charge_at_argument``)
    falls by step_i = C(n - i) - C(n - i - 1) as eps - s passes l_i (C = ``charge_of_masses``), and
    step_i / (1 - e^{s - K h}) at l_i + K h, with K h >= s + ``span``, covers that step at every eps
    < l_i + s (module docstring), every operation rounded up."""
    n = pmf.p.size
    charge = pmf.charge_of_masses(
        np.arange(n, -1, -1, dtype=np.float64)
    )  # charge of n - i masses, i = 0..n
    steps = np.maximum(charge[:-1] - charge[1:], 0.0)
    steps = np.where(steps > 0.0, np.nextafter(steps, math.inf), 0.0)
    k = math.ceil((span + pmf.loss_shift) / pmf.h)
    gap = float(np.nextafter(k * pmf.h - pmf.loss_shift, -math.inf))
    amplification = _up(1.0 / float(np.nextafter(-math.expm1(-gap), -math.inf)))
    masses = steps * amplification
    return np.where(masses > 0.0, np.nextafter(masses, math.inf), 0.0), k


def _moved_up(values: np.ndarray, remainder: float, cells: int, h: float) -> np.ndarray:
    """Masses >= 0 moved up by ``remainder`` (what is left of the loss shift after ``cells`` whole
    cells, about 0 <= remainder < h) onto the grid: each mass p at l split into p - b at l and b = p
    w at l + h, w = (1 - e^{-r}) / (1 - e^{-h}) rounded up (module docstring), every sum rounded up;
    one more grid point on top.  The whole mass goes a cell up when w reaches 1."""
    if remainder <= 0.0:
        return values
    r = _up(
        _up(remainder + math.ulp(cells * h))
    )  # the remainder and the product cells h each rounded
    w = min(_up(_up(-math.expm1(-r)) / float(np.nextafter(-math.expm1(-h), -math.inf))), 1.0)
    b = np.where(values > 0.0, np.nextafter(values * w, math.inf), 0.0)
    a = np.where(values > b, np.nextafter(values - b, math.inf), 0.0)
    out = np.concatenate([a, [0.0]])
    out[1:] = np.where(out[1:] + b > 0.0, np.nextafter(out[1:] + b, math.inf), 0.0)
    return out


def optimistic_fields(pmf: GridPMF) -> ExchangedPMF:
    """The optimistic composed PMF ``pmf`` with its charges taken off (module docstring): its curve
    is at or below ``pmf.delta``'s certified lower bound at every eps.

    Parameters
    ----------
    pmf : GridPMF
        An optimistic composed PMF (``PrivacyLossDistribution.composed(False)``'s).

    Returns
    -------
    ExchangedPMF
        Google's fields, ``pessimistic_estimate`` False.
    """
    scale = float(np.nextafter(1.0 - 2.0 * pmf.suffix_sum_slack(), -math.inf))
    scaled = np.maximum(pmf.p, 0.0) * scale
    values = np.where(scaled > 0.0, np.nextafter(scaled, -math.inf), 0.0)
    below_zero = math.fsum([*(-pmf.p[pmf.p < 0.0]).tolist(), max(-pmf.p_inf, 0.0)])
    charge = 2.0 * float(pmf.charge_of_masses(np.array(float(pmf.p.size))))
    constant = _up(math.fsum([charge, max(-pmf.shift, 0.0), _up(below_zero)]))
    infinity = _down(max(pmf.p_inf, 0.0) * scale)
    return lower_minorant(
        values, pmf.k_lo - loss_shift_cells(pmf.loss_shift, pmf.h), pmf.h, infinity, constant
    )


def lower_minorant(
    values: np.ndarray, min_key: int, h: float, infinity_mass: float, charge: float
) -> ExchangedPMF:
    """An optimistic PMF whose curve is at or below max(delta(eps) - ``charge``, 0) at every eps,
    delta the curve of the masses given (module docstring), and whose total mass is at most 1.

    Parameters
    ----------
    values : numpy.ndarray
        Masses >= 0 at losses (min_key + i) h.
    min_key : int
        The index of the first loss.
    h : float
        The grid's spacing.
    infinity_mass : float
        The mass at +infinity, >= 0.
    charge : float
        The constant C >= 0 taken off the curve; any total mass above 1 is taken off too (a lower
        curve never exceeds delta(-infinity) = 1).

    Returns
    -------
    ExchangedPMF
        Google's fields, ``pessimistic_estimate`` False; no mass when the curve lies below C
        everywhere.
    """
    values = np.asarray(values, dtype=np.float64)
    excess = math.fsum([*values.tolist(), infinity_mass, -1.0])
    charge = _up(charge + _up(excess)) if excess > 0.0 else charge
    if charge <= infinity_mass:
        key, kept = _trimmed(min_key, values)
        return ExchangedPMF(
            h, key, kept, _down(infinity_mass - charge) if charge else infinity_mass, False
        )
    grid = GridPMF(k_lo=min_key, h=h, p=values, p_inf=infinity_mass, pessimistic=False)
    low = grid.delta(grid.losses)  # certified lower bounds of the masses' curve at each grid loss
    reached = np.flatnonzero(low >= charge)
    if reached.size == 0:
        return ExchangedPMF(h, min_key, np.zeros(1), 0.0, False)
    j = int(reached[-1])
    start = max(j - 1, 0)
    room = _down(_down(math.fsum([*values[start:].tolist(), infinity_mass])) - charge)
    if j == 0:
        return ExchangedPMF(h, min_key, np.array([room]), 0.0, False)
    fall = _up(_up(-math.expm1(-h)))  # 1 - e^{-h}, rounded up (expm1 errs by under an ulp)
    b = min(_down(_down(float(low[j - 1]) - charge) / fall), room)
    masses = np.concatenate([values[:start], [_down(room - b), b]])
    key, kept = _trimmed(min_key, masses)
    return ExchangedPMF(h, key, kept, 0.0, False)
