"""The privacy profile everything in ``risk`` is read from: an accountant's delta as a function of
eps >= 0 on the sides asked for (a side not asked is its trivial bound), and the sides of a result
picked as asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..base import validation as _validation
from ..base.accountant import Bound

# eps >= 0 -> (lower, upper) of one direction's delta there (zeros / ones for a side not asked)
DeltaSides = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def profiled(accountant: Any) -> Any:
    """``accountant`` itself, refused (``ParameterTypeError``) unless it has a callable ``.delta``:
    the privacy profile everything here is read from."""
    if not callable(getattr(accountant, "delta", None)):
        raise _validation.ParameterTypeError(
            "accountant must be an accountant with a .delta(epsilon, bound=...) method (for example "
            f"hockeystick.training.DPSGD(...) or a pld accountant), got {_validation.describe(accountant)} "
            f"({type(accountant).__name__}); build the accountant first"
        )
    return accountant


def picked_sides(low: np.ndarray, up: np.ndarray, side: Bound, scalar: bool) -> Any:
    """The side(s) ``side`` asks for of the bracket (low, up): one, or the tuple (lower, upper);
    floats for a scalar input."""
    pick = {"lower": (low,), "upper": (up,), "both": (low, up)}[side]
    out = tuple(float(v) if scalar else v for v in pick)
    return out if side == "both" else out[0]


def delta_sides(accountant: Any, side: Bound) -> DeltaSides:
    """eps -> (lower, upper) delta of ``accountant`` on the side(s) ``side`` asks for; a side not
    asked is its trivial bound (0 below, 1 above), so every later formula stays certified."""

    def sides(eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if side == "both":
            low, up = accountant.delta(eps, bound="both")
        elif side == "upper":
            up = accountant.delta(eps, bound="upper")
            low = np.zeros(eps.shape)
        else:
            low = accountant.delta(eps, bound="lower")
            up = np.ones(eps.shape)
        low, up = np.asarray(low, dtype=float), np.asarray(up, dtype=float)
        for values in (low, up):
            if values.shape != eps.shape:
                raise ValueError(
                    f"accountant must describe one mechanism (scalar parameters): its delta at "
                    f"{eps.size} epsilon values has shape {values.shape}; build one accountant per point"
                )
            if np.isnan(values).any():
                raise ValueError("accountant's delta must be a number, got NaN")
        # delta lies in [0, 1]: a side past either end (an upper bound rounded up past 1) is cut
        # there, still valid
        return np.clip(low, 0.0, 1.0), np.clip(up, 0.0, 1.0)

    return sides
