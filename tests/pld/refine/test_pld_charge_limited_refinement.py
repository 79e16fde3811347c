"""``SubsampledGaussianPLD(accuracy=..., delta_accuracy="epsilon")``: charge-limited arguments and the steps
after the first grid (``NextGrid.charge_width``, ``NextGrid.next_interval``, ``NextGrid.power_step``, the blind
arguments' rung).

An argument whose gap is mostly the round-off charges (and the mass at +infinity) is not narrowed by a finer
grid, so it does not drive the h^2 jump: where it is all that is too wide, the same grid is recomposed with
the direct DFT bins instead.  The brackets stay certified: they must overlap every fixed grid's certified
bracket (each contains the truth) and the closed form where there is one.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.reads.epsilon_width import (
    RIGHT_OFFSETS,
    certified_epsilon_width,
    left_epsilon_width,
)
from hockeystick.pld.refine import tuning
from hockeystick.pld.refine.grid_start import ladder_rung

from .numpy_next_grid import NextGrid

EPS = np.linspace(0.5, 10.0, 20)

# the fixed grids' own certified brackets, which the refined ones must overlap
pytestmark = pytest.mark.usefixtures("grid_alone")


def _refined(
    sigma: float, q: float, rounds: int, eps: np.ndarray = EPS
) -> tuple[np.ndarray, np.ndarray]:
    return SubsampledGaussianPLD(
        sigma=sigma,
        sampling_rate=q,
        rounds=rounds,
        accuracy=1e-2,
        delta_accuracy="epsilon",
        workers=1,
    ).delta(eps, bound="both")


def _overlaps_fixed_grids(
    sigma: float, q: float, rounds: int, lo: np.ndarray, up: np.ndarray, grids: tuple[float, ...]
) -> None:
    for h in grids:
        f_lo, f_up = SubsampledGaussianPLD(
            sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=h
        ).delta(EPS, bound="both")
        assert np.all(lo <= f_up) and np.all(f_lo <= up), h


def _epsilon_width(
    sigma: float, q: float, rounds: int, lo: np.ndarray, up: np.ndarray
) -> np.ndarray:
    """G1's certified epsilon width: the least over RIGHT_OFFSETS' chords and the lower side at eps - 0.0099
    (``left_epsilon_width``), the shifted arguments' sides refined too."""
    shifted = [_refined(sigma, q, rounds, EPS + d)[1] for d in RIGHT_OFFSETS]
    left = _refined(sigma, q, rounds, EPS - 0.0099)[0]
    return np.min(
        [certified_epsilon_width(EPS, lo, up, EPS + d, s) for d, s in zip(RIGHT_OFFSETS, shifted)]
        + [left_epsilon_width(EPS, up, EPS - 0.0099, left)],
        axis=0,
    )


def test_an_argument_whose_charges_fit_the_tolerance_is_refined_until_met(visited_grids):
    """sigma 3.276, q 0.016, 2812 rounds: on the first grid (6.4e-4) only eps = 1.5 is too wide by the chords
    to the right, its delta ~1.2e-9 and part of its gap round-off charge; what no grid removes leaves it
    below 0.9 of the tolerance, so it is not charge-limited: finer grids (with direct bins) meet it (a rule
    at half the tolerance would stop after a same-grid recomposition at width 0.0149).  Since the lower sides left of eps certify widths too (``left_epsilon_width``), that
    first grid meets it: delta falls ~6 % per 0.01 of eps there.  The bracket overlaps the fixed grids'
    certified brackets."""
    lo, up = _refined(3.276, 0.016, 2812)
    assert visited_grids[0] == pytest.approx(6.4e-4), visited_grids
    assert np.all(lo <= up)
    above_floor = up >= SubsampledGaussianPLD.DELTA_FLOOR  # below it G1's floor rule holds
    assert np.all(_epsilon_width(3.276, 0.016, 2812, lo, up)[above_floor] <= 1e-2)
    _overlaps_fixed_grids(3.276, 0.016, 2812, lo, up, (6.4e-4, 1.6e-4, 4e-5))


def test_the_step_after_a_same_grid_recomposition_divides_by_nothing():
    """``NextGrid.next_interval`` after a recomposition of the same grid (before[0] == h) has no two grids to fit:
    it takes the first-step rule, with no division by zero, and stops where only charge-limited
    arguments remain."""
    acc = SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.01, rounds=1000, accuracy=1e-2, delta_accuracy="epsilon"
    )
    h = 6.4e-4
    width = np.array([0.005, 0.04, 0.3])
    cap = np.array([0.5, 1.0, 1.5])
    none = np.zeros(3, dtype=bool)
    before = (h, np.zeros(3), np.ones(3), width.copy())
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        # eps 1.5 is charge-limited (its charges alone leave 0.3), eps 1.0 is not: the h^2 jump of 0.04
        finer = NextGrid(acc.accuracy).next_interval(
            h, width, before, none, None, np.array([0.0, 0.0, 0.3]), cap
        )
        assert finer is not None and finer < h
        assert finer == ladder_rung(h * 0.9 * np.sqrt(1e-2 / 0.04))
        # only charge-limited arguments left after the direct bins: nothing more to build
        assert (
            NextGrid(acc.accuracy).next_interval(
                h, width, before, none, None, np.array([0.0, 0.05, 0.3]), cap
            )
            is None
        )
        # on the first grid the same arguments ask for the same grid again (recomposed with direct bins)
        assert (
            NextGrid(acc.accuracy).next_interval(
                h, width, None, none, None, np.array([0.0, 0.05, 0.3]), cap
            )
            == h
        )


