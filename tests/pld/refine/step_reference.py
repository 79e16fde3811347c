"""A delta refinement step's bracket of one point written with numpy: the reference the core's assembly
(cpp/include/hockeystick/pld/refine/step_sides.hpp, ``_core.pld_refine.delta_step_sides``) is tested against.

Each side the largest over the directions; the fixed part of the direction that sets each side (numpy's argmax on
ties and at NaN), its parts read by ``_core.pld_reads.fixed_parts``; the own lower side raised by the right offsets'
rows; the arguments still too wide after the record of the grid before, with their left rows; at those, the lower
side raised to the largest of the lower sides' suffix maxima (tests/pld/lower_envelope_reference.py).
"""

from __future__ import annotations

import numpy as np

from hockeystick import _core
from hockeystick.pld.refine.bracket_width import bracket_width, offset_rows

from ..lower_envelope_reference import enveloped


def by_argmax(parts: list[np.ndarray], values: list[np.ndarray]) -> np.ndarray:
    """The parts (2, m) of the direction picked by ``np.argmax`` over the values, per argument."""
    pick = np.argmax(values, axis=0)
    return np.stack(parts)[pick, :, np.arange(pick.size)].T


def bracket(kind, accuracy, x, own, ups, up_parts, lows, low_parts, before):
    """The bracket from the directions' values and fixed parts: (lower, upper, fixed part, wide, add)."""
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
    wide[:own] = bracket_width(kind, "delta", x, lo, up, own) > accuracy
    wide[left] = np.tile(wide[:own], (left.stop - left.start) // own)
    return lower, upper, fixed, wide, add


def step_sides(kind, accuracy, x, own, pess, ups, opt, lows, before):
    """The bracket from the directions' pessimistic PMFs ``pess`` with their values ``ups`` and the optimistic PMFs
    ``opt`` with their charged lower values ``lows``: (lower, upper, fixed part, add), and where it was wide."""
    parts = _core.pld_reads.fixed_parts(pess + opt, [x] * (len(pess) + len(opt)), ups + lows)
    lower, upper, fixed, wide, add = bracket(
        kind, accuracy, x, own, ups, parts[: len(pess)], lows, parts[len(pess) :], before
    )
    if wide.any():
        raised = [enveloped(pmf, x[wide], low[wide]) for pmf, low in zip(opt, lows)]
        lower[wide] = np.maximum(lower[wide], np.max(raised, axis=0))
    return (lower, upper, fixed, add), wide
