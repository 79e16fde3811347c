"""The RDP baseline the contraction bounds are compared with: 002 Proposition 1.

The privacy-amplification-by-iteration RDP bound of Balle, Barthe, Gaboardi & Geumlek ("Privacy
amplification by mixing and diffusion mechanisms", NeurIPS 2019, Thm 5; 002's reference [15]) for
PNSGD, (alpha, alpha kappa)-RDP for the i-th record, converted to (eps, delta) by Mironov 2017,
Prop. 3 (eps = alpha kappa + log(1/delta)/(alpha - 1), optimized over alpha > 1):

    delta~(eps) = exp(-(eps - kappa)^2 / (4 kappa))   for eps > kappa       (002 eq. 15)
    eps(delta)  = kappa + 2 sqrt(kappa log(1/delta))

    kappa = 2 L^2 M^{n-i+1} / ((n - i) sigma^2)   for i < n,     kappa = 2 L^2 / sigma^2   for i = n,

M as in 002 eq. 14.  For eps <= kappa the conversion gives nothing, and delta~ = 1
(always a valid bound) is returned.  Elementwise closed forms, so numpy suffices.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import FloatOrArray, check_threads
from . import _checks
from .pnsgd import record_index

_SAFE_SIDE = 1.0 + 2.0**-42


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class PNSGDRenyiBaseline:
    r"""Delta(epsilon) of the Renyi-DP baseline for Gaussian projected noisy SGD, i-th record (paper 002, Prop. 1).

    Privacy amplification by iteration gives :math:`(\alpha, \alpha\kappa)`-RDP for the i-th record
    (Balle et al. 2019, Theorem 5), converted to (epsilon, delta) by Mironov 2017, Proposition 3,
    optimized over alpha > 1 (paper 002, eq. 15):

    .. math::

        \tilde\delta(\varepsilon) = \exp\Big(-\frac{(\varepsilon - \kappa)^2}{4\kappa}\Big)
          \ (\varepsilon > \kappa), \qquad
        \varepsilon(\delta) = \kappa + 2\sqrt{\kappa \log(1/\delta)},

        \kappa = \frac{2L^2 M^{n-i+1}}{(n - i)\,\sigma^2} \ (i < n), \qquad
        \kappa = \frac{2L^2}{\sigma^2} \ (i = n),

    M as in paper 002, eq. 14. For :math:`\varepsilon \le \kappa` the conversion gives nothing and 1
    is returned; otherwise the value is rounded up by 2^-42 relative. The attribute ``kappa`` holds
    kappa.

    Parameters
    ----------
    n : array_like
        Number of records (iterations), a whole number >= 1.
    index : array_like
        Position i of the protected record, a whole number with 1 <= i <= n.
    sigma : array_like
        Standard deviation of the Gaussian noise, finite and > 0.
    learning_rate : array_like
        Step eta, finite and > 0, with eta <= 2/(beta + lambda).
    lipschitz : array_like
        Lipschitz constant L of the loss, finite and > 0.
    smoothness : array_like
        Smoothness beta, finite and > 0.
    strong_convexity : array_like, default 0.0
        Strong-convexity modulus lambda, finite, >= 0 and <= ``smoothness`` (0: M = 1).

    Raises
    ------
    ValueError
        A parameter outside its range above; ``index`` outside [1, n]; ``strong_convexity >
        smoothness``; ``learning_rate > 2 / (smoothness + strong_convexity)``; shapes that do not
        broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None.

    Notes
    -----
    The parameters are keyword-only and broadcast with each other and with the argument of
    ``delta``/``epsilon``.

    References
    ----------
    Paper 002, Proposition 1 (eq. 15); Balle et al. 2019, Theorem 5; Mironov 2017, Proposition 3.

    Examples
    --------
    Paper 002's Figure 2 at i = 39 (compare ``PNSGDGaussian``'s 0.016113):

    >>> from hockeystick.contraction import PNSGDRenyiBaseline
    >>> baseline = PNSGDRenyiBaseline(
    ...     n=40, index=39, sigma=2.0, learning_rate=0.5, lipschitz=1.0, smoothness=0.5
    ... )
    >>> round(float(baseline.kappa), 6), round(baseline.delta(1.0), 6)
    (0.5, 0.882497)
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
        base = 2.0 * np.square(
            self.lipschitz / self.sigma
        )  # the ratio first: 5e-324^2 / 5e-324^2 was 0 / 0
        with np.errstate(divide="ignore", invalid="ignore"):
            amplified = base * self.modulus ** (later + 1.0) / later
        self.kappa = np.where(later > 0, amplified, base)

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Baseline's delta(eps) = exp(-(eps - kappa)^2 / (4 kappa)) for eps > kappa, else 1 (paper 002 eq. 15).

        Parameters
        ----------
        threads : int, optional
            Checked (a positive integer or None) for a common signature; the closed form runs in
            numpy.

        Returns
        -------
        float or numpy.ndarray
            In (0, 1] (0 at epsilon = inf), rounded up by 2^-42 relative.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        check_threads(threads)
        eps = _checks.epsilon_values(epsilon)
        with np.errstate(invalid="ignore"):
            gap = eps - self.kappa
            # rounded up by 2^-42 relative like every reported delta (see contraction/bounds.hpp)
            out = np.where(
                gap > 0,
                np.minimum(1.0, np.exp(-np.square(gap) / (4.0 * self.kappa)) * _SAFE_SIDE),
                1.0,
            )
        return float(out) if out.ndim == 0 else out

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Baseline's epsilon(delta) = kappa + 2 sqrt(kappa log(1/delta)), in closed form.

        Parameters
        ----------
        threads : int, optional
            Checked (a positive integer or None) for a common signature; the closed form runs in
            numpy.

        Returns
        -------
        float or numpy.ndarray
            Strictly above 0.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        check_threads(threads)
        d = _checks.delta_values(delta)
        out = self.kappa + 2.0 * np.sqrt(self.kappa * -np.log(d))
        return float(out) if np.ndim(out) == 0 else out
