"""``hockeystick.sweep.registry`` is ``hockeystick.registry`` (kept importable under this name).

The registry sits below both the sweep and the calibration driver (docs/architecture.md),
so the sweep, ``calibrate`` and ``plots`` import downward only.
"""

from ..registry import REGISTRY, AccountantEntry, Calibratable, get, names, register

__all__ = ["AccountantEntry", "Calibratable", "REGISTRY", "get", "names", "register"]
