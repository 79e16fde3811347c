"""Grids chosen for an accuracy: which grid comes next, when to stop, where a calibration starts.

``SubsampledGaussianPLD``'s refinement: ``controller`` (the loop over grids; ``AccuracyNotMetWarning``),
``grid_rules`` (which grid next), ``step_brackets`` (one step's brackets), ``bracket_width`` (a bracket's width
in accuracy's units), ``dominated_direction`` (a direction screened on a coarser grid).  A composition plan's:
``plan_refinement`` and ``grid_alignment``.  Calibration: ``directional_delta`` (calibrate's trials one
direction at a time), ``calibration_start`` (its central-limit start).  What a fixed grid needs too (the first
grid, the ladder, the one-round cache, delta near 1, the constants) is one stage below, in ``pld.grid``.
"""
