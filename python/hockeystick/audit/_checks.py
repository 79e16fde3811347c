"""The audit's own arguments, each checked once: a significance level, a delta and a generator's seed."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import validation as _validation

__all__ = ["accountant_value", "delta_value", "seed_value", "significance_level"]


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
            _validation.single(value, "significance"),
            "significance",
            0.0,
            1.0,
            open_low=True,
            open_high=True,
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


def seed_value(value: Any) -> int | None:
    """A seed of numpy's default generator: None (fresh entropy) or an integer >= 0 of any size.

    numpy's ``SeedSequence`` takes any non-negative integer (and jax_privacy's strategies pass it
    on), so no upper limit applies; a float, even an integral one, is refused, as numpy refuses it.

    Parameters
    ----------
    value : int or None
        The seed.

    Returns
    -------
    int or None
        It, as a Python int.

    Raises
    ------
    ValueError
        A negative integer.
    ParameterTypeError
        Not an integer (a float, a string, a boolean).
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _validation.ParameterTypeError(
            f"seed must be an integer >= 0 or None, got {_validation.describe(value)} ({type(value).__name__})"
        )
    if value < 0:
        raise ValueError(f"seed must be an integer >= 0 or None, got {int(value)}")
    return int(value)


def accountant_value(value: Any, methods: tuple[str, ...] = ("delta",)) -> Any:
    """The run's accountant, refused by name unless it is a built accountant (an instance, not a
    class) with the ``methods`` the caller reads.

    Parameters
    ----------
    value : Accountant
        The accountant.
    methods : tuple of str, optional
        The methods read (default ``("delta",)``: the privacy profile).

    Returns
    -------
    Accountant
        It.

    Raises
    ------
    ParameterTypeError
        A class (build it first), or an object without the methods (a name, a number, None).
    """
    if isinstance(value, type):
        raise _validation.ParameterTypeError(
            f"accountant must be an accountant object, got the class {value.__name__}; build it first, e.g. "
            f"{value.__name__}(...) or hockeystick.registry.get(name).build(...)"
        )
    if not all(callable(getattr(value, m, None)) for m in methods):
        wanted = " and ".join(f".{m}(...)" for m in methods)
        raise _validation.ParameterTypeError(
            f"accountant must be an accountant with {wanted} (for example hockeystick.training.DPSGD(...) or "
            f"hockeystick.registry.get('gaussian').build(sigma=1.0)), got {_validation.describe(value)} "
            f"({type(value).__name__})"
        )
    return value
