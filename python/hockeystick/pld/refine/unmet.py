"""Brackets an ``accuracy=`` call left wider than asked: where they are, and the warning that counts them."""

from __future__ import annotations

import warnings

import numpy as np

from ...base.warning_site import outside_stacklevel
from .bracket_width import within_epsilon_tolerance


class AccuracyNotMetWarning(UserWarning):
    """An ``accuracy=`` call returned brackets wider than the accuracy asked (certified still, only
    wider): their count is in the message, their positions in the accountant's ``unmet``."""


def unmet_flags(
    lower: np.ndarray, upper: np.ndarray, accuracy: float, relative_accuracy: float
) -> np.ndarray:
    """True where the certified epsilon bracket [lower, upper] of an ``accuracy=`` call is wider
    than its tolerance, max(accuracy, relative_accuracy upper) (an infinite upper side over a finite
    lower one included; an exact bracket, both sides infinite included, never is); where any is, one
    ``AccuracyNotMetWarning`` counting them, for the caller of ``.epsilon``.  The refinement stops
    short of the tolerance only where no grid it may build narrows the bracket further (its width
    set by what no grid removes, the round-off and truncation charges, or the finest grid within
    ``MAX_WINDOW``); such a bracket is certified all the same, only wider than asked."""
    unmet = ~within_epsilon_tolerance(lower, upper, accuracy, relative_accuracy)
    count = int(np.count_nonzero(unmet))
    if count:
        asked = (
            f"max(accuracy={accuracy:g}, relative_accuracy={relative_accuracy:g} x epsilon)"
            if relative_accuracy
            else f"accuracy={accuracy:g}"
        )
        warnings.warn(
            f"{count} of {unmet.size} epsilon brackets are wider than {asked} (certified, but no grid within reach "
            "narrowed them further); the accountant's .unmet flags them",
            AccuracyNotMetWarning,
            stacklevel=outside_stacklevel(),  # the user's line that asked
        )
    return unmet
