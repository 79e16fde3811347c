"""An accountant or calculator by its name: a registered one, or a family configured by a name that
spells its vector options (``families``)."""

from __future__ import annotations

from .entries import AccountantEntry, CalculatorEntry
from .families import configured
from .store import CALCULATORS, REGISTRY, unknown


def get(name: str) -> AccountantEntry:
    """The registry entry of the accountant called ``name``.

    Parameters
    ----------
    name : str
        A registered accountant's name (``names``), or a family configured by its name,
        FAMILY[option=v1,v2,...;option=...] (``configure``).

    Returns
    -------
    AccountantEntry
        The accountant's entry.

    Raises
    ------
    ValueError
        No accountant is registered under ``name`` (a calculator's name included: ``lookup`` finds
        those); the message gives the closest name and every registered one. A configured name that
        is malformed or whose options the family refuses (``configure``).

    See Also
    --------
    lookup : The entry of an accountant or a calculator.

    Examples
    --------
    >>> from hockeystick.registry import get
    >>> get("dp_sgd").calibratable["noise_multiplier"].direction
    'decreasing'
    """
    if (
        isinstance(name, str) and "[" in name
    ):  # a configured family (no registered name has a bracket)
        return configured(name)
    entry = REGISTRY.get(name)
    if entry is None and name in CALCULATORS:
        raise ValueError(
            f"{name!r} is a calculator (it computes {CALCULATORS[name].quantity}), not an accountant: "
            "registry.lookup finds calculators, and a sweep evaluates them by name"
        )
    if entry is None:
        raise unknown("accountant", name)
    return entry


def default_output(names: list[str] | tuple[str, ...]) -> str:
    """What a sweep over ``names`` computes unless told: delta for accountants, the quantity for calculators.

    Parameters
    ----------
    names : list or tuple of str
        The names swept; the first one decides.

    Returns
    -------
    str
        ``"delta"`` when the first name is an accountant (or ``names`` is empty), else the first
        calculator's ``quantity``.

    Raises
    ------
    ValueError
        The first name is neither an accountant's nor a calculator's (``lookup``).

    Examples
    --------
    >>> from hockeystick.registry import default_output
    >>> default_output(["dp_sgd"]), default_output(["leakage_tv"])
    ('delta', 'tv')
    """
    entry = lookup(names[0]) if names else None
    return entry.quantity if isinstance(entry, CalculatorEntry) else "delta"


def lookup(name: str) -> AccountantEntry | CalculatorEntry:
    """The registry entry of the accountant or calculator called ``name`` (what a sweep can evaluate).

    Parameters
    ----------
    name : str
        A registered accountant's or calculator's name, or a configured family's name
        (``configure``).

    Returns
    -------
    AccountantEntry or CalculatorEntry
        The entry.

    Raises
    ------
    ValueError
        Nothing is registered under ``name``; the message gives the closest name and every
        registered one.

    See Also
    --------
    get : The entry of an accountant only.

    Examples
    --------
    >>> from hockeystick.registry import lookup
    >>> lookup("leakage_tv").kind
    'exact'
    """
    if (
        isinstance(name, str) and "[" in name
    ):  # a configured family (no registered name has a bracket)
        return configured(name)
    entry = REGISTRY.get(name) or CALCULATORS.get(name)
    if entry is None:
        raise unknown("accountant", name)
    return entry
