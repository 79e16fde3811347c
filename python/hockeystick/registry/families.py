"""Families: accountants whose vector options (a strategy's coefficients) are bound into their name.

A grid's parameters are numbers and its lists are axes, so a vector that describes one mechanism (a
BLT's buffer decays) cannot be a grid parameter.  ``configure`` binds a family's vectors into an
entry of its own whose name spells them, FAMILY[option=v1,v2,...;option=...]: sweeps, calibration
and the command line pass that name like any other, and ``get`` / ``lookup`` rebuild the entry from
it in any process (Dask workers).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import re
from typing import Any

import numpy as np

from ..base import validation as _validation
from .entries import AccountantEntry
from .store import REGISTRY, family_names, unknown

_CONFIGURED: dict[str, AccountantEntry] = {}
_SPELLED = re.compile(r"\s*(\w+)\s*\[(.*)\]\s*", re.DOTALL)


def vector(value: Any, name: str) -> tuple[float, ...]:
    """One vector option read as a non-empty tuple of finite numbers.

    Parameters
    ----------
    value : sequence of float, numpy.ndarray, float or str
        A sequence, a 0-D or 1-D array, a number, or the command line's text "0.9,0.5".
    name : str
        The option's name, for the error message.

    Returns
    -------
    tuple of float
        The numbers, in order.

    Raises
    ------
    ValueError
        ``value`` is empty, has a non-finite or non-numeric item, is nested (2-D or ragged) or is a
        bool; the message names ``name``.

    Examples
    --------
    >>> from hockeystick.registry import vector
    >>> vector("0.9,0.5", "coefficients")
    (0.9, 0.5)
    """
    rule = f"{name} must be one non-empty list of finite numbers (such as {name}=0.9,0.5)"
    if isinstance(value, str):
        items = [item.strip() for item in value.split(",")]
        try:
            numbers = [float(item) for item in items] if value.strip() else []
        except ValueError:
            raise ValueError(f"{rule}, got {value!r}") from None
    else:
        try:
            arr = np.asarray(value, dtype=object if isinstance(value, (bool, np.bool_)) else None)
        except ValueError:  # a ragged nesting
            arr = np.asarray(None, dtype=object)
        if arr.dtype.kind not in "iuf" or arr.ndim > 1:
            raise ValueError(f"{rule}, got {_validation.describe(value)}")
        numbers = [float(x) for x in arr.reshape(-1)]
    if not numbers:
        raise ValueError(f"{rule}, got an empty list")
    bad = next((x for x in numbers if not math.isfinite(x)), None)
    if bad is not None:
        raise ValueError(f"{rule}, got {bad!r} in {value!r}")
    return tuple(numbers)


def configure(name: str, **vectors: Any) -> str:
    """The name of family ``name``'s accountant with its vector options bound: what sweeps and ``calibrate`` take.

    The name spells the options, FAMILY[option=v1,v2,...;option=...] (options in the factory's
    signature order, values as Python writes them), so ``get`` and ``lookup`` rebuild the entry from
    the name in any process.

    Parameters
    ----------
    name : str
        A registered family (``family_names``).
    **vectors
        Every vector option of the family, each one list of numbers (``vector``).

    Returns
    -------
    str
        The configured accountant's name, such as ``dp_ftrl_banded[coefficients=1.0,0.5]``.

    Raises
    ------
    ValueError
        ``name`` is not a registered family (an unknown name, or an accountant with no vector
        options); an option that is missing, unknown or not a list of finite numbers; a combination
        the family refuses (a BLT's two lists of different lengths).

    Examples
    --------
    >>> from hockeystick.registry import configure, get
    >>> spelled = configure("dp_ftrl_banded", coefficients=[1.0, 0.5])
    >>> spelled
    'dp_ftrl_banded[coefficients=1.0,0.5]'
    >>> get(spelled).name == spelled
    True
    """
    entry = _family(name)
    order = [p for p in inspect.signature(entry.factory).parameters if p in entry.vectors]
    _check_options(name, entry, vectors, order)
    values = {p: vector(vectors[p], p) for p in order}
    spelled = f"{name}[{';'.join(p + '=' + ','.join(map(repr, values[p])) for p in order)}]"
    if spelled not in _CONFIGURED:
        bind = getattr(entry.factory, "bind", None)
        factory = bind(**values) if callable(bind) else functools.partial(entry.factory, **values)
        _CONFIGURED[spelled] = dataclasses.replace(
            entry,
            name=spelled,
            factory=factory,
            vectors=frozenset(),
            hidden=entry.hidden | entry.vectors,
        )
    return spelled


def _family(name: str) -> AccountantEntry:
    """The registered family ``name`` (an accountant with vector options), or a ValueError naming the families."""
    entry = REGISTRY.get(name)
    if entry is None or not entry.vectors:
        if entry is None and not (isinstance(name, str) and "[" in name):
            raise unknown("family", name)
        raise ValueError(
            f"{name!r} takes no vector options (it is not a family); the families: {', '.join(family_names())}"
        )
    return entry


def _check_options(
    name: str, entry: AccountantEntry, vectors: dict[str, Any], order: list[str]
) -> None:
    """Every vector option of the family given, and no other (a ValueError names the first missing or unknown)."""
    unknown_options = sorted(set(vectors) - entry.vectors)
    if unknown_options:
        raise ValueError(
            f"{name} has no vector option {', '.join(map(repr, unknown_options))}"
            f"{_validation.did_you_mean(unknown_options[0], order)}; its vector options: {', '.join(order)}"
        )
    missing = [p for p in order if p not in vectors]
    if missing:
        raise ValueError(
            f"accountant {name!r} needs {' and '.join(missing)}: one list of numbers"
            f"{' each' if len(missing) > 1 else ''} (such as {missing[0]}=0.9,0.5)"
        )


def configured(spelled: str) -> AccountantEntry:
    """The entry a configured name spells (``configure``)."""
    found = _CONFIGURED.get(spelled)
    if found is not None:
        return found
    match = _SPELLED.fullmatch(spelled)
    if match is None or match.group(1) not in REGISTRY:
        raise unknown("accountant", spelled)
    options: dict[str, str] = {}
    for item in match.group(2).split(";"):
        option, sep, value = item.partition("=")
        if not sep or not option.strip():
            raise ValueError(
                f"accountant {spelled!r}: write FAMILY[option=v1,v2,...;option=...], such as "
                f"dp_ftrl_banded[coefficients=1,0.5]; got the item {item.strip()!r}"
            )
        if option.strip() in options:
            raise ValueError(f"accountant {spelled!r} gives {option.strip()} twice; give it once")
        options[option.strip()] = value
    return _CONFIGURED[configure(match.group(1), **options)]
