"""The distortion variance that meets a target TV exactly (compare paper 001's Lemma 5.8).

    sigma_eps^2 = sigma^2 rho*,   rho* the root of TV(N(0, I_d), N(0, (1 + rho) I_d)) = target,

found by Chandrupatla's bracketing method (scipy.optimize.elementwise.find_root) on log rho.  The
TV of the centred pair, F_d((1 + rho) a) - F_d(a) with a = d log(1 + rho) / rho, increases strictly
from 0 to 1 as rho grows (the family N(0, s^2 I_d) has a monotone likelihood ratio in ||x||^2, so
larger s^2 separates it further from s^2 = 1), so the root is unique and the smallest variance
that reaches the target.  Paper 001's Lemma 5.8 gets its variance from Lemma 5.7's lower bound
instead; docs/paper-001-errata.md compares the two.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..base.validation import describe, in_interval, positive, positive_integer
from ._gaussian_pair import MAX_DIMENSION, GaussianPair
from ._shapes import broadcasting
from .tv import _tv

__all__ = ["distortion_variance_for_tv"]

# Smallest target accepted: below it the root rho ~ 2 sqrt(pi) target / sqrt(d) leaves the bracket's
# range exp(-700) at d = MAX_DIMENSION, and then the doubles' (a variance that underflows to 0).
MIN_TARGET_TV = 1e-290


def _centred_tv(log_rho: np.ndarray, d: np.ndarray) -> np.ndarray:
    rho = np.exp(log_rho)
    pair = GaussianPair(
        rho.ravel(), np.broadcast_to(d, rho.shape).ravel(), np.zeros(rho.size), rho.shape, False
    )
    return _tv(pair).reshape(rho.shape)


def _stop_when_adjacent(state: Any) -> None:
    """Ends the root search once every root still searched has a bracket of two adjacent doubles:
    no step narrows it, nor changes its better end (the answer), and where |log rho| >= 128 half
    its width exceeds the tolerance 1e-14, which would otherwise run the search to its iteration
    limit."""
    low, high = state.bracket
    running = state.status == 1  # scipy's status of a root still being searched
    if np.all(np.nextafter(low[running], high[running]) >= high[running]):
        raise StopIteration


@broadcasting
def distortion_variance_for_tv(
    variance: npt.ArrayLike, dimension: npt.ArrayLike, target_tv: npt.ArrayLike
) -> float | np.ndarray:
    r"""The distortion variance whose exact TV equals a target: the smallest that reaches it.

    .. math::

        \sigma_\epsilon^2 = \sigma^2 \rho^*, \qquad
        \mathrm{TV}\big(N(0, I_d), N(0, (1 + \rho^*) I_d)\big) = \text{target},

    the TV of :math:`N(\mu, \sigma^2 I_d)` against :math:`N(\mu, (\sigma^2 + \sigma_\epsilon^2)
    I_d)` (:func:`hockeystick.leakage.tv_exact` with no shift).  The TV increases strictly in
    :math:`\rho`, so the root is unique and every smaller variance gives a smaller TV; it is found
    by Chandrupatla's bracketing method on :math:`\log \rho` (the result's TV equals the target to
    about :math:`10^{-13}` relative).  Paper 001's Lemma 5.8 instead takes its variance from Lemma
    5.7's lower bound (:func:`hockeystick.leakage.paper_distortion_variance`).

    Parameters
    ----------
    variance : array_like
        Per-coordinate variance :math:`\sigma^2` of the undistorted parameter, finite and > 0.
    dimension : array_like
        Dimension d of the parameter, a whole number in [1, 1e9].
    target_tv : array_like
        The TV to reach, in [1e-290, 1).  The three arguments broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`\sigma_\epsilon^2`, in the units of ``variance``: a float for scalar input, else an
        array of the broadcast shape.

    Raises
    ------
    ValueError
        ``variance`` not finite and > 0, ``dimension`` not a whole number in [1, 1e9], ``target_tv``
        NaN or outside (0, 1) (TV = 1 needs infinite noise) or below 1e-290, or shapes that do not
        broadcast.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Lemma 5.8 (eq. 35), the calibration this replaces by an exact root;
    docs/paper-001-errata.md, section 2.

    Examples
    --------
    >>> from hockeystick.leakage import distortion_variance_for_tv, tv_exact
    >>> v = distortion_variance_for_tv(1.0, 100, 0.05)
    >>> round(v, 6), round(tv_exact(1.0, v, 100), 6)
    (0.017925, 0.05)
    """
    from scipy.optimize import (
        elementwise,
    )  # lazy: scipy start-up time (import hockeystick loads no scipy)

    v = positive(variance, "variance")
    d = positive_integer(dimension, "dimension", maximum=MAX_DIMENSION)
    t = in_interval(
        target_tv, "target_tv", 0.0, 1.0, open_low=True, open_high=True
    )  # TV = 1: infinite noise
    if np.any(t < MIN_TARGET_TV):
        raise ValueError(
            f"target_tv must be >= {MIN_TARGET_TV:g} (the distortion variance underflows below), "
            f"got {describe(t[t < MIN_TARGET_TV].ravel()[0])}"
        )
    shape = np.broadcast_shapes(v.shape, d.shape, t.shape)
    d_flat, t_flat = np.broadcast_to(d, shape).ravel(), np.broadcast_to(t, shape).ravel()
    # TV ~ rho sqrt(d) / (2 sqrt(pi)) for small rho: start from that guess, a factor e^3 either side
    guess = np.log(2.0 * np.sqrt(np.pi) * t_flat / np.sqrt(d_flat))

    def gap(x: np.ndarray, dd: np.ndarray, tt: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, _centred_tv(x, dd) - tt)

    bracket = elementwise.bracket_root(
        gap, guess - 3.0, guess + 3.0, xmin=-700.0, xmax=700.0, args=(d_flat, t_flat)
    )
    if not np.all(bracket.success):
        raise RuntimeError("could not bracket the TV target (a bug: please report the arguments)")
    root = elementwise.find_root(
        gap,
        (bracket.bracket[0], bracket.bracket[1]),
        args=(d_flat, t_flat),
        tolerances=dict(xatol=1e-14, xrtol=0.0, fatol=0.0, frtol=0.0),
        callback=_stop_when_adjacent,
    )
    rho = np.exp(root.x).reshape(shape)
    out = np.broadcast_to(v, shape) * rho
    return float(out) if out.ndim == 0 else out
