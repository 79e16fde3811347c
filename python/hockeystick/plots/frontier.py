"""The accuracy-privacy frontier of simulated training runs: each configuration's mean over seeds against its
epsilon, the frontier as a staircase, an analytic bound beside the measured points."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base.optional import require_extra
from . import canvas
from .scales import scale_axes

__all__ = ["frontier_plot"]


def frontier_plot(
    rows: Any,
    path: str | os.PathLike[str],
    *,
    metric: str = "test_accuracy",
    parameters: Sequence[str] | None = None,
    algorithm_column: str | None = None,
    title: str = "",
    bound: Any = None,
    bound_label: str = "analytic bound",
) -> str:
    """Accuracy (or loss) against epsilon: every configuration's mean over seeds as a point with its
    seeds' spread, and the frontier (``simulate.frontier``) as a staircase, one colour per algorithm.

    ``bound``: rows with ``epsilon`` and ``value`` (in ``metric``'s units), an analytic guarantee such
    as paper 000 Corollary 1's (``simulate.utility_bound.corollary_1_table``'s ``bound_loss``), drawn
    as crosses beside the measured points (log scale when it is far above them)."""
    require_extra("frontier_plot", "pandas", extra="plot")
    import pandas as pd  # lazy: pandas is an optional extra

    from ..simulate.frontier import frontier, mean_over_seeds  # lazy: hockeystick.simulate imports numba

    frame = pd.DataFrame(rows)
    fig, ax = canvas.figure()
    groups = frame.groupby(algorithm_column, sort=True) if algorithm_column else [("", frame)]
    for label, part in groups:
        part = part.drop(columns=[algorithm_column]) if algorithm_column else part
        cloud = mean_over_seeds(part, parameters)
        cloud = cloud[np.isfinite(cloud["epsilon"])]
        front = frontier(part, metric=metric, parameters=parameters)
        points = ax.errorbar(
            cloud["epsilon"],
            cloud[f"{metric}_mean"],
            yerr=cloud[f"{metric}_std"].fillna(0),
            fmt="o",
            alpha=0.35,
            markersize=3,
        )
        ax.step(
            front["epsilon"],
            front[f"{metric}_mean"],
            where="post",
            color=points[0].get_color(),
            label=f"{label} frontier".strip(),
        )
    if bound is not None and len(bound):
        marks = pd.DataFrame(bound).sort_values("epsilon")
        ax.plot(marks["epsilon"], marks["value"], "x", color="black", label=bound_label)
        measured = frame[metric][np.isfinite(frame[metric])]
        scale_axes(ax, y=np.concatenate([np.asarray(measured, float), np.asarray(marks["value"], float)]))
    scale_axes(ax, x=frame["epsilon"])
    ax.set_xlabel(f"epsilon at delta = {frame['delta'].iloc[0]:g}" if "delta" in frame else "epsilon")
    ax.set_ylabel(metric.replace("_", " ") + " (mean over seeds)")
    canvas.finish(ax, title, (len(groups) if algorithm_column else 1) + (1 if bound is not None and len(bound) else 0))
    return canvas.save(fig, path)
