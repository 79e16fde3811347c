"""Paper 001, Lemma 5.7 (eq. 15): the TV bracket for Gaussian parameter distortion.

    (1/100) min{1, sigma_eps^2 sqrt(d) / sigma^2}  <=  TV(P, P~)  <=  (3/2) min{1, sigma_eps^2 sqrt(d) / sigma^2}

sigma^2 the variance of the original parameter, sigma_eps^2 the variance of the added noise, d the
parameter's dimension (the paper cites Zhang et al. 2022a, b for it and states no distributions;
hockeystick reads it as P = N(mu, sigma^2 I_d), P~ = N(mu, (sigma^2 + sigma_eps^2) I_d), the
setting of its Algorithm 3).  Paper formula, not a guarantee: compare with
:func:`hockeystick.leakage.tv_exact`; docs/paper-001-errata.md tabulates where it holds and how
loose it is.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative, positive, positive_integer
from ._shapes import broadcasting

__all__ = ["tv_bracket"]


@broadcasting
def tv_bracket(
    variance: npt.ArrayLike, distortion_variance: npt.ArrayLike, dimension: npt.ArrayLike
) -> tuple[float | np.ndarray, float | np.ndarray]:
    r"""Lemma 5.7's bracket on the TV of Gaussian parameter distortion, as printed (paper formula, not a guarantee).

    .. math::

        \tfrac{1}{100} \min\{1, x\} \le \mathrm{TV}(P, \tilde P) \le \tfrac32 \min\{1, x\},
        \qquad x = \frac{\sigma_\epsilon^2 \sqrt d}{\sigma^2},

    read with :math:`P = N(\mu, \sigma^2 I_d)`, :math:`\tilde P = N(\mu, (\sigma^2 +
    \sigma_\epsilon^2) I_d)`. The exact value is :func:`hockeystick.leakage.tv_exact`.

    Parameters
    ----------
    variance : array_like
        Per-coordinate variance :math:`\sigma^2` of the original parameter, finite and > 0.
    distortion_variance : array_like
        Per-coordinate variance :math:`\sigma_\epsilon^2` of the added noise, finite and >= 0.
    dimension : array_like
        Dimension d of the parameter, a whole number >= 1.  The three arguments broadcast together.

    Returns
    -------
    lower, upper : float or numpy.ndarray
        :math:`\min\{1, x\} / 100` and :math:`3 \min\{1, x\} / 2`: floats for scalar input, else
        arrays of the broadcast shape.

    Raises
    ------
    ValueError
        ``variance`` not finite and > 0, ``distortion_variance`` not finite and >= 0, ``dimension``
        not a whole number >= 1, or shapes that do not broadcast.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Lemma 5.7 (eq. 15); docs/paper-001-errata.md, section 1 (where it holds, how loose).

    Examples
    --------
    >>> from hockeystick.leakage import tv_bracket
    >>> tv_bracket(1.0, 0.01, 100)
    (0.001, 0.15...)
    """
    v = positive(variance, "variance")
    e = nonnegative(distortion_variance, "distortion_variance")
    d = positive_integer(dimension, "dimension")
    x = np.minimum(1.0, e * np.sqrt(d) / v)
    lower, upper = x / 100.0, 1.5 * x
    if x.ndim == 0:
        return float(lower), float(upper)
    return lower, upper
