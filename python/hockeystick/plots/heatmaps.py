"""Heat maps: a quantity z[i, j] at (x[j], y[i]) as colours, cells centred on the axis values, with
contour lines of one array or several (one per accountant) at target levels."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from . import canvas
from .scales import axis_scale

__all__ = ["heatmap", "colour_norm", "heatmap_on", "levels_inside", "cell_edges"]

_CONTOUR_STYLES: tuple[Any, ...] = (
    "solid",
    "dashed",
    "dotted",
    "dashdot",
)  # one per array of contours


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
    """Draw a quantity over two axes as coloured cells, with contour lines at target levels, and save it as a PNG.

    Cell ``z[i, j]`` sits at ``(x[j], y[i])``, centred on the axis values (its edges midway between
    neighbours, geometric means on a log axis).  The colour scale is log where the positive finite
    values of ``z`` span more than 100x (non-positive cells left blank), else linear between the
    finite extremes; a colour bar labelled ``zlabel`` stands beside it.

    Parameters
    ----------
    x : array_like
        The horizontal axis's values, 1-D, ascending or descending (``z.shape[1]`` of them).
    y : array_like
        The vertical axis's values, 1-D, ascending or descending (``z.shape[0]`` of them).
    z : numpy.ndarray
        The quantity, shape ``(len(y), len(x))``; non-finite cells are left blank.
    path : str or os.PathLike
        The PNG to write; its directory must exist (an existing file is replaced).
    xlabel : str
        The horizontal axis's label.
    ylabel : str
        The vertical axis's label.
    zlabel : str
        The quantity's name: the colour bar's label and the contour lines' legend.
    title : str, optional
        The picture's title (default: none).
    log_x : bool or None, optional
        A log horizontal axis (True, where the values are positive) or a linear one (False); None
        (the default): ``axis_scale`` of the values.
    log_y : bool or None, optional
        The same for the vertical axis.
    contours : mapping of str to numpy.ndarray, optional
        Arrays shaped like ``z`` (one per accountant, say), by label, each drawn as white contour
        lines at the ``levels`` strictly between its smallest and largest finite value, one line
        style per array and a legend entry each (an array crossing no level gets neither).  Drawn
        only with ``levels`` and at least two values on each axis.
    levels : sequence of float, optional
        The contour levels (target epsilons, say).

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        If the directory of ``path`` does not exist.
    ImportError
        If matplotlib is not installed (``pip install "hockeystick[plot]"``).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from hockeystick.plots import heatmap
    >>> sigma, rounds = np.array([1.0, 2.0, 4.0]), np.array([1, 10, 100, 1000])
    >>> mu = np.sqrt(rounds)[:, None] / sigma[None, :]   # the Gaussian mechanism's mu over (rounds, sigma)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = heatmap(sigma, rounds, mu, os.path.join(folder, "mu.png"), xlabel="sigma", ylabel="rounds",
    ...                    zlabel="mu", contours={"gaussian": mu}, levels=[1.0, 4.0])
    ...     os.path.basename(path)
    'mu.png'
    """
    fig, ax = canvas.figure()
    z = np.asarray(z, dtype=float)
    mesh = heatmap_on(ax, x, y, z, colour_norm([z]), log_x, log_y, contours, levels, zlabel)
    fig.colorbar(mesh, ax=ax, label=zlabel)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    canvas.finish(ax, title, 0)
    return canvas.save(fig, path)


def colour_norm(panels: Sequence[np.ndarray]) -> Any:
    """A log colour scale shared by the panels when their normal positive values span more than 100x
    (else None).  Subnormal values (a certified delta below the double range is reported as the least
    positive double, 4.9e-324) are left out of the scale, which they would stretch over 300 decades;
    they take its lowest colour."""
    from matplotlib.colors import LogNorm  # lazy: matplotlib is an optional extra

    tiny = np.finfo(float).tiny
    finite = np.concatenate([z[np.isfinite(z) & (z >= tiny)] for z in panels])
    return (
        LogNorm(finite.min(), finite.max())
        if finite.size and finite.max() / finite.min() > 100
        else None
    )


def heatmap_on(
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
    """The heat map drawn on ``ax`` with its contour lines and their legend; returns the colour mesh."""
    mesh = _mesh(ax, x, y, z, norm, log_x, log_y)
    if contours and levels is not None and np.size(x) > 1 and np.size(y) > 1:
        handles = [
            _contour_lines(ax, x, y, i, label, values, levels, zlabel)
            for i, (label, values) in enumerate(contours.items())
        ]
        handles = [h for h in handles if h is not None]
        if handles:
            ax.legend(handles=handles, fontsize=7, loc="best")
    return mesh


def _mesh(
    ax: Any,
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    z: np.ndarray,
    norm: Any,
    log_x: bool | None,
    log_y: bool | None,
) -> Any:
    """The coloured cells (linear colours between the finite extremes where ``norm`` is None; a log
    norm leaves non-positive values blank), the axes' scales set (None: ``axis_scale`` of the
    values)."""
    from matplotlib.colors import LogNorm  # lazy: matplotlib is an optional extra

    finite = z[np.isfinite(z)]
    declared = {
        a: None if log is None else "log" if log else "linear"
        for a, log in (("x", log_x), ("y", log_y))
    }
    scales = {a: axis_scale(v, declared[a]) for a, v in (("x", x), ("y", y))}
    mesh = ax.pcolormesh(
        cell_edges(x, scales["x"]),
        cell_edges(y, scales["y"]),
        np.where(z > 0, z, np.nan) if isinstance(norm, LogNorm) else z,
        shading="flat",
        norm=norm,
        vmin=None if norm or not finite.size else finite.min(),
        vmax=None if norm or not finite.size else finite.max(),
        cmap="viridis",
    )
    ax.set_xscale(scales["x"])
    ax.set_yscale(scales["y"])
    return mesh


def _contour_lines(
    ax: Any,
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    index: int,
    label: str,
    values: np.ndarray,
    levels: Sequence[float],
    zlabel: str,
) -> Any:
    """The ``index``-th array's contour lines at the levels its values cross, in its line style, and
    its legend handle (None where no level is crossed)."""
    from matplotlib.lines import Line2D  # lazy: matplotlib is an optional extra

    values = np.asarray(values, dtype=float)
    inside = levels_inside(values, levels)
    if not inside:
        return None
    style = _CONTOUR_STYLES[index % len(_CONTOUR_STYLES)]
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
    return Line2D(
        [],
        [],
        color="black",
        linestyle=style,
        label=f"{label}: {zlabel} = " + ", ".join(f"{lv:g}" for lv in inside),
    )


def cell_edges(values: npt.ArrayLike, scale: str) -> np.ndarray:
    """The edges of the cells centred on ascending or descending ``values``: midway between
    neighbours on the axis's ``scale`` (geometric means on a log axis, so every decade's cells are
    as wide as the next's), the outer edges as far out as the nearest inner one (a lone value: a
    decade, or 1, around it)."""
    v = np.asarray(values, dtype=float).ravel()
    u = np.log10(v) if scale == "log" else v
    if u.size == 1:
        half = 0.5 if scale == "log" else 0.5 * max(abs(float(u[0])), 1.0)
        edges = np.array([u[0] - half, u[0] + half])
    else:
        middle = (u[:-1] + u[1:]) / 2
        edges = np.concatenate([[2 * u[0] - middle[0]], middle, [2 * u[-1] - middle[-1]]])
    return cast(np.ndarray, 10.0**edges if scale == "log" else edges)


def levels_inside(values: np.ndarray, levels: Sequence[float]) -> list[float]:
    """The levels strictly between the smallest and the largest finite value (the ones a contour crosses)."""
    finite = values[np.isfinite(values)]
    return sorted(lv for lv in levels if finite.size and finite.min() < lv < finite.max())
