"""What every grid of ``SubsampledGaussianPLD`` needs, fixed or refined: ``grid_start`` (a point's first grid, the
grid ladder, the window caps), ``round_cache`` (one-round PLDs kept between the calls of a calibration or a
sweep), ``near_one`` (delta near 1) and ``constants`` (the grids' tuning constants, read at call time).
``pld.refine`` chooses grids for an accuracy on top of these (its own constants in ``refine.tuning``).
"""
