"""Brackets an ``accuracy=`` call left wider than asked: where they are, and the warning that counts them."""

from __future__ import annotations

import warnings

import numpy as np

from ...base.accountant import Quantity
from ...base.warning_site import outside_stacklevel
from .bracket_width import bracket_width, within_epsilon_tolerance


class AccuracyNotMetWarning(UserWarning):
    """An ``accuracy=`` call returned brackets wider than the accuracy asked (certified still, only
    wider): their count is in the message, their positions in the accountant's ``unmet``."""


def unmet_flags(
    lower: np.ndarray,
    upper: np.ndarray,
    accuracy: float,
    relative_accuracy: float,
    quantity: Quantity = "epsilon",
) -> np.ndarray:
    """True where the certified bracket [lower, upper] of an ``accuracy=`` call is wider than the
    refinement's target, measured as the refinement measures it (``bracket_width``); where any is,
    one ``AccuracyNotMetWarning`` counting them, for the caller of ``.epsilon`` or ``.delta``.

    An epsilon bracket is wider than asked where its width passes max(accuracy, relative_accuracy
    upper) (an infinite upper side over a finite lower one included; an exact bracket, both sides
    infinite included, never is).  A delta bracket is wider than asked where its width relative to
    max(upper, ``DELTA_FLOOR`` = 1e-9) passes ``accuracy`` (``delta_accuracy="relative"``'s
    criterion; ``relative_accuracy`` does not enter it; an exact bracket never is): the same rule,
    the width the refinement drives below ``accuracy`` compared with it once the refinement stops.
    The refinement stops short of its target only where no grid it may build narrows the bracket
    further (its width set by what no grid removes, the round-off and truncation charges, or the
    finest grid within ``MAX_WINDOW``); such a bracket is certified all the same, only wider than
    asked.

    Parameters
    ----------
    lower, upper : numpy.ndarray
        The certified sides, of one shape.
    accuracy : float
        The accuracy asked, > 0.
    relative_accuracy : float
        Epsilon's relative tolerance, >= 0 (0: ``accuracy`` absolute).
    quantity : {"epsilon", "delta"}, default "epsilon"
        What the brackets bound.

    Returns
    -------
    numpy.ndarray
        Booleans of the brackets' shape, True where wider than asked.

    Raises
    ------
    ValueError
        If ``quantity`` is neither "epsilon" nor "delta".
    """
    lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    if quantity == "epsilon":
        unmet = ~within_epsilon_tolerance(lower, upper, accuracy, relative_accuracy)
    elif quantity == "delta":
        width = bracket_width("relative", "delta", lower, lower, upper, lower.size)
        unmet = np.asarray(width > accuracy)
    else:
        raise ValueError(f'quantity must be "epsilon" or "delta", got {quantity!r}')
    count = int(np.count_nonzero(unmet))
    if count:
        asked = (
            f"max(accuracy={accuracy:g}, relative_accuracy={relative_accuracy:g} x epsilon)"
            if relative_accuracy and quantity == "epsilon"
            else f"accuracy={accuracy:g}" + (" relative to delta" if quantity == "delta" else "")
        )
        warnings.warn(
            f"{count} of {unmet.size} {quantity} brackets are wider than {asked} (certified, but no grid within "
            "reach narrowed them further); the accountant's .unmet flags them",
            AccuracyNotMetWarning,
            stacklevel=outside_stacklevel(),  # the user's line that asked
        )
    return unmet
