"""Grids chosen for an accuracy: which grid comes next, when to stop, where a calibration starts.

One loop refines every ``accuracy=`` front end: ``controller`` (``refine``: per point, a bracket on
its grid, intersected over its grids, until the front end asks no finer grid).  Its front ends:
``points`` (``Refinement``: the many points of ``SubsampledGaussianPLD`` and its kin, each on its
own grid ladder) with ``bracket_width`` (a bracket's width
in accuracy's units), ``dominated_direction`` (a direction screened on a coarser grid) and ``unmet``
(``AccuracyNotMetWarning``); ``plan_refinement`` (``GridRefinement``: a composition plan's one
composition) with ``grid_alignment``.  Both aim their grids by the core's next-grid rules
(cpp/include/hockeystick/pld/refine/: ``points_rules.hpp`` for the points, ``plan_grid.hpp`` for a
plan, through ``grid_rules``' tuning and policy objects) and read their tuning constants from
``tuning``.  Calibration: ``directional_delta`` (calibrate's trials
one direction at a time), ``calibration_start`` (its central-limit start).  The grid-and-tail policy
every grid needs, fixed or refined: ``grid_start`` (a point's first grid, the grid ladder, the
window caps), ``round_cache`` (one-round PLDs kept between the calls of a calibration or a sweep),
``near_one`` (delta near 1) and ``constants`` (the grids' tuning constants, read at call time).
"""

from typing import TYPE_CHECKING

from ...base.front_door import front_door

if TYPE_CHECKING:
    from . import calibration_start
    from .calibration_start import calibration_grids as calibration_grids
    from .question import RDP_MARGIN as RDP_MARGIN
    from .question import question_tail as question_tail
    from .question import within_tolerance as within_tolerance
    from .unmet import AccuracyNotMetWarning as AccuracyNotMetWarning

    # the door's names for attributes whose own names are generic
    central_limit_start = calibration_start.calibration_start

# What other packages of hockeystick import from this stage, and the module each comes from: its
# modules' paths are the stage's own (tests/test_layers.py refuses them outside pld/), and a name
# loads its module on first use.  These names are the packages' seam, not the library's public names
# (``hockeystick.pld``'s).
FRONT_DOOR = {
    "AccuracyNotMetWarning": "unmet",
    "RDP_MARGIN": "question",
    "calibration_grids": "calibration_start",
    "central_limit_start": "calibration_start:calibration_start",
    "question_tail": "question",
    "within_tolerance": "question",
}

__getattr__ = front_door(__name__, FRONT_DOOR, globals())
