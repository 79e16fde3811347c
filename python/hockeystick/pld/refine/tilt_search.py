"""The search of a Chernoff score's best tilt over one fixed ladder of tilts lam.

The tilted reads (``refine.tilted_question``, ``refine.tilted_factors``) compose a run under the tilt lam that maximizes a Chernoff score, a function of lam and of the
run's log-moment K(lam); every tilt gives a certified read, the search only makes it tight.  The
tilt is the best of ``LAMBDAS``: the best of every ``COARSE_STEP``-th tilt, then the best between
its two neighbours (``best_tilt``).  For one PMF composed T times (``pmf_tilt``), K = T log sum_k p_k
e^{lam l_k} costs a pass over the PMF a tilt, and the coarse tilts certified below the best score are
not evaluated (``coarse_scores``): K is convex, so secants through two tilts evaluated bound it from
below beyond them, and a score non-increasing in K from above there.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ... import _core
from ..compose.log_moments import log_mgf_at, log_mgf_bounds_at
from ..grid.pmf import GridPMF

# the tilts tried, lam = theta / h, for the Chernoff optima: the core's ladder
# (cpp/include/hockeystick/pld/grid/tilt_ladders.hpp, the C library's too), 481 geometric from 1e-2
# to 1e6; searched every COARSE_STEP-th first (``best_tilt``)
LAMBDAS: np.ndarray = _core.pld_reads.tilt_lambdas()
COARSE_STEP = 8


def best_tilt(
    score: Callable[[np.ndarray], np.ndarray],
    coarse: Callable[[np.ndarray], np.ndarray] | None = None,
) -> float:
    """The lam among ``LAMBDAS`` maximizing ``score`` (a vectorized function of lam; non-finite
    values never win): the best of every ``COARSE_STEP``-th tilt, then the best of the tilts between
    its two neighbours.  Where the score is unimodal in lam (the Chernoff objectives are: K is
    convex), that is the best of all ``LAMBDAS`` at an eighth of their evaluations; every tilt is
    valid for the certified reads, the search only makes them tight.  ``coarse``: the scores at the
    every ``COARSE_STEP``-th tilts, where given, -inf at those certified below the best of them
    (``coarse_scores``): the same best, from fewer evaluations."""
    with np.errstate(over="ignore", invalid="ignore"):
        every = LAMBDAS[::COARSE_STEP]
        coarse_values = np.asarray(
            score(every) if coarse is None else coarse(every), dtype=np.float64
        )
        best = (
            int(np.argmax(np.where(np.isfinite(coarse_values), coarse_values, -np.inf)))
            * COARSE_STEP
        )
        near = LAMBDAS[max(0, best - COARSE_STEP + 1) : best + COARSE_STEP]
        fine = np.asarray(score(near), dtype=np.float64)
    return float(near[int(np.argmax(np.where(np.isfinite(fine), fine, -np.inf)))])


# ``coarse_scores``: the tilts evaluated first, every SEARCH_STRIDE-th of the ladder given and its
# last; a tilt skipped where its certified score bound b and the best score found s meet b < s -
# SKIP_GAP (1 + |s| + |b|)
SEARCH_STRIDE = 4
SKIP_GAP = 1e-6


def _secant_floors(
    lams: np.ndarray, known: np.ndarray, k: np.ndarray, low: np.ndarray, at: np.ndarray
) -> np.ndarray:
    """Lower bounds on K at ``lams[at]`` from the secants of the nearest two tilts evaluated on
    each side (``known``: their indices, increasing; ``k``, ``low``: K rounded up and down there,
    ``log_mgf_bounds_at``), -inf where neither side has two.  A secant's value beyond its two tilts
    grows with K at the nearer one and falls with K at the farther one, so it is taken through the
    lower side at the nearer tilt and the upper side at the farther one."""
    pos = np.searchsorted(known, at)
    out = np.full(at.size, -np.inf)
    x = lams[at]
    left = pos >= 2  # K(x) >= K(b) + (K(b) - K(a)) (x - b) / (b - a), x > b > a
    if left.any():
        a, b = pos[left] - 2, pos[left] - 1
        la, lb = lams[known[a]], lams[known[b]]
        slope = (low[b] - k[a]) / (lb - la)
        out[left] = low[b] + slope * (x[left] - lb)
    right = pos + 1 < known.size  # K(x) >= K(a) - (K(b) - K(a)) (a - x) / (b - a), x < a < b
    if right.any():
        a, b = pos[right], pos[right] + 1
        la, lb = lams[known[a]], lams[known[b]]
        slope = (k[b] - low[a]) / (lb - la)
        out[right] = np.maximum(out[right], low[a] - slope * (la - x[right]))
    return out


def coarse_scores(
    pmf: GridPMF,
    rounds: float,
    score: Callable[[np.ndarray, np.ndarray], np.ndarray],
    lams: np.ndarray,
) -> np.ndarray:
    """``score(lams, rounds * K(lams))`` (K = ``log_mgf_at(pmf, lams)``) at the tilts evaluated,
    -inf at those certified below the best score: the coarse scores of ``pmf_tilt``'s search.

    Each K(lam) costs a pass over the PMF (about 1e5 cells for a subsampled Gaussian round on the
    fine grid), and the Chernoff scores are unimodal in lam, so most of the ladder is far below the
    best.  K is convex (a log-sum-exp of lines in lam), so two of its values on one side of a tilt
    bound it from below there by their secant, and a score non-increasing in T K from above; every
    ``SEARCH_STRIDE``-th tilt and the last are evaluated first, then, until none is left, each tilt
    not certified below the best score found.  The secants take certified sides of K: the core
    rounds each K(lam) up and down (``log_mgf_bounds_at``; pld/grid/moments.hpp: the computed value
    plus and less one raise, which bounds its distance to K).  A tilt is skipped only where its
    bound is below the best by ``SKIP_GAP`` of the scores' magnitudes, far above their arithmetic's
    rounding.  The scores of the tilts evaluated are those every tilt evaluated gives
    (``log_mgf_bounds_at`` takes each lam on its own; the score is elementwise) and a tilt skipped
    scores strictly below the best, so the best (the first, where several tie) is the same tilt,
    bit for bit.

    Parameters
    ----------
    pmf : GridPMF
        The PMF whose log-moment K the score reads.
    rounds : float
        The rounds T (> 0) K is summed over.
    score : callable
        ``score(lam, t)``: the score at the tilts ``lam`` (> 0) given T K there, elementwise,
        non-increasing in ``t`` at every lam.
    lams : numpy.ndarray
        The tilts, increasing and > 0.

    Returns
    -------
    numpy.ndarray
        The scores; -inf where skipped.

    Raises
    ------
    ValueError
        If ``lams`` is not increasing and > 0, or ``rounds`` is not > 0.
    """
    lams = np.asarray(lams, dtype=np.float64)
    if not (lams.size and lams[0] > 0.0 and np.all(np.diff(lams) > 0.0)):
        raise ValueError("lams must be increasing and > 0 (the tilts of a search)")
    if not rounds > 0.0:
        raise ValueError(f"rounds must be > 0, got {rounds!r}")
    m = lams.size
    out = np.full(m, -np.inf)
    k_all = np.full(m, np.nan)  # K rounded up where evaluated
    low_all = np.full(m, np.nan)  # K rounded down there
    done = np.zeros(m, dtype=bool)
    at = np.arange(0, m, SEARCH_STRIDE)
    if at[-1] != m - 1:  # numpy's unique would import numpy.ma, which a first answer need not load
        at = np.append(at, m - 1)
    with np.errstate(over="ignore", invalid="ignore"):
        while at.size:
            low, k = log_mgf_bounds_at(pmf, lams[at])
            out[at] = score(lams[at], rounds * k)
            k_all[at], low_all[at] = k, low
            done[at] = True
            finite = out[done & np.isfinite(out)]
            if finite.size == 0:  # no best to skip below: every tilt
                at = np.flatnonzero(~done)
                continue
            best = float(np.max(finite))
            known = np.flatnonzero(np.isfinite(k_all) & np.isfinite(low_all))
            at = np.flatnonzero(~done)
            if not at.size:
                break
            floors = _secant_floors(lams, known, k_all[known], low_all[known], at)
            bound = np.where(np.isfinite(floors), score(lams[at], rounds * floors), np.nan)
            skip = bound < best - SKIP_GAP * (1.0 + abs(best) + np.abs(bound))
            done[at[skip]] = True
            at = at[~skip]
    return out


def pmf_tilt(
    pmf: GridPMF, rounds: float, score: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> float:
    """``best_tilt`` of ``score(lam, rounds K(lam))``, its coarse tilts certified below the best
    skipped (``coarse_scores``).

    Parameters
    ----------
    pmf : GridPMF
        The PMF whose log-moment K (``log_mgf_at``) the score reads.
    rounds : float
        The rounds T (> 0) K is summed over.
    score : callable
        ``score(lam, t)``: the score at the tilts ``lam`` given T K there, elementwise,
        non-increasing in ``t`` at every lam.

    Returns
    -------
    float
        The tilt lam of ``LAMBDAS`` ``best_tilt`` finds.

    Raises
    ------
    ValueError
        If ``rounds`` is not > 0.
    """
    return best_tilt(
        lambda lam: score(lam, rounds * log_mgf_at(pmf, lam)),
        lambda lam: coarse_scores(pmf, rounds, score, lam),
    )
