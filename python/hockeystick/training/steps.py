"""The steps a run takes: given, or ceil(epochs x steps per epoch) of the exact product (never
rounded down, so never understating the privacy spent)."""

from __future__ import annotations

import math

import numpy as np

from ..base import validation as _validation
from ..base.elementwise import ArrayLike


def steps_taken(
    epochs: ArrayLike | None,
    steps: ArrayLike | None,
    per_epoch: tuple[np.ndarray, np.ndarray],
    names: tuple[str, str],
    fewer: str = "larger batches",
) -> np.ndarray:
    """Steps taken: given (whole numbers), or ceil(epochs * a / b) of the exact product for
    ``per_epoch`` = (a, b), the steps per epoch as the exact ratio of two doubles (``fewer``: what
    else gives fewer steps, for the refusal of more than 2^53)."""
    if (epochs is None) == (steps is None):
        raise ValueError(f"give exactly one of {names[0]} and {names[1]}")
    if steps is not None:
        return _validation.positive_integer(steps, names[1], maximum=_validation.MAX_EXACT_INTEGER)
    assert epochs is not None  # exactly one of the two was given
    e = _validation.positive(epochs, names[0])
    t = ceil_ratio(*np.broadcast_arrays(e, *per_epoch))
    too_many = ~(t <= _validation.MAX_EXACT_INTEGER)
    if too_many.any():
        i = np.flatnonzero(np.ravel(too_many))[0]
        raise ValueError(
            f"{names[0]} must give at most 2^53 {names[1]}, got {names[0]} = "
            f"{np.ravel(np.broadcast_to(e, t.shape))[i]:g}, {np.ravel(t)[i]:.4g} {names[1]}; "
            f"give fewer {names[0]} or {fewer}"
        )
    return t


def broadcast_like(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``x`` broadcast with the steps ``t`` (read-only)."""
    return np.broadcast_to(x, np.broadcast_shapes(np.shape(x), np.shape(t)))


# a rounded x a / b (two roundings) lies within this relative distance of the exact value, with room
# to spare
_NEAR_WHOLE = 1e-12


def ceil_ratio(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ceil(x a / b) of the exact value for doubles x, a, b > 0 (not of its rounding): the rounded
    value p is within 2 ulps of it, so p's ceiling is exact unless p lies within ``_NEAR_WHOLE`` of
    a whole number; only there is the exact value formed (as fractions)."""
    from fractions import Fraction  # loaded on use: fractions imports decimal

    with np.errstate(over="ignore", under="ignore"):
        p = x * a / b
    out = np.array(
        np.ceil(p), dtype=float
    )  # an array even for 0-d input (its .flat is written below)
    finite = np.isfinite(p)
    r = np.where(
        finite, p, 0.0
    )  # an infinite p is not near a whole number (inf - inf would be nan)
    near = finite & (np.abs(r - np.round(r)) <= _NEAR_WHOLE * np.maximum(r, 1.0))
    for i in np.flatnonzero(near):
        exact = Fraction(float(x.flat[i])) * Fraction(float(a.flat[i])) / Fraction(float(b.flat[i]))
        out.flat[i] = float(math.ceil(exact))
    return out
