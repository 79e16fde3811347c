"""A PMF's log-moments K(lam) = log sum_k p_k e^{lam l_k}, each lam evaluated once per PMF.

The tilted reads search their tilt over one fixed ladder of lam (``refine.tilt_search.LAMBDAS``)
for every epsilon or delta they read, and tilt the factor by the moment at the lam found
(``tilted.tilted_factor``); on a PMF of millions of cells (sigma 0.02 on a grid of 5e-5: 3.3e7)
each lam costs a pass over them.  ``log_mgf_at`` keeps the values found per PMF, so the buckets of
one question, and the questions that read the same discretized round, evaluate each lam once.

The core computes each lam on its own (``pld/grid/moments.hpp``: a lane per lam, the same terms
whatever the other lams of the call), so a value kept is the value a call of that lam alone gives,
bit for bit; a PMF's values are dropped when the PMF is.  Each lam keeps both of the core's sides,
K rounded up and rounded down (``log_mgf_bounds_at``; the tilt search's secants read the lower one).
"""

from __future__ import annotations

import weakref

import numpy as np

from ... import _core
from ..grid.pmf import GridPMF

# id of a live PMF -> {lam: (K(lam) rounded down, K(lam) rounded up)}
_KEPT: dict[int, dict[float, tuple[float, float]]] = {}


def log_mgf_at(pmf: GridPMF, lam: np.ndarray) -> np.ndarray:
    """``pmf.log_mgf`` at each of ``lam``, the lams not yet evaluated for ``pmf`` in one call.

    Parameters
    ----------
    pmf : GridPMF
        The PMF (its finite part).
    lam : numpy.ndarray
        The tilts (1-d).

    Returns
    -------
    numpy.ndarray
        K(lam) at each, as ``pmf.log_mgf(lam)`` gives it.
    """
    return log_mgf_bounds_at(pmf, lam)[1]


def log_mgf_bounds_at(pmf: GridPMF, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The core's lower and upper sides of K(lam) at each of ``lam`` (``_core.pld_grid.log_mgf_bounds``,
    pld/grid/moments.hpp: the upper side ``pmf.log_mgf``'s, the lower one the computed value less the
    same raise, rounded down), the lams not yet evaluated for ``pmf`` in one call.

    Parameters
    ----------
    pmf : GridPMF
        The PMF (its finite part).
    lam : numpy.ndarray
        The tilts (1-d).

    Returns
    -------
    tuple of numpy.ndarray
        (lower, upper): lower <= K(lam) <= upper at each.
    """
    lams = np.atleast_1d(np.asarray(lam, dtype=np.float64))
    if np.isnan(lams).any():  # NaN is no key
        return _bounds(pmf, lams)
    key = id(pmf)
    kept = _KEPT.get(key)
    if kept is None:
        kept = _KEPT.setdefault(key, {})
        weakref.finalize(pmf, _KEPT.pop, key, None)
    missing = list(dict.fromkeys(float(x) for x in lams if float(x) not in kept))
    if missing:
        low, up = _bounds(pmf, np.array(missing))
        kept.update(zip(missing, zip(low.tolist(), up.tolist())))
    sides = np.array([kept[float(x)] for x in lams], dtype=np.float64).reshape(-1, 2)
    return sides[:, 0], sides[:, 1]


def _bounds(pmf: GridPMF, lams: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The core's (lower, upper) sides of K at ``lams`` (contiguous doubles)."""
    return _core.pld_grid.log_mgf_bounds(
        pmf.p, k_lo=pmf.k_lo, h=pmf.h, lam=np.ascontiguousarray(lams, dtype=np.float64)
    )
