"""Random allocation's sums of two independent laws on a grid (cpp/bindings/register_pld_allocation.cpp)."""

import numpy as np
import numpy.typing as npt

def merged_sum(
    grid: npt.ArrayLike,
    qa: npt.ArrayLike,
    wa: npt.ArrayLike,
    qb: npt.ArrayLike,
    wb: npt.ArrayLike,
    *,
    square: bool,
    negligible: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], int]: ...
def spread_sum(
    grid: npt.ArrayLike,
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    square: bool,
    exact_ratio: float,
    negligible: float,
) -> tuple[npt.NDArray[np.float64], float, int]: ...
