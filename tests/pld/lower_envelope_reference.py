"""An optimistic grid PMF's lower side raised to its suffix maxima, written straightforwardly in numpy: the reference
the core's read (cpp/include/hockeystick/pld/reads/lower_envelope.hpp, ``GridPMF.delta``'s optimistic side and a
delta refinement step's bracket) is tested against.

The charged lower value at every grid point l_j (``charged_lower``, unmoved: the charge is constant between grid
points), its suffix maxima by ``np.maximum.accumulate`` over the reversed curve (0 past the top), and at each eps
the largest of its own value and the suffix maxima from the first grid point at or above its curve argument.
"""

from __future__ import annotations

import numpy as np

from hockeystick.pld.grid import GridPMF


def suffix_maxima(pmf: GridPMF) -> np.ndarray:
    """Entry k (0 <= k <= n): max over grid points l_j, j >= k, of the charged lower curve; 0 at n."""
    curve = pmf.charged_lower(pmf.losses, 1)
    return np.append(np.maximum.accumulate(curve[::-1])[::-1], 0.0)


def enveloped(pmf: GridPMF, epsilon: np.ndarray, low: np.ndarray) -> np.ndarray:
    """``low`` (the charged lower values at the true curve's ``epsilon``) raised to the suffix maxima from the first
    grid point at or above each eps' curve argument; ``low`` itself where nothing is charged."""
    if pmf.total_error == 0.0:
        return np.asarray(low, dtype=np.float64)
    at = pmf.curve_argument(np.asarray(epsilon, dtype=np.float64))
    with np.errstate(over="ignore"):  # eps near 1e308: past the top of the grid
        k = np.clip(np.ceil(at / pmf.h) - pmf.k_lo, 0, pmf.p.size).astype(np.int64)
    return np.maximum(low, suffix_maxima(pmf)[k])
