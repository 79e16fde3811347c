"""RDP of the Gaussian mechanism on a sample drawn without replacement (fixed size m of n), replace-one.

Wang, Balle, Kasiviswanathan, "Subsampled Renyi differential privacy and analytical moments
accountant", AISTATS 2019 (arXiv:1808.00087), Thm 9 with the Gaussian refinement of Thm 27: with
q = m / n and a base mechanism of replace-one RDP eps(alpha), for every integer alpha >= 2

    A_alpha = 1 + q^2 C(alpha, 2) min{4 (e^{eps(2)} - 1), 2 e^{eps(2)}}
                + sum_{j=3}^{alpha} q^j C(alpha, j) min{4 Xi_j, 2 e^{(j-1) eps(j)}},
    RDP(alpha) <= log(A_alpha) / (alpha - 1),

where, for the Gaussian (eps(alpha) = alpha r^2 / 2 at radius r, so e^{(y-1) eps(y)} = h(y) = e^{c y
(y - 1)}, c = r^2 / 2), Xi_j is the j-th forward difference Delta^j h(0) for even j and the
geometric mean of Delta^{j-1} h(0) and Delta^{j+1} h(0) for odd j.  Even differences are positive
(Delta^{2k} h(0) = h^{(2k)}(xi) and every even derivative of e^{c (y - 1/2)^2} is positive); they
are computed exactly enough in mpmath (the alternating sum loses up to j log10 2 + (j/2) log10(1/c)
digits, so the working precision covers that).  As dp_accounting does (``rdp_privacy_accountant``),
orders above ``REFINED_ORDERS`` keep only the 2 e^{(j-1) eps(j)} term (a valid, looser bound), and a
fractional order interpolates log A linearly between its neighbouring integers (Cor. 10 there: log
A_alpha is convex in alpha), so the values agree with dp_accounting's to round-off.

Radius.  ``radius`` is the Gaussian's shift in units of its standard deviation between the
outputs on the two neighbouring samples (the replace-one sensitivity over sigma).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import cast

import numpy as np
import numpy.typing as npt

REFINED_ORDERS = 256


def _log_binomial(n: int, k: np.ndarray) -> np.ndarray:
    from scipy.special import (
        gammaln,
    )  # lazy: scipy start-up time (import hockeystick loads no scipy)

    return cast(np.ndarray, gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1))


@lru_cache(maxsize=64)
def log_even_differences(c: float, top: int) -> np.ndarray:
    """log Delta^j h(0) for j = 0 .. top (even entries; odd entries unused), h(y) = e^{c y (y - 1)}.

    Cached per (c, top): an accountant asks again for every event of the same noise.
    """
    import mpmath  # lazy: mpmath start-up time, needed only by this high-precision path

    digits = 40 + int(top * math.log10(2.0) + 0.5 * top * max(0.0, math.log10(1.0 / c)))
    out = np.full(top + 1, -np.inf)
    with mpmath.workdps(digits):
        cc = mpmath.mpf(c)
        values = [mpmath.e ** (cc * k * (k - 1)) for k in range(top + 1)]
        binom = [mpmath.mpf(1)]
        for j in range(top + 1):
            if j > 0:
                binom = (
                    [binom[0]] + [binom[i - 1] + binom[i] for i in range(1, j)] + [mpmath.mpf(1)]
                )
            if j % 2 == 0:
                total = mpmath.fsum((-1) ** (j - k) * binom[k] * values[k] for k in range(j + 1))
                out[j] = float(mpmath.log(total)) if total > 0 else -np.inf
    out.setflags(write=False)
    return out


def _log_a_integer(q: float, c: float, alpha: int, diffs: np.ndarray | None) -> float:
    """log A_alpha above at an integer alpha >= 2 (``diffs`` None: without the Xi terms)."""
    log_q = math.log(q)
    eps2 = 2.0 * c  # eps(2) = 2 c
    first = (
        2.0 * log_q
        + float(_log_binomial(alpha, np.array(2.0)))
        + min(math.log(4.0) + eps2 + math.log(-math.expm1(-eps2)), math.log(2.0) + eps2)
    )
    j = np.arange(3, alpha + 1, dtype=np.float64)
    simple = math.log(2.0) + c * j * (j - 1.0)  # log 2 e^{(j-1) eps(j)}
    if diffs is not None:
        ji = np.arange(3, alpha + 1)
        lo, hi = diffs[2 * (ji // 2)], diffs[2 * ((ji + 1) // 2)]
        simple = np.minimum(simple, math.log(4.0) + 0.5 * (lo + hi))
    terms = np.concatenate([[0.0, first], j * log_q + _log_binomial(alpha, j) + simple])
    return float(np.logaddexp.reduce(terms))


def sampled_without_replacement_gaussian_rdp(
    radius: float, sampling_rate: float, orders: npt.ArrayLike
) -> np.ndarray:
    """RDP at ``orders`` (each > 1) of the Gaussian of ``radius`` on a sample of rate q = m / n, replace-one."""
    r, q = float(radius), float(sampling_rate)
    if not (r >= 0 and math.isfinite(r)):
        raise ValueError(f"radius must be finite and >= 0, got {radius!r}")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"sampling_rate must lie in [0, 1], got {sampling_rate!r}")
    o = np.asarray(orders, dtype=np.float64)
    if np.any(~(o > 1)):
        raise ValueError(f"orders must be > 1 (order 1 is a limit), got {o.min()!r}")
    c = r * r / 2.0
    if q == 0 or r == 0:
        return np.zeros_like(o)
    if q == 1:
        return o * c
    finite = o[np.isfinite(o)]
    top = int(math.ceil(finite.max())) if finite.size else 2
    need = min(top, REFINED_ORDERS) + 1
    diffs = log_even_differences(c, need + (need % 2)) if need >= 3 else None
    cache: dict[int, float] = {1: 0.0}

    def log_a(alpha: int) -> float:
        if alpha not in cache:
            cache[alpha] = _log_a_integer(q, c, alpha, diffs if alpha <= REFINED_ORDERS else None)
        return cache[alpha]

    out = np.empty_like(o)
    for i, a in enumerate(o.ravel()):
        if not math.isfinite(a):
            out.flat[i] = np.inf
        elif float(a).is_integer():
            out.flat[i] = log_a(int(a)) / (a - 1.0)
        else:
            lo, hi = math.floor(a), math.ceil(a)
            t = a - lo
            out.flat[i] = ((1.0 - t) * log_a(lo) + t * log_a(hi)) / (a - 1.0)
    return out
