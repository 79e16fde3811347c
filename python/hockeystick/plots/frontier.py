"""The accuracy-privacy frontier of simulated training runs: each configuration's mean over seeds
against its epsilon, the frontier as a staircase, an analytic bound beside the measured points."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base.optional import require_extra
from ..base.validation import ParameterTypeError
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
    error bar of one standard deviation over its seeds; the frontier
    (``simulate.frontier.frontier``: the configurations whose mean beats every one of smaller or
    equal epsilon) is a staircase, one colour per algorithm.  Configurations of non-finite epsilon
    are left out.  The epsilon axis and, with a bound, the metric's axis take ``axis_scale``'s rule
    (log where the values are positive and span more than 20x); the epsilon axis is labelled with
    the rows' delta where they have one.

    Parameters
    ----------
    rows : sequence of mapping, or pandas.DataFrame
        One row per run (``simulate``'s result rows): the configuration's parameters, ``seed``,
        ``epsilon``, optionally ``delta``, and the metric.
    path : str or os.PathLike
        The PNG to write; its directory must exist (an existing file is replaced).
    metric : str, optional
        The column drawn: "test_accuracy" (the default), "test_loss", "final_accuracy" or
        "final_loss" (a loss: lower is better on the frontier).
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
        If ``rows`` is empty or has no ``epsilon`` column; ``algorithm_column``, ``metric`` or a
        name of ``parameters`` is not a column of the rows (the message lists the columns);
        ``parameters`` holds ``algorithm_column``; ``metric`` is not a metric column; the ``bound``
        rows lack ``epsilon`` or ``value``; or the directory of ``path`` does not exist.
    ParameterTypeError
        If ``parameters`` is a single string rather than a sequence of column names.
    ImportError
        If matplotlib or pandas is not installed (``pip install "hockeystick[plot]"``), or numba,
        which ``hockeystick.simulate`` needs (``pip install "hockeystick[simulate]"``).

    References
    ----------
    Paper 000, Corollary 1 (the analytic bound the ``bound`` rows may hold).
    """
    require_extra("frontier_plot", "pandas", extra="plot")
    import pandas as pd  # lazy: pandas is an optional extra

    from ..simulate.frontier import (
        frontier,
        mean_over_seeds,
    )  # lazy: hockeystick.simulate imports numba

    frame = pd.DataFrame(rows)
    marks = pd.DataFrame(bound) if bound is not None and len(bound) else None
    _check_columns(frame, marks, metric, parameters, algorithm_column)
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
    if marks is not None:
        marks = marks.sort_values("epsilon")
        ax.plot(marks["epsilon"], marks["value"], "x", color="black", label=bound_label)
        measured = frame[metric][np.isfinite(frame[metric])]
        scale_axes(
            ax, y=np.concatenate([np.asarray(measured, float), np.asarray(marks["value"], float)])
        )
    scale_axes(ax, x=frame["epsilon"])
    ax.set_xlabel(
        f"epsilon at delta = {frame['delta'].iloc[0]:g}" if "delta" in frame else "epsilon"
    )
    ax.set_ylabel(metric.replace("_", " ") + " (mean over seeds)")
    canvas.finish(
        ax, title, (len(groups) if algorithm_column else 1) + (1 if marks is not None else 0)
    )
    return canvas.save(fig, path)


def _check_columns(
    frame: Any,
    marks: Any,
    metric: str,
    parameters: Sequence[str] | None,
    algorithm_column: str | None,
) -> None:
    """Refuse, before anything is drawn, a column argument that names no column of the rows (a
    ValueError naming the argument and listing the columns, not pandas' KeyError), and ``bound``
    rows without ``epsilon`` and ``value``."""
    if frame.empty:
        raise ValueError("rows must hold at least one run, got none")
    columns = list(frame.columns)
    listed = ", ".join(repr(c) for c in columns)
    if "epsilon" not in columns:
        raise ValueError(f"rows must have an 'epsilon' column, got the columns {listed}")
    for name, value in (("algorithm_column", algorithm_column), ("metric", metric)):
        if value is not None and value not in columns:
            raise ValueError(
                f"{name} must be a column of the rows (one of {listed}), got {value!r}"
            )
    if parameters is not None:
        _check_parameters(parameters, columns, listed, algorithm_column)
    if marks is not None and not {"epsilon", "value"} <= set(marks.columns):
        raise ValueError(
            "bound must have the columns 'epsilon' and 'value', got the columns "
            f"{', '.join(repr(c) for c in marks.columns)}"
        )


def _check_parameters(
    parameters: Sequence[str], columns: list[Any], listed: str, algorithm_column: str | None
) -> None:
    """``parameters``: a sequence of columns of the rows, without ``algorithm_column`` (drawn apart)."""
    if isinstance(parameters, str):
        raise ParameterTypeError(
            f"parameters must be a sequence of column names, got {parameters!r}; use [{parameters!r}]"
        )
    missing = [p for p in parameters if p not in columns]
    if missing:
        raise ValueError(
            f"parameters must be columns of the rows (one of {listed}), got {list(parameters)!r}: "
            f"{', '.join(repr(m) for m in missing)} {'is' if len(missing) == 1 else 'are'} not among them"
        )
    if algorithm_column is not None and algorithm_column in parameters:
        raise ValueError(
            f"parameters must not hold algorithm_column {algorithm_column!r} (each of its values is drawn "
            f"apart), got {list(parameters)!r}"
        )
