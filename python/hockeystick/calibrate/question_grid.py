"""The grid of a calibration given neither a grid nor an accuracy, chosen by the question: at a target delta below
``DELTA_FLOOR`` the fixed grid's round-off charges dominate its certified delta (DP-SGD at sigma 1.1, q 256/60000,
14100 steps, target (3, 1e-10): sigma 1.485 on the 1e-4 grid, 1.266 refined), so such a search is refined to the
default epsilon accuracy (``pld.refine.question``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..pld.grid import constants
from ..pld.refine import question
from ..registry import AccountantEntry

# the keywords that choose a grid: any of them given, the caller's grid is kept
_GRID_WORDS = ("value_discretization_interval", "accuracy", "tail")


def question_grid(entry: AccountantEntry, delta: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``params``, with ``accuracy=DEFAULT_ACCURACY`` added where the accountant takes ``accuracy``, no grid keyword
    is given, batches are drawn by Poisson sampling (the others take no ``accuracy``) and a target delta is below
    ``DELTA_FLOOR``."""
    if "accuracy" not in entry.parameters or any(params.get(w) is not None for w in _GRID_WORDS):
        return params
    if params.get("sampling", "poisson") != "poisson" or delta is None:
        return params
    try:
        least = float(np.min(np.asarray(delta, dtype=float)))
    except (TypeError, ValueError):  # the target's own checks word the refusal
        return params
    if not least < constants.DELTA_FLOOR:
        return params
    return {**params, "accuracy": question.DEFAULT_ACCURACY}
