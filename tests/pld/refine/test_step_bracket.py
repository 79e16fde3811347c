"""One step's delta bracket in the core (cpp/include/hockeystick/pld/refine/step_bracket.hpp, assembled by
``_core.pld_refine.delta_step_sides``): the same doubles as the numpy formulas (tests/pld/refine/step_reference.py:
each side the largest over the directions; the fixed part of the direction that sets each side, numpy's argmax on
ties and at NaN; the own lower side raised by the right offsets' rows; the arguments still too wide after the record
of the grid before, with their left rows, raised to the suffix maxima), for values given beside the PMFs that own
them, ties and NaN among them; and malformed reads refused by name."""

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld import gaussian
from hockeystick.pld.refine.grid_rules import points_rules
from hockeystick.pld.refine.points import with_offsets

from .step_reference import step_sides

ACCURACY = 1e-2
# three directions' composed sides (pessimistic, optimistic), small: the values are given beside them
SIDES = [
    (pld.composed(True)[0], pld.composed(False)[0])
    for pld in (
        gaussian(sigma, value_discretization_interval=2e-3).self_compose(5)
        for sigma in (1.0, 1.5, 2.0)
    )
]


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
    before = (
        (np.min(lows, axis=0) if lows else np.zeros(x.size), 1.1 * ups[0]) if with_before else None
    )
    pess = [up for up, _ in SIDES[:directions]]
    opt = [low for _, low in SIDES[:sides]]
    return x, own, pess, ups, opt, lows, before


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
    ups = cases[-1][3]
    ups[1][:3] = ups[0][:3]
    ups[2][0] = np.nan
    found = _core.pld_refine.delta_step_sides(
        rules=points_rules(ACCURACY, 0.0, "delta", kind),
        xs=[c[0] for c in cases],
        own=[c[1] for c in cases],
        uppers=[c[2] for c in cases],
        upper_values=[c[3] for c in cases],
        lowers=[c[4] for c in cases],
        lower_values=[c[5] for c in cases],
        before=[c[6] for c in cases],
    )
    assert len(found) == len(cases)
    seen_wide = []
    for got, c in zip(found, cases):
        want, wide = step_sides(kind, ACCURACY, *c)
        for g, w in zip(got, want):
            if w is None:
                assert g is None
            else:
                assert g.tobytes() == w.tobytes()
        seen_wide.append(wide[: c[1]])
    wide = np.concatenate(seen_wide)
    assert wide.any() and not wide.all()  # both branches of the width test are met


def test_malformed_reads_refused_by_name():
    rules = points_rules(ACCURACY, 0.0, "delta", "relative")
    x = np.array([1.0, 2.0])
    one = np.array([1e-5, 1e-6])
    up, low = SIDES[0]

    def call(**changes):
        kw = dict(
            rules=rules,
            xs=[x],
            own=[2],
            uppers=[[up]],
            upper_values=[[one]],
            lowers=[[low]],
            lower_values=[[one]],
            before=[None],
        )
        kw.update(changes)
        return _core.pld_refine.delta_step_sides(**kw)

    with pytest.raises(ValueError, match="at least one direction's upper side"):
        call(uppers=[[]], upper_values=[[]])
    with pytest.raises(ValueError, match="each upper read must hold m values"):
        call(upper_values=[[np.array([1e-5])]])
    with pytest.raises(ValueError, match="one array of values per lower PMF"):
        call(lower_values=[[]])
    with pytest.raises(ValueError, match="one entry a point"):
        call(own=[2, 2])
    with pytest.raises(ValueError, match="record's lower"):
        call(before=[(np.zeros(3), np.ones(2))])
