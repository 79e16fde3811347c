"""Paper 001, Theorems 5.10 and 5.11 and eq. 20: the sampling rate p for "near-optimal utility".

Each of a client's M records is drawn independently with probability p (Section 4.2, Step 1).
Writing G = sum_{i=1}^M ||grad L(W_{t-1}, d_i)||^2:

    Thm 5.10 (eq. 17):      Var[W~_t] = p (1 - p) G
    Thm 5.11 (eq. 18):      near-optimal utility if  p (1 - p) >= r,   r = C_6 (C_1 - tau) / G
    Section 6 (eq. 20):     utility loss 0 and leakage <= tau if  p (1 - p) G <= tau

Eq. 17 is the trace of the covariance of sum_i grad_i 1{i drawn} (one draw, N = 1); the proof in
Appendix K derives (1/N) p (1 - p) G for the average over N draws.  Eq. 18 and eq. 20 point in
opposite directions (p(1-p) bounded below vs above) with different right-hand sides; both are
provided as printed.  Paper formulas, not guarantees (docs/paper-001-errata.md).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative, positive
from ._shapes import broadcasting

__all__ = ["sampling_variance", "thm_5_11_sampling_rates", "eq_20_sampling_rates"]


def _probability(p: npt.ArrayLike) -> np.ndarray:
    arr = nonnegative(p, "sampling_rate")
    if not np.all(arr <= 1):
        raise ValueError(f"sampling_rate must lie in [0, 1] (got maximum {arr.max()!r})")
    return arr


def _roots(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two solutions of p (1 - p) = r <= 1/4: (2r / (1 + sqrt(1 - 4r)), 1 - that)."""
    low = 2.0 * r / (1.0 + np.sqrt(1.0 - 4.0 * r))
    return low, 1.0 - low


def _pair(a: np.ndarray, b: np.ndarray) -> tuple[float | np.ndarray, float | np.ndarray]:
    return (float(a), float(b)) if a.ndim == 0 else (a, b)


@broadcasting
def sampling_variance(
    sampling_rate: npt.ArrayLike, gradient_square_sum: npt.ArrayLike
) -> float | np.ndarray:
    r"""Theorem 5.10's variance p (1 - p) G of the sampled gradient sum (paper formula, not a guarantee).

    .. math::

        \mathrm{Var}[\tilde W_t] = p (1 - p) G, \qquad G = \sum_{i=1}^M \|\nabla L(W_{t-1}, d_i)\|^2.

    It is the exact trace of :math:`\mathrm{Cov}[\sum_i \nabla L_i\, 1\{i \text{ drawn}\}]` for
    independent draws (one draw, N = 1); Appendix K's proof has :math:`p(1-p)G/N` for the average
    over N draws.

    Parameters
    ----------
    sampling_rate : array_like
        Probability p with which each record is drawn, in [0, 1].
    gradient_square_sum : array_like
        :math:`G = \sum_{i=1}^M \|\nabla L(W_{t-1}, d_i)\|^2` over the client's M records, finite
        and >= 0.  The two broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`p (1 - p) G`: a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``sampling_rate`` NaN or outside [0, 1], or ``gradient_square_sum`` not finite and >= 0;
        or shapes that do not broadcast together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Theorem 5.10 (eq. 17) and Appendix K; docs/paper-001-errata.md, section 4.

    Examples
    --------
    >>> from hockeystick.leakage import sampling_variance
    >>> round(sampling_variance(0.2, 10.0), 6)
    1.6
    """
    p = _probability(sampling_rate)
    out = p * (1.0 - p) * nonnegative(gradient_square_sum, "gradient_square_sum")
    return float(out) if out.ndim == 0 else out


