"""A run's certified bracket along its checkpoints: the upper and lower sides of epsilon (or delta)
against steps or epochs, the bracket shaded between them."""

from __future__ import annotations

import os

import numpy as np
import numpy.typing as npt

from ..pld.reads import CurveAlongRun
from . import canvas
from .scales import positive

__all__ = ["curve_along_run", "bracket_along_run"]


def curve_along_run(curve: CurveAlongRun, path: str | os.PathLike[str], *, title: str = "") -> str:
    """Draw a run's certified bracket of epsilon (or delta) against its checkpoints and save it as a PNG.

    The horizontal axis counts epochs where the run counts them (``curve.steps_per_epoch`` set),
    else steps; the upper side is drawn as a line (marked points where there are at most 30
    checkpoints), the lower side dashed, the bracket between them shaded.  The vertical axis is log
    for delta where every finite lower value is positive, else linear.  A non-finite value
    (epsilon's upper side where delta is below what can be certified) is left out.

    Parameters
    ----------
    curve : hockeystick.pld.reads.along_run.CurveAlongRun
        The bracket after each checkpoint, as a PLD accountant's or a training run's
        ``epsilon_curve`` (epsilon at a delta) or ``delta_curve`` (delta at an epsilon) gives it.
    path : str or os.PathLike
        The PNG to write; its directory must exist (an existing file is replaced).
    title : str, optional
        The picture's title (default: none).

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
    >>> from hockeystick.plots import curve_along_run
    >>> from hockeystick.pld.reads.along_run import CurveAlongRun
    >>> curve = CurveAlongRun(np.array([1, 10, 100]), np.array([0.1, 0.5, 1.0]), np.array([0.2, 0.8, np.inf]),
    ...                       "epsilon", 1e-5)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     os.path.basename(curve_along_run(curve, os.path.join(folder, "bracket.png"), title="a run"))
    'bracket.png'
    """
    across = curve.steps if curve.steps_per_epoch is None else curve.epochs
    other = "delta" if curve.quantity == "epsilon" else "epsilon"
    return bracket_along_run(
        across,
        curve.lower,
        curve.upper,
        path,
        xlabel="epochs" if curve.steps_per_epoch is not None else "steps",
        ylabel=f"{curve.quantity} at {other} = {curve.given:g}",
        log_y=curve.quantity == "delta",
        title=title,
    )


def bracket_along_run(
    x: npt.ArrayLike,
    lower: npt.ArrayLike | None,
    upper: npt.ArrayLike | None,
    path: str | os.PathLike[str],
    *,
    xlabel: str,
    ylabel: str,
    log_y: bool = False,
    title: str = "",
) -> str:
    """Draw the certified sides of a quantity along a run's checkpoints and save it as a PNG.

    The upper side is a line (marked points where there are at most 30 checkpoints), the lower side
    dashed in the same colour, the bracket between them shaded where both are given; a side that is
    None or has no finite value is not drawn (nor named in the legend).  The horizontal axis is
    linear: the checkpoints are counted (epochs or steps), not spread over decades.  With ``log_y``
    the vertical axis is log where every finite value drawn is positive.  A non-finite value is left
    out.

    Parameters
    ----------
    x : array_like
        The checkpoints (epochs or steps), 1-D.
    lower : array_like or None
        The certified lower side at each checkpoint (as long as ``x``), or None.
    upper : array_like or None
        The certified upper side at each checkpoint (as long as ``x``), or None.
    path : str or os.PathLike
        The PNG to write; its directory must exist (an existing file is replaced).
    xlabel : str
        The horizontal axis's label ("epochs", "steps").
    ylabel : str
        The vertical axis's label.
    log_y : bool, optional
        A log vertical axis where every finite value is positive (delta, say); default linear.
    title : str, optional
        The picture's title (default: none).

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        If neither side is given, or the directory of ``path`` does not exist.
    ImportError
        If matplotlib is not installed (``pip install "hockeystick[plot]"``).

    Examples
    --------
    >>> import os, tempfile
    >>> from hockeystick.plots.along_run import bracket_along_run
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = bracket_along_run([1, 2, 3], [0.4, 0.6, 0.7], [0.5, 0.7, 0.8], os.path.join(folder, "b.png"),
    ...                              xlabel="epochs", ylabel="epsilon at delta = 1e-05")
    ...     os.path.basename(path)
    'b.png'
    """
    if upper is None and lower is None:
        raise ValueError("give the lower side, the upper side or both: neither was given")
    drawn = _drawn_sides(upper, lower)
    fig, ax = canvas.figure()
    x = np.asarray(x, dtype=float)
    marker = "o" if x.size <= 30 else None
    colour = None
    for name, values in drawn.items():
        style = "-" if name == "upper" else "--"
        line = ax.plot(
            x,
            values,
            linestyle=style,
            color=colour,
            marker=marker,
            markersize=3,
            label=f"{name} (certified)",
        )
        colour = line[0].get_color()
    if len(drawn) == 2:
        ax.fill_between(x, drawn["lower"], drawn["upper"], color=colour, alpha=0.2, linewidth=0)
    finite = np.concatenate([v[np.isfinite(v)] for v in drawn.values()]) if drawn else np.array([])
    if log_y and finite.size and positive(finite):
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    canvas.finish(ax, title, 2)  # a legend names the sides drawn, one of them too
    return canvas.save(fig, path)


def _drawn_sides(upper: npt.ArrayLike | None, lower: npt.ArrayLike | None) -> dict[str, np.ndarray]:
    """The sides given with a finite value, by name (upper first), each as floats with a non-finite
    value as NaN (left out of its line)."""
    drawn = {}
    for name, values in (("upper", upper), ("lower", lower)):
        if values is not None:
            v = np.asarray(values, dtype=float)
            if np.isfinite(v).any():
                drawn[name] = np.where(np.isfinite(v), v, np.nan)
    return drawn
