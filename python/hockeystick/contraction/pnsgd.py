"""Projected noisy SGD (paper 002, Algorithm 1): privacy of the i-th record from contraction.

Y_{t+1} = Pi_K(Y_t - eta [grad l(Y_t, x_{t+1}) + Z_{t+1}]), one pass over n records,
K convex compact of diameter D (for Laplace noise K = [a, b], D = b - a), loss
L-Lipschitz, beta-smooth, lambda-strongly convex (lambda = 0 allowed), and
M = sqrt(1 - 2 eta beta lambda / (beta + lambda))  (002 eq. 14), which requires
eta <= 2 / (beta + lambda) (the step is then an M-contraction; checked).

    PNSGDLaplace     Thm 3: delta = (1 - e^{eps/2 - L/v})_+ (1 - e^{eps/2 - M D/(2 eta v)})_+^{n-i}
    PNSGDGaussian    Thm 4: delta = theta_eps(2L/sigma) theta_eps(M D/(eta sigma))^{n-i}
    PNSGDRandomStop  Thm 5: output Y_tau with tau uniform on {1..n}:
                     record i is seen only if tau >= i, so
                     delta_i = (1/n) theta(2L/sigma) sum_{k=0}^{n-i} theta(M D/(eta sigma))^k,
                     largest at i = 1; the paper's eq. 16 replaces the finite sum by
                     1/(1 - theta(M D/(eta sigma))) (``paper_form=True``), which is larger.

Note on Thm 3: the paper says delta = 0 once eps >= min{2L/v, M D/(eta v)}; that holds
for i < n only.  For i = n the product is empty and delta = 0 needs eps >= 2L/v.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.elementwise import FloatOrArray
from . import _checks, _kernels


def record_index(n: np.ndarray, index: npt.ArrayLike) -> np.ndarray:
    """The position i of the protected record, a whole number with 1 <= i <= n."""
    i = _checks.positive_integer(index, "index")
    _checks.at_most(i, n, "index must satisfy 1 <= index <= n")
    return i


class _PNSGDPower:
    """F(g1) F(g2)^{n-i}: the shape of 002 Theorems 3 and 4."""

    _noise = "gaussian"

    def _setup(
        self,
        n: npt.ArrayLike,
        index: npt.ArrayLike,
        noise_scale: np.ndarray,
        learning_rate: npt.ArrayLike,
        lipschitz: npt.ArrayLike,
        smoothness: npt.ArrayLike,
        diameter: npt.ArrayLike,
        strong_convexity: npt.ArrayLike,
    ) -> None:
        """Checks shared by Theorems 3 and 4, and the two arguments of F: 2L/s and M D/(eta s),
        s the noise scale (sigma, or the Laplace v: 002 Lemma 1 with distance/scale)."""
        self.n = _checks.positive_integer(n, "n")
        self.index = record_index(self.n, index)
        self.learning_rate = _checks.positive(learning_rate, "learning_rate")
        self.lipschitz = _checks.positive(lipschitz, "lipschitz")
        self.diameter = _checks.positive(diameter, "diameter")
        self.modulus = _checks.contraction_modulus(self.learning_rate, smoothness, strong_convexity)
        self._exponent = self.n - self.index
        with np.errstate(over="ignore"):
            self._g_first = 2.0 * self.lipschitz / noise_scale
            self._g_product = self.modulus * self.diameter / (self.learning_rate * noise_scale)
        _checks.finite_radii(
            g1=(self._g_first, "2 lipschitz / noise, the noise sigma or scale"),
            g2=(self._g_product, "modulus diameter / (learning_rate noise)"),
        )

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """The theorem's delta(eps) for the i-th record."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.power_delta(
            self._noise, _checks.epsilon_values(epsilon), self._exponent, self._g_first, self._g_product, threads
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """Smallest eps >= 0 with delta(eps) <= delta."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.power_epsilon(
            self._noise, _checks.delta_values(delta), self._exponent, self._g_first, self._g_product, threads
        )


class PNSGDGaussian(_PNSGDPower):
    """002 Theorem 4: Gaussian noise N(0, sigma^2 I), (eps, delta)-DP for the i-th input.

    Parameters (broadcast): n, index (1 <= i <= n), sigma, learning_rate, lipschitz,
    smoothness, diameter (D_K), strong_convexity (default 0, so M = 1).
    """

    def __init__(
        self,
        *,
        n: npt.ArrayLike,
        index: npt.ArrayLike,
        sigma: npt.ArrayLike,
        learning_rate: npt.ArrayLike,
        lipschitz: npt.ArrayLike,
        smoothness: npt.ArrayLike,
        diameter: npt.ArrayLike,
        strong_convexity: npt.ArrayLike = 0.0,
    ) -> None:
        _checks.broadcastable(
            n=n,
            index=index,
            sigma=sigma,
            learning_rate=learning_rate,
            lipschitz=lipschitz,
            smoothness=smoothness,
            diameter=diameter,
            strong_convexity=strong_convexity,
        )
        self.sigma = _checks.positive(sigma, "sigma")
        self._setup(n, index, self.sigma, learning_rate, lipschitz, smoothness, diameter, strong_convexity)


class PNSGDLaplace(_PNSGDPower):
    """002 Theorem 3: Laplace noise L(0, v) on an interval K = [a, b] (``diameter`` = b - a).

    Parameters (broadcast): n, index, scale (v > 0), learning_rate, lipschitz, smoothness,
    diameter, strong_convexity (default 0).
    """

    _noise = "laplace"

    def __init__(
        self,
        *,
        n: npt.ArrayLike,
        index: npt.ArrayLike,
        scale: npt.ArrayLike,
        learning_rate: npt.ArrayLike,
        lipschitz: npt.ArrayLike,
        smoothness: npt.ArrayLike,
        diameter: npt.ArrayLike,
        strong_convexity: npt.ArrayLike = 0.0,
    ) -> None:
        _checks.broadcastable(
            n=n,
            index=index,
            scale=scale,
            learning_rate=learning_rate,
            lipschitz=lipschitz,
            smoothness=smoothness,
            diameter=diameter,
            strong_convexity=strong_convexity,
        )
        self.scale = _checks.positive(scale, "scale")
        self._setup(n, index, self.scale, learning_rate, lipschitz, smoothness, diameter, strong_convexity)


class PNSGDRandomStop:
    """002 Theorem 5: PNSGD stopped at tau uniform on {1, ..., n}, Gaussian noise.

    Parameters (broadcast) as PNSGDGaussian without ``index``, plus
    index : the record i (default None: the worst record, i = 1, which bounds every record)
    paper_form : True gives eq. 16 exactly, (1/n) theta(2L/sigma) / (1 - theta(M D/(eta sigma)));
        False (default) the finite sum the proof bounds, which is smaller.
    """

    def __init__(
        self,
        *,
        n: npt.ArrayLike,
        sigma: npt.ArrayLike,
        learning_rate: npt.ArrayLike,
        lipschitz: npt.ArrayLike,
        smoothness: npt.ArrayLike,
        diameter: npt.ArrayLike,
        strong_convexity: npt.ArrayLike = 0.0,
        index: npt.ArrayLike | None = None,
        paper_form: bool = False,
    ) -> None:
        _checks.broadcastable(
            n=n,
            index=index,
            sigma=sigma,
            learning_rate=learning_rate,
            lipschitz=lipschitz,
            smoothness=smoothness,
            diameter=diameter,
            strong_convexity=strong_convexity,
        )
        self.n = _checks.positive_integer(n, "n")
        self.index = np.float64(1.0) if index is None else record_index(self.n, index)
        self.sigma = _checks.positive(sigma, "sigma")
        self.learning_rate = _checks.positive(learning_rate, "learning_rate")
        self.lipschitz = _checks.positive(lipschitz, "lipschitz")
        self.diameter = _checks.positive(diameter, "diameter")
        self.modulus = _checks.contraction_modulus(self.learning_rate, smoothness, strong_convexity)
        self.paper_form = _checks.flag(paper_form, "paper_form")
        self._weight = 1.0 / self.n
        self._terms = np.asarray(np.inf if self.paper_form else self.n - self.index + 1.0)
        with np.errstate(over="ignore"):
            self._r_first = 2.0 * self.lipschitz / self.sigma
            self._r_product = self.modulus * self.diameter / (self.learning_rate * self.sigma)
        _checks.finite_radii(
            r1=(self._r_first, "2 lipschitz / sigma"), r2=(self._r_product, "modulus diameter / (learning_rate sigma)")
        )

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """(1/n) theta(2L/sigma) sum_{k=0}^{n-i} theta(M D/(eta sigma))^k  (eq. 16 when paper_form)."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.geometric_delta(
            _checks.epsilon_values(epsilon), self._weight, self._terms, self._r_first, self._r_product, threads
        )

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """Smallest eps >= 0 with delta(eps) <= delta."""
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.geometric_epsilon(
            _checks.delta_values(delta), self._weight, self._terms, self._r_first, self._r_product, threads
        )
