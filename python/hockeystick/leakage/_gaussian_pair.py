"""The pair of parameter distributions paper 001 compares, reduced to three numbers.

The undistorted parameter is P = N(mu, sigma^2 I_d); the distorted one adds independent
Gaussian noise N(m, sigma_eps^2 I_d) (paper 001 eq. 8 and Algorithm 3; m = 0 there, a mean
shift m is allowed here), so P~ = N(mu + m, (sigma^2 + sigma_eps^2) I_d).  TV, JS and every
f-divergence between them are invariant under translation, rotation and common scaling, so
they depend only on

    rho = sigma_eps^2 / sigma^2,    d,    s = ||m|| / sigma.

The log-likelihood ratio l(x) = log(dP~/dP)(x) is a function of the single variable
W = ||x - c||^2 / sigma^2 with centre c = mu - m sigma^2 / sigma_eps^2 (rho > 0):

    l = -(d/2) log(1 + rho) - s^2 / (2 (1 + rho)) + (rho / (2 (1 + rho))) (W - lambda_P),

and W ~ ncx2(d, lambda_P) under P, W / (1 + rho) ~ ncx2(d, lambda_Q) under P~, with
lambda_P = s^2 / rho^2 and lambda_Q = s^2 (1 + rho) / rho^2 (for s = 0 both are chi-square
with d degrees of freedom).  l is increasing in W and vanishes at the crossing radius

    W* = (1 + rho) (d log(1 + rho) + s^2 / rho) / rho.

rho = 0 (pure mean shift) is the one-dimensional Gaussian pair N(0, 1), N(s, 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative, positive, positive_integer

# Largest noncentrality lambda_P = s^2 / rho^2 at which scipy's noncentral chi-square is used
# (verified against mpmath in tests/leakage/test_leakage_exact.py; it returns NaN near 1e12).
MAX_NONCENTRALITY = 1e8
# Largest dimension accepted: the JS quadrature of a shifted pair (scipy's noncentral chi-square
# density) stops converging near 1e12, and doubles stop being consecutive integers at 2^53 (9e15).
MAX_DIMENSION = 1e9


@dataclass(frozen=True)
class GaussianPair:
    """Standardized (rho, d, s) of P = N(mu, sigma^2 I_d), P~ = N(mu + m, (sigma^2 + sigma_eps^2)
    I_d), flat, with the broadcast shape and whether every input was a scalar."""

    rho: np.ndarray
    dimension: np.ndarray
    shift: np.ndarray
    shape: tuple[int, ...]
    scalar: bool

    def reshape(self, values: np.ndarray) -> float | np.ndarray:
        """Flat results back to the broadcast shape (a float for scalar input)."""
        out = values.reshape(self.shape)
        return float(out) if self.scalar else out

    @property
    def noncentrality_p(self) -> np.ndarray:
        return _noncentrality(self.shift, self.rho)

    @property
    def noncentrality_q(self) -> np.ndarray:
        return self.noncentrality_p * (1.0 + self.rho)

    @property
    def crossing(self) -> np.ndarray:
        """W* where the two densities cross (rho > 0; the P-side region {l < 0} is W < W*)."""
        r = np.where(self.rho > 0, self.rho, 1.0)
        return (1.0 + r) * (self.dimension * np.log1p(r) + self.shift**2 / r) / r


def _noncentrality(s: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """lambda_P = s^2 / rho^2: 0 without a shift (rho^2 may underflow to 0 or overflow to inf), inf
    for a shift with rho^2 underflowing (refused by the MAX_NONCENTRALITY check), 0 with rho^2
    overflowing."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where((rho > 0) & (s > 0), s**2 / np.where(rho > 0, rho, 1.0) ** 2, 0.0)


def gaussian_pair(
    variance: npt.ArrayLike,
    distortion_variance: npt.ArrayLike,
    dimension: npt.ArrayLike,
    shift: npt.ArrayLike = 0.0,
) -> GaussianPair:
    """Check and standardize the arguments every exact calculator takes.

    variance : sigma^2 > 0, per-coordinate variance of the undistorted parameter (paper's sigma^2)
    distortion_variance : sigma_eps^2 >= 0, per-coordinate variance of the added noise
    dimension : d, whole number in [1, MAX_DIMENSION]
    shift : ||m|| >= 0, Euclidean norm of the noise's mean (0 in the paper)
    """
    v = positive(variance, "variance")
    e = nonnegative(distortion_variance, "distortion_variance")
    d = positive_integer(dimension, "dimension", maximum=MAX_DIMENSION)
    m = nonnegative(shift, "shift")
    try:
        shape = np.broadcast_shapes(v.shape, e.shape, d.shape, m.shape)
    except ValueError:
        raise ValueError(
            f"shapes do not broadcast together: variance {v.shape}, distortion_variance {e.shape}, "
            f"dimension {d.shape}, shift {m.shape}"
        ) from None
    scalar = all(a.ndim == 0 for a in (v, e, d, m))
    v, e, d, m = (np.broadcast_to(a, shape).ravel() for a in (v, e, d, m))
    rho = e / v
    s = m / np.sqrt(v)
    if not np.all(np.isfinite(rho)) or not np.all(np.isfinite(s)):
        raise ValueError("distortion_variance / variance and shift / sqrt(variance) must be finite")
    lam = _noncentrality(s, rho)
    if np.any(lam > MAX_NONCENTRALITY):
        i = int(np.argmax(lam > MAX_NONCENTRALITY))
        raise ValueError(
            f"shift / sqrt(variance) = {s[i]:.6g} is too large for distortion_variance / variance = {rho[i]:.6g}: "
            f"(shift^2 / variance) / (distortion_variance / variance)^2 must be <= {MAX_NONCENTRALITY:g} "
            "(the noncentral chi-square evaluation is not verified beyond); give shift = 0 or a larger "
            "distortion_variance, or distortion_variance = 0 for the pure mean shift"
        )
    return GaussianPair(rho, d, s, shape, scalar)


def log_chi2_density(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log of the chi-square density with 2k degrees of freedom at x >= 0 (-inf at x = 0 for k > 1).

    For k >= 10 in the form -log(8 pi k) / 2 - S(k) + k (log1p(z) - z) - log1p(z), z = x / (2k) - 1,
    S(k) = lgamma(k) - ((k - 1/2) log k - k + log(2 pi) / 2) the Stirling remainder (its series to
    k^-9, error below 691 / (360360 k^11)): the terms (k - 1) log x, x / 2 and lgamma(k) of the
    direct form are each about k log k and cancel, leaving an error of about k u (u = 2^-53) in the
    log density (1e-3 at k = 5e12), where this form's error is about sqrt(k) u.
    """
    from scipy import special  # lazy: scipy start-up time (import hockeystick loads no scipy)

    small = k < 10
    ks = np.where(small, 10.0, k)
    z = (x - 2.0 * ks) / (2.0 * ks)
    r = 1.0 / ks
    r2 = r * r
    stirling = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 * (1 / 1680 - r2 / 1188))))
    kd = np.where(small, k, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):  # x = 0: log1p(-1) = -inf, resolved below
        large = -0.5 * np.log(8.0 * np.pi * ks) - stirling + ks * (np.log1p(z) - z) - np.log1p(z)
        direct = special.xlogy(kd - 1.0, x) - x / 2 - kd * np.log(2.0) - special.gammaln(kd)
    return np.where(small, direct, np.where(x > 0, large, -np.inf))
