"""A composed ``GridPMF``'s round-off charges (pmf.py's module docstring): the bound on the error of a
weighted sum of its grid masses, the least of entry_error times the summed weights, total_error, and
spectral_l2 times their Euclidean norm plus min(inverse_error times the summed weights, inverse_l2 times
that norm); computed by the core (pld_hockey_stick.hpp's GridCharges, pld_charged_curve.hpp), whose
scans charge the same."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ... import _core

if TYPE_CHECKING:
    from .pmf import GridPMF


def charge_of_weighted_sum(pmf: GridPMF, total: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """Round-off charge of a sum of grid masses with weights in [0, 1] whose sum is at most ``total`` and
    Euclidean norm at most ``norm`` (``count`` and sqrt(``count``) for ``count`` masses of weight 1): the
    module docstring's min(entry total, total_error, spectral_l2 norm + min(inverse total, inverse_l2 norm)),
    0 where no weight is positive (NaN where ``total`` or ``norm`` is)."""
    total, norm = np.asarray(total, dtype=np.float64), np.asarray(norm, dtype=np.float64)
    if total.shape != norm.shape:
        total, norm = np.broadcast_arrays(total, norm)
    return _core.pld_round_off_charge(
        np.ravel(total),
        np.ravel(norm),
        pmf.entry_error,
        pmf.total_error,
        pmf.spectral_l2,
        pmf.inverse_error,
        pmf.inverse_l2,
    ).reshape(total.shape)


def charge_at(pmf: GridPMF, eps: np.ndarray) -> np.ndarray:
    """Round-off charge at eps: that of the grid points above eps (one core call, pld_charged_curve.hpp's
    ``charge_at_argument``: ``GridPMF.charge_of_masses`` of their count)."""
    return _core.pld_round_off_charge_at(
        eps,
        pmf.k_lo,
        pmf.p.size,
        pmf.h,
        pmf.entry_error,
        pmf.total_error,
        pmf.spectral_l2,
        pmf.inverse_error,
        pmf.inverse_l2,
    )


def charge_table(pmf: GridPMF) -> np.ndarray:
    """Entry i (0 <= i <= n): the round-off charge at an eps whose first grid point above is i,
    ``charge_of_masses(n - i)`` (zeros when nothing is charged): ``charge_at`` read from a table."""
    n = pmf.p.size
    if pmf.total_error == 0.0:
        return np.zeros(n + 1)
    return pmf.charge_of_masses(n - np.arange(n + 1, dtype=np.float64))
