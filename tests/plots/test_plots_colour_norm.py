"""A heatmap's log colour scale spans its normal positive values: a certified delta reported as the least
positive double (a bound below the double range) takes the scale's lowest colour, not 300 decades of it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from hockeystick.plots.heatmaps import colour_norm  # noqa: E402


def test_subnormal_values_stay_out_of_the_scale() -> None:
    least = np.nextafter(0.0, 1.0)
    norm = colour_norm([np.array([[least, 1e-6], [0.0, 0.5]]), np.array([np.inf, 1e-3])])
    assert (norm.vmin, norm.vmax) == (1e-6, 0.5)
    assert colour_norm([np.array([least, 1e-3, 5e-2])]) is None  # 50x: a linear scale
