"""Grids chosen for an accuracy: where a refinement or a calibration starts, which grid comes next, when to stop.

``SubsampledGaussianPLD``'s refinement: ``controller`` (the loop over grids; ``AccuracyNotMetWarning``),
``grid_start`` (a point's first grid, the grid ladder, the window caps), ``grid_rules`` (which grid next),
``step_brackets`` (one step's brackets), ``bracket_width`` (a bracket's width in accuracy's units), ``near_one``
(delta near 1), ``dominated_direction`` (a direction screened on a coarser grid).  A composition plan's:
``plan_refinement`` and ``grid_alignment``.  Both read ``constants``.  Calibration: ``directional_delta``
(calibrate's trials one direction at a time), ``calibration_start`` (its central-limit start); ``round_cache``
(one-round PLDs kept between the calls of a calibration or a sweep).
"""
