"""Grids chosen for an accuracy: where a refinement or a calibration starts, which direction it composes.

``dominated_direction`` (a direction screened on a coarser grid), ``directional_delta`` (calibrate's trials one
direction at a time), ``calibration_start`` (the central-limit start of a calibration), ``round_cache`` (one-round PLDs kept
between the calls of a calibration or a sweep).
"""
