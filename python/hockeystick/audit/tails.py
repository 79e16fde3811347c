"""Binomial tails and Clopper-Pearson limits rounded so that the stated coverage holds.

For X ~ Binomial(n, p) the Clopper-Pearson limits at significance ``s`` for an observed count k are

    upper(k) = the p with P(X <= k) = s   (Beta(k + 1, n - k)'s upper s-quantile; 1 at k = n),
    lower(k) = the p with P(X >= k) = s   (Beta(k, n - k + 1)'s lower s-quantile; 0 at k = 0),

(Clopper and Pearson 1934).  P(p > upper(X)) <= s and P(p < lower(X)) <= s for every p, because P(X
<= k) falls and P(X >= k) rises with p: a limit is valid when it lies on its safe side of the exact
root, whatever its distance from it.

scipy.special's quantiles (betainccinv, betaincinv) and tails (bdtr, bdtrc) carry a relative error
that grows with n (tests/audit/test_audit_tails.py checks the widened tails and the limits against
50-digit mpmath).  So every tail here is widened by ``tail_margin(n)``, a relative margin of 2^-40
(n + 16) (9.1e-7 at n = 10^6), above that error, and every limit starts from the scipy quantile at
the significance narrowed by four margins, then is stepped outward by doubling ulps until the
widened tail there is at most ``s``.  The margin moves a limit by less than 1e-5 relative at 10^6
trials: nothing a count can resolve.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np
import numpy.typing as npt

__all__ = [
    "TINY",
    "binomial_cdf_upper",
    "binomial_sf_upper",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "tail_margin",
]


TINY = 1e-290  # a tail computed below this is reported as this (where it is not exactly 0): no error bound there


def tail_margin(n: npt.ArrayLike) -> np.ndarray:
    """The relative margin covering scipy's binomial tail and Beta quantile errors at ``n`` trials:
    2^-40 (n + 16), at most 1e-3.

    Parameters
    ----------
    n : array_like
        Trials.

    Returns
    -------
    numpy.ndarray
        The margin, of ``n``'s shape.
    """
    return np.minimum(2.0**-40 * (np.asarray(n, dtype=np.float64) + 16.0), 1e-3)


def binomial_cdf_upper(k: npt.ArrayLike, n: npt.ArrayLike, p: npt.ArrayLike) -> np.ndarray:
    """An upper bound on P(X <= k), X ~ Binomial(n, p): scipy's bdtr widened by ``tail_margin(n)``,
    at least ``TINY`` where p < 1 (no error bound below it).

    Parameters
    ----------
    k, n : numpy.ndarray
        Counts (integers, 0 <= k), broadcasting; k >= n gives 1.
    p : numpy.ndarray
        Success probabilities in [0, 1].

    Returns
    -------
    numpy.ndarray
        The bound, in [0, 1].
    """
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    k, n, p = np.broadcast_arrays(
        np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64), np.asarray(p)
    )
    inside = k < n
    out = np.ones(k.shape)
    value = special.bdtr(k[inside], n[inside], p[inside]) * (1.0 + tail_margin(n[inside]))
    out[inside] = np.where(p[inside] < 1.0, np.maximum(value, TINY), value)  # 0 at p = 1 exactly
    return np.minimum(out, 1.0)


def binomial_sf_upper(k: npt.ArrayLike, n: npt.ArrayLike, p: npt.ArrayLike) -> np.ndarray:
    """An upper bound on P(X >= k), X ~ Binomial(n, p): scipy's bdtrc at k - 1 widened by
    ``tail_margin(n)``, at least ``TINY`` where p > 0.

    Parameters
    ----------
    k, n : numpy.ndarray
        Counts (integers), broadcasting; k <= 0 gives 1, k > n gives 0.
    p : numpy.ndarray
        Success probabilities in [0, 1].

    Returns
    -------
    numpy.ndarray
        The bound, in [0, 1].
    """
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    k, n, p = np.broadcast_arrays(
        np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64), np.asarray(p)
    )
    out = np.where(k <= 0, 1.0, 0.0)
    inside = (k > 0) & (k <= n)
    value = special.bdtrc(k[inside] - 1, n[inside], p[inside]) * (1.0 + tail_margin(n[inside]))
    out[inside] = np.where(p[inside] > 0.0, np.maximum(value, TINY), value)  # 0 at p = 0 exactly
    return np.minimum(out, 1.0)


def clopper_pearson_upper(
    k: npt.ArrayLike, n: npt.ArrayLike, significance: npt.ArrayLike
) -> np.ndarray:
    """The Clopper-Pearson upper limit for k successes of n at ``significance``, never below the exact one.

    Parameters
    ----------
    k, n : numpy.ndarray
        Counts, 0 <= k <= n, n >= 1, broadcasting.
    significance : float or numpy.ndarray
        The one-sided error probability, in (0, 1).

    Returns
    -------
    numpy.ndarray
        p with P(Binomial(n, p) <= k) <= significance certified by ``binomial_cdf_upper``; 1 at
        k = n.
    """
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    k, n, s = np.broadcast_arrays(
        np.asarray(k, dtype=np.int64),
        np.asarray(n, dtype=np.int64),
        np.asarray(significance, dtype=np.float64),
    )
    out = np.ones(k.shape)
    inside = k < n
    ki, ni, si = k[inside], n[inside], s[inside]
    level = si / (1.0 + 4.0 * tail_margin(ni))
    if hasattr(special, "betainccinv"):  # scipy >= 1.11
        start = special.betainccinv(ki + 1.0, (ni - ki).astype(np.float64), level)
    else:  # I_p(a, b) = 1 - I_(1-p)(b, a): coarser for small p, which the steps below then correct
        start = 1.0 - special.betaincinv((ni - ki).astype(np.float64), ki + 1.0, level)

    def ok(p: np.ndarray, i: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, binomial_cdf_upper(ki[i], ni[i], p) <= si[i])

    out[inside] = _step_until(np.nan_to_num(start, nan=1.0), ok, up=True)
    return out


def clopper_pearson_lower(
    k: npt.ArrayLike, n: npt.ArrayLike, significance: npt.ArrayLike
) -> np.ndarray:
    """The Clopper-Pearson lower limit for k successes of n at ``significance``, never above the exact one.

    Parameters
    ----------
    k, n : numpy.ndarray
        Counts, 0 <= k <= n, n >= 1, broadcasting.
    significance : float or numpy.ndarray
        The one-sided error probability, in (0, 1).

    Returns
    -------
    numpy.ndarray
        p with P(Binomial(n, p) >= k) <= significance certified by ``binomial_sf_upper``; 0 at
        k = 0.
    """
    from scipy import special  # lazy: scipy loads at its first use, not with the package

    k, n, s = np.broadcast_arrays(
        np.asarray(k, dtype=np.int64),
        np.asarray(n, dtype=np.int64),
        np.asarray(significance, dtype=np.float64),
    )
    out = np.zeros(k.shape)
    inside = k > 0
    ki, ni, si = k[inside], n[inside], s[inside]
    start = special.betaincinv(
        ki.astype(np.float64), ni - ki + 1.0, si / (1.0 + 4.0 * tail_margin(ni))
    )

    def ok(p: np.ndarray, i: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, binomial_sf_upper(ki[i], ni[i], p) <= si[i])

    out[inside] = _step_until(np.nan_to_num(start, nan=0.0), ok, up=False)
    return out


def _step_until(
    start: np.ndarray, ok: Callable[[np.ndarray, np.ndarray], np.ndarray], *, up: bool
) -> np.ndarray:
    """``start`` moved towards 1 (``up``) or 0 by doubling multiples of its ulp until ``ok`` holds;
    1 and 0 are always valid limits (P(X <= k) = 0 at p = 1 for k < n; P(X >= k) = 0 at p = 0 for k
    > 0)."""
    x: np.ndarray = np.clip(start, 0.0, 1.0)
    end = 1.0 if up else 0.0
    todo = np.flatnonzero(~ok(x, np.arange(x.size)))
    step = np.ones(todo.size)
    while todo.size:  # the steps double, so each element meets ``ok`` or the end within ~2100 steps
        ulp = np.spacing(np.maximum(x[todo], np.finfo(np.float64).tiny))
        moved = x[todo] + step * ulp if up else x[todo] - step * ulp
        x[todo] = np.minimum(moved, 1.0) if up else np.maximum(moved, 0.0)
        good = ok(x[todo], todo) | (x[todo] == end)
        todo, step = todo[~good], 2.0 * step[~good]
    return x
