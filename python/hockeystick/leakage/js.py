"""Exact Jensen-Shannon divergence between the undistorted and distorted parameter distributions.

    JS(P, P~) = (1/2) KL(P || M) + (1/2) KL(P~ || M),   M = (P + P~) / 2,   in nats (<= log 2),

for P = N(mu, sigma^2 I_d) and P~ = N(mu + m, (sigma^2 + sigma_eps^2) I_d) (paper 001's
parameter distributions, Section 5.1; its leakage eps_p = sqrt(JS) is taken between beliefs,
Definition 4, and Lemma B.3 bounds it by (e^{2 xi} - 1) TV / 2).

Form used.  With l = log(dP~/dP), substituting dM = (dP + dP~) / 2 gives

    JS = (1/2) E_{(P + P~)}[ h(l / 2) ],   h(y) = y tanh(y) - log cosh(y)   (0 <= h < log 2),

an integrand that is positive, smooth and free of cancellation (h(y) ~ y^2 / 2 near 0).  l depends
on x only through W (see ``_gaussian_pair``), so JS is one-dimensional: E_P over W ~ ncx2(d,
lambda_P) and E_P~ over V = W / (1 + rho) ~ ncx2(d, lambda_Q), each integrated by tanh-sinh
quadrature (scipy.integrate.tanhsinh, vectorized over the points) between its quantiles 1e-18 and
1 - 1e-18 (the neglected part is < 3e-18), in the offset variable W - lambda (so l has no cancellation
for large lambda), or from W = 0 when the lower quantile is below 1 (the d = 1 endpoint
singularity). The summed error estimate must be below 1e-10 of the result, else RuntimeError.  For
rho = 0 (pure shift) it is the one-dimensional E_{x ~ N(0,1)} h((s x - s^2 / 2) / 2).  Checked
against mpmath at 30 digits with the KL definition in tests/leakage/test_leakage_exact.py (relative
error below 1e-10).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import numpy as np
import numpy.typing as npt

from ._gaussian_pair import GaussianPair, gaussian_pair, log_chi2_density

__all__ = ["js_exact", "js_integrand_h"]

_TAIL = 1e-18
_RHO_DISJOINT = 1e290
_LOG2 = math.log(2.0)


def js_integrand_h(y: np.ndarray | float) -> np.ndarray:
    """h(y) = y tanh y - log cosh y, accurate for every real y (tends to log 2 as |y| -> inf)."""
    from scipy import special  # lazy: scipy start-up time (import hockeystick loads no scipy)

    a = np.abs(np.asarray(y, dtype=float))
    b = np.minimum(a, 1.0)
    small = b * np.tanh(b) - np.log1p(
        2.0 * np.sinh(0.5 * b) ** 2
    )  # log cosh b without cancellation
    # |y| > 1: y tanh y - log cosh y = log 2 - 2|y| expit(-2|y|) - log1p(e^{-2|y|})
    large = _LOG2 - 2.0 * a * special.expit(-2.0 * a) - np.log1p(np.exp(-2.0 * a))
    return cast(np.ndarray, np.where(a <= 1.0, small, large))


def js_exact(
    variance: npt.ArrayLike,
    distortion_variance: npt.ArrayLike,
    dimension: npt.ArrayLike,
    shift: npt.ArrayLike = 0.0,
) -> float | np.ndarray:
    r"""Exact Jensen-Shannon divergence, in nats, between the undistorted and the distorted parameter distribution.

    .. math::

        \mathrm{JS}(P, \tilde P) = \tfrac12 \mathrm{KL}(P \,\|\, M) + \tfrac12 \mathrm{KL}(\tilde P \,\|\, M),
        \qquad M = (P + \tilde P) / 2,

    for :math:`P = N(\mu, \sigma^2 I_d)` and :math:`\tilde P = N(\mu + m, (\sigma^2 +
    \sigma_\epsilon^2) I_d)`, evaluated as the one-dimensional :math:`\tfrac12 E_{P + \tilde
    P}[h(l/2)]`, :math:`h(y) = y \tanh y - \log\cosh y`, :math:`l = \log(d\tilde P / dP)`, by
    tanh-sinh quadrature (docstring of ``hockeystick.leakage.js``).  A value, not a bound; its
    square root is the kind of leakage paper 001's Definition 4 takes (there between beliefs about
    the data, not between these distributions).

    Parameters
    ----------
    variance : array_like
        Per-coordinate variance :math:`\sigma^2` of the undistorted parameter, finite and > 0.
    distortion_variance : array_like
        Per-coordinate variance :math:`\sigma_\epsilon^2` of the added Gaussian noise, finite and
        >= 0.
    dimension : array_like
        Dimension d of the parameter, a whole number in [1, 1e9] (the evaluation is not verified
        beyond).
    shift : array_like, default 0.0
        Euclidean norm :math:`\|m\|` of the noise's mean, finite and >= 0 (0 in paper 001).  The
        four arguments broadcast together (numpy rules).

    Returns
    -------
    float or numpy.ndarray
        JS in :math:`[0, \log 2]` nats, relative accuracy :math:`10^{-10}`: a float when every
        argument is a scalar, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``variance`` not finite and > 0, ``distortion_variance`` or ``shift`` not finite and >= 0,
        ``dimension`` not a whole number in [1, 1e9], shapes that do not broadcast, or :math:`(s /
        \rho)^2 > 10^8` with :math:`s = \|m\| / \sigma`, :math:`\rho = \sigma_\epsilon^2 / \sigma^2
        > 0`.
    ParameterTypeError
        An argument that is a string, bool or None.
    RuntimeError
        The quadrature's summed error estimate exceeds :math:`10^{-10}` of the result.

    References
    ----------
    Paper 001, Section 5.1 (the distributions), Definition 4 (leakage as a square-rooted JS) and
    Lemma B.3 (its bound through TV).

    Examples
    --------
    >>> from hockeystick.leakage import js_exact
    >>> round(js_exact(1.0, 0.01, 100), 6)
    0.000618
    """
    pair = gaussian_pair(variance, distortion_variance, dimension, shift)
    return pair.reshape(_js(pair))


def _js(pair: GaussianPair) -> np.ndarray:
    out = np.zeros_like(pair.rho)
    # past rho = 1e290 the integrand's W (1 + rho) overflows; JS is ln 2 there to the quadrature's
    # accuracy (at d <= 1e9 the computed value is within 1e-12 of ln 2 from rho = 1e50 on, with or
    # without a shift)
    out[pair.rho > _RHO_DISJOINT] = _LOG2
    radial = (pair.rho > 0) & (pair.rho <= _RHO_DISJOINT)
    if np.any(radial):
        out[radial] = _js_radial(
            pair.rho[radial],
            pair.dimension[radial],
            pair.shift[radial],
            pair.noncentrality_p[radial],
        )
    pure = (pair.rho == 0) & (pair.shift > 0)
    if np.any(pure):
        out[pure] = _js_pure_shift(pair.shift[pure])
    return cast(np.ndarray, np.clip(out, 0.0, _LOG2))


def _integrate(
    f: Callable[..., np.ndarray], edges: np.ndarray, args: tuple[np.ndarray, ...]
) -> np.ndarray:
    """Sum over consecutive edges (one row per point, sorted) of tanh-sinh integrals of f; the
    summed error estimate must be below 1e-10 of the total (pieces far smaller than the total
    may stop at the finest level with a tiny absolute error)."""
    from scipy import integrate  # lazy: scipy start-up time (import hockeystick loads no scipy)

    total = np.zeros(edges.shape[0])
    error = np.zeros(edges.shape[0])
    for j in range(edges.shape[1] - 1):
        a, b = edges[:, j], edges[:, j + 1]
        result = integrate.tanhsinh(f, a, b, args=args, rtol=1e-12, atol=0.0, maxlevel=12)
        empty = a == b
        total += np.where(empty, 0.0, result.integral)
        error += np.where(empty | result.success, 0.0, np.abs(result.error))
    if not np.all(error <= 1e-10 * total):
        raise RuntimeError("JS quadrature did not converge (a bug: please report the arguments)")
    return total


def _density(w: np.ndarray, d: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Chi-square (lam = 0) or noncentral chi-square density at w."""
    from scipy.stats import ncx2  # lazy: scipy start-up time (import hockeystick loads no scipy)

    central = lam == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        noncentral = ncx2.pdf(w, d, np.where(central, 1.0, lam))
    # the central density in the form without cancellation (log_chi2_density): scipy's loses about d
    # u
    return cast(np.ndarray, np.where(central, np.exp(log_chi2_density(w, d / 2)), noncentral))


