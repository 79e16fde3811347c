"""The shift-constrained with-replacement bound read off chords of D between points _EVALUATION_STEP apart.

D(gamma) is convex, so chords between evaluated points lie above it: the PLD's upper curve must be
at or above D itself at every grid point, also between the evaluated ones, and never above 1.  The
evaluation step is raised to 0.02 here, so that a grid of 1e-3 reads 19 of every 20 points off the chords.
"""

from __future__ import annotations

import numpy as np

from hockeystick.pld.sampling import with_replacement_shift_bound as module


def test_chords_lie_above_the_curve_at_every_grid_point(monkeypatch):
    monkeypatch.setattr(module, "_EVALUATION_STEP", 0.02)
    sigma, k, n, h = 1.0, 1000, 1000, 1e-3
    pld = module.with_replacement_shift_bound(sigma, k, n, value_discretization_interval=h)
    weights, _ = module.copy_count_weights(k, n, 0.0)
    eps = np.arange(0, 4001, 7) * h  # grid points, most of them between two evaluations
    exact = module.shift_constrained_curve(eps, weights, sigma)  # s = sigma / sensitivity
    upper = np.asarray(pld.delta(eps, bound="upper"), dtype=np.float64)
    assert np.all(upper >= exact * (1 - 1e-12)), float(np.min(upper - exact))
    assert np.all(upper <= 1.0)
    # and the chords cost little: within 1% of D where D is not negligible
    big = exact > 1e-6
    assert np.all(upper[big] <= exact[big] * 1.01 + 1e-9), float(np.max(upper[big] / exact[big]))
