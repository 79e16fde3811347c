"""The C library's math functions, elementwise over numpy arrays: the functions the C++ core calls.

numpy's own vectorized float64 transcendentals (its AVX-512 builds: log, exp, expm1, log1p, ...) may differ
from the C library's by an ulp, so a test that compares the core with a numpy form byte for byte builds that
form with these; numpy's are taken only where no C math library can be loaded.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

import numpy as np


def c_function(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """The C library's ``name`` (double -> double) elementwise, float64 in and out (inf and NaN as C gives them)."""
    found = ctypes.util.find_library("m")
    if found is None:
        return getattr(np, name)
    function = getattr(ctypes.CDLL(found), name)
    function.restype, function.argtypes = ctypes.c_double, [ctypes.c_double]
    loop = np.frompyfunc(function, 1, 1)
    return lambda x: np.asarray(loop(np.asarray(x, dtype=np.float64)), dtype=np.float64)


expm1, log1p, log, exp = (c_function(name) for name in ("expm1", "log1p", "log", "exp"))
