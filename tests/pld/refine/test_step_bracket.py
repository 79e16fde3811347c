"""One step's delta brackets in the core (``_core.pld_refine.delta_step_brackets``,
cpp/include/hockeystick/pld/refine/step_bracket.hpp): the same doubles as the numpy formulas they
replace (each side the largest over the directions; the fixed part of the direction that sets each
side, numpy's argmax on ties and at NaN; the own lower side raised by the right offsets' rows; the
arguments still too wide after the record of the grid before, with their left rows), and malformed
reads refused by name."""

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.refine.bracket_width import bracket_width, offset_rows
from hockeystick.pld.refine.grid_rules import points_rules
from hockeystick.pld.refine.points import with_offsets

ACCURACY = 1e-2


def by_argmax(parts: list[np.ndarray], values: list[np.ndarray]) -> np.ndarray:
    """The parts (2, m) of the direction picked by ``np.argmax`` over the values, per argument."""
    pick = np.argmax(values, axis=0)
    return np.stack(parts)[pick, :, np.arange(pick.size)].T


def reference(kind, x, own, ups, up_parts, lows, low_parts, before):
    """The numpy formulas: (lower, upper, fixed part, wide, add)."""
    upper = np.max(ups, axis=0)
    fixed = by_argmax(up_parts, ups)
    add = np.max(ups[1:], axis=0) if len(ups) > 1 else None
    if not lows:
        return np.zeros(x.size), upper, fixed, np.zeros(x.size, dtype=bool), add
    fixed = fixed + by_argmax(low_parts, lows)
    lower = np.max(lows, axis=0)
    right, left = offset_rows(x.size, own)
    for k in range(right.start // own, right.stop // own):
        lower[:own] = np.maximum(lower[:own], lower[k * own : (k + 1) * own])
    lo = lower if before is None else np.maximum(lower, before[0])
    up = upper if before is None else np.minimum(upper, before[1])
    wide = np.zeros(x.size, dtype=bool)
    wide[:own] = bracket_width(kind, "delta", x, lo, up, own) > ACCURACY
    wide[left] = np.tile(wide[:own], (left.stop - left.start) // own)
    return lower, upper, fixed, wide, add


def case(rng, kind, directions, sides, with_before):
    """A point's reads: delta curves falling in eps, some directions tied, a lower side below each
    upper one."""
    own = 6
    x = np.linspace(0.5, 3.0, own)
    if kind == "epsilon":
        x = with_offsets([x], ACCURACY)[0]
    base = 1e-4 * np.exp(-x)
    ups = [base * (1.0 + rng.integers(0, 3, x.size) * 0.01) for _ in range(directions)]
    lows = [u * (1.0 - rng.choice([1e-4, 0.5], x.size)) for u in ups[:sides]]
    up_parts = [rng.random((2, x.size)) * 1e-9 for _ in ups]
    low_parts = [rng.random((2, x.size)) * 1e-9 for _ in lows]
    before = (
        (np.min(lows, axis=0) if lows else np.zeros(x.size), 1.1 * ups[0]) if with_before else None
    )
    return x, own, ups, up_parts, lows, low_parts, before


@pytest.mark.parametrize("kind", ["relative", "epsilon"])
def test_same_doubles_as_the_numpy_formulas(kind):
    rng = np.random.default_rng(0)
    cases = [
        case(rng, kind, directions, min(sides, directions), with_before)
        for directions in (1, 2, 3)
        for sides in (0, 1, 2)
        for with_before in (False, True)
    ]
    # ties and NaN in the values: the first direction on ties, the first NaN at NaN (numpy's argmax)
    x, own, ups, up_parts, lows, low_parts, before = cases[-1]
    ups[1][:3] = ups[0][:3]
    ups[2][0] = np.nan
    found = _core.pld_refine.delta_step_brackets(
        rules=points_rules(ACCURACY, 0.0, "delta", kind),
        xs=[c[0] for c in cases],
        own=[c[1] for c in cases],
        uppers=[c[2] for c in cases],
        upper_parts=[c[3] for c in cases],
        lowers=[c[4] for c in cases],
        lower_parts=[c[5] for c in cases],
        before=[c[6] for c in cases],
    )
    assert len(found) == len(cases)
    seen_wide = []
    for got, c in zip(found, cases):
        want = reference(kind, *c)
        for g, w in zip(got[:4], want[:4]):
            np.testing.assert_array_equal(g, w)
        if want[4] is None:
            assert got[4] is None
        else:
            np.testing.assert_array_equal(got[4], want[4])
        seen_wide.append(want[3][: c[1]])
    wide = np.concatenate(seen_wide)
    assert wide.any() and not wide.all()  # both branches of the width test are met


def test_malformed_reads_refused_by_name():
    rules = points_rules(ACCURACY, 0.0, "delta", "relative")
    x = np.array([1.0, 2.0])
    one = np.array([1e-5, 1e-6])
    parts = np.zeros((2, 2))

    def call(**changes):
        kw = dict(
            rules=rules,
            xs=[x],
            own=[2],
            uppers=[[one]],
            upper_parts=[[parts]],
            lowers=[[one]],
            lower_parts=[[parts]],
            before=[None],
        )
        kw.update(changes)
        return _core.pld_refine.delta_step_brackets(**kw)

    with pytest.raises(ValueError, match="at least one direction's upper side"):
        call(uppers=[[]], upper_parts=[[]])
    with pytest.raises(ValueError, match="m values and 2 m fixed parts"):
        call(uppers=[[np.array([1e-5])]])
    with pytest.raises(ValueError, match="one fixed part per lower read"):
        call(lower_parts=[[]])
    with pytest.raises(ValueError, match="one entry a point"):
        call(own=[2, 2])
    with pytest.raises(ValueError, match="record's lower"):
        call(before=[(np.zeros(3), np.ones(2))])


def test_a_unit_reads_each_point_as_alone():
    """``StepBrackets.assembled`` over a unit of points gives each point the bracket it gets alone:
    each point's fixed parts are taken from the one core read of the unit in the order they were
    read (its directions, then its lower sides), not another point's."""
    from hockeystick.pld.refine import constants, dominated_direction
    from hockeystick.pld.refine.step_brackets import StepBrackets

    points = [(0.9, 0.02, 300.0, 1.0), (1.4, 0.05, 40.0, 1.0), (0.7, 0.01, 2000.0, 1.0)]
    hs = [2e-3, 1e-3, 4e-3]
    xs = with_offsets([np.linspace(0.5, 4.0, 5)] * 3, ACCURACY)
    parts = dominated_direction.delta_sides(
        points,
        hs,
        xs,
        1e-14,
        1,
        False,
        0.1 * constants.DELTA_FLOOR,
        constants.DELTA_FLOOR,
        ACCURACY,
    )
    assert any(len(side) > 0 for _, _, side in parts)
    steps = StepBrackets(ACCURACY, "epsilon", 1e-14, build=None)
    together = steps.assembled([0, 1, 2], parts, xs, {}, [5, 5, 5])
    for i in range(3):
        (alone,) = steps.assembled([i], [parts[i]], [xs[i]] * 3, {}, [5, 5, 5])
        for g, w in zip(together[i][:3], alone[:3]):
            np.testing.assert_array_equal(g, w)
    assert not np.array_equal(together[0][2], together[1][2])  # the points' fixed parts differ
