"""The mean-preserving contraction of a grid PMF onto a coarser grid (cpp/bindings/register_pld_contraction.cpp)."""

from typing import Any

import numpy.typing as npt

def mean_contraction(
    p: npt.ArrayLike,
    *,
    k_lo: int,
    h_fine: float,
    ratio: int,
    p_inf: float,
    entry_error: float,
    alias: float,
) -> dict[str, Any]: ...
