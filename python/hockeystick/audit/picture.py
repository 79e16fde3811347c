"""The picture of an audit: the empirical ROC and its confidence band over the certified trade-off band.

Log-log axes (FPR, TPR), where privacy attacks are judged at low FPR (Carlini et al. 2022):

* the certified band: the accountant's TPR bracket [lower, upper] at each FPR (``risk.tpr_at_fpr``,
  bound="both"); no attack on a mechanism the accountant describes rises above its upper edge;
* the empirical ROC: the hull of the canary scores' threshold tests;
* its confidence band: at every in-canary's score on the hull and a spread of others, the corners
  (FPR_up, TPR_low) and (FPR_low, TPR_up) of the Clopper-Pearson limits, all at significance / (2
  n_in) per limit (``Simultaneous()``), joined into envelopes (the true ROC does not decrease): with
  probability 1 - significance the true ROC lies above the lower edge at those corners; a lower edge
  above the certified band refutes the accountant.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import risk
from ..base import validation as _validation
from ..base.optional import require_extra
from ._checks import accountant_value, significance_level
from .scores import as_scores
from .tails import clopper_pearson_lower, clopper_pearson_upper

__all__ = ["plot_audit"]

_BAND_POINTS = (
    400  # thresholds of the confidence band (the hull's vertices and a spread of in-scores)
)


def plot_audit(
    scores: Any,
    out_scores: Any = None,
    *,
    accountant: Any,
    significance: Any = 0.05,
    direction: Any = "symmetric",
    path: str | os.PathLike[str] | None = None,
) -> Any:
    """Draw the empirical ROC with its confidence band over the accountant's certified TPR band.

    On log-log axes (FPR, TPR): the accountant's certified TPR bracket [lower, upper] at 200 FPRs
    from 0.5 / n_out to 1 (``risk.tpr_at_fpr``, ``bound="both"``; no attack on a mechanism the
    accountant describes rises above its upper edge), the ROC hull of the scores, and its confidence
    band: at every in-canary's score on the hull and up to 400 in-scores spread over their range,
    the corners (FPR_up, TPR_low) and (FPR_low, TPR_up) of Clopper-Pearson limits at significance /
    (2 n_in) each, joined into envelopes. With probability at least 1 - significance the true ROC
    lies above the lower edge at those corners; a lower edge above the certified band refutes the
    accountant.

    Parameters
    ----------
    scores : Scores or array_like
        The canary scores (``Scores``), or the held-in scores with ``out_scores``.
    out_scores : array_like, optional
        The held-out scores when ``scores`` is an array.
    accountant : Accountant
        The run's accountant, with scalar parameters (one mechanism).
    significance : float, optional
        The confidence band's level, in (0, 1) (default 0.05).
    direction : {"symmetric", "remove", "add"}, optional
        The certified curve's direction (default "symmetric"; "remove" and "add" need a PLD
        accountant that keeps its directions).
    path : str or os.PathLike, optional
        Where to save the picture (PNG, PDF, SVG by its suffix); default None: not saved.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (on an Agg canvas: no window opens).

    Raises
    ------
    ValueError
        If the scores are refused (``as_scores``), ``significance`` is outside (0, 1), ``direction``
        is not one of its values or not one the accountant keeps, or ``path`` does not end in .png,
        .pdf or .svg or its directory does not exist.
    ParameterTypeError
        If ``accountant`` is not an accountant, ``significance`` is a string, a boolean or None, or
        ``path`` is not a str or os.PathLike.
    MissingExtraError
        If matplotlib is not installed (the ``plot`` extra).

    References
    ----------
    Carlini et al. 2022 (attacks judged at low FPR, on log-log axes).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from hockeystick import audit, registry
    >>> rng = np.random.default_rng(0)
    >>> held_in, held_out = rng.normal(1.0, 1.0, 2000), rng.normal(0.0, 1.0, 2000)
    >>> accountant = registry.get("gaussian").build(sigma=1.0)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     figure = audit.plot_audit(held_in, held_out, accountant=accountant, path=os.path.join(folder, "audit.png"))
    ...     os.path.exists(os.path.join(folder, "audit.png"))
    True
    """
    data = as_scores(scores, out_scores)
    s = significance_level(significance)
    accountant = accountant_value(accountant)
    side = _validation.choice(direction, "direction", risk.DIRECTIONS)
    if path is not None:
        _check_path(path)
    require_extra("drawing an audit", "matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # lazy: the plot extra
    from matplotlib.figure import Figure  # lazy: the plot extra

    floor = 0.5 / data.n_out
    fprs = np.geomspace(floor, 1.0, 200)
    low, up = (
        np.asarray(v, dtype=np.float64)
        for v in risk.tpr_at_fpr(accountant, fprs, bound="both", direction=side)
    )
    hull = data.hull
    spread = data.held_in[np.unique(np.linspace(0, data.n_in - 1, _BAND_POINTS).astype(np.int64))]
    thresholds = np.unique(
        np.concatenate([hull.thresholds[np.isin(hull.thresholds, data.held_in)], spread])
    )
    tp, fp = data.counts(thresholds)
    per = s / (2 * data.n_in)
    n_in, n_out = np.int64(data.n_in), np.int64(data.n_out)
    corners = {
        "low": (clopper_pearson_upper(fp, n_out, per), clopper_pearson_lower(tp, n_in, per)),
        "up": (clopper_pearson_lower(fp, n_out, per), clopper_pearson_upper(tp, n_in, per)),
    }

    fig = Figure(figsize=(6.4, 4.8), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    # the bracket is often narrower than a line: its edges are drawn as lines, each with its own
    # legend entry, and the band between them is shaded without one
    ax.fill_between(fprs, np.maximum(low, floor), up, color="tab:blue", alpha=0.25, linewidth=0)
    ax.plot(
        fprs, up, color="tab:blue", linewidth=1.2, label="certified TPR, upper (no attack above)"
    )
    ax.plot(
        fprs,
        np.maximum(low, floor),
        color="tab:blue",
        linewidth=1.0,
        linestyle="--",
        label="certified TPR, lower (under the upper where they meet)",
    )
    ax.plot(
        np.maximum(hull.fp / n_out, floor),
        hull.tp / n_in,
        color="black",
        linewidth=1.2,
        label="empirical ROC (hull)",
    )
    # the edges as envelopes: the TPR at FPR x is at least every lower limit at an FPR upper limit
    # <= x, at most every upper limit at an FPR lower limit >= x (the true ROC does not decrease)
    x_low, y_low = corners["low"]
    order = np.argsort(x_low, kind="stable")
    x_up, y_up = corners["up"]
    reverse = np.argsort(x_up, kind="stable")[::-1]
    edges = {
        "lower": (x_low[order], np.maximum.accumulate(y_low[order]), "-"),
        "upper": (x_up[reverse], np.minimum.accumulate(y_up[reverse]), ":"),
    }
    for name, (x, y, style) in edges.items():
        ax.plot(
            np.maximum(x, floor),
            np.maximum(y, floor),
            color="tab:red",
            linestyle=style,
            linewidth=1.0,
            drawstyle="steps-post" if name == "lower" else "steps-pre",
            label=f"{1 - s:g} band, {name} edge",
        )
    ax.plot(fprs, fprs, color="grey", linewidth=0.8, linestyle="--", label="guessing")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(floor, 1.0)
    ax.set_ylim(floor, 1.05)
    ax.set_xlabel("false-positive rate")
    ax.set_ylabel("true-positive rate")
    ax.set_title(f"canary audit: {data.n_in} in, {data.n_out} out ({side})")
    ax.legend(loc="lower right", fontsize="small")
    if path is not None:
        fig.savefig(path)
    return fig


def _check_path(path: Any) -> None:
    """A picture's path: a str or os.PathLike with a suffix matplotlib writes, in an existing directory."""
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise _validation.ParameterTypeError(
            f"path must be a file name (str or os.PathLike), got {_validation.describe(path)} ({type(path).__name__})"
        )
    name = os.fsdecode(os.fspath(path))
    if os.path.splitext(name)[1].lower() not in (".png", ".pdf", ".svg"):
        raise ValueError(f"path {name!r} must end in .png, .pdf or .svg (the picture's format)")
    if not os.path.isdir(os.path.dirname(os.path.abspath(name))):
        raise ValueError(f"path {name!r}: its directory does not exist")