def _expectation_integrand(
    t: np.ndarray,
    d: np.ndarray,
    lam: np.ndarray,
    base: np.ndarray,
    rho: np.ndarray,
    s: np.ndarray,
    u0: np.ndarray,
    stretch: np.ndarray,
) -> np.ndarray:
    """density(base + t) h(l / 2) for a (noncentral) chi-square variable W = base + t, with v = W -
    lam and l the log-likelihood ratio at u = W - lambda_P = u0 + stretch v."""
    v = (base - lam) + t
    u = u0 + stretch * v
    # 0.5 * (rho / (1 + rho)), the same double as rho / (2 (1 + rho)) without 2 (1 + rho)
    # overflowing near 1e308
    log_ratio = (
        -0.5 * d * np.log1p(rho) - s * s / (2.0 * (1.0 + rho)) + 0.5 * (rho / (1.0 + rho)) * u
    )
    return cast(np.ndarray, _density(base + t, d, lam) * js_integrand_h(0.5 * log_ratio))


def _expectation(
    d: np.ndarray,
    lam: np.ndarray,
    rho: np.ndarray,
    s: np.ndarray,
    u0: np.ndarray,
    stretch: np.ndarray,
) -> np.ndarray:
    """E[h(l / 2)] over W ~ ncx2(d, lam) (chi-square when lam = 0), between its quantiles 1e-18 and
    1 - 1e-18, split at its mean.  The integration variable is t = W - lam (so l has no cancellation
    when lam is large), except when the lower quantile is below 1: then the range starts at W = 0
    and t = W, so the d = 1 density's endpoint singularity is resolved in full precision."""
    from scipy.stats import (
        chi2,
        ncx2,
    )  # lazy: scipy start-up time (import hockeystick loads no scipy)

    central = lam == 0
    nc = np.where(central, 1.0, lam)
    lo = np.where(central, chi2.ppf(_TAIL, d), ncx2.ppf(_TAIL, d, nc))
    hi = np.where(central, chi2.isf(_TAIL, d), ncx2.isf(_TAIL, d, nc))
    from_zero = lo < 1.0
    lo = np.where(from_zero, 0.0, lo)
    base = np.where(from_zero, 0.0, lam)
    edges = np.stack([lo, np.clip(d + lam, lo, hi), hi], axis=1) - base[:, None]
    return _integrate(_expectation_integrand, edges, (d, lam, base, rho, s, u0, stretch))


