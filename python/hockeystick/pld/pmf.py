"""A privacy-loss PMF on the uniform grid l_k = k h, and its hockey-stick curve.

delta(eps) = sum_k p_k (1 - e^{eps - l_k})_+ + p_inf + shift

is evaluated in C++ (``_core.pld_delta``: suffix sums, O(grid + n_eps)), and
epsilon(delta) inverts it exactly (``_core.pld_epsilon``).  ``shift`` carries the
error charges of a composition (>= 0 on a pessimistic PMF, <= 0 on an
optimistic one); ``slack`` is the relative floating-point allowance of the
suffix sums (grid size times the unit round-off), applied in the safe direction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _core

UNIT_ROUNDOFF = np.finfo(np.float64).eps / 2


@dataclass(frozen=True)
class GridPMF:
    """Masses ``p`` at losses ``(k_lo + arange(len(p))) * h``, ``p_inf`` at +infinity."""

    k_lo: int
    h: float
    p: np.ndarray
    p_inf: float
    shift: float = 0.0
    pessimistic: bool = True

    @property
    def losses(self) -> np.ndarray:
        return (self.k_lo + np.arange(self.p.size)) * self.h

    @property
    def finite_mass(self) -> float:
        return float(self.p.sum())

    def _slack(self) -> float:
        return 4.0 * (self.p.size + 4) * UNIT_ROUNDOFF

    def delta(self, epsilon: np.ndarray, threads: int = 0) -> np.ndarray:
        eps = np.ascontiguousarray(epsilon, dtype=np.float64)
        d = _core.pld_delta(self.p, self.k_lo, self.h, self.p_inf, eps, threads)
        if self.pessimistic:
            return np.minimum(d * (1.0 + self._slack()) + self.shift, 1.0)
        return np.maximum(d * (1.0 - self._slack()) + self.shift, 0.0)

    def epsilon(self, delta: np.ndarray, threads: int = 0) -> np.ndarray:
        # delta_pmf(eps) (1 +- slack) + shift <= delta  <=>  delta_pmf(eps) <= (delta - shift) / (1 +- slack)
        given = np.asarray(delta, dtype=np.float64)
        target = given.ravel() - self.shift
        target = target / (1.0 + self._slack()) if self.pessimistic else target / (1.0 - self._slack())
        out = np.full(target.shape, np.inf)
        ok = target > 0
        out[ok] = _core.pld_epsilon(self.p, self.k_lo, self.h, self.p_inf, np.ascontiguousarray(target[ok]),
                                    threads)
        return out.reshape(given.shape)

    def log_mgf(self, lam: np.ndarray) -> np.ndarray:
        """log sum_k p_k e^{lam l_k} for each lam (the finite part; a sub-probability)."""
        lam = np.atleast_1d(np.asarray(lam, dtype=np.float64))
        keep = self.p > 0
        logp, loss = np.log(self.p[keep]), self.losses[keep]
        out = np.empty(lam.shape)
        for i, t in enumerate(lam):
            expo = logp + t * loss
            top = expo.max()
            out[i] = top + np.log(np.exp(expo - top).sum())
        return out
