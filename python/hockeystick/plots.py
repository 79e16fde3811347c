"""Pictures of privacy guarantees: delta-eps curves, sigma needed vs rounds, heat maps over two axes.

matplotlib is imported only when a picture is drawn (``pip install 'hockeystick[plot]'``),
through its object-oriented API (Figure + Agg canvas): no pyplot state, no GUI backend.
``plot_grid`` draws the natural picture of a sweep from a small sub-grid it evaluates
itself (at most a few hundred values per axis), so it never needs the sweep's file.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from .sweep.grid import Axis, Grid
from .sweep.run import default_chunk_size, evaluate_chunk

__all__ = ["delta_epsilon_curves", "parameter_curves", "heatmap", "plot_grid", "frontier_plot"]

_MAX_CURVES = 8
_DELTA_FLOOR = 1e-16    # delta-eps curves are cut below this (smaller deltas are not informative)


def _figure() -> tuple[Any, Any]:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError("plots need matplotlib: pip install 'hockeystick[plot]'") from None
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


def delta_epsilon_curves(epsilon: npt.ArrayLike, curves: Mapping[str, npt.ArrayLike],
                         path: str | os.PathLike[str], *, title: str = "") -> str:
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


def parameter_curves(x: npt.ArrayLike, curves: Mapping[str, npt.ArrayLike], path: str | os.PathLike[str], *,
                     xlabel: str, ylabel: str, title: str = "") -> str:
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


def heatmap(x: npt.ArrayLike, y: npt.ArrayLike, z: np.ndarray, path: str | os.PathLike[str], *,
            xlabel: str, ylabel: str, zlabel: str, title: str = "") -> str:
    """z[i, j] at (x[j], y[i]) as colours (log colour scale when z > 0 spans decades)."""
    from matplotlib.colors import LogNorm

    fig, ax = _figure()
    z = np.asarray(z, dtype=float)
    finite = z[np.isfinite(z) & (z > 0)]
    norm = LogNorm(finite.min(), finite.max()) if finite.size and finite.max() / finite.min() > 100 else None
    mesh = ax.pcolormesh(np.asarray(x), np.asarray(y), np.where(z > 0, z, np.nan) if norm else z,
                         shading="nearest", norm=norm, cmap="viridis")
    fig.colorbar(mesh, ax=ax, label=zlabel)
    for values, setter in ((x, ax.set_xscale), (y, ax.set_yscale)):
        v = np.asarray(values)
        if len(v) > 2 and _positive(v) and v.max() / v.min() > 20:
            setter("log")
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


def _thin(values: np.ndarray, count: int) -> np.ndarray:
    """At most ``count`` values, evenly spread, always keeping both ends."""
    if len(values) <= count:
        return values
    return values[np.unique(np.linspace(0, len(values) - 1, count).round().astype(int))]


def plot_grid(grid: Any, path: str | os.PathLike[str], *, max_points: int = 200) -> str:
    """The natural picture of a sweep, from a sub-grid of at most ``max_points`` values per axis.

    - output delta with an ``epsilon`` axis: delta-eps curves (one per value of another axis);
    - output epsilon with a ``delta`` axis: eps against delta, likewise;
    - a calibrated output (sigma ...): that value against the first axis (rounds if present);
    - otherwise two or more axes: a heat map over the two longest; one axis: a curve.
    Axes not drawn are held at their middle value (named in the title).
    """
    axes = {a.name: a for a in grid.axes}
    if not axes:
        raise ValueError("nothing to plot: the sweep has no axis (give a list or range for a parameter)")
    names = list(axes)
    if grid.output in ("delta", "epsilon") and {"delta": "epsilon", "epsilon": "delta"}[grid.output] in axes:
        x = {"delta": "epsilon", "epsilon": "delta"}[grid.output]
        kind = "curves"
    elif grid.output not in ("delta", "epsilon"):
        x = "rounds" if "rounds" in axes else names[0]
        kind = "curves"
    elif len(names) >= 2:
        x, kind = None, "heatmap"
    else:
        x, kind = names[0], "curves"
    if kind == "heatmap":
        y, x = sorted(names, key=lambda n: -len(axes[n]))[:2]
        label_axis = None
    else:
        others = [n for n in names if n != x]
        label_axis = max(others, key=lambda n: len(axes[n])) if others else None
    drawn = [n for n in (y if kind == "heatmap" else None, x, label_axis) if n is not None]
    fixed = dict(grid.fixed)
    held = {n: axes[n].values[len(axes[n]) // 2].item() for n in names if n not in drawn}
    fixed.update(held)
    sub_axes = []
    for n in drawn:
        count = _MAX_CURVES if n == label_axis else max_points
        sub_axes.append(Axis(n, _thin(axes[n].values, count), axes[n].kind))
    sub = Grid(accountants=grid.accountants, output=grid.output, axes=tuple(sub_axes), fixed=fixed)
    # evaluated here, chunk by chunk, not through run_sweep: a picture is no sweep to plan or resume
    values = np.concatenate([evaluate_chunk(sub, chunk)[grid.output]
                             for chunk in sub.chunks(default_chunk_size(sub))]).reshape(sub.shape)
    held_text = ", ".join(f"{k}={v:g}" for k, v in sorted(fixed.items()))
    title = " / ".join(grid.accountants) + ("\n" + textwrap.fill(held_text, 90) if held_text else "")
    assert x is not None  # every kind has chosen its horizontal axis by now
    if kind == "heatmap":
        return heatmap(sub_axes[1].values, sub_axes[0].values, values, path, xlabel=sub_axes[1].name,
                       ylabel=sub_axes[0].name,
                       zlabel=grid.output, title=title)
    xs = sub_axes[drawn.index(x)].values
    if label_axis is None:
        curves = {grid.output: values}
    else:
        order = values if drawn.index(x) < drawn.index(label_axis) else values.T
        # rows of ``order`` follow x; columns follow the label axis
        labels = sub_axes[drawn.index(label_axis)].values
        curves = {f"{label_axis}={v:g}": order[:, i] for i, v in enumerate(labels)}
    if grid.output == "delta":
        return delta_epsilon_curves(xs, curves, path, title=title)
    ylabel = "epsilon(delta)" if grid.output == "epsilon" else f"{grid.output} needed for (epsilon, delta)"
    return parameter_curves(xs, curves, path, xlabel=x, ylabel=ylabel, title=title)


def frontier_plot(rows: Any, path: str | os.PathLike[str], *, metric: str = "test_accuracy",
                  parameters: Sequence[str] | None = None, algorithm_column: str | None = None,
                  title: str = "", bound: Any = None, bound_label: str = "analytic bound") -> str:
    """Accuracy (or loss) against epsilon: every configuration's mean over seeds as a point with its
    seeds' spread, and the frontier (``simulate.frontier``) as a staircase, one colour per algorithm.

    ``bound``: rows with ``epsilon`` and ``value`` (in ``metric``'s units), an analytic guarantee such
    as paper 000 Corollary 1's (``simulate.utility_bound.corollary_1_table``'s ``bound_loss``), drawn
    as crosses beside the measured points (log scale when it is far above them)."""
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
        points = ax.errorbar(cloud["epsilon"], cloud[f"{metric}_mean"], yerr=cloud[f"{metric}_std"].fillna(0),
                             fmt="o", alpha=0.35, markersize=3)
        ax.step(front["epsilon"], front[f"{metric}_mean"], where="post", color=points[0].get_color(),
                label=f"{label} frontier".strip())
    if bound is not None and len(bound):
        marks = pd.DataFrame(bound).sort_values("epsilon")
        ax.plot(marks["epsilon"], marks["value"], "x", color="black", label=bound_label)
        measured = frame[metric][np.isfinite(frame[metric])]
        if _positive(measured) and _positive(marks["value"]) and marks["value"].max() / measured.min() > 20:
            ax.set_yscale("log")
    if _positive(frame["epsilon"][np.isfinite(frame["epsilon"])]) and frame["epsilon"].max() / max(
            frame["epsilon"].min(), 1e-300) > 20:
        ax.set_xscale("log")
    ax.set_xlabel(f"epsilon at delta = {frame['delta'].iloc[0]:g}" if "delta" in frame else "epsilon")
    ax.set_ylabel(metric.replace("_", " ") + " (mean over seeds)")
    _finish(ax, title, (len(groups) if algorithm_column else 1) + (1 if bound is not None and len(bound) else 0))
    return _save(fig, path)
