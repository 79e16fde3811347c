"""Pictures of privacy guarantees: delta-eps curves, sigma needed vs rounds, heat maps over two axes.

matplotlib is imported only when a picture is drawn (``pip install "hockeystick[plot]"``),
through its object-oriented API (Figure + Agg canvas): no pyplot state, no GUI backend.
``plot_dataset`` draws the natural picture of a sweep from its labelled arrays (a saved file read
with ``sweep.read_sweep``: nothing is evaluated again); ``plot_grid`` draws the same picture of a
grid from a small sub-grid it evaluates itself (at most a few hundred values per axis).
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ._optional import require_extra
from .pld.along_run import CurveAlongRun
from .sweep.grid import Axis, Grid
from .sweep.labelled import to_dataset
from .sweep.run import default_chunk_size, evaluate_chunk

__all__ = [
    "curve_along_run",
    "delta_epsilon_curves",
    "parameter_curves",
    "heatmap",
    "plot_grid",
    "plot_dataset",
    "frontier_plot",
]

_MAX_CURVES = 8
_DELTA_FLOOR = 1e-16  # delta-eps curves are cut below this (smaller deltas are not informative)


def _figure() -> tuple[Any, Any]:
    require_extra("drawing a plot", "matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.4), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _save(fig: Any, path: str | os.PathLike[str]) -> str:
    path = Path(path)
    if not path.parent.is_dir():
        raise ValueError(f"plot {str(path)!r}: directory {str(path.parent)!r} does not exist")
    fig.savefig(path)
    return os.fspath(path)


def _positive(values: np.ndarray) -> bool:
    return bool(np.all(np.asarray(values) > 0))


def delta_epsilon_curves(
    epsilon: npt.ArrayLike, curves: Mapping[str, npt.ArrayLike], path: str | os.PathLike[str], *, title: str = ""
) -> str:
    """delta(eps) on a log scale, one curve per label; returns the PNG's path."""
    fig, ax = _figure()
    positive = []
    for label, delta in curves.items():
        d = np.asarray(delta, dtype=float)
        ax.plot(epsilon, np.where(d > 0, d, np.nan), label=label)
        positive.append(d[d > 0])
    ax.set_yscale("log")
    smallest = np.concatenate(positive).min(initial=1.0)
    ax.set_ylim(max(smallest, _DELTA_FLOOR), 1.5)
    eps = np.asarray(epsilon, dtype=float)
    if eps.size > 2 and eps.min() > 0 and eps.max() / eps.min() > 20:
        ax.set_xscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    _finish(ax, title, len(curves))
    return _save(fig, path)


def parameter_curves(
    x: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    path: str | os.PathLike[str],
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
) -> str:
    """A quantity against one parameter (e.g. sigma needed vs rounds), log axes where positive."""
    fig, ax = _figure()
    x = np.asarray(x, dtype=float)
    ys = [np.asarray(y, dtype=float) for y in curves.values()]
    for label, y in zip(curves, ys):
        ax.plot(x, y, label=label, marker="." if len(x) <= 30 else None)
    if _positive(np.asarray(x)) and len(x) > 1 and np.max(x) / np.min(x) > 20:
        ax.set_xscale("log")
    finite = np.concatenate([y[np.isfinite(y)] for y in ys]) if ys else np.array([])
    if finite.size and _positive(finite) and finite.max() / finite.min() > 20:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _finish(ax, title, len(curves))
    return _save(fig, path)


