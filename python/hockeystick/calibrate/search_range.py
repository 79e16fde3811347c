"""The values a calibration's search may evaluate per target: the parameter's range, open ends
nudged inside, and how far from its start the bracket may move on an unbounded end."""

from __future__ import annotations

import numpy as np

from ..registry import Calibratable

SPAN = 1e300  # how far (as a ratio) the bracket may move from the start before giving up
INTEGER_SPAN = 2.0**52  # ... for integer parameters (exact in double precision)


def search_range(
    spec: Calibratable, params: dict[str, float | np.ndarray], n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per point, the smallest and largest value the search may evaluate (open ends nudged inside)."""
    lower = spec.lower
    bound = spec.upper(params) if callable(spec.upper) else spec.upper  # type: ignore[arg-type]
    upper = np.broadcast_to(np.asarray(bound, float), (n,))
    if spec.integer:
        low = max(np.ceil(lower), 1.0) if lower > 0 else 1.0
        upper = np.floor(upper)
    else:
        low = lower if lower > 0 else np.finfo(float).tiny ** 0.25
    return np.full(n, low), upper.copy()
