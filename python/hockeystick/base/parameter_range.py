"""The parameter range where the event adapters compute certified bounds, and the error beyond it.

A noise scale above ``MAX_NOISE`` (1e150) leaves a per-run privacy loss whose square underflows the
doubles (a Gaussian of radius 1/sigma folds into sum r^2), and a run whose privacy loss can reach
beyond ``MAX_LOSS_REACH`` (1e4) needs a loss grid of tens of millions of points at the adapters'
first grid (3e-3, ``pld.refine.tuning.PLAN_COARSEST_INTERVAL``): a Laplace of scale 1e-5 (reach 1e5)
spans some 7e7 points there, gigabytes of buffers for one run.  A Gaussian pair of radius r has its
privacy loss L ~ N(r^2/2, r^2), so beyond ``gaussian_reach(r)`` = r^2/2 + 40 r lies a mass below
1e-300.  A mechanism composed as exact atoms on a common lattice of 2^-32 int64 indices keeps one
run's loss below ``MAX_FINITE_REACH`` (1e6), and a discrete Laplace's integer sensitivity below
``MAX_SENSITIVITY`` (its exact pair holds about one atom per integer of the shift).

Settings beyond these limits are refused with ``ParameterOutOfRange``: a ValueError (the library's
rule for input it cannot certify) that is also an OverflowError, the type dp_accounting raises for
most of them (its grids overflow there).  This module imports nothing beyond the standard library,
so every door (the mechanisms' readings of events, the dp_accounting and Opacus adapters) uses it.
"""

from __future__ import annotations

__all__ = [
    "MAX_FINITE_REACH",
    "MAX_LOSS_REACH",
    "MAX_NOISE",
    "MAX_SENSITIVITY",
    "TAIL_RADII",
    "ParameterOutOfRange",
    "gaussian_reach",
]

MAX_NOISE = 1e150
MAX_LOSS_REACH = 1e4
MAX_FINITE_REACH = 1e6  # a one-run loss of a mechanism composed as exact atoms (int64 lattice)
MAX_SENSITIVITY = 1_000_000  # the largest integer sensitivity of a discrete pair taken
TAIL_RADII = 40.0


class ParameterOutOfRange(ValueError, OverflowError):
    """A valid parameter outside the range where a certified bound is computed (module docstring)."""


def gaussian_reach(radius: float) -> float:
    """A loss beyond which a Gaussian pair of this radius has (all but) no mass: r^2/2 + 40 r.

    Parameters
    ----------
    radius : float
        The pair's radius r >= 0 (shift / noise).

    Returns
    -------
    float
        r^2 / 2 + 40 r: L ~ N(r^2/2, r^2) puts a mass below 1e-300 beyond it.

    Raises
    ------
    TypeError
        If ``radius`` is not a number (Python's arithmetic).
    """
    return radius * radius / 2.0 + TAIL_RADII * radius
