"""An accountant or calculator by its name: a registered one, or a family configured by a name that spells its
vector options (``families``)."""

from __future__ import annotations

from .entries import AccountantEntry, CalculatorEntry
from .families import configured
from .store import CALCULATORS, REGISTRY, unknown


def get(name: str) -> AccountantEntry:
    """The accountant called ``name`` (a family configured by its name, ``configure``), or a ValueError listing
    the registered names."""
    entry = REGISTRY.get(name)
    if entry is None and isinstance(name, str) and "[" in name:
        return configured(name)
    if entry is None:
        raise unknown("accountant", name)
    return entry


def default_output(names: list[str] | tuple[str, ...]) -> str:
    """What a sweep over ``names`` computes unless told: delta for accountants, the quantity for calculators."""
    entry = lookup(names[0]) if names else None
    return entry.quantity if isinstance(entry, CalculatorEntry) else "delta"


def lookup(name: str) -> AccountantEntry | CalculatorEntry:
    """The accountant or calculator called ``name`` (what a sweep can evaluate)."""
    entry = REGISTRY.get(name) or CALCULATORS.get(name)
    if entry is None and isinstance(name, str) and "[" in name:
        return configured(name)
    if entry is None:
        raise unknown("accountant", name)
    return entry
