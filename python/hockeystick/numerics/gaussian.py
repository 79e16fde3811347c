"""The standard normal tail Q, its logarithm, its inverse and the Mills ratio.

Q(x) = P(N(0,1) > x) = phi(x) M(x), with the Mills ratio M(x) = sqrt(pi/2) erfcx(x/sqrt 2)
from W. J. Cody's rational approximations (Math. Comp. 23, 1969); see
cpp/include/hockeystick/numerics/gaussian_tail.hpp for the regimes.  Relative error
<= 1e-12 against 50-digit mpmath wherever the value is >= 1e-300; log Q stays
finite and accurate far below that.
"""

from __future__ import annotations

from typing import overload

import numpy as np

from .. import _core
from ..base.elementwise import ArrayLike, FloatOrArray, NonScalar, apply

__all__ = ["gaussian_tail", "log_gaussian_tail", "gaussian_tail_inverse", "mills_ratio"]


@overload
def gaussian_tail(x: float, *, threads: int | None = None) -> float: ...
@overload
def gaussian_tail(x: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def gaussian_tail(x: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    r"""Standard normal tail Q(x) = P(N(0,1) > x), with full relative precision everywhere.

    .. math::

        Q(x) = \tfrac12 \operatorname{erfc}(x/\sqrt2) = \varphi(x)\, M(x)

    computed as :math:`\varphi(x) M(x)` for x >= 0 and :math:`1 - Q(-x)` below, so no value suffers
    the :math:`1 - \Phi` cancellation.

    Parameters
    ----------
    x : array_like
        Real numbers; ``inf`` gives 0, ``-inf`` gives 1.
    threads : int, optional
        OpenMP threads.  ``None`` (the default) uses every core when there are at least 2**15 points
        and one thread below; an explicit count is used as given (capped at 4x the processors).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar inputs, else an array of the broadcast shape of the inputs.
        Relative error at most 1e-12 against 50-digit mpmath wherever Q >= 1e-300.

    Raises
    ------
    ValueError
        If x is NaN.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    See Also
    --------
    log_gaussian_tail : log Q, finite far below the double range.

    References
    ----------
    W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23 (1969).

    Examples
    --------
    >>> from hockeystick import gaussian_tail
    >>> round(gaussian_tail(1.0), 6)
    0.158655
    """
    return apply(_core.hockey_stick.gaussian_tail, threads, x=x)


@overload
def log_gaussian_tail(x: float, *, threads: int | None = None) -> float: ...
@overload
def log_gaussian_tail(x: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def log_gaussian_tail(x: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    r"""Natural logarithm of the standard normal tail, log Q(x).

    .. math::

        \log Q(x) = -x^2/2 - \log\sqrt{2\pi} + \log M(x) \quad (x \ge 0), \qquad
        \log Q(x) = \operatorname{log1p}(-Q(-x)) \quad (x < 0)

    Finite for x below :math:`\sqrt{2\,\mathrm{DBL\_MAX}} \approx 1.9 \times 10^{154}`; above 1e150
    the asymptotic :math:`-x^2/2 - \log x - \log\sqrt{2\pi}` is used (its error is below 1e-300).

    Parameters
    ----------
    x : array_like
        Real numbers.
    threads : int, optional
        OpenMP threads.  ``None`` (the default) uses every core when there are at least 2**15 points
        and one thread below; an explicit count is used as given (capped at 4x the processors).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar inputs, else an array of the broadcast shape of the inputs.
        ``-inf`` where the value is below -DBL_MAX.

    Raises
    ------
    ValueError
        If x is NaN.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    References
    ----------
    W. J. Cody, Math. Comp. 23 (1969), for M.

    Examples
    --------
    >>> from hockeystick import log_gaussian_tail
    >>> round(log_gaussian_tail(1e4))
    -50000010
    """
    return apply(_core.hockey_stick.log_gaussian_tail, threads, x=x)


@overload
def gaussian_tail_inverse(p: float, *, threads: int | None = None) -> float: ...
@overload
def gaussian_tail_inverse(p: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def gaussian_tail_inverse(p: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    r"""Inverse of the standard normal tail: the x with Q(x) = p.

    Abramowitz & Stegun 26.2.23 as a start, then Newton steps on log Q.  :math:`Q^{-1}(0) = \infty`,
    :math:`Q^{-1}(1) = -\infty`.

    Parameters
    ----------
    p : array_like
        Probabilities in [0, 1].
    threads : int, optional
        OpenMP threads.  ``None`` (the default) uses every core when there are at least 2**15 points
        and one thread below; an explicit count is used as given (capped at 4x the processors).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar inputs, else an array of the broadcast shape of the inputs.

    Raises
    ------
    ValueError
        If p is outside [0, 1] or NaN.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    References
    ----------
    M. Abramowitz and I. A. Stegun, Handbook of Mathematical Functions, 26.2.23.

    Examples
    --------
    >>> from hockeystick import gaussian_tail_inverse
    >>> round(gaussian_tail_inverse(0.025), 6)
    1.959964
    """
    return apply(_core.hockey_stick.gaussian_tail_inverse, threads, p=p)


@overload
def mills_ratio(x: float, *, threads: int | None = None) -> float: ...
@overload
def mills_ratio(x: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def mills_ratio(x: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    r"""Mills ratio M(x) = Q(x) / phi(x) of the standard normal law.

    .. math::

        M(x) = \frac{Q(x)}{\varphi(x)} = \sqrt{\pi/2}\, \operatorname{erfcx}(x/\sqrt2)

    Parameters
    ----------
    x : array_like
        Real numbers.
    threads : int, optional
        OpenMP threads.  ``None`` (the default) uses every core when there are at least 2**15 points
        and one thread below; an explicit count is used as given (capped at 4x the processors).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar inputs, else an array of the broadcast shape of the inputs.

    Raises
    ------
    ValueError
        If x is NaN.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    References
    ----------
    W. J. Cody, Math. Comp. 23 (1969).

    Examples
    --------
    >>> from hockeystick import mills_ratio
    >>> round(mills_ratio(0.0), 6)
    1.253314
    """
    return apply(_core.hockey_stick.mills_ratio, threads, x=x)
