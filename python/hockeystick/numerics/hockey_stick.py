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
N(t) = 1 - t M(t) over [x1, x2]; see cpp/include/hockeystick/numerics/hockey_stick.hpp.
"""

from __future__ import annotations

from typing import overload

import numpy as np

from .. import _core
from ..base.elementwise import ArrayLike, FloatOrArray, NonScalar, apply, as_float_array

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


@overload
def theta(r: float, epsilon: float, *, threads: int | None = None) -> float: ...
@overload
def theta(r: NonScalar, epsilon: ArrayLike, *, threads: int | None = None) -> np.ndarray: ...
@overload
def theta(r: ArrayLike, epsilon: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def theta(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    r"""Hockey-stick divergence of two unit-variance Gaussians, theta_eps(r).

    .. math::

        \theta_\varepsilon(r) = E_{e^\varepsilon}\bigl(N(r,1) \,\|\, N(0,1)\bigr)
        = Q(\varepsilon/r - r/2) - e^\varepsilon\, Q(\varepsilon/r + r/2)

    It is the exact :math:`\delta(\varepsilon)` of the Gaussian mechanism with sensitivity / sigma =
    r, the privacy profile of mu-GDP with mu = r, and the contraction coefficient of a projected
    Gaussian kernel. Computed as :math:`\varphi(x_1)(M(x_1) - M(x_1 + r))`, :math:`x_1 =
    \varepsilon/r - r/2`, with a Gauss-Legendre integral where that difference would cancel, so no
    digit is lost for tiny r, large epsilon, or values far below 1e-16.

    Parameters
    ----------
    r : array_like
        Distance between the means in units of the noise standard deviation (sensitivity / sigma; mu
        for mu-GDP); r >= 0, ``inf`` gives 1.
    epsilon : array_like
        The divergence's log gamma, epsilon >= 0; ``inf`` gives 0.  Broadcasts against ``r``.
    threads : int, optional
        OpenMP threads.  ``None`` (the default) uses every core when there are at least 2**15 points
        and one thread below; an explicit count is used as given (capped at 4x the processors).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar inputs, else an array of the broadcast shape of the inputs.
        Relative error at most 1e-12 wherever theta >= 1e-300 (see `log_theta` below that).

    Raises
    ------
    ValueError
        If r < 0 or epsilon < 0, either is NaN, or the shapes do not broadcast; the message names
        the argument and the first offending element.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    See Also
    --------
    log_theta : its logarithm, finite far below the double range.
    theta_epsilon : the inverse in epsilon.
    theta_radius : the inverse in r.

    References
    ----------
    Paper 000, eq. 6 and Lemma 1; paper 002, Definition 1 and eq. 10 (gamma = e^eps); paper 004,
    eq. 8.

    Examples
    --------
    >>> from hockeystick import theta
    >>> round(theta(1.0, 1.0), 6)
    0.126937
    """
    return apply(_core.hockey_stick.theta, threads, r=r, epsilon=epsilon)


@overload
def log_theta(r: float, epsilon: float, *, threads: int | None = None) -> float: ...
@overload
def log_theta(r: NonScalar, epsilon: ArrayLike, *, threads: int | None = None) -> np.ndarray: ...
@overload
def log_theta(r: ArrayLike, epsilon: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def log_theta(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    r"""Natural logarithm of theta_eps(r), finite and accurate far below the double range.

    .. math::

        \log \theta_\varepsilon(r) = \log \varphi(x_1) + \log\bigl(M(x_1) - M(x_1 + r)\bigr),
        \qquad x_1 = \varepsilon/r - r/2,

    with :math:`x_1^2/2` formed in double-double.  Radii below 2**-900 (subnormal ones included) are
    evaluated in the core as :math:`\log\theta(rs, \varepsilon s) - \log s`, :math:`s = 2^{600}`: at
    fixed :math:`x_1`, theta scales with r up to a relative :math:`O(2^{-300})`.

    Parameters
    ----------
    r : array_like
        Distance between the means over the noise standard deviation, r >= 0.
    epsilon : array_like
        The divergence's log gamma, epsilon >= 0.  Broadcasts against ``r``.
    threads : int, optional
        OpenMP threads.  ``None`` (the default) uses every core when there are at least 2**15 points
        and one thread below; an explicit count is used as given (capped at 4x the processors).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar inputs, else an array of the broadcast shape of the inputs.
        Absolute error at most 1e-10; ``-inf`` where theta is 0 (r = 0, or epsilon = inf).

    Raises
    ------
    ValueError
        If r < 0 or epsilon < 0, either is NaN, or the shapes do not broadcast.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    See Also
    --------
    theta : the divergence itself.

    References
    ----------
    Paper 000, eq. 6; W. J. Cody, Math. Comp. 23 (1969) for the Mills ratio M.

    Examples
    --------
    >>> from hockeystick import log_theta
    >>> round(log_theta(0.01, 100.0))
    -49999974
    """
    return apply(_core.hockey_stick.log_theta, threads, r=r, epsilon=epsilon)


@overload
def theta_depsilon(r: float, epsilon: float, *, threads: int | None = None) -> float: ...
@overload
def theta_depsilon(
    r: NonScalar, epsilon: ArrayLike, *, threads: int | None = None
) -> np.ndarray: ...
@overload
def theta_depsilon(
    r: ArrayLike, epsilon: NonScalar, *, threads: int | None = None
) -> np.ndarray: ...
def theta_depsilon(r: ArrayLike, epsilon: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    r"""Derivative of theta_eps(r) in epsilon, never positive.

    .. math::

        \frac{\partial\theta_\varepsilon(r)}{\partial\varepsilon} = -e^\varepsilon Q(\varepsilon/r + r/2)
        = -\varphi(x_1)\, M(x_1 + r)

    Parameters
    ----------
    r : array_like
        Distance between the means over the noise standard deviation, r >= 0.
    epsilon : array_like
        The divergence's log gamma, epsilon >= 0.  Broadcasts against ``r``.
    threads : int, optional
        OpenMP threads.  ``None`` (the default) uses every core when there are at least 2**15 points
        and one thread below; an explicit count is used as given (capped at 4x the processors).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar inputs, else an array of the broadcast shape of the inputs.
        Values in [-1, 0].

    Raises
    ------
    ValueError
        If r < 0 or epsilon < 0, either is NaN, or the shapes do not broadcast.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    References
    ----------
    Paper 000, eq. 6 differentiated; the form in M keeps full relative precision.

    Examples
    --------
    >>> from hockeystick import theta_depsilon
    >>> round(theta_depsilon(1.0, 1.0), 6)
    -0.181601
    """
    return apply(_core.hockey_stick.theta_depsilon, threads, r=r, epsilon=epsilon)


@overload
def theta_epsilon(r: float, delta: float, *, threads: int | None = None) -> float: ...
@overload
def theta_epsilon(r: NonScalar, delta: ArrayLike, *, threads: int | None = None) -> np.ndarray: ...
@overload
def theta_epsilon(r: ArrayLike, delta: NonScalar, *, threads: int | None = None) -> np.ndarray: ...
def theta_epsilon(r: ArrayLike, delta: ArrayLike, *, threads: int | None = None) -> FloatOrArray:
    r"""The epsilon >= 0 at which theta_eps(r) equals delta: the epsilon(delta) of the Gaussian mechanism.

    Solves :math:`\theta_\varepsilon(r) = \delta` by bracketed Newton steps on log theta, started at
    the upper bound :math:`r\,(Q^{-1}(\delta) + r/2)`; 0 where :math:`\theta_0(r) \le \delta`
    already.  With r = sensitivity / sigma (or mu for mu-GDP) it is the mechanism's exact epsilon at
    delta.

    Parameters
    ----------
    r : array_like
        Distance between the means over the noise standard deviation, r >= 0.
    delta : array_like
        Target delta, strictly between 0 and 1.  Broadcasts against ``r``.
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
        If r < 0, delta is outside (0, 1), either is NaN, or the shapes do not broadcast.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    See Also
    --------
    theta : the forward map.
    theta_radius : the inverse in r.

    References
    ----------
    Paper 000, eq. 6; paper 004, eq. 8 (mu-GDP's epsilon at delta).

    Examples
    --------
    >>> from hockeystick import theta_epsilon
    >>> round(theta_epsilon(1.0, 1e-5), 6)
    4.377178
    """
    return apply(_core.hockey_stick.theta_epsilon, threads, r=r, delta=delta)


@overload
def theta_radius(epsilon: float, delta: float, *, threads: int | None = None) -> float: ...
@overload
def theta_radius(
    epsilon: NonScalar, delta: ArrayLike, *, threads: int | None = None
) -> np.ndarray: ...
@overload
def theta_radius(
    epsilon: ArrayLike, delta: NonScalar, *, threads: int | None = None
) -> np.ndarray: ...
def theta_radius(
    epsilon: ArrayLike, delta: ArrayLike, *, threads: int | None = None
) -> FloatOrArray:
    r"""The r > 0 at which theta_eps(r) equals delta: the largest sensitivity / sigma that is (epsilon, delta)-DP.

    Noise calibration of the Gaussian mechanism: sigma = sensitivity / r.  Started at :math:`r =
    \sqrt{z^2 + 2\varepsilon} - z`, :math:`z = Q^{-1}(\delta)`, then bracketed Newton steps.

    Parameters
    ----------
    epsilon : array_like
        Target epsilon >= 0, finite ones at most ``MAX_RADIUS_EPSILON`` = 1e307 (the solve forms
        2 epsilon, which must stay a finite double); ``inf`` gives r = inf.
    delta : array_like
        Target delta, strictly between 0 and 1.  Broadcasts against ``epsilon``.
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
        If epsilon < 0 or above 1e307 (finite), delta is outside (0, 1), either is NaN, or the
        shapes do not broadcast.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    See Also
    --------
    theta : the forward map.
    theta_epsilon : the inverse in epsilon.

    References
    ----------
    Paper 000, eq. 6 (the Gaussian mechanism's profile, inverted in r).

    Examples
    --------
    >>> from hockeystick import theta_radius
    >>> round(theta_radius(1.0, 1e-5), 6)
    0.268051
    """
    eps_arr = as_float_array(epsilon, "epsilon")
    too_big = (eps_arr > MAX_RADIUS_EPSILON) & np.isfinite(eps_arr)  # eps = inf: r = inf, exact
    if too_big.any():
        bad = float(np.ravel(eps_arr)[int(np.argmax(np.ravel(too_big)))])
        raise ValueError(
            f"epsilon must be <= {MAX_RADIUS_EPSILON:g} for theta_radius, got {bad!r}: "
            "the solve forms 2 epsilon, which must stay a finite double"
        )
    return apply(_core.hockey_stick.theta_radius, threads, epsilon=eps_arr, delta=delta)


@overload
def laplace_hockey_stick(
    distance: float, scale: float, epsilon: float, *, threads: int | None = None
) -> float: ...
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
    r"""Hockey-stick divergence of two Laplace laws with the same scale.

    .. math::

        E_{e^\varepsilon}\bigl(\mathrm{Lap}(m_1, b) \,\|\, \mathrm{Lap}(m_2, b)\bigr)
        = \Bigl[1 - \exp\bigl((\varepsilon - |m_1 - m_2|/b)/2\bigr)\Bigr]_+

    Parameters
    ----------
    distance : array_like
        Distance between the locations, :math:`|m_1 - m_2| \ge 0`.
    scale : array_like
        The Laplace scale b > 0.
    epsilon : array_like
        The divergence's log gamma, epsilon >= 0.  The three arguments broadcast together.
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
        If distance < 0, scale <= 0, epsilon < 0, any is NaN, or the shapes do not broadcast.
    ParameterTypeError
        If an argument is a string, a boolean or None (a TypeError and a ValueError).

    References
    ----------
    Paper 002, Lemma 1.

    Examples
    --------
    >>> from hockeystick import laplace_hockey_stick
    >>> round(laplace_hockey_stick(1.0, 1.0, 0.5), 6)
    0.221199
    """
    return apply(
        _core.hockey_stick.laplace_hockey_stick,
        threads,
        distance=distance,
        scale=scale,
        epsilon=epsilon,
    )
