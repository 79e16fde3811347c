"""Validation of the theorems' parameters: each failure is a ValueError naming the rule.

Checks run on the arrays as the user gave them (before broadcasting), so a
10^7-point grid built from short axes costs only the axes' sizes to check.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._elementwise import as_float_array


def _numeric_kind(value: npt.ArrayLike, name: str) -> None:
    """Refuse what numpy would quietly turn into a number: strings ("1000" -> 1000.0) and bools (True -> 1.0)."""
    kind = np.asarray(value).dtype.kind if not isinstance(value, (str, bytes)) else "U"
    if kind == "O":  # mixed sequences: look at the elements
        kinds = {np.asarray(v).dtype.kind for v in np.asarray(value, dtype=object).ravel()}
        kind = next((k for k in kinds if k in "bUS"), "O")
    if kind in "bUS":
        what = "a bool" if kind == "b" else "a string"
        raise ValueError(f"{name} must be a real number or an array of real numbers (got {what}: {value!r})")


def real(value: npt.ArrayLike, name: str) -> np.ndarray:
    """float64 array with no NaN (numbers only: no strings, no bools)."""
    _numeric_kind(value, name)
    arr = as_float_array(value, name)
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not be NaN")
    return arr


def positive(value: npt.ArrayLike, name: str, *, finite: bool = True) -> np.ndarray:
    arr = real(value, name)
    if not (arr > 0).all():
        raise ValueError(f"{name} must be > 0 (got minimum {arr.min()!r})")
    if finite and not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    return arr


def nonnegative(value: npt.ArrayLike, name: str, *, finite: bool = True) -> np.ndarray:
    arr = real(value, name)
    if not (arr >= 0).all():
        raise ValueError(f"{name} must be >= 0 (got minimum {arr.min()!r})")
    if finite and not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    return arr


def positive_integer(value: npt.ArrayLike, name: str) -> np.ndarray:
    arr = positive(value, name)
    if not (arr == np.floor(arr)).all():
        raise ValueError(f"{name} must be a whole number (got {arr[arr != np.floor(arr)].flat[0]!r})")
    return arr


def epsilon_values(value: npt.ArrayLike) -> np.ndarray:
    """epsilon >= 0 (inf allowed: delta(inf) = 0)."""
    return nonnegative(value, "epsilon", finite=False)


def delta_values(value: npt.ArrayLike) -> np.ndarray:
    arr = real(value, "delta")
    if not ((arr > 0) & (arr < 1)).all():
        raise ValueError("delta must lie strictly between 0 and 1")
    return arr


def at_most(small: np.ndarray, large: np.ndarray, message: str) -> None:
    """Raise ValueError(message) unless small <= large everywhere (after broadcasting)."""
    if not np.all(small <= large):
        raise ValueError(message)


def smoothness_rate(learning_rate: np.ndarray, smoothness: npt.ArrayLike | None,
                    strong_convexity: npt.ArrayLike | np.ndarray = 0.0) -> None:
    """eta <= 2 / (beta + lambda): the gradient step is then non-expansive (lambda = 0)
    or an M-contraction (lambda > 0), the fact both papers' diameters rest on."""
    if smoothness is None:
        return
    beta = positive(smoothness, "smoothness")
    lam = nonnegative(strong_convexity, "strong_convexity")
    at_most(lam, beta, "strong_convexity must be <= smoothness (a beta-smooth function is at most beta-strongly convex)")
    at_most(learning_rate, 2.0 / (beta + lam),
            "learning_rate must be <= 2 / (smoothness + strong_convexity) (000 Thm 2: eta <= 2/beta; 002 eq. 14)")


def contraction_modulus(learning_rate: np.ndarray, smoothness: npt.ArrayLike,
                        strong_convexity: npt.ArrayLike) -> np.ndarray:
    """M = sqrt(1 - 2 eta beta lambda / (beta + lambda))  (002 eq. 14), after the checks above."""
    beta = positive(smoothness, "smoothness")
    lam = nonnegative(strong_convexity, "strong_convexity")
    smoothness_rate(learning_rate, beta, lam)
    return np.sqrt(np.maximum(0.0, 1.0 - 2.0 * learning_rate * beta * lam / (beta + lam)))


def broadcastable(**named: npt.ArrayLike | None) -> None:
    """Raise ValueError naming every argument and its shape unless the given ones broadcast together."""
    given = {k: np.shape(v) for k, v in named.items() if v is not None}
    try:
        np.broadcast_shapes(*given.values())
    except ValueError:
        shapes = ", ".join(f"{k} {s}" for k, s in given.items())
        raise ValueError(f"parameter shapes do not broadcast together: {shapes}; "
                         "give arrays of equal shape, scalars, or shapes numpy can broadcast") from None
