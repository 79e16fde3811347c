"""hockeystick: compiled differential-privacy accounting for federated and iterative learning.

Every accountant answers one question, the privacy profile
delta(eps) = sup over neighbours of E_{e^eps}(P || P'), vectorized with numpy
broadcasting.  This top level holds the numerics everything stands on: the
Gaussian tail Q and the hockey-stick divergence theta.  Families of
accountants live in subpackages (``hockeystick.contraction``, ``.pld``,
``.fdp``, ``.rdp``, ...).
"""

from .gaussian import gaussian_tail, gaussian_tail_inverse, log_gaussian_tail, mills_ratio
from .hockey_stick import (
    laplace_hockey_stick,
    log_theta,
    theta,
    theta_depsilon,
    theta_epsilon,
    theta_radius,
)

__version__ = "0.1.0"

# Families of accountants, imported on first use (``hockeystick.pld`` etc.).
_SUBPACKAGES = ("contraction", "pld", "fdp", "rdp", "simulate", "sweep", "calibrate", "plots", "figures",
                "registry", "example", "accountant")


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'hockeystick' has no attribute {name!r}")

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