@broadcasting
def thm_5_11_sampling_rates(
    c6: npt.ArrayLike, c1: npt.ArrayLike, tau: npt.ArrayLike, gradient_square_sum: npt.ArrayLike
) -> tuple[float | np.ndarray, float | np.ndarray]:
    r"""The interval of sampling rates that Theorem 5.11 (eq. 18) asks for (paper formula, not a guarantee).

    .. math::

        p (1 - p) \ge r = \frac{C_6 (C_1 - \tau)}{G}
        \iff p_{\mathrm{low}} \le p \le p_{\mathrm{high}}, \qquad
        p_{\mathrm{low}} = \frac{2r}{1 + \sqrt{1 - 4r}}, \quad p_{\mathrm{high}} = 1 - p_{\mathrm{low}}.

    Section 6's eq. 20 asks for the opposite side
    (:func:`hockeystick.leakage.eq_20_sampling_rates`).

    Parameters
    ----------
    c6 : array_like
        :math:`C_6`, Theorem 5.1's constant, finite and > 0.
    c1 : array_like
        :math:`C_1` (eq. 13), finite and >= 0.
    tau : array_like
        The leakage budget :math:`\tau`, finite and >= 0, with :math:`C_1 - \tau \ge 0`.
    gradient_square_sum : array_like
        :math:`G = \sum_{i=1}^M \|\nabla L(W_{t-1}, d_i)\|^2` over the client's M records, finite
        and > 0.  The four broadcast together.

    Returns
    -------
    p_low, p_high : float or numpy.ndarray
        The ends of the interval of rates satisfying eq. 18: floats for scalar input, else arrays.

    Raises
    ------
    ValueError
        ``c1`` or ``tau`` not finite and >= 0, ``c1 < tau``, ``c6`` or ``gradient_square_sum`` not
        finite and > 0, or :math:`r > 1/4` (no p satisfies eq. 18); or shapes that do not broadcast
        together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Theorem 5.11 (eq. 18); docs/paper-001-errata.md, sections 5 and 7.

    Examples
    --------
    >>> from hockeystick.leakage import thm_5_11_sampling_rates
    >>> [round(p, 6) for p in thm_5_11_sampling_rates(5, 0.3, 0.2, 4)]
    [0.146447, 0.853553]
    """
    gap = nonnegative(c1, "c1") - nonnegative(tau, "tau")
    if not np.all(gap >= 0):
        raise ValueError("eq. 18 needs c1 - tau >= 0")
    r = positive(c6, "c6") * gap / positive(gradient_square_sum, "gradient_square_sum")
    if not np.all(r <= 0.25):
        raise ValueError(
            f"no sampling rate satisfies eq. 18: c6 (c1 - tau) / gradient_square_sum = "
            f"{float(np.max(r))!r} > 1/4 = max p (1 - p)"
        )
    return _pair(*_roots(r))


@broadcasting
def eq_20_sampling_rates(
    tau: npt.ArrayLike, gradient_square_sum: npt.ArrayLike
) -> tuple[float | np.ndarray, float | np.ndarray]:
    r"""The sampling rates that Section 6's eq. 20 asks for, p <= p_low or p >= p_high (paper formula, not a guarantee).

    .. math::

        p (1 - p) G \le \tau \iff p \le p_{\mathrm{low}} \ \text{or}\ p \ge p_{\mathrm{high}},
        \qquad p_{\mathrm{low}} = \frac{2r}{1 + \sqrt{1 - 4r}}, \quad p_{\mathrm{high}} = 1 - p_{\mathrm{low}},
        \quad r = \min(\tau / G, 1/4),

    so every p qualifies when :math:`\tau \ge G/4` (then :math:`p_{\mathrm{low}} =
    p_{\mathrm{high}} = 1/2`). Theorem 5.11's eq. 18 asks for the opposite side
    (:func:`hockeystick.leakage.thm_5_11_sampling_rates`).

    Parameters
    ----------
    tau : array_like
        The leakage budget :math:`\tau`, finite and >= 0.
    gradient_square_sum : array_like
        :math:`G = \sum_{i=1}^M \|\nabla L(W_{t-1}, d_i)\|^2` over the client's M records, finite
        and > 0.  The two broadcast together.

    Returns
    -------
    p_low, p_high : float or numpy.ndarray
        The two thresholds: floats for scalar input, else arrays of the broadcast shape.

    Raises
    ------
    ValueError
        ``tau`` not finite and >= 0, or ``gradient_square_sum`` not finite and > 0;
        or shapes that do not broadcast together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Section 6 (eq. 20); docs/paper-001-errata.md, section 5.

    Examples
    --------
    >>> from hockeystick.leakage import eq_20_sampling_rates
    >>> [round(p, 6) for p in eq_20_sampling_rates(0.2, 4)]
    [0.052786, 0.947214]
    """
    r = np.minimum(
        nonnegative(tau, "tau") / positive(gradient_square_sum, "gradient_square_sum"), 0.25
    )
    return _pair(*_roots(r))
