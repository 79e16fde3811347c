"""A composition plan's next grid in the core (cpp/include/hockeystick/pld/refine/plan_grid.hpp,
``_core.pld_refine.plan_next_grid``), against the rule's closed forms: none once the width meets the target or the
grid is the finest; the first step aims h 0.9 sqrt(target / width) on the h^2 law (h / 2 for an infinite width);
a big first jump to a grid past PLAN_PROBE_POINTS probes h / PLAN_PROBE_SHRINK first; the budget's floor
h points / PLAN_MAX_POINTS bounds the ask from below and is returned for the alignment; an ask at or above 0.95 h is
none; a later step follows the width's power law through the two grids, p = log(w0 / w) / log(h0 / h) clipped to
[1, 2]."""

from __future__ import annotations

import math

import pytest

from hockeystick import _core
from hockeystick.pld.refine import tuning
from hockeystick.pld.refine.grid_rules import next_grid_tuning
from hockeystick.pld.refine.grid_start import grid_policy


def next_grid(
    h: float, width: float, before: tuple[float, float] | None = None, points: float = 1e3
) -> tuple[float, float] | None:
    return _core.pld_refine.plan_next_grid(
        h=h,
        width=width,
        before=before,
        points=points,
        target=1e-4,
        finest=tuning.PLAN_FINEST_INTERVAL,
        max_points=float(tuning.PLAN_MAX_POINTS),
        probe_shrink=tuning.PLAN_PROBE_SHRINK,
        probe_points=float(tuning.PLAN_PROBE_POINTS),
        tuning=next_grid_tuning(),
        policy=grid_policy(),
    )


def test_a_width_within_the_target_or_the_finest_grid_asks_none():
    assert next_grid(3e-3, 1e-4) is None
    assert next_grid(tuning.PLAN_FINEST_INTERVAL, 1.0) is None
    assert next_grid(3e-3, math.nan) is None  # no argument wider than the target


def test_the_first_step_aims_on_the_h2_law_with_the_budgets_floor():
    h, width = 3e-3, 4e-4
    assert next_grid(h, width) == (
        h * 0.9 * math.sqrt(1e-4 / width),
        h * 1e3 / tuning.PLAN_MAX_POINTS,
    )
    assert next_grid(h, math.inf) == (0.5 * h, h * 1e3 / tuning.PLAN_MAX_POINTS)


def test_a_big_first_jump_past_the_probe_points_probes_first():
    h, width = 3e-3, 1.0  # aims 2.7e-5 h: finer than h / 16
    small = next_grid(h, width, points=1e3)  # 16 x 1e3 points: within PLAN_PROBE_POINTS, no probe
    assert small is not None and small[0] == pytest.approx(h * 0.9 * math.sqrt(1e-4))
    probed = next_grid(h, width, points=1e4)
    assert probed is not None and probed[0] == h / tuning.PLAN_PROBE_SHRINK


def test_the_budgets_floor_bounds_the_ask_and_stops_it_near_h():
    h = 3e-3
    floor = h * 5e5 / tuning.PLAN_MAX_POINTS
    got = next_grid(h, 2e-4, before=(6e-3, 8e-4), points=5e5)
    assert got is not None and got == (max(got[0], floor), floor) and got[0] >= floor
    assert (
        next_grid(h, 2e-4, points=1.0 * tuning.PLAN_MAX_POINTS) is None
    )  # floor h: at or above 0.95 h


@pytest.mark.parametrize(("ratio", "power"), [(4.0, 2.0), (2.0, 1.0), (8.0, 2.0)])
def test_a_later_step_follows_the_power_law_through_two_grids(ratio, power):
    """Widths falling by `ratio` when h halves: p = log2(ratio) clipped to [1, 2]; the next grid reaches
    0.9 target along w (h' / h)^p."""
    h, width = 1e-3, 4e-4
    got = next_grid(h, width, before=(2 * h, ratio * width))
    assert got is not None
    assert got[0] == pytest.approx(h * (0.9 * 1e-4 / width) ** (1 / power), rel=1e-12)
