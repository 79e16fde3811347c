"""``hockeystick accountants``: what -a accepts, with each one's parameters, and the mechanisms of a
``hockeystick compose`` stage with theirs."""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Sequence
from typing import Any

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    acc = subparsers.add_parser(
        "accountants",
        help="list the accountants with their parameters",
        epilog="example:\n  hockeystick accountants",
        formatter_class=raw,
    )
    acc.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import registry  # lazy: start-up time

    for name in sorted(registry.names() + registry.family_names()):
        _print_accountant(name, registry.get(name))
    print(
        "\ncalculators (not (epsilon, delta) bounds: each computes one quantity; sweep -a NAME outputs it)"
    )
    for name in registry.calculator_names():
        calc = registry.lookup(name)
        assert isinstance(calc, registry.CalculatorEntry)
        _print_calculator(name, calc)
    print(
        "\ncompose mechanisms (hockeystick compose: mechanism = NAME in a [[stage]] table; rounds = N repeats "
        "it, default 1)"
    )
    for name, needs, optional in _mechanism_parameters():
        print(f"{name}\n    needs: {_needs(needs, optional)}")
    return 0


def _needs(required: Sequence[str], optional: Sequence[str]) -> str:
    """'a, b; optional: c, d' (the optional part left out when there is none)."""
    return ", ".join(required) + (f"; optional: {', '.join(optional)}" if optional else "")


def _print_accountant(name: str, entry: Any) -> None:
    """An accountant: its summary, parameters, a family's vectors, what it calibrates and in which direction."""
    optional = [p for p in entry.parameters if p not in entry.required]
    print(f"{name}: {entry.summary}")
    print(f"    needs: {_needs(entry.required, optional)}")
    if entry.vectors:
        vectors = [p for p in inspect.signature(entry.factory).parameters if p in entry.vectors]
        print(
            f"    one list each (the strategy's, not a grid axis): {', '.join(vectors)}, as -p "
            f"{vectors[0]}=0.9,0.5 or --{vectors[0].replace('_', '-')} 0.9,0.5"
        )
    if entry.calibratable:
        print(
            "    calibrate: "
            + ", ".join(
                f"{p} ({'smallest' if c.direction == 'decreasing' else 'largest'})"
                for p, c in entry.calibratable.items()
            )
        )


def _print_calculator(name: str, calc: Any) -> None:
    """A calculator: the quantity it computes, its parameters, each parameter it solves for from a target."""
    optional = [p for p in calc.parameters if p not in calc.required]
    print(f"{name} -> {calc.quantity} ({calc.kind}): {calc.summary}")
    print(f"    needs: {_needs(calc.required, optional)}")
    for p in calc.inverses:
        print(
            f"    calibrate: {p} from -p {calc.quantity}=TARGET (needs {', '.join(calc.inverse_parameters(p))})"
        )


def _mechanism_parameters() -> list[tuple[str, list[str], list[str]]]:
    """(name, required parameters, optional parameters) of each mechanism a compose stage takes: its
    constructor's keywords, but the PLD grid (the compose file's value_discretization_interval)."""
    from ..pld.mechanisms import stage_entry, stage_names  # lazy: start-up time

    listed = []
    for name in stage_names():
        entry = stage_entry(name)
        required = entry.required()
        listed.append((name, required, [n for n in entry.parameters() if n not in required]))
    return listed
