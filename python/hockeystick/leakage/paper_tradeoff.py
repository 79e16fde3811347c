"""Paper 001, Theorems 5.12-5.14: the privacy-utility trade-off (eps_p privacy leakage, eps_u utility loss).

    Thm 5.13 (eq. 19, no free lunch, from Zhang et al. 2022a Thm 4.1):
        eps_p + C_d eps_u >= C_1,        C_d = gamma (e^{2 xi} - 1) / (4 Delta) = gamma C_2 / (2 Delta)
    Thm 5.12:   eps_p + (C_2 / C_6) eps_u <= -(C_2 / C_6) E[Var(W~_t | W_{t-1})] + 2 C_1
    Thm 5.14:   if C_d = C_2 / C_6 and C_1 = (C_2 / C_6) E[Var(W~_t | W_{t-1})], the trade-off is optimal

C_1 = sqrt(JS(F || F~)) (one client), C_2 = (e^{2 xi} - 1) / 2 (eq. 12), C_6 > 0 Theorem 5.1's
constant, Delta > 0 Assumption C.1's, gamma in [1/150, 150] (the ratio of the clients' TV sum to the
aggregate's, remark after Thm 5.13).  Appendix O restates Thm 5.12 with C_2 / C_4 on the left and
C_2 / C_6 on the right.  Paper formulas, not guarantees (docs/paper-001-errata.md).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative, positive
from .paper_leakage import c2_constant

__all__ = ["nfl_constant", "nfl_privacy_floor", "thm_5_12_upper_bound", "thm_5_14_optimal_variance"]


def _out(x: np.ndarray) -> float | np.ndarray:
    return float(x) if x.ndim == 0 else x


def nfl_constant(gamma: npt.ArrayLike, delta: npt.ArrayLike, xi: npt.ArrayLike) -> float | np.ndarray:
    """C_d = gamma (e^{2 xi} - 1) / (4 Delta) (Thm 5.13, eq. 19); paper formula, not a guarantee.

    gamma in [1/150, 150], delta = Delta > 0 (Assumption C.1), xi >= 0; broadcast."""
    g = positive(gamma, "gamma")
    if not np.all((g >= 1 / 150) & (g <= 150)):
        raise ValueError("gamma must lie in [1/150, 150] (paper 001, remark after Theorem 5.13)")
    return _out(g * np.asarray(c2_constant(xi)) / (2.0 * positive(delta, "delta")))


def nfl_privacy_floor(c1: npt.ArrayLike, cd: npt.ArrayLike, utility_loss: npt.ArrayLike) -> float | np.ndarray:
    """C_1 - C_d eps_u: the least leakage eps_p eq. 19 allows at utility loss eps_u; paper formula,
    not a guarantee.  c1 >= 0, cd = C_d >= 0, utility_loss eps_u real; broadcast."""
    return _out(nonnegative(c1, "c1") - nonnegative(cd, "cd") * np.asarray(utility_loss, dtype=float))


def thm_5_12_upper_bound(
    c1: npt.ArrayLike, xi: npt.ArrayLike, c6: npt.ArrayLike, expected_variance: npt.ArrayLike
) -> float | np.ndarray:
    """-(C_2 / C_6) E[Var] + 2 C_1, Theorem 5.12's bound on eps_p + (C_2 / C_6) eps_u; paper formula,
    not a guarantee.  c1 >= 0, xi >= 0, c6 > 0, expected_variance >= 0; broadcast."""
    ratio = np.asarray(c2_constant(xi)) / positive(c6, "c6")
    return _out(2.0 * nonnegative(c1, "c1") - ratio * nonnegative(expected_variance, "expected_variance"))


def thm_5_14_optimal_variance(c1: npt.ArrayLike, xi: npt.ArrayLike, c6: npt.ArrayLike) -> float | np.ndarray:
    """E[Var(W~_t | W_{t-1})] = C_1 C_6 / C_2 at which Theorem 5.14 declares the trade-off optimal
    (given C_d = C_2 / C_6); paper formula, not a guarantee.  c1 >= 0, xi > 0, c6 > 0."""
    c2 = np.asarray(c2_constant(positive(xi, "xi")))
    return _out(nonnegative(c1, "c1") * positive(c6, "c6") / c2)
