"""``SubsampledGaussianPLD(accuracy=..., delta_accuracy="epsilon")`` at small sampling rates: the first grid
below the rate (``StartGrid.below_rate_start``), the steps of capped arguments whose lower side is 0
(``NO_LOWER_STEP``), and slow widths near the rate (``NextGrid.power_step``'s ``near_rate``).

These rules choose grids, never bounds: every grid's bracket is certified, so the brackets must overlap
every fixed grid's certified bracket (each contains the truth), stay below dp_accounting's pessimistic PLD
on the lower side, and meet G1's criterion (an epsilon width within accuracy above DELTA_FLOOR).
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.reads.epsilon_width import (
    RIGHT_OFFSETS,
    certified_epsilon_width,
    left_epsilon_width,
)
from hockeystick.pld.refine import constants, tuning
from hockeystick.pld.refine.grid_start import StartGrid, ladder_rung

from .numpy_next_grid import NextGrid

EPS = np.linspace(0.5, 10.0, 20)

# the fixed grids' own certified brackets, which the refined ones must overlap
pytestmark = pytest.mark.usefixtures("grid_alone")


def _accountant(sigma: float, q: float, rounds) -> SubsampledGaussianPLD:
    return SubsampledGaussianPLD(
        sigma=sigma,
        sampling_rate=q,
        rounds=rounds,
        accuracy=1e-2,
        delta_accuracy="epsilon",
        workers=1,
    )


def _epsilon_width(
    sigma: float, q: float, rounds: int, lo: np.ndarray, up: np.ndarray
) -> np.ndarray:
    """G1's certified epsilon width: the least over RIGHT_OFFSETS' chords and the lower side at eps - 0.0099."""
    shifted = [_accountant(sigma, q, rounds).delta(EPS + d) for d in RIGHT_OFFSETS]
    left = _accountant(sigma, q, rounds).delta(EPS - 0.0099, bound="lower")
    return np.min(
        [certified_epsilon_width(EPS, lo, up, EPS + d, s) for d, s in zip(RIGHT_OFFSETS, shifted)]
        + [left_epsilon_width(EPS, up, EPS - 0.0099, left)],
        axis=0,
    )


def test_start_is_the_rung_below_the_rate_only_where_it_is_small_and_near():
    acc = _accountant(0.8, 8.86e-4, 1000)
    span_start = StartGrid(acc.accuracy, acc.delta_accuracy).span_start((0.8, 8.86e-4, 1e5, 1.0))
    assert span_start > 8.86e-4  # the span start is blind there
    below = StartGrid(acc.accuracy, acc.delta_accuracy).first(
        (0.8, 8.86e-4, 1e5, 1.0), EPS, "delta"
    )
    assert below == ladder_rung(8.86e-4 / constants.BELOW_RATE_MARGIN) == pytest.approx(6.4e-4)
    assert below <= 8.86e-4 / constants.BELOW_RATE_MARGIN
    # a large rate keeps the span start (blind rounds values there have deltas near 1)
    big = (0.5, 0.0234, 1e5, 1.0)
    assert (
        StartGrid(acc.accuracy, acc.delta_accuracy).first(big, EPS, "delta")
        == StartGrid(acc.accuracy, acc.delta_accuracy).span_start(big)
        > 0.0234
    )
    # between .epsilon's limit and the epsilon criterion's, .delta starts below the rate and
    # .epsilon's rule keeps the span start
    mid = (0.5, 0.016, 1e5, 1.0)
    assert (
        constants.BELOW_RATE_START_MAX_RATE
        < 0.016
        <= constants.EPSILON_CRITERION_BELOW_RATE_MAX_RATE
    )
    mid_span = StartGrid(acc.accuracy, acc.delta_accuracy).span_start(mid)
    assert (
        StartGrid(acc.accuracy, acc.delta_accuracy).first(mid, EPS, "delta")
        == StartGrid.below_rate(0.016)
        == ladder_rung(0.016 / constants.BELOW_RATE_MARGIN)
        < 0.016
        < mid_span
    )
    assert StartGrid(acc.accuracy, acc.delta_accuracy).below_rate_start(mid_span, 0.016) == mid_span
    # a start more than BLIND_START_REACH times coarser than the rung below q is kept
    far = (0.5, 1e-4, 1e5, 1.0)
    assert StartGrid(acc.accuracy, acc.delta_accuracy).span_start(
        far
    ) > constants.BELOW_RATE_START_MAX_REFINEMENT * StartGrid.below_rate(1e-4)
    assert StartGrid(acc.accuracy, acc.delta_accuracy).first(far, EPS, "delta") == StartGrid(
        acc.accuracy, acc.delta_accuracy
    ).span_start(far)
    # the relative rule is unchanged
    relative = SubsampledGaussianPLD(sigma=0.8, sampling_rate=8.86e-4, rounds=1000, accuracy=1e-2)
    assert (
        StartGrid(relative.accuracy, relative.delta_accuracy).first(
            (0.8, 8.86e-4, 1e5, 1.0), EPS, "delta"
        )
        == span_start
    )


@pytest.mark.parametrize(
    "sigma, q, rounds, first, fixed",
    [
        (0.8, 8.86e-4, 100, 6.4e-4, (8e-5, 2e-5)),
        (0.8, 8.86e-4, 5964, 6.4e-4, (8e-5, 2e-5)),
        (0.576, 5.46e-3, 8685, 3.62e-3, (3.2e-4, 8e-5)),
    ],
)
def test_a_point_started_below_the_rate_meets_g1_and_its_bracket_holds(
    sigma, q, rounds, first, fixed, visited_grids
):
    """Blocks of G1 (sigma 0.8, q 8.86e-4; sigma 0.576, q 5.46e-3, past ``.epsilon``'s
    BELOW_RATE_START_MAX_RATE): the first grid is the rung below q, no grid of the point is at or
    above q, and none is composed twice (that first grid already has the direct bins a same-grid
    recomposition would add); its bracket overlaps each ``fixed`` grid's."""
    lo, up = _accountant(sigma, q, rounds).delta(EPS, bound="both")
    assert visited_grids[0] == pytest.approx(first, rel=1e-3) and max(visited_grids) < q
    assert len(set(visited_grids)) == len(visited_grids), visited_grids
    assert np.all((0.0 <= lo) & (lo <= up) & (up <= 1.0))
    width = _epsilon_width(sigma, q, rounds, lo, up)
    met = (width <= 1e-2) | (up < SubsampledGaussianPLD.DELTA_FLOOR)
    assert np.all(met), (EPS[~met], width[~met])
    for h in fixed:
        f_lo, f_up = SubsampledGaussianPLD(
            sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=h
        ).delta(EPS, bound="both")
        assert np.all(lo <= f_up) and np.all(f_lo <= up), h


