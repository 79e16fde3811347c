"""``TiltedComposition.deltas`` reads an array of epsilons as ``TiltedComposition.delta`` reads each alone,
bit for bit, on both sides and on a window cut short (its mass above charged by its Chernoff bound): below
the window's floor (trivial), inside it, past its top, at infinity and NaN, and with a loss shift."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from hockeystick.pld.compose import tilted

from .test_pld_tilted_composition import H, grid_pmf

# the full window (741 points at lam = 1) is narrower than the support: a cap below it cuts it
ROUNDS = 500
THETA = 1.0 * H  # lam = 1


def compositions() -> list[tilted.TiltedComposition]:
    full = tilted.compose_tilted([(grid_pmf(True), ROUNDS)], THETA, pessimistic=True)
    cut = tilted.compose_tilted(
        [(grid_pmf(True), ROUNDS)],
        THETA,
        pessimistic=True,
        max_points=full.window.p.size - 1,
        window_tail=1e-6,
    )
    low = tilted.compose_tilted([(grid_pmf(False), ROUNDS)], THETA, pessimistic=False)
    assert full.above is None and cut.above is not None
    shifted = [
        dataclasses.replace(c, window=dataclasses.replace(c.window, loss_shift=0.0123))
        for c in (full, low)
    ]
    return [full, cut, low, *shifted]


@pytest.mark.parametrize("which", range(5))
def test_an_array_of_epsilons_is_read_as_each_alone(which):
    side = compositions()[which]
    eps = np.concatenate(
        [
            np.linspace(side.floor - 1.0, side.top + 3.0, 157),
            [side.floor, side.cut, side.top, math.inf, -math.inf, math.nan, 0.0],
        ]
    )
    alone = [side.delta(float(x)).hex() for x in eps]
    assert [float(d).hex() for d in side.deltas(eps)] == alone
    assert side.deltas(eps.reshape(4, 41)).shape == (4, 41)
    assert side.deltas(np.array(2.5)).shape == ()
