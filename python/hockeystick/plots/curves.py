"""Curves: delta(eps) on a log scale, one curve per label; a quantity against one parameter (sigma needed
against rounds, say); each with a dotted line at each level (target values of the quantity drawn)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import canvas
from .scales import scale_axes

__all__ = ["DELTA_FLOOR", "delta_epsilon_curves", "delta_epsilon_on", "parameter_curves", "parameter_curves_on"]

DELTA_FLOOR = 1e-16  # delta-eps curves are cut below this (smaller deltas are not informative)


def delta_epsilon_curves(
    epsilon: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    path: str | os.PathLike[str],
    *,
    title: str = "",
    levels: Sequence[float] | None = None,
    x_spacing: str | None = None,
) -> str:
    """delta(eps) on a log scale, one curve per label, a dotted line at each delta of ``levels``;
    returns the PNG's path.  The epsilon axis: ``axis_scale(epsilon, x_spacing)``."""
    fig, ax = canvas.figure()
    delta_epsilon_on(ax, epsilon, curves, levels, x_spacing)
    canvas.finish(ax, title, len(curves), levels=bool(levels))
    return canvas.save(fig, path)


def delta_epsilon_on(
    ax: Any,
    epsilon: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    levels: Sequence[float] | None,
    x_spacing: str | None = None,
) -> None:
    """The delta-eps curves drawn on ``ax`` (non-positive deltas left out, the axis cut at ``DELTA_FLOOR``)."""
    positive = []
    for label, delta in curves.items():
        d = np.asarray(delta, dtype=float)
        ax.plot(epsilon, np.where(d > 0, d, np.nan), label=label)
        positive.append(d[d > 0])
    ax.set_yscale("log")
    smallest = min(np.concatenate(positive).min(initial=1.0), *(levels or [1.0]))
    ax.set_ylim(max(smallest, DELTA_FLOOR), 1.5)
    scale_axes(ax, x=epsilon, x_spacing=x_spacing)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    level_lines(ax, levels)


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
) -> str:
    """A quantity against one parameter (e.g. sigma needed vs rounds), a dotted line at each value of
    ``levels``; each axis's scale is ``axis_scale`` of its values (x: with a sweep's ``x_spacing``)."""
    fig, ax = canvas.figure()
    parameter_curves_on(ax, x, curves, xlabel, ylabel, levels, x_spacing)
    canvas.finish(ax, title, len(curves), levels=bool(levels))
    return canvas.save(fig, path)


def parameter_curves_on(
    ax: Any,
    x: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    xlabel: str,
    ylabel: str,
    levels: Sequence[float] | None,
    x_spacing: str | None = None,
) -> None:
    """The curves against ``x`` drawn on ``ax`` (marked points where there are at most 30)."""
    x = np.asarray(x, dtype=float)
    ys = [np.asarray(y, dtype=float) for y in curves.values()]
    for label, y in zip(curves, ys):
        ax.plot(x, y, label=label, marker="." if len(x) <= 30 else None)
    scale_axes(ax, x=x, y=np.concatenate(ys) if ys else None, x_spacing=x_spacing)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    level_lines(ax, levels)


def level_lines(ax: Any, levels: Sequence[float] | None) -> None:
    """A dotted horizontal line at each level (target values of the quantity drawn), one legend entry."""
    if not levels:
        return
    if ax.get_yscale() == "log" and min(levels) <= 0:
        raise ValueError(f"levels must be positive on a log scale, got {', '.join(f'{v:g}' for v in levels)}")
    for i, level in enumerate(sorted(levels)):
        label = "levels " + ", ".join(f"{v:g}" for v in sorted(levels)) if i == 0 else None
        ax.axhline(level, color="0.3", linestyle=":", linewidth=1.0, label=label)
