"""``certified_theta.theta_side_at_magnitude`` (theta at |eps| rounded outward in the core's loop) is
``theta_upper`` / ``theta_lower`` at |eps| clipped to [0, 1], bit for bit, on both sides: values
near 1, in the relative contract, below FLOOR (the log form) and below TINY, eps = inf, r = 0,
negative eps (read at their magnitudes and counted), and one more element than a core piece (4096)
so that the second piece is read too."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.numerics import certified_theta as ct


def _eps(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    mags = np.concatenate(
        [
            rng.uniform(0.0, 3.0, 2000),  # theta near 1 down to ~1e-3 at these radii
            rng.uniform(3.0, 60.0, 1500),  # far tails
            rng.uniform(300.0, 4000.0, 595),  # below FLOOR and TINY: the log form and 0
            [0.0, np.inf],
        ]
    )
    signs = np.where(rng.random(mags.size) < 0.3, -1.0, 1.0)
    return rng.permutation(mags * signs)


def _reference(r: float, eps: np.ndarray, upper: bool) -> np.ndarray:
    side = ct.theta_upper if upper else ct.theta_lower
    return np.clip(np.asarray(side(np.full(eps.shape, r), np.abs(eps))), 0.0, 1.0)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("r", [0.0, 0.37, 2.5, 11.0])
def test_same_doubles_as_theta_upper_and_lower(r: float, upper: bool) -> None:
    eps = _eps(int(10 * r) + upper)
    assert eps.size == 4097
    got, negative = ct.theta_side_at_magnitude(r, eps, upper)
    want = _reference(r, eps, upper)
    assert got.shape == eps.shape
    assert [x.hex() for x in got.tolist()] == [x.hex() for x in want.tolist()]
    assert negative == int(np.sum(eps < 0))
    assert bool(np.all((got >= 0.0) & (got <= 1.0)))
    if upper and r > 0:  # the log form was taken: positive values below FLOOR
        assert bool(np.any((got > 0.0) & (got < ct.FLOOR)))


def test_zero_d_and_invalid_radius() -> None:
    got, negative = ct.theta_side_at_magnitude(1.0, np.array(-0.5), True)
    assert got.shape == () and negative == 1
    assert float(got) == float(_reference(1.0, np.array([-0.5]), True)[0])
    with pytest.raises(ValueError, match="r must"):
        ct.theta_side_at_magnitude(-1.0, np.array([0.5]), True)
    with pytest.raises(ValueError):
        ct.theta_side_at_magnitude(1.0, np.array([0.5, np.nan]), False)
