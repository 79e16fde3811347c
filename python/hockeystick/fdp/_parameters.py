"""Checks shared by the f-DP and RDP accountants: every bad input raises ValueError naming the argument."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._elementwise import as_float_array


def _finite(name: str, arr: np.ndarray, allow_inf: bool) -> None:
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not be NaN")
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite")


def positive(name: str, value: npt.ArrayLike, *, allow_inf: bool = False) -> np.ndarray:
    """value > 0 everywhere."""
    arr = as_float_array(value, name)
    _finite(name, arr, allow_inf)
    if (arr <= 0).any():
        raise ValueError(f"{name} must be > 0 (got {arr[arr <= 0].flat[0]!r})")
    return arr


def nonnegative(name: str, value: npt.ArrayLike, *, allow_inf: bool = False) -> np.ndarray:
    """value >= 0 everywhere."""
    arr = as_float_array(value, name)
    _finite(name, arr, allow_inf)
    if (arr < 0).any():
        raise ValueError(f"{name} must be >= 0 (got {arr[arr < 0].flat[0]!r})")
    return arr


def positive_integer(name: str, value: npt.ArrayLike) -> np.ndarray:
    """Whole numbers >= 1, returned as float64 (they feed float kernels)."""
    arr = positive(name, value)
    if (arr != np.floor(arr)).any():
        raise ValueError(f"{name} must be a whole number (got {arr[arr != np.floor(arr)].flat[0]!r})")
    return arr


def probability(name: str, value: npt.ArrayLike, *, open_low: bool, open_high: bool) -> np.ndarray:
    """value in [0, 1], with either end excluded on request."""
    arr = as_float_array(value, name)
    _finite(name, arr, allow_inf=False)
    low_bad = arr <= 0 if open_low else arr < 0
    high_bad = arr >= 1 if open_high else arr > 1
    if (low_bad | high_bad).any():
        lo, hi = ("(" if open_low else "["), (")" if open_high else "]")
        raise ValueError(f"{name} must lie in {lo}0, 1{hi} (got {arr[low_bad | high_bad].flat[0]!r})")
    return arr


def choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(repr(a) for a in allowed)} (got {value!r})")
    return value


def broadcast(**named: np.ndarray) -> dict[str, np.ndarray]:
    """Broadcast the named arrays together; a shape mismatch names every argument."""
    try:
        arrays = np.broadcast_arrays(*named.values())
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in named.items())
        raise ValueError(f"parameter shapes do not broadcast together: {shapes}") from None
    return dict(zip(named, arrays))


def scalar_or_array(arr: np.ndarray) -> float | np.ndarray:
    """0-d results come back as Python floats, like the rest of the library."""
    return float(arr) if np.ndim(arr) == 0 else arr
