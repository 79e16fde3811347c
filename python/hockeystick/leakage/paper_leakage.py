"""Paper 001's bounds on the privacy leakage eps_p = sqrt(JS(F~ || F)) (Definition 4, eq. 5) through TV.

    xi   = max_{w, d} |log(f_{D|W}(d | w) / f_D(d))|             (Section 5.2)
    C_2  = (e^{2 xi} - 1) / 2                                     (eq. 12)
    Lemma B.3:   sqrt(JS(F~ || F)) <= C_2 TV(P~ || P)             (JS <= (e^{2 xi} - 1)^2 TV^2 / 4)
    Lemma B.1:   eps_p >= C_1 - C_2 TV                            (lower bound, Zhang et al. 2022a)
    Lemma 5.5:   eps_p <= 2 C_1 - C_2 TV,  assuming C_2 TV <= C_1 (upper bound, proof in Appendix G)

C_1 = sqrt(JS(F || F~)) for one client (eq. 13 averages it over clients).  Paper formulas, not
guarantees: the proof of Lemma 5.5 (Appendix G) shows eps_p <= C_1 + C_2 TV and then replaces it
by 2 C_1 - C_2 TV, which is smaller only when 2 C_2 TV <= C_1, not under the stated C_2 TV <= C_1;
docs/paper-001-errata.md measures these against exact values.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative

__all__ = ["c2_constant", "js_bound_from_tv", "lemma_b1_lower_bound", "lemma_5_5_upper_bound"]


def _out(x: np.ndarray) -> float | np.ndarray:
    return float(x) if x.ndim == 0 else x


def _tv(tv: npt.ArrayLike) -> np.ndarray:
    arr = nonnegative(tv, "tv")
    if not np.all(arr <= 1):
        raise ValueError(f"tv must lie in [0, 1] (got maximum {arr.max()!r})")
    return arr


def c2_constant(xi: npt.ArrayLike) -> float | np.ndarray:
    """C_2 = (e^{2 xi} - 1) / 2 (eq. 12), computed as expm1(2 xi) / 2; paper formula, not a guarantee.
    xi >= 0 is the maximal log posterior-to-prior ratio (Section 5.2)."""
    x = nonnegative(xi, "xi")
    return _out(0.5 * np.expm1(2.0 * x))


def js_bound_from_tv(xi: npt.ArrayLike, tv: npt.ArrayLike) -> float | np.ndarray:
    """C_2 TV, Lemma B.3's bound on sqrt(JS(F~ || F)) (and the TV term of Lemma 5.5); paper formula,
    not a guarantee.  xi >= 0, tv in [0, 1]; broadcast."""
    return _out(np.asarray(c2_constant(xi)) * _tv(tv))


def lemma_b1_lower_bound(c1: npt.ArrayLike, xi: npt.ArrayLike, tv: npt.ArrayLike) -> float | np.ndarray:
    """C_1 - C_2 TV, Lemma B.1's lower bound on eps_p (one client); paper formula, not a guarantee."""
    return _out(nonnegative(c1, "c1") - np.asarray(c2_constant(xi)) * _tv(tv))


def lemma_5_5_upper_bound(c1: npt.ArrayLike, xi: npt.ArrayLike, tv: npt.ArrayLike) -> float | np.ndarray:
    """2 C_1 - C_2 TV, Lemma 5.5's upper bound on eps_p (one client); paper formula, not a guarantee.

    Raises ValueError where the lemma's assumption C_2 TV <= C_1 fails.  (Its proof needs the
    stronger 2 C_2 TV <= C_1; see the module docstring.)
    """
    c = nonnegative(c1, "c1")
    term = np.asarray(c2_constant(xi)) * _tv(tv)
    if not np.all(term <= c):
        raise ValueError(
            "Lemma 5.5 assumes C_2 tv <= c1 (C_2 = (e^{2 xi} - 1) / 2); give a smaller xi or tv, or a larger c1"
        )
    return _out(2.0 * c - term)
