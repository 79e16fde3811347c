"""pld.subsampled_pair's greatest convex minorant (pruning passes, then Andrew's monotone chain)
against brute force: at each point, the least value at g_k of the chords through two points that
straddle it (and the point itself), which is the greatest convex minorant there."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld.sampling.subsampled_pair import convex_minorant


def brute_force_minorant(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = y.copy()
    for k in range(g.size):
        for i in range(k):
            for j in range(k + 1, g.size):
                t = (g[k] - g[i]) / (g[j] - g[i])
                out[k] = min(out[k], y[i] + t * (y[j] - y[i]))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_minorant_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    g = np.unique(np.sort(rng.random(n) * 10))
    # random points, staircases (many pruning passes) and a convex curve with noise
    kind = seed % 3
    if kind == 0:
        y = rng.random(g.size)
    elif kind == 1:
        y = np.floor((1 - g / 10) * 6) / 6
    else:
        y = np.exp(-g) * (1 + 1e-3 * rng.random(g.size))
    got = convex_minorant(g, y)
    want = brute_force_minorant(g, y)
    assert np.all(got <= y + 1e-15)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_minorant_of_a_long_staircase_is_linear_time():
    """A staircase needs one pruning pass per step: the monotone chain finishes it in linear time."""
    g = np.linspace(1e-3, 50.0, 400_001)
    y = np.floor((1 - g / 50.0) * 2000) / 2000
    got = convex_minorant(g, y)
    assert np.all(got <= y + 1e-15) and np.all(np.diff(got, 2) >= -1e-9)
