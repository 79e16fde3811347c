"""Paper 001's bounds on the privacy leakage eps_p = sqrt(JS(F~ || F)) (Definition 4, eq. 5) through TV.

    xi   = max_{w, d} |log(f_{D|W}(d | w) / f_D(d))|             (Section 5.2)
    C_2  = (e^{2 xi} - 1) / 2                                     (eq. 12)
    Lemma B.3:   sqrt(JS(F~ || F)) <= C_2 TV(P~ || P)             (JS <= (e^{2 xi} - 1)^2 TV^2 / 4)
    Lemma B.1:   eps_p >= C_1 - C_2 TV                            (lower bound, Zhang et al. 2022a)
    Lemma 5.5:   eps_p <= 2 C_1 - C_2 TV,  assuming C_2 TV <= C_1 (upper bound, proof in Appendix G)

C_1 = sqrt(JS(F || F~)) for one client (eq. 13 averages it over clients).  Paper formulas, not
guarantees: the proof of Lemma 5.5 (Appendix G) shows eps_p <= C_1 + C_2 TV and then replaces it
by 2 C_1 - C_2 TV, which is smaller only when 2 C_2 TV <= C_1, not under the stated C_2 TV <= C_1;
docs/paper-001-errata.md measures these against exact values.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..base.validation import nonnegative
from ._shapes import broadcasting

__all__ = ["c2_constant", "js_bound_from_tv", "lemma_b1_lower_bound", "lemma_5_5_upper_bound"]


def _out(x: np.ndarray) -> float | np.ndarray:
    return float(x) if x.ndim == 0 else x


def _tv(tv: npt.ArrayLike) -> np.ndarray:
    arr = nonnegative(tv, "tv")
    if not np.all(arr <= 1):
        raise ValueError(f"tv must lie in [0, 1] (got maximum {arr.max()!r})")
    return arr


def c2_constant(xi: npt.ArrayLike) -> float | np.ndarray:
    r"""The constant C_2 = (e^{2 xi} - 1) / 2 of eq. 12 (paper formula, not a guarantee).

    .. math::

        C_2 = \frac{e^{2\xi} - 1}{2},

    computed as :math:`\operatorname{expm1}(2\xi) / 2` (accurate for small :math:`\xi`).

    Parameters
    ----------
    xi : array_like
        :math:`\xi = \max_{w, d} |\log(f_{D|W}(d \mid w) / f_D(d))|`, the maximal log
        posterior-to-prior ratio (Section 5.2), finite and >= 0.

    Returns
    -------
    float or numpy.ndarray
        :math:`C_2 \ge 0` (inf when :math:`e^{2\xi}` overflows): a float for scalar input, else an
        array.

    Raises
    ------
    ValueError
        ``xi`` not finite and >= 0.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, eq. 12 and Section 5.2.

    Examples
    --------
    >>> from hockeystick.leakage import c2_constant
    >>> round(c2_constant(0.5), 6)
    0.859141
    """
    x = nonnegative(xi, "xi")
    return _out(0.5 * np.expm1(2.0 * x))


@broadcasting
def js_bound_from_tv(xi: npt.ArrayLike, tv: npt.ArrayLike) -> float | np.ndarray:
    r"""Lemma B.3's bound C_2 TV on the leakage sqrt(JS) (paper formula, not a guarantee).

    .. math::

        \sqrt{\mathrm{JS}(\tilde F \,\|\, F)} \le C_2\, \mathrm{TV}(\tilde P \,\|\, P),
        \qquad C_2 = \frac{e^{2\xi} - 1}{2},

    also the TV term of Lemma 5.5.

    Parameters
    ----------
    xi : array_like
        :math:`\xi = \max_{w, d} |\log(f_{D|W}(d \mid w) / f_D(d))|`, the maximal log
        posterior-to-prior ratio (Section 5.2), finite and >= 0.
    tv : array_like
        The total variation :math:`\mathrm{TV}(\tilde P \,\|\, P)` between the distorted and
        undistorted parameter distributions, in [0, 1]. The two broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`C_2\,\mathrm{TV}`: a float for scalar input, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        ``xi`` not finite and >= 0, or ``tv`` NaN or outside [0, 1]; or shapes that do not broadcast
        together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Lemma B.3 and eq. 12.

    Examples
    --------
    >>> from hockeystick.leakage import js_bound_from_tv
    >>> round(js_bound_from_tv(0.5, 0.1), 6)
    0.085914
    """
    return _out(np.asarray(c2_constant(xi)) * _tv(tv))


@broadcasting
def lemma_b1_lower_bound(
    c1: npt.ArrayLike, xi: npt.ArrayLike, tv: npt.ArrayLike
) -> float | np.ndarray:
    r"""Lemma B.1's lower bound C_1 - C_2 TV on the leakage of one client (paper formula, not a guarantee).

    .. math::

        \epsilon_p \ge C_1 - C_2\, \mathrm{TV}(\tilde P \,\|\, P), \qquad C_2 = \frac{e^{2\xi} - 1}{2}.

    Parameters
    ----------
    c1 : array_like
        :math:`C_1 = \sqrt{\mathrm{JS}(F \,\|\, \tilde F)}` for one client (eq. 13 averages it over
        clients), finite and >= 0.
    xi : array_like
        :math:`\xi = \max_{w, d} |\log(f_{D|W}(d \mid w) / f_D(d))|`, the maximal log
        posterior-to-prior ratio (Section 5.2), finite and >= 0.
    tv : array_like
        The total variation :math:`\mathrm{TV}(\tilde P \,\|\, P)` between the distorted and
        undistorted parameter distributions, in [0, 1]. The three broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`C_1 - C_2\,\mathrm{TV}` (may be negative): a float for scalar input, else an array.

    Raises
    ------
    ValueError
        ``c1`` or ``xi`` not finite and >= 0, or ``tv`` NaN or outside [0, 1]; or shapes that do not
        broadcast together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Lemma B.1 (from Zhang et al. 2022a).

    Examples
    --------
    >>> from hockeystick.leakage import lemma_b1_lower_bound
    >>> round(lemma_b1_lower_bound(0.3, 0.5, 0.1), 6)
    0.214086
    """
    return _out(nonnegative(c1, "c1") - np.asarray(c2_constant(xi)) * _tv(tv))


@broadcasting
def lemma_5_5_upper_bound(
    c1: npt.ArrayLike, xi: npt.ArrayLike, tv: npt.ArrayLike
) -> float | np.ndarray:
    r"""Lemma 5.5's upper bound 2 C_1 - C_2 TV on the leakage of one client (paper formula, not a guarantee).

    .. math::

        \epsilon_p \le 2 C_1 - C_2\, \mathrm{TV}(\tilde P \,\|\, P), \qquad
        \text{assuming } C_2\, \mathrm{TV} \le C_1.

    The proof (Appendix G) establishes :math:`C_1 + C_2\,\mathrm{TV}`, which is at most the stated
    bound only when :math:`2 C_2\,\mathrm{TV} \le C_1`; only the stated assumption is checked.

    Parameters
    ----------
    c1 : array_like
        :math:`C_1 = \sqrt{\mathrm{JS}(F \,\|\, \tilde F)}` for one client (eq. 13 averages it over
        clients), finite and >= 0.
    xi : array_like
        :math:`\xi = \max_{w, d} |\log(f_{D|W}(d \mid w) / f_D(d))|`, the maximal log
        posterior-to-prior ratio (Section 5.2), finite and >= 0.
    tv : array_like
        The total variation :math:`\mathrm{TV}(\tilde P \,\|\, P)` between the distorted and
        undistorted parameter distributions, in [0, 1]. The three broadcast together.

    Returns
    -------
    float or numpy.ndarray
        :math:`2 C_1 - C_2\,\mathrm{TV}`: a float for scalar input, else an array of the broadcast
        shape.

    Raises
    ------
    ValueError
        ``c1`` or ``xi`` not finite and >= 0, ``tv`` NaN or outside [0, 1], or
        :math:`C_2\,\mathrm{TV} > C_1` anywhere (the lemma's assumption); or shapes that do not
        broadcast together.
    ParameterTypeError
        An argument that is a string, bool or None.

    References
    ----------
    Paper 001, Lemma 5.5 and Appendix G; docs/paper-001-errata.md, section 3.

    Examples
    --------
    >>> from hockeystick.leakage import lemma_5_5_upper_bound
    >>> round(lemma_5_5_upper_bound(0.3, 0.5, 0.1), 6)
    0.514086
    """
    c = nonnegative(c1, "c1")
    term = np.asarray(c2_constant(xi)) * _tv(tv)
    if not np.all(term <= c):
        raise ValueError(
            "Lemma 5.5 assumes C_2 tv <= c1 (C_2 = (e^{2 xi} - 1) / 2); give a smaller xi or tv, or a larger c1"
        )
    return _out(2.0 * c - term)
