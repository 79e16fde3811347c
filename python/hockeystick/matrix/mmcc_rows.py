"""MMCC's per-row mixtures: a law of row i's shift that stochastically dominates the conditional
one, shared by groups of rows.

Row i's shift, given the rows before it and outside the charged tail events
(``mmcc_participation``), is X_i = sum_j C_ij S_j with the posterior pattern S coupled below
independent B_j ~ Bernoulli(q~_ij) (each conditional probability of S_j given y[:i] and S_1..S_{j-1}
is at most q~_ij: a sequential coupling, S_j = [U_j <= P(S_j = 1 | ...)] <= [U_j <= q~_ij] = B_j,
U_j uniform).  C_ij >= 0 makes X_i <= sum_j C_ij B_j on that coupling (the sign condition again),
and for shifts >= 0 a larger shift, in the sense of such a coupling, dominates the mixture pair in
both directions: the likelihood ratio of E N(X, z^2) to N(0, z^2) is non-decreasing in y, so each
hockey-stick divergence is attained on a half-line, whose mass under the mixture only grows
(Choquette-Choo, Ganesh, Steinke & Thakurta 2024, Sec. 4).

Every step below replaces the law by one that dominates it in that sense, so the factor stays an
upper side:

1. rows are grouped (runs of release rounds of geometric length, split by the binary order of the
   row's count of non-zero entries, which keeps a tree's levels apart); a group's factor takes, lag
   by lag (lag d = the row's release round - j), the largest C and the largest q~ of its rows: each
   row's shift is below it on a coupling lag by lag;
2. each C is rounded up to a whole number of a power-of-two step h (about ``cells`` steps for the
   total);
3. the law of the sum of whole numbers is computed by the Bernoulli recursion, each probability with
   relative error at most gamma_{4 L} (L terms, all additions of non-negative numbers; Higham 2002,
   Lemma 3.1), so every upper tail T(t) = P(X >= t) is at most the computed one times 1 +
   gamma_{4L} + gamma_{size}: the tails used are that product rounded up to a multiple of 2^-52 (capped at 1,
   T(0) = 1), whose differences are exact doubles summing to exactly 1;
4. where the law's upper tail falls to ``cut`` or below (at least 1e-300 below it, which covers
   every underflow of the recursion), the law is replaced by its conditional law below that point,
   whose tails are at most the computed ones times 1 / (1 - cut) <= 1 + 2 cut: the mass dropped is
   at most ``cut``, and ``mmcc`` charges it (with ``cut`` = 0 nothing is dropped).  Without it every
   tail below 2^-52 would be raised to 2^-52 and the largest conceivable shift kept with that
   weight: a tree's root row, whose shift stays below 180 but could reach 2048, would span a loss
   range a hundred times wider than its law needs;
5. the atoms are the law's own (each sum of whole steps with positive weight) where they are at most
   as many as the coarse grid's points, and are otherwise moved up to that coarser grid (every whole
   step up to 64, then steps growing by 1/64): the mixture's components.  A row with one entry (C =
   I: DP-SGD) keeps its two atoms exactly.

Removing mass eta from a row's law P = (1 - eta) P_c + eta R changes the pair's remove direction by
at most eta (total variation) and its add direction by at most a factor 1 - eta on P, i.e. epsilon
by -log(1 - eta) (``mmcc``, step 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .round_off import compose, gamma

__all__ = ["MAX_CUT", "RowFactor", "dominating_law", "row_factors"]

_FINE = 64  # whole steps kept exactly before the coarse grid grows geometrically, by 1 / _FINE
_TAIL_UNIT = 2.0**52
_LEAST_STEP = 5e-324  # 2^-1074, the least subnormal: the finest lattice step
_UNDERFLOW = (
    1e-300  # above the recursion's total absolute underflow error (at most size * terms * 2^-1074)
)
MAX_CUT = 2.0**-10  # the largest mass a law may drop (step 4 needs 1 / (1 - cut) <= 1 + 2 cut)


@dataclass(frozen=True)
class RowFactor:
    """A mixture dominating each of ``rows`` rows' conditional shift: shifts (exact doubles) and
    weights (exact multiples of 2^-52 summing to 1)."""

    shifts: np.ndarray
    weights: np.ndarray
    rows: int


def _coarse_points(size: int) -> np.ndarray:
    """Whole steps 0.._FINE, then ceil(_FINE (1 + 1/_FINE)^k), up to the first point >= size - 1."""
    points = list(range(_FINE + 1))
    k = 1
    while points[-1] < size - 1:
        points.append(max(points[-1] + 1, math.ceil(_FINE * (1.0 + 1.0 / _FINE) ** k)))
        k += 1
    return np.asarray(points, dtype=np.int64)


def _upper_tails(law: np.ndarray, terms: int, cut: float) -> np.ndarray:
    """Tails T(t) >= P(X >= t) of the exact law (its conditional law below the first point whose
    tail is at most ``cut``), multiples of 2^-52 non-increasing from T(0) = 1 (steps 3 and 4)."""
    tails = np.cumsum(law[::-1])[
        ::-1
    ]  # non-increasing: sums of non-negative numbers, rounded monotonically
    factor = 1.0 + compose(gamma(4 * terms + 4), gamma(law.size + 2))
    raised = np.nextafter(tails * factor, np.inf)
    if cut > 0.0:
        dropped = np.flatnonzero(raised + _UNDERFLOW <= cut)
        if dropped.size:  # the first such point is >= 1: raised[0] >= 1 > cut
            raised = np.nextafter(raised[: int(dropped[0])] * (1.0 + 2.0 * cut), np.inf)
    out = np.minimum(np.ceil(raised * _TAIL_UNIT) / _TAIL_UNIT, 1.0)
    out[0] = 1.0
    return out


def dominating_law(
    entries: np.ndarray, probabilities: np.ndarray, cells: int, cut: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """(shifts, weights) of a law dominating that of sum_d entries_d B_d, B_d ~
    Bernoulli(probabilities_d) independent, after dropping at most ``cut`` of its upper tail (steps
    2-5 of the module docstring).

    Parameters
    ----------
    entries : numpy.ndarray
        The entries, each > 0.
    probabilities : numpy.ndarray
        Their probabilities, each in [0, 1].
    cells : int
        About how many lattice steps the entries' total spans.
    cut : float, default 0.0
        The mass the law may drop from its upper tail, in [0, ``MAX_CUT``].

    Returns
    -------
    tuple of numpy.ndarray
        The shifts (increasing exact doubles) and their weights (multiples of 2^-52 summing to 1).

    Raises
    ------
    ValueError
        ``cut`` outside [0, ``MAX_CUT``].
    """
    if not 0.0 <= cut <= MAX_CUT:
        raise ValueError(
            f"cut must lie in [0, {MAX_CUT}] (2^-10), got {cut!r}: the cut law's tails are raised by 1 + 2 cut"
        )
    total = math.fsum(entries.tolist())
    # a power of two, about total / cells; no finer than the least subnormal, which every entry is a
    # whole multiple of (total / cells underflows to 0 where the entries are subnormal: log2 would
    # refuse it)
    share = total / cells
    step = 2.0 ** math.ceil(math.log2(share)) if share > 0.0 else _LEAST_STEP
    units = np.ceil(entries / step).astype(np.int64)
    order = np.argsort(units, kind="stable")
    size = int(units.sum()) + 1
    law = np.zeros(size)
    law[0] = 1.0
    reach = 0
    for u, p in zip(units[order].tolist(), probabilities[order].tolist()):
        taken = p * law[: reach + 1]
        law[: reach + 1] *= 1.0 - p
        law[u : u + reach + 1] += taken
        reach += u
    tails = _upper_tails(law, entries.size, cut)
    size = tails.size
    weights = tails - np.append(tails[1:], 0.0)  # exact: multiples of 2^-52 in [0, 1]
    points = _coarse_points(size)
    atoms = np.flatnonzero(weights)
    if atoms.size <= points.size:  # few atoms: the law's own, no coarser than the grid would give
        return atoms * step, weights[atoms]
    where = np.searchsorted(points, np.arange(size), side="left")
    merged = np.bincount(
        where, weights=weights, minlength=points.size
    )  # exact sums of multiples of 2^-52
    keep = merged > 0
    return points[keep] * step, merged[keep]


def _groups(c: np.ndarray, release: np.ndarray) -> list[np.ndarray]:
    """Rows (indices, release order) in runs of release rounds of geometric length (rounds
    [2^(k/4) - 1, 2^((k+1)/4) - 1)), split by the binary order of their count of non-zero entries (a tree's
    levels)."""
    live = np.flatnonzero(c.sum(axis=1) > 0)
    runs = np.floor(4.0 * np.log2(release[live] + 1.0)).astype(np.int64)
    levels = np.floor(np.log2(np.count_nonzero(c[live], axis=1))).astype(np.int64)
    keys = runs * 64 + levels
    return [live[keys == key] for key in np.unique(keys)]


def _by_lag(
    c: np.ndarray, bounds: np.ndarray, rows: np.ndarray, release: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Lag by lag, the largest C and the largest q~ (where C > 0) over ``rows`` (step 1)."""
    width = int(release[rows].max()) + 1
    entries = np.zeros(width)
    probabilities = np.zeros(width)
    for i in rows.tolist():
        t = int(release[i])
        row = c[i, : t + 1][::-1]
        np.maximum(entries[: t + 1], row, out=entries[: t + 1])
        np.maximum(
            probabilities[: t + 1],
            np.where(row > 0, bounds[i, : t + 1][::-1], 0.0),
            out=probabilities[: t + 1],
        )
    return entries, probabilities


