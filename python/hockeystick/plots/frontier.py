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
    """Draw simulated runs' accuracy (or loss) against epsilon with its frontier, and save it as a PNG.

    Every configuration's mean over seeds (``simulate.frontier.mean_over_seeds``) is a point with an
    error bar of one standard deviation over its seeds; the frontier (``simulate.frontier.frontier``:
    the configurations whose mean beats every one of smaller or equal epsilon) is a staircase, one
    colour per algorithm.  Configurations of non-finite epsilon are left out.  The epsilon axis and,
    with a bound, the metric's axis take ``axis_scale``'s rule (log where the values are positive and
    span more than 20x); the epsilon axis is labelled with the rows' delta where they have one.

    Parameters
    ----------
    rows : sequence of mapping, or pandas.DataFrame
        One row per run (``simulate``'s result rows): the configuration's parameters, ``seed``,
        ``epsilon``, optionally ``delta``, and the metric.
    path : str or os.PathLike
        The PNG to write; its directory must exist (an existing file is replaced).
    metric : str, optional
        The column drawn: "test_accuracy" (the default), "test_loss", "final_accuracy" or "final_loss"
        (a loss: lower is better on the frontier).
    parameters : sequence of str, optional
        The columns that name a configuration (None, the default: every column that is not a per-run
        output, ``epsilon`` or ``delta``).
    algorithm_column : str, optional
        A column whose values are drawn apart, a frontier and a colour each (None: one group).
    title : str, optional
        The picture's title (default: none).
    bound : sequence of mapping, or pandas.DataFrame, optional
        An analytic guarantee to draw beside the measured points as black crosses: rows with
        ``epsilon`` and ``value`` (in ``metric``'s units), such as paper 000 Corollary 1's
        (``simulate.utility_bound.corollary_1_table``'s ``bound_loss``).
    bound_label : str, optional
        The bound's legend entry (default "analytic bound").

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        If ``rows`` is empty, a parameter is not a column, ``metric`` is not a metric column of the
        rows, or the directory of ``path`` does not exist.
    KeyError
        If ``algorithm_column``, or a bound row's ``epsilon`` or ``value``, is not a column.
    ImportError
        If matplotlib or pandas is not installed (``pip install "hockeystick[plot]"``), or numba, which
        ``hockeystick.simulate`` needs (``pip install "hockeystick[simulate]"``).

    References
    ----------
    Paper 000, Corollary 1 (the analytic bound the ``bound`` rows may hold).
    """
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
