"""Which certified side a printed column holds, by its name: the one rule the command line's tables
round by (``base.outward_text``: an upper side up, a lower side down, anything else to nearest).

- ``<name>_upper`` / ``<name>_lower``: that side of the bracket (a sweep's ``--bound both``,
  compose's brackets, risk's ``tpr_upper``, ``mu_lower``);
- a grid's outputs (``grid_sides``): an epsilon or delta the side ``bound`` chose; a calibrated
  parameter the noise falls with (sigma) on the same side, one it grows with (rounds, a sampling
  rate) on the other (the largest value the upper delta accepts is at most the true largest, so it
  is safe to round down); a calculator's value (paper 001's leakage) on none;
- the fixed names of the other printers (``NAMED_SIDES``): simulate's proven ``epsilon`` and
  Corollary 1 ``bound``, a calibrated ``noise_multiplier``.

Inputs (the axes, the fixed parameters, a column a printer names as its input, a Monte Carlo
estimate) have no side: to nearest.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..base.outward_text import SIDES, Side

__all__ = ["column_side", "grid_sides"]

# the printers' column names that are not a grid's outputs -> the side they certify
NAMED_SIDES: dict[str, Side] = {
    "epsilon": "upper",  # simulate: a run's proven epsilon at the plan's delta
    "bound": "upper",  # simulate: Corollary 1's bound on the excess test loss
    "noise_multiplier": "upper",  # calibrate --participation: any larger multiplier meets the target
}

# the opposite side, for a calibrated parameter the accepted region grows with
_OPPOSITE: dict[Side, Side] = {"upper": "lower", "lower": "upper"}


def column_side(name: str, inputs: Collection[str] = ()) -> Side | None:
    """The side column ``name`` holds by its suffix (``_upper``, ``_lower``) or ``NAMED_SIDES``.

    Parameters
    ----------
    name : str
        The column's name as printed.
    inputs : collection of str, optional
        The printer's input columns (compose's given epsilon or delta): no side whatever the name.

    Returns
    -------
    {"upper", "lower"} or None
        None for a column that bounds nothing (printed to nearest).
    """
    if name in inputs:
        return None
    for side in SIDES:
        if name.endswith(f"_{side}"):
            return side
    return NAMED_SIDES.get(name)


def grid_sides(grid: Any) -> dict[str, Side | None]:
    """The side of each output column of ``grid`` (a ``sweep.grid.Grid``), by what it computes.

    Parameters
    ----------
    grid : hockeystick.sweep.grid.Grid
        The grid whose ``outputs`` are printed.

    Returns
    -------
    dict of str to {"upper", "lower"} or None
        Each output column's side; the inputs are not listed (no side).
    """
    if grid.calculators:
        return {name: None for name in grid.outputs}
    sides: dict[str, Side | None] = {}
    for name in grid.outputs:
        side: Side = "lower" if name == f"{grid.output}_lower" else "upper"
        sides[name] = _OPPOSITE[side] if grid.best_is_max else side
    return sides
