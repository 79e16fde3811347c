"""Pictures of privacy guarantees: delta-eps curves, sigma needed vs rounds, heat maps over two axes.

matplotlib is imported only when a picture is drawn (``pip install "hockeystick[plot]"``),
through its object-oriented API (Figure + Agg canvas): no pyplot state, no GUI backend.
``plot_dataset`` draws the natural picture of a sweep from its labelled arrays (a saved file read
with ``sweep.read_sweep``: nothing is evaluated again); ``plot_grid`` draws the same picture of a
grid from a small sub-grid it evaluates itself (at most a few hundred values per axis).
"""

from __future__ import annotations

import difflib
import math
import os
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..base.optional import require_extra
from ..pld.reads.along_run import CurveAlongRun
from ..sweep.grid import Axis, Grid
from ..sweep.labelled import to_dataset
from ..sweep.evaluation import default_chunk_size, evaluate_chunk

__all__ = [
    "curve_along_run",
    "delta_epsilon_curves",
    "parameter_curves",
    "axis_scale",
    "heatmap",
    "plot_grid",
    "plot_dataset",
    "choose_picture",
    "Picture",
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


LOG_SPAN = 20.0  # positive values spanning more than this ratio are drawn on a log axis


def axis_scale(values: npt.ArrayLike, spacing: str | None = None) -> str:
    """The scale of an axis drawing ``values``: "log" or "linear", the one rule of every picture here.

    Parameters
    ----------
    values : array_like
        The values along the axis (non-finite ones are left out).
    spacing : str, optional
        How a sweep made them (its coordinate's ``spacing`` attribute): "log" or "linear" decide the scale
        (a log axis needs positive values); "list" or None leave it to the values.

    Returns
    -------
    str
        "log" where the finite values are positive and span more than ``LOG_SPAN`` (1, 10, 100, 1000: each
        decade as wide as the next), or the sweep made them log-spaced; otherwise "linear".
    """
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0 or not _positive(v):
        return "linear"
    if spacing in ("log", "linear"):
        return spacing
    return "log" if v.size > 1 and v.max() / v.min() > LOG_SPAN else "linear"


def _scale_axes(
    ax: Any, x: npt.ArrayLike | None = None, y: npt.ArrayLike | None = None, x_spacing: str | None = None
) -> None:
    """Each axis given values set to ``axis_scale`` of them (``x_spacing``: a sweep's spacing of x)."""
    if x is not None:
        ax.set_xscale(axis_scale(x, x_spacing))
    if y is not None:
        ax.set_yscale(axis_scale(y))


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
    fig, ax = _figure()
    _delta_epsilon_on(ax, epsilon, curves, levels, x_spacing)
    _finish(ax, title, len(curves), levels=bool(levels))
    return _save(fig, path)


def _delta_epsilon_on(
    ax: Any,
    epsilon: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    levels: Sequence[float] | None,
    x_spacing: str | None = None,
) -> None:
    positive = []
    for label, delta in curves.items():
        d = np.asarray(delta, dtype=float)
        ax.plot(epsilon, np.where(d > 0, d, np.nan), label=label)
        positive.append(d[d > 0])
    ax.set_yscale("log")
    smallest = min(np.concatenate(positive).min(initial=1.0), *(levels or [1.0]))
    ax.set_ylim(max(smallest, _DELTA_FLOOR), 1.5)
    _scale_axes(ax, x=epsilon, x_spacing=x_spacing)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    _level_lines(ax, levels)


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
    fig, ax = _figure()
    _parameter_curves_on(ax, x, curves, xlabel, ylabel, levels, x_spacing)
    _finish(ax, title, len(curves), levels=bool(levels))
    return _save(fig, path)


def _parameter_curves_on(
    ax: Any,
    x: npt.ArrayLike,
    curves: Mapping[str, npt.ArrayLike],
    xlabel: str,
    ylabel: str,
    levels: Sequence[float] | None,
    x_spacing: str | None = None,
) -> None:
    x = np.asarray(x, dtype=float)
    ys = [np.asarray(y, dtype=float) for y in curves.values()]
    for label, y in zip(curves, ys):
        ax.plot(x, y, label=label, marker="." if len(x) <= 30 else None)
    _scale_axes(ax, x=x, y=np.concatenate(ys) if ys else None, x_spacing=x_spacing)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _level_lines(ax, levels)


def _level_lines(ax: Any, levels: Sequence[float] | None) -> None:
    """A dotted horizontal line at each level (target values of the quantity drawn), one legend entry."""
    if not levels:
        return
    if ax.get_yscale() == "log" and min(levels) <= 0:
        raise ValueError(f"levels must be positive on a log scale, got {', '.join(f'{v:g}' for v in levels)}")
    for i, level in enumerate(sorted(levels)):
        label = "levels " + ", ".join(f"{v:g}" for v in sorted(levels)) if i == 0 else None
        ax.axhline(level, color="0.3", linestyle=":", linewidth=1.0, label=label)


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

    ``log_x`` / ``log_y``: log axes (None: ``axis_scale`` of the values).
    ``contours``: arrays shaped like z (one per accountant) drawn as contour lines at ``levels``
    (target epsilons, say), one line style per array with a legend entry each."""
    fig, ax = _figure()
    z = np.asarray(z, dtype=float)
    mesh = _heatmap_on(ax, x, y, z, _colour_norm([z]), log_x, log_y, contours, levels, zlabel)
    fig.colorbar(mesh, ax=ax, label=zlabel)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _finish(ax, title, 0)
    return _save(fig, path)


def _colour_norm(panels: Sequence[np.ndarray]) -> Any:
    """A log colour scale shared by the panels when their positive values span more than 100x (else None)."""
    from matplotlib.colors import LogNorm

    finite = np.concatenate([z[np.isfinite(z) & (z > 0)] for z in panels])
    return LogNorm(finite.min(), finite.max()) if finite.size and finite.max() / finite.min() > 100 else None


def _heatmap_on(
    ax: Any,
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    z: np.ndarray,
    norm: Any,
    log_x: bool | None,
    log_y: bool | None,
    contours: Mapping[str, np.ndarray] | None,
    levels: Sequence[float] | None,
    zlabel: str,
) -> Any:
    from matplotlib.colors import LogNorm
    from matplotlib.lines import Line2D

    finite = z[np.isfinite(z)]
    declared = {a: None if log is None else "log" if log else "linear" for a, log in (("x", log_x), ("y", log_y))}
    scales = {a: axis_scale(v, declared[a]) for a, v in (("x", x), ("y", y))}
    mesh = ax.pcolormesh(
        _cell_edges(x, scales["x"]),
        _cell_edges(y, scales["y"]),
        np.where(z > 0, z, np.nan) if isinstance(norm, LogNorm) else z,
        shading="flat",
        norm=norm,
        vmin=None if norm or not finite.size else finite.min(),
        vmax=None if norm or not finite.size else finite.max(),
        cmap="viridis",
    )
    ax.set_xscale(scales["x"])
    ax.set_yscale(scales["y"])
    handles = []
    if contours and levels is not None and np.size(x) > 1 and np.size(y) > 1:
        styles: list[Any] = ["solid", "dashed", "dotted", "dashdot"]
        for i, (label, values) in enumerate(contours.items()):
            values = np.asarray(values, dtype=float)
            inside = _levels_inside(values, levels)
            if not inside:
                continue
            style = styles[i % len(styles)]
            lines = ax.contour(
                np.asarray(x),
                np.asarray(y),
                values,
                levels=inside,
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
                    label=f"{label}: {zlabel} = " + ", ".join(f"{lv:g}" for lv in inside),
                )
            )
    if handles:
        ax.legend(handles=handles, fontsize=7, loc="best")
    return mesh


def _cell_edges(values: npt.ArrayLike, scale: str) -> np.ndarray:
    """The edges of the cells centred on ascending or descending ``values``: midway between neighbours on the
    axis's ``scale`` (geometric means on a log axis, so every decade's cells are as wide as the next's), the
    outer edges as far out as the nearest inner one (a lone value: a decade, or 1, around it)."""
    v = np.asarray(values, dtype=float).ravel()
    u = np.log10(v) if scale == "log" else v
    if u.size == 1:
        half = 0.5 if scale == "log" else 0.5 * max(abs(float(u[0])), 1.0)
        edges = np.array([u[0] - half, u[0] + half])
    else:
        middle = (u[:-1] + u[1:]) / 2
        edges = np.concatenate([[2 * u[0] - middle[0]], middle, [2 * u[-1] - middle[-1]]])
    return cast(np.ndarray, 10.0**edges if scale == "log" else edges)


def _levels_inside(values: np.ndarray, levels: Sequence[float]) -> list[float]:
    """The levels strictly between the smallest and the largest finite value (the ones a contour crosses)."""
    finite = values[np.isfinite(values)]
    return sorted(lv for lv in levels if finite.size and finite.min() < lv < finite.max())


def _finish(ax: Any, title: str, n_curves: int, *, levels: bool = False) -> None:
    """The title, the grid, and a legend where it names something: 2 to 8 curves, or level lines."""
    if title:
        ax.set_title(title, fontsize=9)
    if 1 < n_curves + levels and n_curves <= _MAX_CURVES:
        ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)


def _thin_index(n: int, count: int) -> np.ndarray:
    """The positions of at most ``count`` of ``n`` values, evenly spread, always keeping both ends."""
    return np.arange(n) if n <= count else np.unique(np.linspace(0, n - 1, count).round().astype(int))


_HEATMAP_POINTS = 200
_MAX_FACETS = 6
_KINDS = ("curves", "heatmap")
_PARTNER = {"delta": "epsilon", "epsilon": "delta"}


@dataclass(frozen=True)
class Picture:
    """What a picture of a sweep draws (``choose_picture``).

    ``kind``: "curves" (the output against ``x``, one curve per value of ``second``, the hue) or
    "heatmap" (the output as colours over ``x`` and ``second``, the vertical axis); ``facet``: one
    panel per value of that axis; ``held``: every other axis, held at one value (its position on
    the axis); ``requested``: the values the caller sliced at (the others are held at their middle)."""

    kind: str
    x: str
    second: str | None
    facet: str | None
    held: dict[str, int]
    requested: dict[str, float]

    def counts(self, max_points: int) -> dict[str, int]:
        """How many values each drawn axis keeps (thinned evenly, both ends kept)."""
        counts = {self.x: min(max_points, _HEATMAP_POINTS)}
        if self.second is not None:
            counts[self.second] = _MAX_CURVES if self.kind == "curves" else min(max_points, _HEATMAP_POINTS)
        if self.facet is not None:
            counts[self.facet] = _MAX_FACETS
        return counts

    def describe_held(self, name: str, values: np.ndarray) -> str:
        """``name=value`` and where it sits on its axis: 'rounds=13 (middle of 11 values, 1..144)',
        'delta=1e-05 (of 1e-06, 1e-05)', 'rounds=100 (nearest to 50, of 1, 10, 100, 1000)'."""
        value = values[self.held[name]].item()
        span = (
            ", ".join(f"{v:g}" for v in values)
            if len(values) <= 4
            else f"{len(values)} values, {values[0]:g}..{values[-1]:g}"
        )
        if name not in self.requested:
            return f"{name}={value:g} (middle of {span})"
        asked = self.requested[name]
        nearest = "" if _same(value, asked) else f"nearest to {asked:g}, "
        return f"{name}={value:g} ({nearest}of {span})"


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0) or a == b


def choose_picture(
    output: str,
    axes: Mapping[str, np.ndarray],
    fixed: Mapping[str, Any] | None = None,
    *,
    x: str | None = None,
    y: str | None = None,
    hue: str | None = None,
    facet: str | None = None,
    slices: Mapping[str, float] | None = None,
    kind: str | None = None,
) -> Picture:
    """The picture of a sweep with output ``output`` over ``axes`` (name -> values) and ``fixed`` parameters.

    Every choice is optional; what is not chosen follows the natural picture:

    - output delta with an ``epsilon`` axis: delta-eps curves; output epsilon with a ``delta`` axis:
      epsilon against delta;
    - output delta or epsilon without that axis, over two axes of more than 8 values each: a heat map
      of the two longest (the longest vertical);
    - otherwise curves: the output against rounds where it is an axis, else against the longest axis;
    - curves get one curve per value of the longest other axis (at most 8, evenly thinned);
    - ``facet``: one panel per value of that axis (at most 6); ``slices`` (name -> value): hold an
      axis at the value nearest to the one given; every axis left over is held at its middle value.

    ``y`` names a heat map's vertical axis and ``hue`` the axis of the curves (each implies its kind).
    A name that is no axis of the sweep is refused with the closest one and the list of axes."""
    names = [str(n) for n in axes]
    fixed = dict(fixed or {})
    slices = dict(slices or {})
    if not names:
        raise ValueError("nothing to plot: the sweep has no axis (give a list or range for a parameter)")
    if kind is not None and kind not in _KINDS:
        raise ValueError(f"kind must be one of {', '.join(_KINDS)}, got {kind!r}")
    for name, value in list(slices.items()):
        if name in fixed and name not in axes:
            if not isinstance(value, (int, float)) or not _same(float(fixed[name]), float(value)):
                raise ValueError(
                    f"slice {name}={value}: {name} is fixed at {fixed[name]:g} in this sweep, not an axis; "
                    f"its axes: {', '.join(names)}"
                )
            del slices[name]  # the sweep holds it there already
    roles = [("x", x), ("y", y), ("hue", hue), ("facet", facet)] + [("slice", n) for n in slices]
    taken: dict[str, str] = {}
    for role, given in roles:
        if given is None:
            continue
        _check_axis(role, given, names, fixed)
        if given in taken:
            raise ValueError(f"{given!r} is both the {taken[given]} and the {role}: give each axis one role")
        taken[given] = role
    if y is not None and hue is not None:
        raise ValueError("y names a heat map's vertical axis and hue the axis of curves: give one of them")
    if kind == "curves" and y is not None:
        raise ValueError(f"y={y!r} is a heat map's vertical axis; curves draw the output on y: use hue={y!r}")
    if kind == "heatmap" and hue is not None:
        raise ValueError(f"hue={hue!r} draws curves; a heat map takes y={hue!r} for its vertical axis")
    free = [n for n in names if n not in slices and n != facet]
    partner = _PARTNER.get(output)
    length = {n: len(axes[n]) for n in names}
    longest = sorted(free, key=lambda n: -length[n])  # stable: ties keep the sweep's order
    if kind is None:
        # two axes too long for one curve per value of either: colours
        natural_heatmap = output in _PARTNER and partner not in free and len(free) >= 2
        natural_heatmap = natural_heatmap and length[longest[1]] > _MAX_CURVES
        kind = "heatmap" if y is not None or (hue is None and natural_heatmap) else "curves"
    across: str | None = x  # the horizontal axis, chosen here where not given
    if kind == "heatmap":
        if across is None:
            across = next((n for n in longest if n != y), None) if y is not None else next(iter(longest[1:2]), None)
        second = y if y is not None else next((n for n in longest if n != across), None)
        if across is None or second is None:
            raise ValueError(
                f"a heat map needs two axes besides the facet and the slices; this sweep has {', '.join(names)}"
                + (f" (sliced: {', '.join(slices)})" if slices else "")
            )
    else:
        if across is None:
            others = [n for n in free if n != hue]
            if not others:
                raise ValueError(
                    f"nothing left for the x axis: every axis of the sweep ({', '.join(names)}) has another role"
                )
            longest_other = max(others, key=lambda n: length[n])  # ties: the sweep's first
            across = partner if partner in others else "rounds" if "rounds" in others else longest_other
        second = hue if hue is not None else next((n for n in longest if n != across), None)
    drawn = {across, second, facet}
    held = {
        n: _slice_index(n, axes[n], slices[n]) if n in slices else len(axes[n]) // 2 for n in names if n not in drawn
    }
    return Picture(kind, across, second, facet, held, {n: float(v) for n, v in slices.items()})


def _check_axis(role: str, name: str, names: list[str], fixed: Mapping[str, Any]) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{role} must be the name of an axis of the sweep ({', '.join(names)}), got {name!r}")
    if name in names:
        return
    if name in fixed:
        value = fixed[name]
        shown = f"{value:g}" if isinstance(value, (int, float)) else repr(value)
        raise ValueError(
            f"{role} {name!r}: {name} is fixed at {shown} in this sweep, not an axis; its axes: {', '.join(names)}"
        )
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(f"{role} {name!r} is not an axis of this sweep{hint}; its axes: {', '.join(names)}")


def _slice_index(name: str, values: np.ndarray, value: float) -> int:
    """The position of the axis value nearest to ``value`` (relative distance on a positive axis)."""
    if not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
        raise ValueError(f"slice {name}={value!r}: give a finite number, one of the axis values")
    v = np.asarray(values, dtype=float)
    distance = np.abs(np.log(v / value)) if value > 0 and _positive(v) else np.abs(v - value)
    return int(np.argmin(distance))


@dataclass(frozen=True)
class _Choice:
    """The picture ``plot_grid`` and ``plot_dataset`` are asked for alike: the drawn axes (``x``, ``y``,
    ``hue``, ``facet``), the values held axes are sliced at, the kind (``choose_picture``'s keywords), and
    at most ``max_points`` values per drawn axis."""

    x: str | None
    y: str | None
    hue: str | None
    facet: str | None
    slices: Mapping[str, float] | None
    kind: str | None
    max_points: int

    def picture(
        self, output: str, axes: Mapping[str, np.ndarray], fixed: Mapping[str, Any]
    ) -> tuple[Picture, dict[str, int]]:
        """The picture of ``output`` over ``axes`` (``choose_picture``) and how many values each drawn axis keeps."""
        picture = choose_picture(
            output,
            axes,
            fixed,
            x=self.x,
            y=self.y,
            hue=self.hue,
            facet=self.facet,
            slices=self.slices,
            kind=self.kind,
        )
        return picture, picture.counts(self.max_points)


def plot_grid(
    grid: Any,
    path: str | os.PathLike[str],
    *,
    max_points: int = 200,
    levels: Sequence[float] | None = None,
    x: str | None = None,
    y: str | None = None,
    hue: str | None = None,
    facet: str | None = None,
    slices: Mapping[str, float] | None = None,
    kind: str | None = None,
) -> str:
    """The picture of a sweep (``choose_picture``: the natural one, or the axes, kind and slices given),
    from a sub-grid of at most ``max_points`` values per drawn axis, each held axis at its one value.

    The sub-grid is evaluated here and drawn as ``plot_dataset`` draws a saved sweep; the title names
    the fixed parameters and, apart, the held axes with their value and range."""
    axes = {a.name: a for a in grid.axes}
    choice = _Choice(x, y, hue, facet, slices, kind, max_points)
    picture, counts = choice.picture(grid.output, {n: a.values for n, a in axes.items()}, grid.fixed)
    sub_axes = tuple(
        Axis(n, a.values[[picture.held[n]]] if n in picture.held else a.values[_thin_index(len(a), counts[n])], a.kind)
        for n, a in axes.items()
    )
    sub = Grid(
        accountants=grid.accountants,
        output=grid.output,
        axes=sub_axes,
        fixed=dict(grid.fixed),
        bound=getattr(grid, "bound", "upper"),
    )
    # evaluated here, chunk by chunk, not through run_sweep: a picture is no sweep to plan or resume
    parts = [evaluate_chunk(sub, chunk) for chunk in sub.chunks(default_chunk_size(sub))]
    values = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    ds = to_dataset(sub, values).isel({n: 0 for n in picture.held})
    title_axes = {n: a.values for n, a in axes.items()}
    return _draw(ds, picture, path, title_axes, dict(grid.fixed), levels)


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
    ds: Any,
    path: str | os.PathLike[str],
    *,
    max_points: int = 200,
    levels: Sequence[float] | None = None,
    x: str | None = None,
    y: str | None = None,
    hue: str | None = None,
    facet: str | None = None,
    slices: Mapping[str, float] | None = None,
    kind: str | None = None,
) -> str:
    """The picture of a saved (or in-memory) sweep, from its labelled arrays alone.

    ``ds``: an ``xarray.Dataset`` as ``SweepResult.to_xarray()`` or ``sweep.read_sweep(path)`` gives.
    The picture follows ``choose_picture`` (the natural one, or the axes, kind and slices given); the
    title names the fixed parameters and, apart, the axes held at one value (sliced, or at their
    middle).  Every axis's scale is ``axis_scale``'s (log where the sweep's axis was log-spaced, or its
    listed values are positive and span more than 20x); a heat map gets contour lines at
    ``levels`` (default: the target epsilons 0.5 ... 8, or deltas, that the values cross), one per
    accountant for a sweep of several, with a legend; curves get a dotted line at each level.
    """
    main, _, _ = _main_variable(ds)
    dims = [str(d) for d in ds[main].dims]
    if not dims:
        raise ValueError("nothing to plot: the sweep has no axis (give a list or range for a parameter)")
    axes = {d: ds[d].values for d in dims}
    fixed = {str(k): ds[k].item() for k in ds.coords if ds[k].ndim == 0}
    choice = _Choice(x, y, hue, facet, slices, kind, max_points)
    picture, counts = choice.picture(_main_variable(ds)[1], axes, fixed)
    ds = ds.isel(picture.held).isel({d: _thin_index(ds.sizes[d], n) for d, n in counts.items()})
    return _draw(ds, picture, path, axes, fixed, levels)


def _draw(
    ds: Any,
    picture: Picture,
    path: str | os.PathLike[str],
    axes: Mapping[str, np.ndarray],
    fixed: Mapping[str, Any],
    levels: Sequence[float] | None,
) -> str:
    """Draw ``ds`` (its dimensions: the picture's drawn axes, thinned) as ``picture`` says."""
    main, output, accountants = _main_variable(ds)
    names = ds.attrs.get("accountants", "") or " / ".join(accountants)
    side = " (the upper side of the certified bracket)" if main.endswith("_upper") else ""
    lines = [(names.replace(",", " / ") + side).strip()]
    fixed_text = ", ".join(
        f"{k}={v:g}" for k, v in sorted(fixed.items()) if k not in axes and isinstance(v, (int, float))
    )
    if fixed_text:
        lines.append(textwrap.fill("fixed: " + fixed_text, 90))
    if picture.held:
        lines.append(textwrap.fill("sliced: " + "; ".join(picture.describe_held(n, axes[n]) for n in picture.held), 90))
    title = "\n".join(line for line in lines if line)
    facet = picture.facet
    panels = [ds] if facet is None else [ds.isel({facet: i}) for i in range(ds.sizes[facet])]
    if picture.kind == "heatmap":
        return _draw_heatmap(ds, panels, picture, main, output, accountants, path, title, levels)
    return _draw_curves(ds, panels, picture, main, output, path, title, levels)


def _draw_heatmap(
    ds: Any,
    panels: list[Any],
    picture: Picture,
    main: str,
    output: str,
    accountants: list[str],
    path: str | os.PathLike[str],
    title: str,
    levels: Sequence[float] | None,
) -> str:
    """The output as colours over (x, second), one panel per facet value, contour lines at ``levels``."""
    x, y, facet = picture.x, picture.second, picture.facet
    assert y is not None  # choose_picture gives a heat map two axes
    tables: list[np.ndarray] = [p[main].transpose(y, x).values for p in panels]
    finite = np.concatenate([t[np.isfinite(t)] for t in tables])
    if levels is None:
        levels = _default_levels(output, finite)
    elif not any(
        _levels_inside(p[f"{output}_{a}"].values if accountants else t, levels)
        for p, t in zip(panels, tables)
        for a in accountants or [output]
    ):
        raise ValueError(
            f"levels {', '.join(f'{v:g}' for v in levels)}: none lies within the values drawn "
            f"({finite.min():g} .. {finite.max():g}); give levels between them"
        )
    columns = [
        {a: p[f"{output}_{a}"].transpose(y, x).values for a in accountants} or {output: t}
        for p, t in zip(panels, tables)
    ]
    log_x, log_y = (axis_scale(ds[d].values, ds[d].attrs.get("spacing")) == "log" for d in (x, y))
    if facet is None:
        return heatmap(
            ds[x].values,
            ds[y].values,
            tables[0],
            path,
            xlabel=x,
            ylabel=y,
            zlabel=output,
            title=title,
            log_x=log_x,
            log_y=log_y,
            contours=columns[0],
            levels=levels,
        )
    fig, grid_axes = _panels(len(panels))
    norm = _colour_norm(tables)
    if norm is None and finite.size:
        from matplotlib.colors import Normalize

        norm = Normalize(finite.min(), finite.max())
    for ax, panel, table, column in zip(grid_axes, panels, tables, columns):
        mesh = _heatmap_on(ax, ds[x].values, ds[y].values, table, norm, log_x, log_y, column, levels, output)
        ax.set_title(f"{facet}={panel[facet].item():g}", fontsize=8)
    fig.colorbar(mesh, ax=grid_axes, label=output)
    return _finish_panels(fig, grid_axes, title, x, y, path)


def _draw_curves(
    ds: Any,
    panels: list[Any],
    picture: Picture,
    main: str,
    output: str,
    path: str | os.PathLike[str],
    title: str,
    levels: Sequence[float] | None,
) -> str:
    """The output against x, one curve per hue value, one panel per facet value, dotted lines at ``levels``."""
    x, facet = picture.x, picture.facet
    curves_of = [_curves(p, main, x, picture.second) for p in panels]
    along_epsilon = output == "delta" and x == "epsilon"
    ylabel = (
        "delta(epsilon)"
        if output == "delta"
        else "epsilon(delta)"
        if output == "epsilon"
        else f"{output} needed for (epsilon, delta)"
    )
    spacing = ds[x].attrs.get("spacing")
    if facet is None:
        if along_epsilon:
            return delta_epsilon_curves(ds[x].values, curves_of[0], path, title=title, levels=levels, x_spacing=spacing)
        return parameter_curves(
            ds[x].values, curves_of[0], path, xlabel=x, ylabel=ylabel, title=title, levels=levels, x_spacing=spacing
        )
    fig, grid_axes = _panels(len(panels))
    for ax, panel, curves in zip(grid_axes, panels, curves_of):
        if along_epsilon:
            _delta_epsilon_on(ax, ds[x].values, curves, levels, x_spacing=spacing)
        else:
            _parameter_curves_on(ax, ds[x].values, curves, x, ylabel, levels, x_spacing=spacing)
        ax.set_title(f"{facet}={panel[facet].item():g}", fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    if 1 < len(curves_of[0]) + bool(levels) and len(curves_of[0]) <= _MAX_CURVES:
        grid_axes[0].legend(fontsize=7)
    return _finish_panels(fig, grid_axes, title, x, ylabel, path)


def _curves(panel: Any, main: str, x: str, hue: str | None) -> dict[str, np.ndarray]:
    """The output along ``x``, one curve per value of ``hue`` labelled 'hue=value' (or one, named after it)."""
    if hue is None:
        return {main: panel[main].values}
    table = panel[main].transpose(x, hue).values
    return {f"{hue}={v:g}": table[:, i] for i, v in enumerate(panel[hue].values)}


def _panels(count: int) -> tuple[Any, list[Any]]:
    """A figure of ``count`` panels sharing their axes, at most 3 a row; the unused cells left out."""
    require_extra("drawing a plot", "matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    columns = min(3, count)
    rows = -(-count // columns)
    fig = Figure(figsize=(1.0 + 4.0 * columns, 1.2 + 3.2 * rows), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False).ravel()
    for unused in grid[count:]:
        unused.remove()
    return fig, list(grid[:count])


def _finish_panels(
    fig: Any, axes: list[Any], title: str, xlabel: str, ylabel: str, path: str | os.PathLike[str]
) -> str:
    fig.suptitle(title, fontsize=9)
    for ax in axes:
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.label_outer()
    return _save(fig, path)


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
    from ..simulate.frontier import frontier, mean_over_seeds

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
        _scale_axes(ax, y=np.concatenate([np.asarray(measured, float), np.asarray(marks["value"], float)]))
    _scale_axes(ax, x=frame["epsilon"])
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
