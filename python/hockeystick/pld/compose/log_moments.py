"""A PMF's log-moments K(lam) = log sum_k p_k e^{lam l_k}, each lam evaluated once per PMF.

The tilted reads tilt a factor by its moment at the lam of their question (``tilted.tilted_factor``)
and sum the factors' moments over a ladder of lam (``tilted.summed_moments``,
``question.tilted_factors.summed_log_mgf``); on a PMF of millions of cells (sigma 0.02 on a grid of 5e-5: 3.3e7) each lam costs a
pass over them.  ``log_mgf_at`` keeps the values found per PMF, so the buckets of one question, and
the questions that read the same discretized round, evaluate each lam once.

The core computes each lam on its own (``pld/grid/moments.hpp``: a lane per lam, the same terms
whatever the other lams of the call), so a value kept is the value a call of that lam alone gives,
bit for bit; a PMF's values are dropped when the PMF is.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..grid.pmf import GridPMF

# id of a live PMF -> {lam: K(lam) rounded up}
_KEPT: dict[int, dict[float, float]] = {}


def log_mgf_at(pmf: GridPMF, lam: np.ndarray) -> np.ndarray:
    """``pmf.log_mgf`` at each of ``lam`` (K(lam) rounded up, pld/grid/moments.hpp), the lams not yet
    evaluated for ``pmf`` in one call.

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
    lams = np.atleast_1d(np.asarray(lam, dtype=np.float64))
    if np.isnan(lams).any():  # NaN is no key
        return pmf.log_mgf(lams)
    key = id(pmf)
    kept = _KEPT.get(key)
    if kept is None:
        kept = _KEPT.setdefault(key, {})
        weakref.finalize(pmf, _KEPT.pop, key, None)
    missing = list(dict.fromkeys(float(x) for x in lams if float(x) not in kept))
    if missing:
        kept.update(zip(missing, pmf.log_mgf(np.array(missing)).tolist()))
    return np.array([kept[float(x)] for x in lams], dtype=np.float64)
