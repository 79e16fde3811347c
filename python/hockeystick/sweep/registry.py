"""``hockeystick.sweep.registry`` is ``hockeystick.registry`` (kept importable under this name).

The registry sits below both the sweep and the calibration driver (docs/architecture.md),
so the sweep, ``calibrate`` and ``plots`` import downward only.
"""

from ..registry import (
    CALCULATORS,
    REGISTRY,
    AccountantEntry,
    CalculatorEntry,
    Calibratable,
    calculator_names,
    default_output,
    get,
    lookup,
    names,
    register,
)

__all__ = [
    "AccountantEntry",
    "CalculatorEntry",
    "Calibratable",
    "CALCULATORS",
    "REGISTRY",
    "calculator_names",
    "default_output",
    "get",
    "lookup",
    "names",
    "register",
]