def _js_radial(rho: np.ndarray, d: np.ndarray, s: np.ndarray, lam_p: np.ndarray) -> np.ndarray:
    """(E_P + E_P~)[h(l / 2)] / 2, each expectation over its own chi-square variable: under P,
    W ~ ncx2(d, lam_P); under P~, W = (1 + rho) V with V ~ ncx2(d, lam_Q), so u = W - lam_P =
    lam_P rho (2 + rho) + (1 + rho)(V - lam_Q) (no cancellation for large lam_P)."""
    lam_q = lam_p * (1.0 + rho)
    e_p = _expectation(d, lam_p, rho, s, np.zeros_like(rho), np.ones_like(rho))
    e_q = _expectation(d, lam_q, rho, s, lam_p * rho * (2.0 + rho), 1.0 + rho)
    return cast(np.ndarray, 0.5 * (e_p + e_q))


def _shift_integrand(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    from scipy.stats import norm  # lazy: scipy start-up time (import hockeystick loads no scipy)

    return cast(np.ndarray, norm.pdf(x) * js_integrand_h(0.5 * (s * x - 0.5 * s * s)))


def _js_pure_shift(s: np.ndarray) -> np.ndarray:
    edges = np.stack(
        [np.full_like(s, -39.0), np.zeros_like(s), 0.5 * s, np.full_like(s, 39.0)], axis=1
    )
    return _integrate(_shift_integrand, np.sort(edges, axis=1), (s,))
