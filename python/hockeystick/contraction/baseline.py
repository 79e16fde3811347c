"""The RDP baseline the contraction bounds are compared with: 002 Proposition 1.

The privacy-amplification-by-iteration RDP bound of Balle, Barthe, Gaboardi & Geumlek ("Privacy
amplification by mixing and diffusion mechanisms", NeurIPS 2019, Thm 5; 002's reference [15]) for
PNSGD, (alpha, alpha kappa)-RDP for the i-th record, converted to (eps, delta) by Mironov 2017, Prop. 3
(eps = alpha kappa + log(1/delta)/(alpha - 1), optimized over alpha > 1):

    delta~(eps) = exp(-(eps - kappa)^2 / (4 kappa))   for eps > kappa       (002 eq. 15)
    eps(delta)  = kappa + 2 sqrt(kappa log(1/delta))

    kappa = 2 L^2 M^{n-i+1} / ((n - i) sigma^2)   for i < n,     kappa = 2 L^2 / sigma^2   for i = n,

M as in 002 eq. 14.  For eps <= kappa the conversion gives nothing, and delta~ = 1
(always a valid bound) is returned.  Elementwise closed forms, so numpy suffices.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.accountant import Bound
from ..base.elementwise import FloatOrArray, check_threads
from . import _checks
from .pnsgd import record_index

_SAFE_SIDE = 1.0 + 2.0**-42


class PNSGDRenyiBaseline:
    """002 Proposition 1 (adapted from Balle et al. 2019, Thm 5), Gaussian PNSGD, i-th record.

    Parameters (broadcast): n, index, sigma, learning_rate, lipschitz, smoothness,
    strong_convexity (default 0, M = 1).
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
        strong_convexity: npt.ArrayLike = 0.0,
    ) -> None:
        _checks.broadcastable(
            n=n,
            index=index,
            sigma=sigma,
            learning_rate=learning_rate,
            lipschitz=lipschitz,
            smoothness=smoothness,
            strong_convexity=strong_convexity,
        )
        self.n = _checks.positive_integer(n, "n")
        self.index = record_index(self.n, index)
        self.sigma = _checks.positive(sigma, "sigma")
        self.learning_rate = _checks.positive(learning_rate, "learning_rate")
        self.lipschitz = _checks.positive(lipschitz, "lipschitz")
        self.modulus = _checks.contraction_modulus(self.learning_rate, smoothness, strong_convexity)
        later = self.n - self.index
        base = 2.0 * np.square(self.lipschitz / self.sigma)  # the ratio first: 5e-324^2 / 5e-324^2 was 0 / 0
        with np.errstate(divide="ignore", invalid="ignore"):
            amplified = base * self.modulus ** (later + 1.0) / later
        self.kappa = np.where(later > 0, amplified, base)

    def delta(self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """exp(-(eps - kappa)^2 / (4 kappa)) for eps > kappa, else 1  (002 eq. 15)."""
        _checks.upper_only(bound, type(self).__name__)
        check_threads(threads)
        eps = _checks.epsilon_values(epsilon)
        with np.errstate(invalid="ignore"):
            gap = eps - self.kappa
            # rounded up by 2^-42 relative like every reported delta (see contraction_bounds.hpp)
            out = np.where(gap > 0, np.minimum(1.0, np.exp(-np.square(gap) / (4.0 * self.kappa)) * _SAFE_SIDE), 1.0)
        return float(out) if out.ndim == 0 else out

    def epsilon(self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None) -> FloatOrArray:
        """kappa + 2 sqrt(kappa log(1/delta))."""
        _checks.upper_only(bound, type(self).__name__)
        check_threads(threads)
        d = _checks.delta_values(delta)
        out = self.kappa + 2.0 * np.sqrt(self.kappa * -np.log(d))
        return float(out) if np.ndim(out) == 0 else out