def heatmap(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    z: np.ndarray,
    path: str | os.PathLike[str],
    *,
    xlabel: str,
    ylabel: str,
    zlabel: str,
    title: str = "",
    log_x: bool | None = None,
    log_y: bool | None = None,
    contours: Mapping[str, np.ndarray] | None = None,
    levels: Sequence[float] | None = None,
) -> str:
    """z[i, j] at (x[j], y[i]) as colours (log colour scale when z > 0 spans decades).

    ``log_x`` / ``log_y``: log axes (None: when the values are positive and span more than 20x).
    ``contours``: arrays shaped like z (one per accountant) drawn as contour lines at ``levels``
    (target epsilons, say), one line style per array with a legend entry each."""
    from matplotlib.colors import LogNorm
    from matplotlib.lines import Line2D

    fig, ax = _figure()
    z = np.asarray(z, dtype=float)
    finite = z[np.isfinite(z) & (z > 0)]
    norm = LogNorm(finite.min(), finite.max()) if finite.size and finite.max() / finite.min() > 100 else None
    mesh = ax.pcolormesh(
        np.asarray(x),
        np.asarray(y),
        np.where(z > 0, z, np.nan) if norm else z,
        shading="nearest",
        norm=norm,
        cmap="viridis",
    )
    fig.colorbar(mesh, ax=ax, label=zlabel)
    for values, setter, log in ((x, ax.set_xscale, log_x), (y, ax.set_yscale, log_y)):
        v = np.asarray(values)
        if log is None:
            log = len(v) > 2 and _positive(v) and v.max() / v.min() > 20
        if log and _positive(v):
            setter("log")
    handles = []
    if contours and levels is not None and np.size(x) > 1 and np.size(y) > 1:
        styles: list[Any] = ["solid", "dashed", "dotted", "dashdot"]
        for i, (label, values) in enumerate(contours.items()):
            values = np.asarray(values, dtype=float)
            inside = [lv for lv in levels if np.nanmin(values) < lv < np.nanmax(values)]
            if not inside:
                continue
            style = styles[i % len(styles)]
            lines = ax.contour(
                np.asarray(x),
                np.asarray(y),
                values,
                levels=sorted(inside),
                colors="white",
                linestyles=style,
                linewidths=1.0,
            )
            ax.clabel(lines, fmt=lambda v: f"{v:g}", fontsize=7)
            handles.append(
                Line2D(
                    [],
                    [],
                    color="black",
                    linestyle=style,
                    label=f"{label}: {zlabel} = " + ", ".join(f"{lv:g}" for lv in sorted(inside)),
                )
            )
    if handles:
        ax.legend(handles=handles, fontsize=7, loc="best")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _finish(ax, title, 0)
    return _save(fig, path)


def _finish(ax: Any, title: str, n_curves: int) -> None:
    if title:
        ax.set_title(title, fontsize=9)
    if 1 < n_curves <= _MAX_CURVES:
        ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)


def _thin_index(n: int, count: int) -> np.ndarray:
    """The positions of at most ``count`` of ``n`` values, evenly spread, always keeping both ends."""
    return np.arange(n) if n <= count else np.unique(np.linspace(0, n - 1, count).round().astype(int))


