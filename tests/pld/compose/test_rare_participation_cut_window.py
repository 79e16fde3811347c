"""A tilted composition whose pessimistic window is cut short (``compose.tilted``'s ``window_tail``) against the
exact curve: 500 rounds of a dyadic grid PMF composed exactly in big integers and summed in 50-digit mpmath
(``test_pld_tilted_composition.exact_curve``).  The cut window charges the mass above it by its own Chernoff bound
and the mass below it not at all, so its delta must bound the exact curve from above at every eps it reads (inside
the window and past its top), stay near the full window's inside it, and its upper epsilon must be certified.

500 rounds reach every branch 1000 did: the full window (741 points at lam = 1) is narrower than the composition's
support (4501), so a cap one point below it cuts the window at the 1e-6 tail (470 points, its top at loss 22.85,
the full window's at 29.55); the exact curve is positive at every eps read past the cut's top (down to 6.5e-64 at
the top + 20); the read at 1e-12 falls inside the cut window and the read at 1e-30 past the full window's top, where
only the cut's Chernoff charge gives a finite epsilon.  The exact reference costs 0.9 CPU s there (4.4 at 1000
rounds: its big-integer power grows as the square of the rounds)."""

from __future__ import annotations

import math

import pytest

from hockeystick.pld.compose import tilted

from .test_pld_tilted_composition import K_LO, NUMERATORS, H, exact_curve, grid_pmf

ROUNDS = 500
# the exact curve of 500 rounds (a 7-million-digit big-integer power, mpmath sums over 4500 losses): ~1 CPU s
pytestmark = pytest.mark.slow
THETA = 1.0 * H  # lam = 1


@pytest.fixture(scope="module")
def exact_delta():
    return exact_curve([(K_LO, NUMERATORS, ROUNDS)])


@pytest.fixture(scope="module")
def sides():
    pmf = grid_pmf(True)
    full = tilted.compose_tilted([(pmf, ROUNDS)], THETA, pessimistic=True)
    cut = tilted.compose_tilted(
        [(pmf, ROUNDS)],
        THETA,
        pessimistic=True,
        max_points=full.window.p.size - 1,
        window_tail=1e-6,
    )
    return full, cut


def test_the_window_is_cut_and_charged(sides):
    full, cut = sides
    assert full.above is None and cut.above is not None
    assert cut.window.p.size < full.window.p.size
    assert cut.top < full.top


def test_cut_window_bounds_the_exact_curve_inside_and_past_its_top(sides, exact_delta):
    full, cut = sides
    inside = [cut.floor + 0.1, 0.5 * (cut.floor + cut.top), cut.top - 1.0]
    past = [cut.top + 0.5, cut.top + 5.0, cut.top + 20.0]
    for eps in inside + past:
        exact = float(exact_delta(eps))
        assert exact <= cut.delta(eps), eps
    for eps in inside[
        :2
    ]:  # well inside the window the cut read is the full one's up to the charges
        assert cut.delta(eps) <= 1.01 * full.delta(eps), eps
    # near the cut the mass above it is charged by its Chernoff bound: looser than the full window's, still certified
    assert cut.delta(cut.top - 1.0) <= 100.0 * full.delta(cut.top - 1.0)
    assert cut.delta(cut.floor - 1.0) == 1.0  # below the window: trivial


@pytest.mark.parametrize("target", [1e-12, 1e-30])
def test_cut_window_upper_epsilon_is_certified(sides, exact_delta, target):
    _, cut = sides
    eps = tilted.upper_epsilon(cut, target, cut.top)
    assert math.isfinite(eps)
    assert float(exact_delta(eps)) <= target
