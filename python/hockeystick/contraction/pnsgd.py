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

from ..base.accountant import UPPER_ONLY, Bound
from ..base.accountant_docs import accountant_docs
from ..base.elementwise import FloatOrArray
from . import _checks, _kernels


def record_index(n: np.ndarray, index: npt.ArrayLike) -> np.ndarray:
    """The position i of the protected record, a whole number with 1 <= i <= n."""
    i = _checks.positive_integer(index, "index")
    _checks.at_most(i, n, "index must satisfy 1 <= index <= n")
    return i


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
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

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Theorem's delta(eps) for the i-th record, F(g1) F(g2)^(n-i), rounded up by 2^-42 relative.

        F is theta_eps (Theorem 4) or the Laplace factor (Theorem 3); see the class docstring.
        Upper side only: the theorem gives no lower bound.

        Parameters
        ----------
        threads : int, optional
            OpenMP threads for array input.

        Returns
        -------
        float or numpy.ndarray
            The value is 0 at epsilon = inf.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.power_delta(
            self._noise,
            _checks.epsilon_values(epsilon),
            self._exponent,
            self._g_first,
            self._g_product,
            threads,
        )

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Smallest epsilon >= 0 whose reported delta(eps) is <= delta (bracketed Newton in C++, per point).

        Parameters
        ----------
        threads : int, optional
            OpenMP threads for array input.

        Returns
        -------
        float or numpy.ndarray
            0 where delta(0) <= delta; within about 1e-15 relative above the root.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.power_epsilon(
            self._noise,
            _checks.delta_values(delta),
            self._exponent,
            self._g_first,
            self._g_product,
            threads,
        )


