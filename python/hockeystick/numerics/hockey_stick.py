"""The hockey-stick divergence theta of two Gaussians, its inverses, and the Laplace case.

theta(r, eps) = E_{e^eps}(N(r,1) || N(0,1)) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2)

(paper 000 eq. 6 and Lemma 1; paper 002 Definition 1 with gamma = e^eps;
paper 004 eq. 8, where it is the privacy profile of mu-GDP with mu = r).
It is the delta(eps) of the Gaussian mechanism with sensitivity/sigma = r,
and the contraction coefficient of a projected Gaussian kernel (000 Lemma 2).

The naive formula cancels catastrophically (small r, large eps, delta far below
1e-16) and overflows for eps > 709.  hockeystick uses
theta = phi(x1) (M(x1) - M(x2)), x1 = eps/r - r/2, x2 = x1 + r, and where that
difference would still cancel, phi(x1) times the Gauss-Legendre integral of
N(t) = 1 - t M(t) over [x1, x2]; see cpp/include/hockeystick/hockey_stick.hpp.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np

from .. import _core
from ..base.elementwise import ArrayLike, FloatOrArray, NonScalar, apply, as_float_array, broadcast_float_arrays

__all__ = [
    "theta",
    "log_theta",
    "theta_depsilon",
    "theta_epsilon",
    "theta_radius",
    "laplace_hockey_stick",
    "MAX_RADIUS_EPSILON",
]

MAX_RADIUS_EPSILON = 1e307  # theta_radius forms 2 eps
_TINY_RADIUS = 2.0**-900  # below, log_theta scales r and eps up (see log_theta)
_RADIUS_SCALE = 2.0**600
_LOG_RADIUS_SCALE = 600 * math.log(2.0)


@overload
def theta(r: float, epsilon: float, *, threads: int | None = None) -> float: ...
@overload
def theta(r: NonScalar, epsilon: ArrayLike, *, threads: int | None = None) -> np.ndarray: ...
@overload
def theta(r: ArrayLike, epsilon: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def theta(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """theta_eps(r) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2)  (000 eq. 6, 002 eq. 10).

    Parameters
    ----------
    r : array_like, r >= 0
        Distance between the means in units of the noise standard deviation
        (sensitivity / sigma; mu for mu-GDP).  ``inf`` gives 1.
    epsilon : array_like, epsilon >= 0
        log gamma of the hockey-stick divergence E_gamma.  ``inf`` gives 0.
    threads : int, optional
        OpenMP threads (default: all cores for large arrays).

    Returns the exact delta(epsilon) of the Gaussian mechanism, relative error
    <= 1e-12 wherever it is >= 1e-300 (see ``log_theta`` below that).
    """
    return apply(_core.theta, threads, r=r, epsilon=epsilon)


@overload
def log_theta(r: float, epsilon: float, *, threads: int | None = None) -> float: ...
@overload
def log_theta(r: NonScalar, epsilon: ArrayLike, *, threads: int | None = None) -> np.ndarray: ...
@overload
def log_theta(r: ArrayLike, epsilon: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def log_theta(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """log theta_eps(r), finite and accurate (1e-10 absolute) far below the double range.

    log theta = log phi(x1) + log(M(x1) - M(x2)) with x1^2/2 in double-double.

    Tiny radii (0 < r < 2^-900, subnormal ones included) are evaluated as
    log theta(r s, eps s) - log s with s = 2^600: for r -> 0 at fixed x1 = eps/r - r/2,
    theta = phi(x1) (M(x1) - M(x1 + r)) = r phi(x1) N(x1) (1 + O(r max(x1, 1))), so the
    scaled point has the same x1 and theta scales by s up to a relative O(2^-300).
    """
    (r_arr, eps_arr), _, scalar = broadcast_float_arrays(r=r, epsilon=epsilon)
    tiny = (r_arr > 0) & (r_arr < _TINY_RADIUS)
    if not tiny.any():
        return apply(_core.log_theta, threads, r=r_arr, epsilon=eps_arr)
    scale = np.where(tiny, _RADIUS_SCALE, 1.0)
    with np.errstate(over="ignore"):  # eps s = inf only where eps / r > 2^1000: log theta = -inf there
        out = np.asarray(apply(_core.log_theta, threads, r=r_arr * scale, epsilon=eps_arr * scale))
    out = out - np.where(tiny, _LOG_RADIUS_SCALE, 0.0)
    return float(out) if scalar else out


@overload
def theta_depsilon(r: float, epsilon: float, *, threads: int | None = None) -> float: ...
@overload
def theta_depsilon(r: NonScalar, epsilon: ArrayLike, *, threads: int | None = None) -> np.ndarray: ...
@overload
def theta_depsilon(r: ArrayLike, epsilon: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def theta_depsilon(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """d theta / d eps = -e^eps Q(eps/r + r/2) = -phi(x1) M(x2)  (<= 0)."""
    return apply(_core.theta_depsilon, threads, r=r, epsilon=epsilon)


@overload
def theta_epsilon(r: float, delta: float, *, threads: int | None = None) -> float: ...
@overload
def theta_epsilon(r: NonScalar, delta: ArrayLike, *, threads: int | None = None) -> np.ndarray: ...
@overload
def theta_epsilon(r: ArrayLike, delta: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def theta_epsilon(r: ArrayLike, delta: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """The epsilon >= 0 solving theta(r, epsilon) = delta; 0 if theta(r, 0) <= delta already.

    This is the epsilon(delta) of the Gaussian mechanism with sensitivity/sigma = r
    (or of mu-GDP, mu = r).  delta must lie in (0, 1).  Bracketed Newton on log theta,
    started at the upper bound r (Q^{-1}(delta) + r/2).
    """
    return apply(_core.theta_epsilon, threads, r=r, delta=delta)


@overload
def theta_radius(epsilon: float, delta: float, *, threads: int | None = None) -> float: ...
@overload
def theta_radius(epsilon: NonScalar, delta: ArrayLike, *, threads: int | None = None) -> np.ndarray: ...
@overload
def theta_radius(epsilon: ArrayLike, delta: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def theta_radius(epsilon: ArrayLike, delta: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """The r > 0 solving theta(r, epsilon) = delta (the largest r that is (epsilon, delta)-DP).

    Noise calibration of the Gaussian mechanism: sigma = sensitivity / r.
    Started at r = sqrt(z^2 + 2 eps) - z, z = Q^{-1}(delta), then bracketed Newton.
    Finite epsilon must be <= 1e307 (the solve forms 2 eps, which must stay a finite double;
    r ~ sqrt(2 eps) = 4.5e153 there); epsilon = inf gives r = inf.
    """
    eps_arr = as_float_array(epsilon, "epsilon")
    too_big = (eps_arr > MAX_RADIUS_EPSILON) & np.isfinite(eps_arr)  # eps = inf: r = inf, exact
    if too_big.any():
        bad = float(np.ravel(eps_arr)[int(np.argmax(np.ravel(too_big)))])
        raise ValueError(
            f"epsilon must be <= {MAX_RADIUS_EPSILON:g} for theta_radius, got {bad!r}: "
            "the solve forms 2 epsilon, which must stay a finite double"
        )
    return apply(_core.theta_radius, threads, epsilon=eps_arr, delta=delta)


@overload
def laplace_hockey_stick(distance: float, scale: float, epsilon: float, *, threads: int | None = None) -> float: ...
@overload
def laplace_hockey_stick(
    distance: NonScalar, scale: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None
) -> np.ndarray: ...
@overload
def laplace_hockey_stick(
    distance: ArrayLike, scale: NonScalar, epsilon: ArrayLike, *, threads: int | None = None
) -> np.ndarray: ...
@overload
def laplace_hockey_stick(
    distance: ArrayLike, scale: ArrayLike, epsilon: NonScalar, *, threads: int | None = None
) -> np.ndarray: ...
def laplace_hockey_stick(
    distance: ArrayLike, scale: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None
) -> FloatOrArray:
    """E_{e^eps}(Lap(m1, b) || Lap(m2, b)) = [1 - exp((eps - |m1 - m2|/b) / 2)]_+  (002 Lemma 1).

    Parameters: ``distance`` = |m1 - m2| >= 0, ``scale`` = b > 0, ``epsilon`` >= 0.
    """
    return apply(_core.laplace_hockey_stick, threads, distance=distance, scale=scale, epsilon=epsilon)