def plot_grid(
    grid: Any, path: str | os.PathLike[str], *, max_points: int = 200, levels: Sequence[float] | None = None
) -> str:
    """The natural picture of a sweep, from a sub-grid of at most ``max_points`` values per axis.

    The sub-grid (the axes drawn, thinned; the others held at their middle value) is evaluated
    here and drawn by ``plot_dataset``, which says which picture each sweep gets.
    """
    axes = {a.name: a for a in grid.axes}
    if not axes:
        raise ValueError("nothing to plot: the sweep has no axis (give a list or range for a parameter)")
    lengths = {a.name: len(a) for a in grid.axes}
    kind, drawn = _picture(grid.output, lengths)
    fixed = dict(grid.fixed)
    fixed.update({n: axes[n].values[len(axes[n]) // 2].item() for n in axes if n not in drawn})
    sub_axes = tuple(
        Axis(n, axes[n].values[_thin_index(len(axes[n]), min(count, max_points))], axes[n].kind)
        for n, count in drawn.items()
    )
    sub = Grid(
        accountants=grid.accountants,
        output=grid.output,
        axes=sub_axes,
        fixed=fixed,
        bound=getattr(grid, "bound", "upper"),
    )
    # evaluated here, chunk by chunk, not through run_sweep: a picture is no sweep to plan or resume
    parts = [evaluate_chunk(sub, chunk) for chunk in sub.chunks(default_chunk_size(sub))]
    values = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    return plot_dataset(to_dataset(sub, values), path, max_points=max_points, levels=levels)


def _picture(output: str, lengths: Mapping[str, int]) -> tuple[str, dict[str, int]]:
    """("curves" or "heatmap", the axes drawn in order -> how many values each keeps).

    - output delta with an ``epsilon`` axis: delta-eps curves (one per value of another axis);
    - output epsilon with a ``delta`` axis: eps against delta, likewise;
    - a calibrated output (sigma ...): that value against the first axis (rounds if present);
    - otherwise two or more axes: a heat map over the two longest (y first); one axis: a curve.
    Curves are labelled by the longest other axis (at most 8 curves)."""
    names = list(lengths)
    partner = {"delta": "epsilon", "epsilon": "delta"}
    if output in partner and partner[output] in lengths:
        x = partner[output]
    elif output not in partner:
        x = "rounds" if "rounds" in lengths else names[0]
    elif len(names) >= 2:
        y, x = sorted(names, key=lambda n: -lengths[n])[:2]
        return "heatmap", {y: _HEATMAP_POINTS, x: _HEATMAP_POINTS}
    else:
        x = names[0]
    others = [n for n in names if n != x]
    drawn = {x: _HEATMAP_POINTS}
    if others:
        drawn[max(others, key=lambda n: lengths[n])] = _MAX_CURVES
    return "curves", drawn


_HEATMAP_POINTS = 200


def _main_variable(ds: Any) -> tuple[str, str, list[str]]:
    """(the variable to draw, the output it is, the accountants with a column of their own)."""
    names = [str(v) for v in ds.data_vars if v != "best"]
    if not names:
        raise ValueError("nothing to plot: the sweep file holds no output column")
    main = next((n for n in names if all(m == n or m.startswith(n + "_") for m in names)), None)
    if main is None:  # both sides of a bracket: draw the upper one
        main = next((n for n in names if n.endswith("_upper")), names[0])
    output = main.rsplit("_", 1)[0] if main.endswith(("_lower", "_upper")) else main
    accountants = [
        n[len(output) + 1 :] for n in names if n.startswith(output + "_") and not n.endswith(("_lower", "_upper"))
    ]
    return main, output, accountants


def _default_levels(output: str, values: np.ndarray) -> list[float]:
    """Target epsilons (0.5 ... 8) or deltas (1e-10 ... 1e-3) that the values cross."""
    candidates = (
        [0.5, 1.0, 2.0, 4.0, 8.0]
        if output == "epsilon"
        else [1e-10, 1e-8, 1e-6, 1e-5, 1e-3]
        if output == "delta"
        else []
    )
    finite = values[np.isfinite(values)]
    return [c for c in candidates if finite.size and finite.min() < c < finite.max()]


def plot_dataset(
    ds: Any, path: str | os.PathLike[str], *, max_points: int = 200, levels: Sequence[float] | None = None
) -> str:
    """The natural picture of a saved (or in-memory) sweep, from its labelled arrays alone.

    ``ds``: an ``xarray.Dataset`` as ``SweepResult.to_xarray()`` or ``sweep.read_sweep(path)`` gives.
    The picture follows ``_picture``; axes not drawn are held at their middle value (named in the
    title with the fixed parameters).  A heat map gets log axes where the sweep's axis was
    log-spaced, and contour lines at ``levels`` (default: the target epsilons 0.5 ... 8, or deltas,
    that the values cross), one per accountant for a sweep of several, with a legend.
    """
    main, output, accountants = _main_variable(ds)
    dims = [str(d) for d in ds[main].dims]
    if not dims:
        raise ValueError("nothing to plot: the sweep has no axis (give a list or range for a parameter)")
    kind, drawn = _picture(output, {d: ds.sizes[d] for d in dims})
    held = {d: ds.sizes[d] // 2 for d in dims if d not in drawn}
    ds = ds.isel(held).isel({d: _thin_index(ds.sizes[d], min(count, max_points)) for d, count in drawn.items()})
    scalars = {str(k): ds[k].item() for k in ds.coords if ds[k].ndim == 0}
    held_text = ", ".join(f"{k}={v:g}" for k, v in sorted(scalars.items()) if isinstance(v, (int, float)))
    names = ds.attrs.get("accountants", "") or " / ".join(accountants)
    title = names.replace(",", " / ") + ("\n" + textwrap.fill(held_text, 90) if held_text else "")
    order = list(drawn)
    if kind == "heatmap":
        y, x = order
        z = ds[main].transpose(y, x).values
        spacing = {d: ds[d].attrs.get("spacing") for d in (x, y)}
        columns = {a: ds[f"{output}_{a}"].transpose(y, x).values for a in accountants} or {output: z}
        return heatmap(
            ds[x].values,
            ds[y].values,
            z,
            path,
            xlabel=x,
            ylabel=y,
            zlabel=output,
            title=title,
            log_x=None if spacing[x] is None else spacing[x] == "log",
            log_y=None if spacing[y] is None else spacing[y] == "log",
            contours=columns,
            levels=_default_levels(output, z) if levels is None else levels,
        )
    x = order[0]
    xs = ds[x].values
    if len(order) == 1:
        curves = {output: ds[main].values}
    else:
        label_axis = order[1]
        table = ds[main].transpose(x, label_axis).values
        curves = {f"{label_axis}={v:g}": table[:, i] for i, v in enumerate(ds[label_axis].values)}
    if output == "delta":
        return delta_epsilon_curves(xs, curves, path, title=title)
    ylabel = "epsilon(delta)" if output == "epsilon" else f"{output} needed for (epsilon, delta)"
    return parameter_curves(xs, curves, path, xlabel=x, ylabel=ylabel, title=title)


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
    import pandas as pd

    # imported here, not at the top: hockeystick.simulate brings numba, which plain plots do not need
    from .simulate.frontier import frontier, mean_over_seeds

    frame = pd.DataFrame(rows)
    fig, ax = _figure()
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
        if _positive(measured) and _positive(marks["value"]) and marks["value"].max() / measured.min() > 20:
            ax.set_yscale("log")
    if (
        _positive(frame["epsilon"][np.isfinite(frame["epsilon"])])
        and frame["epsilon"].max() / max(frame["epsilon"].min(), 1e-300) > 20
    ):
        ax.set_xscale("log")
    ax.set_xlabel(f"epsilon at delta = {frame['delta'].iloc[0]:g}" if "delta" in frame else "epsilon")
    ax.set_ylabel(metric.replace("_", " ") + " (mean over seeds)")
    _finish(ax, title, (len(groups) if algorithm_column else 1) + (1 if bound is not None and len(bound) else 0))
    return _save(fig, path)


def curve_along_run(curve: CurveAlongRun, path: str | os.PathLike[str], *, title: str = "") -> str:
    """A run's certified bracket (``pld.along_run.CurveAlongRun``, from ``epsilon_curve`` or ``delta_curve``)
    against its checkpoints, in epochs where the run counts them, else in steps: the upper side as a line,
    the lower side dashed, the bracket between them shaded (a log scale for delta); returns the PNG's path.
    An unbounded side (epsilon's upper side where delta is below what can be certified) is left out."""
    fig, ax = _figure()
    x = curve.steps if curve.steps_per_epoch is None else curve.epochs
    lower = np.where(np.isfinite(curve.lower), curve.lower, np.nan)
    upper = np.where(np.isfinite(curve.upper), curve.upper, np.nan)
    marker = "o" if len(curve) <= 30 else None
    line = ax.plot(x, upper, marker=marker, markersize=3, label="upper (certified)")[0]
    ax.plot(x, lower, linestyle="--", color=line.get_color(), label="lower (certified)")
    ax.fill_between(x, lower, upper, color=line.get_color(), alpha=0.2, linewidth=0)
    if curve.quantity == "delta" and _positive(lower[np.isfinite(lower)]):
        ax.set_yscale("log")
    ax.set_xlabel("epochs" if curve.steps_per_epoch is not None else "steps")
    other = "delta" if curve.quantity == "epsilon" else "epsilon"
    ax.set_ylabel(f"{curve.quantity} at {other} = {curve.given:g}")
    _finish(ax, title, 2)
    return _save(fig, path)
