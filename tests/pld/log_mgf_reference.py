"""The log-moment of a grid PMF at 50 digits: the reference the core's K(lam) = log sum_k p_k e^{lam l_k}
(pld/grid/moments.hpp, ``GridPMF.log_mgf`` and ``_core.pld_grid.log_mgf_bounds``) is tested against."""

from __future__ import annotations

import mpmath as mp
import numpy as np


def exact_log_mgf(p: np.ndarray, k_lo: int, h: float, lam: float) -> mp.mpf:
    """log sum_k p_k e^{lam (k_lo + k) h} over the positive masses, each double taken exactly, at 50 digits."""
    with mp.workdps(50):
        return mp.log(
            mp.fsum(
                mp.mpf(float(pk)) * mp.exp(mp.mpf(lam) * (k_lo + k) * mp.mpf(h))
                for k, pk in enumerate(p)
                if pk > 0
            )
        )
