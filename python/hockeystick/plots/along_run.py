"""A run's certified bracket along its checkpoints: the upper and lower sides of epsilon (or delta) against
steps or epochs, the bracket shaded between them."""

from __future__ import annotations

import os

import numpy as np

from ..pld.reads.along_run import CurveAlongRun
from . import canvas
from .scales import positive

__all__ = ["curve_along_run"]


def curve_along_run(curve: CurveAlongRun, path: str | os.PathLike[str], *, title: str = "") -> str:
    """A run's certified bracket (``pld.along_run.CurveAlongRun``, from ``epsilon_curve`` or ``delta_curve``)
    against its checkpoints, in epochs where the run counts them, else in steps: the upper side as a line,
    the lower side dashed, the bracket between them shaded (a log scale for delta); returns the PNG's path.
    An unbounded side (epsilon's upper side where delta is below what can be certified) is left out."""
    fig, ax = canvas.figure()
    x = curve.steps if curve.steps_per_epoch is None else curve.epochs
    lower = np.where(np.isfinite(curve.lower), curve.lower, np.nan)
    upper = np.where(np.isfinite(curve.upper), curve.upper, np.nan)
    marker = "o" if len(curve) <= 30 else None
    line = ax.plot(x, upper, marker=marker, markersize=3, label="upper (certified)")[0]
    ax.plot(x, lower, linestyle="--", color=line.get_color(), label="lower (certified)")
    ax.fill_between(x, lower, upper, color=line.get_color(), alpha=0.2, linewidth=0)
    if curve.quantity == "delta" and positive(lower[np.isfinite(lower)]):
        ax.set_yscale("log")
    ax.set_xlabel("epochs" if curve.steps_per_epoch is not None else "steps")
    other = "delta" if curve.quantity == "epsilon" else "epsilon"
    ax.set_ylabel(f"{curve.quantity} at {other} = {curve.given:g}")
    canvas.finish(ax, title, 2)
    return canvas.save(fig, path)
