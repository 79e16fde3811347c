"""The papers' figures, recomputed: 000 Fig. 2 and 002 Figs. 2 and 3; paper 003's calibration tables.

``figure_curves()`` gives the data (one array of delta per curve, on a common
epsilon grid), ``write_figures(out_dir)`` draws them as PNG with matplotlib
(the optional ``plot`` extra, imported only here, only when drawing).

Parameters (from the captions):
  000 Fig. 2  Thm 2, eta = 0.5, L = 1, rho = 1, sigma = 1.5, n = 100, q = m/n in {0.1, 0.2, 0.3}.
              With q = 0.3, m = 30 does not divide n = 100: T = floor(100/30) = 3 rounds
              (the paper's closed form would use the exponent n/m = 10/3).
  002 Fig. 2  Thm 4 vs Prop 1, sigma = 2, L = 1, beta = 0.5, eta = 0.5, strong convexity 0
              (M = 1), D_K = 1, n = 40, i in {1, 20, 39}.
  002 Fig. 3  sigma = 1, strong convexity 0.2, eta = 0.7, L = 1, beta = 0.5, D_K = 1, n = 40,
              i in {20, 30, 39}.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..base.elementwise import FloatOrArray
from ..base.optional import require_extra
from ..contraction import PNSGDGaussian, PNSGDRenyiBaseline, TrustedAggregator
from .errata_003 import write_tables_and_figure

#: The epsilon grid the figures are drawn on.
FIGURE_EPSILONS = np.linspace(0.01, 3.0, 300)

FL_FIGURE = dict(n=100, sigma=1.5, learning_rate=0.5, lipschitz=1.0, radius=1.0)
FL_RATES = (0.1, 0.2, 0.3)
PNSGD_FIGURES = {
    "002_fig2": (
        dict(
            n=40, sigma=2.0, learning_rate=0.5, lipschitz=1.0, smoothness=0.5, strong_convexity=0.0
        ),
        (1, 20, 39),
    ),
    "002_fig3": (
        dict(
            n=40, sigma=1.0, learning_rate=0.7, lipschitz=1.0, smoothness=0.5, strong_convexity=0.2
        ),
        (20, 30, 39),
    ),
}
PNSGD_DIAMETER = 1.0


def federated_figure_curves(epsilon: np.ndarray = FIGURE_EPSILONS) -> dict[str, FloatOrArray]:
    """000 Fig. 2: delta(eps) of Theorem 2 for q = 0.1, 0.2, 0.3."""
    curves = {}
    for q in FL_RATES:
        m = round(q * FL_FIGURE["n"])
        curves[f"q = {q}"] = TrustedAggregator(batch_size=m, **FL_FIGURE).delta(epsilon)
    return curves


def pnsgd_figure_curves(
    name: str, epsilon: np.ndarray = FIGURE_EPSILONS
) -> dict[str, FloatOrArray]:
    """002 Fig. 2 or 3 (``name`` '002_fig2' / '002_fig3'): Theorem 4 and Proposition 1 per record i."""
    params, indices = PNSGD_FIGURES[name]
    curves = {}
    for i in indices:
        curves[f"Thm 4, i = {i}"] = PNSGDGaussian(index=i, diameter=PNSGD_DIAMETER, **params).delta(
            epsilon
        )
        curves[f"Prop 1, i = {i}"] = PNSGDRenyiBaseline(index=i, **params).delta(epsilon)
    return curves


def figure_curves(epsilon: np.ndarray = FIGURE_EPSILONS) -> dict[str, dict[str, FloatOrArray]]:
    """Every figure's curves: {'000_fig2': {...}, '002_fig2': {...}, '002_fig3': {...}}."""
    return {
        "000_fig2": federated_figure_curves(epsilon),
        **{name: pnsgd_figure_curves(name, epsilon) for name in PNSGD_FIGURES},
    }


_TITLES = {
    "000_fig2": "000 Fig. 2: FL with a trusted aggregator (Thm 2)\n"
    r"$\eta=0.5,\ L=1,\ \rho=1,\ \sigma=1.5,\ n=100$",
    "002_fig2": "002 Fig. 2: PNSGD, Thm 4 vs Prop 1\n"
    r"$\sigma=2,\ L=1,\ \beta=0.5,\ \eta=0.5,\ \rho=0,\ D=1,\ n=40$",
    "002_fig3": "002 Fig. 3: PNSGD, strongly convex\n"
    r"$\sigma=1,\ \rho=0.2,\ \eta=0.7,\ L=1,\ \beta=0.5,\ D=1,\ n=40$",
}


def write_figures(
    out_dir: str | Path, *, written: Callable[[Path], None] | None = None
) -> list[Path]:
    """Draw the three figures as PNG files in ``out_dir`` (created if needed), then paper 003's
    tables and figures (``errata_003.write_tables_and_figure``); return their paths.  ``written``:
    called with each path as soon as that file is written (``hockeystick figures`` lists them as
    they come).  Paper 003's tables and curves report their rows as ``hockeystick.base.progress``
    stages: wrap the call in ``progress.showing(True)`` for a bar per table on stderr."""
    require_extra("write_figures", "matplotlib")
    import matplotlib  # lazy: matplotlib is an optional extra

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, curves in figure_curves().items():
        fig, ax = plt.subplots(figsize=(6, 4.2))
        groups: list[str] = []  # one colour per record i (or per q), solid Thm / dashed Prop 1
        for label, delta in curves.items():
            group = label.split(", ")[-1]
            if group not in groups:
                groups.append(group)
            style = "--" if label.startswith("Prop") else "-"
            ax.semilogy(
                FIGURE_EPSILONS,
                np.maximum(delta, 1e-300),
                style,
                color=f"C{groups.index(group)}",
                label=label,
            )
        ax.set_ylim(bottom=max(ax.get_ylim()[0], 1e-40), top=2.0)
        ax.set_xlabel(r"$\varepsilon$")
        ax.set_ylabel(r"$\delta$")
        ax.set_title(_TITLES[name], fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = out / f"{name}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        paths.append(path)
        if written is not None:
            written(path)
    return paths + write_tables_and_figure(out, written=written)
