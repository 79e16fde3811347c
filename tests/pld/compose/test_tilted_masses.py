"""The exponential tilt's arithmetic in the core (cpp/include/hockeystick/pld/compose/tilted_masses.hpp, through
``_core.pld_reads`` and ``compose.tilted``; pld/grid/tilt_ladders.hpp): the untilted masses of a tilted window are
the formula of ``compose.tilted``'s docstring evaluated entry by entry with libm's exp (Python's ``math.exp``), bit
for bit, on both sides, over grid indices of either sign and with exponents that overflow; the tilted and untilted
masses lie on their side of the exact values (mpmath, 40 digits); the ladders of tilts are their geometric formula
with libm's exp and log, rung by rung."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.compose import tilted
from hockeystick.pld.grid.pmf import GridPMF

U = 2.0**-53


def _exp(x: float) -> float:
    """libm's e^x, inf past the doubles (``math.exp`` raises there)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def untilted_by_formula(
    masses: np.ndarray,
    first: int,
    theta: float,
    log_scale: float,
    magnitude: float,
    pessimistic: bool,
) -> np.ndarray:
    """The formula entry by entry: K exact, theta K, e^{log_scale - theta K}, the margin 32 u (magnitude + |theta K|
    + 1), the products in order."""
    out = np.empty(masses.size)
    for i, p in enumerate(masses.tolist()):
        scaled = theta * float(first + i)
        factor = _exp(log_scale - scaled)
        margin = 32.0 * U * (magnitude + abs(scaled) + 1.0)
        if pessimistic:
            out[i] = max(p, 0.0) * factor * (1.0 + margin)
        else:
            out[i] = p * factor * (1.0 - margin if p >= 0.0 else 1.0 + margin)
    return out


def _window(n: int) -> np.ndarray:
    """Tilted entries over 300 orders of magnitude, some 0 and some negative (a composed window's round-off)."""
    rng = np.random.default_rng(n)
    masses = rng.random(n) * 10.0 ** rng.uniform(-300, 0, n) - 1e-9 * rng.random(n)
    masses[:: max(1, n // 7)] = 0.0
    return masses


@pytest.mark.parametrize("pessimistic", [True, False])
@pytest.mark.parametrize(
    ("n", "first", "theta", "log_scale", "magnitude"),
    [
        (1, 0, 1e-3, 0.5, 0.5),
        (16_384, -27_167, 4.8e-4, 12.3, 15.1),
        (20_017, 5_000_000, 2.7e-5, 140.0, 160.0),
        (16_385, -3_000, 0.3, 800.0, 800.0),  # factors past the doubles: inf, nan
    ],
)
def test_the_untilt_is_the_formula_with_libms_exp_bit_for_bit(
    n: int, first: int, theta: float, log_scale: float, magnitude: float, pessimistic: bool
) -> None:
    masses = _window(n)
    want = untilted_by_formula(masses, first, theta, log_scale, magnitude, pessimistic)
    got = tilted.untilted_masses(masses, first, theta, log_scale, magnitude, pessimistic)
    assert got.dtype == np.float64 and got.shape == want.shape
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))


@pytest.mark.parametrize("pessimistic", [True, False])
def test_tilted_and_untilted_masses_lie_on_their_side_of_the_exact_values(
    pessimistic: bool,
) -> None:
    """Each tilted mass p_k e^{theta k - log M} and each untilted entry p~_K e^{log_scale - theta K} against the
    exact value at 40 digits (the inputs as given): raised on the pessimistic side, lowered on the optimistic one
    (a negative untilted entry on the optimistic side too: its margin makes it more negative)."""
    rng = np.random.default_rng(7)
    n, k_lo, theta = 400, -1_500, 3e-3
    p = rng.random(n) * 10.0 ** rng.uniform(-30, 0, n)
    factor, log_m = tilted.tilted_factor(GridPMF(k_lo, 1e-3, p, 0.0, 0.0, pessimistic), theta)
    got = factor.p
    window = _window(n)
    first, log_scale, magnitude = 2_000, 9.5, 11.0
    untilted = tilted.untilted_masses(window, first, theta, log_scale, magnitude, pessimistic)
    with mp.workdps(40):
        for j in range(n):
            exact = mp.mpf(float(p[j])) * mp.exp(mp.mpf(theta) * (k_lo + j) - mp.mpf(log_m))
            assert (got[j] >= exact) if pessimistic else (got[j] <= exact), j
            entry = max(float(window[j]), 0.0) if pessimistic else float(window[j])
            exact = mp.mpf(entry) * mp.exp(mp.mpf(log_scale) - mp.mpf(theta) * (first + j))
            assert (untilted[j] >= exact) if pessimistic else (untilted[j] <= exact), j


def _geometric(least: float, most: float, count: int) -> list[float]:
    """The geometric ladder rung by rung: e^{i (b - a) / (count - 1) + a}, a = log least, b = log most, the last
    e^b."""
    a, b = math.log(least), math.log(most)
    step = (b - a) / (count - 1)
    return [math.exp(i * step + a) for i in range(count - 1)] + [math.exp(b)]


@pytest.mark.parametrize(
    ("ladder", "least", "most", "count"),
    [
        (_core.pld_reads.tilt_lambdas(), 1e-2, 1e6, 481),
        (tilted.ABOVE_LAMBDAS, 1e-6, 5.0, 97),
        (_core.pld_reads.wrap_lambdas(), 1.001, 100.0, 97),
    ],
)
def test_the_ladders_of_tilts_are_their_geometric_formula_rung_by_rung(
    ladder: np.ndarray, least: float, most: float, count: int
) -> None:
    assert ladder.tolist() == _geometric(least, most, count)
