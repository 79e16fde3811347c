"""How wide a refinement's bracket is in ``accuracy``'s units, and the layout of a point's arguments
under ``delta_accuracy="epsilon"`` (its own arguments, then the right offsets' rows, then the left
fractions')."""

from __future__ import annotations

from typing import cast

import numpy as np

from ... import _core
from ...base.accountant import Quantity
from ..reads.epsilon_width import RIGHT_OFFSETS
from . import constants


def offset_rows(size: int, own: int) -> tuple[slice, slice]:
    """Where, in a point's arguments under ``delta_accuracy="epsilon"`` (``own`` of its own, then
    one row of ``own`` per offset of ``RIGHT_OFFSETS``, then one per fraction of
    ``LEFT_FRACTIONS``), the right and the left rows lie (empty slices for arguments without
    them)."""
    rows = size // own - 1 if own else 0
    right_rows = min(rows, len(RIGHT_OFFSETS))
    end = own * (1 + right_rows)
    return slice(own, end), slice(end, own * (1 + rows))


def least_epsilon_width(
    x: np.ndarray, own: int, lower: np.ndarray, upper: np.ndarray
) -> np.ndarray:
    """The certified epsilon width at each of a point's ``own`` arguments, the least of the chords
    to the right rows' upper sides (``certified_epsilon_width``) and of the left rows' lower sides
    (``left_epsilon_width``); ``lower`` and ``upper`` give both sides at every argument of ``x``
    (layout: ``offset_rows``).  One call of the core's ``least_epsilon_width``
    (pld/reads/epsilon_width.hpp), which a refinement makes per step and point."""
    return _core.pld_reads.least_epsilon_width(
        x, own=own, lower=lower, upper=upper, right_rows=len(RIGHT_OFFSETS)
    )


def epsilon_tolerance(accuracy: float, relative_accuracy: float, eps: np.ndarray) -> np.ndarray:
    """How wide an epsilon bracket at ``eps`` may be: max(accuracy, relative_accuracy eps), eps read
    as 0 where it is infinite (an unbounded bracket is never within tolerance)."""
    with np.errstate(
        over="ignore"
    ):  # a product past the doubles is an infinite tolerance: every width meets it
        return np.maximum(accuracy, relative_accuracy * np.where(np.isfinite(eps), eps, 0.0))


def epsilon_gap(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """How wide the epsilon bracket [lower, upper] is: upper - lower, and 0 where the two sides are
    equal (an exact bracket, both sides infinite included: a certified lower side of +inf is the
    truth, where inf - inf would read NaN and the bracket as wider than any tolerance); +inf where
    only the upper side is infinite."""
    with np.errstate(invalid="ignore"):  # inf - inf: replaced by 0 below
        return np.where(lower == upper, 0.0, upper - lower)


def within_epsilon_tolerance(
    lower: np.ndarray, upper: np.ndarray, accuracy: float, relative_accuracy: float
) -> np.ndarray:
    """True where the epsilon bracket [lower, upper] is no wider (``epsilon_gap``) than
    max(accuracy, relative_accuracy eps) (``epsilon_tolerance``): an exact bracket always is, one
    with an infinite upper side over a finite lower side never."""
    return np.asarray(
        epsilon_gap(lower, upper) <= epsilon_tolerance(accuracy, relative_accuracy, upper)
    )


def bracket_width(
    delta_accuracy: str,
    method: Quantity,
    x: np.ndarray,
    lo: np.ndarray,
    up: np.ndarray,
    own: int,
    accuracy: float = 0.0,
    relative_accuracy: float = 0.0,
) -> np.ndarray:
    """How wide the bracket [lo, up] at the point's own ``own`` arguments is, in ``accuracy``'s
    units: for ``.epsilon`` its epsilon width w (``epsilon_gap``), read as w accuracy /
    ``epsilon_tolerance`` at its upper side (w itself where ``relative_accuracy`` is 0), so that
    every rule comparing widths with ``accuracy`` meets max(accuracy, relative_accuracy eps)
    instead; for ``.delta`` relative to max(up, DELTA_FLOOR), or with ``delta_accuracy="epsilon"``
    the certified epsilon width at delta = up (``epsilon_width.certified_epsilon_width``, the least
    over the shifted arguments that follow the own ones in ``x``), and 0 (done) where up <
    DELTA_FLOOR: the bracket then certifies delta < 1e-9 at that eps (docs/references.md), and no
    grid certifies an epsilon bracket there (the lower side is 0 and the upper one grid-independent
    charges, such as T x 5e-16 of round-off and the mass at +infinity), so refining could not help;
    0 too where lo >= DELTA_CEILING = 1 - 1e-9, the same rule at the other end (the bracket
    certifies delta > 1 - 1e-9: no (eps, delta) guarantee at that eps for any delta a user targets,
    and no epsilon width either, the upper side being 1 or as flat); capped at 1e100 so the
    refinement's fits stay finite."""
    if method == "epsilon":
        width = epsilon_gap(lo, up)
        if relative_accuracy > 0:
            width = width * (accuracy / epsilon_tolerance(accuracy, relative_accuracy, up))
        return width
    if delta_accuracy == "relative":
        return cast(np.ndarray, (up - lo) / np.maximum(up, constants.DELTA_FLOOR))
    done = (up[:own] < constants.DELTA_FLOOR) | (lo[:own] >= constants.DELTA_CEILING)
    return np.where(done, 0.0, np.minimum(least_epsilon_width(x, own, lo, up), 1e100))
