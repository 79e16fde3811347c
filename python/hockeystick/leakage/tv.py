"""Exact total variation between the undistorted and distorted parameter distributions.

    TV(P, P~) = sup_A |P(A) - P~(A)|,   P = N(mu, sigma^2 I_d),   P~ = N(mu + m, (sigma^2 + sigma_eps^2) I_d)

the quantity paper 001's Lemma 5.7 only brackets (its TV(P^(k) || P~^(k)), Section 5.1).  With
rho = sigma_eps^2 / sigma^2 and s = ||m|| / sigma (see ``_gaussian_pair``), the supremum is
attained on A = {dP~/dP < 1} = {W < W*}, so

    no shift (s = 0):   TV = F_d(b) - F_d(a),   a = d log(1 + rho) / rho,   b = (1 + rho) a,
                        F_d the chi-square CDF with d degrees of freedom (a = W* / (1 + rho), b = W*);
    shift, rho > 0:     TV = G_d(W*; lambda_P) - G_d(W* / (1 + rho); lambda_Q),
                        G_d the noncentral chi-square CDF (scipy.stats.ncx2);
    pure shift, rho=0:  TV = 2 Phi(s / 2) - 1 = erf(s / (2 sqrt 2)).

Accuracy.  Without a shift, a difference of regularized incomplete gamma functions (taken in the
upper tail when a > d, so neither term is close to 1) is exact to ~1e-16 absolute; when the
interval [a, b] is narrow (b - a <= min(a, sqrt(2d)) / 2, which is when TV is small) the chi-square
density is integrated over [a, b] with 32-point Gauss-Legendre instead, exact to ~1e-15 relative
(the density is analytic on a neighbourhood of [a, b] at least twice the interval's width).  With a
shift the noncentral CDFs are differenced: ~1e-13 absolute.  Both are checked against mpmath at 30
digits in tests/leakage/test_leakage_exact.py.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from ._gaussian_pair import GaussianPair, gaussian_pair, log_chi2_density

__all__ = ["tv_exact"]

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(32)


def tv_exact(
    variance: npt.ArrayLike,
    distortion_variance: npt.ArrayLike,
    dimension: npt.ArrayLike,
    shift: npt.ArrayLike = 0.0,
) -> float | np.ndarray:
    r"""Exact total variation between the undistorted and the distorted parameter distribution.

    .. math::

        \mathrm{TV}(P, \tilde P) = \sup_A |P(A) - \tilde P(A)|, \qquad
        P = N(\mu, \sigma^2 I_d), \quad \tilde P = N(\mu + m, (\sigma^2 + \sigma_\epsilon^2) I_d).

    With :math:`\rho = \sigma_\epsilon^2 / \sigma^2` and no shift it is :math:`F_d((1 + \rho) a) -
    F_d(a)`, :math:`a = d \log(1 + \rho) / \rho`, :math:`F_d` the chi-square CDF with d degrees of
    freedom; with a shift, a difference of noncentral chi-square CDFs; for :math:`\rho = 0`,
    :math:`\operatorname{erf}(s / (2\sqrt 2))` with :math:`s = \|m\| / \sigma` (docstring of
    ``hockeystick.leakage.tv``).  A value, not a bound: compare the paper's bracket
    :func:`hockeystick.leakage.tv_bracket`.

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
        Euclidean norm :math:`\|m\|` of the noise's mean, finite and >= 0 (paper 001 adds zero-mean
        noise: 0).  The four arguments broadcast together (numpy rules).

    Returns
    -------
    float or numpy.ndarray
        TV in [0, 1]: a float when every argument is a scalar, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``variance`` not finite and > 0, ``distortion_variance`` or ``shift`` not finite and >= 0,
        ``dimension`` not a whole number in [1, 1e9], shapes that do not broadcast, or a shift too
        large for the distortion: :math:`(s / \rho)^2 > 10^8` when :math:`\rho > 0` (the noncentral
        chi-square evaluation is not verified beyond).
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Section 5.1 (the distributions compared) and Lemma 5.7 (the bracket this computes
    exactly).

    Examples
    --------
    >>> from hockeystick.leakage import tv_exact, tv_bracket
    >>> round(tv_exact(1.0, 0.01, 100), 6)
    0.028017
    >>> tv_bracket(1.0, 0.01, 100)
    (0.001, 0.15...)
    """
    pair = gaussian_pair(variance, distortion_variance, dimension, shift)
    return pair.reshape(_tv(pair))


def _tv(pair: GaussianPair) -> np.ndarray:
    from scipy import special  # lazy: scipy start-up time (import hockeystick loads no scipy)
    from scipy.stats import ncx2  # lazy: scipy start-up time (import hockeystick loads no scipy)

    rho, d, s = pair.rho, pair.dimension, pair.shift
    out = np.zeros_like(rho)
    centred = (s == 0) & (rho > 0)
    if np.any(centred):
        out[centred] = _tv_centred(rho[centred], d[centred])
    shifted = (s > 0) & (rho > 0)
    if np.any(shifted):
        w = pair.crossing[shifted]
        r = rho[shifted]
        out[shifted] = ncx2.cdf(w, d[shifted], pair.noncentrality_p[shifted]) - ncx2.cdf(
            w / (1.0 + r), d[shifted], pair.noncentrality_q[shifted]
        )
    pure = (s > 0) & (rho == 0)
    out[pure] = special.erf(s[pure] / (2.0 * np.sqrt(2.0)))
    return cast(np.ndarray, np.clip(out, 0.0, 1.0))


def _tv_centred(rho: np.ndarray, d: np.ndarray) -> np.ndarray:
    """F_d(b) - F_d(a) for N(0, I_d) against N(0, (1 + rho) I_d)."""
    from scipy import special  # lazy: scipy start-up time (import hockeystick loads no scipy)

    a = d * np.log1p(rho) / rho
    width = d * np.log1p(rho)  # b - a, without forming b
    b = a + width
    k = d / 2.0
    narrow = width <= 0.5 * np.minimum(a, np.sqrt(2.0 * d))
    out = np.empty_like(rho)
    # wide interval: difference of CDFs, in the tail where neither is close to 1
    wide = ~narrow
    upper = wide & (a > d)
    lower = wide & ~upper
    out[upper] = special.gammaincc(k[upper], a[upper] / 2) - special.gammaincc(
        k[upper], b[upper] / 2
    )
    out[lower] = special.gammainc(k[lower], b[lower] / 2) - special.gammainc(k[lower], a[lower] / 2)
    if np.any(narrow):
        an, wn, kn = a[narrow, None], width[narrow, None], k[narrow, None]
        x = an + 0.5 * wn * (_NODES + 1.0)
        log_density = log_chi2_density(x, kn)
        out[narrow] = 0.5 * width[narrow] * (np.exp(log_density) @ _WEIGHTS)
    return out
