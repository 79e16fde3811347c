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

__all__ = ["tv_bracket"]


def tv_bracket(
    variance: npt.ArrayLike, distortion_variance: npt.ArrayLike, dimension: npt.ArrayLike
) -> tuple[float | np.ndarray, float | np.ndarray]:
    """(lower, upper) of Lemma 5.7 (eq. 15); paper formula, not a guarantee.

    lower = min{1, x} / 100 and upper = 3 min{1, x} / 2 with x = sigma_eps^2 sqrt(d) / sigma^2.
    Arguments broadcast (numpy rules): variance sigma^2 > 0, distortion_variance sigma_eps^2 >= 0,
    dimension d (whole number >= 1).  Floats for scalar input.
    """
    v = positive(variance, "variance")
    e = nonnegative(distortion_variance, "distortion_variance")
    d = positive_integer(dimension, "dimension")
    x = np.minimum(1.0, e * np.sqrt(d) / v)
    lower, upper = x / 100.0, 1.5 * x
    if x.ndim == 0:
        return float(lower), float(upper)
    return lower, upper