class PNSGDGaussian(_PNSGDPower):
    r"""Delta(epsilon) of projected noisy SGD with Gaussian noise for the i-th record (paper 002, Theorem 4).

    One pass over n records, :math:`Y_{t+1} = \Pi_K(Y_t - \eta[\nabla\ell(Y_t, x_{t+1}) +
    Z_{t+1}])`, :math:`Z \sim N(0, \sigma^2 I)`, K convex compact of diameter :math:`D_K`, loss
    L-Lipschitz, beta-smooth and lambda-strongly convex (lambda = 0 allowed), only the last iterate
    released:

    .. math::

        \delta(\varepsilon) = \theta_{e^\varepsilon}\Big(\frac{2L}{\sigma}\Big)\,
          \theta_{e^\varepsilon}\Big(\frac{M D_K}{\eta\sigma}\Big)^{n-i},
        \qquad M = \sqrt{1 - \frac{2\eta\beta\lambda}{\beta + \lambda}} \ \text{(eq. 14)},

    with :math:`\theta_\gamma(r) = Q(\log\gamma/r - r/2) - \gamma Q(\log\gamma/r + r/2)` (Definition
    1, eq. 10). :math:`\eta \le 2/(\beta + \lambda)` makes the step an M-contraction and is checked.
    ``delta`` is rounded up by 2^-42 relative; both sides are upper bounds only.

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
    diameter : array_like
        Diameter D_K of the convex compact set K projected onto, finite and > 0.
    strong_convexity : array_like, default 0.0
        Strong-convexity modulus lambda, finite, >= 0 and <= ``smoothness`` (0: M = 1).

    Raises
    ------
    ValueError
        A parameter outside its range above; ``index`` outside [1, n]; ``strong_convexity >
        smoothness``; ``learning_rate > 2 / (smoothness + strong_convexity)``; an overflowing radius
        (noise below ~1e-300 times its numerator); shapes that do not broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None.

    Notes
    -----
    The parameters are keyword-only and broadcast with each other and with the argument of
    ``delta``/``epsilon``.

    References
    ----------
    Paper 002, Algorithm 1, Theorem 4 (Definition 1, eq. 14).

    Examples
    --------
    Paper 002's Figure 2 at i = 39:

    >>> from hockeystick.contraction import PNSGDGaussian
    >>> accountant = PNSGDGaussian(
    ...     n=40, index=39, sigma=2.0, learning_rate=0.5, lipschitz=1.0, smoothness=0.5, diameter=1.0
    ... )
    >>> round(accountant.delta(1.0), 6)
    0.016113
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
        self._setup(
            n, index, self.sigma, learning_rate, lipschitz, smoothness, diameter, strong_convexity
        )


class PNSGDLaplace(_PNSGDPower):
    r"""Delta(epsilon) of projected noisy SGD with Laplace noise for the i-th record (paper 002, Theorem 3).

    One-dimensional PNSGD on K = [a, b] (``diameter`` = b - a) with Laplace noise of scale v, the
    loss and M as in ``PNSGDGaussian``:

    .. math::

        \delta(\varepsilon) = \big(1 - e^{\varepsilon/2 - L/v}\big)_+
          \big(1 - e^{\varepsilon/2 - M(b-a)/(2\eta v)}\big)_+^{\,n-i},

    from Lemma 1, :math:`E_\gamma(\mathcal{L}(m_1, v)\|\mathcal{L}(m_2, v)) = [1 -
    \exp((v\log\gamma - |m_1 - m_2|)/(2v))]_+`. For i < n, delta is 0 once :math:`\varepsilon \ge \min\{2L/v,\
    M(b-a)/(\eta v)\}`, as the paper states; for i = n the product is empty and delta is 0 only once
    :math:`\varepsilon \ge 2L/v` (the paper states the minimum for every i). ``delta`` is rounded up
    by 2^-42 relative.

    Parameters
    ----------
    n : array_like
        Number of records (iterations), a whole number >= 1.
    index : array_like
        Position i of the protected record, a whole number with 1 <= i <= n.
    scale : array_like
        Laplace scale v, finite and > 0.
    learning_rate : array_like
        Step eta, finite and > 0, with eta <= 2/(beta + lambda).
    lipschitz : array_like
        Lipschitz constant L of the loss, finite and > 0.
    smoothness : array_like
        Smoothness beta, finite and > 0.
    diameter : array_like
        Length b - a of the interval K = [a, b], finite and > 0.
    strong_convexity : array_like, default 0.0
        Strong-convexity modulus lambda, finite, >= 0 and <= ``smoothness`` (0: M = 1).

    Raises
    ------
    ValueError
        A parameter outside its range above; ``index`` outside [1, n]; ``strong_convexity >
        smoothness``; ``learning_rate > 2 / (smoothness + strong_convexity)``; an overflowing radius
        (noise below ~1e-300 times its numerator); shapes that do not broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None.

    Notes
    -----
    The parameters are keyword-only and broadcast with each other and with the argument of
    ``delta``/``epsilon``.

    References
    ----------
    Paper 002, Theorem 3 and Lemma 1 (eq. 14 for M).

    Examples
    --------
    >>> from hockeystick.contraction import PNSGDLaplace
    >>> accountant = PNSGDLaplace(
    ...     n=40, index=39, scale=1.0, learning_rate=0.5, lipschitz=1.0, smoothness=0.5, diameter=1.0
    ... )
    >>> accountant.delta([1.0, 2.0]).round(6)
    array([0.154818, 0.      ])
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
        self._setup(
            n, index, self.scale, learning_rate, lipschitz, smoothness, diameter, strong_convexity
        )


