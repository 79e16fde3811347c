"""Keyword-only parameters that still take their old position for one release, with a DeprecationWarning.

The accountant contract (``accountant``) makes ``bound`` keyword-only: ``acc.delta(eps,
bound="lower")``. ``@positional_deprecated("bound")`` on a method whose ``bound`` is now
keyword-only keeps the old call ``acc.delta(eps, "lower")`` working until ``moved.REMOVED_IN``: the
extra positional argument is passed as the keyword, with a ``DeprecationWarning`` naming the keyword
form.  The wrapped signature (``inspect.signature``) is the function's own, keyword-only.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from .moved import REMOVED_IN

__all__ = ["positional_deprecated"]

_F = TypeVar("_F", bound=Callable[..., Any])

# the parameter kinds a positional argument fills
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def positional_deprecated(*names: str) -> Callable[[_F], _F]:
    """Accept the keyword-only parameters ``names``, in order, after the positional ones, with a DeprecationWarning.

    Parameters
    ----------
    *names : str
        Keyword-only parameters of the decorated function that were positional, in their old order.

    Returns
    -------
    Callable
        The decorator.  A call with more positional arguments than the function takes passes the
        extra ones as ``names`` and warns ``<function>: passing <name> by position is deprecated and
        will be removed in hockeystick <REMOVED_IN>; write <name>=<value>``.

    Raises
    ------
    TypeError
        At decoration, if a name is not a keyword-only parameter of the function; at a call, if more
        positional arguments are given than the function and ``names`` take, or a name is given both
        by position and by keyword (Python's own messages).
    """

    def decorate(function: _F) -> _F:
        parameters = inspect.signature(function).parameters
        for name in names:
            if (
                name not in parameters
                or parameters[name].kind is not inspect.Parameter.KEYWORD_ONLY
            ):
                raise TypeError(
                    f"{function.__qualname__}: {name!r} is not a keyword-only parameter"
                )
        positional = sum(p.kind in _POSITIONAL for p in parameters.values())

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) > positional:
                args, kwargs = _as_keywords(function, positional, names, args, kwargs)
            return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def _as_keywords(
    function: Callable[..., Any],
    positional: int,
    names: tuple[str, ...],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The call with the extra positional arguments moved to their keywords, warned about once."""
    extra = args[positional:]
    if len(extra) > len(names):
        raise TypeError(
            f"{function.__qualname__}() takes {positional} positional arguments but {len(args)} were given"
        )
    moved = dict(zip(names, extra))
    for name in moved:
        if name in kwargs:
            raise TypeError(f"{function.__qualname__}() got multiple values for argument {name!r}")
    keywords = ", ".join(f"{name}={value!r}" for name, value in moved.items())
    warnings.warn(
        f"{function.__qualname__}: passing {' and '.join(moved)} by position is deprecated and will be removed "
        f"in hockeystick {REMOVED_IN}; write {keywords}",
        DeprecationWarning,
        stacklevel=3,
    )
    return args[:positional], {**kwargs, **moved}