def test_lower_side_is_below_dp_accountings_pessimistic_pld():
    pld_lib = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    lo, _ = _accountant(0.8, 8.86e-4, 5964).delta(EPS, bound="both")
    ref = pld_lib.from_gaussian_mechanism(
        0.8, sampling_prob=8.86e-4, value_discretization_interval=1e-4
    ).self_compose(5964)
    assert np.all(lo <= np.array([ref.get_delta_for_epsilon(float(e)) for e in EPS]))


def test_a_capped_argument_with_no_lower_side_steps_by_a_quarter():
    """No gap is read where the lower side is 0 (q >= h: round-off took it): h / 4, not CAPPED_STEP's h / 32;
    a flat upper side (lower side > 0, no gap) keeps CAPPED_STEP."""
    acc = _accountant(2.047, 7.85e-3, 10_000)
    h = 1.81e-3
    x = np.concatenate([EPS[:2]] + [EPS[:2] + d for d in RIGHT_OFFSETS])
    up = np.full(x.size, 1.2e-9)
    capped = np.ones(2, dtype=bool)
    blind = np.zeros(2, dtype=bool)
    width = EPS[:2].copy()
    no_lower = NextGrid(acc.accuracy).capped_interval(
        h, x, np.zeros(x.size), up, width, 2, capped, blind, 7.85e-3
    )
    assert no_lower == pytest.approx(h * tuning.NO_LOWER_STEP)
    flat = NextGrid(acc.accuracy).capped_interval(
        h, x, np.full(x.size, 1 - 2e-7), np.full(x.size, 1 - 1e-7), width, 2, capped, blind, 7.85e-3
    )
    assert flat == pytest.approx(h * tuning.CAPPED_STEP)


def test_a_slow_width_is_followed_only_near_the_rate():
    """Widths 0.03 -> 0.022 from h = 2.56e-3 to 1.28e-3 (p = 0.45 < SLOWEST_POWER): followed when the coarser
    grid was near the sampling rate (its law reaches the tolerance within SLOW_REACH), not far below it."""
    acc = _accountant(0.5, 3.79e-3, 3000)
    h0, h = 2.56e-3, 1.28e-3
    width0, width = np.array([0.030]), np.array([0.022])
    wide, none = np.ones(1, dtype=bool), np.zeros(1, dtype=bool)
    near = NextGrid(acc.accuracy).power_step(
        h, h0, width, width0, np.zeros(1), wide, none, near_rate=True
    )
    assert near is not None and near <= ladder_rung(0.9 * h)
    assert (
        NextGrid(acc.accuracy).power_step(
            h, h0, width, width0, np.zeros(1), wide, none, near_rate=False
        )
        is None
    )
    # a width whose own law asks more than 8x finer is not followed even near the rate
    assert (
        NextGrid(acc.accuracy).power_step(
            h, h0, np.array([0.029]), width0, np.zeros(1), wide, none, near_rate=True
        )
        is None
    )


def test_a_grid_started_below_the_rate_is_composed_once_with_direct_bins(visited_grids):
    """sigma 0.5, q 2.07e-4, 100 rounds: the first grid (1.6e-4) left only charge-limited arguments, which
    asked for the same grid again with the direct DFT bins; started below the rate, the first grid has them,
    so no grid is composed twice.  The bracket overlaps a finer fixed grid's."""
    lo, up = _accountant(0.5, 2.07e-4, 100).delta(EPS, bound="both")
    assert visited_grids[0] == pytest.approx(1.6e-4)
    assert len(set(visited_grids)) == len(visited_grids), visited_grids
    f_lo, f_up = SubsampledGaussianPLD(
        sigma=0.5, sampling_rate=2.07e-4, rounds=100, value_discretization_interval=4e-5
    ).delta(EPS, bound="both")
    assert (
        np.all(lo <= f_up) and np.all(f_lo <= up) and np.all((0.0 <= lo) & (lo <= up) & (up <= 1.0))
    )
