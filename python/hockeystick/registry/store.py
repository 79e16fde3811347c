"""The registered accountants and calculators by name, and their registration (a name is registered once)."""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Iterable

from .entries import AccountantEntry, CalculatorEntry

REGISTRY: dict[str, AccountantEntry] = {}
CALCULATORS: dict[str, CalculatorEntry] = {}


def register(entry: AccountantEntry) -> AccountantEntry:
    """Add ``entry`` under ``entry.name`` (a name can be registered once)."""
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
    """Add a calculator under ``entry.name`` (names are shared with the accountants and unique)."""
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
    """The registered accountants' names (built from numeric parameters alone: not the families)."""
    return sorted(n for n, e in REGISTRY.items() if not e.vectors)


def family_names() -> list[str]:
    """The registered families: accountants that also take vector options (``configure`` names one)."""
    return sorted(n for n, e in REGISTRY.items() if e.vectors)


def calculator_names() -> list[str]:
    """The registered calculators' names."""
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