@accountant_docs(
    sides=UPPER_ONLY
)  # completes delta / epsilon docstrings with the contract's sections
class PNSGDRandomStop:
    r"""Delta(epsilon) of projected noisy SGD stopped at a uniformly random iteration (paper 002, Theorem 5).

    ``PNSGDGaussian``'s algorithm outputs :math:`Y_\tau`, :math:`\tau` uniform on {1, ..., n}.
    Record i is seen only if :math:`\tau \ge i`, so

    .. math::

        \delta_i(\varepsilon) = \frac{1}{n}\, \theta_{e^\varepsilon}\Big(\frac{2L}{\sigma}\Big)
          \sum_{k=0}^{n-i} \theta_{e^\varepsilon}\Big(\frac{M D_K}{\eta\sigma}\Big)^k
        \;\le\; \frac{1}{n}\, \frac{\theta_{e^\varepsilon}(2L/\sigma)}{1 - \theta_{e^\varepsilon}(M D_K/(\eta\sigma))}
        \quad \text{(eq. 16)},

    largest at i = 1. The default is the finite sum; ``paper_form=True`` gives the paper's eq. 16.
    ``delta`` is rounded up by 2^-42 relative.

    Parameters
    ----------
    n : array_like
        Number of records (iterations), a whole number >= 1.
    sigma : array_like
        Standard deviation of the Gaussian noise, finite and > 0.
    learning_rate : array_like
        Step eta, finite and > 0, with eta <= 2/(beta + lambda).
    lipschitz : array_like
        Lipschitz constant L of the loss, finite and > 0.
    smoothness : array_like
        Smoothness beta, finite and > 0.
    diameter : array_like
        Diameter D_K of the convex compact set K projected onto, finite and > 0.
    strong_convexity : array_like, default 0.0
        Strong-convexity modulus lambda, finite, >= 0 and <= ``smoothness`` (0: M = 1).
    index : array_like, optional
        Record i, a whole number with 1 <= i <= n; default None, the worst record i = 1 (which
        bounds every record). Checked but unused with ``paper_form``.
    paper_form : bool, default False
        True: eq. 16 exactly (the infinite geometric sum); False: the finite sum, which is smaller.

    Raises
    ------
    ValueError
        A parameter outside its range above; ``index`` outside [1, n]; ``strong_convexity >
        smoothness``; ``learning_rate > 2 / (smoothness + strong_convexity)``; an overflowing radius
        (noise below ~1e-300 times its numerator); shapes that do not broadcast.
    ParameterTypeError
        A parameter that is a string, bool or None; ``paper_form`` not a bool.

    References
    ----------
    Paper 002, Theorem 5 (eq. 16) and Theorem 4.

    Examples
    --------
    >>> from hockeystick.contraction import PNSGDRandomStop
    >>> accountant = PNSGDRandomStop(
    ...     n=40, sigma=0.5, learning_rate=0.5, lipschitz=1.0, smoothness=0.5, diameter=1.0
    ... )
    >>> round(accountant.delta(1.0), 6)
    0.301064
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
            r1=(self._r_first, "2 lipschitz / sigma"),
            r2=(self._r_product, "modulus diameter / (learning_rate sigma)"),
        )

    def delta(
        self, epsilon: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Theorem's delta(eps) = (1/n) theta(2L/sigma) sum_{k=0}^{n-i} theta(M D/(eta sigma))^k, rounded up.

        With ``paper_form`` the sum runs to infinity (eq. 16).  Upper side only: the theorem gives
        no lower bound.

        Parameters
        ----------
        threads : int, optional
            OpenMP threads for array input.

        Returns
        -------
        float or numpy.ndarray
            The value is 0 at epsilon = inf.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.geometric_delta(
            _checks.epsilon_values(epsilon),
            self._weight,
            self._terms,
            self._r_first,
            self._r_product,
            threads,
        )

    def epsilon(
        self, delta: npt.ArrayLike, *, bound: Bound = "upper", threads: int | None = None
    ) -> FloatOrArray:
        """Smallest epsilon >= 0 whose reported delta(eps) is <= delta (bracketed Newton in C++, per point).

        Parameters
        ----------
        threads : int, optional
            OpenMP threads for array input.

        Returns
        -------
        float or numpy.ndarray
            0 where delta(0) <= delta; within about 1e-15 relative above the root.

        Raises
        ------
        ValueError
            ``threads`` not a positive integer.
        """
        _checks.upper_only(bound, type(self).__name__)
        return _kernels.geometric_epsilon(
            _checks.delta_values(delta),
            self._weight,
            self._terms,
            self._r_first,
            self._r_product,
            threads,
        )
