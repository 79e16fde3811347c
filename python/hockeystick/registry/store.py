"""The registered accountants and calculators by name, and their registration (a name is registered once).

The catalogue's entries are registered on demand: asking for a name imports the catalogue module
that registers it (``catalogue.load``), and listing the entries imports every module
(``catalogue.load_all``).
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Iterable, Iterator, MutableMapping
from typing import TypeVar

from . import catalogue
from .entries import AccountantEntry, CalculatorEntry

Entry = TypeVar("Entry", AccountantEntry, CalculatorEntry)


class Catalogued(MutableMapping[str, Entry]):
    """Entries by name, the catalogue's imported as they are asked for: a mapping like a ``dict``.

    Looking a name up (``[]``, ``in``, ``get``) imports the catalogue module that registers it, and
    only that one; iterating or counting the entries imports every module and lists the entries in
    the catalogue's order (``catalogue.MODULES``), then those registered from outside it, in the
    order they were registered.

    Parameters
    ----------
    None

    Returns
    -------
    Catalogued
        An empty mapping; ``register`` and ``register_calculator`` fill the registry's two.

    Raises
    ------
    KeyError
        ``[]`` or ``del`` of a name nothing is registered under.

    Examples
    --------
    >>> from hockeystick.registry import REGISTRY
    >>> REGISTRY["dp_sgd"].name
    'dp_sgd'
    """

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._in_order = (
            True  # the entries are in the listing's order (a module imported early breaks it)
        )

    def __getitem__(self, name: str) -> Entry:
        if name not in self._entries:
            catalogue.load(name)
        return self._entries[name]

    def __contains__(self, name: object) -> bool:
        if name in self._entries:
            return True
        catalogue.load(name)
        return name in self._entries

    def __setitem__(self, name: str, entry: Entry) -> None:
        last = next(reversed(self._entries), None)
        if last is not None and _rank(name) < _rank(last):
            self._in_order = False
        self._entries[name] = entry

    def __delitem__(self, name: str) -> None:
        if (
            name not in self
        ):  # imports its module first, so that the entry is not registered again later
            raise KeyError(name)
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._listed())

    def __len__(self) -> int:
        return len(self._listed())

    def __repr__(self) -> str:
        return repr(self._listed())

    def _listed(self) -> dict[str, Entry]:
        """Every entry, the catalogue's imported, in the listing's order."""
        catalogue.load_all()
        if (
            not self._in_order
        ):  # a stable sort: each module's entries stay in the order it registers them
            self._entries = dict(sorted(self._entries.items(), key=lambda item: _rank(item[0])))
            self._in_order = True
        return self._entries


_MODULE_RANK = {module: rank for rank, module in enumerate(catalogue.MODULES)}


def _rank(name: str) -> int:
    """Where ``name``'s module comes in the listing: a name registered from outside the catalogue comes last."""
    return _MODULE_RANK.get(catalogue.OWNER.get(name, ""), len(_MODULE_RANK))


REGISTRY: Catalogued[AccountantEntry] = Catalogued()
CALCULATORS: Catalogued[CalculatorEntry] = Catalogued()


def register(entry: AccountantEntry) -> AccountantEntry:
    """Add an accountant's entry to the registry under ``entry.name``.

    Parameters
    ----------
    entry : AccountantEntry
        The entry; its name must not be registered yet.

    Returns
    -------
    AccountantEntry
        ``entry`` itself.

    Raises
    ------
    ValueError
        ``entry.name`` is already an accountant's; an integer or calibratable name that is not a
        parameter of ``entry.factory``; a vector option that is not a keyword of ``entry.factory``
        or is hidden.
    """
    if entry.name in REGISTRY:
        raise ValueError(f"accountant {entry.name!r} is already registered")
    _check_parameter_names(entry, entry.calibratable)
    takes = inspect.signature(entry.factory).parameters
    for name in entry.vectors:
        if name not in takes or name in entry.hidden:
            raise ValueError(
                f"{entry.name}: vector option {name!r} is not a keyword of {entry.factory!r}"
            )
    REGISTRY[entry.name] = entry
    return entry


def register_calculator(entry: CalculatorEntry) -> CalculatorEntry:
    """Add a calculator's entry to the registry under ``entry.name``.

    Parameters
    ----------
    entry : CalculatorEntry
        The entry; its name must be neither an accountant's nor a calculator's yet.

    Returns
    -------
    CalculatorEntry
        ``entry`` itself.

    Raises
    ------
    ValueError
        ``entry.name`` is already registered; an integer or inverse name that is not a parameter of
        ``entry.factory``.
    """
    if entry.name in REGISTRY or entry.name in CALCULATORS:
        raise ValueError(f"{entry.name!r} is already registered")
    _check_parameter_names(entry, entry.inverses)
    CALCULATORS[entry.name] = entry
    return entry


def _check_parameter_names(entry: AccountantEntry | CalculatorEntry, solved: Iterable[str]) -> None:
    """Every integer and solvable name of ``entry`` is a parameter of its factory (ValueError if not)."""
    for name in [*entry.integers, *solved]:
        if name not in entry.parameters:
            raise ValueError(f"{entry.name}: {name!r} is not a parameter of {entry.factory!r}")


def names() -> list[str]:
    """The registered accountants' names (built from numeric parameters alone: not the families).

    Returns
    -------
    list of str
        The names, sorted.

    Examples
    --------
    >>> from hockeystick.registry import names
    >>> "dp_sgd" in names()
    True
    """
    return sorted(n for n, e in REGISTRY.items() if not e.vectors)


def family_names() -> list[str]:
    """The registered families: accountants that also take vector options (``configure`` names one).

    Returns
    -------
    list of str
        The families' names, sorted.

    Examples
    --------
    >>> from hockeystick.registry import family_names
    >>> "dp_ftrl_banded" in family_names()
    True
    """
    return sorted(n for n, e in REGISTRY.items() if e.vectors)


def calculator_names() -> list[str]:
    """The registered calculators' names.

    Returns
    -------
    list of str
        The names, sorted.

    Examples
    --------
    >>> from hockeystick.registry import calculator_names
    >>> "leakage_tv" in calculator_names()
    True
    """
    return sorted(CALCULATORS)


def unknown(kind: str, name: str) -> ValueError:
    """The error for a name nothing is registered under, with the closest registered name and every name."""
    known = names() + family_names() + calculator_names()
    close = difflib.get_close_matches(str(name), known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ValueError(
        f"unknown {kind} {name!r}{hint}; registered accountants: {', '.join(names())}; "
        f"families (with vector options, NAME[option=v1,v2,...]): {', '.join(family_names())}; "
        f"calculators: {', '.join(calculator_names())}"
    )
