"""Paper 001's functions take array_like arguments that broadcast together: a mismatch is refused
before any computation, with a message naming every argument and its shape
(``validation.broadcastable``), not numpy's "operands could not be broadcast" from deep in a
formula."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from ..base.validation import broadcastable

_F = TypeVar("_F", bound=Callable[..., Any])


def broadcasting(function: _F) -> _F:
    """``function`` with its arguments' shapes checked to broadcast together before it runs."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        broadcastable(**bound.arguments)
        return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
