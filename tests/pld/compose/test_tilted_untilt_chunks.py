"""The untilted masses of a tilted window, computed a chunk at a time (``tilted.untilted_masses``),
equal the module docstring's formula evaluated over the whole window at once, bit for bit, on both
sides: the optimistic side's margin lowers each entry (subtracted where the tilted entry is >= 0,
added where it is negative), the pessimistic side's raises the entry clipped at 0.  Windows shorter
than a chunk, one chunk and a few, over grid indices of either sign, with exponents that overflow."""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld.compose import tilted


def formula(
    masses: np.ndarray,
    first: int,
    theta: float,
    log_scale: float,
    magnitude: float,
    pessimistic: bool,
) -> np.ndarray:
    """The formula over the whole window: K, the untilt factor and the margin as whole arrays."""
    k = (first + np.arange(masses.size)).astype(np.float64)
    factor = np.exp(log_scale - theta * k)
    margin = tilted.exp_margin(magnitude + np.abs(theta * k))
    if pessimistic:
        return np.asarray(np.maximum(masses, 0.0) * factor * (1.0 + margin))
    return np.asarray(masses * factor * np.where(masses >= 0.0, 1.0 - margin, 1.0 + margin))


@pytest.mark.parametrize("pessimistic", [True, False])
@pytest.mark.parametrize(
    ("n", "first", "theta", "log_scale", "magnitude"),
    [
        (1, 0, 1e-3, 0.5, 0.5),
        (tilted.UNTILT_CHUNK, -27_167, 4.8e-4, 12.3, 15.1),
        (3 * tilted.UNTILT_CHUNK + 17, 5_000_000, 2.7e-5, 140.0, 160.0),
        (tilted.UNTILT_CHUNK + 1, -3_000, 0.3, 800.0, 800.0),  # factors past the doubles: inf, nan
    ],
)
def test_the_chunked_untilt_is_the_whole_window_formula_bit_for_bit(
    n: int, first: int, theta: float, log_scale: float, magnitude: float, pessimistic: bool
) -> None:
    rng = np.random.default_rng(n)
    masses = rng.random(n) * 10.0 ** rng.uniform(-300, 0, n) - 1e-9 * rng.random(n)
    masses[:: max(1, n // 7)] = 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        want = formula(masses, first, theta, log_scale, magnitude, pessimistic)
        got = tilted.untilted_masses(masses, first, theta, log_scale, magnitude, pessimistic)
    assert got.dtype == np.float64 and got.shape == want.shape
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))