def test_power_step_follows_a_width_that_falls_like_h():
    """Two grids 2x apart, the width falling 2x (like h, not h^2): the next grid is where c h reaches the
    tolerance, not a floor that stops it (a fit of c h^2 + f read 0.007 of floor from 0.022 -> 0.011)."""
    acc = SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.01, rounds=1000, accuracy=1e-2, delta_accuracy="epsilon"
    )
    h0, h = 3.62e-3, 1.81e-3
    width0, width = np.array([0.022]), np.array([0.011])
    wide = np.ones(1, dtype=bool)
    finer = NextGrid(acc.accuracy).power_step(h, h0, width, width0, np.zeros(1), wide, ~wide)
    assert finer is not None
    assert finer == ladder_rung(h * 0.9e-2 / 0.011)
    # the same widths where the coarser one was a cap: the h^2 law from the current width
    capped = NextGrid(acc.accuracy).power_step(h, h0, width, width0, np.zeros(1), wide, wide)
    assert capped == ladder_rung(h * np.sqrt(0.9e-2 / 0.011))
    # a cap far from the tolerance is not followed
    assert (
        NextGrid(acc.accuracy).power_step(h, h0, np.array([0.4]), width0, np.zeros(1), wide, wide)
        is None
    )


@pytest.mark.parametrize("rounds", [15, 37])
def test_blind_arguments_step_below_the_sampling_rate_and_meet_the_tolerance(rounds, visited_grids):
    """sigma 0.5, q 1e-4 (G1's corner): on the first grid (1.8e-3 > q) the lower side is 0 at eps 0.5 and 1;
    the h^2 jump of their cap stays above q (the optimistic side stays loose), so they step to the
    ladder's rung below q, 8e-5, where both meet the tolerance (main: unmet).  The bracket overlaps
    the fixed grids' certified brackets."""
    lo, up = _refined(0.5, 1e-4, rounds)
    assert min(visited_grids) <= 8e-5 < 1e-4
    width = _epsilon_width(0.5, 1e-4, rounds, lo, up)
    assert np.all(width[:2] <= 1e-2), width[:2]
    assert np.all(lo <= up)
    _overlaps_fixed_grids(0.5, 1e-4, rounds, lo, up, (8e-5, 2e-5))


def test_a_gap_near_one_set_by_the_cells_edge_factor_is_not_refined(visited_grids):
    """G1's block sigma 0.549, q 0.048 (all 50 rounds values): from ~5000 rounds delta is within 1e-6 of 1,
    and much of the gap there is the cells' edge factor (each round's masses scaled by about e^{+-e}, e the
    edge error: ~loss_shift = 6e-10 on each side after 5964 rounds, at every h), which the core's fixed_part.hpp counts
    as what no grid removes.  Were a point above NEAR_ONE counted as grid-led whatever its gap, the refinement
    would follow 5964 rounds down to h = 1.4e-5 for no point met; the block stops on the grids it visits
    before the edge factor decides (the finest 9e-4).  Its brackets still hold every
    fixed grid's at 5964 rounds."""
    rounds = np.round(np.logspace(1, 5, 50))
    lo, up = SubsampledGaussianPLD(
        sigma=0.5493,
        sampling_rate=0.04833,
        rounds=rounds[:, None],
        accuracy=1e-2,
        delta_accuracy="epsilon",
        workers=1,
    ).delta(EPS, bound="both")
    assert min(visited_grids) > 1e-4, min(visited_grids)
    assert np.all(lo <= up)
    row = int(np.flatnonzero(rounds == 5964)[0])
    _overlaps_fixed_grids(0.5493, 0.04833, 5964, lo[row], up[row], (1e-3, 2.5e-4))


def test_a_charge_limited_argument_down_from_its_cap_takes_one_rung_more(
    visited_grids, monkeypatch
):
    """sigma 3.125, q 0.0162, 82864 rounds (one of G1's rows), eps 10: capped on the first grid (h = 2.56e-3), then
    at h = 2.26e-4 its charges alone are 0.0099 wide in epsilon ([9.96e-10, 1.036e-9]: charge-limited, which stopped
    it there short of G1), and 4x smaller one rung finer (1.6e-4: 0.0022 wide), where it meets G1.  With the rung the
    bracket meets G1 and overlaps the fixed grids' certified brackets; without it (CAP_LEFT_WITHIN_TOLERANCES = 0)
    the loop stops at 2.26e-4.  CAP_LEFT_WITHIN_TOLERANCES = 0 also turns off
    ``NextGrid.power_step``'s near-cap rule, which this row does not reach: at
    2.26e-4 eps 10 is its only argument still too wide, and it is charge-limited."""
    sigma, q, rounds = 3.1252759626369855, 0.01623776739188721, 82864
    lo, up = _refined(sigma, q, rounds)
    assert visited_grids == pytest.approx([2.56e-3, 2.2627417e-4, 1.6e-4])
    above_floor = up >= SubsampledGaussianPLD.DELTA_FLOOR
    assert above_floor[-1] and np.all(_epsilon_width(sigma, q, rounds, lo, up)[above_floor] <= 1e-2)
    _overlaps_fixed_grids(sigma, q, rounds, lo, up, (2.56e-3, 1.6e-4))
    monkeypatch.setattr(
        tuning, "CAP_LEFT_WITHIN_TOLERANCES", 0.0
    )  # no argument is near its cap: it stops
    visited_grids.clear()
    stopped_lo, stopped_up = _refined(sigma, q, rounds)
    # the loop stops a rung short; the accuracy read after it (the default's fine delta read) still narrows the answer
    assert visited_grids == pytest.approx([2.56e-3, 2.2627417e-4])
    assert stopped_up[-1] >= SubsampledGaussianPLD.DELTA_FLOOR
    _overlaps_fixed_grids(sigma, q, rounds, stopped_lo, stopped_up, (2.56e-3, 1.6e-4))
