"""The standard normal tail Q, its logarithm, its inverse and the Mills ratio.

Q(x) = P(N(0,1) > x) = phi(x) M(x), with the Mills ratio M(x) = sqrt(pi/2) erfcx(x/sqrt 2)
from W. J. Cody's rational approximations (Math. Comp. 23, 1969); see
cpp/include/hockeystick/gaussian_tail.hpp for the regimes.  Relative error
<= 1e-12 against 50-digit mpmath wherever the value is >= 1e-300; log Q stays
finite and accurate far below that.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np

from .. import _core
from ..base.elementwise import ArrayLike, FloatOrArray, NonScalar, apply, broadcast_float_arrays

_ASYMPTOTIC_LOG_TAIL = 1e150  # above, log Q(x) is formed in Python (the C++ x^2 overflows past 1.34e154)

__all__ = ["gaussian_tail", "log_gaussian_tail", "gaussian_tail_inverse", "mills_ratio"]


@overload
def gaussian_tail(x: float, *, threads: int | None = None) -> float: ...
@overload
def gaussian_tail(x: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def gaussian_tail(x: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """Q(x) = P(N(0,1) > x) = erfc(x / sqrt 2) / 2, element-wise with broadcasting.

    Computed as phi(x) M(x) for x >= 0 and 1 - Q(-x) below, so every value keeps
    full relative precision (no ``1 - Phi`` cancellation).
    """
    return apply(_core.gaussian_tail, threads, x=x)


@overload
def log_gaussian_tail(x: float, *, threads: int | None = None) -> float: ...
@overload
def log_gaussian_tail(x: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def log_gaussian_tail(x: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """log Q(x) = -x^2/2 - log sqrt(2 pi) + log M(x) (x >= 0), log1p(-Q(-x)) (x < 0).

    Finite for x below sqrt(2 DBL_MAX) = 1.9e154 (for example log Q(1e4) = -5.0e7); above, the
    value is below -DBL_MAX and rounds to -inf.  For x > 1e150 the asymptotic
    log Q(x) = -x^2/2 - log x - log sqrt(2 pi) + O(x^-2) is used (x^2 is formed as (x / sqrt 2)^2
    so it does not overflow early; the O(x^-2) term is below 1e-300).
    """
    (arr,), _, scalar = broadcast_float_arrays(x=x)
    large = arr > _ASYMPTOTIC_LOG_TAIL
    if not large.any():
        return apply(_core.log_gaussian_tail, threads, x=arr)
    out = np.asarray(apply(_core.log_gaussian_tail, threads, x=np.where(large, 0.0, arr)), dtype=np.float64)
    big = arr[large]
    with np.errstate(over="ignore"):
        out[large] = -np.square(big * math.sqrt(0.5)) - np.log(big) - 0.5 * math.log(2.0 * math.pi)
    return float(out) if scalar else out


@overload
def gaussian_tail_inverse(p: float, *, threads: int | None = None) -> float: ...
@overload
def gaussian_tail_inverse(p: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def gaussian_tail_inverse(p: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """Q^{-1}(p): the x with Q(x) = p, for p in [0, 1] (Q^{-1}(0) = inf, Q^{-1}(1) = -inf).

    Abramowitz & Stegun 26.2.23 as a start, then Newton steps on log Q.
    """
    return apply(_core.gaussian_tail_inverse, threads, p=p)


@overload
def mills_ratio(x: float, *, threads: int | None = None) -> float: ...
@overload
def mills_ratio(x: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def mills_ratio(x: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """Mills ratio M(x) = Q(x) / phi(x) = sqrt(pi/2) erfcx(x / sqrt 2)."""
    return apply(_core.mills_ratio, threads, x=x)
