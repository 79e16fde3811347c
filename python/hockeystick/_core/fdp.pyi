"""The f-DP shifted-interpolation engine, per grid point (cpp/bindings/register_fdp.cpp)."""

from typing import Any

import numpy.typing as npt

def fedavg_interpolation(
    schedule: int,
    *,
    learning_rate: npt.ArrayLike,
    lipschitz: npt.ArrayLike,
    local_steps: npt.ArrayLike,
    rounds: npt.ArrayLike,
    threads: int = 0,
) -> tuple[Any, ...]: ...
def interpolation_from_rounds(
    rho: npt.ArrayLike, gamma: npt.ArrayLike, lengths: npt.ArrayLike, *, threads: int = 0
) -> tuple[Any, ...]: ...
