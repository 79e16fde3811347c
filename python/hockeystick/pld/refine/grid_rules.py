"""Which grid next: the core's rules (cpp/include/hockeystick/pld/refine/next_grid.hpp, points_rules.hpp,
plan_grid.hpp) with the package's constants at call time: their tuning (``next_grid_tuning``) and the
many points' rules (``points_rules``), and the record of a point's grid before (``Before``)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from ... import _core
from ...base.accountant import Quantity
from ..reads.epsilon_width import RIGHT_OFFSETS
from . import constants, tuning
from .grid_start import grid_policy

# a point's bracket on an earlier grid: (h, lower, upper, width)
Before = tuple[float, np.ndarray, np.ndarray, np.ndarray]


_TUNING: dict[tuple[float, ...], _core.pld_refine.NextGridTuning] = {}


def next_grid_tuning() -> _core.pld_refine.NextGridTuning:
    """The core's NextGridTuning holding ``tuning``'s values now (one object per set of values)."""
    key = (
        tuning.STALLED,
        tuning.SLOWEST_POWER,
        tuning.SLOW_REACH,
        tuning.CAP_LEFT_WITHIN_TOLERANCES,
    )
    if key not in _TUNING:
        _TUNING[key] = _core.pld_refine.NextGridTuning(
            stalled=key[0],
            slowest_power=key[1],
            slow_reach=key[2],
            cap_left_within_tolerances=key[3],
        )
    return _TUNING[key]


_POINTS_RULES: dict[tuple[object, ...], _core.pld_refine.PointsRules] = {}


def points_rules(
    accuracy: float,
    relative_accuracy: float,
    method: Quantity,
    delta_accuracy: Literal["relative", "epsilon"],
) -> _core.pld_refine.PointsRules:
    """The core's PointsRules (cpp/include/hockeystick/pld/refine/points_rules.hpp: the
    many-points refinement's width and next-grid rules)
    holding ``tuning``'s and ``constants``' values now, for a refinement of ``method`` ("epsilon"
    or "delta") to ``accuracy`` (``relative_accuracy``: ``.epsilon``'s tolerance max(accuracy,
    relative_accuracy eps); ``delta_accuracy``: ``.delta``'s criterion, "relative" or "epsilon").
    One object per set of values.

    Parameters
    ----------
    accuracy : float
        The width asked, > 0.
    relative_accuracy : float
        ``.epsilon``'s relative tolerance (0: none).
    method : str
        "epsilon" or "delta".
    delta_accuracy : str
        "relative" or "epsilon".

    Returns
    -------
    _core.pld_refine.PointsRules
        The rules' accuracy and constants.

    Raises
    ------
    ValueError
        Where ``method`` or ``delta_accuracy`` is none of those.
    """
    key = (
        accuracy,
        relative_accuracy,
        method,
        delta_accuracy,
        len(RIGHT_OFFSETS),
        constants.DELTA_FLOOR,
        constants.DELTA_CEILING,
        constants.NEAR_ONE,
        tuning.CAPPED_STEP,
        tuning.NO_LOWER_STEP,
        tuning.GAP_TARGET,
        tuning.OFFSET_LIMITED,
        tuning.OFFSET_GAP_TARGET,
        next_grid_tuning(),
        grid_policy(),
    )
    if key not in _POINTS_RULES:
        _POINTS_RULES[key] = _core.pld_refine.PointsRules(
            method=method,
            delta_accuracy=delta_accuracy,
            accuracy=accuracy,
            relative_accuracy=relative_accuracy,
            right_rows=len(RIGHT_OFFSETS),
            delta_floor=constants.DELTA_FLOOR,
            delta_ceiling=constants.DELTA_CEILING,
            near_one=constants.NEAR_ONE,
            capped_step=tuning.CAPPED_STEP,
            no_lower_step=tuning.NO_LOWER_STEP,
            gap_target=tuning.GAP_TARGET,
            offset_limited=tuning.OFFSET_LIMITED,
            offset_gap_target=tuning.OFFSET_GAP_TARGET,
            tuning=next_grid_tuning(),
            policy=grid_policy(),
        )
    return _POINTS_RULES[key]
