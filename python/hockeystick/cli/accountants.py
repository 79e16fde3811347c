"""``hockeystick accountants``: what -a accepts, with each one's parameters, and the mechanisms of a
``hockeystick compose`` stage with theirs."""

from __future__ import annotations

import argparse
import inspect
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
    from .. import registry

    for name in sorted(registry.names() + registry.family_names()):
        entry = registry.get(name)
        optional = [p for p in entry.parameters if p not in entry.required]
        print(f"{name}: {entry.summary}")
        print(f"    needs: {', '.join(entry.required)}" + (f"; optional: {', '.join(optional)}" if optional else ""))
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
    print("\ncalculators (not (epsilon, delta) bounds: each computes one quantity; sweep -a NAME outputs it)")
    for name in registry.calculator_names():
        calc = registry.lookup(name)
        assert isinstance(calc, registry.CalculatorEntry)
        optional = [p for p in calc.parameters if p not in calc.required]
        print(f"{name} -> {calc.quantity} ({calc.kind}): {calc.summary}")
        print(f"    needs: {', '.join(calc.required)}" + (f"; optional: {', '.join(optional)}" if optional else ""))
        for p in calc.inverses:
            print(f"    calibrate: {p} from -p {calc.quantity}=TARGET (needs {', '.join(calc.inverse_parameters(p))})")
    print(
        "\ncompose mechanisms (hockeystick compose: mechanism = NAME in a [[stage]] table; rounds = N repeats "
        "it, default 1)"
    )
    for name, needs, optional in _mechanism_parameters():
        print(f"{name}\n    needs: {', '.join(needs)}" + (f"; optional: {', '.join(optional)}" if optional else ""))
    return 0


def _mechanism_parameters() -> list[tuple[str, list[str], list[str]]]:
    """(name, required parameters, optional parameters) of each mechanism a compose stage takes: its
    constructor's keywords, but the PLD grid (the compose file's value_discretization_interval)."""
    from ..pld.accountants.stages import MECHANISMS

    listed = []
    for name, (constructor, _) in MECHANISMS.items():
        keywords = {
            n: p for n, p in inspect.signature(constructor).parameters.items() if n != "value_discretization_interval"
        }
        listed.append(
            (
                name,
                [n for n, p in keywords.items() if p.default is inspect.Parameter.empty],
                [n for n, p in keywords.items() if p.default is not inspect.Parameter.empty],
            )
        )
    return listed
