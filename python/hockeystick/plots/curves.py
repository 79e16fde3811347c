"""Curves: delta(eps) on a log scale, one curve per label; a quantity against one parameter (sigma
needed against rounds, say); each with a dotted line at each level (target values of the quantity
drawn)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import canvas
from .scales import scale_axes

__all__ = [
    "DELTA_FLOOR",
    "bracket",
    "delta_epsilon_curves",
    "delta_epsilon_on",
    "parameter_curves",
    "parameter_curves_on",
]

DELTA_FLOOR = 1e-16  # delta-eps curves are cut below this (smaller deltas are not informative)


def delta_epsilon_curves(
    epsilon: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    path: str | os.PathLike[str],
    *,
    title: str = "",
    levels: Sequence[float] | None = None,
    x_spacing: str | None = None,
    lower: Mapping[str, npt.ArrayLike] | None = None,
) -> str:
    """Draw delta against epsilon on a log scale, one curve per label, and save it as a PNG.

    Non-positive deltas are left out of their curve; the delta axis runs from the smallest positive
    delta (or level) drawn, but not below ``DELTA_FLOOR`` = 1e-16, up to 1.5.  A legend names the
    curves where there are 2 to 8 of them (or 1 with levels).

    Parameters
    ----------
    epsilon : array_like
        The epsilons, 1-D, the horizontal axis (its scale ``axis_scale(epsilon, x_spacing)``).
    curves : mapping of str to array_like
        delta at each epsilon (as long as ``epsilon``), by the curve's label.
    path : str or os.PathLike
        The PNG to write; its directory must exist (an existing file is replaced).
    title : str, optional
        The picture's title (default: none).
    levels : sequence of float, optional
        Deltas to mark with a dotted horizontal line each (target deltas; each > 0).
    x_spacing : {"log", "linear", "list"} or None, optional
        How a sweep made the epsilons (its coordinate's ``spacing``): "log" or "linear" decide the
        axis's scale where the epsilons are positive; "list" or None (the default) leave it to their
        span.
    lower : mapping of str to array_like, optional
        The certified lower side of each curve, by the same labels (``curves`` then holds the upper
        sides): drawn dashed in its curve's colour, the bracket between the two shaded.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        If a level is <= 0, or the directory of ``path`` does not exist.
    ImportError
        If matplotlib is not installed (``pip install "hockeystick[plot]"``).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from hockeystick.fdp import GaussianMechanism
    >>> from hockeystick.plots import delta_epsilon_curves
    >>> epsilon = np.linspace(0.1, 8, 40)
    >>> curves = {f"sigma={s}": GaussianMechanism(sigma=s, rounds=10).delta(epsilon) for s in (2, 4)}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     os.path.basename(delta_epsilon_curves(epsilon, curves, os.path.join(folder, "d.png"), levels=[1e-5]))
    'd.png'
    """
    fig, ax = canvas.figure()
    delta_epsilon_on(ax, epsilon, curves, levels, x_spacing, lower)
    canvas.finish(ax, title, len(curves) + bool(lower), levels=bool(levels))
    return canvas.save(fig, path)


def delta_epsilon_on(
    ax: Any,
    epsilon: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    levels: Sequence[float] | None,
    x_spacing: str | None = None,
    lower: Mapping[str, npt.ArrayLike] | None = None,
) -> None:
    """The delta-eps curves drawn on ``ax`` (non-positive deltas left out, the axis cut at
    ``DELTA_FLOOR``), each with its lower side dashed where ``lower`` gives it."""
    positive = []
    for label, delta in curves.items():
        d = np.asarray(delta, dtype=float)
        below = None if lower is None else np.asarray(lower[label], dtype=float)
        bracket(
            ax,
            epsilon,
            np.where(d > 0, d, np.nan),
            label,
            None if below is None else np.where(below > 0, below, np.nan),
        )
        positive.extend([d[d > 0]] + ([] if below is None else [below[below > 0]]))
    ax.set_yscale("log")
    smallest = min(np.concatenate(positive).min(initial=1.0), *(levels or [1.0]))
    ax.set_ylim(max(smallest, DELTA_FLOOR), 1.5)
    scale_axes(ax, x=epsilon, x_spacing=x_spacing)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    level_lines(ax, levels, "target delta")


def parameter_curves(
    x: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    path: str | os.PathLike[str],
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
    levels: Sequence[float] | None = None,
    x_spacing: str | None = None,
    lower: Mapping[str, npt.ArrayLike] | None = None,
) -> str:
    """Draw a quantity against one parameter (the sigma needed against rounds, say) and save it as a PNG.

    One curve per label (marked points where there are at most 30); each axis's scale is
    ``axis_scale`` of its values (log where they are positive and span more than ``LOG_SPAN`` = 20x;
    the horizontal one also by the sweep's ``x_spacing``).  A legend names the curves where there
    are 2 to 8 of them (or 1 with levels).

    Parameters
    ----------
    x : array_like
        The parameter's values, 1-D, the horizontal axis.
    curves : mapping of str to array_like
        The quantity at each ``x`` (as long as ``x``), by the curve's label.
    path : str or os.PathLike
        The PNG to write; its directory must exist (an existing file is replaced).
    xlabel : str
        The horizontal axis's label.
    ylabel : str
        The vertical axis's label.
    title : str, optional
        The picture's title (default: none).
    levels : sequence of float, optional
        Values of the quantity to mark with a dotted horizontal line each (each > 0 where the
        vertical axis is log).
    x_spacing : {"log", "linear", "list"} or None, optional
        How a sweep made ``x`` (its coordinate's ``spacing``): "log" or "linear" decide the
        horizontal scale where the values are positive; "list" or None (the default) leave it to
        their span.
    lower : mapping of str to array_like, optional
        The certified lower side of each curve, by the same labels (``curves`` then holds the upper
        sides): drawn dashed in its curve's colour, the bracket between the two shaded.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        If a level is <= 0 on a log vertical axis, or the directory of ``path`` does not exist.
    ImportError
        If matplotlib is not installed (``pip install "hockeystick[plot]"``).

    Examples
    --------
    >>> import os, tempfile
    >>> from hockeystick.plots import parameter_curves
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = parameter_curves([1, 10, 100, 1000], {"gaussian": [3.7, 11.8, 37.3, 118.0]},
    ...                             os.path.join(folder, "sigma.png"), xlabel="rounds", ylabel="sigma needed")
    ...     os.path.basename(path)
    'sigma.png'
    """
    fig, ax = canvas.figure()
    parameter_curves_on(ax, x, curves, xlabel, ylabel, levels, x_spacing, lower)
    canvas.finish(ax, title, len(curves) + bool(lower), levels=bool(levels))
    return canvas.save(fig, path)


def parameter_curves_on(
    ax: Any,
    x: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    xlabel: str,
    ylabel: str,
    levels: Sequence[float] | None,
    x_spacing: str | None = None,
    lower: Mapping[str, npt.ArrayLike] | None = None,
) -> None:
    """The curves against ``x`` drawn on ``ax`` (marked points where there are at most 30), each
    with its lower side dashed where ``lower`` gives it."""
    x = np.asarray(x, dtype=float)
    ys = [np.asarray(y, dtype=float) for y in curves.values()]
    belows = [None if lower is None else np.asarray(lower[label], dtype=float) for label in curves]
    for label, y, below in zip(curves, ys, belows):
        bracket(ax, x, y, label, below, marker="." if len(x) <= 30 else None)
    drawn = ys + [b for b in belows if b is not None]
    scale_axes(ax, x=x, y=np.concatenate(drawn) if drawn else None, x_spacing=x_spacing)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    level_lines(ax, levels)


def bracket(
    ax: Any,
    x: np.ndarray | npt.ArrayLike,
    upper: np.ndarray,
    label: str,
    lower: np.ndarray | None,
    marker: Any = None,
) -> None:
    """One curve on ``ax``: ``upper`` as a line labelled ``label``; where ``lower`` is given (the
    certified lower side), it dashed in the same colour, named once in the legend, and the bracket
    between them shaded."""
    line = ax.plot(x, upper, label=label, marker=marker)[0]
    if lower is None:
        return
    named = "lower side (dashed)" not in ax.get_legend_handles_labels()[1]
    ax.plot(
        x,
        lower,
        linestyle="--",
        color=line.get_color(),
        label="lower side (dashed)" if named else None,
    )
    ax.fill_between(x, lower, upper, color=line.get_color(), alpha=0.15, linewidth=0)


def level_lines(ax: Any, levels: Sequence[float] | None, name: str = "levels") -> None:
    """A dotted horizontal line at each level (target values of the quantity drawn), one legend
    entry naming them (``name``: "target delta" on a delta-eps picture)."""
    if not levels:
        return
    if ax.get_yscale() == "log" and min(levels) <= 0:
        raise ValueError(
            f"levels must be positive on a log scale, got {', '.join(f'{v:g}' for v in levels)}"
        )
    for i, level in enumerate(sorted(levels)):
        label = f"{name} " + ", ".join(f"{v:g}" for v in sorted(levels)) if i == 0 else None
        ax.axhline(level, color="0.3", linestyle=":", linewidth=1.0, label=label)
