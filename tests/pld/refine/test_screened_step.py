"""``screened_delta_reference.delta_sides`` (the core's ``screened_delta_step``, pld/refine/screened_step.hpp): a .delta
step's screened brackets in one call, against the same step taken PMF by PMF in the package: each direction composed
by ``compose_all`` into ``GridPMF`` windows, read by ``GridPMF.delta``, the screen's decisions in numpy and the
bracket assembled by ``_core.pld_refine.delta_step_sides``, bit for bit.

One batch holds a point of each kind of decision (the screen clears it; it does not, and the add direction's
optimistic side is composed; it does not, and the fine add direction's upper side leaves the lower one alone; the
point settles below the floor), on two grids and with windows of several tails (the accuracy sizes them), with the
right offsets' arguments, a record of an earlier grid, and arguments wide enough for the suffix maxima.
"""

from __future__ import annotations

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.grid.distribution import PrivacyLossDistribution, compose_all
from hockeystick.pld.mechanisms.constructors import MAX_INTERVAL, subsampled_gaussians
from hockeystick.pld.reads.epsilon_width import RIGHT_OFFSETS
from hockeystick.pld.refine import round_cache, truncation
from hockeystick.pld.refine.grid_rules import points_rules

from . import screened_delta_reference

EPS = np.linspace(0.5, 10.0, 6)
X = np.concatenate([EPS] + [EPS + d for d in RIGHT_OFFSETS])
TAIL, FLOOR, SETTLED, ACCURACY = 1e-15, 1e-10, 1e-9, 1e-2
RULES = points_rules(ACCURACY, 0.0, "delta", "epsilon")
# (sigma, q, rounds, h) and the decisions each one's step takes (cleared, settled, add_lower)
POINTS = [
    ((0.7, 1e-3, 30.0, 1.0), 2e-3, (True, False, False)),
    ((0.7, 1e-3, 2000.0, 1.0), 2e-3, (False, False, True)),
    ((0.7, 1e-2, 2000.0, 1.0), 8e-3, (False, False, False)),
    ((1.0, 1e-3, 30.0, 1.0), 2e-3, (True, True, False)),
]


def _one_round(point, h: float, tail: float, direction: str, optimistic: bool, window: float):
    """The point's one-round PLD of one direction, composed ``rounds`` times, its windows at ``window``."""
    (one,) = round_cache.one_direction(
        [(point[0], point[1], point[3])],
        h,
        tail,
        direction,
        optimistic,
        1,
        build=subsampled_gaussians,
    )
    pld = one.self_compose(int(point[2]))
    pld.tail = window
    return pld


def _reference(points, hs, xs, own, before, direct: bool):
    """The step PMF by PMF (the module docstring)."""
    cut = [truncation.tails(p, SETTLED, TAIL, ACCURACY) for p in points]
    least: dict[tuple[float, float, float], float] = {}
    for p, (t, _) in zip(points, cut):
        least[(p[0], p[1], p[3])] = min(t, least.get((p[0], p[1], p[3]), t))
    windows = [w for _, w in cut]
    removes = [
        _one_round(p, h, least[(p[0], p[1], p[3])], "remove", True, w)
        for p, h, w in zip(points, hs, windows)
    ]
    screens = [
        _one_round(p, min(4 * h, MAX_INTERVAL), TAIL, "add", False, w)
        for p, h, w in zip(points, hs, windows)
    ]
    compose_all(removes + screens, True, workers=1, direct_bins=direct)
    out = []
    for i, (p, h, x) in enumerate(zip(points, hs, xs)):
        remove_up = removes[i].composed(True)[0]
        screen_up = screens[i].composed(True)[0]
        ups, bounds = remove_up.delta(x, 1), screen_up.delta(x, 1)
        settled = bool(np.all(np.maximum(ups, bounds) < SETTLED))
        uppers, values, lowers, lows = [remove_up], [ups], [], []
        if not settled:
            remove: PrivacyLossDistribution = removes[i]
            compose_all([remove], False, [[0]], 1, direct)
            lowers.append(remove.composed(False)[0])
            lows.append(lowers[0].delta(x, 1, envelope=False))
        cleared = settled or bool(np.all((bounds <= lows[0]) | (bounds < FLOOR)))
        add_lower = False
        if cleared:
            uppers.append(screen_up)
            values.append(bounds)
        else:
            add = _one_round(p, h, TAIL, "add", True, windows[i])
            compose_all([add], True, workers=1, direct_bins=direct)
            uppers.append(add.composed(True)[0])
            values.append(uppers[-1].delta(x, 1))
            add_lower = not bool(np.all(values[-1] <= lows[0]))
            if add_lower:
                compose_all([add], False, [[0]], 1, direct)
                lowers.append(add.composed(False)[0])
                lows.append(lowers[-1].delta(x, 1, envelope=False))
        (bracket,) = _core.pld_refine.delta_step_sides(
            rules=RULES,
            xs=[x],
            own=[own[i]],
            uppers=[uppers],
            upper_values=[values],
            lowers=[lowers],
            lower_values=[lows],
            before=[before[i]],
        )
        out.append((*bracket, (cleared, settled, add_lower)))
    return out


@pytest.mark.parametrize("direct", [False, True])
def test_screened_step_is_the_package_step_pmf_by_pmf(direct):
    points = [p for p, _, _ in POINTS]
    hs = [h for _, h, _ in POINTS]
    xs = [X] * len(points)
    own = [EPS.size] * len(points)
    # a record of an earlier grid narrower than this one's bracket at the first point
    before = [(np.full(X.size, 1e-12), np.full(X.size, 1.0))] + [None] * (len(points) - 1)
    round_cache.clear()
    found = screened_delta_reference.delta_sides(
        points, hs, xs, TAIL, RULES, own, before, 1, direct, FLOOR, SETTLED, ACCURACY
    )
    assert [f[4] for f in found] == [kind for _, _, kind in POINTS]  # every kind of decision taken
    for got, ref in zip(found, _reference(points, hs, xs, own, before, direct)):
        lo, up, fixed, add, decisions = got
        assert decisions == ref[4]
        for a, b in zip((lo, up, fixed, add), ref[:4]):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        assert np.all(lo <= up)


def test_a_unit_reads_each_point_as_alone():
    """A unit of points of distinct (sigma, q) gives each point the bracket it gets alone (its windows, reads and
    decisions its own, the batched compositions the same doubles; points of one pair would share the least one-round
    tail), and the points' fixed parts differ."""
    points = [p for p, _, _ in POINTS[1:]]
    hs = [h for _, h, _ in POINTS[1:]]
    own = [EPS.size] * len(points)
    together = screened_delta_reference.delta_sides(
        points,
        hs,
        [X] * len(points),
        TAIL,
        RULES,
        own,
        [None] * len(points),
        1,
        True,
        FLOOR,
        SETTLED,
        ACCURACY,
    )
    for i, point in enumerate(points):
        (alone,) = screened_delta_reference.delta_sides(
            [point], [hs[i]], [X], TAIL, RULES, [own[i]], [None], 1, True, FLOOR, SETTLED, ACCURACY
        )
        assert together[i][4] == alone[4]
        for a, b in zip(together[i][:4], alone[:4]):
            assert np.array_equal(a, b)
    assert not np.array_equal(together[0][2], together[1][2])
