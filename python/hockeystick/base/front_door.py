"""A package's front door: the names other packages import from it, each loaded from its module on first use.

A stage of ``hockeystick.pld`` lists, in its ``__init__``'s ``FRONT_DOOR``, what other packages of
hockeystick may use, and they import those names from the stage, never from its modules
(tests/test_layers.py).  The door is the packages' seam, not the library's public names (those are
``hockeystick.pld``'s and its ``__all__``).  The door loads a name's module only when the name is
first asked for (PEP 562), so importing one module of a stage does not load the stage's other
modules (tests/test_import_weight.py).  A door entry is ``"module"`` (the name as its module spells
it) or ``"module:attribute"`` (a name that says, at the door, what a generically named attribute
computes).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def front_door(
    package: str,
    names: Mapping[str, str],
    namespace: dict[str, Any],
    fallback: Callable[[str], Any] | None = None,
) -> Callable[[str], Any]:
    """The ``__getattr__`` (PEP 562) of ``package``'s front door.

    Parameters
    ----------
    package : str
        The package's name (its ``__name__``).
    names : Mapping[str, str]
        Each exported name -> ``"module"`` or ``"module:attribute"``, relative to ``package``.
    namespace : dict
        The package's ``globals()``: a name is kept there after its first use, so later lookups do
        not call this.
    fallback : callable, optional
        The package's ``__getattr__`` for names outside the door (old names served with a
        deprecation warning).

    Returns
    -------
    callable
        ``__getattr__(name)``: the exported object, or ``fallback(name)``.

    Raises
    ------
    AttributeError
        From the returned function, for a name neither the door nor ``fallback`` serves.
    """

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            if fallback is not None:
                return fallback(name)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = where.partition(":")
        value = getattr(importlib.import_module(f"{package}.{module}"), attribute or name)
        namespace[name] = value
        return value

    return __getattr__
