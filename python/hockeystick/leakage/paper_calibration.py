"""Paper 001, Lemmas 5.6 and 5.8 (eq. 14, eq. 35): the distortion the paper prescribes for a leakage budget.

Lemma 5.6 (eq. 14): if TV(P, P~) >= C_1 - tau, the leakage eps_p is at most tau, where
C_1 = (1/K) sum_k sqrt(JS(F^(k) || F~^(k))) (eq. 13) and tau the budget tau_{p,t}^(k).
Lemma 5.8 (eq. 35): with 0 < C_1 - tau < 0.01, the noise variance

    sigma_eps^2 = 100 sigma^2 (C_1 - tau) / sqrt(d)

makes Lemma 5.7's lower bound equal C_1 - tau (eq. 36), hence (Lemma 5.6) eps_p <= tau.  The
validity range is the paper's: outside it the lower bound's min{1, .} is 1 and the step of eq. 36
fails, so it is refused here.  Algorithm 1 uses this variance (var_t^(k)).

Paper formulas, not guarantees: Lemma 5.6's proof cites an inequality (eq. 32, eps_p <= C_1 - TV)
that Lemma 5.5 does not give; see docs/paper-001-errata.md.  The variance that meets a TV target
exactly is :func:`hockeystick.leakage.distortion_variance_for_tv`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative, positive, positive_integer, real
from ._shapes import broadcasting

__all__ = ["paper_distortion_variance", "paper_required_tv"]


@broadcasting
def paper_required_tv(c1: npt.ArrayLike, tau: npt.ArrayLike) -> float | np.ndarray:
    r"""The TV that Lemma 5.6 says suffices for leakage at most tau, C_1 - tau (paper formula, not a guarantee).

    .. math::

        \mathrm{TV}(P, \tilde P) \ge C_1 - \tau \;\Rightarrow\; \epsilon_p \le \tau,
        \qquad C_1 = \frac1K \sum_k \sqrt{\mathrm{JS}(F^{(k)} \,\|\, \tilde F^{(k)})} \ \text{(eq. 13)}.

    The lemma's proof cites an inequality Lemma 5.5 does not give (docs/paper-001-errata.md, section
    3).

    Parameters
    ----------
    c1 : array_like
        :math:`C_1` of eq. 13, finite and >= 0.
    tau : array_like
        The leakage budget :math:`\tau`, finite and >= 0, and < ``c1`` (otherwise any distortion
        meets the budget by the lemma).  The two broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`C_1 - \tau > 0`: a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``c1`` or ``tau`` not finite and >= 0, or ``tau`` >= ``c1``; or shapes that do not broadcast
        together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Lemma 5.6 (eq. 14) and eq. 13; docs/paper-001-errata.md, section 3.

    Examples
    --------
    >>> from hockeystick.leakage import paper_required_tv
    >>> round(paper_required_tv(0.3, 0.295), 6)
    0.005
    """
    c = nonnegative(c1, "c1")
    t = nonnegative(tau, "tau")
    gap = c - t
    if not np.all(gap > 0):
        raise ValueError("tau must be < c1 (Lemma 5.6 asks for TV >= c1 - tau > 0)")
    return float(gap) if gap.ndim == 0 else gap


@broadcasting
def paper_distortion_variance(
    variance: npt.ArrayLike, dimension: npt.ArrayLike, c1: npt.ArrayLike, tau: npt.ArrayLike
) -> float | np.ndarray:
    r"""Lemma 5.8's distortion variance for a leakage budget, as printed (paper formula, not a guarantee).

    .. math::

        \sigma_\epsilon^2 = \frac{100\, \sigma^2 (C_1 - \tau)}{\sqrt d},
        \qquad 0 < C_1 - \tau < 0.01,

    the variance at which Lemma 5.7's lower bound equals :math:`C_1 - \tau` (eq. 36), and Algorithm
    1's :math:`\mathrm{var}_t^{(k)}`.  The variance that meets a TV target exactly is
    :func:`hockeystick.leakage.distortion_variance_for_tv`.

    Parameters
    ----------
    variance : array_like
        Per-coordinate variance :math:`\sigma^2` of the original parameter, finite and > 0.
    dimension : array_like
        Dimension d of the parameter, a whole number >= 1.
    c1 : array_like
        :math:`C_1` of eq. 13, a real number (not NaN).
    tau : array_like
        The leakage budget :math:`\tau`, a real number (not NaN), with :math:`0 < C_1 - \tau <
        0.01`. The four arguments broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`\sigma_\epsilon^2`, in the units of ``variance``: a float for scalar input, else an
        array of the broadcast shape.

    Raises
    ------
    ValueError
        ``variance`` not finite and > 0, ``dimension`` not a whole number >= 1, ``c1`` or ``tau``
        NaN, or ``c1 - tau`` outside (0, 0.01), the lemma's assumption (outside it eq. 36 does not
        hold); or shapes that do not broadcast together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Lemma 5.8 (eqs. 35-36) and Algorithm 1; docs/paper-001-errata.md, section 2.

    Examples
    --------
    >>> from hockeystick.leakage import paper_distortion_variance, tv_bracket
    >>> v = paper_distortion_variance(1.0, 100, 0.3, 0.295)
    >>> round(v, 6), round(tv_bracket(1.0, v, 100)[0], 6)
    (0.05, 0.005)
    """
    v = positive(variance, "variance")
    d = positive_integer(dimension, "dimension")
    gap = real(c1, "c1") - real(tau, "tau")
    if not np.all((gap > 0) & (gap < 0.01)):
        bad = gap[~((gap > 0) & (gap < 0.01))] if gap.ndim else gap
        raise ValueError(
            f"Lemma 5.8 needs 0 < c1 - tau < 0.01 (got c1 - tau = {float(np.ravel(bad)[0])!r}); "
            "outside that range its eq. 36 does not hold: use distortion_variance_for_tv "
            "for the exact variance"
        )
    out = 100.0 * v * gap / np.sqrt(d)
    return float(out) if out.ndim == 0 else out
