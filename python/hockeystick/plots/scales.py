"""The scale of each axis of a picture: log where the values are positive and span decades (or a
sweep made them log-spaced), else linear; the one rule of every picture here."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["LOG_SPAN", "axis_scale", "positive", "scale_axes"]

LOG_SPAN = 20.0  # positive values spanning more than this ratio are drawn on a log axis


def positive(values: np.ndarray) -> bool:
    """True when every value is > 0 (a log axis can draw them)."""
    return bool(np.all(np.asarray(values) > 0))


def axis_scale(values: npt.ArrayLike, spacing: str | None = None) -> str:
    """The scale of an axis drawing ``values``: "log" or "linear", the one rule of every picture here.

    Parameters
    ----------
    values : array_like
        The values along the axis (non-finite ones are left out).
    spacing : str, optional
        How a sweep made them (its coordinate's ``spacing`` attribute): "log" or "linear" decide the
        scale (a log axis needs positive values); "list" or None leave it to the values.

    Returns
    -------
    str
        "log" where the finite values are positive and span more than ``LOG_SPAN`` (1, 10, 100,
        1000: each decade as wide as the next), or the sweep made them log-spaced; otherwise
        "linear".

    Examples
    --------
    >>> from hockeystick.plots import axis_scale
    >>> axis_scale([1, 10, 100, 1000]), axis_scale([1, 2, 4]), axis_scale([1, 2, 4], "log"), axis_scale([-1, 2], "log")
    ('log', 'linear', 'log', 'linear')
    """
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0 or not positive(v):
        return "linear"
    if spacing in ("log", "linear"):
        return spacing
    return "log" if v.size > 1 and v.max() / v.min() > LOG_SPAN else "linear"


def scale_axes(
    ax: Any,
    x: npt.ArrayLike | None = None,
    y: npt.ArrayLike | None = None,
    x_spacing: str | None = None,
) -> None:
    """Each axis given values set to ``axis_scale`` of them (``x_spacing``: a sweep's spacing of x)."""
    if x is not None:
        ax.set_xscale(axis_scale(x, x_spacing))
    if y is not None:
        ax.set_yscale(axis_scale(y))
