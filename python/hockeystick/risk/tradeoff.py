"""The trade-off curve, the TPR at an FPR and the advantage, each certified from an accountant's profile."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import validation as _validation
from ..base.accountant import Bound
from ..base.elementwise import ArrayLike
from .directions import Direction
from .power_bracket import DEFAULT_RTOL, power_bracket
from .profile import picked_sides, profiled


def tradeoff_curve(
    accountant: Any,
    alpha: ArrayLike,
    *,
    bound: Bound = "both",
    direction: Direction = "symmetric",
    rtol: float = DEFAULT_RTOL,
) -> Any:
    r"""Certified trade-off curve beta(alpha): the least false-negative rate of any test at false-positive rate alpha.

    Read off the accountant's privacy profile :math:`D(t) = \sup_S H_1(S) - t H_0(S)` (``D(e^eps)``
    is delta(eps); ``hockeystick.risk``'s docstring gives the construction and its proof) by the
    convex conjugate

    .. math::

        \beta(\alpha) = 1 - \min_{t \ge 0} \bigl(D(t) + \alpha t\bigr),

    bounded on both sides from the accountant's certified delta at finitely many eps.

    Parameters
    ----------
    accountant : object
        Any object with ``.delta(epsilon, bound=...)`` describing one mechanism (scalar parameters):
        a ``pld`` or ``rdp`` accountant, ``GaussianMechanism``, a ``training.DPSGD`` / ``DPFedAvg``
        run.
    alpha : float or array_like
        False-positive rates in [0, 1], any shape (the result has its shape; a float for a float).
    bound : {"lower", "upper", "both"}
        "lower": beta from below (TPR from above, the safe side of a privacy claim); "upper": beta
        from above (from the accountant's lower delta); "both" (default): the tuple (lower, upper).
    direction : {"symmetric", "remove", "add"}
        "symmetric" (the accountant's delta: the f-DP guarantee both neighbouring orders satisfy),
        "remove" (membership inference: the positive hypothesis is the data set holding the record)
        or "add"; the accountants that keep their directions are listed in the module docstring.
    rtol : float
        In (0, 1): the grid is refined where the minimum lies until the power's bracket is that
        narrow relative to its upper side, or two refinements move neither side by that much nor by
        2^-6 of the bracket (the accountant's own bracket, or a kink of the curve, limits it), or
        the spacing reaches 2^-24 in eps.  Smaller is tighter and slower; every grid gives certified
        sides.

    Returns
    -------
    float, array or tuple
        beta's side(s) at ``alpha``.

    Raises
    ------
    ParameterTypeError
        ``accountant`` has no callable ``.delta`` (a TypeError); ``alpha`` a string, bool or None.
    ValueError
        ``alpha`` outside [0, 1] or NaN, an unknown ``bound`` or ``direction``, ``rtol`` outside (0,
        1), an accountant of several mechanisms (array parameters), or a direction the accountant
        does not keep.

    See Also
    --------
    tpr_at_fpr : The attacker's TPR, 1 - beta.

    References
    ----------
    Dong, Roth & Su 2022, Def. 2.1 (the trade-off function) and Prop. 2.12 (its dual, the privacy
    profile); Zhu, Dong & Wang 2022, Sec. 2.

    Examples
    --------
    >>> from hockeystick.fdp import GaussianMechanism
    >>> from hockeystick.risk import tradeoff_curve
    >>> lower, upper = tradeoff_curve(GaussianMechanism(sigma=1.0), 0.1)
    >>> round(lower, 4), round(upper, 4)
    (0.6109, 0.6109)
    """
    alphas = _validation.in_interval(alpha, "alpha", 0.0, 1.0, open_low=False, open_high=False)
    side = _validation.bound_side(bound)
    # beta's lower side is the power's upper side and vice versa
    flipped: dict[Bound, Bound] = {"lower": "upper", "upper": "lower", "both": "both"}
    power_side = flipped[side]
    low, up = power_bracket(accountant, alphas, power_side, direction, rtol)
    with np.errstate(invalid="ignore"):
        beta_low = np.maximum(np.nextafter(1.0 - up, -np.inf), 0.0)
        beta_up = np.minimum(np.nextafter(1.0 - low, np.inf), 1.0)
    return picked_sides(beta_low, beta_up, side, alphas.ndim == 0)


def tpr_at_fpr(
    accountant: Any,
    fpr: ArrayLike,
    *,
    bound: Bound = "upper",
    direction: Direction = "symmetric",
    rtol: float = DEFAULT_RTOL,
) -> Any:
    r"""Certified bound on the largest true-positive rate of any attack at false-positive rate ``fpr``.

    The power :math:`1 - \beta(\alpha) = \min_{t \ge 0} D(t) + \alpha t` at :math:`\alpha` =
    ``fpr``, read off the accountant's privacy profile as in ``tradeoff_curve``.

    Parameters
    ----------
    accountant : object
        As in ``tradeoff_curve``: anything with ``.delta(epsilon, bound=...)``, one mechanism.
    fpr : float or array_like
        False-positive rates in [0, 1], any shape.
    bound : {"upper", "lower", "both"}
        "upper" (default: no attack does better), "lower" or "both" (the tuple (lower, upper)).
    direction, rtol
        As in ``tradeoff_curve``.

    Returns
    -------
    float, array or tuple
        The TPR's side(s) at ``fpr`` (a float for a float).

    Raises
    ------
    ParameterTypeError
        ``accountant`` has no callable ``.delta`` (a TypeError); ``fpr`` a string, bool or None.
    ValueError
        As ``tradeoff_curve``'s, naming ``fpr``.

    See Also
    --------
    tradeoff_curve : beta itself.
    calibrate_tpr : The parameter that keeps this TPR within a target.

    References
    ----------
    Dong, Roth & Su 2022, Def. 2.1 and Prop. 2.12; Zhu, Dong & Wang 2022, Sec. 2.

    Examples
    --------
    >>> from hockeystick.fdp import GaussianMechanism
    >>> from hockeystick.risk import tpr_at_fpr
    >>> round(tpr_at_fpr(GaussianMechanism(sigma=1.0), 0.01), 4)
    0.0924
    """
    rates = _validation.in_interval(fpr, "fpr", 0.0, 1.0, open_low=False, open_high=False)
    side = _validation.bound_side(bound)
    low, up = power_bracket(accountant, rates, side, direction, rtol)
    return picked_sides(low, up, side, rates.ndim == 0)


def advantage(accountant: Any, *, bound: Bound = "upper") -> Any:
    r"""Certified bound on the largest advantage TPR - FPR of any attack: the accountant's delta at epsilon = 0.

    .. math::

        \max_{\alpha} \bigl(1 - \beta(\alpha) - \alpha\bigr) = D(1) = \delta(0),

    the total variation distance of the pair (Yeom et al. 2018's membership advantage under
    ``direction="remove"``, equal for every direction since
    :math:`\delta_{H_1 \| H_0}(0) = \delta_{H_0 \| H_1}(0)`).

    Parameters
    ----------
    accountant : object
        Anything with ``.delta(epsilon, bound=...)`` (as in ``tradeoff_curve``).
    bound : {"upper", "lower", "both"}
        The side asked for ("both": the tuple (lower, upper)).

    Returns
    -------
    float, array or tuple
        The accountant's delta(0) on that side.

    Raises
    ------
    ParameterTypeError
        ``accountant`` has no callable ``.delta`` (a TypeError).
    ValueError
        An unknown ``bound``.

    References
    ----------
    Dong, Roth & Su 2022, Prop. 2.12 (the profile at t = 1); Yeom et al. 2018 (membership
    advantage).

    Examples
    --------
    >>> from hockeystick.fdp import GaussianMechanism
    >>> from hockeystick.risk import advantage
    >>> round(advantage(GaussianMechanism(sigma=1.0)), 6)  # 2 Phi(1 / 2) - 1
    0.382925
    """
    side = _validation.bound_side(bound)
    return profiled(accountant).delta(0.0, bound=side)
