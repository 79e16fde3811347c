"""The audit's own arguments, each checked once: a significance level and a delta."""

from __future__ import annotations

from typing import Any

from ..base import validation as _validation

__all__ = ["delta_value", "significance_level"]


def significance_level(value: Any) -> float:
    """One significance level (the probability that a bound fails), strictly between 0 and 1.

    Parameters
    ----------
    value : float
        The level.

    Returns
    -------
    float
        It, checked.

    Raises
    ------
    ValueError
        Not strictly between 0 and 1, or NaN.
    TypeError
        Not a number.
    """
    return float(
        _validation.in_interval(
            _validation.single(value, "significance"), "significance", 0.0, 1.0, open_low=True, open_high=True
        )
    )


def delta_value(value: Any, *, zero: bool) -> float:
    """One delta: in [0, 1) with ``zero`` (pure DP allowed), else strictly between 0 and 1.

    Parameters
    ----------
    value : float
        The delta.
    zero : bool
        Whether delta = 0 is allowed.

    Returns
    -------
    float
        It, checked.

    Raises
    ------
    ValueError
        Outside the interval, or NaN.
    TypeError
        Not a number.
    """
    return float(
        _validation.in_interval(
            _validation.single(value, "delta"), "delta", 0.0, 1.0, open_low=not zero, open_high=True
        )
    )
