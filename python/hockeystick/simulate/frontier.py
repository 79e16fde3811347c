"""The privacy-utility frontier of a simulation sweep: the best accuracy each epsilon budget buys.

A configuration's epsilon is a property of the configuration (its accountants do not look at
the seed); its utility is the mean over seeds.  The frontier at budget b is the configuration
with the best mean accuracy among those with epsilon <= b, so it is the upper staircase of the
(epsilon, mean accuracy) cloud: sort configurations by epsilon, keep each one that beats every
cheaper one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["frontier", "mean_over_seeds"]

_METRICS = ("final_loss", "final_accuracy", "test_loss", "test_accuracy")
_PER_RUN = ("seed", "metric_rounds", "loss_curve", "accuracy_curve", "epsilon_source") + _METRICS


def mean_over_seeds(rows: Any, parameters: Sequence[str] | None = None) -> Any:
    """One row per configuration: mean and standard deviation over seeds of every metric.

    Parameters
    ----------
    rows : pandas.DataFrame or list of dict
        The rows of a sweep (:func:`simulate_sweep`), one per run, with an ``epsilon`` column.
    parameters : sequence of str, optional
        The configuration columns to group by. Default: every column that is not a per-run output
        (seed, curves, metrics, epsilon source) nor ``epsilon`` or ``delta``.

    Returns
    -------
    pandas.DataFrame
        One row per configuration: the ``parameters`` columns, ``<metric>_mean`` and
        ``<metric>_std`` for each of final_loss, final_accuracy, test_loss, test_accuracy present,
        ``epsilon`` (the largest over the seeds) and ``seeds`` (the run count).

    Raises
    ------
    ValueError
        When there are no rows, or a name of ``parameters`` is not a column.
    """
    import pandas as pd  # lazy: optional extra (pandas)

    frame = pd.DataFrame(rows)
    if frame.empty:
        raise ValueError("no rows: the sweep produced no runs")
    keys = (
        list(parameters)
        if parameters is not None
        else [c for c in frame.columns if c not in _PER_RUN and c not in ("epsilon", "delta")]
    )
    missing = sorted(set(keys) - set(frame.columns))
    if missing:
        raise ValueError(f"parameters {missing} are not columns of the rows")
    metrics = [m for m in _METRICS if m in frame.columns]
    grouped = (
        frame.groupby(keys, dropna=False, sort=False)
        if keys
        else frame.groupby(np.zeros(len(frame)))
    )
    out = grouped[metrics].agg(["mean", "std"])
    out.columns = [f"{metric}_{stat}" for metric, stat in out.columns]
    out["epsilon"] = grouped[
        "epsilon"
    ].max()  # equal across seeds; max keeps the safe side regardless
    out["seeds"] = grouped.size()
    return out.reset_index() if keys else out.reset_index(drop=True)


def frontier(
    rows: Any,
    *,
    metric: str = "test_accuracy",
    parameters: Sequence[str] | None = None,
    algorithm_column: str | None = None,
) -> Any:
    """The configurations on the (epsilon, mean ``metric``) frontier, by increasing epsilon.

    Each returned row is a configuration that reaches a better mean ``metric`` than every
    configuration of smaller or equal epsilon (``metric`` ending in "loss": lower is better).
    Configurations with an infinite epsilon or no value of ``metric`` are left out.

    Parameters
    ----------
    rows : pandas.DataFrame or list of dict
        The rows of a sweep (:func:`simulate_sweep`), one per run.
    metric : str, default "test_accuracy"
        One of final_loss, final_accuracy, test_loss, test_accuracy present in the rows.
    parameters : sequence of str, optional
        The configuration columns (see :func:`mean_over_seeds`).
    algorithm_column : str, optional
        A column whose values get one frontier each, concatenated in sorted order with that column
        appended.

    Returns
    -------
    pandas.DataFrame
        The frontier's rows of :func:`mean_over_seeds`, by increasing epsilon.

    Raises
    ------
    ValueError
        When ``algorithm_column`` or a name of ``parameters`` is not a column, there are no rows, or
        ``metric`` is not one of the metrics present.
    """
    import pandas as pd  # lazy: optional extra (pandas)

    frame = pd.DataFrame(rows)
    if algorithm_column is not None:
        if algorithm_column not in frame.columns:
            raise ValueError(f"algorithm_column {algorithm_column!r} is not a column of the rows")
        parts = [
            frontier(
                part.drop(columns=[algorithm_column]), metric=metric, parameters=parameters
            ).assign(**{algorithm_column: name})
            for name, part in frame.groupby(algorithm_column, sort=True)
        ]
        return pd.concat(parts, ignore_index=True)
    summary = mean_over_seeds(frame, parameters)
    column = f"{metric}_mean"
    if column not in summary.columns:
        raise ValueError(
            f"metric must be one of {', '.join(m for m in _METRICS if f'{m}_mean' in summary.columns)}, got {metric!r}"
        )
    sign = -1.0 if metric.endswith("loss") else 1.0
    finite = summary[np.isfinite(summary["epsilon"]) & summary[column].notna()]
    ordered = finite.sort_values(["epsilon", column], ascending=[True, sign < 0], kind="stable")
    best, keep = -np.inf, []
    for index, value in zip(ordered.index, sign * ordered[column].to_numpy()):
        if value > best:
            best = value
            keep.append(index)
    return ordered.loc[keep].reset_index(drop=True)
