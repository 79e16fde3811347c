"""A run's certified bracket along its checkpoints: the upper and lower sides of epsilon (or delta) against
steps or epochs, the bracket shaded between them."""

from __future__ import annotations

import os

import numpy as np

from ..pld.reads.along_run import CurveAlongRun
from . import canvas
from .scales import positive

__all__ = ["curve_along_run"]


def curve_along_run(curve: CurveAlongRun, path: str | os.PathLike[str], *, title: str = "") -> str:
    """Draw a run's certified bracket of epsilon (or delta) against its checkpoints and save it as a PNG.

    The horizontal axis counts epochs where the run counts them (``curve.steps_per_epoch`` set), else
    steps; the upper side is drawn as a line (marked points where there are at most 30 checkpoints),
    the lower side dashed, the bracket between them shaded.  The vertical axis is log for delta where
    every finite lower value is positive, else linear.  A non-finite value (epsilon's upper side where
    delta is below what can be certified) is left out.

    Parameters
    ----------
    curve : hockeystick.pld.reads.along_run.CurveAlongRun
        The bracket after each checkpoint, as a PLD accountant's or a training run's ``epsilon_curve``
        (epsilon at a delta) or ``delta_curve`` (delta at an epsilon) gives it.
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
    fig, ax = canvas.figure()
    x = curve.steps if curve.steps_per_epoch is None else curve.epochs
    lower = np.where(np.isfinite(curve.lower), curve.lower, np.nan)
    upper = np.where(np.isfinite(curve.upper), curve.upper, np.nan)
    marker = "o" if len(curve) <= 30 else None
    line = ax.plot(x, upper, marker=marker, markersize=3, label="upper (certified)")[0]
    ax.plot(x, lower, linestyle="--", color=line.get_color(), label="lower (certified)")
    ax.fill_between(x, lower, upper, color=line.get_color(), alpha=0.2, linewidth=0)
    if curve.quantity == "delta" and positive(lower[np.isfinite(lower)]):
        ax.set_yscale("log")
    ax.set_xlabel("epochs" if curve.steps_per_epoch is not None else "steps")
    other = "delta" if curve.quantity == "epsilon" else "epsilon"
    ax.set_ylabel(f"{curve.quantity} at {other} = {curve.given:g}")
    canvas.finish(ax, title, 2)
    return canvas.save(fig, path)
