"""The tilted composition's read is the core's (``_core.pld_reads.TiltedComposition``, ``tilted_upper_epsilon``:
cpp/include/hockeystick/pld/reads/tilted.hpp), bit for bit the formulas written out here from their statement in
compose/tilted.py's module docstring, term by term in the same order: the untilted suffix sums from the floor up
(the least index whose untilt factor stays below e^700, at least floor(least_read / h) and the window's lowest,
past the window's top where those pass it), raised (lowered) by their slack and by the untilt factor times the
tilted window's charge (twice on the lower side) and its truncated masses, the cut window's Chernoff bound at
max(x, cut), the mass at +infinity and 2^-1060 per entry, rounded by 8 u; the upper epsilon's search (the
window's span doubled at most 6 times past a cut window's top, then the root search to 4 ulps of its start); and the
lower epsilon's (even steps from near down to the floor, the first whose lower delta exceeds delta moved up by
bisection towards the step above it, the window's top above the first).  On both sides, a window cut short, a loss
shift, and reads from a least argument inside the window and past its top."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np
import pytest

from hockeystick import _core
from hockeystick.pld.compose import tilted
from hockeystick.pld.compose.atoms_epsilon import epsilon_search

from .test_tilted_deltas_batched import compositions

U = 2.0**-53


def _floor_index(c: tilted.TiltedComposition) -> int:
    least = math.ceil((c.log_scale - 700.0) / c.theta) + 1
    if c.least_read is not None:
        least = max(least, math.floor(c.least_read / c.h))
    return max(int(c.window.k_lo), least)


def untilted_profile(c: tilted.TiltedComposition) -> tuple[_core.pld_reads.GridProfile, int]:
    """The untilted suffix sums of ``c`` from its floor index up, and their count."""
    w, first = c.window, _floor_index(c)
    masses = tilted.untilted_masses(
        w.p[max(first - int(w.k_lo), 0) :],
        first,
        c.theta,
        c.log_scale,
        c.scale_magnitude,
        c.pessimistic,
    )
    return _core.pld_reads.GridProfile(masses, k_lo=first, h=c.h, p_inf=0.0), int(masses.size)


def window_charge(c: tilted.TiltedComposition, x: float) -> float:
    """The tilted window's round-off charge of the weighted sum read at x, by the core
    (``_core.pld_reads.tilted_window_charge``; tests/pld/compose/test_tilted_window_charge.py
    holds it to the weighted sum's charge at 50 digits)."""
    w = c.window
    return float(
        _core.pld_reads.tilted_window_charge(
            float(x),
            k_lo=int(w.k_lo),
            size=int(w.p.size),
            h=c.h,
            theta=c.theta,
            charges=w.charges(),
            threads=1,
        )
    )


def written_side(
    c: tilted.TiltedComposition,
    x: float,
    untilted: tuple[_core.pld_reads.GridProfile, int] | None = None,
    read_charge: Callable[[tilted.TiltedComposition, float], float] = window_charge,
) -> float:
    """The side at the curve argument x (module docstring), written out, the window's charge at x
    read by ``read_charge``; ``untilted``: ``untilted_profile(c)``, where already built."""
    if not x >= _floor_index(c) * c.h:
        return 1.0 if c.pessimistic else 0.0
    w = c.window
    profile, count = untilted_profile(c) if untilted is None else untilted
    raw = float(profile.delta(np.array([x]), 1)[0])
    slack = float(_core.pld_reads.suffix_sum_slack(count))

    def factor(at: float) -> float:
        return float(
            _core.pld_reads.untilt_factor(
                c.theta * (at / c.h), log_scale=c.log_scale, scale_magnitude=c.scale_magnitude
            )
        )

    charge, tiny, up, down = (
        read_charge(c, x),
        (count + 8) * 2.0**-1060,
        1 + 8 * U,
        1 - 8 * U,
    )
    cut = float((w.k_lo + w.p.size) * c.h)
    if c.pessimistic:
        above = (
            tilted.chernoff_above(*c.above, max(x, cut))
            if c.above is not None
            else factor(max(x, cut)) * w.p_inf * up
        )
        value = (
            raw * (1.0 + slack) + factor(x) * (charge + abs(w.shift)) * up + above + c.p_inf + tiny
        )
        return min(1.0, value * up)
    value = raw * (1.0 - slack) * down - (factor(x) * (2.0 * charge + abs(w.shift)) * up + tiny)
    value = value * down if value > 0.0 else value * up
    return max(0.0, value + c.p_inf * down)


def _delta(c: tilted.TiltedComposition, eps: float) -> float:
    return written_side(c, float(c.window.curve_argument(np.array([eps]))[0]))


def _upper_epsilon(c: tilted.TiltedComposition, delta: float, start: float) -> float:
    if c.above is not None and math.isfinite(start) and start >= c.top:
        span = max(c.top - c.floor, c.h)
        for _ in range(6):
            if _delta(c, start) <= delta:
                break
            start, span = start + span, 2.0 * span
    if not (math.isfinite(start) and _delta(c, start) <= delta):
        return math.inf
    return epsilon_search(
        lambda points: np.array([_delta(c, float(e)) for e in points]),
        delta,
        upper=True,
        top=start,
        tolerance=4.0 * math.ulp(start),
    )


def written_lower_epsilon(
    c: tilted.TiltedComposition,
    delta: float,
    near: float,
    search: tuple,
    side: Callable[[tilted.TiltedComposition, float], float] = _delta,
) -> float:
    # search: the start returned where none qualifies, the count of steps, the most bisections;
    # side: the lower delta at eps
    start, points, steps = search
    if not (math.isfinite(near) and near > c.floor):
        return start
    tried = near - (near - c.floor) * np.arange(points + 1) / points
    found = next((i for i, x in enumerate(tried) if side(c, float(x)) > delta), None)
    if found is None:
        return start
    low, high = float(tried[found]), c.top if found == 0 else float(tried[found - 1])
    for _ in range(steps):
        mid = 0.5 * (low + high)
        if not low < mid < high:
            break
        if side(c, mid) > delta:
            low = mid
        else:
            high = mid
    return max(start, low)


def _cases() -> list[tilted.TiltedComposition]:
    full, cut, low, full_shifted, low_shifted = compositions()
    middle = full.floor + 0.4 * (full.top - full.floor)
    return [
        full,
        cut,
        low,
        full_shifted,
        low_shifted,
        full.read_from(middle),
        low.read_from(middle),
        full.read_from(
            full.top + 1.0
        ),  # past the window's top: trivial below it, the mass at +inf above
    ]


CASES = _cases()


@pytest.mark.parametrize("which", range(len(CASES)))
def test_the_cores_side_is_the_written_formula_bit_for_bit(which):
    c = CASES[which]
    assert c.floor_index == _floor_index(c)
    whole = dataclasses.replace(c, least_read=None)
    assert c.window_floor_index == _floor_index(whole) and c.window_floor == whole.floor
    xs = np.concatenate(
        [
            np.linspace(c.floor - 1.0, c.top + 3.0, 61),
            [c.floor, np.nextafter(c.floor, -math.inf), c.cut, c.top, math.inf, -math.inf, 0.0],
        ]
    )
    assert [c.side_at(float(x)).hex() for x in xs] == [
        float(written_side(c, float(x))).hex() for x in xs
    ]
    assert [float(v).hex() for v in c.deltas(xs)] == [float(_delta(c, float(x))).hex() for x in xs]
    assert c.side_at(math.nan) == (1.0 if c.pessimistic else 0.0)


@pytest.mark.parametrize(
    ("which", "delta"), [(0, 1e-12), (1, 1e-12), (1, 1e-30), (3, 1e-8), (5, 1e-12)]
)
def test_the_cores_upper_epsilon_is_the_written_search_bit_for_bit(which, delta):
    c = CASES[which]
    for start in (c.top, 0.5 * (c.floor + c.top)):
        want = _upper_epsilon(c, delta, start)
        assert tilted.upper_epsilon(c, delta, start) == want, (start, want)
    assert tilted.upper_epsilon(c, 1e-300, c.top) == math.inf or c.above is not None


def test_the_look_past_a_cut_windows_top_reaches_its_sixth_doubling():
    c = CASES[1].read_from(
        CASES[1].top - 2 * CASES[1].h
    )  # a span of 2 cells: the sixth start lies 6.3 past the top
    starts, span = [c.top], max(c.top - c.floor, c.h)
    for _ in range(6):
        starts.append(starts[-1] + span)
        span *= 2.0
    assert _delta(c, starts[5]) > _delta(c, starts[6])
    delta = _delta(c, starts[6])  # met only at the sixth start past the top
    found = tilted.upper_epsilon(c, delta, c.top)
    assert math.isfinite(found) and found == _upper_epsilon(c, delta, c.top)
    assert tilted.upper_epsilon(c, math.nextafter(delta, 0.0), c.top) == math.inf


def test_the_optimistic_side_has_no_upper_epsilon():
    with pytest.raises(ValueError, match="pessimistic"):
        tilted.upper_epsilon(CASES[2], 1e-10, CASES[2].top)


def test_a_read_past_the_windows_top_is_trivial_up_to_its_floor():
    full, past = CASES[0], CASES[7]
    assert past.floor_index > full.window.k_lo + full.window.p.size  # not stopped at the top
    assert past.side_at(past.floor - full.h) == 1.0
    assert past.side_at(past.floor) < 1.0
    assert dataclasses.replace(past, least_read=None).floor_index == full.floor_index


# (case, delta, near: an upper epsilon of the pessimistic twin, the window's top, or a value whose own step
# qualifies (the bisection towards the top), start, points, steps): the whole window, its loss-shifted twin, the
# window read from inside it and from past its top (every read trivial: start), a delta below every lower delta the
# window reads (the side is 0 first: the last qualifying step), one above them all (none qualifies: start), a start
# above the answer, and steps cut short
LOWER_SEARCHES = [
    (2, 1e-12, "upper", 0.0, 64, 60),
    (2, 1e-8, "upper", 0.0, 64, 60),
    (2, 1e-300, "top", 0.0, 64, 60),
    (2, 0.99999, "top", 0.0, 64, 60),
    (2, 1e-12, 10.0, 0.0, 64, 60),
    (2, 1e-12, "upper", 25.0, 64, 60),
    (2, 1e-12, "upper", 0.0, 5, 7),
    (4, 1e-12, "upper", 0.0, 64, 60),
    (4, 1e-30, "top", 0.0, 64, 60),
    (6, 1e-12, "upper", 0.0, 64, 60),
    (6, 1e-300, "top", 0.0, 64, 60),
    (6, 1e-12, 10.0, 0.0, 64, 60),
]


@pytest.mark.parametrize(("which", "delta", "near", "start", "points", "steps"), LOWER_SEARCHES)
def test_the_cores_lower_epsilon_is_the_written_search_bit_for_bit(
    which, delta, near, start, points, steps
):
    c = CASES[which]
    if near == "upper":
        # the pessimistic side of the same factors and reads
        twin = CASES[{2: 0, 4: 3, 6: 5}[which]]
        near = tilted.upper_epsilon(twin, delta, twin.top)
    elif near == "top":
        near = c.top
    want = written_lower_epsilon(c, delta, near, (start, points, steps))
    got = tilted.lower_epsilon(c, delta, near, start, points, steps)
    assert got.hex() == float(want).hex(), (got, want)


def test_a_lower_search_past_the_windows_top_or_above_near_keeps_its_start():
    low = CASES[2]
    past = low.read_from(low.top + 1.0)
    assert tilted.lower_epsilon(past, 1e-12, low.top, start=0.25) == 0.25
    assert tilted.lower_epsilon(low, 1e-12, math.inf, start=0.5) == 0.5
    assert tilted.lower_epsilon(low, 1e-12, low.floor) == 0.0


def test_the_pessimistic_side_has_no_lower_epsilon():
    with pytest.raises(ValueError, match="optimistic"):
        tilted.lower_epsilon(CASES[1], 1e-10, CASES[1].top)
