"""The tilted delta reads' held compositions (the core's ``HeldWindows``, pld/reads/held_windows.hpp,
through ``_core.pld_refine.TiltedPointReader``): a composition asked again is the one held (no window
point added) and reads as a new reader's, bit for bit; another tilt or other tails compose their own;
and ``keep_windows`` forgets the least recently used first, until those left fit."""

from __future__ import annotations

import numpy as np

from hockeystick.pld.question import tilted_question

# two rounds of sigma 1, q 0.05: past add_pure_epsilon (2 log(1 / 0.95) ~ 0.103) the add direction
# is not read, so an upper read at eps 3 composes the remove direction's window alone
POINT = (1.0, 0.05, 2.0, 1.0)
H = 1e-3
EPS = np.array([3.0, 4.0])


def reader() -> tilted_question.TiltedReader:
    return tilted_question.TiltedReader(POINT)


def hexes(values: np.ndarray) -> list[str]:
    return [float(v).hex() for v in values]


def test_an_upper_window_asked_again_is_held_and_the_least_recently_used_forgotten_first() -> None:
    r = reader()
    first = r.core.delta_upper(eps=EPS, interval=H, centre=1.0, level=1e-6)
    one = r.core.held_points()[0]
    other = r.core.delta_upper(
        eps=EPS, interval=H, centre=1.0, level=1e-12
    )  # other tails: a window of its own, larger
    both = r.core.held_points()[0]
    assert 0 < one < both - one
    again = r.core.delta_upper(
        eps=EPS, interval=H, centre=1.0, level=1e-6
    )  # held: nothing composed, now the most recently used
    assert r.core.held_points()[0] == both
    assert (
        hexes(again)
        == hexes(first)
        == hexes(reader().core.delta_upper(eps=EPS, interval=H, centre=1.0, level=1e-6))
    )
    assert hexes(other) == hexes(
        reader().core.delta_upper(eps=EPS, interval=H, centre=1.0, level=1e-12)
    )
    assert r.window_points(H) == one  # the remove direction's least window on H
    r.keep_windows(
        one
    )  # the tails of 1e-12 were used least recently: forgotten, those of 1e-6 kept
    assert r.core.held_points()[0] == one
    r.core.delta_upper(eps=EPS, interval=H, centre=1.0, level=1e-6)
    assert r.core.held_points()[0] == one
    r.drop_compositions()
    assert r.core.held_points() == (0, 0)
    assert hexes(r.core.delta_upper(eps=EPS, interval=H, centre=1.0, level=1e-6)) == hexes(
        first
    )  # the rounds kept: same numbers


def test_a_lower_window_is_held_only_for_its_grid_tails_and_tilt() -> None:
    r = reader()
    reads = []
    held = []
    for level, centre in ((1e-6, 3.0), (1e-12, 3.0), (1e-6, 3.0), (1e-6, 5.0), (1e-12, 3.0)):
        reads.append(hexes(r.core.delta_lower(eps=EPS, interval=H, centre=centre, level=level)))
        held.append(r.core.held_points()[1])
        assert reads[-1] == hexes(
            reader().core.delta_lower(eps=EPS, interval=H, centre=centre, level=level)
        )
    assert held[0] < held[1] == held[2] < held[3] == held[4]  # new windows for new keys alone
    assert reads[0] == reads[2] and reads[1] == reads[4]
    assert reads[1] != reads[0]  # other tails read other values at the same tilt
    assert r.core.held_points()[0] == 0  # the lower reads hold no upper window
    r.keep_windows(0)
    assert r.core.held_points() == (0, 0)
