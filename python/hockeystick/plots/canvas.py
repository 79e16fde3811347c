"""The canvas of every picture: a matplotlib Figure on an Agg canvas (no pyplot state, no GUI
backend), one axes or a grid of panels, its title, grid lines and legend, saved as a PNG."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..base.optional import require_extra

__all__ = ["MAX_CURVES", "figure", "panels", "save", "finish", "finish_panels"]

MAX_CURVES = 8  # a picture draws at most this many curves, and names them in a legend


def figure() -> tuple[Any, Any]:
    """A figure of one axes (matplotlib imported here, on the first picture drawn)."""
    require_extra("drawing a plot", "matplotlib")
    from matplotlib.backends.backend_agg import (
        FigureCanvasAgg,
    )  # lazy: matplotlib is an optional extra
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.4), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def panels(count: int) -> tuple[Any, list[Any]]:
    """A figure of ``count`` panels sharing their axes, at most 3 a row; the unused cells left out."""
    require_extra("drawing a plot", "matplotlib")
    from matplotlib.backends.backend_agg import (
        FigureCanvasAgg,
    )  # lazy: matplotlib is an optional extra
    from matplotlib.figure import Figure

    columns = min(3, count)
    rows = -(-count // columns)
    fig = Figure(figsize=(1.0 + 4.0 * columns, 1.2 + 3.2 * rows), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False).ravel()
    for unused in grid[count:]:
        unused.remove()
    return fig, list(grid[:count])


def save(fig: Any, path: str | os.PathLike[str]) -> str:
    """``fig`` written to ``path`` (a PNG); its directory must exist.  Returns the path."""
    path = Path(path)
    if not path.parent.is_dir():
        raise ValueError(f"plot {str(path)!r}: directory {str(path.parent)!r} does not exist")
    fig.savefig(path)
    return os.fspath(path)


def finish(ax: Any, title: str, n_curves: int, *, levels: bool = False) -> None:
    """The title, the grid, and a legend where it names something: 2 to 8 curves, or level lines."""
    if title:
        ax.set_title(title, fontsize=9)
    if 1 < n_curves + levels and n_curves <= MAX_CURVES:
        ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)


def finish_panels(
    fig: Any, axes: list[Any], title: str, xlabel: str, ylabel: str, path: str | os.PathLike[str]
) -> str:
    """A figure of panels titled, each panel's labels on its outer edges only, saved to ``path``."""
    fig.suptitle(title, fontsize=9)
    for ax in axes:
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.label_outer()
    return save(fig, path)
