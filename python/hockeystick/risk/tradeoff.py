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
    """beta(alpha), the least false-negative rate at false-positive rate ``alpha``, certified from the
    accountant's privacy profile (the module docstring gives the construction and its proof).

    Parameters
    ----------
    accountant : object
        Any object with ``.delta(epsilon, bound=...)`` describing one mechanism (scalar parameters): a
        ``pld`` or ``rdp`` accountant, ``GaussianMechanism``, a ``training.DPSGD`` / ``DPFedAvg`` run.
    alpha : float or array_like
        False-positive rates in [0, 1], any shape (the result has its shape; a float for a float).
    bound : {"lower", "upper", "both"}
        "lower": beta from below (TPR from above, the safe side of a privacy claim); "upper": beta from
        above (from the accountant's lower delta); "both" (default): the tuple (lower, upper).
    direction : {"symmetric", "remove", "add"}
        "symmetric" (the accountant's delta: the f-DP guarantee both neighbouring orders satisfy), "remove"
        (membership inference: the positive hypothesis is the data set holding the record) or "add"; the
        accountants that keep their directions are listed in the module docstring.
    rtol : float
        In (0, 1): the grid is refined where the minimum lies until the power's bracket is that narrow
        relative to its upper side, or two refinements move neither side by that much nor by 2^-6 of the
        bracket (the accountant's own bracket, or a kink of the curve, limits it), or the spacing reaches
        2^-24 in eps.  Smaller is tighter and slower; every grid gives certified sides.

    Returns
    -------
    float, array or tuple
        beta's side(s) at ``alpha``.

    Raises
    ------
    TypeError
        ``accountant`` has no callable ``.delta``.
    ValueError
        ``alpha`` outside [0, 1] or NaN, an unknown ``bound`` or ``direction``, ``rtol`` outside (0, 1), an
        accountant of several mechanisms (array parameters), or a direction the accountant does not keep.
    """
    alphas = _validation.in_interval(alpha, "alpha", 0.0, 1.0, open_low=False, open_high=False)
    side = _validation.bound_side(bound)
    # beta's lower side is the power's upper side and vice versa
    power_side = {"lower": "upper", "upper": "lower", "both": "both"}[side]
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
    """The attacker's largest true-positive rate at false-positive rate ``fpr``, 1 - beta(fpr).

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
    TypeError
        ``accountant`` has no callable ``.delta``.
    ValueError
        As ``tradeoff_curve``'s, naming ``fpr``.
    """
    rates = _validation.in_interval(fpr, "fpr", 0.0, 1.0, open_low=False, open_high=False)
    side = _validation.bound_side(bound)
    low, up = power_bracket(accountant, rates, side, direction, rtol)
    return picked_sides(low, up, side, rates.ndim == 0)


def advantage(accountant: Any, *, bound: Bound = "upper") -> Any:
    """The largest advantage TPR - FPR of any attack, max over alpha of 1 - beta(alpha) - alpha = delta(0)
    (the total variation distance of the pair; Yeom et al. 2018's membership advantage under
    ``direction="remove"``, equal for every direction since delta_{H1||H0}(0) = delta_{H0||H1}(0)): the
    accountant's own delta at epsilon = 0.

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
    TypeError
        ``accountant`` has no callable ``.delta``.
    ValueError
        An unknown ``bound``.
    """
    side = _validation.bound_side(bound)
    return profiled(accountant).delta(0.0, bound=side)
