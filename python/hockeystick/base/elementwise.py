"""Broadcasting front end shared by every element-wise call into ``_core``.

Inputs are converted to float64, broadcast together (numpy rules), made
C-contiguous only when they are not already, and handed to the compiled kernel,
which loops over the flat index with OpenMP and the GIL released.  Scalars in
give a Python float out.  Domain errors are raised by the kernel as ValueError
naming the argument and the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import validation as _validation
from .validation import as_real_array

ArrayLike = npt.ArrayLike
FloatOrArray = float | np.ndarray
# What gives an array back: any argument that is an array or a sequence (scalars give a float).
NonScalar = np.ndarray | Sequence[Any]


def as_float_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; strings, booleans and None raise ParameterTypeError naming ``name``."""
    return as_real_array(value, name)


def broadcast_shape(**named: ArrayLike) -> tuple[list[np.ndarray], tuple[int, ...], bool]:
    """Named inputs as float64 arrays (not broadcast), the shape they broadcast to, and whether all
    were scalars; shapes that do not broadcast raise ValueError naming each input's shape."""
    arrays = [as_float_array(v, k) for k, v in named.items()]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(f"{k} {a.shape}" for k, a in zip(named, arrays))
        raise ValueError(
            f"shapes do not broadcast together: {shapes}; "
            "give arrays of equal shape, scalars, or shapes numpy can broadcast"
        ) from None
    return arrays, shape, all(a.ndim == 0 for a in arrays)


def broadcast_float_arrays(**named: ArrayLike) -> tuple[list[np.ndarray], tuple[int, ...], bool]:
    """Broadcast named inputs; return contiguous arrays, their shape, and whether all were scalars."""
    arrays, shape, scalar = broadcast_shape(**named)
    # np.ascontiguousarray would turn 0-d into 1-d; copy only what is not already C-contiguous.
    out = [
        a
        if a.shape == shape and a.flags.c_contiguous
        else np.array(np.broadcast_to(a, shape), order="C")
        for a in arrays
    ]
    return out, shape, scalar


def check_threads(threads: int | None) -> int:
    """0 means automatic (all cores for large arrays, one for small ones)."""
    return _validation.threads(threads)


def apply(
    kernel: Callable[..., np.ndarray], threads: int | None, **named: ArrayLike
) -> FloatOrArray:
    """Evaluate a compiled element-wise kernel with numpy broadcasting over ``named``, given in the
    order of the kernel's array parameters (passed by position; ``threads``, keyword-only in every
    kernel, by name)."""
    nthreads = check_threads(threads)
    arrays, _, scalar = broadcast_float_arrays(**named)
    result = kernel(*arrays, threads=nthreads)
    return float(result) if scalar else result