def row_factors(
    c: np.ndarray, bounds: np.ndarray, release: np.ndarray, cells: int, cut: float = 0.0
) -> list[RowFactor]:
    """The dominating mixtures of C's rows (release order), identical laws merged.

    Parameters
    ----------
    c : numpy.ndarray
        C (m x n), entries >= 0, at least the exact ones.
    bounds : numpy.ndarray
        q~ (m x n), from ``participation_bounds``.
    release : numpy.ndarray
        Each row's release round (its last non-zero column).
    cells : int
        About how many lattice steps the largest group total spans (step 2).
    cut : float, default 0.0
        The mass each row's law may drop from its upper tail (step 4), in [0, ``MAX_CUT``]; the
        caller charges it once per row.

    Returns
    -------
    list of RowFactor
        One per distinct law, with the number of rows it dominates.
    """
    found: dict[bytes, RowFactor] = {}
    for rows in _groups(c, release):
        entries, probabilities = _by_lag(c, bounds, rows, release)
        keep = entries > 0
        shifts, weights = dominating_law(entries[keep], probabilities[keep], cells, cut)
        key = shifts.tobytes() + weights.tobytes()
        known = found.get(key)
        found[key] = RowFactor(shifts, weights, rows.size + (known.rows if known else 0))
    return list(found.values())
