"""Paper 001, Theorems 5.12-5.14: the privacy-utility trade-off (eps_p privacy leakage, eps_u utility loss).

    Thm 5.13 (eq. 19, no free lunch, from Zhang et al. 2022a Thm 4.1):
        eps_p + C_d eps_u >= C_1,        C_d = gamma (e^{2 xi} - 1) / (4 Delta) = gamma C_2 / (2 Delta)
    Thm 5.12:   eps_p + (C_2 / C_6) eps_u <= -(C_2 / C_6) E[Var(W~_t | W_{t-1})] + 2 C_1
    Thm 5.14:   if C_d = C_2 / C_6 and C_1 = (C_2 / C_6) E[Var(W~_t | W_{t-1})], the trade-off is optimal

C_1 = sqrt(JS(F || F~)) (one client), C_2 = (e^{2 xi} - 1) / 2 (eq. 12), C_6 > 0 Theorem 5.1's
constant, Delta > 0 Assumption C.1's, gamma in [1/150, 150] (the ratio of the clients' TV sum to the
aggregate's, remark after Thm 5.13).  Appendix O restates Thm 5.12 with C_2 / C_4 on the left and
C_2 / C_6 on the right.  Paper formulas, not guarantees (docs/paper-001-errata.md).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative, positive, real
from ._shapes import broadcasting
from .paper_leakage import c2_constant

__all__ = ["nfl_constant", "nfl_privacy_floor", "thm_5_12_upper_bound", "thm_5_14_optimal_variance"]


def _out(x: np.ndarray) -> float | np.ndarray:
    return float(x) if x.ndim == 0 else x


@broadcasting
def nfl_constant(
    gamma: npt.ArrayLike, delta: npt.ArrayLike, xi: npt.ArrayLike
) -> float | np.ndarray:
    r"""The no-free-lunch constant C_d of Theorem 5.13 (eq. 19) (paper formula, not a guarantee).

    .. math::

        C_d = \frac{\gamma (e^{2\xi} - 1)}{4 \Delta} = \frac{\gamma C_2}{2 \Delta},
        \qquad C_2 = \frac{e^{2\xi} - 1}{2}.

    Parameters
    ----------
    gamma : array_like
        :math:`\gamma`, the ratio of the clients' TV sum to the aggregate's, in [1/150, 150] (remark
        after Theorem 5.13).
    delta : array_like
        :math:`\Delta` of Assumption C.1, finite and > 0 (not a DP delta).
    xi : array_like
        :math:`\xi = \max_{w, d} |\log(f_{D|W}(d \mid w) / f_D(d))|`, the maximal log
        posterior-to-prior ratio (Section 5.2), finite and >= 0. The three broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`C_d`: a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``gamma`` not finite and > 0 or outside [1/150, 150], ``delta`` not finite and > 0, or
        ``xi`` not finite and >= 0; or shapes that do not broadcast together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Theorem 5.13 (eq. 19), eq. 12 and Assumption C.1; docs/paper-001-errata.md,
    section 7.

    Examples
    --------
    >>> from hockeystick.leakage import nfl_constant
    >>> round(nfl_constant(1.0, 1.0, 0.5), 6)
    0.42957
    """
    g = positive(gamma, "gamma")
    if not np.all((g >= 1 / 150) & (g <= 150)):
        raise ValueError("gamma must lie in [1/150, 150] (paper 001, remark after Theorem 5.13)")
    return _out(g * np.asarray(c2_constant(xi)) / (2.0 * positive(delta, "delta")))


@broadcasting
def nfl_privacy_floor(
    c1: npt.ArrayLike, cd: npt.ArrayLike, utility_loss: npt.ArrayLike
) -> float | np.ndarray:
    r"""The least leakage eq. 19 allows at a utility loss, C_1 - C_d eps_u (paper formula, not a guarantee).

    .. math::

        \epsilon_p + C_d\, \epsilon_u \ge C_1 \iff \epsilon_p \ge C_1 - C_d\, \epsilon_u.

    Parameters
    ----------
    c1 : array_like
        :math:`C_1 = \sqrt{\mathrm{JS}(F \,\|\, \tilde F)}` for one client (eq. 13 averages it over
        clients), finite and >= 0.
    cd : array_like
        :math:`C_d` (:func:`hockeystick.leakage.nfl_constant`), finite and >= 0.
    utility_loss : array_like
        The utility loss :math:`\epsilon_u` (Definition 3; its sign is discussed in the errata),
        any finite real number.  The three broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`C_1 - C_d\, \epsilon_u`: a float for scalar input, else an array of the broadcast
        shape.

    Raises
    ------
    ValueError
        ``c1`` or ``cd`` not finite and >= 0, or ``utility_loss`` NaN or infinite;
        or shapes that do not broadcast together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Theorem 5.13 (eq. 19) and Definition 3; docs/paper-001-errata.md, section 6.

    Examples
    --------
    >>> from hockeystick.leakage import nfl_privacy_floor
    >>> round(nfl_privacy_floor(0.3, 0.5, 0.2), 6)
    0.2
    """
    return _out(
        nonnegative(c1, "c1")
        - nonnegative(cd, "cd") * real(utility_loss, "utility_loss", finite=True)
    )


@broadcasting
def thm_5_12_upper_bound(
    c1: npt.ArrayLike, xi: npt.ArrayLike, c6: npt.ArrayLike, expected_variance: npt.ArrayLike
) -> float | np.ndarray:
    r"""Theorem 5.12's bound on eps_p + (C_2 / C_6) eps_u, 2 C_1 - (C_2 / C_6) E[Var] (paper formula, not a guarantee).

    .. math::

        \epsilon_p + \frac{C_2}{C_6}\, \epsilon_u
        \le -\frac{C_2}{C_6}\, E[\mathrm{Var}(\tilde W_t \mid W_{t-1})] + 2 C_1,
        \qquad C_2 = \frac{e^{2\xi} - 1}{2}.

    Appendix O restates it with :math:`C_2 / C_4` on the left; the right-hand side is computed.

    Parameters
    ----------
    c1 : array_like
        :math:`C_1 = \sqrt{\mathrm{JS}(F \,\|\, \tilde F)}` for one client (eq. 13 averages it over
        clients), finite and >= 0.
    xi : array_like
        :math:`\xi = \max_{w, d} |\log(f_{D|W}(d \mid w) / f_D(d))|`, the maximal log
        posterior-to-prior ratio (Section 5.2), finite and >= 0.
    c6 : array_like
        :math:`C_6`, Theorem 5.1's constant, finite and > 0.
    expected_variance : array_like
        :math:`E[\mathrm{Var}(\tilde W_t \mid W_{t-1})]`, finite and >= 0.  The four broadcast
        together.

    Returns
    -------
    float or numpy.ndarray
        The right-hand side: a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``c1``, ``xi`` or ``expected_variance`` not finite and >= 0, or ``c6`` not finite and > 0;
        or shapes that do not broadcast together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Theorem 5.12 and Appendix O (Theorem O.1); docs/paper-001-errata.md, section 7.

    Examples
    --------
    >>> from hockeystick.leakage import thm_5_12_upper_bound
    >>> round(thm_5_12_upper_bound(0.3, 0.5, 1.0, 0.1), 6)
    0.514086
    """
    ratio = np.asarray(c2_constant(xi)) / positive(c6, "c6")
    return _out(
        2.0 * nonnegative(c1, "c1") - ratio * nonnegative(expected_variance, "expected_variance")
    )


@broadcasting
def thm_5_14_optimal_variance(
    c1: npt.ArrayLike, xi: npt.ArrayLike, c6: npt.ArrayLike
) -> float | np.ndarray:
    r"""The expected variance C_1 C_6 / C_2 at which Theorem 5.14 declares the trade-off optimal (paper formula, not a guarantee).

    .. math::

        E[\mathrm{Var}(\tilde W_t \mid W_{t-1})] = \frac{C_1 C_6}{C_2},
        \qquad C_2 = \frac{e^{2\xi} - 1}{2},

    the variance solving :math:`C_1 = (C_2 / C_6)\, E[\mathrm{Var}]`, given :math:`C_d = C_2 / C_6`.

    Parameters
    ----------
    c1 : array_like
        :math:`C_1 = \sqrt{\mathrm{JS}(F \,\|\, \tilde F)}` for one client (eq. 13 averages it over
        clients), finite and >= 0.
    xi : array_like
        :math:`\xi`, the maximal log posterior-to-prior ratio (Section 5.2), finite and > 0
        (:math:`C_2 = 0` at :math:`\xi = 0`).
    c6 : array_like
        :math:`C_6`, Theorem 5.1's constant, finite and > 0.  The three broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`C_1 C_6 / C_2`: a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``c1`` not finite and >= 0, or ``xi`` or ``c6`` not finite and > 0; or shapes that do not
        broadcast together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Theorem 5.14.

    Examples
    --------
    >>> from hockeystick.leakage import thm_5_14_optimal_variance
    >>> round(thm_5_14_optimal_variance(0.3, 0.5, 1.0), 6)
    0.349186
    """
    c2 = np.asarray(c2_constant(positive(xi, "xi")))
    return _out(nonnegative(c1, "c1") * positive(c6, "c6") / c2)
