"""hockeystick: compiled differential-privacy accounting for federated and iterative learning.

Every accountant answers one question, the privacy profile
delta(eps) = sup over neighbours of E_{e^eps}(P || P'), vectorized with numpy
broadcasting.  This top level holds the numerics everything stands on: the
Gaussian tail Q and the hockey-stick divergence theta.  Families of
accountants live in subpackages (``hockeystick.contraction``, ``.pld``,
``.fdp``, ``.rdp``, ...).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .numerics.gaussian import (
        gaussian_tail,
        gaussian_tail_inverse,
        log_gaussian_tail,
        mills_ratio,
    )
    from .numerics.hockey_stick import (
        laplace_hockey_stick,
        log_theta,
        theta,
        theta_depsilon,
        theta_epsilon,
        theta_radius,
    )

__version__ = "0.2.0"  # the one place the version is written: pyproject.toml reads it at build time

from .base import moved as _moved  # noqa: E402  (old module paths of pld and interop keep importing, with a warning)

_moved.install()

# Nothing numeric is imported with the package: ``hockeystick --version`` and every ``--help`` start
# without numpy or the compiled core.  The top-level functions come from their modules on first use
# (PEP 562), and so does every submodule (``hockeystick.pld``, ``hockeystick.theta`` ...).
_FUNCTIONS = {
    "gaussian_tail": "numerics.gaussian",
    "gaussian_tail_inverse": "numerics.gaussian",
    "log_gaussian_tail": "numerics.gaussian",
    "mills_ratio": "numerics.gaussian",
    "laplace_hockey_stick": "numerics.hockey_stick",
    "log_theta": "numerics.hockey_stick",
    "theta": "numerics.hockey_stick",
    "theta_depsilon": "numerics.hockey_stick",
    "theta_epsilon": "numerics.hockey_stick",
    "theta_radius": "numerics.hockey_stick",
}


def __getattr__(name: str) -> Any:
    if name in _FUNCTIONS:
        value = getattr(importlib.import_module(f".{_FUNCTIONS[name]}", __name__), name)
        globals()[name] = value  # later lookups find it without coming here
        return value
    if not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'hockeystick' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_FUNCTIONS})


__all__ = [
    "gaussian_tail",
    "gaussian_tail_inverse",
    "laplace_hockey_stick",
    "log_gaussian_tail",
    "log_theta",
    "mills_ratio",
    "theta",
    "theta_depsilon",
    "theta_epsilon",
    "theta_radius",
]
