"""The registered accountants and calculators by name, and their registration (a name is registered once)."""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Iterable

from .entries import AccountantEntry, CalculatorEntry

REGISTRY: dict[str, AccountantEntry] = {}
CALCULATORS: dict[str, CalculatorEntry] = {}


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
        ``entry.name`` is already an accountant's; an integer or calibratable name that is not a parameter
        of ``entry.factory``; a vector option that is not a keyword of ``entry.factory`` or is hidden.
    """
    if entry.name in REGISTRY:
        raise ValueError(f"accountant {entry.name!r} is already registered")
    _check_parameter_names(entry, entry.calibratable)
    takes = inspect.signature(entry.factory).parameters
    for name in entry.vectors:
        if name not in takes or name in entry.hidden:
            raise ValueError(f"{entry.name}: vector option {name!r} is not a keyword of {entry.factory!r}")
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
