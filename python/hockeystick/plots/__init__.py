"""Pictures of privacy guarantees: delta-eps curves, sigma needed vs rounds, heat maps over two axes.

matplotlib is imported only when a picture is drawn (``pip install "hockeystick[plot]"``),
through its object-oriented API (Figure + Agg canvas): no pyplot state, no GUI backend.
``plot_dataset`` draws the natural picture of a sweep from its labelled arrays (a saved file read
with ``sweep.read_sweep``: nothing is evaluated again); ``plot_grid`` draws the same picture of a
grid from a small sub-grid it evaluates itself (at most a few hundred values per axis).

The modules: ``canvas`` (figure, panels, saving), ``scales`` (the log-or-linear rule), ``curves``
(delta-eps and parameter curves), ``heatmaps``, ``picture`` (which picture of a sweep:
``choose_picture``), ``datasets`` (drawing a sweep), ``frontier`` (accuracy against epsilon),
``along_run`` (a run's bracket).
"""

from __future__ import annotations

from .along_run import curve_along_run
from .curves import delta_epsilon_curves, parameter_curves
from .datasets import plot_dataset, plot_grid
from .frontier import frontier_plot
from .heatmaps import heatmap
from .picture import Picture, choose_picture
from .scales import LOG_SPAN as LOG_SPAN  # the log-axis rule's ratio, read by callers of axis_scale
from .scales import axis_scale

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
