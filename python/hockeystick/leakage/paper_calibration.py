"""Paper 001, Lemmas 5.6 and 5.8 (eq. 14, eq. 35): the distortion the paper prescribes for a leakage budget.

Lemma 5.6 (eq. 14): if TV(P, P~) >= C_1 - tau, the leakage eps_p is at most tau, where
C_1 = (1/K) sum_k sqrt(JS(F^(k) || F~^(k))) (eq. 13) and tau the budget tau_{p,t}^(k).
Lemma 5.8 (eq. 35): with 0 < C_1 - tau < 0.01, the noise variance

    sigma_eps^2 = 100 sigma^2 (C_1 - tau) / sqrt(d)

makes Lemma 5.7's lower bound equal C_1 - tau (eq. 36), hence (Lemma 5.6) eps_p <= tau.  The
validity range is the paper's: outside it the lower bound's min{1, .} is 1 and the step of eq. 36
fails, so it is refused here.  Algorithm 1 uses this variance (var_t^(k)).

Paper formulas, not guarantees: Lemma 5.6's proof cites an inequality (eq. 32, eps_p <= C_1 - TV)
that Lemma 5.5 does not give; see docs/paper-001-errata.md.  The variance that meets a TV target
exactly is :func:`hockeystick.leakage.distortion_variance_for_tv`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative, positive, positive_integer, real

__all__ = ["paper_distortion_variance", "paper_required_tv"]


def paper_required_tv(c1: npt.ArrayLike, tau: npt.ArrayLike) -> float | np.ndarray:
    """C_1 - tau, the TV that Lemma 5.6 (eq. 14) says suffices for eps_p <= tau; paper formula, not a
    guarantee.  c1 = C_1 >= 0 (eq. 13), tau >= 0 the leakage budget; needs tau < c1 (else any
    distortion meets the budget by the lemma, and there is nothing to compute)."""
    c = nonnegative(c1, "c1")
    t = nonnegative(tau, "tau")
    gap = c - t
    if not np.all(gap > 0):
        raise ValueError("tau must be < c1 (Lemma 5.6 asks for TV >= c1 - tau > 0)")
    return float(gap) if gap.ndim == 0 else gap


def paper_distortion_variance(
    variance: npt.ArrayLike, dimension: npt.ArrayLike, c1: npt.ArrayLike, tau: npt.ArrayLike
) -> float | np.ndarray:
    """sigma_eps^2 = 100 sigma^2 (C_1 - tau) / sqrt(d), Lemma 5.8 (eq. 35) and Algorithm 1's var_t^(k);
    paper formula, not a guarantee.

    variance sigma^2 > 0 (the original parameter's), dimension d >= 1, c1 = C_1 (eq. 13), tau the
    budget; all broadcast.  Raises ValueError unless 0 < c1 - tau < 0.01, the lemma's assumption.
    """
    v = positive(variance, "variance")
    d = positive_integer(dimension, "dimension")
    gap = real(c1, "c1") - real(tau, "tau")
    if not np.all((gap > 0) & (gap < 0.01)):
        bad = gap[~((gap > 0) & (gap < 0.01))] if gap.ndim else gap
        raise ValueError(
            f"Lemma 5.8 needs 0 < c1 - tau < 0.01 (got c1 - tau = {float(np.ravel(bad)[0])!r}); "
            "outside that range its eq. 36 does not hold: use distortion_variance_for_tv "
            "for the exact variance"
        )
    out = 100.0 * v * gap / np.sqrt(d)
    return float(out) if out.ndim == 0 else out
