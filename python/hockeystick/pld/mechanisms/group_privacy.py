"""Group privacy for hockey-stick curves: an upper curve for inputs up to c neighbouring steps apart.

Notation as in ``subsampled_pair``: for output laws P, R and g = e^eps, E_g(P || R) = int (dP - g
dR)_+. If H is an upper side of E_g(M(x) || M(y)) for EVERY ordered pair of neighbouring inputs (x,
y), at every real eps, what bounds E_g(M(x_0) || M(x_c)) for inputs joined by a chain x_0, x_1, ..,
x_c of neighbours (a group of c)?

Weak triangle inequality.  For any laws P, Q, R and real a, b,
    E_{e^{a+b}}(P || R) <= E_{e^a}(P || Q) + e^a E_{e^b}(Q || R),                         (*)
because dP - e^{a+b} dR = (dP - e^a dQ) + e^a (dQ - e^b dR) and (x + y)_+ <= x_+ + y_+ pointwise.
(*) iterated with equal splits is the group-privacy lemma for (eps, delta)-DP: inputs c steps apart
are (c eps, c e^{(c-1) eps} delta)-indistinguishable (Vadhan, "The Complexity of Differential
Privacy", 2017, Lemma 2.2 and its proof; Dwork & Roth 2014, Thm 2.2 for pure eps-DP).  Keeping the
split free gives, with G_1 = H,
    G_j(eps) = min over real a of  G_{j-1}(a) + e^a H(eps - a)        (j = 2 .. c),      (**)
an upper side of E_{e^eps}(M(x_0) || M(x_j)) for every chain of j steps: (*) with P = M(x_0),
Q = M(x_{j-1}), R = M(x_j), G_{j-1} bounding the first term by induction and H the second.  Any
set of splits a gives a valid bound (a smaller set is only looser), and every G_j is also <= 1.

Computation.  The splits and the tabulated points are the dyadic grid eps_k = k s (s a power of 2,
|k| < 2^40, so every eps_k and every difference eps_k - eps_i is exact in floating point and the
split is exact); the exponentials and sums are raised by ``ROUNDING`` (a few ulp each, 1e-12 here).
For tightness only, the second step is kept within |eps - a| <= ``span`` (H is 1 - e^b below -span
and flat above it, where a different split gains nothing for bounded losses).  Between grid points
the curve is read at the grid point just below (a true curve is non-increasing in eps), below the
grid it is 1, and a running minimum over the grid (again by monotonicity) only lowers the table.

What this is not.  (**) bounds the group's curve from above only; a group of c is at least as
distinguishable as a group of one (``at most c`` steps), so the inner's own lower side is a lower
bound on the true group curve, and that is the lower side callers pair with G_c.  For additive
noise on a sum query the group of c is exact (the same noise at c times the shift); (**) is for
mechanisms with no such structure (nested samples, an (eps, delta) pair, ...).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

Curve = Callable[
    [np.ndarray], np.ndarray
]  # a certified side of delta(eps), at a flat array of real eps

ROUNDING = (
    1e-12  # relative raise of each tabulated value: covers the few-ulp error of exp and a sum
)
MAX_POINTS = 4096  # tabulated points per group (the step s is chosen to keep within it)
ROWS = 256  # output points per block of the (min, +) table (memory: ROWS x band floats)


def dyadic_step(span: float, groups: int, finest: float) -> float:
    """The power of 2 >= ``finest`` with (2 groups span / s) <= MAX_POINTS: the table's spacing."""
    if not (math.isfinite(span) and span > 0 and math.isfinite(finest) and finest > 0):
        raise ValueError(f"span and finest must be finite and > 0, got {span!r}, {finest!r}")
    wanted = max(finest, 2.0 * groups * span / MAX_POINTS)
    return 2.0 ** math.ceil(math.log2(wanted))


def group_upper_curves(curve: Curve, groups: int, span: float, step: float) -> list[Curve]:
    """Upper sides G_1 = ``curve``, G_2, .., G_groups of (**) (module docstring), each at any real eps.

    ``curve``: an upper side of delta(eps) for every ordered neighbouring pair, at any real eps;
    ``span``: a loss beyond which that curve is (all but) constant (its top loss); ``step``: the
    table's spacing, a power of 2 (``dyadic_step``).  G_j is tabulated on [-j span, j span].
    """
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"groups must be an integer >= 1, got {groups!r}")
    s = float(step)
    if not (s > 0 and math.frexp(s)[0] == 0.5):
        raise ValueError(f"step must be a positive power of 2 (dyadic_step), got {step!r}")
    if not (math.isfinite(span) and span > 0):
        raise ValueError(f"span must be finite and > 0, got {span!r}")
    band = int(math.ceil(span / s))
    if groups * band >= 2**40:
        raise ValueError(f"span / step = {span / s:.3g} is too many grid steps for {groups} groups")
    offsets = np.arange(-band, band + 1)
    h_band = np.clip(
        np.asarray(curve(offsets * s), dtype=np.float64), 0.0, 1.0
    )  # H at the exact differences
    curves: list[Curve] = [curve]
    k_prev = offsets  # G_1 tabulated at k s for k in [-band, band] (H itself)
    g_prev = h_band
    for j in range(2, int(groups) + 1):
        k_new = np.arange(-j * band, j * band + 1)
        g_new = _min_plus(k_prev, g_prev, h_band, band, k_new, s)
        curves.append(_tabulated(k_new, g_new, s))
        k_prev, g_prev = k_new, g_new
    return curves


def _min_plus(
    k_prev: np.ndarray,
    g_prev: np.ndarray,
    h_band: np.ndarray,
    band: int,
    k_new: np.ndarray,
    s: float,
) -> np.ndarray:
    """min over splits a = k_i s of G_{j-1}(a) + e^a H(eps_k - a), |k - k_i| <= band, raised; capped at 1."""
    with np.errstate(over="ignore"):
        weight = np.exp(k_prev * s) * (
            1.0 + ROUNDING
        )  # inf beyond e^709: only where H is 0 does it count
    offsets = np.arange(-band, band + 1)
    out = np.ones(k_new.size)
    for start in range(0, k_new.size, ROWS):
        i = (
            k_new[start : start + ROWS, None] - k_prev[0] - offsets[None, :]
        )  # split a = k_i s, b = offsets s
        valid = (i >= 0) & (i < k_prev.size)
        ii = np.clip(i, 0, k_prev.size - 1)
        h = np.broadcast_to(h_band[None, :], i.shape)
        with np.errstate(invalid="ignore", over="ignore"):
            second = np.where(h > 0, weight[ii] * h, 0.0)
        total = (g_prev[ii] + second) * (1.0 + ROUNDING)
        out[start : start + ROWS] = np.min(np.where(valid, total, np.inf), axis=1, initial=1.0)
    return np.minimum.accumulate(np.minimum(out, 1.0))


def _tabulated(k: np.ndarray, values: np.ndarray, s: float) -> Curve:
    """The curve read at the grid point at or below eps (1 below the grid, the last value above it)."""

    def curve(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=np.float64)
        index = np.floor(e / s) - k[0]
        # e / s is exact for dyadic s unless it under/overflows; one index lower is always safe
        index = np.where(index * s + k[0] * s > e, index - 1, index)
        out = np.ones(e.shape)
        inside = index >= 0
        out[inside] = values[np.minimum(index[inside], k.size - 1).astype(np.int64)]
        return out

    return curve
