"""The ``delta_accuracy="epsilon"`` stopping rule under G1's criterion (docs/references.md): an
argument whose certified upper delta is below DELTA_FLOOR (1e-9) is done, and the lower side at eps is
raised by the certified lower sides at eps + d (delta does not increase).  The brackets stay certified."""

from __future__ import annotations

import numpy as np
import pytest

import hockeystick.pld as pld
from hockeystick.pld.accountants.subsampled_gaussian import SubsampledGaussianPLD
from hockeystick.pld.reads.epsilon_width import RIGHT_OFFSETS, certified_epsilon_width
from hockeystick.pld.refine import constants, tuning
from hockeystick.pld.refine.bracket_width import bracket_width

FLOOR = SubsampledGaussianPLD.DELTA_FLOOR


def _with_shifted(
    eps: np.ndarray, lo: list[np.ndarray], up: list[np.ndarray]
) -> tuple[np.ndarray, ...]:
    """The accountant's layout: own eps, then eps + d for each d of RIGHT_OFFSETS (lo, up given per block)."""
    x = np.concatenate([eps] + [eps + d for d in RIGHT_OFFSETS])
    return x, np.concatenate(lo), np.concatenate(up)


def test_width_is_zero_below_the_floor_and_the_certified_epsilon_width_above():
    acc = SubsampledGaussianPLD(
        sigma=1.0, sampling_rate=0.01, rounds=10, accuracy=1e-2, delta_accuracy="epsilon"
    )
    eps = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    #            below floor  delta ~ 1 (flat) ordinary, steep   ordinary, no chord (lo = 0)  above the ceiling
    lo0 = np.array([0.0, 1.0 - 1e-8, 1.0e-3, 0.0, 1.0 - 1e-9])
    up0 = np.array([5e-10, 1.0, 1.001e-3, 2e-9, 1.0])
    lo_s = [np.array([0.0, 1.0 - 1e-8, 5e-4 * f, 0.0, 1.0 - 1e-9]) for f in (0.99, 0.96, 0.85)]
    up_s = [np.array([4e-10, 1.0, 5.01e-4 * f, 1.9e-9, 1.0]) for f in (0.99, 0.96, 0.85)]
    x, lo, up = _with_shifted(eps, [lo0] + lo_s, [up0] + up_s)
    width = bracket_width(acc.delta_accuracy, "delta", x, lo, up, eps.size)
    assert width[0] == 0.0  # below the floor: met, done
    assert (
        SubsampledGaussianPLD.DELTA_CEILING == 1.0 - FLOOR
        and lo0[4] >= SubsampledGaussianPLD.DELTA_CEILING
    )
    assert width[4] == 0.0  # lower side at the ceiling: met, done
    expected = np.min(
        [certified_epsilon_width(eps, lo0, up0, eps + d, u) for d, u in zip(RIGHT_OFFSETS, up_s)],
        axis=0,
    )
    np.testing.assert_array_equal(width[1:4], expected[1:4])  # the certified width elsewhere
    assert width[1] == eps[1]  # flat at 1 below the ceiling: capped, still wide
    assert expected[4] == eps[4]  # (the ceiling point has no chord either)
    assert width[3] == eps[3]  # lo = 0: capped at eps, still wide
    # the relative rule is unchanged: (up - lo) / max(up, floor)
    rel = bracket_width(
        SubsampledGaussianPLD(
            sigma=1.0, sampling_rate=0.01, rounds=10, accuracy=1e-2
        ).delta_accuracy,
        "delta",
        eps,
        lo0,
        up0,
        eps.size,
    )
    np.testing.assert_array_equal(rel, (up0 - lo0) / np.maximum(up0, FLOOR))


@pytest.mark.parametrize(
    "sigma, q, rounds, eps", [(1.0, 0.01, 1000, 3.3), (2.71, 0.0038, 56899, 2.3)]
)
def test_below_the_floor_the_first_grid_is_kept_and_the_bracket_is_certified(
    visited_grids, sigma, q, rounds, eps
):
    """Points whose certified upper delta is below the 1e-9 floor meet the criterion by the floor, so no
    relative accuracy is sought below it: they keep their first grid, whose bracket still holds the truth
    as a finer fixed grid brackets it."""
    lo, up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, accuracy=1e-2, delta_accuracy="epsilon"
    ).delta(eps, bound="both")
    grids = list(visited_grids)
    assert len(grids) == 1 and up < FLOOR and 0.0 <= lo <= up
    f_lo, f_up = pld.SubsampledGaussianPLD(
        sigma=sigma, sampling_rate=q, rounds=rounds, value_discretization_interval=grids[0] / 4
    ).delta(eps, bound="both")
    assert lo <= f_up and f_lo <= up


def test_lower_side_is_raised_by_the_shifted_lower_bounds_and_stays_certified():
    """With the epsilon rule the lower side at eps is the largest certified lower value at eps and at
    eps + d: never below dp_accounting's optimistic value at a finer grid minus nothing (a lower bound must
    not exceed any upper bound), and never above a fine grid's upper side."""
    kw = dict(sigma=0.73, sampling_rate=0.023, rounds=np.array([300.0, 5000.0, 60000.0])[:, None])
    eps = np.linspace(0.5, 10, 8)
    lo, up = pld.SubsampledGaussianPLD(**kw, accuracy=1e-2, delta_accuracy="epsilon").delta(
        eps, bound="both"
    )
    f_lo, f_up = pld.SubsampledGaussianPLD(**kw, value_discretization_interval=2e-3).delta(
        eps, bound="both"
    )
    assert np.all(lo <= f_up) and np.all(f_lo <= up) and np.all((0 <= lo) & (lo <= up) & (up <= 1))


def test_a_capped_epsilon_width_steps_by_capped_step_and_the_bracket_holds(
    visited_grids, monkeypatch
):
    """sigma 0.55, q 0.048, 7197 rounds: delta ~ 1 - 1e-7 at every eps, no chord, epsilon width capped at eps.
    The cap says nothing of the grid needed, so the step is CAPPED_STEP (h / 32), not the h^2 jump the
    cap eps = 10 asked for (h / 45 on the ladder); the bracket is certified all the same.  The composed PMFs
    alone (the complement's bracket switched off: it resolves this point on its first grid, below)."""
    kw = dict(sigma=0.55, sampling_rate=0.048, rounds=7197)
    eps = np.array([0.5, 10.0])
    above = constants.COMPLEMENT_ABOVE
    monkeypatch.setattr(constants, "COMPLEMENT_ABOVE", 1.0)
    lo, up = pld.SubsampledGaussianPLD(**kw, accuracy=1e-2, delta_accuracy="epsilon").delta(
        eps, bound="both"
    )
    grids = list(visited_grids)
    assert len(grids) >= 2 and grids[1] >= grids[0] * tuning.CAPPED_STEP * (1 - 1e-12)
    f_lo, f_up = pld.SubsampledGaussianPLD(**kw, value_discretization_interval=2e-3).delta(
        eps, bound="both"
    )
    assert np.all(lo <= f_up) and np.all(f_lo <= up) and np.all(up <= 1.0)
    monkeypatch.setattr(constants, "COMPLEMENT_ABOVE", above)
    visited_grids.clear()
    c_lo, c_up = pld.SubsampledGaussianPLD(**kw, accuracy=1e-2, delta_accuracy="epsilon").delta(
        eps, bound="both"
    )
    assert len(visited_grids) == 1 and np.all(lo <= c_up) and np.all(c_lo <= up)
    assert np.all(c_up - c_lo < 1e-2 * (1.0 - c_up))  # 1 - delta to 1 %, where the cap left it flat
