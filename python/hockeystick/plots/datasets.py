"""The picture of a sweep: ``plot_dataset`` draws a saved (or in-memory) sweep from its labelled
arrays alone, ``plot_grid`` the same picture of a grid from a small sub-grid it evaluates itself;
both follow ``choose_picture`` and title the picture with the fixed parameters and the axes held at
one value."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..sweep.evaluation import default_chunk_size, evaluate_chunk
from ..sweep.grid import Axis, Grid
from ..sweep.labelled import to_dataset
from . import canvas, curves, heatmaps
from .picture import Choice, Picture, thin_index
from .scales import axis_scale

__all__ = ["plot_grid", "plot_dataset"]


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
    title: str | None = None,
) -> str:
    """Draw the picture of a grid from a small sub-grid it evaluates, and save it as a PNG.

    The picture is ``choose_picture``'s (the natural one, or the axes, kind and slices given).  The
    sub-grid keeps each held axis at its one value and thins each drawn axis evenly, both ends kept:
    at most ``min(max_points, 200)`` values across (and on a heat map's vertical axis), 8 curves, 6
    panels.  It is evaluated here, chunk by chunk (no plan, no file), and drawn as ``plot_dataset``
    draws a saved sweep; the title names the accountants, the fixed parameters and, apart, the held
    axes with their value and range.

    Parameters
    ----------
    grid : Grid
        The sweep (``hockeystick.sweep.Grid``).
    path : str or os.PathLike
        The PNG to write; its directory must exist (an existing file is replaced).
    max_points : int, optional
        At most this many values of the axis across and of a heat map's vertical axis (default 200,
        and never more than 200).
    levels : sequence of float, optional
        A heat map's contour levels (default: the target epsilons 0.5, 1, 2, 4, 8, or deltas 1e-10,
        1e-8, 1e-6, 1e-5, 1e-3, that the values cross); curves' dotted lines (default: none).
    x : str, optional
        The axis across.
    y : str, optional
        A heat map's vertical axis.
    hue : str, optional
        The axis of the curves, one per value.
    facet : str, optional
        An axis drawn as one panel per value.
    slices : mapping of str to float, optional
        Axes held at the value nearest to the one given.
    kind : {"curves", "heatmap"}, optional
        The kind of picture (None: the natural one).
    title : str, optional
        The heading, in the reader's words (default: the accountants' names and the certified side
        drawn); the fixed parameters and the held axes follow it.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        Any refusal of ``choose_picture`` (a role naming no axis, a contradictory request, ...);
        levels of a heat map none of which lies within the values drawn, or a level <= 0 on a log
        vertical axis; an accountant's refusal of a value of the sub-grid; the directory of ``path``
        does not exist.
    TypeError
        If a role is not a string.
    ImportError
        If matplotlib or xarray is not installed (``pip install "hockeystick[plot]"``).

    See Also
    --------
    plot_dataset : The same picture of a saved sweep, evaluated nothing again.

    Examples
    --------
    >>> import os, tempfile
    >>> from hockeystick.sweep import Grid
    >>> from hockeystick.plots import plot_grid
    >>> parameters = {"sigma": [1, 2, 4], "rounds": 10, "epsilon": "linear:0.1:8:20"}
    >>> grid = Grid.from_parameters("gaussian", "delta", parameters)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     os.path.basename(plot_grid(grid, os.path.join(folder, "grid.png"), levels=[1e-5]))
    'grid.png'
    """
    axes = {a.name: a for a in grid.axes}
    choice = Choice(x, y, hue, facet, slices, kind, max_points)
    picture, counts = choice.picture(
        grid.output, {n: a.values for n, a in axes.items()}, grid.fixed
    )
    sub_axes = tuple(
        Axis(
            n,
            a.values[[picture.held[n]]]
            if n in picture.held
            else a.values[thin_index(len(a), counts[n])],
            a.kind,
        )
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
    return _draw(ds, picture, path, title_axes, dict(grid.fixed), levels, title)


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
    title: str | None = None,
) -> str:
    """Draw the picture of a saved (or in-memory) sweep from its labelled arrays alone, and save it as a PNG.

    Nothing is evaluated again.  The picture follows ``choose_picture`` (the natural one, or the
    axes, kind and slices given); each drawn axis is thinned evenly, both ends kept (at most
    ``min(max_points, 200)`` values across and on a heat map's vertical axis, 8 curves, 6 panels).
    The variable drawn is the output (the best-of column for several accountants, the first one's
    column for several calculators; where both sides of the certified bracket were swept, curves
    draw each lower side dashed beside its upper side and a heat map colours the upper side under
    both sides' contour lines). The title names the accountants (or ``title``), the fixed parameters
    and, apart, the axes held at one value (sliced, or at their middle).  Every axis's scale is
    ``axis_scale``'s: the sweep's spacing where its coordinate records one (a log-spaced axis on a
    log scale), else log where the values are positive and span more than 20x.  A heat map gets
    contour lines at ``levels``, one line style per accountant for a sweep of several, with a
    legend; curves get a dotted line at each level.

    Parameters
    ----------
    ds : xarray.Dataset
        The sweep, as ``SweepResult.to_xarray()`` or ``sweep.read_sweep(path)`` gives it.
    path : str or os.PathLike
        The PNG to write; its directory must exist (an existing file is replaced).
    max_points : int, optional
        At most this many values of the axis across and of a heat map's vertical axis (default 200,
        and never more than 200).
    levels : sequence of float, optional
        A heat map's contour levels (default: the target epsilons 0.5, 1, 2, 4, 8, or deltas 1e-10,
        1e-8, 1e-6, 1e-5, 1e-3, that the values cross); curves' dotted lines (default: none).
    x : str, optional
        The axis across.
    y : str, optional
        A heat map's vertical axis.
    hue : str, optional
        The axis of the curves, one per value.
    facet : str, optional
        An axis drawn as one panel per value.
    slices : mapping of str to float, optional
        Axes held at the value nearest to the one given.
    kind : {"curves", "heatmap"}, optional
        The kind of picture (None: the natural one).
    title : str, optional
        The heading, in the reader's words (default: the accountants' names and the certified side
        drawn); the fixed parameters and the held axes follow it.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        If ``ds`` holds no output variable or its output has no axis; any refusal of
        ``choose_picture``; levels of a heat map none of which lies within the values drawn, or a
        level <= 0 on a log vertical axis; the directory of ``path`` does not exist.
    TypeError
        If a role is not a string.
    ImportError
        If matplotlib is not installed (``pip install "hockeystick[plot]"``).

    Examples
    --------
    >>> import os, tempfile
    >>> from hockeystick.sweep import Grid, run_sweep
    >>> from hockeystick.plots import plot_dataset
    >>> parameters = {"sigma": [1, 2, 4], "rounds": 10, "epsilon": "linear:0.1:8:20"}
    >>> grid = Grid.from_parameters("gaussian", "delta", parameters)
    >>> ds = run_sweep(grid, progress=False).to_xarray()
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     os.path.basename(plot_dataset(ds, os.path.join(folder, "sweep.png"), hue="sigma"))
    'sweep.png'
    """
    main, _, _ = _main_variable(ds)
    dims = [str(d) for d in ds[main].dims]
    if not dims:
        raise ValueError(
            "nothing to plot: the sweep has no axis (give a list or range for a parameter)"
        )
    axes = {d: ds[d].values for d in dims}
    fixed = {str(k): ds[k].item() for k in ds.coords if ds[k].ndim == 0}
    choice = Choice(x, y, hue, facet, slices, kind, max_points)
    picture, counts = choice.picture(_main_variable(ds)[1], axes, fixed)
    ds = ds.isel(picture.held).isel({d: thin_index(ds.sizes[d], n) for d, n in counts.items()})
    return _draw(ds, picture, path, axes, fixed, levels, title)


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
        n[len(output) + 1 :]
        for n in names
        if n.startswith(output + "_") and not n.endswith(("_lower", "_upper"))
    ]
    return main, output, accountants


# the target values a heat map's contour lines are drawn at, where the values cross them
_DEFAULT_LEVELS = {"epsilon": [0.5, 1.0, 2.0, 4.0, 8.0], "delta": [1e-10, 1e-8, 1e-6, 1e-5, 1e-3]}


def _default_levels(output: str, values: np.ndarray) -> list[float]:
    """Target epsilons (0.5 ... 8) or deltas (1e-10 ... 1e-3) that the values cross."""
    finite = values[np.isfinite(values)]
    return [
        c
        for c in _DEFAULT_LEVELS.get(output, [])
        if finite.size and finite.min() < c < finite.max()
    ]


def _draw(
    ds: Any,
    picture: Picture,
    path: str | os.PathLike[str],
    axes: Mapping[str, np.ndarray],
    fixed: Mapping[str, Any],
    levels: Sequence[float] | None,
    heading: str | None = None,
) -> str:
    """Draw ``ds`` (its dimensions: the picture's drawn axes, thinned) as ``picture`` says, under
    ``heading`` (default: the accountants and the side drawn)."""
    main, output, accountants = _main_variable(ds)
    names = ds.attrs.get("accountants", "") or " / ".join(accountants)
    lines = [heading or (names.replace(",", " / ") + _side_words(ds, main, picture.kind)).strip()]
    fixed_text = ", ".join(
        f"{k}={v:g}"
        for k, v in sorted(fixed.items())
        if k not in axes and isinstance(v, (int, float))
    )
    if fixed_text:
        lines.append(textwrap.fill("fixed: " + fixed_text, 90))
    if picture.held:
        lines.append(
            textwrap.fill(
                "sliced: " + "; ".join(picture.describe_held(n, axes[n]) for n in picture.held), 90
            )
        )
    title = "\n".join(line for line in lines if line)
    facet = picture.facet
    panels = [ds] if facet is None else [ds.isel({facet: i}) for i in range(ds.sizes[facet])]
    if picture.kind == "heatmap":
        return _draw_heatmap(ds, panels, picture, main, output, accountants, path, title, levels)
    return _draw_curves(ds, panels, picture, main, output, path, title, levels)


def _side_words(ds: Any, main: str, kind: str) -> str:
    """What the title says of the certified side drawn: nothing for a sweep of one side (the upper,
    unless told), the upper side of a heat map of both, the bracket of curves of both."""
    if not main.endswith("_upper"):
        return ""
    if _lower_side(ds, main) is not None:
        if kind == "curves":
            return " (the certified bracket: the upper side solid, the lower dashed)"
        return " (colours: the upper side of the certified bracket; contours: both sides)"
    return " (the upper side of the certified bracket)"


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
    x, y = picture.x, picture.second
    assert y is not None  # choose_picture gives a heat map two axes
    tables: list[np.ndarray] = [p[main].transpose(y, x).values for p in panels]
    finite = np.concatenate([t[np.isfinite(t)] for t in tables])
    levels = _heatmap_levels(panels, tables, output, accountants, levels, finite)
    low = _lower_side(
        ds, main
    )  # both sides swept: contour lines of each, the colours the upper side's
    columns = [
        {a: p[f"{output}_{a}"].transpose(y, x).values for a in accountants}
        or (
            {output: t}
            if low is None
            else {"upper side": t, "lower side": p[low].transpose(y, x).values}
        )
        for p, t in zip(panels, tables)
    ]
    log_x, log_y = (axis_scale(ds[d].values, ds[d].attrs.get("spacing")) == "log" for d in (x, y))
    if picture.facet is None:
        return heatmaps.heatmap(
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
    fig, grid_axes = canvas.panels(len(panels))
    norm = _panels_norm(tables, finite)
    for ax, panel, table, column in zip(grid_axes, panels, tables, columns):
        mesh = heatmaps.heatmap_on(
            ax, ds[x].values, ds[y].values, table, norm, log_x, log_y, column, levels, output
        )
        ax.set_title(f"{picture.facet}={panel[picture.facet].item():g}", fontsize=8)
    fig.colorbar(mesh, ax=grid_axes, label=output)
    return canvas.finish_panels(fig, grid_axes, title, x, y, path)


def _heatmap_levels(
    panels: list[Any],
    tables: list[np.ndarray],
    output: str,
    accountants: list[str],
    levels: Sequence[float] | None,
    finite: np.ndarray,
) -> Sequence[float]:
    """The contour levels: the default targets the values cross, or the ones given where at least
    one of them lies within some panel's values (each accountant's column, or the output's)."""
    if levels is None:
        return _default_levels(output, finite)
    if not any(
        heatmaps.levels_inside(p[f"{output}_{a}"].values if accountants else t, levels)
        for p, t in zip(panels, tables)
        for a in accountants or [output]
    ):
        raise ValueError(
            f"levels {', '.join(f'{v:g}' for v in levels)}: none lies within the values drawn "
            f"({finite.min():g} .. {finite.max():g}); give levels between them"
        )
    return levels


def _panels_norm(tables: list[np.ndarray], finite: np.ndarray) -> Any:
    """One colour scale for every panel: log where the values span more than 100x, else linear
    between the finite extremes (None: no finite value)."""
    norm = heatmaps.colour_norm(tables)
    if norm is None and finite.size:
        from matplotlib.colors import Normalize  # lazy: matplotlib is an optional extra

        norm = Normalize(finite.min(), finite.max())
    return norm


# the vertical axis's label of curves, by output (a calibrated parameter: what the targets need)
_CURVES_YLABEL = {"delta": "delta(epsilon)", "epsilon": "epsilon(delta)"}


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
    low = _lower_side(ds, main)  # both sides swept: each curve's lower side dashed beside it
    label = None if low is None else "upper side"
    curves_of = [_panel_curves(p, main, x, picture.second, label) for p in panels]
    lowers = [
        None if low is None else _panel_curves(p, low, x, picture.second, label) for p in panels
    ]
    along_epsilon = output == "delta" and x == "epsilon"
    ylabel = _CURVES_YLABEL.get(output, f"{output} needed for (epsilon, delta)")
    spacing = ds[x].attrs.get("spacing")
    if facet is None:
        if along_epsilon:
            return curves.delta_epsilon_curves(
                ds[x].values,
                curves_of[0],
                path,
                title=title,
                levels=levels,
                x_spacing=spacing,
                lower=lowers[0],
            )
        return curves.parameter_curves(
            ds[x].values,
            curves_of[0],
            path,
            xlabel=x,
            ylabel=ylabel,
            title=title,
            levels=levels,
            x_spacing=spacing,
            lower=lowers[0],
        )
    fig, grid_axes = canvas.panels(len(panels))
    for ax, panel, drawn, below in zip(grid_axes, panels, curves_of, lowers):
        if along_epsilon:
            curves.delta_epsilon_on(ax, ds[x].values, drawn, levels, x_spacing=spacing, lower=below)
        else:
            curves.parameter_curves_on(
                ax, ds[x].values, drawn, x, ylabel, levels, x_spacing=spacing, lower=below
            )
        ax.set_title(f"{facet}={panel[facet].item():g}", fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    if 1 < len(curves_of[0]) + bool(levels) and len(curves_of[0]) <= canvas.MAX_CURVES:
        grid_axes[0].legend(fontsize=7)
    return canvas.finish_panels(fig, grid_axes, title, x, ylabel, path)


def _lower_side(ds: Any, main: str) -> str | None:
    """The variable of the lower side beside ``main``, the upper one, where both sides were swept; else None."""
    name = main.removesuffix("_upper") + "_lower"
    return name if main.endswith("_upper") and name in ds.data_vars else None


def _panel_curves(
    panel: Any, variable: str, x: str, hue: str | None, label: str | None = None
) -> dict[str, np.ndarray]:
    """The ``variable`` along ``x``, one curve per value of ``hue`` labelled 'hue=value' (or one,
    named ``label``, by default the variable: a lower side's curves carry the labels of the upper
    side's)."""
    if hue is None:
        return {label or variable: panel[variable].values}
    table = panel[variable].transpose(x, hue).values
    return {f"{hue}={v}": table[:, i] for i, v in enumerate(_short_labels(panel[hue].values))}


def _short_labels(values: np.ndarray) -> list[str]:
    """Each value in the fewest significant digits, 3 to 6, that set its label apart from every
    other value's at those digits: 0.0973 and 0.186 for a log axis's 0.0973031 and 0.185888, 1.0001
    beside 1.0002."""
    labels = []
    for v in values:
        digits = next(
            (d for d in range(3, 7) if all(f"{v:.{d}g}" != f"{w:.{d}g}" for w in values if w != v)),
            None,
        )
        labels.append(f"{v:g}" if digits is None else f"{v:.{digits}g}")
    return labels if len(set(labels)) == len(labels) else [f"{v:g}" for v in values]
