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

from . import _core
from ._elementwise import ArrayLike, FloatOrArray, apply

__all__ = [
    "theta",
    "log_theta",
    "theta_depsilon",
    "theta_epsilon",
    "theta_radius",
    "laplace_hockey_stick",
]


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


def log_theta(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """log theta_eps(r), finite and accurate (1e-10 absolute) far below the double range.

    log theta = log phi(x1) + log(M(x1) - M(x2)) with x1^2/2 in double-double.
    """
    return apply(_core.log_theta, threads, r=r, epsilon=epsilon)


def theta_depsilon(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """d theta / d eps = -e^eps Q(eps/r + r/2) = -phi(x1) M(x2)  (<= 0)."""
    return apply(_core.theta_depsilon, threads, r=r, epsilon=epsilon)


def theta_epsilon(r: ArrayLike, delta: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """The epsilon >= 0 solving theta(r, epsilon) = delta; 0 if theta(r, 0) <= delta already.

    This is the epsilon(delta) of the Gaussian mechanism with sensitivity/sigma = r
    (or of mu-GDP, mu = r).  delta must lie in (0, 1).  Bracketed Newton on log theta,
    started at the upper bound r (Q^{-1}(delta) + r/2).
    """
    return apply(_core.theta_epsilon, threads, r=r, delta=delta)


def theta_radius(epsilon: ArrayLike, delta: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    """The r > 0 solving theta(r, epsilon) = delta (the largest r that is (epsilon, delta)-DP).

    Noise calibration of the Gaussian mechanism: sigma = sensitivity / r.
    Started at r = sqrt(z^2 + 2 eps) - z, z = Q^{-1}(delta), then bracketed Newton.
    """
    return apply(_core.theta_radius, threads, epsilon=epsilon, delta=delta)


def laplace_hockey_stick(distance: ArrayLike, scale: ArrayLike, epsilon: ArrayLike, *,
                         threads: int | None = None) -> FloatOrArray:
    """E_{e^eps}(Lap(m1, b) || Lap(m2, b)) = [1 - exp((eps - |m1 - m2|/b) / 2)]_+  (002 Lemma 1).

    Parameters: ``distance`` = |m1 - m2| >= 0, ``scale`` = b > 0, ``epsilon`` >= 0.
    """
    return apply(_core.laplace_hockey_stick, threads, distance=distance, scale=scale, epsilon=epsilon)
