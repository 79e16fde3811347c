"""The tests' independent references for the core's tilted reads: one round of a point's neighbouring
direction discretized by the package's constructors (``tilted_question.one_direction``, with the tail
a delta allows: ``tilted_question.remove_tail`` for the remove direction, the question tail at
``question.TILTED_TAIL_SHARE`` for the add one), composed under a tilt by the package's Python
composition (``compose.tilted.compose_tilted``) and read at epsilons, as the core's ``TiltedReader``
discretizes, composes and reads them."""

from __future__ import annotations

import numpy as np

from hockeystick.pld.compose import tilted
from hockeystick.pld.grid.distribution import Factor
from hockeystick.pld.grid.pmf import GridPMF
from hockeystick.pld.grid.tail import DEFAULT_TAIL
from hockeystick.pld.question.tilted_question import (
    MAX_POINTS,
    WINDOW_TAIL,
    one_direction,
    remove_tail,
)
from hockeystick.pld.refine import question
from hockeystick.pld.refine.directional_delta import Direction

from .read_tail import exponent_tilt

Point = tuple[float, float, float, float]


def one_round(
    point: Point, direction: Direction, h: float, delta: float, optimistic: bool = True
) -> tuple[float, Factor]:
    """The tail ``delta`` allows the point's ``direction``, and one round of it on grid ``h`` (with
    its optimistic side where ``optimistic``)."""
    sigma, q, rounds, sensitivity = point
    if direction == "remove":
        tail = remove_tail(point, delta)
    else:
        tail = question.question_tail(rounds, delta, question.TILTED_TAIL_SHARE)
    return tail, one_direction((sigma, q, sensitivity), direction, h, tail, optimistic)


def remove_round(
    point: Point, h: float, delta: float, optimistic: bool = True
) -> tuple[float, Factor]:
    """``one_round`` of the remove direction."""
    return one_round(point, "remove", h, delta, optimistic)


def composed(
    terms: list[tuple[GridPMF, int]],
    lam: float,
    pessimistic: bool,
    window_tail: float = DEFAULT_TAIL,
    max_points: int = MAX_POINTS,
) -> tilted.TiltedComposition:
    """``terms`` composed under the tilt ``lam`` (per unit loss), the window cut at ``window_tail``
    of the tilted mass and within ``max_points``; past it, the pessimistic side cut at
    ``WINDOW_TAIL`` with its mass above charged (the core's reads' fallback)."""
    h = terms[0][0].h
    return tilted.compose_tilted(
        terms,
        lam * h,
        pessimistic=pessimistic,
        tail=window_tail,
        max_points=max_points,
        window_tail=WINDOW_TAIL if pessimistic else None,
    )


def pessimistic_deltas(
    point: Point, direction: Direction, eps: np.ndarray, h: float, centre: float, delta: float
) -> np.ndarray:
    """The certified upper deltas at ``eps`` of the point's ``direction`` on grid ``h``: its
    pessimistic rounds, with the tails ``delta`` allows, composed under the Chernoff exponent's tilt
    at ``centre`` (``composed``) and read at every eps."""
    _, factor = one_round(point, direction, h, delta, optimistic=False)
    rounds = int(point[2])
    lam = exponent_tilt(factor.upper, rounds, centre)
    return composed([(factor.upper, rounds)], lam, True).deltas(eps)


def upper_read(
    point: Point, delta: float, h: float, upper: float, least: float, max_points: int | None = None
) -> tuple[float, int]:
    """The core's upper read of ``point`` at ``delta`` on grid ``h`` (``TiltedReader::exponent_read``
    through ``_core.pld_refine.TiltedPointReader``: per direction under the Chernoff exponent's
    tilt at ``upper``, searched from ``least``, the add direction screened), its windows within
    ``max_points`` (the finer reads' cap where None): (upper side, the least window's points), (inf,
    0) where a window passes the cap."""
    from hockeystick import _core
    from hockeystick.pld.question.tilted_question import core_point

    cap = _core.pld_refine.finer_upper_max_points if max_points is None else max_points
    reader = _core.pld_refine.TiltedPointReader(**core_point(point, 0), max_points=cap)
    found, window = reader.exponent_read(delta=delta, interval=h, upper=upper, least=least)
    return float(found), int(window)
