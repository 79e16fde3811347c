"""The tilted composition's read is the core's (``_core.pld_reads.TiltedComposition``, ``tilted_upper_epsilon``:
cpp/include/hockeystick/pld/reads/tilted.hpp), bit for bit the formulas written out here from their statement in
compose/tilted.py's module docstring, term by term in the same order: the untilted suffix sums from the floor up
(the least index whose untilt factor stays below e^700, at least floor(least_read / h) and the window's lowest,
past the window's top where those pass it), raised (lowered) by their slack and by the untilt factor times the
tilted window's charge (twice on the lower side) and its truncated masses, the cut window's Chernoff bound at
max(x, cut), the mass at +infinity and 2^-1060 per entry, rounded by 8 u; and the upper epsilon's search (the
window's span doubled at most 6 times past a cut window's top, then the root search to 4 ulps of its start).  On
both sides, a window cut short, a loss shift, and reads from a least argument inside the window and past its top."""

from __future__ import annotations

import dataclasses
import math

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


def written_side(
    c: tilted.TiltedComposition,
    x: float,
    untilted: tuple[_core.pld_reads.GridProfile, int] | None = None,
) -> float:
    """The side at the curve argument x (module docstring), written out, the window's charge read by
    ``c.weighted_charge``; ``untilted``: ``untilted_profile(c)``, where already built."""
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
        c.weighted_charge(x),
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
